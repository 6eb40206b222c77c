"""``rageval align``: fit the offline judge (or a dspy: judge) to labelled rows and measure it before and after on
held-out rows, e.g. ``rageval align labelled.jsonl --out aligned.json``; exit 1 when ``--out`` is not written (the
judge is worse on held-out rows, or not shown better)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rageval_lc.cli import common

HELP = "fit the offline judge to your labelled rows; measure it before and after on held-out rows"
DESCRIPTION = """Split the labelled rows by question (--held-out of them, seeded), refit the offline judge's models
on the rest, shrunk toward its current parameters, and print each held-out figure before and after with its
paired-bootstrap 95% interval. --out writes the aligned judge (use it as --judge offline:FILE) unless it is worse on
held-out rows, or they are too few to show that its verdicts are not (exit 1; the report says what rows to add;
--force writes it anyway)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from rageval_lc.judges.factory import JUDGE_FORMS

    parser.add_argument(
        "labelled",
        type=Path,
        help="labelled rows (JSONL): RAGBench labels, sentence_verdicts, "
        "faithful / human_scores, or LangSmith runs with feedback",
    )
    parser.add_argument(
        "--judge",
        default="offline",
        help=" | ".join(f for f in JUDGE_FORMS if f != "labels" and not f.startswith("cascade:"))
        + " (default: offline)",
    )
    common.server_options(parser)
    parser.add_argument(
        "--optimizer",
        choices=("labeled", "bootstrap"),
        default="labeled",
        help="a dspy: judge's compile: labeled (LabeledFewShot, no model call; default) or bootstrap",
    )
    parser.add_argument(
        "--scoring-mode", choices=("shared", "separate"), default="shared", help="a dspy: judge's scoring mode"
    )
    parser.add_argument("--dry-run", action="store_true", help="a dspy: judge: plan the model calls, call nothing")
    parser.add_argument("--metrics", default="trace", help="metrics to align, comma-separated (default: trace, all)")
    parser.add_argument("--out", type=Path, help="write the aligned judge (JSON) here")
    parser.add_argument("--held-out", type=float, default=0.3, help="share of rows held out (default 0.3)")
    parser.add_argument(
        "--tolerance",
        type=float,
        default=0.01,
        help="worse: a figure's whole 95%% interval, or the figures' summed change, below -TOLERANCE; not shown "
        "better: a verdict figure's interval reaching below -TOLERANCE (default 0.01)",
    )
    parser.add_argument(
        "--force", action="store_true", help="write the judge even if it is worse on held-out rows or not shown better"
    )
    common.json_option(parser, "the report")
    common.html_option(parser, "also draw the report as one HTML page here")
    parser.add_argument(
        "--checkpoint",
        type=Path,
        help="a dspy: judge: keep compiled modules and the held-out check's answers here, so a stopped run resumes "
        "(default: OUT.partial, removed when the run ends)",
    )
    common.seed_option(parser, "the split's and the bootstrap's")


def handle(args: argparse.Namespace) -> int:
    """Align the judge, print the before-and-after report, and write the judge (and page) asked for."""
    from rageval_lc.align.offline import align_judge
    from rageval_lc.judges.factory import canonical_judge_spec, make_judge

    args.judge = canonical_judge_spec(args.judge)  # the offline judge's old name, local, is offline
    if not args.judge.startswith(("offline", "dspy:")):
        return common.error(
            f"rageval align aligns the offline judge (offline, offline:FILE) or dspy:<model>; got {args.judge!r}."
        )
    if not 0 < args.held_out < 1:
        return common.error(f"--held-out must be between 0 and 1. Got {args.held_out}.")
    if args.dry_run and not args.judge.startswith("dspy:"):
        return common.error("--dry-run counts an LLM judge's model calls; the offline judge makes none.")
    if args.checkpoint is not None and not args.judge.startswith("dspy:"):
        return common.error(
            "--checkpoint resumes an LLM judge's compile; the offline judge's refit is quick to run again."
        )
    for target, option in ((args.out, "--out"), (args.html, "--html")):
        if common.unusable(args.labelled, "labelled", target, option, "it"):
            return 2
    try:
        judge: Any = args.judge
        if judge.startswith("dspy:"):
            judge = make_judge(judge, api_base=args.api_base, api_key_env=common.api_key_env(args))
        as_given = common.options(
            args, "metrics out held_out seed force tolerance optimizer scoring_mode dry_run checkpoint"
        )
        report = align_judge(args.labelled, judge, progress=sys.stderr.isatty(), **as_given)
    except ValueError as exc:
        return common.error(str(exc))
    print(json.dumps(report.to_dict(), indent=1) if args.json else report.table(), flush=True)
    if args.html is not None:
        from rageval_lc.align.page import render_align_html

        if common.write_page(args.html, render_align_html(report, title=args.labelled.name), "HTML report"):
            return 2
    if args.out is not None and report.written is None and not args.dry_run:
        print(f"Not written: {report.refusal}; --force writes it anyway.", file=sys.stderr)
        return 1
    return 0
