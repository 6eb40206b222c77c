"""What a score function returns, built the same way by every metric: results (:func:`ok`, :func:`missing`,
:func:`undetermined`) and the metric's details (:func:`details_of`).

Example:
    >>> ok("faithfulness", 1.2, "All claims supported.").score  # clipped to [0, 1]
    1.0
    >>> undetermined(("context_recall",), NEEDS_REFERENCE)["context_recall"].status
    'undetermined'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rageval_lc.schema import MetricResult

if TYPE_CHECKING:
    from rageval_lc.metrics.spec import Judgements

__all__ = ["NEEDS_REFERENCE", "details_of", "missing", "ok", "undetermined"]

#: The reason of a metric that needs a reference answer on a sample without one.
NEEDS_REFERENCE = "Needs a reference answer; the sample has none."


def ok(name: str, score: float, reason: str, **details: Any) -> MetricResult:
    """A determined result, its score clipped to [0, 1]."""
    return MetricResult(name=name, score=min(1.0, max(0.0, score)), reason=reason, details=details)


def missing(names: tuple[str, ...], judgement: Any) -> dict[str, MetricResult]:
    """Results for a judgement that gave no verdict: its status (undetermined or error) and reason."""
    status = "error" if judgement.status == "error" else "undetermined"
    return {name: MetricResult(name=name, status=status, reason=judgement.reason) for name in names}


def undetermined(names: tuple[str, ...], reason: str) -> dict[str, MetricResult]:
    """Results for scores that cannot be determined, with the reason."""
    return {name: MetricResult(name=name, status="undetermined", reason=reason) for name in names}


def details_of(ctx: Judgements, metric: str, judgement: Any = None, **extra: Any) -> dict[str, Any]:
    """A metric's details: the judge, the scoring mode, the judgements it consumed and their usage; the
    judge's notes on ``judgement`` and, when it failed, its raw output; then ``extra``."""
    details: dict[str, Any] = {
        "judge": ctx.judge.name,
        "scoring_mode": ctx.mode,
        "judgements": ctx.consumed(metric),
        "usage": ctx.usage_of(metric).to_dict(),
    }
    if judgement is not None:
        if judgement.notes:
            details["judge_notes"] = judgement.notes
        if not judgement.ok and judgement.raw is not None:
            details["raw_output"] = judgement.raw
    return {**details, **extra}
