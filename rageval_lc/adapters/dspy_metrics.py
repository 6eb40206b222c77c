"""Every metric as a DSPy metric function: ``metric(example, pred, trace=None, pred_name=None, pred_trace=None)``.

It returns a float when ``trace`` is None (``dspy.Evaluate``), a bool — score ≥ ``threshold`` — while
an optimizer bootstraps demonstrations (``trace`` given), and ``dspy.Prediction(score=, feedback=)``
when feedback is asked for (GEPA passes ``pred_name``; or ``feedback=True``), the feedback being the
metric's reason. The question and reference come from the example, the answer and contexts from the
prediction (the contexts from the example when the prediction has none). Without contexts a metric that
needs them is undetermined: the metric returns ``undetermined_score`` with a ``RuntimeWarning`` giving the
reason, or says it in the feedback.

Example:
    >>> import dspy
    >>> metric = dspy_metric("answer_classification")
    >>> metric(dspy.Example(question="Capital of France?", answer="Paris"), dspy.Prediction(answer="I don't know."))
    0.0
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from rageval_lc._lazy import import_dspy
from rageval_lc.adapters.common import FieldMap, MetricScorer

__all__ = ["dspy_metric"]


def dspy_metric(
    metric: str,
    *,
    judge: Any = None,
    score: str | None = None,
    threshold: float = 0.5,
    feedback: bool = False,
    undetermined_score: float = 0.0,
    fields: FieldMap | None = None,
    **options: Any,
) -> Callable[..., Any]:
    """A DSPy metric function for ``metric``.

    Args:
        metric: the metric name (``faithfulness``, ``trace``, ...).
        judge: see :func:`~rageval_lc.judges.factory.resolve_judge` (None: the offline judge).
        score: which of the metric's scores to return (default: the one that stands for it, e.g. TRACe's
            ``average``).
        threshold: the pass mark while bootstrapping.
        feedback: always return ``dspy.Prediction(score=, feedback=)``.
        undetermined_score: the number DSPy gets when the score is undetermined (no contexts, no
            reference, unusable judge output) or failed — optimizers need a number. It is never passed
            off as a score: the feedback says why, and the float and bool forms warn
            (``RuntimeWarning``, with the reason).
        fields: where the fields sit in the example and the prediction (see :class:`FieldMap`).
        **options: ``requests_per_minute``, ``timeout_s``, ``retries``, ``backoff_s``, ``cache_dir`` (the judge
            is wrapped as :func:`rageval_lc.evaluate` wraps it: see :class:`~rageval_lc.adapters.common.MetricScorer`),
            ``scoring_mode``, ``trace_mode``, ``embeddings``, ... (see ``evaluate_sample``).

    Raises:
        ValueError: If the metric or score name is unknown.
    """
    scorer = MetricScorer(metric, judge=judge, **options)
    name = score or scorer.spec.single
    if name not in scorer.spec.scores:
        msg = f"The {metric!r} metric has no score {name!r}. It has: {', '.join(scorer.spec.scores)}."
        raise ValueError(msg)
    mapping = fields or FieldMap()

    def rageval_metric(
        example: Any, pred: Any, trace: Any = None, pred_name: str | None = None, pred_trace: Any = None
    ) -> Any:
        sample = _sample(mapping, example, pred)
        outcome = scorer.score(sample).results[name]
        value = outcome.score if outcome.score is not None else undetermined_score
        if feedback or pred_name is not None:
            dspy = import_dspy()
            text = outcome.comment if outcome.status == "ok" else f"{name} {outcome.comment}"
            return dspy.Prediction(score=value, feedback=text)
        if outcome.score is None:  # a number is needed: say that it stands for no score
            warnings.warn(
                f"{name} {outcome.comment} The DSPy metric returns "
                f"undetermined_score={undetermined_score!r}, which is not a score.",
                RuntimeWarning,
                stacklevel=2,
            )
        return value if trace is None else value >= threshold

    rageval_metric.__name__ = rageval_metric.__qualname__ = f"rageval_{scorer.name}"
    return rageval_metric


def _sample(mapping: FieldMap, example: Any, pred: Any) -> Any:
    gold = example.toDict() if hasattr(example, "toDict") else dict(example)
    return mapping.sample(gold, pred, gold)  # contexts: the prediction's, else the example's
