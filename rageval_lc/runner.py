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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

from rageval_lc.datasets.rows import sample_from_row
from rageval_lc.evaluators import RAGAS_FAMILY, SampleResult, evaluate_sample, parse_metrics
from rageval_lc.judges.base import Judge
from rageval_lc.metrics.trace import TraceMode
from rageval_lc.report import ScoreSummary, reference_view, summarize
from rageval_lc.sharing import ScoringMode

__all__ = ["FailedRow", "RunReport", "evaluate_lines"]


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
    on_row: Callable[[dict[str, Any]], None] | None = None,
) -> RunReport:
    """Score JSONL lines and write one JSON result line per input row to ``out``.

    Blank lines are skipped. Output rows carry ``line`` (1-based input line) besides the fields of
    :meth:`SampleResult.to_row`.

    Args:
        lines: the input lines (an open file works).
        out: where result lines go; flushed after each row.
        metrics, judge, trace_mode, relevance_normalizer, scoring_mode, embeddings: as for
            :func:`~rageval_lc.evaluators.evaluate_sample`.
        on_row: called with each written row (progress, live reporting).

    Raises:
        ValueError: If ``metrics`` names an unknown metric (before any row is read).
    """
    specs = parse_metrics(metrics)
    report = RunReport()
    written: list[dict[str, Any]] = []
    for line_no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        sample_id: str | None = None
        try:
            row = json.loads(line)
            if isinstance(row, dict) and row.get("id") is not None:
                sample_id = str(row["id"])
            sample = sample_from_row(row)
            sample_id = sample.id
            result = evaluate_sample(
                sample,
                [s.name for s in specs],
                judge=judge,
                trace_mode=trace_mode,
                relevance_normalizer=relevance_normalizer,
                scoring_mode=scoring_mode,
                embeddings=embeddings,
            )
        except Exception as exc:  # one bad row must not end the run
            if isinstance(exc, json.JSONDecodeError):
                exc = ValueError(f"line {line_no} is not valid JSON: {exc}")
            result = SampleResult.failed(sample_id, specs, exc)
            report.failed.append(FailedRow(line=line_no, id=sample_id, reason=f"{type(exc).__name__}: {exc}"))
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
