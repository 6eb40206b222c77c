"""Batch scoring of a JSONL file, row by row: every input line yields exactly one output line.

Each result line is written and flushed as soon as its row is scored. A row that cannot be parsed or
scored becomes an ``error`` line carrying the reason, and the run goes on.

Example:
    >>> import io, json
    >>> rows = io.StringIO(
    ...     '{"id": "a", "question": "Q?", "contexts": ["A. B."], "response": "A.", '
    ...     '"labels": {"all_relevant_sentence_keys": ["0a"], "unsupported_response_sentence_keys": []}}\\n'
    ...     '{"id": "b", "question": ""}\\n')
    >>> out = io.StringIO()
    >>> report = evaluate_lines(rows, out, metrics="trace")
    >>> [json.loads(line)["status"]["adherence"] for line in out.getvalue().splitlines()]
    ['ok', 'error']
    >>> report.failed[0].line
    2
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from rageval_lc.datasets.rows import sample_from_row
from rageval_lc.engine import prepared, scored_as_completed
from rageval_lc.evaluators import RAGAS_FAMILY, SampleResult, evaluate_sample, parse_metrics
from rageval_lc.judges.base import Judge
from rageval_lc.metrics.trace import TraceMode
from rageval_lc.report import ScoreSummary, reference_view, summarize
from rageval_lc.sharing import ScoringMode

__all__ = ["FailedRow", "RunReport", "completed_keys", "evaluate_lines", "row_key"]


@dataclass(frozen=True)
class FailedRow:
    """An input line that could not be scored."""

    line: int
    id: str | None
    reason: str


@dataclass
class RunReport:
    """What a run did: rows written, rows that failed, the per-score summary, and judge usage per judgement."""

    rows: int = 0
    skipped: int = 0
    failed: list[FailedRow] = field(default_factory=list)
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


def evaluate_lines(
    lines: Iterable[str],
    out: TextIO,
    *,
    metrics: str | Iterable[str] = ("trace",),
    judge: Judge | None = None,
    trace_mode: TraceMode = "ragbench",
    relevance_normalizer: float = 20.0,
    scoring_mode: ScoringMode = "shared",
    embeddings: Any = None,
    concurrency: int = 1,
    skip: Collection[str] = frozenset(),
    on_row: Callable[[dict[str, Any]], None] | None = None,
) -> RunReport:
    """Score JSONL lines and write one JSON result line per input row to ``out``, as each row finishes.

    Blank lines are skipped. Output rows carry ``line`` (1-based input line) besides the fields of
    :meth:`SampleResult.to_row`; with ``concurrency`` > 1 they are written in completion order.

    Args:
        lines: the input lines (an open file works; read lazily).
        out: where result lines go; each is written whole and flushed.
        metrics, judge, trace_mode, relevance_normalizer, scoring_mode, embeddings: as for
            :func:`~rageval_lc.evaluators.evaluate_sample`.
        concurrency: rows scored at once (threads).
        skip: keys (:func:`row_key`) of rows already scored, which are not scored again (``--resume``).
        on_row: called with each written row (progress, live reporting).

    Raises:
        ValueError: If ``metrics`` names an unknown metric (before any row is read).
    """
    specs = parse_metrics(metrics)
    names = [s.name for s in specs]
    report = RunReport()
    written: list[dict[str, Any]] = []

    def rows() -> Iterator[tuple[int, str]]:
        for line_no, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            if skip and row_key(line_no) in skip:
                report.skipped += 1
                continue
            yield line_no, line

    def score(item: tuple[int, str]) -> tuple[SampleResult, FailedRow | None]:
        line_no, line = item
        sample_id: str | None = None
        try:
            row = json.loads(line)
            if isinstance(row, dict) and row.get("id") is not None:
                sample_id = str(row["id"])
            sample = sample_from_row(row)
            sample_id = sample.id
            result = evaluate_sample(
                sample,
                names,
                judge=judge,
                trace_mode=trace_mode,
                relevance_normalizer=relevance_normalizer,
                scoring_mode=scoring_mode,
                embeddings=embeddings,
            )
            return result, None
        except Exception as exc:  # one bad row must not end the run
            if isinstance(exc, json.JSONDecodeError):
                exc = ValueError(f"line {line_no} is not valid JSON: {exc}")
            failure = FailedRow(line=line_no, id=sample_id, reason=f"{type(exc).__name__}: {exc}")
            return SampleResult.failed(sample_id, specs, exc), failure

    def sample_of(item: tuple[int, str]) -> Any:
        try:
            return sample_from_row(json.loads(item[1]))
        except Exception:
            return None

    items = prepared(rows(), judge, sample_of)
    for (line_no, _), (result, failure) in scored_as_completed(items, score, concurrency=concurrency):
        if failure is not None:
            report.failed.append(failure)
        output = {"id": result.id, "line": line_no, **result.to_row()}
        out.write(json.dumps(output, ensure_ascii=False) + "\n")
        out.flush()
        report.rows += 1
        report.add_usage(output["details"])
        label = (output["details"].get("answer_classification") or {}).get("label")
        written.append({"status": output["status"], "scores": output["scores"], "label": label})
        if on_row is not None:
            on_row(output)
    report.summaries = summarize(written)
    if any(spec.name in RAGAS_FAMILY for spec in specs):
        report.reference_view = reference_view(written)
    return report


def completed_keys(path: Path) -> set[str]:
    """Keys of the rows an earlier run wrote to ``path`` whole; a torn last line (a killed run) is cut off.

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "out.jsonl"
        >>> _ = path.write_text('{"id": "a", "line": 1}\\n{"id": null, "line": 2}\\n{"id": "c", "li')
        >>> sorted(completed_keys(path)), path.read_text().count("\\n")
        (['line:1', 'line:2'], 2)
    """
    if not path.exists():
        return set()
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if end < len(data):  # the last line was cut short: drop it so that it is scored again
        with path.open("r+b") as handle:
            handle.truncate(end)
        data = data[:end]
    keys = set()
    for raw in data.splitlines():
        try:
            row = json.loads(raw)
        except ValueError:
            continue
        if isinstance(row, dict) and isinstance(row.get("line"), int):
            keys.add(row_key(row["line"]))
    return keys
