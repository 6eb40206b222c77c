"""Every metric as a LangChain string evaluator and Runnable, on langchain-core alone.

:class:`RagEvaluator` follows LangChain's ``StringEvaluator`` convention — ``evaluate_strings`` /
``aevaluate_strings`` with ``prediction``, ``reference`` and ``input``, plus ``contexts`` — and is a
``Runnable`` over dicts with ``question``, ``contexts``, ``response`` and ``reference``: ``invoke``,
``batch``, ``ainvoke`` and ``abatch`` work, and callbacks and tracing propagate (each evaluation is a
child run named ``rageval:<metric>``).

Example:
    >>> from rageval_lc.adapters.langchain import RagEvaluator
    >>> evaluator = RagEvaluator("answer_classification")
    >>> evaluator.evaluate_strings(prediction="I don't know.", reference="Paris", input="Capital of France?")["value"]
    "DON'T KNOW"
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from langchain_core.runnables import Runnable, RunnableConfig

from rageval_lc.adapters.common import FieldMap, MetricScorer
from rageval_lc.schema import RagSample
from rageval_lc.scoring.sample import SampleResult

__all__ = ["VALUE_BANDS", "RagEvaluator", "evaluation_dict", "verdict"]


#: The word a score gets in LangChain's ``value`` (:func:`verdict`), from the highest band down: a score at or
#: above a band's floor gets its word.
VALUE_BANDS: tuple[tuple[float, str], ...] = ((0.8, "high"), (0.5, "medium"), (0.0, "low"))


def verdict(score: float) -> str:
    """The verdict in words of a score in [0, 1], higher is better (every registry metric's): ``"high"``
    (>= 0.8), ``"medium"`` (>= 0.5) or ``"low"``.

    Example:
        >>> [verdict(s) for s in (1.0, 0.8, 0.79, 0.5, 0.49, 0.0)]
        ['high', 'high', 'medium', 'medium', 'low', 'low']
    """
    return next((word for floor, word in VALUE_BANDS if score >= floor), VALUE_BANDS[-1][1])


def evaluation_dict(scorer: MetricScorer, result: SampleResult) -> dict[str, Any]:
    """The evaluator's answer, as LangChain's string evaluators give it, and more.

    Keys: ``score`` (the metric's score in [0, 1], higher is better; None when undetermined or failed);
    ``value``, the verdict in words — the metric's own label where it gives one (``answer_classification``:
    ``CORRECT``, ``WRONG``, ``DON'T KNOW``; ``factual_accuracy``: its grade, ``A`` to ``E``), else the score's
    band (:func:`verdict`: ``high`` >= 0.8, ``medium`` >= 0.5, ``low``), and ``undetermined`` or ``error``
    when there is no score; ``reasoning`` (why); ``status`` (``ok``, ``undetermined`` or ``error``); every
    score (``scores``) with its status and reason (``results``); the metric's ``details``.
    """
    single = scorer.single(result)
    label = single.details.get("label") or single.details.get("grade")
    if single.score is not None and label is None:
        label = verdict(single.score)
    return {
        "score": single.score,
        "value": single.status if single.score is None else label,  # an ok result always has a score
        "reasoning": single.reason,
        "status": single.status,
        "scores": result.scores(),
        "results": {name: r.model_dump(exclude={"name"}) for name, r in result.results.items()},
        "details": result.details,
    }


class RagEvaluator(Runnable[dict, dict]):
    """One rageval metric as a LangChain evaluator and Runnable.

    Args:
        metric: the metric (``faithfulness``, ``trace``, ``context_precision``, ...).
        judge: None (the offline judge), a judge name (``"dspy:openai/gpt-4o-mini"``), a judge,
            a ``dspy.LM`` or a LangChain chat model.
        fields: where ``invoke`` finds the fields in its input dict (default: ``question``, ``contexts``,
            ``response``/``answer``, ``reference``).
        **options: ``requests_per_minute``, ``timeout_s``, ``retries``, ``backoff_s``, ``cache_dir`` (the judge
            is wrapped as :func:`rageval_lc.evaluate` wraps it: see :class:`~rageval_lc.adapters.common.MetricScorer`),
            ``scoring_mode``, ``trace_mode``, ``embeddings``, ... (see ``evaluate_sample``).
    """

    def __init__(
        self, metric: str = "faithfulness", *, judge: Any = None, fields: FieldMap | None = None, **options: Any
    ) -> None:
        self.scorer = MetricScorer(metric, judge=judge, **options)
        self.fields = fields or FieldMap()

    # --- the StringEvaluator convention ----------------------------------------------------------

    @property
    def evaluation_name(self) -> str:
        """The metric's name."""
        return self.scorer.name

    @property
    def requires_input(self) -> bool:
        """Every metric needs the question."""
        return True

    @property
    def requires_reference(self) -> bool:
        """Whether the metric needs a reference answer (it is undetermined without one)."""
        return self.scorer.spec.needs_reference

    def evaluate_strings(
        self,
        *,
        prediction: str,
        reference: str | None = None,
        input: str | None = None,
        contexts: list[Any] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Score ``prediction`` (the answer) to ``input`` (the question) against ``contexts`` and ``reference``.

        Returns the keys of :func:`evaluation_dict`: ``score``, ``value`` (the verdict in words: the metric's
        label, else ``high``/``medium``/``low`` from the score, else ``undetermined``/``error``), ``reasoning``,
        ``status``, ``scores``, ``results``, ``details``.

        Without ``contexts`` (or with only blank ones) a metric that needs them (TRACe, faithfulness,
        context precision and recall) is ``undetermined``: ``score`` None, ``value`` and ``status``
        ``undetermined``, the reason in ``reasoning``.

        Raises:
            ValueError: If ``input`` is missing, or ``reference`` is missing for a metric that needs it.
        """
        sample = self._sample(prediction, reference, input, contexts)
        return evaluation_dict(self.scorer, self.scorer.score(sample))

    async def aevaluate_strings(self, **kwargs: Any) -> dict[str, Any]:
        """:meth:`evaluate_strings` (the same keyword arguments) off the event loop (judge calls block)."""
        return await asyncio.to_thread(functools.partial(self.evaluate_strings, **kwargs))

    def _sample(self, prediction: Any, reference: Any, question: Any, contexts: Any) -> RagSample:
        if question is None:
            msg = f"The {self.scorer.name!r} evaluator requires input (the question)."
            raise ValueError(msg)
        if reference is None and self.requires_reference:
            msg = f"The {self.scorer.name!r} evaluator requires a reference answer."
            raise ValueError(msg)
        inputs = {"question": question}
        outputs = {"answer": prediction, "contexts": contexts}
        return FieldMap().sample(inputs, outputs, None if reference is None else {"reference": reference})

    # --- Runnable ----------------------------------------------------------------------------------

    def invoke(self, input: dict, config: RunnableConfig | None = None, **kwargs: Any) -> dict:
        """Score one dict (``question``, ``contexts``, ``response``, optional ``reference``) as a child run."""
        return self._call_with_config(self._evaluate_dict, input, config, run_type="chain")

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        """``rageval:<metric>`` (the name of the evaluation's run)."""
        return name or f"rageval:{self.scorer.name}" + (suffix or "")

    def _evaluate_dict(self, value: dict) -> dict:
        if not isinstance(value, dict):
            msg = f"RagEvaluator.invoke expects a dict with question, contexts, response. Got {type(value).__name__}."
            raise TypeError(msg)
        # in one flat dict the answer keys name the response, not the reference
        references = {k: v for k, v in value.items() if k not in _RESPONSE_KEYS}
        sample = self.fields.sample(value, value, references, sample_id=value.get("id"))
        return evaluation_dict(self.scorer, self.scorer.score(sample))


_RESPONSE_KEYS = frozenset(FieldMap().response)
