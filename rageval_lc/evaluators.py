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

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rageval_lc import ragas_family
from rageval_lc._validation import check_choice, check_str
from rageval_lc.error_text import error_text
from rageval_lc.judges.base import Judge, JudgeUsage
from rageval_lc.judges.labels import LabelsJudge
from rageval_lc.metrics.trace import TRACE_METRICS, TRACE_MODES, TRACE_SCORE_NAMES, TraceMode, trace_scores
from rageval_lc.schema import MetricResult, RagSample
from rageval_lc.sharing import (
    NO_CONTEXTS,
    SCORING_MODES,
    SampleJudgements,
    ScoringMode,
    ScoringOptions,
    planned_judgements,
)

__all__ = [
    "NO_CONTEXTS",
    "RAGAS_FAMILY",
    "REGISTRY",
    "MetricSpec",
    "SampleResult",
    "ScoringOptions",
    "evaluate_sample",
    "get_metric",
    "parse_metrics",
    "score_metric",
]


ScoreFn = Callable[[SampleJudgements], tuple[dict[str, MetricResult], dict[str, Any]]]


@dataclass(frozen=True)
class MetricSpec:
    """What one metric (or metric family scored in one pass) produces and needs.

    Attributes:
        name: the name used on the command line (``--metrics``).
        scores: the score names it reports, each in [0, 1], higher is better.
        requires: sample fields that must be non-empty.
        description: one line for help texts.
        score: scores a sample from its shared judgements: one result per name in ``scores`` and details.
        judgements: per scoring mode (``shared``, ``fused``, ``separate``), the judgements it needs.
        needs_reference: True when it is undetermined on a sample without a reference answer.
        needs_contexts: True when it is undetermined on a sample without retrieved contexts (none, or
            only blank ones): :func:`evaluate_sample` then calls no judge for it and gives every score
            ``undetermined`` with the reason.
        headline: the scores an integration reports as this metric's own (LangSmith feedback keys).
            Default: all ``scores``.
    """

    name: str
    scores: tuple[str, ...]
    requires: tuple[str, ...]
    description: str
    score: ScoreFn
    judgements: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: dict.fromkeys(SCORING_MODES, ()))
    needs_reference: bool = False
    needs_contexts: bool = False
    headline: tuple[str, ...] = ()

    @property
    def headlines(self) -> tuple[str, ...]:
        """The scores integrations report (LangSmith feedback keys)."""
        return self.headline or self.scores

    @property
    def single(self) -> str:
        """The one score that stands for the metric (a LangChain evaluator's ``score``, a DSPy metric's value)."""
        return "average" if "average" in self.scores else self.headlines[0]


def _score_trace(ctx: SampleJudgements) -> tuple[dict[str, MetricResult], dict[str, Any]]:
    judgement = ctx.trace()
    options = ctx.options
    details: dict[str, Any] = {
        "judge": ctx.judge.name,
        "scoring_mode": ctx.mode,
        "judgements": ctx.consumed("trace"),
        "usage": ctx.usage_of("trace").to_dict(),
        "attempts": judgement.attempts,
    }
    if judgement.notes:
        details["judge_notes"] = judgement.notes
    if not judgement.ok:
        status = "error" if judgement.status == "error" else "undetermined"
        results = {name: MetricResult(name=name, status=status, reason=judgement.reason) for name in TRACE_SCORE_NAMES}
        return results, {**details, "raw_output": judgement.raw}
    scores = trace_scores(
        judgement.value,
        ctx.sample.sentences,
        mode=options.trace_mode,
        relevance_normalizer=options.relevance_normalizer,
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


def _modes(shared: tuple[str, ...], separate: tuple[str, ...], fused: tuple[str, ...] = ("assess_all",)) -> dict:
    return {"shared": shared, "fused": fused, "separate": separate}


_RAGAS_PARTS = ("faithfulness", "context_precision", "context_recall", "answer_relevance")
_SPECS = (
    MetricSpec(
        name="trace",
        scores=TRACE_SCORE_NAMES,
        requires=("question",),
        description="TRACe (RAGBench): relevance, utilization, completeness, adherence from one labelling pass.",
        score=_score_trace,
        judgements=_modes(("trace_labels",), ("trace_labels",)),
        needs_contexts=True,
        headline=TRACE_METRICS,
    ),
    MetricSpec(
        name="faithfulness",
        scores=("faithfulness",),
        requires=(),
        description="Supported claims / claims (the TRACe pass's sentence verdicts unless --scoring-mode separate).",
        score=ragas_family.score_faithfulness,
        judgements=_modes(("trace_labels",), ("extract_claims", "verify_claims")),
        needs_contexts=True,
    ),
    MetricSpec(
        name="context_precision",
        scores=("context_precision", "context_precision_at_k"),
        requires=(),
        description="Share of relevant contexts, and its rank-aware form (mean precision@k).",
        score=ragas_family.score_context_precision,
        judgements=_modes(("trace_labels",), ("context_relevance",)),
        needs_contexts=True,
    ),
    MetricSpec(
        name="context_recall",
        scores=("context_recall",),
        requires=(),
        description="Reference statements attributable to the contexts / reference statements.",
        score=ragas_family.score_context_recall,
        judgements=_modes(("assess_reference",), ("attribute_reference",)),
        needs_reference=True,
        needs_contexts=True,
    ),
    MetricSpec(
        name="answer_relevance",
        scores=("answer_relevance",),
        requires=(),
        description="Similarity of the question to questions generated from the answer (rubric fallback).",
        score=ragas_family.score_answer_relevance,
        judgements=_modes(("generate_questions",), ("generate_questions",)),
    ),
    MetricSpec(
        name="factual_accuracy",
        scores=("factual_accuracy",),
        requires=(),
        description="GEval: 0.5 correctness + 0.3 completeness + 0.2 consistency against the reference; grade A-E.",
        score=ragas_family.score_factual_accuracy,
        judgements=_modes(("assess_reference",), ("factual_accuracy",)),
        needs_reference=True,
    ),
    MetricSpec(
        name="answer_classification",
        scores=("answer_classification",),
        requires=(),
        description="CORRECT / WRONG against the reference, DON'T KNOW on an uncertainty phrase (1.0 = correct).",
        score=ragas_family.score_answer_classification,
        judgements=_modes(("assess_reference",), ("classify_answer",)),
        needs_reference=True,
    ),
    MetricSpec(
        name="semantic_similarity",
        scores=("semantic_similarity",),
        requires=(),
        description="max(0, cosine) of answer and reference embeddings (no LLM).",
        score=ragas_family.score_semantic_similarity,
        needs_reference=True,
    ),
    MetricSpec(
        name="bert_score",
        scores=("bert_score_precision", "bert_score_recall", "bert_score_f1"),
        requires=(),
        description="BERTScore from the embedding model's token vectors (no LLM).",
        score=ragas_family.score_bert_score,
        needs_reference=True,
        headline=("bert_score_f1", "bert_score_precision", "bert_score_recall"),
    ),
)
_BY_NAME = {spec.name: spec for spec in _SPECS}


def _score_ragas(ctx: SampleJudgements) -> tuple[dict[str, MetricResult], dict[str, Any]]:
    """The composite, each part scored through :func:`score_metric` (a part missing its evidence is left out)."""
    return ragas_family.score_ragas(ctx, {part: partial(score_metric, _BY_NAME[part]) for part in _RAGAS_PARTS})


_SPECS += (
    MetricSpec(
        name="ragas_score",
        scores=("ragas_score",),
        requires=(),
        description="RAGAS composite: 0.3 faithfulness, 0.2 precision, 0.2 recall, 0.3 relevance (renormalised).",
        score=_score_ragas,
        judgements={
            mode: tuple(dict.fromkeys(j for part in _RAGAS_PARTS for j in _BY_NAME[part].judgements[mode]))
            for mode in SCORING_MODES
        },
    ),
)
REGISTRY: dict[str, MetricSpec] = {spec.name: spec for spec in _SPECS}
#: The reference document's family (its report view renders these 0-100).
RAGAS_FAMILY: tuple[str, ...] = tuple(name for name in REGISTRY if name != "trace")


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
        reason = error_text(error)  # one line, a pydantic ValidationError too
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
    scoring_mode: ScoringMode = "shared",
    embeddings: Any = None,
    no_contexts_reason: str = NO_CONTEXTS,
) -> SampleResult:
    """Score one sample on the given metrics, each judgement made once and shared.

    A metric that needs contexts (``needs_contexts``: TRACe, faithfulness, context precision and recall)
    is ``undetermined`` on a sample without any (none, or only blank ones), with ``no_contexts_reason``
    as its reason, and no judge is called for it; the sample's other metrics are still scored.

    Args:
        sample: the sample to score.
        metrics: metric names from :data:`REGISTRY`, or a comma-separated string.
        judge: what labels the sample; defaults to :class:`~rageval_lc.judges.LabelsJudge`.
        trace_mode: ``"ragbench"`` or ``"capstone"`` (see :mod:`rageval_lc.metrics.trace`).
        relevance_normalizer: capstone's relevance denominator.
        scoring_mode: ``"shared"`` (at most 3 judge calls for the whole suite), ``"fused"`` (1 call) or
            ``"separate"`` (one judgement per metric); see :mod:`rageval_lc.sharing`.
        embeddings: an :class:`~rageval_lc.judges.embeddings.EmbeddingScorer` for the embedding metrics;
            None: the local judge's model, else the packaged all-MiniLM-L6-v2.
        no_contexts_reason: the reason given to the context metrics' scores on a sample without
            contexts (integrations that look for retriever runs say that none was found in the run).

    Returns:
        SampleResult: one result per score; ``details[<metric>]`` per metric and ``details["judge_usage"]``
        with the calls and tokens of the sample (each judgement counted once).

    Raises:
        TypeError: If ``sample`` is not a :class:`RagSample`.
        ValueError: If a metric or mode is unknown, a field a metric requires is empty, or the judge
            cannot make a judgement a metric needs.
    """
    if not isinstance(sample, RagSample):
        msg = f"evaluate_sample expects a RagSample. Got {type(sample).__name__} instead."
        raise TypeError(msg)
    specs = parse_metrics(metrics)
    check_choice(trace_mode, TRACE_MODES, name="trace_mode", caller="evaluate_sample")
    check_str(no_contexts_reason, name="no_contexts_reason", caller="evaluate_sample", allow_empty=False)
    judge = judge or LabelsJudge()
    planned_judgements(specs, scoring_mode, judge)
    for spec in specs:
        _check_requirements(sample, spec)
    options = ScoringOptions(
        judge=judge,
        trace_mode=trace_mode,
        relevance_normalizer=relevance_normalizer,
        scoring_mode=scoring_mode,
        embeddings=embeddings,
        no_contexts_reason=no_contexts_reason,
    )
    ctx = SampleJudgements(sample, options)
    results: dict[str, MetricResult] = {}
    details: dict[str, Any] = {}
    for spec in specs:
        with ctx.consumer(spec.name):
            spec_results, details[spec.name] = score_metric(spec, ctx)
        results.update(spec_results)
    details["judge_usage"] = ctx.usage_summary()
    return SampleResult(id=sample.id, results=results, details=details)


def score_metric(spec: MetricSpec, ctx: SampleJudgements) -> tuple[dict[str, MetricResult], dict[str, Any]]:
    """Score one metric of a sample: ``undetermined`` without a call when it lacks the evidence it needs.

    The one place where missing evidence is decided: a metric that ``needs_contexts`` on a sample without
    contexts gets every score ``undetermined`` with the reason (``ctx.options.no_contexts_reason``).
    """
    if spec.needs_contexts and not ctx.has_contexts:
        reason = ctx.options.no_contexts_reason
        results = {name: MetricResult(name=name, status="undetermined", reason=reason) for name in spec.scores}
        details = {
            "judge": ctx.judge.name,
            "scoring_mode": ctx.mode,
            "judgements": [],
            "usage": JudgeUsage().to_dict(),
            "missing_evidence": "contexts",
        }
        return results, details
    return spec.score(ctx)


def _check_requirements(sample: RagSample, spec: MetricSpec) -> None:
    for name in spec.requires:
        if not getattr(sample, name):
            who = f"sample {sample.id!r}" if sample.id is not None else "the sample"
            msg = f"The {name!r} field of {who} is empty: the {spec.name!r} metric needs it."
            raise ValueError(msg)
