"""What several ``rageval`` commands share: the arguments that mean the same in each, the judge's and the intervals'
options, checks of the files named, reading a results file, writing a page, and the one-line errors."""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rageval_lc.files import json_rows, same_file, write_atomic


def input_argument(parser: argparse.ArgumentParser) -> None:
    """The ``input`` positional: the JSONL file of rows the command reads."""
    parser.add_argument("input", type=Path, help="input JSONL file")


def results_argument(parser: argparse.ArgumentParser) -> None:
    """The ``results`` positional: a file ``rageval evaluate --out`` wrote."""
    parser.add_argument("results", type=Path, help="results JSONL (from rageval evaluate --out)")


def trace_mode_option(parser: argparse.ArgumentParser) -> None:
    """``--trace-mode``: the TRACe formulas the scores follow."""
    from rageval_lc.metrics.trace import TRACE_MODES

    parser.add_argument("--trace-mode", default="ragbench", choices=TRACE_MODES, help="TRACe formulas")


def json_option(parser: argparse.ArgumentParser, what: str = "the figures") -> None:
    """``--json``: print ``what`` as JSON rather than as a table."""
    parser.add_argument("--json", action="store_true", help=f"print {what} as JSON")


def progress_option(parser: argparse.ArgumentParser, help: str | None = None) -> None:
    """``--progress`` / ``--no-progress``: a bar on stderr; None (neither given) leaves it to the command."""
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None, help=help)


def html_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--html``: where the command's page goes (written by :func:`write_page`); ``help`` says what it shows."""
    parser.add_argument("--html", type=Path, help=help)


def judge_options(parser: argparse.ArgumentParser) -> None:
    """``--judge`` and what builds it: ``--api-base``, ``--api-key-env``, ``--max-retries``, ``--max-tokens``,
    ``--device``."""
    from rageval_lc.judges.factory import JUDGE_FORMS
    from rageval_lc.judges.offline.devices import DEVICE_CHOICES

    parser.add_argument(
        "--judge",
        default=os.environ.get("RAGEVAL_JUDGE", "offline"),
        help=" | ".join(JUDGE_FORMS) + " (default: $RAGEVAL_JUDGE, else offline; local is offline's old name)",
    )
    server_options(parser)
    parser.add_argument("--max-retries", type=int, default=2, help="extra attempts on unusable model output")
    parser.add_argument("--max-tokens", type=int, help="cap on the tokens a dspy: judge may generate per call")
    parser.add_argument(
        "--device",
        default="auto",
        choices=DEVICE_CHOICES,
        help="where the offline judge runs: auto (CUDA, else MPS, else CPU; the default), cpu, cuda, mps",
    )
    parser.add_argument(
        "--escalate",
        type=float,
        metavar="SHARE",
        help="with --judge cascade:...: the share (0-1) of the run's verdicts sent to the LLM, the least confident",
    )
    parser.add_argument(
        "--escalate-below",
        type=float,
        metavar="CONFIDENCE",
        help="with --judge cascade:...: send every verdict less likely than this (0-1) to be right to the LLM",
    )


def server_options(parser: argparse.ArgumentParser) -> None:
    """``--api-base`` and ``--api-key-env``: where a dspy: judge's model is served, and its key."""
    parser.add_argument("--api-base", help="server URL for a dspy: judge (e.g. http://127.0.0.1:8080/v1)")
    parser.add_argument("--api-key-env", help="environment variable holding the API key for a dspy: judge")


def interval_options(parser: argparse.ArgumentParser, *, also: str = "0: no intervals") -> None:
    """``--bootstrap N`` and ``--seed``; ``also`` ends the first's help (what else N sets, or what 0 means)."""
    from rageval_lc.reports.summary import DEFAULT_RESAMPLES

    parser.add_argument(
        "--bootstrap",
        type=int,
        default=DEFAULT_RESAMPLES,
        metavar="N",
        help=f"bootstrap resamples for each 95%% interval (default {DEFAULT_RESAMPLES}; {also})",
    )
    seed_option(parser, "the bootstrap's")


def seed_option(parser: argparse.ArgumentParser, whose: str) -> None:
    """``--seed``: the seed (default 0) of the command's random draws; ``whose`` names them (``"the draw's"``)."""
    parser.add_argument("--seed", type=int, default=0, help=f"{whose} seed (default 0)")


def check_bootstrap(args: argparse.Namespace, least: int = 0) -> None:
    if args.bootstrap < least:
        raise ValueError(f"--bootstrap must be >= {least}. Got {args.bootstrap}.")


def judge_from_args(args: argparse.Namespace) -> Any:
    """The judge the options of :func:`judge_options` name."""
    from rageval_lc.judges.factory import make_judge

    llm = args.judge.startswith(("dspy:", "cascade:"))
    extra = {"max_tokens": args.max_tokens} if args.max_tokens and llm else {}
    return make_judge(
        args.judge,
        api_base=args.api_base,
        api_key_env=api_key_env(args),
        max_retries=args.max_retries,
        device=args.device,
        escalate=getattr(args, "escalate", None),
        escalate_below=getattr(args, "escalate_below", None),
        **extra,
    )


def options(args: argparse.Namespace, names: str) -> dict[str, Any]:
    """The values of the options ``names`` lists (their dests, space-separated), by name: the keyword arguments of a
    function whose parameters are named as the options are."""
    return {name: getattr(args, name) for name in names.split()}


def api_key_env(args: argparse.Namespace) -> str | None:
    """The variable ``--api-key-env`` names, for the judge to read the key from; None for a dry run, which calls
    no model and so needs no key (it only says so on stderr when the variable is unset: the run will need it)."""
    if not getattr(args, "dry_run", False) or not args.api_key_env:
        return args.api_key_env
    if args.judge.startswith("dspy:") and not os.environ.get(args.api_key_env):
        stderr(
            f"rageval: note: the environment variable {args.api_key_env!r} (named by --api-key-env) is not set; "
            "the dry run needs no key, the run will."
        )
    return None


def progress_bar(args: argparse.Namespace, stack: ExitStack) -> Any:
    """A bar over the input's bytes (its size is known without reading it), or None when not shown."""
    show = sys.stderr.isatty() if args.progress is None else args.progress
    if not show:
        return None
    from tqdm import tqdm

    total = args.input.stat().st_size
    bar = tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr, desc="rageval")
    return stack.enter_context(bar)


def unusable(source: Path, what: str, target: Path | None, option: str, writes: str) -> bool:
    """Say so on stderr and return True when ``source`` is not a file, or ``target`` (the command's output,
    given by ``option``) is ``source`` itself."""
    if missing(source, what):
        return True
    if target is not None and same_file(source, target):
        error(f"{option} {target} is the {what} file; write {writes} to another file.")
        return True
    return False


def result_rows(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The result rows of a results file, and how many of its lines are not result rows (torn or foreign).

    Raises:
        ValueError: If the file cannot be read, holds no result row, or mixes the rows of ``rageval evaluate`` and
            of the callback handler (never summed up as one run).
    """
    from rageval_lc.reports.producers import check_one_producer

    rows, other = [], 0
    try:
        for _, row in json_rows(path):  # split on \n only: U+2028 & co. may sit in strings
            if isinstance(row, dict) and isinstance(row.get("status"), dict):
                rows.append(row)
            else:
                other += 1
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not rows:
        raise ValueError(f"no result rows in {path}")
    check_one_producer(rows, str(path))
    return rows, other


def write_page(path: Path, page: str, what: str) -> int:
    """Write an HTML page and say where on stderr (0), or say why it cannot be written (2)."""
    try:
        write_atomic(path, page)
    except OSError as exc:
        return cannot_write(path, exc)
    print(f"{what}: {path}", file=sys.stderr)
    return 0


def cannot_write(path: Path, exc: OSError) -> int:
    """Say that ``path`` cannot be written, and why, on one line; return 2."""
    return error(f"cannot write {path}: {exc.strerror or exc}")


def missing(path: Path, what: str) -> bool:
    """Say so on stderr and return True when ``path`` is not a file."""
    if path.is_file():
        return False
    error(f"{what} is not a file: {path}" if path.exists() else f"{what} file not found: {path}")
    return True


def error(message: str) -> int:
    """Print a one-line error on stderr; return the usage-error exit status, 2."""
    print(f"rageval: error: {message}", file=sys.stderr)
    return 2


def count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}" if n else ""


def stderr(message: str) -> None:
    print(message, file=sys.stderr)
