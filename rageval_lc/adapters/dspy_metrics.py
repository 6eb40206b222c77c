"""Every metric as a DSPy metric function: ``metric(example, pred, trace=None, pred_name=None, pred_trace=None)``.

It returns a float when ``trace`` is None (``dspy.Evaluate``), a bool — score ≥ ``threshold`` — while
an optimizer bootstraps demonstrations (``trace`` given), and ``dspy.Prediction(score=, feedback=)``
when feedback is asked for (GEPA passes ``pred_name``; or ``feedback=True``), the feedback being the
metric's reason. The question and reference come from the example, the answer from the prediction. The
contexts are the ones the program used: the prediction's own; else the inputs of the predictor call that
made the prediction (DSPy's trace records every call: what DSPy's RAG tutorial returns,
``self.respond(context=context, question=question)``, is found so), or, in the trace an optimizer passes
while compiling, the last predictor call given some; else the example's. A metric that needs contexts and
finds none of these at its first call raises ``ValueError`` saying how to pass them; later, a score that
cannot be determined (no contexts, no reference) returns ``undetermined_score`` with a ``RuntimeWarning``
giving the reason, or says it in the feedback.

Example:
    >>> import dspy
    >>> metric = dspy_metric("answer_classification")
    >>> metric(dspy.Example(question="Capital of France?", answer="Paris"), dspy.Prediction(answer="I don't know."))
    0.0
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

from rageval_lc._lazy import import_dspy
from rageval_lc.adapters.common import FieldMap, MetricScorer, as_mapping, find_field

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
        fields: where the fields sit in the example, the prediction and the predictors' inputs (see
            :class:`FieldMap`; e.g. ``FieldMap(contexts="passages")``).
        **options: ``requests_per_minute``, ``timeout_s``, ``retries``, ``backoff_s``, ``cache_dir`` (the judge
            is wrapped as :func:`rageval_lc.evaluate` wraps it: see :class:`~rageval_lc.adapters.common.MetricScorer`),
            ``scoring_mode``, ``trace_mode``, ``embeddings``, ... (see ``evaluate_sample``).

    Raises:
        ValueError: If the metric or score name is unknown; and from the metric function, at its first call
            (and each call until one finds contexts), if the metric needs contexts and none are found.
    """
    scorer = MetricScorer(metric, judge=judge, **options)
    name = score or scorer.spec.single
    if name not in scorer.spec.scores:
        msg = f"The {metric!r} metric has no score {name!r}. It has: {', '.join(scorer.spec.scores)}."
        raise ValueError(msg)
    mapping = fields or FieldMap()
    found_once = [False]  # whether a call has found contexts: until then, finding none is an error

    def rageval_metric(
        example: Any, pred: Any, trace: Any = None, pred_name: str | None = None, pred_trace: Any = None
    ) -> Any:
        gold = example.toDict() if hasattr(example, "toDict") else dict(example)
        contexts = _contexts(mapping, gold, pred, trace)
        if contexts is not None:
            found_once[0] = True
        elif scorer.spec.needs_contexts and not found_once[0]:
            raise ValueError(_no_contexts(scorer.name, mapping, gold, pred))
        sample = mapping.sample(gold, pred, gold, contexts=contexts)
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


def _contexts(mapping: FieldMap, gold: Mapping[str, Any], pred: Any, trace: Any) -> Any:
    """The contexts the program used (the order is in the module docstring); None when none are found."""
    found = find_field(mapping.contexts, as_mapping(pred, "answer"))
    if found is None:
        found = _predictor_contexts(mapping, pred, trace)
    return find_field(mapping.contexts, gold) if found is None else found


def _predictor_contexts(mapping: FieldMap, pred: Any, trace: Any) -> Any:
    """The contexts among the inputs of the predictor call that made ``pred``: looked up in ``trace``, else (under
    ``dspy.Evaluate``, which passes none) in DSPy's own, which holds the calls of every thread — so only the call
    whose output *is* ``pred`` is read there. In a trace an optimizer passed (one example's calls), else the last
    call given contexts."""
    steps = _steps(trace if trace is not None else import_dspy().settings.trace)
    made = [inputs for inputs, output in reversed(steps) if output is pred]
    candidates = made[:1] + ([inputs for inputs, _ in reversed(steps)] if trace is not None else [])
    return next((found for inputs in candidates if (found := find_field(mapping.contexts, inputs)) is not None), None)


def _steps(trace: Any) -> list[tuple[Mapping[str, Any], Any]]:
    """``(inputs, prediction)`` of each ``(predictor, inputs, prediction)`` step of a DSPy trace."""
    steps = list(trace) if isinstance(trace, (list, tuple)) else []  # a copy: other threads append to DSPy's
    return [(s[1], s[2]) for s in steps if isinstance(s, tuple) and len(s) == 3 and isinstance(s[1], Mapping)]


def _no_contexts(metric: str, mapping: FieldMap, gold: Mapping[str, Any], pred: Any) -> str:
    source = mapping.contexts
    tried = "a function" if callable(source) else repr([source] if isinstance(source, str) else list(source))
    return (
        f"The {metric!r} DSPy metric found no contexts (tried {tried}) in the prediction (keys "
        f"{sorted(as_mapping(pred, 'answer'))!r}), in the inputs of the predictor call that made it, or in the "
        f"example (keys {sorted(gold)!r}), so every score would be undetermined. Return them in the prediction "
        "(e.g. dspy.Prediction(context=context, response=pred.response)), return the predictor's own prediction, "
        "put them in the example, or say where they are with fields=FieldMap(contexts=...)."
    )
