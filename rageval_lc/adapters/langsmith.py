"""Every metric as a LangSmith evaluator function, in both forms ``langsmith.evaluate`` accepts.

``langsmith_evaluator(metric)`` returns ``f(inputs, outputs, reference_outputs)``;
``langsmith_evaluator(metric, form="run")`` returns ``f(run, example)``, which takes the contexts from the
documents of the run's retriever runs (``run.child_runs``, nested ones included), else from the run's
outputs or inputs. Either returns ``{"key", "score", "comment"}`` — or ``{"results": [...]}`` for a
metric with several headline scores (TRACe's four, context precision's two, BERTScore's three). An
undetermined score is None with the reason as comment (a context metric without contexts is one). The
langsmith package is not needed to build or call them.

Example:
    >>> evaluator = langsmith_evaluator("answer_classification")
    >>> evaluator({"question": "Capital of France?"}, {"answer": "I don't know."}, {"answer": "Paris"})["score"]
    0.0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from rageval_lc.adapters.common import NO_CONTEXTS_IN_RUN, FieldMap, MetricScorer, retrieved_documents
from rageval_lc.scoring.sample import SampleResult

__all__ = ["feedback_results", "langsmith_evaluator"]


def feedback_results(scorer: MetricScorer, result: SampleResult) -> dict[str, Any]:
    """LangSmith's evaluation-result shape for one metric's results."""
    items = [r.feedback() for r in scorer.headlines(result)]
    return items[0] if len(items) == 1 else {"results": items}


def langsmith_evaluator(
    metric: str,
    *,
    judge: Any = None,
    form: Literal["outputs", "run"] = "outputs",
    fields: FieldMap | None = None,
    **options: Any,
) -> Callable[..., dict[str, Any]]:
    """A LangSmith evaluator function for ``metric``.

    Args:
        metric: the metric name.
        judge: see :func:`~rageval_lc.judges.factory.resolve_judge` (None: the offline judge).
        form: ``"outputs"`` for ``(inputs, outputs, reference_outputs)``, ``"run"`` for ``(run, example)``.
        fields: where the question, contexts, answer and reference sit (see :class:`FieldMap`).
        **options: ``requests_per_minute``, ``timeout_s``, ``retries``, ``backoff_s``, ``cache_dir`` (the judge
            is wrapped as :func:`rageval_lc.evaluate` wraps it: see :class:`~rageval_lc.adapters.common.MetricScorer`),
            ``scoring_mode``, ``trace_mode``, ``embeddings``, ... (see ``evaluate_sample``).

    Raises:
        ValueError: If the metric or the form is unknown.
    """
    scorer = MetricScorer(metric, judge=judge, **options)
    mapping = fields or FieldMap()

    def evaluate_outputs(inputs: dict, outputs: dict, reference_outputs: dict | None = None) -> dict[str, Any]:
        return feedback_results(scorer, scorer.score(mapping.sample(inputs, outputs, reference_outputs)))

    def evaluate_run(run: Any, example: Any = None) -> dict[str, Any]:
        inputs = getattr(example, "inputs", None) or getattr(run, "inputs", None) or {}
        reference = getattr(example, "outputs", None) if example is not None else None
        documents = retrieved_documents(run) or None  # else the contexts are looked up in the outputs / inputs
        outputs = getattr(run, "outputs", None) or {}
        sample = mapping.sample(inputs, outputs, reference, sample_id=_run_id(run), contexts=documents)
        return feedback_results(scorer, scorer.score(sample, no_contexts_reason=NO_CONTEXTS_IN_RUN))

    if form == "outputs":
        chosen: Callable[..., dict[str, Any]] = evaluate_outputs
    elif form == "run":
        chosen = evaluate_run
    else:
        msg = f"form must be 'outputs' or 'run'. Got {form!r}."
        raise ValueError(msg)
    chosen.__name__ = chosen.__qualname__ = f"rageval_{scorer.name}"
    chosen.__doc__ = f"rageval_lc {scorer.name} ({scorer.spec.description})"
    return chosen


def _run_id(run: Any) -> str | None:
    run_id = getattr(run, "id", None)
    return None if run_id is None else str(run_id)
