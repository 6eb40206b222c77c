"""The ``rageval`` command.

``rageval evaluate INPUT.jsonl --metrics trace --judge local --trace-mode ragbench --out OUT.jsonl``
scores each input row (RAGBench rows or generic rows) and writes one JSON line per row; a summary
table goes to stderr. ``rageval agreement INPUT.jsonl --judge local`` measures a judge against the
labels in the rows. ``rageval compare A.jsonl B.jsonl`` says by how much run B differs from run A, and how
surely. ``rageval quickstart`` scores bundled RAGBench samples offline and prints a table.

Judges: ``labels`` (labels already in the rows), ``local`` (offline; the default unless $RAGEVAL_JUDGE
names another) and ``dspy:<model id>`` (any LiteLLM model, e.g. ``dspy:openai/gpt-4o-mini``, or a local
OpenAI-compatible server with ``--api-base``).

Exit status: 0 when the run completed (bad rows are reported and written as ``error`` lines), 1 with
``--strict`` when any row failed (a score is ``error``) or stayed undetermined (no score is ``ok``), 2 for
a usage error or a file that cannot be read or written (one line on stderr, never a traceback), 141
(quietly) when the reader of standard output stops early (``rageval evaluate rows.jsonl | head -1``).
``rageval agreement`` exits 1 when the judge failed on any row (those rows are left out of the figures).
``rageval gate RESULTS.jsonl --min faithfulness=0.8 --max-error-rate 0.01`` exits 1 when the results fall short
of the thresholds (a table says which and why), 0 when they meet them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TextIO

from rageval_lc import __version__
from rageval_lc.errors import MissingDependencyError
from rageval_lc.files import LockedOutput, OutputInUseError, json_rows, jsonl_line, raw_lines, same_file, write_atomic


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``rageval``."""
    from rageval_lc.judges.factory import JUDGE_FORMS
    from rageval_lc.metrics.trace import TRACE_MODES
    from rageval_lc.scoring.judgements import SCORING_MODES
    from rageval_lc.scoring.registry import REGISTRY

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
        "--load",
        action="append",
        default=[],
        metavar="FILE.py|MODULE",
        help="import a Python file or module that registers metrics of your own (criteria_metric, "
        "register_metric) before --metrics is read; repeatable",
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
    _judge_options(evaluate)
    _interval_options(evaluate)
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

    rgb = commands.add_parser("rgb", help="the RGB benchmark: score predictions, or run a system")
    rgb_commands = rgb.add_subparsers(dest="rgb_command", required=True, metavar="RGB_COMMAND")
    score = rgb_commands.add_parser(
        "score",
        help="score RGB predictions",
        description="Score rows with prediction, answer, task, noise_ratio, optional counterfactual_answer and "
        "id; print one JSON summary per task and noise ratio.",
    )
    score.add_argument("input", type=Path, help="input JSONL file")
    score.add_argument("--mode", default="official", choices=("official", "lenient"), help="scoring rules")
    score.add_argument("--out", type=Path, help="write one judgement per input row here")
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
        "(question, documents) -> str)",
    )
    run.add_argument("--noise-ratios", help="comma-separated noise ratios (default per file kind)")
    run.add_argument("--no-rejection", action="store_true", help="skip the ratio-1 negative-rejection pass")
    run.add_argument("--mode", default="official", choices=("official", "lenient"), help="scoring rules")
    run.add_argument("--limit", type=int, help="only the first N records")
    run.add_argument("--model-name", default="", help="recorded in the results")
    run.add_argument("--out", type=Path, help="write one line per question asked (documents, prediction, judgement)")
    run.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)

    report = commands.add_parser(
        "report",
        help="summarise a results file; --html writes a self-contained report",
        description="Read the JSONL written by `rageval evaluate`, print the per-score summary, and with --html "
        "write one self-contained HTML page (summary, distributions, TRACe profile, worst rows, failures).",
    )
    report.add_argument("results", type=Path, help="results JSONL (from rageval evaluate --out)")
    report.add_argument("--html", type=Path, help="write the HTML report here")
    report.add_argument("--title", help="the report's title (default: the file name)")
    report.add_argument("--worst", type=int, default=10, help="how many worst rows to list per score (at most 50)")
    report.add_argument(
        "--worst-by",
        action="append",
        metavar="SCORE",
        help="list the worst rows by this score (repeatable; default: every score of the run, one folded list each "
        "but where the lists before it already hold all its rows)",
    )
    report.add_argument(
        "--input",
        type=Path,
        help="the input JSONL the results were scored from: the page shows each listed row's question and answer "
        "(rows matched by line and checked by input_sha256)",
    )
    _interval_options(report)

    gate = commands.add_parser(
        "gate",
        help="exit 1 when a results file falls short of thresholds (a CI gate)",
        description="Check the results of `rageval evaluate --out` against thresholds: each --min score's mean "
        "over ok rows must reach its value, each --max score's mean must not exceed it, and at most "
        "--max-error-rate of the rows may have an error score. Exit 1 with a table of what fell short, else 0.",
    )
    gate.add_argument("results", type=Path, help="results JSONL (from rageval evaluate --out)")
    gate.add_argument(
        "--min", action="append", default=[], metavar="SCORE=VALUE", help="the score's mean must be >= VALUE"
    )
    gate.add_argument(
        "--max", action="append", default=[], metavar="SCORE=VALUE", help="the score's mean must be <= VALUE"
    )
    gate.add_argument(
        "--max-error-rate",
        default="0",
        metavar="RATE",
        help="largest share of rows with an error score (unreadable lines count) that passes (default 0)",
    )
    gate.add_argument(
        "--confident",
        action="store_true",
        help="the bootstrap 95%% CI's lower bound (--min; upper bound for --max) must clear the threshold",
    )
    _interval_options(gate, also="for the CI the table shows and --confident reads")

    compare = commands.add_parser(
        "compare",
        help="compare two runs row by row: differences, 95%% intervals, p-values",
        description="Pair the rows of two results files (from rageval evaluate --out) by id and print, per score, "
        "the mean difference B - A over the rows ok in both, its paired-bootstrap 95% interval, the paired "
        "permutation p-value and win/tie/loss counts; --html writes a page with a forest plot and the rows that "
        "changed most.",
    )
    compare.add_argument("run_a", type=Path, help="results JSONL of run A (the baseline)")
    compare.add_argument("run_b", type=Path, help="results JSONL of run B (the candidate)")
    compare.add_argument("--by", metavar="FIELD", help="also compare per subset of this field (e.g. dataset)")
    compare.add_argument("--json", action="store_true", help="print the figures as JSON")
    compare.add_argument("--html", type=Path, help="write a self-contained HTML page here")
    compare.add_argument("--top", type=int, default=10, help="rows that changed most listed per score (at most 50)")
    _interval_options(compare, also="also the permutation test's random sign flips")

    align = commands.add_parser(
        "align",
        help="fit the offline judge to your labelled rows; measure it before and after on held-out rows",
        description="Split the labelled rows by question (--held-out of them, seeded), refit the offline judge's "
        "models on the rest, shrunk toward its current parameters, and print each held-out figure before and "
        "after with its paired-bootstrap 95% interval. --out writes the aligned judge (use it as --judge "
        "local:FILE) unless it is worse on held-out rows, or they are too few to show that its verdicts are not "
        "(exit 1; the report says what rows to add; --force writes it anyway).",
    )
    align.add_argument(
        "labelled",
        type=Path,
        help="labelled rows (JSONL): RAGBench labels, sentence_verdicts, "
        "faithful / human_scores, or LangSmith runs with feedback",
    )
    align.add_argument(
        "--judge",
        default="local",
        help=" | ".join(form for form in JUDGE_FORMS if form != "labels") + " (default: local)",
    )
    align.add_argument("--api-base", help="server URL for a dspy: judge (e.g. http://127.0.0.1:8080/v1)")
    align.add_argument("--api-key-env", help="environment variable holding the API key for a dspy: judge")
    align.add_argument(
        "--optimizer",
        choices=("labeled", "bootstrap"),
        default="labeled",
        help="a dspy: judge's compile: labeled (LabeledFewShot, no model call; default) or bootstrap",
    )
    align.add_argument(
        "--scoring-mode", choices=("shared", "separate"), default="shared", help="a dspy: judge's scoring mode"
    )
    align.add_argument("--dry-run", action="store_true", help="a dspy: judge: plan the model calls, call nothing")
    align.add_argument("--metrics", default="trace", help="metrics to align, comma-separated (default: trace, all)")
    align.add_argument("--out", type=Path, help="write the aligned judge (JSON) here")
    align.add_argument("--held-out", type=float, default=0.3, help="share of rows held out (default 0.3)")
    align.add_argument(
        "--tolerance",
        type=float,
        default=0.01,
        help="worse: a figure's whole 95%% interval, or the figures' summed change, below -TOLERANCE; not shown "
        "better: a verdict figure's interval reaching below -TOLERANCE (default 0.01)",
    )
    align.add_argument(
        "--force", action="store_true", help="write the judge even if it is worse on held-out rows or not shown better"
    )
    align.add_argument("--json", action="store_true", help="print the report as JSON")
    align.add_argument("--html", type=Path, help="also draw the report as one HTML page here")
    align.add_argument(
        "--checkpoint",
        type=Path,
        help="a dspy: judge: keep compiled modules and the held-out check's answers here, so a stopped run resumes "
        "(default: OUT.partial, removed when the run ends)",
    )
    align.add_argument("--seed", type=int, default=0, help="the split's and the bootstrap's seed (default 0)")

    commands.add_parser(
        "quickstart",
        help="score the bundled RAGBench samples offline and print a table",
        description="Score a few bundled RAGBench rows (CC BY 4.0) with TRACe and print the results.",
    )
    return parser


def _judge_options(parser: argparse.ArgumentParser) -> None:
    from rageval_lc.judges.factory import JUDGE_FORMS
    from rageval_lc.judges.offline.devices import DEVICE_CHOICES

    parser.add_argument(
        "--judge",
        default=os.environ.get("RAGEVAL_JUDGE", "local"),
        help=" | ".join(JUDGE_FORMS) + " (default: $RAGEVAL_JUDGE, else local)",
    )
    parser.add_argument("--api-base", help="server URL for a dspy: judge (e.g. http://127.0.0.1:8080/v1)")
    parser.add_argument("--api-key-env", help="environment variable holding the API key for a dspy: judge")
    parser.add_argument("--max-retries", type=int, default=2, help="extra attempts on unusable model output")
    parser.add_argument("--max-tokens", type=int, help="cap on the tokens a dspy: judge may generate per call")
    parser.add_argument(
        "--device",
        default="auto",
        choices=DEVICE_CHOICES,
        help="where the offline (local) judge runs: auto (CUDA, else MPS, else CPU; the default), cpu, cuda, mps",
    )


def _interval_options(parser: argparse.ArgumentParser, *, also: str = "0: no intervals") -> None:
    """``--bootstrap N`` and ``--seed``; ``also`` ends the first's help (what else N sets, or what 0 means)."""
    from rageval_lc.reports.summary import DEFAULT_RESAMPLES

    parser.add_argument(
        "--bootstrap",
        type=int,
        default=DEFAULT_RESAMPLES,
        metavar="N",
        help=f"bootstrap resamples for each 95%% interval (default {DEFAULT_RESAMPLES}; {also})",
    )
    parser.add_argument("--seed", type=int, default=0, help="the bootstrap's seed (default 0)")


def _check_bootstrap(args: argparse.Namespace, least: int = 0) -> None:
    if args.bootstrap < least:
        raise ValueError(f"--bootstrap must be >= {least}. Got {args.bootstrap}.")


def _make_judge(args: argparse.Namespace) -> Any:
    from rageval_lc.judges.factory import make_judge

    extra = {"max_tokens": args.max_tokens} if args.max_tokens and args.judge.startswith("dspy:") else {}
    return make_judge(
        args.judge,
        api_base=args.api_base,
        api_key_env=_api_key_env(args),
        max_retries=args.max_retries,
        device=args.device,
        **extra,
    )


def _api_key_env(args: argparse.Namespace) -> str | None:
    """The variable ``--api-key-env`` names, for the judge to read the key from; None for a dry run, which calls
    no model and so needs no key (it only says so on stderr when the variable is unset: the run will need it)."""
    if not getattr(args, "dry_run", False) or not args.api_key_env:
        return args.api_key_env
    if args.judge.startswith("dspy:") and not os.environ.get(args.api_key_env):
        _stderr(
            f"rageval: note: the environment variable {args.api_key_env!r} (named by --api-key-env) is not set; "
            "the dry run needs no key, the run will."
        )
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rageval`` command; return its exit status."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "quickstart":
            from rageval_lc.runs.quickstart import run_quickstart

            return run_quickstart(sys.stdout)
        if args.command == "agreement":
            return _agreement(args)
        if args.command == "rgb":
            return _rgb_score(args) if args.rgb_command == "score" else _rgb_run(args)
        if args.command == "report":
            return _report(args)
        if args.command == "gate":
            return _gate(args)
        if args.command == "compare":
            return _compare(args)
        if args.command == "align":
            return _align(args)
        return _evaluate(args)
    except BrokenPipeError:  # the reader of our output stopped early (`| head -1`): end quietly
        return _reader_gone()
    except OSError as exc:  # a file-system error not handled closer: one line, never a traceback
        return _error(str(exc))


def _reader_gone() -> int:
    """Point standard output at /dev/null (so that the final flush cannot fail again) and return 141,
    the status of a process ended by SIGPIPE, as ``yes | head -1`` gives."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # standard output is no real file (a test's capture)
        pass
    return 141


def _report(args: argparse.Namespace) -> int:
    from rageval_lc.reports.attention import attach_inputs
    from rageval_lc.reports.html import render_html
    from rageval_lc.reports.summary import format_summary, summarize

    if _unusable(args.results, "results", args.html, "--html", "the report"):
        return 2
    if args.html is None and (args.worst_by or args.input is not None):
        return _error(f"{'--worst-by' if args.worst_by else '--input'} shapes the HTML report; give --html too.")
    if args.worst < 1:
        return _error(f"--worst must be at least 1. Got {args.worst}.")
    try:
        _check_bootstrap(args)
        rows, bad = _result_rows(args.results)
    except ValueError as exc:
        return _error(str(exc))
    print(format_summary(summarize(rows, n_resamples=args.bootstrap, seed=args.seed)))
    if bad:
        print(f"rageval: {bad} line{'s' if bad != 1 else ''} skipped (not result rows).", file=sys.stderr)
    if args.html:
        if args.input is not None:
            if _unusable(args.input, "input", args.html, "--html", "the report"):
                return 2
            try:
                rows, unmatched = attach_inputs(rows, args.input)
            except OSError as exc:
                return _error(f"cannot read {args.input}: {exc.strerror or exc}")
            if unmatched:
                _stderr(
                    f"rageval: {_count(unmatched, 'row')} without a matching line in {args.input} (changed since "
                    "scored, or not a readable row): shown without a question."
                )
        scores = [s.name for s in summarize(rows, n_resamples=0)]  # the names only
        unknown = [name for name in args.worst_by or () if name not in scores]
        if unknown:
            have = ", ".join(scores[:20]) + (", …" if len(scores) > 20 else "")
            return _error(f"--worst-by {unknown[0]!r}: no such score in {args.results} (it has {have}).")
        page = render_html(
            rows,
            title=args.title or args.results.name,
            worst=args.worst,
            worst_by=args.worst_by,
            n_resamples=args.bootstrap,
            seed=args.seed,
        )
        return _write_page(args.html, page, "HTML report")
    return 0


def _gate(args: argparse.Namespace) -> int:
    from rageval_lc.reports.gate import check_gate, format_gate, parse_rate, parse_threshold

    try:
        thresholds = [parse_threshold(t, "min") for t in args.min] + [parse_threshold(t, "max") for t in args.max]
        max_error_rate = parse_rate(args.max_error_rate)
        _check_bootstrap(args, least=1)
    except ValueError as exc:
        return _error(str(exc))
    if _missing(args.results, "results"):
        return 2
    try:
        rows, unreadable = _result_rows(args.results)  # a torn or foreign line counts as a row with an error
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
        return _error(str(exc))
    shown = report.checks if report.passed else report.failed
    print(format_gate(shown, confidence=report.confidence))
    total = len(report.checks)
    if report.passed:
        print(f"rageval gate: {'all ' if total > 1 else ''}{_count(total, 'check')} passed.", file=sys.stderr)
        return 0
    short = len(report.failed)
    print(f"rageval gate: {short} of {total} checks fell short; exit status 1.", file=sys.stderr)
    return 1


def _align(args: argparse.Namespace) -> int:
    from rageval_lc.judges.factory import make_judge
    from rageval_lc.runs.align import align_judge

    if not args.judge.startswith(("local", "dspy:")):
        return _error(
            f"rageval align aligns the offline judge (local, local:FILE) or dspy:<model>; got {args.judge!r}."
        )
    if not 0 < args.held_out < 1:
        return _error(f"--held-out must be between 0 and 1. Got {args.held_out}.")
    if args.dry_run and not args.judge.startswith("dspy:"):
        return _error("--dry-run counts an LLM judge's model calls; the offline judge (local) makes none.")
    if args.checkpoint is not None and not args.judge.startswith("dspy:"):
        return _error("--checkpoint resumes an LLM judge's compile; the offline judge's refit is quick to run again.")
    for target, option in ((args.out, "--out"), (args.html, "--html")):
        if _unusable(args.labelled, "labelled", target, option, "it"):
            return 2
    try:
        judge: Any = args.judge
        if judge.startswith("dspy:"):
            judge = make_judge(judge, api_base=args.api_base, api_key_env=_api_key_env(args))
        report = align_judge(
            args.labelled,
            judge,
            metrics=args.metrics,
            out=args.out,
            held_out=args.held_out,
            seed=args.seed,
            force=args.force,
            tolerance=args.tolerance,
            progress=sys.stderr.isatty(),
            optimizer=args.optimizer,
            scoring_mode=args.scoring_mode,
            dry_run=args.dry_run,
            checkpoint=args.checkpoint,
        )
    except ValueError as exc:
        return _error(str(exc))
    print(json.dumps(report.to_dict(), indent=1) if args.json else report.table(), flush=True)
    if args.html is not None:
        from rageval_lc.reports.align_html import render_align_html

        if _write_page(args.html, render_align_html(report, title=args.labelled.name), "HTML report"):
            return 2
    if args.out is not None and report.written is None and not args.dry_run:
        print(f"Not written: {report.refusal}; --force writes it anyway.", file=sys.stderr)
        return 1
    return 0


def _compare(args: argparse.Namespace) -> int:
    from rageval_lc.reports.compare import compare, format_comparison

    for path, what in ((args.run_a, "run A"), (args.run_b, "run B")):
        if _unusable(path, what, args.html, "--html", "the page"):
            return 2
    try:
        _check_bootstrap(args, least=1)
        if not 0 <= args.top <= 50:
            raise ValueError(f"--top must be between 0 and 50. Got {args.top}.")
        result = compare(args.run_a, args.run_b, by=args.by, n_resamples=args.bootstrap, seed=args.seed)
    except ValueError as exc:
        return _error(str(exc))
    except OSError as exc:
        return _error(f"cannot read {exc.filename or 'a run'}: {exc.strerror or exc}")
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
    else:
        print(format_comparison(result, names=(args.run_a.name, args.run_b.name)))
    if args.html:
        from rageval_lc.reports.compare_html import render_compare_html

        page = render_compare_html(result, names=(args.run_a.name, args.run_b.name), top=args.top)
        return _write_page(args.html, page, "HTML comparison")
    return 0


def _rgb_score(args: argparse.Namespace) -> int:
    from rageval_lc.metrics.rgb import RgbRow, score_rgb

    if _unusable(args.input, "input", args.out, "--out", "the judgements"):
        return 2
    rows = []
    for line_no, data in json_rows(args.input):
        try:
            if isinstance(data, ValueError):  # not UTF-8, or not JSON
                raise data
            rows.append(RgbRow.from_dict(data))
        except (ValueError, TypeError, KeyError) as exc:
            return _error(f"{args.input}:{line_no}: {exc}")
    try:
        results, judgements = score_rgb(rows, mode=args.mode)
    except ValueError as exc:
        return _error(str(exc))
    if args.out:
        try:
            write_atomic(args.out, "".join(jsonl_line(judgement.to_dict()) for judgement in judgements))
        except OSError as exc:
            return _cannot_write(args.out, exc)
    for result in results:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    return 0


def _rgb_run(args: argparse.Namespace) -> int:
    import importlib

    from rageval_lc.datasets.rgb import load_rgb
    from rageval_lc.runs.rgb import run_rgb

    if _unusable(args.data, "RGB", args.out, "--out", "the results"):
        return 2
    module_name, _, attribute = args.system.partition(":")
    try:
        if not attribute:
            raise ValueError("--system must look like package.module:attribute")
        system = getattr(importlib.import_module(module_name), attribute)
        ratios = [float(r) for r in args.noise_ratios.split(",")] if args.noise_ratios else None
        records = load_rgb(args.data)[: args.limit] if args.limit else load_rgb(args.data)
    except (ImportError, AttributeError, ValueError) as exc:
        return _error(str(exc))
    try:
        out = LockedOutput(args.out) if args.out else None
    except OutputInUseError as exc:
        return _error(str(exc))
    except OSError as exc:
        return _cannot_write(args.out, exc)
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
            mode=args.mode,
            model_name=args.model_name,
            progress=args.progress,
            on_row=write,
        )
    print(run.report())
    if run.failures:
        print(f"rageval: {run.failures} calls to the system failed (scored as empty answers).", file=sys.stderr)
    return 0


def _agreement(args: argparse.Namespace) -> int:
    from rageval_lc.runs.agreement import agreement_run, format_agreement

    if _missing(args.input, "input"):
        return 2
    try:
        judge = _make_judge(args)
    except (ValueError, TypeError) as exc:
        return _error(str(exc))
    with ExitStack() as stack:
        progress = _progress_bar(args, stack)

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
        failed = _count(len(run.failed), "row")
        print(f"rageval: {failed} failed; exit status 1 (the judge's figures leave them out).", file=sys.stderr)
        return 1
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    if _unusable(args.input, "input", args.out, "--out", "the results"):
        return 2
    try:
        from rageval_lc.scoring.custom import load_metrics
        from rageval_lc.scoring.registry import parse_metrics

        for target in args.load:  # metrics of one's own, registered before --metrics names them
            load_metrics(target)
        specs = parse_metrics(args.metrics)  # once for the whole run
        if not args.relevance_normalizer > 0:
            raise ValueError(f"--relevance-normalizer must be > 0. Got {args.relevance_normalizer}.")
        judge = _make_judge(args)
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
        _check_bootstrap(args)
        if args.engine == "ray" and not args.dry_run:
            from rageval_lc.runs.ray_engine import check_address, require_ray

            require_ray()  # before the output is opened: Ray missing is one line, nothing written
            check_address(args.ray_address)  # Ray itself would retry an unreachable head for minutes
    except (ValueError, TypeError, MissingDependencyError, ConnectionError) as exc:
        return _error(str(exc))
    if args.dry_run:
        return _dry_run(args, judge)
    from rageval_lc.runs.engine import make_resilient

    judge = make_resilient(
        judge, requests_per_minute=args.rpm, timeout_s=args.timeout, retries=args.retries, cache_dir=args.cache_dir
    )
    try:
        output = LockedOutput(args.out, append=args.resume) if args.out is not None else None
    except OutputInUseError as exc:
        return _error(str(exc))
    except OSError as exc:
        return _cannot_write(args.out, exc)
    with output if output is not None else ExitStack():
        return _run_evaluation(args, judge, specs, output)


def _run_evaluation(args: argparse.Namespace, judge: Any, specs: list[Any], output: LockedOutput | None) -> int:
    """Score the input into the (locked) output, after checking that a resumed output matches the input and
    the settings; rows that failed before are scored again, the other rows already there are kept."""
    from rageval_lc.reports.summary import format_reference_view, format_summary, row_outcome
    from rageval_lc.runs.jsonl import (
        evaluate_lines,
        kept_rows,
        resume_mismatches,
        row_key,
        run_settings,
        settings_mismatch,
    )

    settings = run_settings(
        specs,
        judge,
        trace_mode=args.trace_mode,
        scoring_mode=args.scoring_mode,
        relevance_normalizer=args.relevance_normalizer,
        api_base=args.api_base,
        max_tokens=args.max_tokens,
    )
    kept = kept_rows(args.out) if args.resume else []
    retried = {row["line"] for row in kept if row_outcome(row["status"]) == "failed"}
    kept = [row for row in kept if row["line"] not in retried]
    done = {row_key(row["line"]): row["input_sha256"] for row in kept}
    if kept:
        problems = resume_mismatches((line for _, line in raw_lines(args.input)), done)
        if problems:
            others = len(problems) - 1
            more = f" (and {_count(others, 'more line')})" if others else ""
            return _error(
                f"--resume: {args.out} was not made from this {args.input.name}: {problems[0]}{more}; "
                "score into a new --out, or run without --resume to start again."
            )
        mismatch = settings_mismatch(kept, settings)
        if mismatch:
            return _error(
                f"--resume: {args.out} {mismatch}; resume with the same settings, score into a new --out, "
                "or run without --resume to start again."
            )
    if retried and output is not None:
        try:
            output.rewrite(lambda raw: _result_line(raw) not in retried)
        except OSError as exc:
            return _error(f"cannot rewrite {args.out} without its failed rows (to score them again): {exc}")
    with ExitStack() as stack:
        out: TextIO | LockedOutput = output if output is not None else sys.stdout
        progress = _progress_bar(args, stack)
        pending: dict[int, int] = {}  # bytes of the lines read ahead and not written yet

        def source() -> Iterator[bytes]:  # the input, read once; the bar counts a line's bytes once it is done
            for line_no, line in raw_lines(args.input):
                if progress is not None:
                    if line.strip() and row_key(line_no) not in done:
                        pending[line_no] = len(line)
                    else:  # blank, or kept from the resumed output
                        progress.update(len(line))
                yield line

        def on_row(row: dict[str, Any]) -> None:
            if progress is not None:
                progress.update(pending.pop(row["line"], 0))
            if any(status == "error" for status in row["status"].values()):
                reason = next((r for n, r in row["reason"].items() if row["status"][n] == "error"), "")
                named = "" if row["id"] is None else f" (id {row['id']!r})"  # a row without one: its line
                message = f"rageval: line {row['line']}{named} failed: {reason}"
                (progress.write if progress is not None else _stderr)(message)

        try:
            report = evaluate_lines(
                source(),
                out,  # type: ignore[arg-type]  # a LockedOutput writes whole lines like a text file
                metrics=specs,
                judge=judge,
                trace_mode=args.trace_mode,
                relevance_normalizer=args.relevance_normalizer,
                scoring_mode=args.scoring_mode,
                concurrency=args.concurrency,
                workers=args.workers,
                engine=args.engine,
                engine_options=_engine_options(args),
                skip=done,
                kept=kept,
                settings=settings,
                on_row=on_row,
                n_resamples=args.bootstrap,
                seed=args.seed,
            )
        except OSError as exc:
            if output is None or output.error is not exc:
                raise
            total = len(kept) + output.rows
            left = f"{total} row{'s' if total != 1 else ''} kept in it (whole lines); rerun with --resume to finish"
            return _error(f"cannot write {args.out}: {exc.strerror or exc}; {left if total else 'no row written'}.")
    print(format_summary(report.summaries), file=sys.stderr)
    if report.reference_view:
        print("\n" + format_reference_view(report.reference_view) + "\n", file=sys.stderr)
    for judgement, used in report.usage.items():
        tokens = used["reported_tokens"] or used["estimated_tokens"]
        kind = "reported" if used["reported_tokens"] else "estimated"
        calls = used["calls"]
        per_call = f", {tokens // calls:,} per call" if calls else ""
        print(
            f"judge {judge.name}, {judgement}: {calls} model calls, {tokens:,} tokens ({kind}{per_call}).",
            file=sys.stderr,
        )
    failed, undetermined = len(report.failed), len(report.undetermined)
    outcomes = f"{failed} failed, {undetermined} undetermined"
    if args.resume:
        total = report.rows + report.skipped
        again = f" ({_count(len(retried), 'row')} that had failed scored again)" if retried else ""
        print(
            f"{total} row{'' if total == 1 else 's'} in {args.out.name}: {report.rows} scored now, "
            f"{report.skipped} kept; {outcomes}{again}.",
            file=sys.stderr,
        )
    else:
        print(f"{report.rows} row{'' if report.rows == 1 else 's'} scored, {outcomes}.", file=sys.stderr)
    if not args.strict or not (failed or undetermined):
        return 0
    counts = [_count(failed, "failed row"), _count(undetermined, "undetermined row")]
    print(f"rageval: --strict: {' and '.join(c for c in counts if c)}; exit status 1.", file=sys.stderr)
    return 1


def _engine_options(args: argparse.Namespace) -> dict[str, Any] | None:
    if args.engine != "ray":
        return None
    return {"address": args.ray_address, "gpus_per_worker": args.gpus_per_worker}


def _result_line(raw: bytes) -> int | None:
    """The input line number a result line records (None for anything else)."""
    try:
        row = json.loads(raw)
    except ValueError:
        return None
    return row.get("line") if isinstance(row, dict) else None


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
        return _error(str(exc))
    rows = [[p.judgement, ", ".join(p.metrics), p.calls_per_sample, p.samples, p.calls, p.prompt_tokens] for p in plans]
    print(f"Dry run with judge {judge.name}, scoring mode {args.scoring_mode}: no model was called.\n")
    print(format_table(["judgement", "metrics", "calls/sample", "samples", "calls", "est. prompt tokens"], rows))
    total = sum(p.calls for p in plans)
    calls = f"{total} model call{'s' if total != 1 else ''}"
    print(f"\n{calls} before retries (at most {args.max_retries + 1}x that with retries).")
    if bad:
        print(f"{bad} unreadable row{'s' if bad != 1 else ''} would be written as errors.")
    return 0


def _progress_bar(args: argparse.Namespace, stack: ExitStack) -> Any:
    """A bar over the input's bytes (its size is known without reading it), or None when not shown."""
    show = sys.stderr.isatty() if args.progress is None else args.progress
    if not show:
        return None
    from tqdm import tqdm

    total = args.input.stat().st_size
    bar = tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr, desc="rageval")
    return stack.enter_context(bar)


def _unusable(source: Path, what: str, target: Path | None, option: str, writes: str) -> bool:
    """Say so on stderr and return True when ``source`` is not a file, or ``target`` (the command's output,
    given by ``option``) is ``source`` itself."""
    if _missing(source, what):
        return True
    if target is not None and same_file(source, target):
        _error(f"{option} {target} is the {what} file; write {writes} to another file.")
        return True
    return False


def _result_rows(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The result rows of a results file, and how many of its lines are not result rows (torn or foreign).

    Raises:
        ValueError: If the file cannot be read, holds no result row, or mixes the rows of ``rageval evaluate`` and
            of the callback handler (never summed up as one run).
    """
    from rageval_lc.runs.producers import check_one_producer

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


def _write_page(path: Path, page: str, what: str) -> int:
    """Write an HTML page and say where on stderr (0), or say why it cannot be written (2)."""
    try:
        write_atomic(path, page)
    except OSError as exc:
        return _cannot_write(path, exc)
    print(f"{what}: {path}", file=sys.stderr)
    return 0


def _cannot_write(path: Path, exc: OSError) -> int:
    """Say that ``path`` cannot be written, and why, on one line; return 2."""
    return _error(f"cannot write {path}: {exc.strerror or exc}")


def _missing(path: Path, what: str) -> bool:
    """Say so on stderr and return True when ``path`` is not a file."""
    if path.is_file():
        return False
    _error(f"{what} is not a file: {path}" if path.exists() else f"{what} file not found: {path}")
    return True


def _error(message: str) -> int:
    """Print a one-line error on stderr; return the usage-error exit status, 2."""
    print(f"rageval: error: {message}", file=sys.stderr)
    return 2


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}" if n else ""


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
