"""Batch scoring of a JSONL file, row by row: every input line yields exactly one output line.

Each result line is written and flushed as soon as its row is scored, with its input ``line`` and the
SHA-256 of that line (``input_sha256``), so that a resumed run can tell whether the input changed. A
row that cannot be decoded, parsed or scored becomes an ``error`` line carrying the reason, and the run
goes on. A row with any ``error`` score is *failed*; a row without any ``ok`` score is *undetermined*.

Example:
    >>> import io, json
    >>> rows = io.StringIO(
    ...     '{"id": "a", "question": "Q?", "contexts": ["A. B."], "response": "A.", '
    ...     '"labels": {"all_relevant_sentence_keys": ["0a"], "unsupported_response_sentence_keys": []}}\\n'
    ...     '{"id": "b", "question": ""}\\n')
    >>> out = io.StringIO()
    >>> report = evaluate_lines(rows, out, metrics="trace", judge="labels")
    >>> [json.loads(line)["status"]["adherence"] for line in out.getvalue().splitlines()]
    ['ok', 'error']
    >>> report.failed[0].line
    2
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from rageval_lc.datasets.rows import sample_from_row
from rageval_lc.engine.engine import Unreadable, metric_specs, score_items
from rageval_lc.files import decode_line, jsonl_line, line_sha256
from rageval_lc.judges.base import Judge
from rageval_lc.judges.factory import canonical_judge_spec, resolve_judge
from rageval_lc.metrics.trace import TraceMode
from rageval_lc.reports.summary import DEFAULT_RESAMPLES, ScoreSummary, reference_view, row_outcome, summarize
from rageval_lc.schema import RagSample
from rageval_lc.scoring.judgements import ScoringMode
from rageval_lc.scoring.registry import RAGAS_FAMILY, MetricSpec
from rageval_lc.scoring.sample import SampleResult

__all__ = [
    "FailedRow",
    "JudgeUnavailableError",
    "RunReport",
    "completed_keys",
    "evaluate_lines",
    "kept_rows",
    "parse_line",
    "resume_mismatches",
    "row_key",
    "run_settings",
    "settings_mismatch",
]

#: The command-line option behind each run setting, for messages.
SETTING_OPTIONS = {
    "judge": "--judge",
    "api_base": "--api-base",
    "max_tokens": "--max-tokens",
    "metrics": "--metrics",
    "trace_mode": "--trace-mode",
    "scoring_mode": "--scoring-mode",
    "relevance_normalizer": "--relevance-normalizer",
    "escalate": "--escalate",
    "escalate_below": "--escalate-below",
}


#: What an error's reason says when the judge's credentials are missing or refused: the names litellm, the OpenAI SDK
#: and DSPy give that failure, and their messages. No row gets past it, so a run stops at the first.
_NO_CREDENTIALS = re.compile(
    r"\b(?:AuthenticationError|LMAuthError|LMNotConfiguredError|MissingCredentialError)\b|no API key found|"
    r"api_key client option must be set|invalid[_ ]api[_ ]key|incorrect api key",
    re.IGNORECASE,
)


class JudgeUnavailableError(RuntimeError):
    """The judge cannot be called for want of credentials (a missing or refused API key): raised by
    :func:`evaluate_lines` with ``stop_without_credentials`` at the first row that says so, before that row is
    written. ``reason`` is the error's reason (the provider's own words), ``line`` and ``id`` the row's, ``written``
    the rows written before it."""

    def __init__(self, reason: str, *, line: int, id: str | None, written: int) -> None:
        super().__init__(reason)
        self.reason, self.line, self.id, self.written = reason, line, id, written


def credentials_missing(result: SampleResult) -> str | None:
    """The reason of the first ``error`` score that says the judge's credentials are missing or refused, else None.

    Example:
        >>> from rageval_lc.schema import MetricResult
        >>> why = "The judge model could not be called: LMNotConfiguredError: no API key found for provider 'openai'."
        >>> failed = MetricResult(name="adherence", status="error", reason=why)
        >>> credentials_missing(SampleResult(id="a", results={"adherence": failed})) == why
        True
    """
    for metric in result.results.values():
        if metric.status == "error" and _NO_CREDENTIALS.search(metric.reason or ""):
            return metric.reason
    return None


@dataclass(frozen=True)
class FailedRow:
    """An input line that failed (a score is ``error``) or stayed undetermined (no score is ``ok``)."""

    line: int
    id: str | None
    reason: str


@dataclass
class RunReport:
    """What a run did: rows written, rows failed or undetermined, the per-score summary, and judge usage."""

    rows: int = 0
    skipped: int = 0  # rows already in the output (``skip``), counted in the figures through ``kept``
    failed: list[FailedRow] = field(default_factory=list)
    undetermined: list[FailedRow] = field(default_factory=list)
    summaries: list[ScoreSummary] = field(default_factory=list)
    reference_view: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, dict[str, int]] = field(default_factory=dict)

    def add_usage(self, details: dict[str, Any]) -> None:
        """Add the judge usage recorded in one row's details (each judgement counted once per row)."""
        by_judgement = (details.get("judge_usage") or {}).get("by_judgement") or {}
        for judgement, used in by_judgement.items():
            total = self.usage.setdefault(judgement, {"calls": 0, "reported_tokens": 0, "estimated_tokens": 0})
            total["calls"] += used.get("calls") or 0
            total["reported_tokens"] += used.get("total_tokens") or 0
            total["estimated_tokens"] += used.get("estimated_tokens") or 0


def row_key(line_no: int) -> str:
    """How ``--resume`` recognises a row: its input line number (ids may repeat — RAGBench's do — or be absent)."""
    return f"line:{line_no}"


def run_settings(
    metrics: str | Iterable[str] | Sequence[MetricSpec] = ("trace",),
    judge: Judge | None = None,
    *,
    trace_mode: TraceMode = "ragbench",
    scoring_mode: ScoringMode = "shared",
    relevance_normalizer: float = 20.0,
    **judge_options: Any,
) -> dict[str, Any]:
    """The settings that change a run's scores, recorded as ``run`` in each output row so that
    ``--resume`` never mixes rows of two settings: the judge's name and options (``api_base``,
    ``max_tokens``: None when unset), the metrics (sorted), the TRACe and scoring modes, the
    relevance normaliser, and the definition of each criteria metric of one's own (``criteria``, only when
    there is one: a changed criterion or rubric changes the scores).

    Example:
        >>> run_settings("trace,faithfulness")["metrics"]
        ['faithfulness', 'trace']
    """
    from rageval_lc.verdicts import CRITERIA_DEFINITIONS

    settings = {"judge": judge.name if judge is not None else None, **judge_options}
    for option in ("escalate", "escalate_below"):  # a cascade's budget or threshold (recorded only for one)
        if getattr(judge, option, None) is not None:
            settings[option] = getattr(judge, option)
    specs = metric_specs(metrics)
    settings["metrics"] = sorted(spec.name for spec in specs)
    criteria = {
        s.name: CRITERIA_DEFINITIONS[s.name].model_dump(mode="json") for s in specs if s.name in CRITERIA_DEFINITIONS
    }
    if criteria:
        settings["criteria"] = criteria
    settings.update(trace_mode=trace_mode, scoring_mode=scoring_mode, relevance_normalizer=float(relevance_normalizer))
    return json.loads(json.dumps(settings))  # as read back from a row


def parse_line(line: str | bytes, line_no: int) -> RagSample | Unreadable:
    """One input line as a sample, or :class:`~rageval_lc.engine.engine.Unreadable` with why it is not one
    (not UTF-8, not JSON, not a valid row) and the row's ``id`` when it has one.

    Example:
        >>> parse_line(b'{"id": 7, "question": ""}', 3).id
        '7'
        >>> print(parse_line("[1", 4).error)
        line 4 is not valid JSON: Expecting ',' delimiter: line 1 column 3 (char 2)
    """
    row: Any = None
    try:
        row = json.loads(decode_line(line, line_no))
        return sample_from_row(row)
    except json.JSONDecodeError as exc:
        return Unreadable(ValueError(f"line {line_no} is not valid JSON: {exc}"))
    except Exception as exc:  # any bad row becomes an error row; the run goes on
        return Unreadable(exc, str(row["id"]) if isinstance(row, dict) and row.get("id") is not None else None)


def evaluate_lines(
    lines: Iterable[str | bytes],
    out: TextIO,
    *,
    metrics: str | Iterable[str] | Sequence[MetricSpec] = ("trace",),
    judge: Judge | str | None = None,
    trace_mode: TraceMode = "ragbench",
    relevance_normalizer: float = 20.0,
    scoring_mode: ScoringMode = "shared",
    embeddings: Any = None,
    concurrency: int = 1,
    workers: int = 1,
    engine: str = "local",
    engine_options: Mapping[str, Any] | None = None,
    skip: Collection[str] = frozenset(),
    kept: Iterable[Mapping[str, Any]] = (),
    settings: Mapping[str, Any] | None = None,
    on_row: Callable[[dict[str, Any]], None] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    stop_without_credentials: bool = False,
) -> RunReport:
    """Score JSONL lines and write one JSON result line per input row to ``out``, as each row finishes.

    Blank lines are skipped. Output rows carry ``line`` (1-based input line), ``input_sha256``
    (:func:`~rageval_lc.files.line_sha256` of that line), ``run`` (:func:`run_settings`), the row's
    ``question`` and ``response`` (so that reports can show what was judged; absent on an unreadable row) and,
    when it has any, its ``metadata`` (a generic row's other fields under ``metadata.row``, for ``rageval compare
    --by``) besides the fields of :meth:`SampleResult.to_row`; with ``concurrency`` > 1 they are written in
    completion order.

    Args:
        lines: the input lines (an open file works; read lazily). Bytes are decoded line by line: a
            line that is not UTF-8 becomes an ``error`` row; a byte-order mark on line 1 is dropped.
        out: where result lines go; each is written whole and flushed (U+2028, U+2029 and U+0085
            escaped, so that no line splitter cuts a row).
        metrics: metric names, a comma-separated string, or specs already parsed.
        judge: as for :func:`~rageval_lc.scoring.sample.evaluate_sample` (None: the offline judge).
        trace_mode, relevance_normalizer, scoring_mode, embeddings: as for
            :func:`~rageval_lc.scoring.sample.evaluate_sample`.
        concurrency: rows scored at once (threads; in each worker with ``workers`` > 1).
        workers: worker processes (every core for the offline judge) or, with ``engine="ray"``, Ray actors;
            with more than one, rows are written in input order.
        engine: ``local`` or ``ray`` (:func:`~rageval_lc.engine.engine.score_items`); ``engine_options`` its
            options (``address``, ``gpus_per_worker``).
        skip: keys (:func:`row_key`) of rows already scored, which are not scored again (``--resume``).
        kept: the rows already in the output (:func:`kept_rows`), counted in the report's figures
            (failed, undetermined, summaries) with the rows scored now.
        settings: recorded as ``run`` in each row (default: :func:`run_settings` of this call).
        on_row: called with each written row (progress, live reporting).
        n_resamples, seed: the bootstrap of each summary's 95 % interval (0 resamples: none).
        stop_without_credentials: stop at the first row whose judge call failed for want of credentials (a
            missing or refused API key: :func:`credentials_missing`), before writing it, rather than write an
            ``error`` row for every row (``rageval evaluate`` does).

    Raises:
        ValueError: If ``metrics`` names an unknown metric (before any row is read).
        JudgeUnavailableError: With ``stop_without_credentials``, at the first row the judge could not be called
            for (the rows already in flight are abandoned).
    """
    specs = metric_specs(metrics)
    judge = resolve_judge(judge)
    if settings is None:
        settings = run_settings(
            specs, judge, trace_mode=trace_mode, scoring_mode=scoring_mode, relevance_normalizer=relevance_normalizer
        )
    report = RunReport()
    written: list[dict[str, Any]] = []

    def count(row: Mapping[str, Any]) -> None:
        outcome = row_outcome(row["status"])
        if outcome != "ok":
            wanted = "error" if outcome == "failed" else "undetermined"
            reason = next((r for n, r in row["reason"].items() if row["status"][n] == wanted), None)
            failed = FailedRow(line=row["line"], id=row["id"], reason=reason or "")
            (report.failed if outcome == "failed" else report.undetermined).append(failed)
        label = (row.get("details", {}).get("answer_classification") or {}).get("label", row.get("label"))
        written.append({"status": row["status"], "scores": row["scores"], "label": label})

    for row in kept:
        count(row)

    def items() -> Iterator[tuple[tuple[int, str | bytes, dict[str, Any]], RagSample | Unreadable]]:
        for line_no, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            if skip and row_key(line_no) in skip:
                report.skipped += 1
                continue
            sample = parse_line(line, line_no)
            shown: dict[str, Any] = {}
            if isinstance(sample, RagSample):
                shown = {"question": sample.question, "response": sample.response}
                if sample.metadata:  # the row's own metadata, its other fields under "row"
                    shown["metadata"] = sample.metadata
            yield (line_no, line, shown), sample

    options = {
        "trace_mode": trace_mode,
        "relevance_normalizer": relevance_normalizer,
        "scoring_mode": scoring_mode,
        "embeddings": embeddings,
    }
    scored = score_items(
        items(),
        specs,
        judge,
        concurrency=concurrency,
        workers=workers,
        engine=engine,
        engine_options=engine_options,
        **options,
    )
    for (line_no, line, shown), result in scored:
        refused = credentials_missing(result) if stop_without_credentials else None
        if refused is not None:
            getattr(scored, "close", lambda: None)()  # the rows in flight abandoned: threads finish, workers end
            raise JudgeUnavailableError(refused, line=line_no, id=result.id, written=report.rows)
        digest = line_sha256(line, line_no)
        output = {"id": result.id, "line": line_no, "input_sha256": digest, "run": settings, **shown}
        output.update(result.to_row())
        out.write(jsonl_line(output))
        out.flush()
        count(output)
        report.rows += 1
        report.add_usage(output["details"])
        if on_row is not None:
            on_row(output)
    report.summaries = summarize(written, n_resamples=n_resamples, seed=seed)
    if any(spec.name in RAGAS_FAMILY for spec in specs):
        report.reference_view = reference_view(written)
    return report


def kept_rows(path: Path) -> list[dict[str, Any]]:
    """The rows an earlier run wrote to ``path`` whole, with what ``--resume`` needs of each: ``line``,
    ``id``, ``input_sha256`` and ``run`` (None when missing), ``status``, ``scores``, ``reason`` and
    ``label``. A torn last line (a killed run) is cut off, to be scored again.

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "out.jsonl"
        >>> _ = path.write_text('{"line": 1, "status": {"a": "ok"}, "scores": {"a": 1.0}}\\n{"id": "c", "li')
        >>> [(row["line"], row["status"], row["run"]) for row in kept_rows(path)]
        [(1, {'a': 'ok'}, None)]
    """
    if not path.exists():
        return []
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if end < len(data):  # the last line was cut short: drop it so that it is scored again
        with path.open("r+b") as handle:
            handle.truncate(end)
        data = data[:end]
    rows = []
    for raw in data.split(b"\n"):
        try:
            row = json.loads(raw)
        except ValueError:
            continue
        if isinstance(row, dict) and isinstance(row.get("line"), int):
            digest = row.get("input_sha256")
            details = row.get("details") if isinstance(row.get("details"), dict) else {}
            rows.append(
                {
                    "line": row["line"],
                    "id": row.get("id"),
                    "input_sha256": digest if isinstance(digest, str) else None,
                    "run": row.get("run") if isinstance(row.get("run"), dict) else None,
                    "status": _mapping(row.get("status")),
                    "scores": _mapping(row.get("scores")),
                    "reason": _mapping(row.get("reason")),
                    "label": (details.get("answer_classification") or {}).get("label"),
                }
            )
    return rows


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def settings_mismatch(rows: Iterable[Mapping[str, Any]], settings: Mapping[str, Any]) -> str | None:
    """Why rows already in an output cannot be kept beside rows scored with ``settings`` (their ``run``
    differs, or is missing), naming the options that differ; None when every row matches. A judge recorded
    under an old name (``local``, the offline judge's) is the judge of its canonical name
    (:func:`~rageval_lc.judges.factory.canonical_judge_spec`).

    Example:
        >>> now = run_settings("trace")
        >>> print(settings_mismatch([{"line": 1, "run": {**now, "trace_mode": "capstone"}}], now))
        line 1 was scored with --trace-mode capstone, not --trace-mode ragbench
        >>> print(settings_mismatch([{"line": 1, "run": {**now, "judge": "local"}}], {**now, "judge": "offline"}))
        None
    """
    settings = _canonical_judge(settings)
    for row in rows:
        run = row.get("run")
        if run is None:
            return f"line {row['line']} was scored without its run settings (by an older rageval)"
        run = _canonical_judge(run)
        differ = [key for key in {**settings, **run} if run.get(key) != settings.get(key)]
        if differ == ["criteria"]:
            then, now = run.get("criteria") or {}, settings.get("criteria") or {}
            changed = sorted(name for name in {**then, **now} if then.get(name) != now.get(name))
            return f"line {row['line']} was scored with another definition of the criteria metric {', '.join(changed)}"
        if differ:
            then = ", ".join(_option(key, run.get(key)) for key in differ)
            now = ", ".join(_option(key, settings.get(key)) for key in differ)
            return f"line {row['line']} was scored with {then}, not {now}"
    return None


def _canonical_judge(settings: Mapping[str, Any]) -> Mapping[str, Any]:
    """``settings`` with the judge's name in its canonical spelling (an older rageval wrote ``local``)."""
    judge = settings.get("judge")
    return {**settings, "judge": canonical_judge_spec(judge)} if isinstance(judge, str) else settings


def _option(key: str, value: Any) -> str:
    if isinstance(value, dict):  # criteria definitions: name them, the texts are long
        return f"criteria metrics {', '.join(sorted(value))}"
    shown = ",".join(map(str, value)) if isinstance(value, list) else "(unset)" if value is None else value
    return f"{SETTING_OPTIONS.get(key, key)} {shown}"


def completed_keys(path: Path) -> dict[str, str | None]:
    """The rows an earlier run wrote to ``path`` whole: key → the ``input_sha256`` each was scored from
    (None when the line has none). A torn last line (a killed run) is cut off, to be scored again.

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "out.jsonl"
        >>> _ = path.write_text('{"line": 1, "input_sha256": "ab"}\\n{"id": null, "line": 2}\\n{"id": "c", "li')
        >>> completed_keys(path), path.read_text().count("\\n")
        ({'line:1': 'ab', 'line:2': None}, 2)
    """
    return {row_key(row["line"]): row["input_sha256"] for row in kept_rows(path)}


def resume_mismatches(lines: Iterable[str | bytes], done: Mapping[str, str | None]) -> list[str]:
    """What keeps an output from being resumed against these input lines: per row already scored whose
    input line changed, went blank or is gone, or that carries no input hash, one sentence (in line
    order). Empty when every row already scored was scored from the line now at its place.

    Example:
        >>> done = {"line:1": line_sha256("A"), "line:2": line_sha256("B"), "line:4": None}
        >>> for problem in resume_mismatches(["A\\n", "b\\n", "C\\n"], done):
        ...     print(problem)
        input line 2 has changed since it was scored
        input line 4 was scored without an input hash (by an older rageval)
    """
    expected = {int(key.removeprefix("line:")): digest for key, digest in done.items()}
    problems: dict[int, str] = {}
    for line_no, line in enumerate(lines, start=1):
        if line_no not in expected:
            continue
        digest = expected.pop(line_no)
        if digest is None:
            problems[line_no] = f"input line {line_no} was scored without an input hash (by an older rageval)"
        elif not line.strip():
            problems[line_no] = f"input line {line_no} is gone (it is blank now)"
        elif line_sha256(line, line_no) != digest:
            problems[line_no] = f"input line {line_no} has changed since it was scored"
    for line_no, digest in expected.items():
        if digest is None:
            problems[line_no] = f"input line {line_no} was scored without an input hash (by an older rageval)"
        else:
            problems[line_no] = f"input line {line_no} is gone (the input has fewer lines)"
    return [problems[n] for n in sorted(problems)]
