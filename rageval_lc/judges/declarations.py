"""Every judgement declared once: its inputs, its verdict, its prompt, how an answer is read and checked.

A :class:`Declaration` is all a judge needs to make a judgement: a judge implements one entry point,
``make(declaration, inputs)`` (:meth:`~rageval_lc.judges.base.BaseJudge.make`); the DSPy judge runs the
declared Signature and reads the answer with :attr:`Declaration.read`; the resilient judge wraps ``make``
and checks a cached value with :attr:`Declaration.problem`; the plan and the dry run read :attr:`~Declaration.needs`.
:data:`DECLARATIONS` holds the built-in ones; :func:`declare` adds a judgement of one's own, and a criteria
metric's judgement is declared by :func:`criteria_declaration`.

Example:
    >>> d = DECLARATIONS["verify_claims"]
    >>> d.bind(["Paris is in France."], ["Paris is the capital of France."])
    {'claims': ['Paris is in France.'], 'contexts': ['Paris is the capital of France.']}
    >>> d.prompt(d.bind(["A."], ["B."]))
    {'context': '[Context 1] B.', 'claims': '1. A.'}
    >>> sorted(n for n, x in DECLARATIONS.items() if "reference" in x.needs)
    ['assess_reference', 'attribute_reference', 'classify_answer', 'factual_accuracy']
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from rageval_lc import verdicts as v
from rageval_lc.judges.checks import (
    assess_all_problem,
    claim_verdicts_problem,
    context_verdicts_problem,
    reference_problem,
    statements_problem,
    strings_problem,
    trace_problem,
)
from rageval_lc.judges.readings import (
    clamp,
    clean_strings,
    criteria_inputs,
    numbered,
    read_geval,
    read_label,
    read_questions,
    read_statements,
    read_trace,
    render_numbered,
    trace_inputs,
)
from rageval_lc.schema import RagSample, TraceLabels
from rageval_lc.verdicts import CRITERIA, CRITERIA_DEFINITIONS, CriteriaDefinition, Judgement

__all__ = [
    "BUILT_IN_JUDGEMENTS",
    "DECLARATIONS",
    "NEEDS",
    "Declaration",
    "Reading",
    "criteria_declaration",
    "declaration_of",
    "declare",
    "undeclare",
]

T = TypeVar("T")
Inputs = Mapping[str, Any]
#: What reading a prediction gives: the verdict (None when unusable), notes, and the problem (None: usable).
Reading = tuple[Any, dict[str, Any], str | None]
#: Where a Signature named without its module is.
SIGNATURES_MODULE = "rageval_lc.judges.llm.signatures"
#: What a judgement may need of a sample: a retrieved context, a reference answer, a response.
NEEDS = frozenset({"contexts", "reference", "response"})


@dataclass(frozen=True)
class Declaration(Generic[T]):
    """One judgement, declared once.

    Attributes:
        name: the judgement's name (``criteria:<metric>`` for a criteria metric's).
        about: what it produces, in one line.
        inputs: its inputs' names, in call order (``judge.<name>(*args)`` binds them in this order).
        verdict: the type of its value (for readers and the docs).
        signature: the DSPy Signature an LLM judge runs: a Signature class, or where one is, as
            ``"module:name"`` (a name alone: in :mod:`rageval_lc.judges.llm.signatures`), imported when first run,
            so declaring imports no DSPy.
        module: the DSPy Module class's name (saved and compiled states are keyed by the judgement's name).
        prompt: the Signature's input fields from the judgement's inputs.
        read: a prediction (and the inputs) read into ``(verdict, notes, problem)``; a problem retries the call.
        problem: why a value is not usable for the inputs (None: usable), applied to cached values too.
        shortcut: a verdict made without a call (an empty answer has no claims), or None to call.
        defaults: inputs that may be left out, with their values.
        needs: what of a sample it needs (:data:`NEEDS`); a sample lacking one makes no such judgement.
        of_sample: its inputs for a sample (the dry run's prompt estimate; ``n`` questions).
        offline: how a judge without a model (the offline judge) makes it: ``offline(judge, **inputs)``,
            or None when only a judge with a method of its own or an LLM can.
        calls: model calls it costs an LLM judge per sample, before retries.
        definition: a criteria metric's definition (criteria judgements only).
    """

    name: str
    about: str
    inputs: tuple[str, ...]
    verdict: Any
    signature: Any
    module: str
    prompt: Callable[[Inputs], dict[str, Any]]
    read: Callable[[Any, Inputs], Reading]
    problem: Callable[[Any, Inputs], str | None] = lambda value, inputs: None
    shortcut: Callable[[Inputs], Judgement[Any] | None] = lambda inputs: None
    defaults: Mapping[str, Any] = field(default_factory=dict)
    needs: frozenset[str] = frozenset()
    of_sample: Callable[[RagSample, int], dict[str, Any]] | None = None
    offline: Callable[..., Judgement[Any]] | None = None
    calls: int = 1
    definition: CriteriaDefinition | None = None

    def bind(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The inputs by name from a call's arguments (defaults filled in).

        Raises:
            TypeError: If an input is missing, unknown or given twice.
        """
        if len(args) > len(self.inputs):
            msg = f"{self.name}() takes {len(self.inputs)} inputs ({', '.join(self.inputs)}); {len(args)} were given."
            raise TypeError(msg)
        bound = dict(zip(self.inputs, args, strict=False))
        for name, value in kwargs.items():
            if name not in self.inputs or name in bound:
                why = "is not one of its inputs" if name not in self.inputs else "was given twice"
                msg = f"{self.name}(): {name!r} {why} ({', '.join(self.inputs)})."
                raise TypeError(msg)
            bound[name] = value
        missing = [name for name in self.inputs if name not in bound and name not in self.defaults]
        if missing:
            msg = f"{self.name}() needs {', '.join(missing)}."
            raise TypeError(msg)
        return {name: bound[name] if name in bound else self.defaults[name] for name in self.inputs}

    def signature_class(self) -> Any:
        """The DSPy Signature class (imports DSPy).

        Example:
            >>> DECLARATIONS["verify_claims"].signature_class().__name__
            'ClaimVerification'
        """
        if not isinstance(self.signature, str):
            return self.signature
        module, _, name = self.signature.rpartition(":")
        return getattr(importlib.import_module(module or SIGNATURES_MODULE), name)

    def applies_to(self, sample: RagSample) -> bool:
        """Whether ``sample`` has what the judgement needs (:attr:`needs`)."""
        has = {
            "contexts": sample.has_contexts,
            "reference": bool(sample.reference and sample.reference.strip()),
            "response": bool(sample.response.strip()),
        }
        return all(has[need] for need in self.needs)


def _none(name: str, why: str) -> Judgement[Any]:
    return Judgement(name=name, value=[], reason=why)


def _empty(name: str, text_input: str, why: str) -> Callable[[Inputs], Judgement[Any] | None]:
    """A shortcut: an empty verdict without a call when ``text_input`` is empty."""

    def shortcut(inputs: Inputs) -> Judgement[Any] | None:
        value = inputs[text_input]
        empty = not value.strip() if isinstance(value, str) else not value
        return _none(name, why) if empty else None

    return shortcut


def _contexts(inputs: Inputs) -> str:
    return render_numbered(inputs["contexts"], label="Context")


# --- readers of the built-in judgements --------------------------------------------------------------


def _read_trace(prediction: Any, inputs: Inputs) -> Reading:
    notes: dict[str, Any] = {}
    labels, problem = read_trace(prediction, inputs["sample"].sentences, notes)
    return labels, notes, problem


def _read_claim_verdicts(prediction: Any, inputs: Inputs) -> Reading:
    claims = inputs["claims"]
    by_number, notes = numbered(prediction.verdicts, "claim_number", len(claims))
    verdicts = [
        v.ClaimVerdict(claim=claims[i], supported=bool(item.supported), reason=item.reason or "")
        for i, item in sorted(by_number.items())
    ]
    missing = [i + 1 for i in range(len(claims)) if i not in by_number]
    if missing:
        notes["unjudged_claims"] = missing
    return verdicts, notes, claim_verdicts_problem(verdicts, claims)


def _read_context_verdicts(prediction: Any, inputs: Inputs) -> Reading:
    contexts = inputs["contexts"]
    by_number, notes = numbered(prediction.verdicts, "context_number", len(contexts))
    verdicts = []
    for i, item in sorted(by_number.items()):
        score, clamped = clamp(item.relevance_score, 0.0, 100.0)
        if clamped:
            notes.setdefault("clamped", []).append(f"context {i + 1}: {item.relevance_score}")
        verdicts.append(
            v.ContextVerdict(index=i, relevant=bool(item.is_relevant), score=score / 100, reason=item.reasoning)
        )
    missing = [i + 1 for i in range(len(contexts)) if i not in by_number]
    if missing:
        notes["unjudged_contexts"] = missing
    return verdicts, notes, context_verdicts_problem(verdicts, len(contexts))


def _read_statements(prediction: Any, inputs: Inputs) -> Reading:
    notes: dict[str, Any] = {}
    return read_statements(prediction.statements, len(inputs["contexts"]), notes), notes, None


def _read_questions(prediction: Any, inputs: Inputs) -> Reading:
    notes: dict[str, Any] = {}
    return read_questions(prediction.questions, inputs["n"], notes), notes, None


def _read_rubric(prediction: Any, inputs: Inputs) -> Reading:
    score = float(prediction.score)
    notes: dict[str, Any] = {}
    if 1.1 < score <= 100.0:
        notes["rescaled"] = f"{score} read as a percentage"
        score /= 100.0
    score, clamped = clamp(score, 0.0, 1.0)
    if clamped:
        notes["clamped"] = prediction.score
    return v.RubricScore(score=score, reason=prediction.reasoning or ""), notes, None


def _read_accuracy(prediction: Any, inputs: Inputs) -> Reading:
    notes: dict[str, Any] = {}
    return read_geval(prediction, notes, overall=prediction.overall_reasoning or ""), notes, None


def _read_reference(prediction: Any, inputs: Inputs) -> Reading:
    notes: dict[str, Any] = {}
    value = v.ReferenceAssessment(
        statements=read_statements(prediction.statements, len(inputs["contexts"]), notes),
        accuracy=read_geval(prediction, notes),
        label=read_label(prediction.classification, prediction.classification_reason),
    )
    return value, notes, None


def _read_everything(prediction: Any, inputs: Inputs) -> Reading:
    sample: RagSample = inputs["sample"]
    notes: dict[str, Any] = {}
    labels, problem = read_trace(prediction, sample.sentences, notes)
    if not sample.has_contexts:  # the TRACe part goes unused (the context metrics are undetermined)
        problem = None
    reference = None
    if sample.reference and sample.reference.strip():
        reference = v.ReferenceAssessment(
            statements=read_statements(prediction.statements, len(sample.contexts), notes),
            accuracy=read_geval(prediction, notes),
            label=read_label(prediction.classification, ""),
        )
    questions = read_questions(prediction.questions, inputs["n"], notes)
    return v.FullAssessment(trace=labels, reference=reference, questions=questions), notes, problem


def _about_answer(sample: RagSample, n: int) -> dict[str, Any]:
    return {"question": sample.question, "answer": sample.response, "reference": sample.reference or ""}


def _against_reference(
    name: str, about: str, verdict: Any, signature: str, read: Callable[[Any, Inputs], Reading]
) -> Declaration[Any]:
    """A judgement of the answer against the reference (its Signature names the reference ``ground_truth``)."""
    return Declaration(
        name=name,
        about=about,
        inputs=("question", "answer", "reference"),
        verdict=verdict,
        signature=signature,
        module=f"{signature}Judge",
        prompt=lambda x: {"question": x["question"], "ground_truth": x["reference"], "answer": x["answer"]},
        read=read,
        needs=frozenset({"reference"}),
        of_sample=_about_answer,
    )


# --- the built-in judgements ------------------------------------------------------------------------------

_BUILT_IN: tuple[Declaration[Any], ...] = (
    Declaration(
        name="trace_labels",
        about="TRACe sentence labels: relevant and utilized keys, per-sentence support (one call)",
        inputs=("sample",),
        verdict=TraceLabels,
        signature="TraceLabelling",
        module="TraceLabellingJudge",
        prompt=lambda x: trace_inputs(x["sample"]),
        read=_read_trace,
        problem=lambda value, x: trace_problem(value, x["sample"].sentences, {}),
        needs=frozenset({"contexts"}),
        of_sample=lambda s, n: {"sample": s},
    ),
    Declaration(
        name="extract_claims",
        about="atomic factual claims of an answer",
        inputs=("question", "answer"),
        verdict=list[str],
        signature="ClaimExtraction",
        module="ClaimExtractionJudge",
        prompt=lambda x: {"question": x["question"], "answer": x["answer"]},
        read=lambda p, x: (clean_strings(p.claims), {}, None),
        problem=lambda value, x: strings_problem(value, "claims"),
        shortcut=_empty("extract_claims", "answer", "The answer is empty."),
        needs=frozenset({"contexts", "response"}),
        of_sample=lambda s, n: {"question": s.question, "answer": s.response},
    ),
    Declaration(
        name="verify_claims",
        about="supported / not supported for every claim against the contexts (one call)",
        inputs=("claims", "contexts"),
        verdict=list[v.ClaimVerdict],
        signature="ClaimVerification",
        module="ClaimVerificationJudge",
        prompt=lambda x: {"context": _contexts(x), "claims": render_numbered(x["claims"])},
        read=_read_claim_verdicts,
        problem=lambda value, x: claim_verdicts_problem(value, x["claims"]),
        shortcut=_empty("verify_claims", "claims", "There are no claims to verify."),
        needs=frozenset({"contexts"}),
        # the response sentences stand in for the claims
        of_sample=lambda s, n: {"claims": [t for _, t in s.sentences.response], "contexts": s.contexts},
    ),
    Declaration(
        name="context_relevance",
        about="relevant / not relevant for every context (one call)",
        inputs=("question", "contexts", "reference"),
        defaults={"reference": None},
        verdict=list[v.ContextVerdict],
        signature="ContextRelevance",
        module="ContextRelevanceJudge",
        prompt=lambda x: {"question": x["question"], "reference": x["reference"] or "none", "contexts": _contexts(x)},
        read=_read_context_verdicts,
        problem=lambda value, x: context_verdicts_problem(value, len(x["contexts"])),
        shortcut=_empty("context_relevance", "contexts", "There are no contexts."),
        needs=frozenset({"contexts"}),
        of_sample=lambda s, n: {"question": s.question, "contexts": s.contexts, "reference": s.reference},
    ),
    Declaration(
        name="attribute_reference",
        about="reference statements and whether each is attributable to the contexts (one call)",
        inputs=("question", "reference", "contexts"),
        verdict=list[v.StatementVerdict],
        signature="ReferenceAttribution",
        module="ReferenceAttributionJudge",
        prompt=lambda x: {"question": x["question"], "reference": x["reference"], "contexts": _contexts(x)},
        read=_read_statements,
        problem=lambda value, x: statements_problem(value, len(x["contexts"])),
        shortcut=_empty("attribute_reference", "reference", "The reference is empty."),
        needs=frozenset({"contexts", "reference"}),
        of_sample=lambda s, n: {"question": s.question, "reference": s.reference or "", "contexts": s.contexts},
    ),
    Declaration(
        name="generate_questions",
        about="questions the answer would answer (n=3)",
        inputs=("answer", "n"),
        defaults={"n": 3},
        verdict=list[str],
        signature="QuestionGeneration",
        module="QuestionGenerationJudge",
        prompt=lambda x: {"answer": x["answer"], "n": x["n"]},
        read=_read_questions,
        problem=lambda value, x: strings_problem(value, "questions", x["n"]),
        shortcut=_empty("generate_questions", "answer", "The answer is empty."),
        needs=frozenset({"response"}),
        of_sample=lambda s, n: {"answer": s.response, "n": n},
    ),
    Declaration(
        name="rate_answer_relevance",
        about="a direct 0-1 rubric score of how well the answer addresses the question",
        inputs=("question", "answer"),
        verdict=v.RubricScore,
        signature="AnswerRelevanceRubric",
        module="AnswerRelevanceRubricJudge",
        prompt=lambda x: {"question": x["question"], "answer": x["answer"]},
        read=_read_rubric,
        needs=frozenset({"response"}),
        of_sample=lambda s, n: {"question": s.question, "answer": s.response},
    ),
    _against_reference(
        "factual_accuracy",
        "GEval correctness, completeness and consistency (0-100 each) against a reference",
        v.FactualAccuracyVerdict,
        "FactualAccuracy",
        _read_accuracy,
    ),
    _against_reference(
        "classify_answer",
        "CORRECT or WRONG against a reference",
        v.AnswerLabel,
        "AnswerClassification",
        lambda p, x: (read_label(p.classification, p.reason), {}, None),
    ),
    Declaration(
        name="assess_reference",
        about="in one call: reference statements with attribution, GEval criteria, CORRECT/WRONG",
        inputs=("question", "answer", "reference", "contexts"),
        verdict=v.ReferenceAssessment,
        signature="ReferenceComparison",
        module="ReferenceComparisonJudge",
        prompt=lambda x: {
            "question": x["question"],
            "answer": x["answer"],
            "reference": x["reference"],
            "contexts": _contexts(x),
        },
        read=_read_reference,
        problem=lambda value, x: reference_problem(value, len(x["contexts"])),
        needs=frozenset({"reference"}),
        of_sample=lambda s, n: {**_about_answer(s, n), "contexts": s.contexts},
    ),
    Declaration(
        name="assess_all",
        about="in one call: TRACe labels, reference statements, GEval criteria, CORRECT/WRONG, questions",
        inputs=("sample", "n"),
        defaults={"n": 3},
        verdict=v.FullAssessment,
        signature="CompleteAssessment",
        module="CompleteAssessmentJudge",
        prompt=lambda x: {**trace_inputs(x["sample"]), "reference": x["sample"].reference or "none", "n": x["n"]},
        read=_read_everything,
        problem=lambda value, x: assess_all_problem(value, x["sample"], x["n"]),
        of_sample=lambda s, n: {"sample": s, "n": n},
    ),
)

#: Every judgement a judge may make (criteria metrics' aside: :func:`criteria_declaration`), by name.
DECLARATIONS: dict[str, Declaration[Any]] = {d.name: d for d in _BUILT_IN}
#: The built-in judgements' names.
BUILT_IN_JUDGEMENTS = frozenset(DECLARATIONS)


def declare(declaration: Declaration[Any]) -> Declaration[Any]:
    """Add a judgement of one's own (or replace one of one's own of the same name); returns it.

    Raises:
        ValueError: If it would replace a built-in judgement, is named like a criteria judgement, or needs
            something :data:`NEEDS` does not name.
    """
    _check_own(declaration.name)
    if not declaration.needs <= NEEDS:
        msg = f"A judgement needs only {sorted(NEEDS)} of a sample. Got {sorted(declaration.needs)}."
        raise ValueError(msg)
    DECLARATIONS[declaration.name] = declaration
    return declaration


def undeclare(name: str) -> None:
    """Take a judgement of one's own out (nothing happens for one not declared).

    Raises:
        ValueError: If ``name`` is a built-in or criteria judgement's.
    """
    _check_own(name)
    DECLARATIONS.pop(name, None)


def _check_own(name: str) -> None:
    if name in BUILT_IN_JUDGEMENTS or name.startswith(CRITERIA):
        msg = f"{name!r} is a built-in or criteria judgement's name: a judgement of one's own needs another."
        raise ValueError(msg)


def _read_criteria(definition: CriteriaDefinition) -> Callable[[Any, Inputs], Reading]:
    def read(prediction: Any, inputs: Inputs) -> Reading:
        level = definition.level_of(prediction.score)
        if level is None:
            levels = ", ".join(f"{x:g}" for x in definition.levels)
            return None, {}, f"the score {prediction.score!r} is not one of the rubric's ({levels})"
        reason = str(prediction.reason or "").strip()
        return v.CriteriaScore(level=level, score=definition.score_of(level), reason=reason), {}, None

    return read


def criteria_declaration(definition: CriteriaDefinition) -> Declaration[v.CriteriaScore]:
    """A criteria metric's judgement, declared from its definition: one call on the fields it uses.

    Example:
        >>> d = criteria_declaration(CriteriaDefinition(name="polite", criteria="Polite?",
        ...                                             rubric={1: "rude", 5: "warm"}, uses=("response",)))
        >>> d.name, d.inputs, d.prompt({"sample": RagSample(question="Q?", contexts=[], response="Hi!")})
        ('criteria:polite', ('sample',), {'response': 'Hi!'})
    """
    return Declaration(
        name=definition.judgement,
        about=f"the criteria metric {definition.name!r}: a rubric level for {definition.criteria!r}",
        inputs=("sample",),
        verdict=v.CriteriaScore,
        signature=None,
        module="CriteriaJudge",
        prompt=lambda x: criteria_inputs(definition, x["sample"]),
        read=_read_criteria(definition),
        of_sample=lambda s, n: {"sample": s},
        definition=definition,
    )


def declaration_of(judgement: str) -> Declaration[Any] | None:
    """The declaration of a judgement name: a declared one, or a registered criteria metric's (else None).

    Example:
        >>> declaration_of("classify_answer").inputs, declaration_of("criteria:nobody")
        (('question', 'answer', 'reference'), None)
    """
    if judgement in DECLARATIONS:
        return DECLARATIONS[judgement]
    prefix = CRITERIA + ":"
    if judgement.startswith(prefix) and judgement[len(prefix) :] in CRITERIA_DEFINITIONS:
        return criteria_declaration(CRITERIA_DEFINITIONS[judgement[len(prefix) :]])
    return None
