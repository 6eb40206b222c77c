"""One sample's judgements, each made once and shared by every metric that needs it.

Metrics ask a :class:`SampleJudgements` for verdicts (claims, context verdicts, reference statements,
GEval criteria, the CORRECT/WRONG label, generated questions); which judge calls make each one in each
scoring mode is the plan's (:mod:`rageval_lc.scoring.plan`), and each is made once per sample however
many metrics read it. A "don't know" answer is classified without a call; a sample without contexts
makes none of the judgements only the context metrics use (those metrics are undetermined, see
:func:`~rageval_lc.metrics.spec.score_metric`).

Example:
    >>> from rageval_lc.scoring import parse_metrics
    >>> from rageval_lc.judges import LabelsJudge
    >>> planned_judgements(parse_metrics("trace,faithfulness,context_precision"), "shared", LabelsJudge())
    {'trace_labels': ['trace', 'faithfulness', 'context_precision']}
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rageval_lc._validation import check_choice
from rageval_lc.judges.base import Judge, can_make, unsupported
from rageval_lc.judges.declarations import BUILT_IN_JUDGEMENTS, DECLARATIONS, Declaration, criteria_declaration
from rageval_lc.judges.labels import LabelsJudge
from rageval_lc.metrics.context_precision import relevant_contexts
from rageval_lc.metrics.ragas_score import RAGAS_WEIGHTS
from rageval_lc.metrics.trace import TraceMode, response_support
from rageval_lc.schema import RagSample, TraceLabels
from rageval_lc.scoring.plan import (
    CONTEXT_JUDGEMENTS,
    METRIC_VERDICTS,
    REFERENCE_JUDGEMENTS,
    SCORING_MODES,
    ScoringMode,
    route,
    verdict_judgements,
)
from rageval_lc.text import is_claim, parse_key
from rageval_lc.verdicts import (
    AnswerLabel,
    ClaimVerdict,
    ContextVerdict,
    CriteriaDefinition,
    CriteriaScore,
    FactualAccuracyVerdict,
    Judgement,
    JudgeUsage,
    StatementVerdict,
)

if TYPE_CHECKING:
    from rageval_lc.judges.offline.embeddings import EmbeddingScorer

__all__ = [
    "CONTEXT_JUDGEMENTS",
    "NEEDS_LLM_JUDGE",
    "NO_CONTEXTS",
    "REFERENCE_JUDGEMENTS",
    "SCORING_MODES",
    "SampleJudgements",
    "ScoringMode",
    "ScoringOptions",
    "planned_judgements",
]

#: The reason a metric that needs contexts is undetermined on a sample without any.
NO_CONTEXTS = "No retrieved contexts were given."
#: Why a criteria metric is undetermined with a judge that cannot make criteria judgements.
NEEDS_LLM_JUDGE = (
    "The {judge!r} judge cannot judge criteria: a criteria metric needs an LLM judge "
    "(a dspy.LM, a LangChain chat model or 'dspy:<model id>')."
)


@dataclass(frozen=True)
class ScoringOptions:
    """What scoring a sample needs besides the sample.

    Attributes:
        judge: what makes the judgements, resolved (:func:`~rageval_lc.scoring.sample.scoring_options`
            resolves a name or None, None being the offline judge as everywhere); left out here, the labels
            judge, so that a bare ``ScoringOptions()`` loads no model (tests and examples).
        trace_mode: TRACe's formulas (``ragbench`` or ``capstone``).
        relevance_normalizer: capstone's relevance denominator.
        scoring_mode: how judgements are shared (see the module docstring).
        questions: how many questions answer relevance generates (the reference's n=3).
        embeddings: the :class:`~rageval_lc.judges.offline.embeddings.EmbeddingScorer` for semantic similarity,
            BERTScore and answer relevance; None: the offline judge's model, else the packaged model.
        ragas_weights: the composite's weights.
        no_contexts_reason: why a metric that needs contexts is undetermined on a sample without any.
    """

    judge: Judge = field(default_factory=LabelsJudge)
    trace_mode: TraceMode = "ragbench"
    relevance_normalizer: float = 20.0
    scoring_mode: ScoringMode = "shared"
    questions: int = 3
    embeddings: Any = None
    ragas_weights: Mapping[str, float] = field(default_factory=lambda: dict(RAGAS_WEIGHTS))
    no_contexts_reason: str = NO_CONTEXTS


def planned_judgements(metrics: Sequence[Any], scoring_mode: str, judge: Judge) -> dict[str, list[str]]:
    """Judgement → the metrics that need it, for ``metrics`` (:class:`~rageval_lc.scoring.registry.MetricSpec`)
    in ``scoring_mode`` with ``judge``. A judge that writes no questions rates answer relevance directly.

    Raises:
        ValueError: If the mode is unknown or the judge cannot make a judgement a metric needs.
    """
    check_choice(scoring_mode, SCORING_MODES, name="scoring_mode", caller="planned_judgements")
    needed: dict[str, list[str]] = {}
    for spec in metrics:
        for judgement in verdict_judgements(METRIC_VERDICTS[spec.name], scoring_mode, judge.supports):
            if not can_make(judge, judgement):
                raise ValueError(unsupported(judge, judgement))
            needed.setdefault(judgement, []).append(spec.name)
    return needed


@lru_cache(maxsize=1)
def default_embeddings() -> Any:
    """The packaged model's :class:`~rageval_lc.judges.offline.embeddings.EmbeddingScorer`, loaded once per process."""
    from rageval_lc.judges.offline.embeddings import EmbeddingScorer

    return EmbeddingScorer()


class SampleJudgements:
    """The judgements of one sample, made lazily and once; what each metric consumed is recorded.

    Args:
        sample: the sample.
        options: the judge, the scoring mode and the rest.
    """

    def __init__(self, sample: RagSample, options: ScoringOptions) -> None:
        self.sample = sample
        self.options = options
        self._made: dict[str, Judgement[Any]] = {}
        self._consumer = ""
        self._consumed: dict[str, list[str]] = {}

    @property
    def judge(self) -> Judge:
        """The judge making the judgements."""
        return self.options.judge

    @property
    def mode(self) -> str:
        """The scoring mode."""
        return self.options.scoring_mode

    @property
    def has_reference(self) -> bool:
        """True when the sample has a non-empty reference answer."""
        return bool(self.sample.reference and self.sample.reference.strip())

    @property
    def has_contexts(self) -> bool:
        """True when the sample has a retrieved context that is not blank."""
        return self.sample.has_contexts

    @property
    def embeddings(self) -> EmbeddingScorer:
        """The embedding scorer: the options', the offline judge's model, or the packaged model."""
        if self.options.embeddings is not None:
            return self.options.embeddings
        from rageval_lc.judges.offline.encoder import CachedEncoder  # numpy only; loads no model

        encoder = self.judge.encoder
        if isinstance(encoder, CachedEncoder):
            from rageval_lc.judges.offline.embeddings import EmbeddingScorer

            return EmbeddingScorer(encoder=encoder)
        return default_embeddings()

    # --- bookkeeping -----------------------------------------------------------------------------

    @contextmanager
    def consumer(self, metric: str) -> Iterator[None]:
        """Attribute the judgements made or reused inside the block to ``metric``."""
        previous, self._consumer = self._consumer, metric
        try:
            yield
        finally:
            self._consumer = previous

    def make(self, name: str, call: Callable[[], Judgement[Any]]) -> Judgement[Any]:
        """Make the judgement ``name`` once (later calls reuse it)."""
        if name not in self._made:
            if not can_make(self.judge, name):
                raise ValueError(unsupported(self.judge, name))
            self._made[name] = call()
        if self._consumer:
            used = self._consumed.setdefault(self._consumer, [])
            if name not in used:
                used.append(name)
        return self._made[name]

    def usage_of(self, metric: str) -> JudgeUsage:
        """Calls and tokens of the judgements ``metric`` consumed (shared ones count for each consumer)."""
        total = JudgeUsage()
        for name in self._consumed.get(metric, []):
            total += self._made[name].usage
        return total

    def consumed(self, metric: str) -> list[str]:
        """The judgements ``metric`` consumed, in order."""
        return list(self._consumed.get(metric, []))

    def usage_summary(self) -> dict[str, Any]:
        """The sample's judge usage, each judgement counted once: per judgement and in total."""
        total = JudgeUsage()
        for judgement in self._made.values():
            total += judgement.usage
        return {
            "scoring_mode": self.mode,
            "by_judgement": {name: j.usage.to_dict() for name, j in self._made.items()},
            **total.to_dict(),
        }

    # --- the judgements metrics ask for -----------------------------------------------------------

    def _ask(self, judgement: str, **inputs: Any) -> Judgement[Any]:
        """The judge makes the declared ``judgement`` on ``inputs``."""
        declaration = DECLARATIONS[judgement]
        return self.judge.make(declaration, declaration.bind(**inputs))

    def _via(self, verdict: str) -> str:
        """The first judgement the plan makes ``verdict`` with in this scoring mode."""
        return route(verdict, self.mode)[0]

    def full(self) -> Judgement[Any]:
        """The fused mode's single call."""
        return self.make("assess_all", lambda: self._ask("assess_all", sample=self.sample, n=self.options.questions))

    def trace(self) -> Judgement[TraceLabels]:
        """The TRACe labels (from the fused call in fused mode)."""
        if self._via("trace") == "assess_all":
            return _derived(self.full(), "trace_labels", lambda v: v.trace)
        return self.make("trace_labels", lambda: self._ask("trace_labels", sample=self.sample))

    def claims(self) -> Judgement[list[ClaimVerdict]]:
        """The answer's claims, each supported or not by the contexts.

        ``shared`` / ``fused``: the response sentences with the TRACe pass's support verdicts, leaving
        out sentences that make no claim (:mod:`rageval_lc.text`: headings, code, greetings, "Here is how:",
        hedges and refusals such as "I don't know.").
        ``separate``: extracted claims verified in one call. Without contexts nothing can support a
        claim, so no verification call is made.
        """
        sample = self.sample
        if self._via("claims") == "extract_claims":
            extracted = self.make(
                "extract_claims", lambda: self._ask("extract_claims", question=sample.question, answer=sample.response)
            )
            if not extracted.ok or not extracted.value:
                return _derived(extracted, "claims", lambda v: [])
            claims = [c for c in extracted.value if is_claim(c)]  # "I don't know." is no claim, whoever extracted it
            if not claims:
                return Judgement(name="claims", value=[], reason="The answer makes no claim.")
            if not sample.contexts:
                return Judgement(name="claims", value=_unsupported(claims), reason="There are no contexts.")
            return self.make(
                "verify_claims", lambda: self._ask("verify_claims", claims=claims, contexts=sample.contexts)
            )
        sentences = sample.sentences
        claim_keys = [key for key, text in sentences.response if is_claim(text)]
        if not claim_keys:
            return Judgement(name="claims", value=[], reason="The answer makes no claim.")
        if not sample.contexts:
            claims = [sentences.sentence(key) for key in claim_keys]
            return Judgement(name="claims", value=_unsupported(claims), reason="There are no contexts.")
        labels = self.trace()
        if not labels.ok:
            return _derived(labels, "claims", lambda v: [])
        support = {k: v for k, v in response_support(labels.value, sentences).items() if k in claim_keys}
        missing = [key for key, verdict in support.items() if verdict is None]
        if missing:
            reason = f"The judge gave no support verdict for response sentences {', '.join(missing)}."
            return Judgement(name="claims", status="undetermined", reason=reason, raw=labels.raw)
        explanations = {e.response_sentence_key: e.explanation for e in labels.value.sentence_support_information}
        verdicts = [
            ClaimVerdict(claim=sentences.sentence(key), supported=bool(verdict), reason=explanations.get(key, ""))
            for key, verdict in support.items()
        ]
        return Judgement(name="claims", value=verdicts, notes={"claims_are": "response sentences"})

    def context_verdicts(self) -> Judgement[list[ContextVerdict]]:
        """Relevant or not, per context (from the TRACe relevant sentences unless ``separate``)."""
        sample = self.sample
        if not sample.contexts:
            return Judgement(name="context_relevance", value=[], reason="There are no contexts.")
        if self._via("contexts") == "context_relevance":
            return self.make(
                "context_relevance",
                lambda: self._ask(
                    "context_relevance", question=sample.question, contexts=sample.contexts, reference=sample.reference
                ),
            )
        labels = self.trace()
        if not labels.ok:
            return _derived(labels, "context_relevance", lambda v: [])
        clean, _ = labels.value.cleaned(sample.sentences)
        keys = clean.all_relevant_sentence_keys
        flags = relevant_contexts(keys, len(sample.contexts))
        verdicts = []
        for index, relevant in enumerate(flags):
            own = [k for k in keys if parse_key(k)[0] == index]
            reason = f"Relevant sentences: {', '.join(own)}." if relevant else "None of its sentences is relevant."
            verdicts.append(ContextVerdict(index=index, relevant=relevant, reason=reason))
        return Judgement(name="context_relevance", value=verdicts, notes={"from": "TRACe relevant sentences"})

    def statements(self) -> Judgement[list[StatementVerdict]]:
        """The reference's statements, each attributed or not to the contexts."""
        s = self.sample
        inputs = {"question": s.question, "reference": s.reference or "", "contexts": s.contexts}
        return self._about_reference("statements", "attribute_reference", inputs, lambda v: v.statements)

    def accuracy(self) -> Judgement[FactualAccuracyVerdict]:
        """GEval's three criteria against the reference."""
        return self._about_reference("accuracy", "factual_accuracy", self._answer_inputs(), lambda v: v.accuracy)

    def label(self) -> Judgement[AnswerLabel]:
        """CORRECT or WRONG against the reference."""
        return self._about_reference("label", "classify_answer", self._answer_inputs(), lambda v: v.label)

    def _answer_inputs(self) -> dict[str, Any]:
        s = self.sample
        return {"question": s.question, "answer": s.response, "reference": s.reference or ""}

    def _about_reference(
        self, verdict: str, name: str, inputs: dict[str, Any], part: Callable[[Any], Any]
    ) -> Judgement[Any]:
        """``verdict`` from its own judgement ``name`` (on ``inputs``) where the plan routes it there, else read
        off the reference assessment (``part`` of it; a part the judge left empty is undetermined)."""
        if self._via(verdict) == name:
            return self.make(name, lambda: self._ask(name, **inputs))
        reference = self._reference(verdict)
        if reference.ok and part(reference.value) is None:
            return Judgement(name=name, status="undetermined", reason=f"The judge gave no {verdict}.")
        return _derived(reference, name, part)

    def criteria(self, definition: CriteriaDefinition) -> Judgement[CriteriaScore]:
        """A criteria metric's judgement (its own call); ``undetermined`` without a call when the judge
        cannot make criteria judgements (it needs an LLM judge)."""
        if not can_make(self.judge, definition.judgement):
            reason = NEEDS_LLM_JUDGE.format(judge=self.judge.name)
            return Judgement(name=definition.judgement, status="undetermined", reason=reason)
        declaration = criteria_declaration(definition)
        return self.make(definition.judgement, lambda: self.judge.make(declaration, {"sample": self.sample}))

    def judgement(self, name: str) -> Judgement[Any]:
        """A judgement of one's own (declared with :func:`~rageval_lc.judges.declarations.declare`) on the sample,
        made once: its inputs are the sample's fields of their names (``answer`` is the response, ``sample`` the
        sample, ``n`` the questions to write), or its ``of_sample``'s; ``undetermined`` without a call on a
        sample that lacks what it ``needs``.

        Raises:
            ValueError: If no judgement of one's own is declared as ``name``, or an input has no field of its name.
        """
        declaration = DECLARATIONS.get(name)
        if declaration is None or name in BUILT_IN_JUDGEMENTS:
            msg = f"No judgement of one's own is declared as {name!r} (declare it with declare() first)."
            raise ValueError(msg)
        if not declaration.applies_to(self.sample):
            lacking = ", ".join(sorted(declaration.needs))
            reason = f"The {name!r} judgement needs {lacking}, which the sample lacks."
            return Judgement(name=name, status="undetermined", reason=reason)
        inputs = self._inputs_of(declaration)
        return self.make(name, lambda: self.judge.make(declaration, declaration.bind(**inputs)))

    def _inputs_of(self, declaration: Declaration[Any]) -> dict[str, Any]:
        if declaration.of_sample is not None:
            return declaration.of_sample(self.sample, self.options.questions)
        fields = {"sample": self.sample, "answer": self.sample.response, "n": self.options.questions}
        inputs = {}
        for field_name in declaration.inputs:
            if field_name in fields:
                inputs[field_name] = fields[field_name]
            elif field_name in RagSample.model_fields:
                inputs[field_name] = getattr(self.sample, field_name)
            elif field_name not in declaration.defaults:
                msg = (
                    f"The {declaration.name!r} judgement's input {field_name!r} is no field of a sample: declare "
                    "it with of_sample (a function of the sample and n giving its inputs)."
                )
                raise ValueError(msg)
        return inputs

    def questions(self) -> Judgement[list[str]]:
        """Questions the answer would answer (none when the judge cannot generate any)."""
        if self._via("questions") == "assess_all":
            return _derived(self.full(), "generate_questions", lambda v: v.questions)
        if "generate_questions" not in self.judge.supports:
            reason = f"The {self.judge.name!r} judge writes no questions."
            return Judgement(name="generate_questions", value=[], reason=reason)
        answer = self.sample.response
        return self.make(
            "generate_questions", lambda: self._ask("generate_questions", answer=answer, n=self.options.questions)
        )

    def rubric(self) -> Judgement[Any]:
        """The direct 0-1 answer-relevance rubric (the fallback)."""
        sample = self.sample
        return self.make(
            "rate_answer_relevance",
            lambda: self._ask("rate_answer_relevance", question=sample.question, answer=sample.response),
        )

    def _reference(self, verdict: str) -> Judgement[Any]:
        sample = self.sample
        if self._via(verdict) == "assess_all":
            full = self.full()
            if full.ok and full.value.reference is None:
                return Judgement(name="assess_reference", status="undetermined", reason="No reference assessment.")
            return _derived(full, "assess_reference", lambda v: v.reference)
        return self.make(
            "assess_reference",
            lambda: self._ask(
                "assess_reference",
                question=sample.question,
                answer=sample.response,
                reference=sample.reference or "",
                contexts=sample.contexts,
            ),
        )


def _derived(parent: Judgement[Any], name: str, part: Callable[[Any], Any]) -> Judgement[Any]:
    """A judgement read off a larger one (its usage stays with the parent, counted once)."""
    if not parent.ok:
        status, reason = parent.status, parent.reason
        return Judgement(name=name, status=status, reason=reason, raw=parent.raw, attempts=parent.attempts)
    return Judgement(
        name=name, value=part(parent.value), reason=parent.reason, attempts=parent.attempts, notes=parent.notes
    )


def _unsupported(claims: Sequence[str]) -> list[ClaimVerdict]:
    return [ClaimVerdict(claim=c, supported=False, reason="There are no contexts to support it.") for c in claims]
