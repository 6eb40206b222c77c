"""Scoring one metric of a sample: :func:`score_metric` (the evidence rules, then the metric's own score function,
which lives in the metric's module under :mod:`rageval_lc.metrics`), and the score functions of the metrics of
one's own that :mod:`rageval_lc.scoring.custom` builds: :func:`score_criteria` (a rubric the judge applies) and
:func:`score_function` (a function of the sample).

Each score function takes the sample's :class:`~rageval_lc.scoring.judgements.SampleJudgements` and returns one
:class:`~rageval_lc.schema.MetricResult` per score name and the metric's details; nothing here calls a model
directly.

Example:
    >>> from rageval_lc.schema import RagSample
    >>> from rageval_lc.scoring.judgements import SampleJudgements, ScoringOptions
    >>> from rageval_lc.scoring.registry import REGISTRY
    >>> sample = RagSample(question="Q?", contexts=["A."], response="I don't know.", reference="A.")
    >>> results, details = score_metric(REGISTRY["answer_classification"], SampleJudgements(sample, ScoringOptions()))
    >>> results["answer_classification"].details["label"], details["usage"]["calls"]
    ("DON'T KNOW", 0)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from rageval_lc.metrics.results import NEEDS_REFERENCE, details_of, missing, ok, undetermined
from rageval_lc.metrics.spec import Scored, score_metric
from rageval_lc.schema import MetricResult
from rageval_lc.scoring.judgements import SampleJudgements
from rageval_lc.verdicts import CriteriaDefinition

__all__ = ["score_criteria", "score_function", "score_metric"]


def _lacking(ctx: SampleJudgements, uses: tuple[str, ...]) -> str | None:
    """Why a metric of one's own reading ``uses`` cannot be scored on the sample (contexts are decided in
    :func:`score_metric`), or None."""
    if "reference" in uses and not ctx.has_reference:
        return NEEDS_REFERENCE
    if "response" in uses and not ctx.sample.response.strip():
        return "Needs a response; the sample's is empty."
    return None


def score_criteria(definition: CriteriaDefinition, ctx: SampleJudgements) -> Scored:
    """A criteria metric: the judge's rubric level rescaled to [0, 1], with its reason (one call of its own;
    undetermined with a judge that cannot judge criteria, or without a field it uses)."""
    name = definition.name
    lacking = _lacking(ctx, definition.uses)
    if lacking:
        return undetermined((name,), lacking), details_of(ctx, name)
    verdict = ctx.criteria(definition)
    if not verdict.ok:
        return missing((name,), verdict), details_of(ctx, name, verdict)
    v = verdict.value
    levels = definition.levels
    reason = f"Rubric level {v.level:g} of {levels[0]:g}-{levels[-1]:g} ({definition.rubric[v.level]})"
    reason += f": {v.reason}" if v.reason else "."
    result = ok(name, v.score, reason, level=v.level)
    return {name: result}, details_of(ctx, name, verdict, level=v.level, criteria=definition.criteria)


def score_function(name: str, fn: Callable[[Any], Any], uses: tuple[str, ...], ctx: SampleJudgements) -> Scored:
    """A function metric: ``fn(sample)`` gives a float in [0, 1], a ``(float, reason)`` pair or a
    :class:`~rageval_lc.schema.MetricResult`. An exception, or a value that is none of these (a number outside
    [0, 1], NaN, a bool), makes an ``error`` result saying so; no judge is called.

    Example:
        >>> from rageval_lc.schema import RagSample
        >>> from rageval_lc.scoring.judgements import ScoringOptions
        >>> ctx = SampleJudgements(RagSample(question="Q?", contexts=[], response="Yes."), ScoringOptions())
        >>> score_function("short", lambda s: (1.0, "brief"), ("response",), ctx)[0]["short"].score
        1.0
        >>> score_function("short", lambda s: 2, ("response",), ctx)[0]["short"].reason
        "The 'short' metric's function returned 2: not a score in [0, 1] (a float, (float, reason) or a MetricResult)."
    """
    lacking = _lacking(ctx, uses)
    if lacking:
        return undetermined((name,), lacking), details_of(ctx, name)
    try:
        value = fn(ctx.sample)
    except Exception as exc:  # the user's code: its failure is this metric's, not the row's
        reason = f"The {name!r} metric's function raised {type(exc).__name__}: {exc}"
        error = {"type": type(exc).__name__, "message": str(exc)}
        return {name: MetricResult(name=name, status="error", reason=reason)}, details_of(ctx, name, error=error)
    result = _function_result(name, value)
    return {name: result}, details_of(ctx, name, function=getattr(fn, "__qualname__", repr(fn)))


def _function_result(name: str, value: Any) -> MetricResult:
    if isinstance(value, MetricResult):
        if value.score is not None and not 0.0 <= value.score <= 1.0:
            return _bad_value(name, value.score)
        return value.model_copy(update={"name": name})
    score, reason = value if isinstance(value, tuple) and len(value) == 2 else (value, None)
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0.0 <= score <= 1.0 or math.isnan(score):
        return _bad_value(name, value)
    if reason is not None and not isinstance(reason, str):
        return _bad_value(name, value)
    return MetricResult(name=name, score=float(score), reason=reason or f"Scored by the {name!r} metric's function.")


def _bad_value(name: str, value: Any) -> MetricResult:
    reason = (
        f"The {name!r} metric's function returned {value!r}: not a score in [0, 1] "
        "(a float, (float, reason) or a MetricResult)."
    )
    return MetricResult(name=name, status="error", reason=reason)
