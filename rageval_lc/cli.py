"""The ``rageval`` command.

``rageval evaluate INPUT.jsonl --metrics trace --judge labels --trace-mode ragbench --out OUT.jsonl``
scores each input row (RAGBench rows or generic rows) and writes one JSON line per row; a summary
table goes to stderr. ``rageval quickstart`` scores bundled RAGBench samples offline and prints a table.

Exit status: 0 when the run completed (bad rows are reported and written as ``error`` lines), 1 with
``--strict`` when any row failed, 2 for a usage error or an unreadable input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TextIO

from rageval_lc import __version__

JUDGES = ("labels",)


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``rageval``."""
    from rageval_lc.evaluators import REGISTRY
    from rageval_lc.metrics.trace import TRACE_MODES

    parser = argparse.ArgumentParser(prog="rageval", description="Score retrieval-augmented generation.")
    parser.add_argument("--version", action="version", version=f"rageval_lc {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    evaluate = commands.add_parser(
        "evaluate",
        help="score a JSONL file of samples",
        description="Score each row of a JSONL file (RAGBench rows or generic rows with id, question, "
        "contexts, response, optional reference and labels) and write one JSON line per row.",
    )
    evaluate.add_argument("input", type=Path, help="input JSONL file")
    evaluate.add_argument(
        "--metrics", default="trace", help=f"comma-separated metrics (known: {', '.join(sorted(REGISTRY))})"
    )
    evaluate.add_argument(
        "--judge", default="labels", choices=JUDGES, help="labels: use the TRACe labels already in the rows"
    )
    evaluate.add_argument("--trace-mode", default="ragbench", choices=TRACE_MODES, help="TRACe formulas")
    evaluate.add_argument(
        "--relevance-normalizer", type=float, default=20.0, help="capstone mode's relevance denominator"
    )
    evaluate.add_argument("--out", type=Path, help="output JSONL file (default: standard output)")
    evaluate.add_argument("--strict", action="store_true", help="exit with status 1 if any row failed")
    evaluate.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show a progress bar on stderr (default: when stderr is a terminal)",
    )

    commands.add_parser(
        "quickstart",
        help="score the bundled RAGBench samples offline and print a table",
        description="Score a few bundled RAGBench rows (CC BY 4.0) with TRACe and print the results.",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rageval`` command; return its exit status."""
    args = build_parser().parse_args(argv)
    if args.command == "quickstart":
        from rageval_lc.quickstart import run_quickstart

        return run_quickstart(sys.stdout)
    return _evaluate(args)


def _evaluate(args: argparse.Namespace) -> int:
    from rageval_lc.judges.labels import LabelsJudge
    from rageval_lc.report import format_summary
    from rageval_lc.runner import evaluate_lines

    if not args.input.is_file():
        print(f"rageval: error: input file not found: {args.input}", file=sys.stderr)
        return 2
    try:
        from rageval_lc.evaluators import parse_metrics

        parse_metrics(args.metrics)
        if not args.relevance_normalizer > 0:
            raise ValueError(f"--relevance-normalizer must be > 0. Got {args.relevance_normalizer}.")
    except ValueError as exc:
        print(f"rageval: error: {exc}", file=sys.stderr)
        return 2

    with ExitStack() as stack:
        source = stack.enter_context(args.input.open(encoding="utf-8"))
        out: TextIO = stack.enter_context(args.out.open("w", encoding="utf-8")) if args.out else sys.stdout
        progress = _progress_bar(args, stack)

        def on_row(row: dict[str, Any]) -> None:
            if progress is not None:
                progress.update(1)
            if any(status == "error" for status in row["status"].values()):
                reason = next(iter(row["reason"].values()), "")
                message = f"rageval: line {row['line']} (id {row['id']!r}) failed: {reason}"
                (progress.write if progress is not None else _stderr)(message)

        report = evaluate_lines(
            source,
            out,
            metrics=args.metrics,
            judge=LabelsJudge(),
            trace_mode=args.trace_mode,
            relevance_normalizer=args.relevance_normalizer,
            on_row=on_row,
        )
    print(format_summary(report.summaries), file=sys.stderr)
    print(f"{report.rows} row{'' if report.rows == 1 else 's'} scored, {len(report.failed)} failed.", file=sys.stderr)
    return 1 if args.strict and report.failed else 0


def _progress_bar(args: argparse.Namespace, stack: ExitStack) -> Any:
    show = sys.stderr.isatty() if args.progress is None else args.progress
    if not show:
        return None
    from tqdm import tqdm

    with args.input.open(encoding="utf-8") as handle:
        total = sum(1 for line in handle if line.strip())
    return stack.enter_context(tqdm(total=total, unit="row", file=sys.stderr, desc="rageval"))


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
