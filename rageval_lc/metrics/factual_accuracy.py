"""GEval factual accuracy (definition: docs/metrics/ragas.md, "Definitions"): the answer against the reference.

Factual accuracy = 0.5 correctness + 0.3 completeness + 0.2 consistency (each 0–100 from the judge's
``accuracy`` verdict), graded A ≥ 80, B ≥ 60, C ≥ 40, D ≥ 20, else E. A criterion the judge could not assess
is left out and the weights renormalised over the others. The score is the percentage / 100.

Example:
    >>> factual_accuracy(100, 90, 80), grade(factual_accuracy(100, 90, 80))
    (93.0, 'A')
"""

from __future__ import annotations

import math

from rageval_lc.metrics.results import NEEDS_REFERENCE, details_of, missing, ok, undetermined
from rageval_lc.metrics.spec import Judgements, MetricSpec, Scored
from rageval_lc.schema import MetricResult

__all__ = ["GEVAL_WEIGHTS", "METRIC", "factual_accuracy", "grade", "score_factual_accuracy"]

GEVAL_WEIGHTS: dict[str, float] = {"correctness": 0.5, "completeness": 0.3, "consistency": 0.2}


def factual_accuracy(correctness: float | None, completeness: float | None, consistency: float | None) -> float | None:
    """The weighted 0–100 score over the criteria given (renormalised); None when none is given.

    Example (consistency not assessable: (0.5 × 80 + 0.3 × 60) / 0.8):
        >>> factual_accuracy(80, 60, None)
        72.5
    """
    values = {"correctness": correctness, "completeness": completeness, "consistency": consistency}
    present = {k: float(v) for k, v in values.items() if v is not None}
    if not present:
        return None
    total = math.fsum(GEVAL_WEIGHTS[k] for k in present)
    return round(math.fsum(GEVAL_WEIGHTS[k] * v for k, v in present.items()) / total, 10)


def grade(score: float) -> str:
    """The letter grade of a 0–100 factual-accuracy score.

    Example:
        >>> [grade(s) for s in (80, 79.99, 60, 40, 20, 19.99)]
        ['A', 'B', 'B', 'C', 'D', 'E']
    """
    for threshold, letter in ((80, "A"), (60, "B"), (40, "C"), (20, "D")):
        if score >= threshold:
            return letter
    return "E"


def score_factual_accuracy(ctx: Judgements) -> Scored:
    """GEval: 0.5 correctness + 0.3 completeness + 0.2 consistency, with its grade A-E."""
    if not ctx.has_reference:
        return undetermined(("factual_accuracy",), NEEDS_REFERENCE), details_of(ctx, "factual_accuracy")
    verdict = ctx.accuracy()
    if not verdict.ok:
        return missing(("factual_accuracy",), verdict), details_of(ctx, "factual_accuracy", verdict)
    v = verdict.value
    percentage = factual_accuracy(v.correctness, v.completeness, v.consistency)
    criteria = {"correctness": v.correctness, "completeness": v.completeness, "consistency": v.consistency}
    if percentage is None:
        result = MetricResult(name="factual_accuracy", status="undetermined", reason="No criterion was assessed.")
        return {"factual_accuracy": result}, details_of(ctx, "factual_accuracy", verdict, criteria=criteria)
    letter = grade(percentage)
    shown = ", ".join(f"{k} {val:.0f}" for k, val in criteria.items() if val is not None)
    reason = f"{percentage:.1f}/100, grade {letter} ({shown}). {v.overall_reason or v.correctness_reason}".strip()
    result = ok("factual_accuracy", percentage / 100, reason, percentage=percentage, grade=letter, criteria=criteria)
    reasons = {
        "correctness": v.correctness_reason,
        "completeness": v.completeness_reason,
        "consistency": v.consistency_reason,
    }
    details = details_of(ctx, "factual_accuracy", verdict, grade=letter, criteria=criteria, criteria_reasons=reasons)
    return {"factual_accuracy": result}, details


METRIC = MetricSpec(
    "factual_accuracy",
    ("factual_accuracy",),
    "GEval: 0.5 correctness + 0.3 completeness + 0.2 consistency against the reference; grade A-E.",
    score_factual_accuracy,
    needs_reference=True,
    answer_scores=("factual_accuracy",),
    verdicts=("accuracy",),
)
