"""The metric registry, and scoring one sample: a judge's labels through the metric maths.

Every metric the CLI and the adapters know is one :class:`MetricSpec` in :data:`REGISTRY`; nothing
lists metrics by hand elsewhere.

Example:
    >>> from rageval_lc.schema import RagSample
    >>> sample = RagSample(id="q1", question="Where is Paris?", contexts=["Paris is in France. It is big."],
    ...                    response="Paris is in France.",
    ...                    labels={"all_relevant_sentence_keys": ["0a"], "all_utilized_sentence_keys": ["0a"],
    ...                            "unsupported_response_sentence_keys": []})
    >>> result = evaluate_sample(sample, ["trace"])
    >>> result.scores()["context_relevance"], result.scores()["adherence"]
    (0.5, 1.0)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rageval_lc._validation import check_choice
from rageval_lc.judges.base import Judge, unsupported
from rageval_lc.judges.labels import LabelsJudge
from rageval_lc.metrics.trace import TRACE_MODES, TRACE_SCORE_NAMES, TraceMode, trace_scores
from rageval_lc.schema import MetricResult, RagSample

__all__ = [
    "REGISTRY",
    "MetricSpec",
    "SampleResult",
    "ScoringOptions",
    "evaluate_sample",
    "get_metric",
    "parse_metrics",
]


@dataclass(frozen=True)
class ScoringOptions:
    """What a metric's scoring function receives besides the sample."""

    judge: Judge = field(default_factory=LabelsJudge)
    trace_mode: TraceMode = "ragbench"
    relevance_normalizer: float = 20.0


ScoreFn = Callable[[RagSample, ScoringOptions], tuple[dict[str, MetricResult], dict[str, Any]]]


@dataclass(frozen=True)
class MetricSpec:
    """What one metric (or metric family scored in one pass) produces and needs.

    Attributes:
        name: the name used on the command line (``--metrics``).
        scores: the score names it reports, each in [0, 1], higher is better.
        requires: sample fields that must be non-empty.
        description: one line for help texts.
        score: scores a sample: returns one result per name in ``scores`` and the family's details.
        judgements: the judge's judgements it needs (shared when several metrics need the same one).
    """

    name: str
    scores: tuple[str, ...]
    requires: tuple[str, ...]
    description: str
    score: ScoreFn
    judgements: tuple[str, ...] = ()


def _score_trace(sample: RagSample, options: ScoringOptions) -> tuple[dict[str, MetricResult], dict[str, Any]]:
    judgement = options.judge.trace_labels(sample)
    details: dict[str, Any] = {
        "judge": options.judge.name,
        "usage": judgement.usage.to_dict(),
        "attempts": judgement.attempts,
    }
    if judgement.notes:
        details["judge_notes"] = judgement.notes
    if not judgement.ok:
        status = "error" if judgement.status == "error" else "undetermined"
        results = {name: MetricResult(name=name, status=status, reason=judgement.reason) for name in TRACE_SCORE_NAMES}
        return results, {**details, "raw_output": judgement.raw}
    scores = trace_scores(
        judgement.value, sample.sentences, mode=options.trace_mode, relevance_normalizer=options.relevance_normalizer
    )
    results = scores.results()
    probability = judgement.notes.get("adherence_probability")
    if probability is not None:
        results["adherence_probability"] = MetricResult(
            name="adherence_probability",
            score=probability,
            reason="The judge's calibrated probability that every response sentence is supported.",
        )
    details.update(
        scores.details,
        overall_supported=scores.overall_supported,
        fully_supported_sentences=scores.fully_supported_sentences,
        partially_supported_sentences=scores.partially_supported_sentences,
        unsupported_sentences=scores.unsupported_sentences,
    )
    return results, details


REGISTRY: dict[str, MetricSpec] = {
    spec.name: spec
    for spec in (
        MetricSpec(
            name="trace",
            scores=TRACE_SCORE_NAMES,
            requires=("question", "contexts"),
            description="TRACe (RAGBench): relevance, utilization, completeness, adherence from one labelling pass.",
            score=_score_trace,
            judgements=("trace_labels",),
        ),
    )
}


def get_metric(name: str) -> MetricSpec:
    """Return the spec of a registered metric.

    Raises:
        ValueError: If no metric has that name (the message lists those that do).
    """
    try:
        return REGISTRY[name]
    except KeyError:
        msg = f"Unknown metric {name!r}. Known metrics: {', '.join(sorted(REGISTRY))}."
        raise ValueError(msg) from None


def parse_metrics(metrics: str | Iterable[str]) -> list[MetricSpec]:
    """Parse ``"trace,faithfulness"`` (or a list of names) into specs, in order, without duplicates."""
    names = [m.strip() for m in metrics.split(",")] if isinstance(metrics, str) else [str(m).strip() for m in metrics]
    names = [n for n in dict.fromkeys(names) if n]
    if not names:
        msg = "At least one metric is required (e.g. 'trace')."
        raise ValueError(msg)
    return [get_metric(n) for n in names]


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
        reason = f"{type(error).__name__}: {error}"
        results = {
            name: MetricResult(name=name, status="error", reason=reason) for spec in metrics for name in spec.scores
        }
        details = {"error": {"type": type(error).__name__, "message": str(error)}}
        return cls(id=sample_id, results=results, details=details)


def evaluate_sample(
    sample: RagSample,
    metrics: str | Iterable[str] = ("trace",),
    *,
    judge: Judge | None = None,
    trace_mode: TraceMode = "ragbench",
    relevance_normalizer: float = 20.0,
) -> SampleResult:
    """Score one sample on the given metrics.

    Args:
        sample: the sample to score.
        metrics: metric names from :data:`REGISTRY`, or a comma-separated string.
        judge: what labels the sample; defaults to :class:`~rageval_lc.judges.LabelsJudge`.
        trace_mode: ``"ragbench"`` or ``"capstone"`` (see :mod:`rageval_lc.metrics.trace`).
        relevance_normalizer: capstone's relevance denominator.

    Raises:
        TypeError: If ``sample`` is not a :class:`RagSample`.
        ValueError: If a metric is unknown, a field it requires is empty, or the judge has no labels.
    """
    if not isinstance(sample, RagSample):
        msg = f"evaluate_sample expects a RagSample. Got {type(sample).__name__} instead."
        raise TypeError(msg)
    specs = parse_metrics(metrics)
    check_choice(trace_mode, TRACE_MODES, name="trace_mode", caller="evaluate_sample")
    options = ScoringOptions(
        judge=judge or LabelsJudge(), trace_mode=trace_mode, relevance_normalizer=relevance_normalizer
    )
    results: dict[str, MetricResult] = {}
    details: dict[str, Any] = {}
    for spec in specs:
        _check_requirements(sample, spec)
        for judgement in spec.judgements:
            if judgement not in options.judge.supports:
                raise ValueError(unsupported(options.judge, judgement))
    for spec in specs:
        spec_results, details[spec.name] = spec.score(sample, options)
        results.update(spec_results)
    return SampleResult(id=sample.id, results=results, details=details)


def _check_requirements(sample: RagSample, spec: MetricSpec) -> None:
    for name in spec.requires:
        if not getattr(sample, name):
            who = f"sample {sample.id!r}" if sample.id is not None else "the sample"
            msg = f"The {name!r} field of {who} is empty: the {spec.name!r} metric needs it."
            raise ValueError(msg)
