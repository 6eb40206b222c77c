"""Summaries of result rows: per score, the mean over ``ok`` rows, its bootstrap 95 % interval, and the
count of each status.

Undetermined and failed rows are left out of the mean and counted, never averaged in as 0.

Example (two ok values, 1 and 0: a resample's mean is 0, 0.5 or 1 with chances 1/4, 1/2, 1/4, so the
2.5 % and 97.5 % quantiles are 0 and 1):
    >>> rows = [{"scores": {"adherence": 1.0}, "status": {"adherence": "ok"}},
    ...         {"scores": {"adherence": 0.0}, "status": {"adherence": "ok"}},
    ...         {"scores": {"adherence": None}, "status": {"adherence": "undetermined"}}]
    >>> summarize(rows)[0]
    ScoreSummary(name='adherence', mean=0.5, ok=2, undetermined=1, error=0, ci_low=0.0, ci_high=1.0)
    >>> summarize(rows, n_resamples=0)[0].ci_low is None
    True
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DEFAULT_RESAMPLES",
    "ScoreSummary",
    "format_interval",
    "format_reference_view",
    "format_summary",
    "format_table",
    "reference_view",
    "row_outcome",
    "summarize",
]

#: The reference document's names for the RAGAS / GraphRAG scores (rendered 0-100).
REFERENCE_NAMES: dict[str, str] = {
    "faithfulness": "ragas_faithfulness",
    "context_precision": "ragas_context_precision",
    "context_recall": "ragas_context_recall",
    "answer_relevance": "ragas_answer_relevance",
    "factual_accuracy": "factual_accuracy_percentage",
    "semantic_similarity": "semantic_similarity_percentage",
    "bert_score_f1": "bert_score_f1",
}


#: Bootstrap resamples of each mean unless told otherwise (as :data:`rageval_lc.reports.stats.DEFAULT_RESAMPLES`).
DEFAULT_RESAMPLES = 2000


@dataclass(frozen=True)
class ScoreSummary:
    """One score over a run: mean of the ``ok`` values, the status counts, and the mean's bootstrap
    confidence interval (``ci_low``, ``ci_high``; None without ``ok`` values or with intervals off)."""

    name: str
    mean: float | None
    ok: int
    undetermined: int
    error: int
    ci_low: float | None = None
    ci_high: float | None = None


def summarize(
    rows: Iterable[Mapping[str, Any]],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> list[ScoreSummary]:
    """Summarise result rows (as written by ``rageval evaluate``), scores in first-seen order.

    Args:
        rows: result rows (``status`` and ``scores`` per score; an ``ok`` score whose value is not a finite
            number counts as ``error``; a row without a companion score, such as ``adherence_probability``,
            counts with the status of the score it belongs to, ``undetermined`` where that one is ``ok``).
        n_resamples: bootstrap resamples of each mean (:func:`~rageval_lc.reports.stats.mean_interval`); 0 turns
            the intervals off.
        seed: the bootstrap's seed (the same rows and seed give the same interval).
        confidence: the interval's coverage.

    Raises:
        ValueError: If ``n_resamples`` is negative or ``confidence`` not between 0 and 1.
    """
    if not isinstance(n_resamples, numbers.Integral) or isinstance(n_resamples, bool) or n_resamples < 0:
        msg = f"n_resamples must be an integer >= 0 (0: no intervals). Got {n_resamples!r}."
        raise ValueError(msg)
    values: dict[str, list[float]] = {}
    counts: dict[str, dict[str, int]] = {}
    given: dict[str, None] = {}  # the scores some row holds, in first-seen order
    from rageval_lc.reports.attention import score_value
    from rageval_lc.reports.stats import mean_interval  # numpy: loaded on the first summary

    for row in rows:
        given.update(dict.fromkeys(row.get("status") or {}))
        for name, status in _statuses(row.get("status") or {}).items():
            tally = counts.setdefault(name, {"ok": 0, "undetermined": 0, "error": 0})
            values.setdefault(name, [])
            value = score_value(row, name) if status == "ok" else None
            if status == "ok" and value is None:  # ok without a usable number (NaN, text): not a score
                status = "error"
            tally[status] = tally.get(status, 0) + 1
            if value is not None:
                values[name].append(value)
    return [
        ScoreSummary(
            name,
            math.fsum(values[name]) / len(values[name]) if values[name] else None,
            counts[name]["ok"],
            counts[name]["undetermined"],
            counts[name]["error"],
            *mean_interval(values[name], n_resamples=int(n_resamples), seed=seed, confidence=confidence),
        )
        for name in given
    ]


def _statuses(status: Mapping[str, str]) -> dict[str, str]:
    """A row's statuses, with each companion score it lacks (:data:`~rageval_lc.metrics.trace.COMPANION_SCORES`)
    given the status of the score it belongs to, ``undetermined`` where that one is ``ok``; so that every score
    of a run counts every row (a failed row holds no companion, yet failed for it too).

    Example:
        >>> _statuses({"adherence": "error"}), _statuses({"adherence": "ok"})["adherence_probability"]
        ({'adherence': 'error', 'adherence_probability': 'error'}, 'undetermined')
    """
    from rageval_lc.metrics.trace import COMPANION_SCORES

    statuses = dict(status)
    for companion, score in COMPANION_SCORES.items():
        if companion not in statuses and score in statuses:
            statuses[companion] = "undetermined" if statuses[score] == "ok" else statuses[score]
    return statuses


def row_outcome(status: Mapping[str, str]) -> str:
    """A result row's outcome from its statuses: ``failed`` when any score is ``error`` (the row could not
    be read, or the judge failed), ``undetermined`` when no score is ``ok`` (nothing could be checked),
    else ``ok`` (some scores may still be undetermined, as a context recall without a reference).

    Example:
        >>> row_outcome({"a": "ok", "b": "undetermined"}), row_outcome({"a": "undetermined"})
        ('ok', 'undetermined')
        >>> row_outcome({"a": "ok", "b": "error"})
        'failed'
    """
    statuses = set(status.values())
    if "error" in statuses:
        return "failed"
    return "ok" if "ok" in statuses else "undetermined"


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Render a plain-text table; numbers are right-aligned, floats shown with 3 decimals.

    Example:
        >>> print(format_table(["metric", "mean"], [["adherence", 0.5], ["average", None]]))
        metric      mean
        ---------  -----
        adherence  0.500
        average    -
    """
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    numeric = [all(isinstance(r[i], (int, float)) or r[i] is None for r in rows) for i in range(len(headers))]

    def line(values: Sequence[str]) -> str:
        columns = zip(values, widths, numeric, strict=True)
        parts = [v.rjust(w) if num and v != "-" else v.ljust(w) for v, w, num in columns]
        return "  ".join(parts).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in cells)])


def format_summary(summaries: Sequence[ScoreSummary]) -> str:
    """Render the per-score summary table; the ``95% CI`` column when the summaries have intervals.

    Example:
        >>> print(format_summary([ScoreSummary("adherence", 0.5, 2, 1, 0, 0.0, 1.0)]))
        score       mean  95% CI          ok  undetermined  error
        ---------  -----  --------------  --  ------------  -----
        adherence  0.500  [0.000, 1.000]   2             1      0
    """
    if not any(s.ci_low is not None for s in summaries):
        return format_table(
            ["score", "mean", "ok", "undetermined", "error"],
            [[s.name, s.mean, s.ok, s.undetermined, s.error] for s in summaries],
        )
    return format_table(
        ["score", "mean", "95% CI", "ok", "undetermined", "error"],
        [[s.name, s.mean, format_interval(s.ci_low, s.ci_high), s.ok, s.undetermined, s.error] for s in summaries],
    )


def format_interval(low: float | None, high: float | None) -> str:
    """An interval as ``[low, high]`` with 3 decimals; ``-`` when there is none.

    Example:
        >>> format_interval(0.1, 0.25), format_interval(None, None)
        ('[0.100, 0.250]', '-')
    """
    return "-" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def reference_view(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The RAGAS / GraphRAG family over a run, under the reference's names and 0-100 scale.

    Each percentage is 100 × the mean over ``ok`` rows; ``ragas_score`` is the composite of those
    means, as the reference computes it per method; ``factual_accuracy_grade`` grades the mean; the counts
    come from each row's answer label (``label`` on a row, or ``details["answer_classification"]["label"]``).
    Scores absent from every row are left out.

    The composite is a number only when the run scored all four of its parts: a part scored but undetermined
    on every row is left out and the weights renormalised (as the RAGAS composite does: docs/metrics/ragas.md),
    but a part the run did not score at all would make a composite of fewer parts pass for the whole one, so then
    ``ragas_score`` is not a number but says which parts were not scored (``"not shown: context_recall,
    answer_relevance were not scored"``). It is the one composite of means here: TRACe's ``average`` and
    ``rmse_aggregation`` are row scores of one labelling pass, all four parts or none.

    Example (the reference's local_search method: context precision undetermined):
        >>> rows = [{"scores": {"faithfulness": 1.0, "context_recall": 1.0, "answer_relevance": 0.8327,
        ...                     "context_precision": None},
        ...          "status": {"faithfulness": "ok", "context_recall": "ok", "answer_relevance": "ok",
        ...                     "context_precision": "undetermined"}}]
        >>> view = reference_view(rows)
        >>> view["ragas_score"], view["ragas_context_precision"]
        (93.73, None)
        >>> reference_view([{"scores": {"faithfulness": 0.5}, "status": {"faithfulness": "ok"}}])["ragas_score"]
        'not shown: context_precision, context_recall, answer_relevance were not scored'
    """
    from rageval_lc.metrics.answer_classification import answer_counts
    from rageval_lc.metrics.factual_accuracy import grade
    from rageval_lc.metrics.ragas_score import RAGAS_WEIGHTS

    rows = list(rows)
    means = {s.name: s.mean for s in summarize(rows, n_resamples=0)}
    view: dict[str, Any] = {}
    for name, shown in REFERENCE_NAMES.items():
        if name in means:
            view[shown] = None if means[name] is None else round(100 * means[name], 2)
        parts = {p: means.get(p) for p in RAGAS_WEIGHTS}
        if name == "answer_relevance" and any(p in means for p in parts):
            view["ragas_score"] = _composite(parts, [p for p in parts if p not in means])
        if name == "factual_accuracy" and means.get(name) is not None:
            view["factual_accuracy_grade"] = grade(100 * means[name])
    labels = [_label(row) for row in rows if "answer_classification" in row.get("status", {})]
    if labels:
        view.update(answer_counts(labels))
        view["undetermined_answers_count"] = view.pop("undetermined")
    return view


def _composite(parts: Mapping[str, float | None], unscored: Sequence[str]) -> float | str | None:
    """``ragas_score`` of the parts' means on the 0-100 scale (None: none determined), or, when ``unscored`` names
    parts the run did not score, what it lacks."""
    from rageval_lc.metrics.ragas_score import ragas_score

    if unscored:
        return f"not shown: {', '.join(unscored)} {'was' if len(unscored) == 1 else 'were'} not scored"
    composite = ragas_score(parts)
    return None if composite is None else round(100 * composite, 2)


def format_reference_view(view: Mapping[str, Any]) -> str:
    """Render :func:`reference_view` as a two-column table."""
    return format_table(["reference name", "value"], [[name, value] for name, value in view.items()])


def _label(row: Mapping[str, Any]) -> str | None:
    if row.get("status", {}).get("answer_classification") != "ok":
        return None
    if "label" in row:
        return row["label"]
    return (row.get("details", {}).get("answer_classification") or {}).get("label")


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)
