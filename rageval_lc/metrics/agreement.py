"""Judge agreement in RAGBench's convention: RMSE for the graded metrics, AUROC for hallucination.

Each record pairs a judge's prediction with the labels for one sample, in a group (a sub-dataset).
Relevance, utilization and completeness are compared by RMSE; hallucination detection by AUROC, where
the label is "not adherent" (truth adherence == 0) and the score is 1 − predicted adherence (so a
calibrated adherence probability ranks better than a 0/1 verdict). Figures come per group and pooled
over all records.

Example:
    >>> records = [
    ...     AgreementRecord("a", {"context_relevance": 0.2, "adherence": 0.9},
    ...                     {"context_relevance": 0.1, "adherence": 1}),
    ...     AgreementRecord("a", {"context_relevance": 0.5, "adherence": 0.2},
    ...                     {"context_relevance": 0.5, "adherence": 0}),
    ... ]
    >>> report = judge_agreement(records)
    >>> round(report.pooled.rmse["context_relevance"], 4), report.pooled.hallucination_auroc
    (0.0707, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rageval_lc.metrics.aggregation import TRACE_METRIC_NAMES

__all__ = [
    "AgreementRecord",
    "AgreementReport",
    "GroupAgreement",
    "auroc",
    "balanced_accuracy",
    "judge_agreement",
    "rmse",
]

#: The TRACe scores graded against the truth by RMSE (adherence is judged by AUROC instead).
GRADED_METRICS: tuple[str, ...] = TRACE_METRIC_NAMES[:3]


def rmse(predicted: Sequence[float], truth: Sequence[float]) -> float:
    """Return sqrt(mean((p − t)²)).

    Raises:
        ValueError: If the sequences are empty or differ in length.

    Example:
        >>> rmse([0.5, 0.0], [0.25, 0.25])
        0.25
    """
    if len(predicted) != len(truth) or not predicted:
        msg = f"rmse needs two non-empty sequences of one length. Got {len(predicted)} and {len(truth)}."
        raise ValueError(msg)
    return math.sqrt(math.fsum((p - t) ** 2 for p, t in zip(predicted, truth, strict=True)) / len(predicted))


def balanced_accuracy(predicted: Sequence[bool], truth: Sequence[bool]) -> float | None:
    """Return the mean of the hit rates on the rows of each label (None without rows).

    Example:
        >>> balanced_accuracy([True, True, False, True], [True, True, False, False])
        0.75
    """
    if len(predicted) != len(truth):
        msg = f"balanced_accuracy needs one verdict per label. Got {len(predicted)} and {len(truth)}."
        raise ValueError(msg)
    rates = []
    for label in (True, False):
        rows = [bool(p) for p, t in zip(predicted, truth, strict=True) if bool(t) == label]
        if rows:
            rates.append(sum(p == label for p in rows) / len(rows))
    return sum(rates) / len(rates) if rates else None


def auroc(labels: Sequence[bool | int], scores: Sequence[float]) -> float | None:
    """Return the area under the ROC curve, or None when only one class is present.

    Computed as the Mann-Whitney statistic with average ranks for ties, so it equals
    ``sklearn.metrics.roc_auc_score``.

    Example:
        >>> auroc([1, 0, 1, 0], [0.9, 0.1, 0.4, 0.4])
        0.875
    """
    if len(labels) != len(scores):
        msg = f"auroc needs one score per label. Got {len(labels)} labels and {len(scores)} scores."
        raise ValueError(msg)
    positives = sum(1 for y in labels if y)
    negatives = len(labels) - positives
    if positives == 0 or negatives == 0:
        return None
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        average_rank = (i + j) / 2 + 1
        for k in range(i, j + 1):
            ranks[order[k]] = average_rank
        i = j + 1
    rank_sum = math.fsum(r for r, y in zip(ranks, labels, strict=True) if y)
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


@dataclass(frozen=True)
class AgreementRecord:
    """One sample: its group, a judge's predicted scores and the labelled (true) scores."""

    group: str
    predicted: Mapping[str, Any]
    truth: Mapping[str, Any]


@dataclass(frozen=True)
class GroupAgreement:
    """Agreement figures for one group (or all records pooled).

    ``rmse`` and ``hallucination_auroc`` are None where they cannot be computed (no pairs; one class only).
    """

    n: int
    rmse: dict[str, float | None]
    rmse_count: dict[str, int]
    hallucination_auroc: float | None
    auroc_count: int
    hallucinated: int

    def to_dict(self) -> dict[str, Any]:
        """Return the figures as plain JSON-ready data."""
        return {
            "n": self.n,
            **{f"{m}_rmse": v for m, v in self.rmse.items()},
            "hallucination_auroc": self.hallucination_auroc,
            "auroc_n": self.auroc_count,
            "hallucinated": self.hallucinated,
            "rmse_n": dict(self.rmse_count),
        }


@dataclass(frozen=True)
class AgreementReport:
    """Per-group and pooled agreement of one judge with the labels."""

    groups: dict[str, GroupAgreement] = field(default_factory=dict)
    pooled: GroupAgreement | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the report as plain JSON-ready data."""
        return {
            "groups": {g: a.to_dict() for g, a in self.groups.items()},
            "pooled": self.pooled.to_dict() if self.pooled else None,
        }


def judge_agreement(
    records: Iterable[AgreementRecord],
    *,
    metrics: Sequence[str] = GRADED_METRICS,
    adherence_key: str = "adherence",
) -> AgreementReport:
    """Compare a judge with labels per group and pooled.

    Args:
        records: the samples to compare. A metric missing (absent or None) on either side of a record
            is left out of that metric's figures.
        metrics: the graded metrics compared by RMSE.
        adherence_key: the predicted field used as adherence for AUROC (e.g. ``"adherence_probability"``).

    Returns:
        AgreementReport: groups in first-seen order, and the pooled figures.
    """
    by_group: dict[str, list[AgreementRecord]] = {}
    everything: list[AgreementRecord] = []
    for record in records:
        by_group.setdefault(record.group, []).append(record)
        everything.append(record)
    groups = {g: _agreement(rs, metrics, adherence_key) for g, rs in by_group.items()}
    return AgreementReport(groups=groups, pooled=_agreement(everything, metrics, adherence_key))


def _agreement(records: list[AgreementRecord], metrics: Sequence[str], adherence_key: str) -> GroupAgreement:
    errors: dict[str, float | None] = {}
    counts: dict[str, int] = {}
    for metric in metrics:
        pairs = [(_as_float(r.predicted.get(metric)), _as_float(r.truth.get(metric))) for r in records]
        pairs = [(p, t) for p, t in pairs if p is not None and t is not None]
        counts[metric] = len(pairs)
        errors[metric] = rmse([p for p, _ in pairs], [t for _, t in pairs]) if pairs else None
    labels: list[bool] = []
    scores: list[float] = []
    for r in records:
        predicted, true = _as_float(r.predicted.get(adherence_key)), _as_float(r.truth.get("adherence"))
        if predicted is None or true is None:
            continue
        labels.append(true == 0.0)
        scores.append(1.0 - predicted)
    return GroupAgreement(
        n=len(records),
        rmse=errors,
        rmse_count=counts,
        hallucination_auroc=auroc(labels, scores),
        auroc_count=len(labels),
        hallucinated=sum(labels),
    )


def _as_float(value: Any) -> float | None:
    """A metric value as float; None (or NaN, how other judges' columns mark a gap) means missing."""
    if value is None:
        return None
    if not isinstance(value, (bool, int, float)):
        msg = f"judge_agreement expects numeric scores. Got {type(value).__name__} ({value!r})."
        raise TypeError(msg)
    number = float(value)
    return number if math.isfinite(number) else None
