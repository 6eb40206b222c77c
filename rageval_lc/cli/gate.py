"""``rageval gate``: a CI gate on a results file, e.g.
``rageval gate results.jsonl --min faithfulness=0.8 --max-error-rate 0.01``; exit 1 when the results fall short
of the thresholds (a table says which and why), 0 when they meet them."""

from __future__ import annotations

import argparse
import sys

from rageval_lc.cli import common

HELP = "exit 1 when a results file falls short of thresholds (a CI gate)"
DESCRIPTION = """Check the results of `rageval evaluate --out` against thresholds: each --min score's mean over ok
rows must reach its value, each --max score's mean must not exceed it, and at most --max-error-rate of the rows may
have an error score or an empty answer (an empty answer's scores are undetermined, so it would otherwise drop out of
every mean: it counts as a failed row). Other undetermined scores (no contexts, no reference) are left out of the
means, and the table says how many rows carried an ok value. Exit 1 with a table of what fell short, else 0."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.results_argument(parser)
    parser.add_argument(
        "--min", action="append", default=[], metavar="SCORE=VALUE", help="the score's mean must be >= VALUE"
    )
    parser.add_argument(
        "--max", action="append", default=[], metavar="SCORE=VALUE", help="the score's mean must be <= VALUE"
    )
    parser.add_argument(
        "--max-error-rate",
        default="0",
        metavar="RATE",
        help="largest share of rows with an error score or an empty answer (unreadable lines count) that passes "
        "(default 0)",
    )
    parser.add_argument(
        "--confident",
        action="store_true",
        help="the bootstrap 95%% CI's lower bound (--min; upper bound for --max) must clear the threshold",
    )
    common.interval_options(parser, also="for the CI the table shows and --confident reads")


def handle(args: argparse.Namespace) -> int:
    """Check the results against the thresholds; print what fell short (or every check when all passed)."""
    from rageval_lc.reports.gate import check_gate, format_gate, parse_rate, parse_threshold

    try:
        thresholds = [parse_threshold(t, "min") for t in args.min] + [parse_threshold(t, "max") for t in args.max]
        max_error_rate = parse_rate(args.max_error_rate)
        common.check_bootstrap(args, least=1)
    except ValueError as exc:
        return common.error(str(exc))
    if common.missing(args.results, "results"):
        return 2
    try:
        rows, unreadable = common.result_rows(args.results)  # a torn or foreign line counts as a row with an error
        report = check_gate(
            rows,
            thresholds,
            max_error_rate=max_error_rate,
            confident=args.confident,
            n_resamples=args.bootstrap,
            seed=args.seed,
            unreadable=unreadable,
        )
    except ValueError as exc:
        return common.error(str(exc))
    shown = report.checks if report.passed else report.failed
    print(format_gate(shown, confidence=report.confidence))
    total = len(report.checks)
    if report.passed:
        print(f"rageval gate: {'all ' if total > 1 else ''}{common.count(total, 'check')} passed.", file=sys.stderr)
        return 0
    short = len(report.failed)
    print(f"rageval gate: {short} of {total} checks fell short; exit status 1.", file=sys.stderr)
    return 1
