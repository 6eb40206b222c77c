"""``rageval report``: summarise a results file, e.g. ``rageval report results.jsonl --html report.html`` (the
summary on standard output, one self-contained HTML page)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rageval_lc.cli import common

HELP = "summarise a results file; --html writes a self-contained report"
DESCRIPTION = """Read the JSONL written by `rageval evaluate`, print the per-score summary, and with --html write one
self-contained HTML page (summary, distributions, TRACe profile, worst rows, failures). With --labels, also each
labelled score's prediction-powered mean and 95% interval beside the judge's plain mean and the labels alone."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.results_argument(parser)
    common.html_option(parser, "write the HTML report here")
    parser.add_argument("--title", help="the report's title (default: the file name)")
    parser.add_argument("--worst", type=int, default=10, help="how many worst rows to list per score (at most 50)")
    parser.add_argument(
        "--worst-by",
        action="append",
        metavar="SCORE",
        help="list the worst rows by this score (repeatable; default: every score of the run, one folded list each "
        "but where the lists before it already hold all its rows)",
    )
    parser.add_argument(
        "--input",
        type=Path,
        help="the input JSONL the results were scored from: the page shows each listed row's question and answer "
        "(rows matched by line and checked by input_sha256)",
    )
    parser.add_argument(
        "--labels",
        type=Path,
        metavar="LABELLED",
        help="a JSONL of labelled rows (rageval label-sample's file filled in, or the results of --judge labels), "
        "matched to the results by id: prints each labelled score's prediction-powered (PPI++) mean and 95%% "
        "interval beside the judge's plain mean and the labels alone; the labelled rows must be a uniform sample",
    )
    common.interval_options(parser)


def handle(args: argparse.Namespace) -> int:
    """Print the summary of the results; with ``--html``, write the report page."""
    from rageval_lc.reports.attention import attach_inputs
    from rageval_lc.reports.html import render_html
    from rageval_lc.reports.summary import format_summary, summarize

    if common.unusable(args.results, "results", args.html, "--html", "the report"):
        return 2
    if args.html is None and (args.worst_by or args.input is not None):
        return common.error(f"{'--worst-by' if args.worst_by else '--input'} shapes the HTML report; give --html too.")
    if args.worst < 1:
        return common.error(f"--worst must be at least 1. Got {args.worst}.")
    try:
        common.check_bootstrap(args)
        rows, bad = common.result_rows(args.results)
    except ValueError as exc:
        return common.error(str(exc))
    labelled = None
    if args.labels is not None:
        if common.unusable(args.labels, "labels", args.html, "--html", "the report"):
            return 2
        from rageval_lc.reports.labelled import labelled_summary

        try:
            labelled = labelled_summary(rows, args.labels)
        except ValueError as exc:
            return common.error(str(exc))
        except OSError as exc:
            return common.error(f"cannot read {args.labels}: {exc.strerror or exc}")
    print(format_summary(summarize(rows, n_resamples=args.bootstrap, seed=args.seed)))
    if labelled is not None:
        from rageval_lc.reports.labelled import format_labelled_summary

        print(f"\n{format_labelled_summary(labelled, source=args.labels.name)}")
    if bad:
        common.stderr(f"rageval: {bad} line{'s' if bad != 1 else ''} skipped (not result rows).")
    if args.html:
        if args.input is not None:
            if common.unusable(args.input, "input", args.html, "--html", "the report"):
                return 2
            try:
                rows, unmatched = attach_inputs(rows, args.input)
            except OSError as exc:
                return common.error(f"cannot read {args.input}: {exc.strerror or exc}")
            if unmatched:
                common.stderr(
                    f"rageval: {common.count(unmatched, 'row')} without a matching line in {args.input} (changed since "
                    "scored, or not a readable row): shown without a question."
                )
        scores = [s.name for s in summarize(rows, n_resamples=0)]  # the names only
        unknown = [name for name in args.worst_by or () if name not in scores]
        if unknown:
            have = ", ".join(scores[:20]) + (", …" if len(scores) > 20 else "")
            return common.error(f"--worst-by {unknown[0]!r}: no such score in {args.results} (it has {have}).")
        page = render_html(
            rows,
            title=args.title or args.results.name,
            worst=args.worst,
            worst_by=args.worst_by,
            n_resamples=args.bootstrap,
            seed=args.seed,
            labelled=labelled,
        )
        return common.write_page(args.html, page, "HTML report")
    return 0
