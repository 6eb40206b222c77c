"""Scoring one sample: its judgements made once and shared, each metric's maths over them.

Example:
    >>> from rageval_lc.schema import RagSample
    >>> sample = RagSample(id="q1", question="Where is Paris?", contexts=["Paris is in France. It is big."],
    ...                    response="Paris is in France.",
    ...                    labels={"all_relevant_sentence_keys": ["0a"], "all_utilized_sentence_keys": ["0a"],
    ...                            "unsupported_response_sentence_keys": []})
    >>> result = evaluate_sample(sample, ["trace"], judge="labels")
    >>> result.scores()["context_relevance"], result.scores()["adherence"]
    (0.5, 1.0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rageval_lc._validation import check_choice, check_str
from rageval_lc.datasets.inputs import to_sample
from rageval_lc.errors import error_text
from rageval_lc.judges.base import Judge
from rageval_lc.judges.factory import resolve_judge
from rageval_lc.metrics.trace import TRACE_MODES, TraceMode
from rageval_lc.schema import MetricResult, RagSample
from rageval_lc.scoring.judgements import (
    NO_CONTEXTS,
    SampleJudgements,
    ScoringMode,
    ScoringOptions,
    planned_judgements,
)
from rageval_lc.scoring.registry import MetricSpec, parse_metrics
from rageval_lc.scoring.scorers import score_metric

__all__ = ["SampleResult", "evaluate_sample", "score_sample", "scoring_options"]


class SampleResult(BaseModel):
    """The results of one sample: one :class:`MetricResult` per score, plus per-family details."""

    model_config = ConfigDict(frozen=True)

    id: str | None
    results: dict[str, MetricResult]
    details: dict[str, Any] = Field(default_factory=dict)

    def scores(self) -> dict[str, float | None]:
        """Score per metric name (None when undetermined or failed)."""
        return {name: r.score for name, r in self.results.items()}

    def to_row(self) -> dict[str, Any]:
        """The JSON object written per sample by ``rageval evaluate``."""
        return {
            "id": self.id,
            "scores": self.scores(),
            "status": {name: r.status for name, r in self.results.items()},
            "reason": {name: r.reason for name, r in self.results.items()},
            "details": self.details,
        }

    @classmethod
    def failed(cls, sample_id: str | None, metrics: Sequence[MetricSpec], error: BaseException) -> SampleResult:
        """A result whose every score is ``error``, carrying the exception's message."""
        reason = error_text(error)  # one line, a pydantic ValidationError too
        results = {
            name: MetricResult(name=name, status="error", reason=reason) for spec in metrics for name in spec.scores
        }
        details = {"error": {"type": type(error).__name__, "message": str(error)}}
        return cls(id=sample_id, results=results, details=details)


def evaluate_sample(
    sample: RagSample | Mapping[str, Any] | object,
    metrics: str | Iterable[str] = ("trace",),
    *,
    judge: Judge | str | None = None,
    trace_mode: TraceMode = "ragbench",
    relevance_normalizer: float = 20.0,
    scoring_mode: ScoringMode = "shared",
    embeddings: Any = None,
    no_contexts_reason: str = NO_CONTEXTS,
) -> SampleResult:
    """Score one sample on the given metrics, each judgement made once and shared.

    A metric that needs contexts (``needs_contexts``: TRACe, faithfulness, context precision and recall)
    is ``undetermined`` on a sample without any (none, or only blank ones), with ``no_contexts_reason``
    as its reason, and no judge is called for it; the sample's other metrics are still scored.

    Args:
        sample: the sample to score: a :class:`RagSample`, or a row or sample object as
            :func:`~rageval_lc.datasets.inputs.to_sample` reads it (our, ragas' or deepeval's field names).
        metrics: metric names from :data:`REGISTRY`, or a comma-separated string.
        judge: what labels the sample: a judge, a judge name (``"offline"``, ``"labels"``,
            ``"dspy:<model>"``), a ``dspy.LM`` or a LangChain chat model; None: the offline judge. Resolved here,
            once (:func:`~rageval_lc.judges.factory.resolve_judge`); the layers below take the judge it gives.
        trace_mode: ``"ragbench"`` or ``"capstone"`` (see :mod:`rageval_lc.metrics.trace`).
        relevance_normalizer: capstone's relevance denominator.
        scoring_mode: ``"shared"`` (at most 3 judge calls for the whole suite), ``"fused"`` (1 call) or
            ``"separate"`` (one judgement per metric); see :mod:`rageval_lc.scoring.plan`.
        embeddings: an :class:`~rageval_lc.judges.offline.embeddings.EmbeddingScorer` for the embedding metrics;
            None: the offline judge's model, else the packaged all-MiniLM-L6-v2.
        no_contexts_reason: the reason given to the context metrics' scores on a sample without
            contexts (integrations that look for retriever runs say that none was found in the run).

    Returns:
        SampleResult: one result per score; ``details[<metric>]`` per metric and ``details["judge_usage"]``
        with the calls and tokens of the sample (each judgement counted once).

    Raises:
        ValueError: If ``sample`` cannot be read as a sample (the message says what it lacks), a metric or
            mode is unknown, a field a metric requires is empty, or the judge
            cannot make a judgement a metric needs.
    """
    sample = to_sample(sample)  # before the metrics: a wrong argument is named first
    specs = parse_metrics(metrics)
    given = ScoringOptions(
        trace_mode=trace_mode,
        relevance_normalizer=relevance_normalizer,
        scoring_mode=scoring_mode,
        embeddings=embeddings,
        no_contexts_reason=no_contexts_reason,
    )
    _check_modes(given)  # before the judge is built: a wrong option is named first
    return score_sample(sample, specs, scoring_options(specs, replace(given, judge=resolve_judge(judge))))


def scoring_options(specs: Sequence[MetricSpec], given: ScoringOptions) -> ScoringOptions:
    """``given`` checked once for a run of ``specs``; for :func:`score_sample`. Its judge is one already resolved
    by the run's entry point (:func:`evaluate_sample`, :func:`~rageval_lc.engine.jsonl.evaluate_lines`,
    :func:`~rageval_lc.engine.engine.evaluate`, an adapter, the CLI): nothing below it resolves a judge again.

    Raises:
        TypeError: If the judge is a name or None rather than a judge (resolve it first:
            :func:`~rageval_lc.judges.factory.resolve_judge`).
        ValueError: If a mode is unknown or the judge cannot make a judgement a metric needs.
    """
    _check_modes(given)
    if not isinstance(given.judge, Judge):
        msg = (
            f"scoring_options expects a judge resolved by the run's entry point (resolve_judge). "
            f"Got {given.judge!r} instead."
        )
        raise TypeError(msg)
    planned_judgements(specs, given.scoring_mode, given.judge)
    return given


def score_sample(sample: RagSample, specs: Sequence[MetricSpec], options: ScoringOptions) -> SampleResult:
    """Score one sample on parsed ``specs`` with checked ``options`` (:func:`scoring_options`): what
    :func:`evaluate_sample` does after its checks, for a batch loop that makes them once.

    Example:
        >>> from rageval_lc.judges.labels import LabelsJudge
        >>> from rageval_lc.scoring.registry import parse_metrics
        >>> specs = parse_metrics("trace")
        >>> options = scoring_options(specs, ScoringOptions(judge=LabelsJudge()))
        >>> sample = RagSample(question="Q?", contexts=["A."], response="A.",
        ...                    labels={"all_relevant_sentence_keys": ["0a"]})
        >>> score_sample(sample, specs, options).scores()["context_relevance"]
        1.0

    Raises:
        TypeError: If ``sample`` is not a :class:`RagSample`.
        ValueError: If a field a metric requires is empty.
    """
    _require_sample(sample)
    for spec in specs:
        _check_requirements(sample, spec)
    ctx = SampleJudgements(sample, options)
    results: dict[str, MetricResult] = {}
    details: dict[str, Any] = {}
    for spec in specs:
        with ctx.consumer(spec.name):
            spec_results, details[spec.name] = score_metric(spec, ctx)
        results.update(spec_results)
    details["judge_usage"] = ctx.usage_summary()
    return SampleResult(id=sample.id, results=results, details=details)


def _check_modes(given: ScoringOptions) -> None:
    check_choice(given.trace_mode, TRACE_MODES, name="trace_mode", caller="evaluate_sample")
    check_str(given.no_contexts_reason, name="no_contexts_reason", caller="evaluate_sample", allow_empty=False)


def _require_sample(sample: object) -> None:
    if not isinstance(sample, RagSample):
        msg = f"Scoring expects a RagSample. Got {type(sample).__name__} instead."
        raise TypeError(msg)


def _check_requirements(sample: RagSample, spec: MetricSpec) -> None:
    for name in spec.requires:
        if not getattr(sample, name):
            who = f"sample {sample.id!r}" if sample.id is not None else "the sample"
            msg = f"The {name!r} field of {who} is empty: the {spec.name!r} metric needs it."
            raise ValueError(msg)
