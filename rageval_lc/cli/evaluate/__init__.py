"""``rageval evaluate``: score each row of a JSONL file, one JSON line per row, e.g.
``rageval evaluate rows.jsonl --metrics trace --judge offline --out results.jsonl``.

Exit status 1 when every row failed, and with ``--strict`` when any row failed (a score is ``error``) or stayed
undetermined (no score is ``ok``); bad rows are otherwise reported and written as ``error`` lines, and the status is
0. A judge that cannot be called for want of credentials (a missing API key) stops the run at its first call, with
one line and status 2.
"""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rageval_lc.cli import common
from rageval_lc.errors import MissingDependencyError
from rageval_lc.files import LockedOutput, OutputInUseError, raw_lines

HELP = "score a JSONL file of samples"
DESCRIPTION = """Score each row of a JSONL file (RAGBench rows or generic rows with id, question, contexts, response,
optional reference and labels) and write one JSON line per row."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from rageval_lc.scoring.judgements import SCORING_MODES
    from rageval_lc.scoring.registry import REGISTRY

    common.input_argument(parser)
    parser.add_argument(
        "--metrics", default="trace", help=f"comma-separated metrics (known: {', '.join(sorted(REGISTRY))})"
    )
    parser.add_argument(
        "--load",
        action="append",
        default=[],
        metavar="FILE.py|MODULE",
        help="import a Python file or module that defines a metric of your own (METRIC = MetricSpec(...)) or "
        "registers some (criteria_metric, register_metric) before --metrics is read; repeatable",
    )
    common.trace_mode_option(parser)
    parser.add_argument(
        "--scoring-mode",
        default="shared",
        choices=SCORING_MODES,
        help="how judge calls are shared: shared (at most 3 per sample for every metric), fused (1), "
        "separate (one judgement per metric)",
    )
    parser.add_argument(
        "--relevance-normalizer", type=float, default=20.0, help="capstone mode's relevance denominator"
    )
    parser.add_argument("--out", type=Path, help="output JSONL file (default: standard output)")
    parser.add_argument(
        "--resume", action="store_true", help="keep the rows already in --out and score only the others"
    )
    parser.add_argument("--concurrency", type=int, default=1, help="rows scored at once (threads, per worker)")
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="worker processes, each loading the judge once (every core for the offline judge; --rpm is "
        "shared out); with --engine ray, Ray actors. Rows are written in input order",
    )
    parser.add_argument(
        "--engine",
        default="local",
        choices=("local", "ray"),
        help="local (this machine) or ray (a Ray cluster; needs the ray extra: pip install 'rageval_lc[ray]')",
    )
    parser.add_argument("--ray-address", help="the Ray cluster to join (default: start a local one)")
    parser.add_argument("--gpus-per-worker", type=float, default=0.0, help="GPUs each Ray actor reserves")
    parser.add_argument("--rpm", type=float, help="at most this many judge calls per minute")
    parser.add_argument("--timeout", type=float, help="seconds before a judge call is abandoned (then retried)")
    parser.add_argument(
        "--retries", type=int, default=3, help="retries of a judge call after a timeout, 429 or 5xx (backoff)"
    )
    parser.add_argument("--cache-dir", type=Path, help="cache usable judgements here; a rerun reads them back")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit with status 1 if any row failed (a score is error) or is undetermined (no score is ok); without "
        "it, only when every row failed",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the model calls the run would make, and make none (a dspy: judge may make up to 2 per judgement: "
        "DSPy asks again through its JSON adapter when an answer does not parse)",
    )
    common.judge_options(parser)
    common.interval_options(parser)
    common.progress_option(parser, help="show a progress bar on stderr (default: when stderr is a terminal)")


def handle(args: argparse.Namespace) -> int:
    """Check the options, then score the input into ``--out`` (or standard output), or plan the calls only."""
    if common.unusable(args.input, "input", args.out, "--out", "the results"):
        return 2
    try:
        from rageval_lc.scoring.custom import load_metrics
        from rageval_lc.scoring.registry import parse_metrics

        for target in args.load:  # metrics of one's own, registered before --metrics names them
            load_metrics(target)
        specs = parse_metrics(args.metrics)  # once for the whole run
        if not args.relevance_normalizer > 0:
            raise ValueError(f"--relevance-normalizer must be > 0. Got {args.relevance_normalizer}.")
        judge = common.judge_from_args(args)
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
        common.check_bootstrap(args)
        if args.engine == "ray" and not args.dry_run:
            from rageval_lc.engine.ray_engine import check_address, require_ray

            require_ray()  # before the output is opened: Ray missing is one line, nothing written
            check_address(args.ray_address)  # Ray itself would retry an unreachable head for minutes
    except (ValueError, TypeError, MissingDependencyError, ConnectionError) as exc:
        return common.error(str(exc))
    if args.dry_run:
        return _dry_run(args, judge)
    from rageval_lc.cli.evaluate.loop import run_evaluation
    from rageval_lc.engine.engine import make_resilient

    judge = make_resilient(
        judge, requests_per_minute=args.rpm, timeout_s=args.timeout, retries=args.retries, cache_dir=args.cache_dir
    )
    try:
        output = LockedOutput(args.out, append=args.resume) if args.out is not None else None
    except OutputInUseError as exc:
        return common.error(str(exc))
    except OSError as exc:
        return common.cannot_write(args.out, exc)
    with output if output is not None else ExitStack():
        return run_evaluation(args, judge, specs, output)


def _dry_run(args: argparse.Namespace, judge: Any) -> int:
    from rageval_lc.engine.jsonl import parse_line
    from rageval_lc.reports.summary import format_table
    from rageval_lc.schema import RagSample
    from rageval_lc.scoring.dry_run import plan_calls

    parsed = [parse_line(line, line_no) for line_no, line in raw_lines(args.input) if line.strip()]
    samples = [sample for sample in parsed if isinstance(sample, RagSample)]
    bad = len(parsed) - len(samples)  # counted and reported; a dry run never fails on one row
    try:
        plans = plan_calls(samples, args.metrics, judge, scoring_mode=args.scoring_mode)
    except ValueError as exc:
        return common.error(str(exc))
    rows = [[p.judgement, ", ".join(p.metrics), p.calls_per_sample, p.samples, p.calls, p.prompt_tokens] for p in plans]
    print(f"Dry run with judge {judge.name}, scoring mode {args.scoring_mode}: no model was called.\n")
    print(format_table(["judgement", "metrics", "calls/sample", "samples", "calls", "est. prompt tokens"], rows))
    total = sum(p.calls for p in plans)
    calls = f"{total} model call{'s' if total != 1 else ''}"
    print(f"\n{calls} before retries (at most {args.max_retries + 1}x that with retries).")
    if total and "dspy:" in f"{judge.name} {getattr(getattr(judge, 'llm', None), 'name', '')}":
        most = 2 * total  # DSPy's ChatAdapter falls back to its JSONAdapter, one more call, on an unparsable answer
        print(
            "Up to 2 calls per judgement when the chat adapter's output does not parse (DSPy then asks again through "
            f"its JSON adapter): at most {most} calls, {most * (args.max_retries + 1)} with retries."
        )
    if hasattr(judge, "describe_budget"):  # a cascade judge: what its budget allows
        print(judge.describe_budget([p.judgement for p in plans], samples))
    if bad:
        print(f"{bad} unreadable row{'s' if bad != 1 else ''} would be written as errors.")
    return 0
