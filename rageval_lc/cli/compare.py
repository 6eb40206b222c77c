"""``rageval compare``: by how much run B differs from run A, and how surely, e.g.
``rageval compare baseline.jsonl candidate.jsonl --by dataset --html compare.html``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rageval_lc.cli import common

HELP = "compare two runs row by row: differences, 95%% intervals, p-values"
DESCRIPTION = """Pair the rows of two results files (from rageval evaluate --out) by id and print, per score, the
mean difference B - A over the rows ok in both, its paired-bootstrap 95% interval, the paired permutation p-value and
win/tie/loss counts; --html writes a page with a forest plot and the rows that changed most."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_a", type=Path, help="results JSONL of run A (the baseline)")
    parser.add_argument("run_b", type=Path, help="results JSONL of run B (the candidate)")
    parser.add_argument(
        "--by",
        metavar="FIELD",
        help="also compare per subset of this field: of the result rows, their details, or the input rows' own "
        "fields (kept under metadata.row), e.g. dataset; a field no row has is an error listing those there are",
    )
    common.json_option(parser)
    common.html_option(parser, "write a self-contained HTML page here")
    parser.add_argument("--top", type=int, default=10, help="rows that changed most listed per score (at most 50)")
    parser.add_argument(
        "--labels",
        type=Path,
        metavar="LABELLED",
        help='a JSONL of labelled rows (rageval label-sample A B\'s file filled in; "run": "A" or "B" says '
        "whose answer a row labels): also prints each labelled score's prediction-powered (PPI++) B - A and its 95%% "
        "interval, from the rows labelled in both runs",
    )
    common.interval_options(parser, also="also the permutation test's random sign flips")


def handle(args: argparse.Namespace) -> int:
    """Pair the two runs and print the differences; with ``--html``, write the comparison page."""
    from rageval_lc.reports.compare import compare, format_comparison

    files = ((args.run_a, "run A"), (args.run_b, "run B"), *(((args.labels, "labels"),) if args.labels else ()))
    for path, what in files:
        if common.unusable(path, what, args.html, "--html", "the page"):
            return 2
    labelled = None
    try:
        common.check_bootstrap(args, least=1)
        if not 0 <= args.top <= 50:
            raise ValueError(f"--top must be between 0 and 50. Got {args.top}.")
        result = compare(args.run_a, args.run_b, by=args.by, n_resamples=args.bootstrap, seed=args.seed)
        if args.labels is not None:
            from rageval_lc.reports.labelled import labelled_difference

            labelled = labelled_difference(args.run_a, args.run_b, args.labels)
    except ValueError as exc:
        return common.error(str(exc))
    except OSError as exc:
        return common.error(f"cannot read {exc.filename or 'a run'}: {exc.strerror or exc}")
    if args.json:
        out = result.to_dict()
        if labelled is not None:
            out["labelled"] = labelled.to_dict()
        print(json.dumps(out, indent=1))
    else:
        print(format_comparison(result, names=(args.run_a.name, args.run_b.name)))
        if labelled is not None:
            from rageval_lc.reports.labelled import format_labelled_summary

            text = format_labelled_summary(labelled, source=args.labels.name, difference=True)
            print(f"\n{text}")
    if args.html:
        from rageval_lc.reports.compare_html import render_compare_html

        page = render_compare_html(result, names=(args.run_a.name, args.run_b.name), top=args.top)
        return common.write_page(args.html, page, "HTML comparison")
    return 0
