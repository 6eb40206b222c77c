"""``rageval rgb``: the RGB benchmark, ``rageval rgb score predictions.jsonl`` (score predictions),
``rageval rgb run en.json --system my_rag:chain`` (ask a system the questions and score its answers) or
``rageval rgb build --corpus passages.jsonl --questions qa.jsonl --out testbed.json`` (RGB's testbeds from one's own
passages and questions)."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rageval_lc.cli import common
from rageval_lc.files import LockedOutput, OutputInUseError, json_rows, jsonl_line, write_atomic

HELP = "the RGB benchmark: score predictions, run a system, or build testbeds from your own passages"
DESCRIPTION = None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    rgb_commands = parser.add_subparsers(dest="rgb_command", required=True, metavar="RGB_COMMAND")
    score = rgb_commands.add_parser(
        "score",
        help="score RGB predictions",
        description="Score rows with prediction, answer, task, noise_ratio, optional counterfactual_answer and "
        "id; print one JSON summary per task and noise ratio.",
    )
    common.input_argument(score)
    mode_option(score)
    score.add_argument("--out", type=Path, help="write one judgement per input row here")
    common.html_option(score, "write the HTML report here (accuracy against noise ratio, every task, wrong answers)")
    run = rgb_commands.add_parser(
        "run",
        help="run the benchmark against a system",
        description="Build each question's documents as RGB does, ask the system, and score the answers.",
    )
    run.add_argument("data", type=Path, help="an RGB file (en.json, en_int.json or en_fact.json format)")
    run.add_argument(
        "--system",
        required=True,
        help="the system under test, as module:attribute (a LangChain Runnable, a DSPy program or a callable "
        "(question, documents) -> str); the module is imported with the working directory first on the import "
        "path, as python -m does: my_rag:chain finds my_rag.py in the folder you run in",
    )
    run.add_argument("--noise-ratios", help="comma-separated noise ratios (default per file kind)")
    run.add_argument("--no-rejection", action="store_true", help="skip the ratio-1 negative-rejection pass")
    run.add_argument(
        "--no-fill",
        action="store_true",
        help="when a question has fewer positives than the documents need, send fewer documents instead of filling "
        "with negatives (testbeds built from your own passages often hold one positive per question)",
    )
    mode_option(run)
    run.add_argument("--limit", type=int, help="only the first N records")
    run.add_argument("--model-name", default="", help="recorded in the results")
    run.add_argument(
        "--out",
        type=Path,
        help="write one line per question asked (documents, prediction, answer, judgement; rgb score reads it)",
    )
    common.html_option(run, "write the HTML report here (accuracy against noise ratio, every task, wrong answers)")
    common.progress_option(run)
    build = rgb_commands.add_parser(
        "build",
        help="build RGB's testbeds from your own passages and questions",
        description="For each question: the passages that state its answer, the closest ones that do not, "
        "counterfactual copies with the answer replaced, and integration items; written in RGB's format.",
    )
    build.add_argument("--corpus", type=Path, required=True, help="passages: JSONL (text, optional title) or text")
    build.add_argument("--questions", type=Path, help="JSONL rows with question and answer (or answers)")
    build.add_argument(
        "--generate", type=int, metavar="N", help="without --questions: an LLM writes a question for N passages"
    )
    build.add_argument("--judge", help="with --generate: the LLM, dspy:<model id>")
    common.server_options(build)
    build.add_argument("--dry-run", action="store_true", help="with --generate: print the calls it would make")
    build.add_argument("--out", type=Path, required=True, help="the testbed, in RGB's JSON Lines format")
    build.add_argument("--seed", type=int, default=0, help="the counterfactuals' random choices (default 0)")
    build.add_argument("--negatives", type=int, default=10, help="negatives kept per question (default 10)")


def _generated(args: argparse.Namespace, corpus: list[str]) -> list[dict[str, Any]] | None:
    """The questions an LLM writes for ``--generate`` passages (None after a dry run, which prints the calls)."""
    from rageval_lc.judges.factory import make_judge
    from rageval_lc.rgb.questions import generate_questions, question_cost

    if not args.judge or not args.judge.startswith("dspy:"):
        raise ValueError("--generate needs --judge dspy:<model id> (an LLM writes the questions).")
    if args.generate < 1:
        raise ValueError(f"--generate must be >= 1. Got {args.generate}.")
    judge = make_judge(args.judge, api_base=args.api_base, api_key_env=common.api_key_env(args))
    if args.dry_run:
        calls, tokens = question_cost(corpus, judge, count=args.generate, seed=args.seed)
        print(f"Dry run with judge {judge.name}: {calls} calls before retries, ~{tokens:,} prompt tokens; none sent.")
        return None
    questions, dropped = generate_questions(corpus, judge, count=args.generate, seed=args.seed)
    for why, n in sorted(dropped.items()):
        print(f"question not written for {n} passages: {why}")
    return questions


def mode_option(parser: argparse.ArgumentParser) -> None:
    """``--mode`` of both subcommands: RGB's official scoring rules, or lenient ones."""
    parser.add_argument("--mode", default="official", choices=("official", "lenient"), help="scoring rules")


def handle(args: argparse.Namespace) -> int:
    """Run ``rageval rgb score``, ``rageval rgb run`` or ``rageval rgb build``."""
    if args.rgb_command == "build":
        return _build(args)
    return _score(args) if args.rgb_command == "score" else _run(args)


def _build(args: argparse.Namespace) -> int:
    from rageval_lc.rgb.build import build_testbed, read_corpus, read_questions, write_testbed

    if (args.questions is None) == (args.generate is None):
        return common.error("rgb build needs --questions, or --generate N with --judge dspy:<model id>.")
    for path, what in ((args.corpus, "--corpus"), (args.questions, "--questions")):
        if path is not None and not path.is_file():
            return common.error(f"{what}: no file at {path}.")
    if args.negatives < 0:
        return common.error(f"--negatives must be >= 0. Got {args.negatives}.")
    try:
        corpus = read_corpus(args.corpus)
        if args.generate is not None:
            questions = _generated(args, corpus)
            if questions is None:
                return 0  # a dry run
        else:
            questions = read_questions(args.questions)
        records, report = build_testbed(corpus, questions, seed=args.seed, negatives=args.negatives)
    except (ValueError, TypeError) as exc:
        return common.error(str(exc))
    try:
        write_testbed(records, args.out)
    except OSError as exc:
        return common.cannot_write(args.out, exc)
    for line in report.lines():
        print(line)
    print(f"wrote {len(records)} records to {args.out}")
    return 0


def _html_unusable(args: argparse.Namespace, source: Path, what: str) -> bool:
    """Say so and return True when ``--html`` would overwrite the command's input or its ``--out`` file."""
    if args.html is None:
        return False
    if common.unusable(source, what, args.html, "--html", "the report"):
        return True
    if args.out is not None and common.same_file(args.out, args.html):
        common.error(f"--html {args.html} is the --out file; write the report to another file.")
        return True
    return False


def _score(args: argparse.Namespace) -> int:
    from rageval_lc.rgb.scoring import RgbRow, score_rgb

    if common.unusable(args.input, "input", args.out, "--out", "the judgements"):
        return 2
    if _html_unusable(args, args.input, "input"):
        return 2
    rows, raw = [], []
    for line_no, data in json_rows(args.input):
        try:
            if isinstance(data, ValueError):  # not UTF-8, or not JSON
                raise data
            rows.append(RgbRow.from_dict(data))
            raw.append(data)
        except (ValueError, TypeError, KeyError) as exc:
            return common.error(f"{args.input}:{line_no}: {exc}")
    try:
        results, judgements = score_rgb(rows, mode=args.mode)
    except ValueError as exc:
        return common.error(str(exc))
    if args.out:
        try:
            write_atomic(args.out, "".join(jsonl_line(judgement.to_dict()) for judgement in judgements))
        except OSError as exc:
            return common.cannot_write(args.out, exc)
    for result in results:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    if args.html is not None:
        from rageval_lc.rgb.report import render_rgb_html

        page = render_rgb_html(raw, title=args.input.name, mode=args.mode)
        return common.write_page(args.html, page, "HTML report")
    return 0


def _run(args: argparse.Namespace) -> int:
    from rageval_lc.rgb.records import load_rgb
    from rageval_lc.rgb.run import load_system, run_rgb

    if common.unusable(args.data, "RGB", args.out, "--out", "the results"):
        return 2
    if _html_unusable(args, args.data, "RGB"):
        return 2
    try:
        system = load_system(args.system)
        ratios = [float(r) for r in args.noise_ratios.split(",")] if args.noise_ratios else None
        records = load_rgb(args.data)[: args.limit] if args.limit else load_rgb(args.data)
    except (ImportError, AttributeError, ValueError) as exc:
        return common.error(str(exc))
    try:
        out = LockedOutput(args.out) if args.out else None
    except OutputInUseError as exc:
        return common.error(str(exc))
    except OSError as exc:
        return common.cannot_write(args.out, exc)
    with ExitStack() as stack:
        if out is not None:
            stack.enter_context(out)

        def write(row: dict[str, Any]) -> None:
            if out is not None:
                out.write(jsonl_line(row))

        run = run_rgb(
            system,
            records,
            noise_ratios=ratios,
            include_rejection=not args.no_rejection,
            fill=not args.no_fill,
            mode=args.mode,
            model_name=args.model_name,
            progress=args.progress,
            on_row=write,
        )
    print(run.report())
    if run.failures:
        print(f"rageval: {run.failures} calls to the system failed (scored as empty answers).", file=sys.stderr)
    if args.html is not None:
        return common.write_page(args.html, run.to_html(title=args.model_name or args.data.name), "HTML report")
    return 0
