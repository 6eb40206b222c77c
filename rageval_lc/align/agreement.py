"""How well a judge agrees with labelled rows, next to the other judges the rows carry (``rageval agreement``).

For RAGBench rows the truth is the released scores and the other judges are the rows' prediction
columns (GPT-3.5, RAGAS, TruLens); for generic rows with ``labels`` the truth is TRACe computed from
those labels. Figures follow RAGBench's convention per group (sub-dataset) and pooled: RMSE for
relevance, utilization and completeness, AUROC for hallucination (a judge's ``adherence_probability``
ranks when it has one).

Example:
    >>> import io
    >>> from rageval_lc.judges import LabelsJudge
    >>> run = agreement_run(io.StringIO(""), LabelsJudge())
    >>> run.rows, run.reports
    (0, {})
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from rageval_lc.datasets.ragbench import OTHER_JUDGES, is_ragbench_row, ragbench_record
from rageval_lc.datasets.rows import sample_from_row
from rageval_lc.engine.engine import score_items
from rageval_lc.errors import error_text
from rageval_lc.files import decode_line
from rageval_lc.judges.base import Judge
from rageval_lc.judges.factory import resolve_judge
from rageval_lc.metrics.agreement import AgreementRecord, AgreementReport, judge_agreement
from rageval_lc.metrics.trace import TRACE_METRICS, TraceMode, trace_scores
from rageval_lc.reports.summary import format_table
from rageval_lc.schema import RagSample
from rageval_lc.scoring.registry import parse_metrics

__all__ = ["AgreementRun", "agreement_run", "format_agreement"]


@dataclass
class AgreementRun:
    """The agreement figures of a run: one report per judge (the chosen one first)."""

    judge: str
    rows: int = 0
    reports: dict[str, AgreementReport] = field(default_factory=dict)
    skipped: list[tuple[int, str]] = field(default_factory=list)
    undetermined: int = 0
    failed: list[tuple[int, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        return {
            "judge": self.judge,
            "rows": self.rows,
            "undetermined_rows": self.undetermined,
            "failed_rows": len(self.failed),
            "failed": [{"line": line, "reason": reason} for line, reason in self.failed],
            "skipped": [{"line": line, "reason": reason} for line, reason in self.skipped],
            "judges": {name: report.to_dict() for name, report in self.reports.items()},
        }


def agreement_run(
    lines: Iterable[str | bytes],
    judge: Judge | str | None,
    *,
    trace_mode: TraceMode = "ragbench",
    on_row: Callable[[], None] | None = None,
) -> AgreementRun:
    """Score every labelled row with ``judge`` and measure agreement with the labels.

    Rows go through the one batch loop (:func:`~rageval_lc.engine.engine.score_items`: the judge prepares
    each chunk). Lines are decoded one by one (bytes as UTF-8, a byte-order mark on line 1 dropped). Rows that cannot
    be read, or carry no labels, are skipped and listed; rows the judge leaves undetermined are counted
    and left out of the figures (never counted as 0); rows where the judge failed (any TRACe score is
    ``error``: the model could not be called, or the judge cannot label) are listed in ``failed`` with
    the reason and left out of the figures too.
    """
    judge = resolve_judge(judge)
    options = {"trace_mode": trace_mode}
    run = AgreementRun(judge=judge.name)
    ours: list[AgreementRecord] = []
    others: dict[str, list[AgreementRecord]] = {name: [] for name in OTHER_JUDGES}

    def labelled() -> Iterator[tuple[tuple[int, str, dict[str, float], dict[str, Any]], RagSample]]:
        for line_no, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(decode_line(line, line_no))
                group, truth, other, sample = _truth(row, trace_mode)
            except Exception as exc:  # one bad row must not end the run
                run.skipped.append((line_no, error_text(exc)))
                if on_row is not None:
                    on_row()
                continue
            yield (line_no, group, truth, other), sample

    for (line_no, group, truth, other), result in score_items(labelled(), parse_metrics("trace"), judge, **options):
        if on_row is not None:
            on_row()
        run.rows += 1
        predicted = result.scores()
        errors = [r.reason for m, r in result.results.items() if m in TRACE_METRICS and r.status == "error"]
        if errors:
            run.failed.append((line_no, errors[0]))
        else:
            if all(predicted.get(m) is None for m in TRACE_METRICS):
                run.undetermined += 1
            ours.append(AgreementRecord(group, predicted, truth))
        for name, columns in OTHER_JUDGES.items():
            values = {metric: other.get(column) for metric, column in columns.items()}
            if any(v is not None for v in values.values()):
                others[name].append(AgreementRecord(group, values, truth))
    if ours:
        key = "adherence_probability" if any("adherence_probability" in r.predicted for r in ours) else "adherence"
        run.reports[judge.name] = judge_agreement(ours, adherence_key=key)
    for name, records in others.items():
        if records:
            run.reports[name] = judge_agreement(records)
    return run


def _truth(row: Any, trace_mode: TraceMode) -> tuple[str, dict[str, float], dict[str, Any], RagSample]:
    """(group, true scores, other judges' columns, sample) of a labelled row, read once."""
    if isinstance(row, dict) and is_ragbench_row(row):
        record = ragbench_record(row)
        return record.dataset, record.released_scores, record.other_judges, record.sample
    sample = sample_from_row(row)
    if sample.labels is None:
        msg = "the row carries no labels to compare with"
        raise ValueError(msg)
    scores = trace_scores(sample.labels, sample.sentences, mode=trace_mode).to_dict()
    group = str(sample.metadata.get("dataset") or sample.metadata.get("dataset_name") or "all")
    return group, {m: scores[m] for m in TRACE_METRICS if scores[m] is not None}, {}, sample


def format_agreement(run: AgreementRun) -> str:
    """Readable tables: one per figure, a row per group, a column per judge."""
    tail = f"{run.rows} rows scored by {run.judge}"
    if run.failed:
        tail += f", {len(run.failed)} failed (judge errors, left out)"
    if run.undetermined:
        tail += f", {run.undetermined} undetermined (left out)"
    if run.skipped:
        tail += f", {len(run.skipped)} skipped"
    if not run.reports:
        return "No labelled rows were scored." if not run.rows else f"No figures: {tail}."
    judges = list(run.reports)
    groups = list(next(iter(run.reports.values())).groups)
    figures = [
        ("Hallucination AUROC (higher is better)", "hallucination_auroc"),
        ("Context relevance RMSE (lower is better)", "context_relevance_rmse"),
        ("Context utilization RMSE (lower is better)", "context_utilization_rmse"),
        ("Completeness RMSE (lower is better)", "completeness_rmse"),
    ]
    blocks = []
    for title, key in figures:
        rows = []
        for group in [*groups, "pooled"]:
            cells: list[Any] = [group]
            for name in judges:
                data = run.reports[name].to_dict()
                figures_of = data["pooled"] if group == "pooled" else data["groups"].get(group)
                cells.append(None if figures_of is None else figures_of.get(key))
            first = run.reports[judges[0]]
            cells.append(first.pooled.n if group == "pooled" and first.pooled else first.groups[group].n)
            rows.append(cells)
        if all(all(c is None for c in r[1:-1]) for r in rows):
            continue
        blocks.append(f"{title}\n{format_table(['group', *judges, 'rows'], rows)}")
    return "\n\n".join([*blocks, tail + "."])
