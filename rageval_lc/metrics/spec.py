"""What one metric is: a :class:`MetricSpec`, declared in the metric's own module beside its score function
and its maths, and :class:`Judgements`, what a score function reads of a sample.

Each built-in metric is one module of this package (``faithfulness.py``, ``context_precision.py``, …) that
holds ``METRIC = MetricSpec(...)``: its scores and their range and direction, the sample fields and the
verdicts it needs, its score function. :data:`~rageval_lc.scoring.registry.REGISTRY` gathers these modules
(:data:`~rageval_lc.metrics.METRIC_MODULES`) and the call plan (:mod:`rageval_lc.scoring.plan`) reads the
verdicts they declare. A metric of one's own is the same kind of module, loaded by
:func:`~rageval_lc.scoring.custom.load_metrics` (the CLI's ``--load FILE``).

A score function takes the sample's :class:`Judgements` and returns one
:class:`~rageval_lc.schema.MetricResult` per score name and the metric's details
(:mod:`rageval_lc.metrics.results` builds both). It asks for verdicts (``ctx.claims()``, ``ctx.statements()``,
…), never a judge: each verdict is made once per sample, however many metrics read it.

Example:
    >>> from rageval_lc.metrics.faithfulness import METRIC
    >>> METRIC.name, METRIC.verdicts, METRIC.single, METRIC.bounds, METRIC.higher_is_better("faithfulness")
    ('faithfulness', ('claims',), 'faithfulness', (0.0, 1.0), True)
    >>> from rageval_lc.metrics.ragas_score import METRIC as RAGAS
    >>> [part.name for part in RAGAS.parts]
    ['faithfulness', 'context_precision', 'context_recall', 'answer_relevance']
    >>> RAGAS.reads  # its parts' verdicts
    ('claims', 'contexts', 'statements', 'questions')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from rageval_lc.metrics.results import details_of, undetermined
from rageval_lc.schema import MetricResult, RagSample
from rageval_lc.text import is_empty_answer
from rageval_lc.verdicts import JudgeUsage

if TYPE_CHECKING:
    from rageval_lc import verdicts as base
    from rageval_lc.judges.offline.embeddings import EmbeddingScorer
    from rageval_lc.schema import TraceLabels

__all__ = ["Judgements", "MetricSpec", "Options", "ScoreFn", "Scored", "score_metric"]

#: What a score function returns: one result per score name, and the metric's details.
Scored = tuple[dict[str, MetricResult], dict[str, Any]]


class Options(Protocol):
    """The scoring options a score function reads."""

    trace_mode: str
    relevance_normalizer: float
    ragas_weights: Mapping[str, float]
    no_contexts_reason: str


@runtime_checkable
class Judgements(Protocol):
    """What a score function reads of one sample: the sample, the options, and its verdicts, each made once
    and shared by every metric that reads it.

    :class:`~rageval_lc.scoring.judgements.SampleJudgements` is the one the library passes; which judge calls
    make each verdict in each scoring mode is the plan's (:mod:`rageval_lc.scoring.plan`).
    """

    sample: RagSample
    options: Options

    @property
    def judge(self) -> base.Judge: ...  # its name goes into the details

    @property
    def mode(self) -> str: ...  # the scoring mode

    @property
    def has_reference(self) -> bool: ...

    @property
    def has_contexts(self) -> bool: ...

    @property
    def embeddings(self) -> EmbeddingScorer: ...

    def consumed(self, metric: str) -> list[str]: ...  # the judgements ``metric`` consumed, in order

    def usage_of(self, metric: str) -> JudgeUsage: ...

    def trace(self) -> base.Judgement[TraceLabels]: ...

    def claims(self) -> base.Judgement[list[base.ClaimVerdict]]: ...

    def context_verdicts(self) -> base.Judgement[list[base.ContextVerdict]]: ...

    def statements(self) -> base.Judgement[list[base.StatementVerdict]]: ...

    def accuracy(self) -> base.Judgement[base.FactualAccuracyVerdict]: ...

    def label(self) -> base.Judgement[base.AnswerLabel]: ...

    def questions(self) -> base.Judgement[list[str]]: ...

    def rubric(self) -> base.Judgement[Any]: ...

    def criteria(self, definition: base.CriteriaDefinition) -> base.Judgement[base.CriteriaScore]: ...

    def judgement(self, name: str) -> base.Judgement[Any]: ...  # a judgement of one's own, declared with declare()


ScoreFn = Callable[[Judgements], Scored]


@dataclass(frozen=True)
class MetricSpec:
    """What one metric (or metric family scored in one pass) produces and needs.

    Attributes:
        name: the name used on the command line (``--metrics``).
        scores: the score names it reports.
        description: one line for help texts.
        score: scores a sample from its shared judgements: one result per name in ``scores`` and details.
        requires: sample fields that must be non-empty.
        needs_reference: True when it is undetermined on a sample without a reference answer.
        needs_contexts: True when it is undetermined on a sample without retrieved contexts (none, or
            only blank ones): :func:`score_metric` then calls no judge for it and gives every score
            ``undetermined`` with the reason.
        answer_scores: the scores that judge the answer: ``undetermined`` ("the answer is empty") when the answer
            is nothing but whitespace (an empty answer is never scored as wrong or right); with every score among them
            no judge is called.
        headline: the scores an integration reports as this metric's own (LangSmith feedback keys).
            Default: all ``scores``.
        verdicts: the verdicts its score function reads (the plan's :data:`~rageval_lc.scoring.plan.VERDICTS`,
            a criteria metric's ``criteria:<name>``, or the name of a judgement of one's own declared with
            :func:`~rageval_lc.judges.declarations.declare`, read with ``ctx.judgement(name)``); none for a metric
            that calls no judge.
        parts: the metrics a composite is made of (each scored through :func:`score_metric`, with its own
            evidence rules); it reads their verdicts.
        bounds: the range of every score.
        lower_is_better: the scores that are better low (a spread); every other one is better high.
    """

    name: str
    scores: tuple[str, ...]
    description: str
    score: ScoreFn
    requires: tuple[str, ...] = ()
    needs_reference: bool = False
    needs_contexts: bool = False
    answer_scores: tuple[str, ...] = ()
    headline: tuple[str, ...] = ()
    verdicts: tuple[str, ...] = ()
    parts: tuple[MetricSpec, ...] = ()
    bounds: tuple[float, float] = (0.0, 1.0)
    lower_is_better: tuple[str, ...] = ()

    @property
    def reads(self) -> tuple[str, ...]:
        """Every verdict it reads: its own, then its parts', each once."""
        return tuple(dict.fromkeys([*self.verdicts, *(v for part in self.parts for v in part.reads)]))

    @property
    def headlines(self) -> tuple[str, ...]:
        """The scores integrations report (LangSmith feedback keys)."""
        return self.headline or self.scores

    @property
    def single(self) -> str:
        """The one score that stands for the metric (a LangChain evaluator's ``score``, a DSPy metric's value)."""
        return "average" if "average" in self.scores else self.headlines[0]

    def higher_is_better(self, score: str) -> bool:
        """Whether a higher ``score`` (one of ``scores``) is better."""
        return score not in self.lower_is_better


#: The reason every score that judges the answer gives for an empty one.
EMPTY_ANSWER = "The answer is empty: there is nothing to judge."


def score_metric(spec: MetricSpec, ctx: Judgements) -> Scored:
    """Score one metric of a sample: ``undetermined`` without a call when it lacks the evidence it needs.

    The one place where missing evidence is decided: a metric that ``needs_contexts`` on a sample without
    contexts gets every score ``undetermined`` with the reason (``ctx.options.no_contexts_reason``).
    """
    if spec.needs_contexts and not ctx.has_contexts:  # nothing consumed: no judgement, no usage
        results = undetermined(spec.scores, ctx.options.no_contexts_reason)
        return results, details_of(ctx, spec.name, missing_evidence="contexts")
    if spec.answer_scores and is_empty_answer(ctx.sample.response):
        empty = undetermined(spec.answer_scores, EMPTY_ANSWER)
        if set(spec.scores) <= set(spec.answer_scores):
            return empty, details_of(ctx, spec.name, missing_evidence="answer")
        results, details = spec.score(ctx)
        return {**results, **empty}, {**details, "missing_evidence": "answer"}
    return spec.score(ctx)
