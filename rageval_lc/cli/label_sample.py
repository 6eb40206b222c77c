"""``rageval label-sample``: draw the rows to label, uniformly, e.g.
``rageval label-sample scores.jsonl --n 100 --out to_label.jsonl``; fill in their ``labels`` and give the file to
``rageval report scores.jsonl --labels`` (or ``rageval compare A B --labels``, drawn from both runs)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rageval_lc.cli import common

HELP = "draw a uniform sample of scored rows to label (for report/compare --labels)"
DESCRIPTION = """Draw --n rows uniformly at random (seeded) from a results file (from rageval evaluate --out), among
the rows with an ok score to label, and write them as JSONL with the fields to fill in: each row's id, input line,
question, answer (and with --input its documents) and "labels", each score null until labelled (a number, or
true/false). The judge's scores are left out so as not to sway the labeller. Given two results files (runs A and B
of rageval compare), draw --n rows paired in both, one line per answer ("run": "A" or "B"; one line when the answers
are the same). --stratify-by FIELD draws --n split evenly between the values of FIELD (e.g. dataset), each row
naming its stratum, so that report --labels weighs each stratum by its share of the rows; rows chosen as unsure are
not offered (they would need their sampling weights in the estimate)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", type=Path, nargs="+", help="results JSONL (one run, or runs A and B to compare)")
    parser.add_argument("--n", type=int, required=True, help="how many rows to draw (at least 2; 100 is a good start)")
    parser.add_argument("--out", type=Path, required=True, help="write the rows to label here (JSONL)")
    common.seed_option(parser, "the draw's")
    parser.add_argument(
        "--score",
        action="append",
        metavar="SCORE",
        help="a score to label (repeatable; default: every score of the run but the companions, such as "
        "adherence_probability)",
    )
    parser.add_argument(
        "--stratify-by",
        metavar="FIELD",
        help="one run: draw --n split evenly between the values of this field (as compare --by reads it, e.g. "
        "dataset), uniformly within each; rageval report --labels then weighs each by its share of the rows",
    )
    parser.add_argument(
        "--input",
        type=Path,
        help="the input JSONL the results were scored from: each row to label gets its documents (contexts) and "
        "reference (rows matched by line and checked by input_sha256)",
    )


def handle(args: argparse.Namespace) -> int:
    """Draw the rows and write them; say on stderr how many, from how many."""
    from rageval_lc.files import jsonl_line, write_atomic
    from rageval_lc.reports.label_sample import draw_rows, input_fields

    if len(args.results) > 2:
        return common.error(f"give one results file, or two (runs A and B). Got {len(args.results)}.")
    for path in (*args.results, *([args.input] if args.input else [])):
        if common.unusable(path, "results" if path != args.input else "input", args.out, "--out", "the rows"):
            return 2
    try:
        runs = [common.result_rows(path)[0] for path in args.results]
        contexts = None
        if args.input is not None:
            contexts, _ = input_fields(args.input, [row for run in runs for row in run])
        drawn = draw_rows(
            runs, args.n, seed=args.seed, scores=args.score, contexts=contexts, stratify_by=args.stratify_by
        )
    except ValueError as exc:
        return common.error(str(exc))
    except OSError as exc:
        return common.error(f"cannot read {exc.filename or args.input}: {exc.strerror or exc}")
    try:
        write_atomic(args.out, "".join(jsonl_line(row) for row in drawn))
    except OSError as exc:
        return common.cannot_write(args.out, exc)
    total = len(runs[0])
    what = "pairs of rows" if len(runs) == 2 else "rows"
    how = f"stratified by {args.stratify_by}" if args.stratify_by else "uniformly"
    common.stderr(
        f"rageval: {args.n} {what} of {total} drawn ({how}, seed {args.seed}) into {args.out}: "
        f"{len(drawn)} answers to label for {', '.join(drawn[0]['labels'])}."
    )
    unmatched = sum(1 for row in drawn if "contexts" not in row) if args.input is not None else 0
    if unmatched:
        common.stderr(
            f"rageval: {common.count(unmatched, 'row')} without a matching line in {args.input}: no documents."
        )
    return 0
