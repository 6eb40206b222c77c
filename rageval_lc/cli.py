"""The ``rageval`` command.

``rageval evaluate INPUT.jsonl --metrics trace --judge local --trace-mode ragbench --out OUT.jsonl``
scores each input row (RAGBench rows or generic rows) and writes one JSON line per row; a summary
table goes to stderr. ``rageval agreement INPUT.jsonl --judge local`` measures a judge against the
labels in the rows. ``rageval quickstart`` scores bundled RAGBench samples offline and prints a table.

Judges: ``labels`` (labels already in the rows), ``local`` (offline; the default unless $RAGEVAL_JUDGE
names another) and ``dspy:<model id>`` (any LiteLLM model, e.g. ``dspy:openai/gpt-4o-mini``, or a local
OpenAI-compatible server with ``--api-base``).

Exit status: 0 when the run completed (bad rows are reported and written as ``error`` lines), 1 with
``--strict`` when any row failed, 2 for a usage error or an unreadable input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TextIO

from rageval_lc import __version__


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
    evaluate.add_argument("--trace-mode", default="ragbench", choices=TRACE_MODES, help="TRACe formulas")
    evaluate.add_argument(
        "--relevance-normalizer", type=float, default=20.0, help="capstone mode's relevance denominator"
    )
    evaluate.add_argument("--out", type=Path, help="output JSONL file (default: standard output)")
    evaluate.add_argument("--strict", action="store_true", help="exit with status 1 if any row failed")
    evaluate.add_argument(
        "--dry-run", action="store_true", help="print the model calls the run would make, and make none"
    )
    _judge_options(evaluate)
    evaluate.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show a progress bar on stderr (default: when stderr is a terminal)",
    )

    agreement = commands.add_parser(
        "agreement",
        help="measure a judge against the labels in the rows",
        description="Score labelled rows (RAGBench rows, or generic rows with 'labels') with a judge and print, "
        "per sub-dataset and pooled, hallucination AUROC and relevance/utilization/completeness RMSE, next to "
        "the other judges' columns the rows carry (RAGBench's convention).",
    )
    agreement.add_argument("input", type=Path, help="input JSONL file")
    agreement.add_argument("--trace-mode", default="ragbench", choices=TRACE_MODES, help="TRACe formulas")
    agreement.add_argument("--json", action="store_true", help="print the figures as JSON")
    agreement.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    _judge_options(agreement)

    commands.add_parser(
        "quickstart",
        help="score the bundled RAGBench samples offline and print a table",
        description="Score a few bundled RAGBench rows (CC BY 4.0) with TRACe and print the results.",
    )
    return parser


def _judge_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--judge",
        default=os.environ.get("RAGEVAL_JUDGE", "local"),
        help="labels | local | dspy:<model id> (default: $RAGEVAL_JUDGE, else local)",
    )
    parser.add_argument("--api-base", help="server URL for a dspy: judge (e.g. http://127.0.0.1:8080/v1)")
    parser.add_argument("--api-key-env", help="environment variable holding the API key for a dspy: judge")
    parser.add_argument("--max-retries", type=int, default=2, help="extra attempts on unusable model output")
    parser.add_argument("--max-tokens", type=int, help="cap on the tokens a dspy: judge may generate per call")


def _make_judge(args: argparse.Namespace) -> Any:
    from rageval_lc.judges.factory import make_judge

    extra = {"max_tokens": args.max_tokens} if args.max_tokens and args.judge.startswith("dspy:") else {}
    return make_judge(
        args.judge, api_base=args.api_base, api_key_env=args.api_key_env, max_retries=args.max_retries, **extra
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rageval`` command; return its exit status."""
    args = build_parser().parse_args(argv)
    if args.command == "quickstart":
        from rageval_lc.quickstart import run_quickstart

        return run_quickstart(sys.stdout)
    if args.command == "agreement":
        return _agreement(args)
    return _evaluate(args)


def _agreement(args: argparse.Namespace) -> int:
    from rageval_lc.agreement import agreement_run, format_agreement

    if not args.input.is_file():
        print(f"rageval: error: input file not found: {args.input}", file=sys.stderr)
        return 2
    try:
        judge = _make_judge(args)
    except (ValueError, TypeError) as exc:
        print(f"rageval: error: {exc}", file=sys.stderr)
        return 2
    with ExitStack() as stack:
        source = stack.enter_context(args.input.open(encoding="utf-8"))
        progress = _progress_bar(args, stack)
        run = agreement_run(
            source, judge, trace_mode=args.trace_mode, on_row=(lambda: progress.update(1)) if progress else None
        )
    if args.json:
        print(json.dumps(run.to_dict(), indent=1))
    else:
        print(format_agreement(run))
    for line, reason in run.skipped[:20]:
        print(f"rageval: line {line} skipped: {reason}", file=sys.stderr)
    return 0


def _evaluate(args: argparse.Namespace) -> int:
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
        judge = _make_judge(args)
    except (ValueError, TypeError) as exc:
        print(f"rageval: error: {exc}", file=sys.stderr)
        return 2
    if args.dry_run:
        return _dry_run(args, judge)

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
            judge=judge,
            trace_mode=args.trace_mode,
            relevance_normalizer=args.relevance_normalizer,
            on_row=on_row,
        )
    print(format_summary(report.summaries), file=sys.stderr)
    for family, used in report.usage.items():
        tokens = used["reported_tokens"] or used["estimated_tokens"]
        kind = "reported" if used["reported_tokens"] else "estimated"
        print(
            f"judge {judge.name}, {family}: {used['calls']} model calls, {tokens:,} tokens ({kind}).", file=sys.stderr
        )
    print(f"{report.rows} row{'' if report.rows == 1 else 's'} scored, {len(report.failed)} failed.", file=sys.stderr)
    return 1 if args.strict and report.failed else 0


def _dry_run(args: argparse.Namespace, judge: Any) -> int:
    from rageval_lc.datasets.rows import sample_from_row
    from rageval_lc.dry_run import plan_calls
    from rageval_lc.report import format_table

    samples, bad = [], 0
    with args.input.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                samples.append(sample_from_row(json.loads(line)))
            except Exception:  # counted and reported; a dry run never fails on one row
                bad += 1
    try:
        plans = plan_calls(samples, args.metrics, judge)
    except ValueError as exc:
        print(f"rageval: error: {exc}", file=sys.stderr)
        return 2
    rows = [[p.judgement, ", ".join(p.metrics), p.calls_per_sample, p.samples, p.calls, p.prompt_tokens] for p in plans]
    print(f"Dry run with judge {judge.name}: no model was called.\n")
    print(format_table(["judgement", "metrics", "calls/sample", "samples", "calls", "est. prompt tokens"], rows))
    total = sum(p.calls for p in plans)
    calls = f"{total} model call{'s' if total != 1 else ''}"
    print(f"\n{calls} before retries (at most {args.max_retries + 1}x that with retries).")
    if bad:
        print(f"{bad} unreadable row{'s' if bad != 1 else ''} would be written as errors.")
    return 0


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
