"""``rageval agreement``: measure a judge against the labels in the rows, e.g.
``rageval agreement ragbench.jsonl --judge offline``; exit 1 when the judge failed on any row (those rows are left
out of the figures)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import ExitStack

from rageval_lc.cli import common
from rageval_lc.files import raw_lines

HELP = "measure a judge against the labels in the rows"
DESCRIPTION = """Score labelled rows (RAGBench rows, or generic rows with 'labels') with a judge and print, per
sub-dataset and pooled, hallucination AUROC and relevance/utilization/completeness RMSE, next to the other judges'
columns the rows carry (RAGBench's convention)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.input_argument(parser)
    common.trace_mode_option(parser)
    common.json_option(parser)
    common.progress_option(parser)
    common.judge_options(parser)


def handle(args: argparse.Namespace) -> int:
    """Score the labelled rows with the judge and print the agreement figures."""
    from rageval_lc.align.agreement import agreement_run, format_agreement

    if common.missing(args.input, "input"):
        return 2
    try:
        judge = common.judge_from_args(args)
    except (ValueError, TypeError) as exc:
        return common.error(str(exc))
    with ExitStack() as stack:
        progress = common.progress_bar(args, stack)

        def source() -> Iterator[bytes]:  # rows are scored as they are read: the bar follows the reading
            for _, line in raw_lines(args.input):
                yield line
                if progress is not None:
                    progress.update(len(line))

        run = agreement_run(source(), judge, trace_mode=args.trace_mode)
    if args.json:
        print(json.dumps(run.to_dict(), indent=1))
    else:
        print(format_agreement(run))
    for line, reason in run.skipped[:20]:
        print(f"rageval: line {line} skipped: {reason}", file=sys.stderr)
    for line, reason in run.failed[:20]:
        print(f"rageval: line {line} failed: {reason}", file=sys.stderr)
    if run.failed:
        failed = common.count(len(run.failed), "row")
        print(f"rageval: {failed} failed; exit status 1 (the judge's figures leave them out).", file=sys.stderr)
        return 1
    return 0
