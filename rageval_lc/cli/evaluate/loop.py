"""``rageval evaluate``'s run: a resumed output checked against the input and the settings, the rows scored into
the output, and the summary on stderr."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any, TextIO

from rageval_lc.cli import common
from rageval_lc.files import LockedOutput, raw_lines


def run_evaluation(args: argparse.Namespace, judge: Any, specs: list[Any], output: LockedOutput | None) -> int:
    """Score the input into the (locked) output, after checking that a resumed output matches the input and
    the settings; rows that failed before are scored again, the other rows already there are kept."""
    from rageval_lc.engine.jsonl import (
        JudgeUnavailableError,
        evaluate_lines,
        kept_rows,
        resume_mismatches,
        row_key,
        run_settings,
        settings_mismatch,
    )
    from rageval_lc.reports.summary import format_reference_view, format_summary, row_outcome

    scoring = common.options(args, "trace_mode scoring_mode relevance_normalizer")  # how the scores are computed
    settings = run_settings(specs, judge, **scoring, api_base=args.api_base, max_tokens=args.max_tokens)
    kept = kept_rows(args.out) if args.resume else []
    retried = {row["line"] for row in kept if row_outcome(row["status"]) == "failed"}
    kept = [row for row in kept if row["line"] not in retried]
    done = {row_key(row["line"]): row["input_sha256"] for row in kept}
    # The input is read once. A cascade with a budget plans over every row before any is scored, holding their
    # samples, so it holds the lines too, and the check and the scoring read those. A resumed run without one reads
    # the input a second time, streamed: every kept row is checked against its line before anything is written.
    held = list(raw_lines(args.input)) if getattr(judge, "escalate", None) is not None else None

    def input_lines() -> Iterator[tuple[int, bytes]]:
        return iter(held) if held is not None else raw_lines(args.input)

    if kept:
        problems = resume_mismatches((line for _, line in input_lines()), done)
        if problems:
            others = len(problems) - 1
            more = f" (and {common.count(others, 'more line')})" if others else ""
            return common.error(
                f"--resume: {args.out} was not made from this {args.input.name}: {problems[0]}{more}; "
                "score into a new --out, or run without --resume to start again."
            )
        mismatch = settings_mismatch(kept, settings)
        if mismatch:
            return common.error(
                f"--resume: {args.out} {mismatch}; resume with the same settings, score into a new --out, "
                "or run without --resume to start again."
            )
    if retried and output is not None:
        try:
            output.rewrite(lambda raw: _result_line(raw) not in retried)
        except OSError as exc:
            return common.error(f"cannot rewrite {args.out} without its failed rows (to score them again): {exc}")
    if held is not None:
        _plan_escalation(judge, held, specs, scoring)
    with ExitStack() as stack:
        out: TextIO | LockedOutput = output if output is not None else sys.stdout
        progress = common.progress_bar(args, stack)
        pending: dict[int, int] = {}  # bytes of the lines read ahead and not written yet

        def source() -> Iterator[bytes]:  # the bar counts a line's bytes once it is done
            for line_no, line in input_lines():
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
                (progress.write if progress is not None else common.stderr)(message)

        try:
            report = evaluate_lines(
                source(),
                out,  # type: ignore[arg-type]  # a LockedOutput writes whole lines like a text file
                metrics=specs,
                judge=judge,
                **scoring,
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
                stop_without_credentials=True,
            )
        except JudgeUnavailableError as exc:
            return _unavailable(args, judge, exc)
        except OSError as exc:
            if output is None or output.error is not exc:
                raise
            total = len(kept) + output.rows
            left = f"{total} row{'s' if total != 1 else ''} kept in it (whole lines); rerun with --resume to finish"
            return common.error(
                f"cannot write {args.out}: {exc.strerror or exc}; {left if total else 'no row written'}."
            )
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
    total = report.rows + report.skipped
    if args.resume:
        again = f" ({common.count(len(retried), 'row')} that had failed scored again)" if retried else ""
        print(
            f"{total} row{'' if total == 1 else 's'} in {args.out.name}: {report.rows} scored now, "
            f"{report.skipped} kept; {outcomes}{again}.",
            file=sys.stderr,
        )
    else:
        print(f"{report.rows} row{'' if report.rows == 1 else 's'} scored, {outcomes}.", file=sys.stderr)
    if total and failed == total:  # nothing was scored: not a run to pass on
        print(f"rageval: every row failed ({failed} of {total}); exit status 1.", file=sys.stderr)
        return 1
    if not args.strict or not (failed or undetermined):
        return 0
    counts = [common.count(failed, "failed row"), common.count(undetermined, "undetermined row")]
    print(f"rageval: --strict: {' and '.join(c for c in counts if c)}; exit status 1.", file=sys.stderr)
    return 1


def _unavailable(args: argparse.Namespace, judge: Any, exc: Any) -> int:
    """Say in one line that the judge cannot be called (its credentials missing or refused), where, and what to do."""
    named = "" if exc.id is None else f", id {exc.id!r}"
    reason = str(exc.reason).removeprefix("The judge model could not be called: ").rstrip().rstrip(".")
    kept = f"{common.count(exc.written, 'row')} written before it" if exc.written else "no row was written"
    return common.error(
        f"the judge {judge.name} cannot be called (line {exc.line}{named}): {reason}; {kept}. Set the API key in "
        "the environment, or name the variable holding it with --api-key-env."
    )


def _plan_escalation(judge: Any, lines: list[tuple[int, bytes]], specs: list[Any], scoring: dict[str, Any]) -> None:
    """A cascade judge with a budget chooses its escalated verdicts over every row of the input (kept rows too, so
    a resumed run keeps the budget of the whole file, and the kept rows are not scored again)."""
    from rageval_lc.engine.batch import plan_escalation
    from rageval_lc.engine.jsonl import parse_line

    samples = (parse_line(line, line_no) for line_no, line in lines if line.strip())
    plan = plan_escalation(judge, samples, specs, **scoring)
    if plan is not None:
        share = f"{plan['escalated'] / plan['verdicts']:.0%}" if plan["verdicts"] else "none"
        common.stderr(
            f"cascade: {plan['escalated']} of {plan['verdicts']} verdicts ({share}) go to {judge.llm.name}, "
            f"in {plan['rows']} of the file's rows."
        )


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
