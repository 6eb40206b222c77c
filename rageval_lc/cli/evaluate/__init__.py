"""``rageval evaluate``: score each row of a JSONL file, one JSON line per row, e.g.
``rageval evaluate rows.jsonl --metrics trace --judge local --out results.jsonl``.

Exit status 1 with ``--strict`` when any row failed (a score is ``error``) or stayed undetermined (no score is
``ok``); bad rows are otherwise reported and written as ``error`` lines, and the status is 0.
"""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rageval_lc.cli.common import (
    cannot_write,
    check_bootstrap,
    error,
    interval_options,
    judge_from_args,
    judge_options,
    unusable,
)
from rageval_lc.errors import MissingDependencyError
from rageval_lc.files import LockedOutput, OutputInUseError, raw_lines


def add_parser(commands: Any) -> None:
    from rageval_lc.metrics.trace import TRACE_MODES
    from rageval_lc.scoring.judgements import SCORING_MODES
    from rageval_lc.scoring.registry import REGISTRY

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
        "--load",
        action="append",
        default=[],
        metavar="FILE.py|MODULE",
        help="import a Python file or module that defines a metric of your own (METRIC = MetricSpec(...)) or "
        "registers some (criteria_metric, register_metric) before --metrics is read; repeatable",
    )
    evaluate.add_argument("--trace-mode", default="ragbench", choices=TRACE_MODES, help="TRACe formulas")
    evaluate.add_argument(
        "--scoring-mode",
        default="shared",
        choices=SCORING_MODES,
        help="how judge calls are shared: shared (at most 3 per sample for every metric), fused (1), "
        "separate (one judgement per metric)",
    )
    evaluate.add_argument(
        "--relevance-normalizer", type=float, default=20.0, help="capstone mode's relevance denominator"
    )
    evaluate.add_argument("--out", type=Path, help="output JSONL file (default: standard output)")
    evaluate.add_argument(
        "--resume", action="store_true", help="keep the rows already in --out and score only the others"
    )
    evaluate.add_argument("--concurrency", type=int, default=1, help="rows scored at once (threads, per worker)")
    evaluate.add_argument(
        "--workers",
        type=int,
        default=1,
        help="worker processes, each loading the judge once (every core for the offline judge; --rpm is "
        "shared out); with --engine ray, Ray actors. Rows are written in input order",
    )
    evaluate.add_argument(
        "--engine",
        default="local",
        choices=("local", "ray"),
        help="local (this machine) or ray (a Ray cluster; needs the ray extra: pip install 'rageval_lc[ray]')",
    )
    evaluate.add_argument("--ray-address", help="the Ray cluster to join (default: start a local one)")
    evaluate.add_argument("--gpus-per-worker", type=float, default=0.0, help="GPUs each Ray actor reserves")
    evaluate.add_argument("--rpm", type=float, help="at most this many judge calls per minute")
    evaluate.add_argument("--timeout", type=float, help="seconds before a judge call is abandoned (then retried)")
    evaluate.add_argument(
        "--retries", type=int, default=3, help="retries of a judge call after a timeout, 429 or 5xx (backoff)"
    )
    evaluate.add_argument("--cache-dir", type=Path, help="cache usable judgements here; a rerun reads them back")
    evaluate.add_argument(
        "--strict",
        action="store_true",
        help="exit with status 1 if any row failed (a score is error) or is undetermined (no score is ok)",
    )
    evaluate.add_argument(
        "--dry-run", action="store_true", help="print the model calls the run would make, and make none"
    )
    judge_options(evaluate)
    interval_options(evaluate)
    evaluate.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show a progress bar on stderr (default: when stderr is a terminal)",
    )


def handle(args: argparse.Namespace) -> int:
    """Check the options, then score the input into ``--out`` (or standard output), or plan the calls only."""
    if unusable(args.input, "input", args.out, "--out", "the results"):
        return 2
    try:
        from rageval_lc.scoring.custom import load_metrics
        from rageval_lc.scoring.registry import parse_metrics

        for target in args.load:  # metrics of one's own, registered before --metrics names them
            load_metrics(target)
        specs = parse_metrics(args.metrics)  # once for the whole run
        if not args.relevance_normalizer > 0:
            raise ValueError(f"--relevance-normalizer must be > 0. Got {args.relevance_normalizer}.")
        judge = judge_from_args(args)
        if args.resume and args.out is None:
            raise ValueError("--resume needs --out (the file to resume).")
        if args.concurrency < 1:
            raise ValueError(f"--concurrency must be >= 1. Got {args.concurrency}.")
        if args.workers < 1:
            raise ValueError(f"--workers must be >= 1. Got {args.workers}.")
        if args.engine != "ray" and (args.ray_address or args.gpus_per_worker):
            raise ValueError("--ray-address and --gpus-per-worker need --engine ray.")
        if args.gpus_per_worker < 0:
            raise ValueError(f"--gpus-per-worker must be >= 0. Got {args.gpus_per_worker}.")
        if args.rpm is not None and args.rpm <= 0:
            raise ValueError(f"--rpm must be > 0. Got {args.rpm}.")
        check_bootstrap(args)
        if args.engine == "ray" and not args.dry_run:
            from rageval_lc.runs.ray_engine import check_address, require_ray

            require_ray()  # before the output is opened: Ray missing is one line, nothing written
            check_address(args.ray_address)  # Ray itself would retry an unreachable head for minutes
    except (ValueError, TypeError, MissingDependencyError, ConnectionError) as exc:
        return error(str(exc))
    if args.dry_run:
        return _dry_run(args, judge)
    from rageval_lc.cli.evaluate.loop import run_evaluation
    from rageval_lc.runs.engine import make_resilient

    judge = make_resilient(
        judge, requests_per_minute=args.rpm, timeout_s=args.timeout, retries=args.retries, cache_dir=args.cache_dir
    )
    try:
        output = LockedOutput(args.out, append=args.resume) if args.out is not None else None
    except OutputInUseError as exc:
        return error(str(exc))
    except OSError as exc:
        return cannot_write(args.out, exc)
    with output if output is not None else ExitStack():
        return run_evaluation(args, judge, specs, output)


def _dry_run(args: argparse.Namespace, judge: Any) -> int:
    from rageval_lc.reports.summary import format_table
    from rageval_lc.runs.jsonl import parse_line
    from rageval_lc.schema import RagSample
    from rageval_lc.scoring.dry_run import plan_calls

    parsed = [parse_line(line, line_no) for line_no, line in raw_lines(args.input) if line.strip()]
    samples = [sample for sample in parsed if isinstance(sample, RagSample)]
    bad = len(parsed) - len(samples)  # counted and reported; a dry run never fails on one row
    try:
        plans = plan_calls(samples, args.metrics, judge, scoring_mode=args.scoring_mode)
    except ValueError as exc:
        return error(str(exc))
    rows = [[p.judgement, ", ".join(p.metrics), p.calls_per_sample, p.samples, p.calls, p.prompt_tokens] for p in plans]
    print(f"Dry run with judge {judge.name}, scoring mode {args.scoring_mode}: no model was called.\n")
    print(format_table(["judgement", "metrics", "calls/sample", "samples", "calls", "est. prompt tokens"], rows))
    total = sum(p.calls for p in plans)
    calls = f"{total} model call{'s' if total != 1 else ''}"
    print(f"\n{calls} before retries (at most {args.max_retries + 1}x that with retries).")
    if bad:
        print(f"{bad} unreadable row{'s' if bad != 1 else ''} would be written as errors.")
    return 0
