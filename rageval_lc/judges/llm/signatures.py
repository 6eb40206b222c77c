"""Every LLM judgement as a DSPy Signature: the docstring is the instruction, outputs are typed.

Importing this module imports DSPy; nothing in ``import rageval_lc`` does.

Example:
    >>> sorted(SIGNATURES)[:3]
    ['assess_all', 'assess_reference', 'attribute_reference']
    >>> list(TraceLabelling.output_fields)[:2]
    ['relevance_explanation', 'all_relevant_sentence_keys']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import dspy
from pydantic import BaseModel, Field

from rageval_lc.judges.declarations import BUILT_IN_JUDGEMENTS, DECLARATIONS

if TYPE_CHECKING:
    from rageval_lc.verdicts import CriteriaDefinition

__all__ = [
    "SIGNATURES",
    "AnswerClassification",
    "AnswerRelevanceRubric",
    "ClaimExtraction",
    "ClaimVerification",
    "CompleteAssessment",
    "ContextRelevance",
    "FactualAccuracy",
    "QuestionGeneration",
    "ReferenceAttribution",
    "ReferenceComparison",
    "TraceLabelling",
    "criteria_signature",
]


class SentenceSupportItem(BaseModel):
    """The support verdict for one response sentence."""

    response_sentence_key: str = Field(description="the key of the response sentence, e.g. 'a'")
    explanation: str = Field(description="why the sentence is or is not supported, naming document keys")
    supporting_sentence_keys: list[str] = Field(
        description="document sentence keys that support it; or one of 'supported_without_sentence', 'general', "
        "'well_known_fact', 'numerical_reasoning' when the support is not a document sentence"
    )
    fully_supported: bool = Field(description="true only if every part of the sentence is supported")


class TraceLabelling(dspy.Signature):
    """Someone answered a question using retrieved documents. Review the answer sentence by sentence.

    The documents and the response are split into sentences, each shown after its key: document
    sentences as '0a', '0b', '1a', ... (document number, then letters), response sentences as 'a', 'b', ...
    Refer to sentences only by these keys.

    1. Decide which document sentences contain information useful for answering the question
       (all_relevant_sentence_keys), and explain briefly (relevance_explanation).
    2. For every response sentence, in order, say whether it is fully supported by the documents,
       which document sentences support it, and why (sentence_support_information). A sentence that is
       only partly supported, or that adds anything the documents do not state, is not fully supported.
       A sentence that needs no support (a transition, or a well-known fact) may cite
       'supported_without_sentence', 'general' or 'well_known_fact'; a calculation from document numbers
       may cite 'numerical_reasoning'.
    3. Say whether the response as a whole is supported (overall_supported) and explain.
    4. List the document sentences the response actually used (all_utilized_sentence_keys).
    """

    question: str = dspy.InputField()
    documents: str = dspy.InputField(desc="the documents, one keyed sentence per line")
    response: str = dspy.InputField(desc="the response, one keyed sentence per line")
    relevance_explanation: str = dspy.OutputField()
    all_relevant_sentence_keys: list[str] = dspy.OutputField(desc="document sentence keys, e.g. ['0a', '1c']")
    overall_supported_explanation: str = dspy.OutputField()
    overall_supported: bool = dspy.OutputField()
    sentence_support_information: list[SentenceSupportItem] = dspy.OutputField(
        desc="one entry per response sentence, in order"
    )
    all_utilized_sentence_keys: list[str] = dspy.OutputField(desc="document sentence keys the response used")


class ClaimExtraction(dspy.Signature):
    """Break the answer into atomic, self-contained factual claims.

    Each claim holds exactly one piece of information, makes sense without the question, and can be
    checked against a source. Replace pronouns with what they refer to. Leave out opinions, questions
    and hypotheticals, and do not change the meaning. An answer with no factual content has no claims.
    """

    question: str = dspy.InputField()
    answer: str = dspy.InputField()
    claims: list[str] = dspy.OutputField(desc="one string per atomic claim")


class ClaimVerdictItem(BaseModel):
    """The verdict for one claim."""

    claim_number: int = Field(description="the claim's number as listed (1, 2, ...)")
    supported: bool = Field(description="true only if the context states or directly implies the claim")
    reason: str = Field(description="a brief explanation")


class ClaimVerification(dspy.Signature):
    """Decide, for every claim, whether the context supports it. Use only what the context says.

    A claim is supported if it can be directly inferred from the context. It is not supported if the
    context contradicts it or does not mention it. Give exactly one verdict per claim, in order.
    """

    context: str = dspy.InputField(desc="the retrieved contexts, numbered")
    claims: str = dspy.InputField(desc="the claims to check, numbered 1, 2, ...")
    verdicts: list[ClaimVerdictItem] = dspy.OutputField()


class ContextVerdictItem(BaseModel):
    """The verdict for one context."""

    context_number: int = Field(description="the context's number as listed (1, 2, ...)")
    is_relevant: bool = Field(description="true if it holds information useful for answering the question")
    relevance_score: int = Field(description="0-100, how useful it is")
    reasoning: str = Field(description="a brief explanation")


class ContextRelevance(dspy.Signature):
    """For every retrieved context, decide whether it contains information useful for answering the question.

    A context is relevant if it directly helps answer the question, provides facts or definitions the
    answer needs, or would serve as supporting evidence for an answer. Give exactly one verdict per
    context, in order.
    """

    question: str = dspy.InputField()
    reference: str = dspy.InputField(desc="a reference answer, or 'none'")
    contexts: str = dspy.InputField(desc="the contexts, numbered 1, 2, ...")
    verdicts: list[ContextVerdictItem] = dspy.OutputField()


class StatementItem(BaseModel):
    """One statement of the reference answer and its attribution."""

    statement: str = Field(description="an atomic statement taken from the reference answer")
    attributed: bool = Field(description="true if the statement can be found in or inferred from the contexts")
    supporting_context: int | None = Field(description="the number of the supporting context, or null")
    reason: str = Field(description="a brief explanation")


class ReferenceAttribution(dspy.Signature):
    """Break the reference answer into atomic statements, then check each against the contexts.

    Extract every distinct piece of information of the reference (facts, relationships, quantities,
    names, dates) as a self-contained statement, without adding interpretation. For each, decide
    whether it can be found in or inferred from the contexts, and name the supporting context.
    """

    question: str = dspy.InputField()
    reference: str = dspy.InputField(desc="the reference (ground-truth) answer")
    contexts: str = dspy.InputField(desc="the contexts, numbered 1, 2, ...")
    statements: list[StatementItem] = dspy.OutputField()


class QuestionGeneration(dspy.Signature):
    """Write questions that the given answer would be a good response to.

    The questions should be natural and well-formed, each answerable by the answer, and cover
    different aspects of it.
    """

    answer: str = dspy.InputField()
    n: int = dspy.InputField(desc="how many questions to write")
    questions: list[str] = dspy.OutputField()


class AnswerRelevanceRubric(dspy.Signature):
    """Rate how well the answer addresses the question.

    1.0: directly and completely addresses it; 0.75: mostly, with minor gaps; 0.5: partially;
    0.25: only tangentially related; 0.0: irrelevant.
    """

    question: str = dspy.InputField()
    answer: str = dspy.InputField()
    score: float = dspy.OutputField(desc="0.0 to 1.0")
    reasoning: str = dspy.OutputField()


class FactualAccuracy(dspy.Signature):
    """Assess the factual accuracy of the candidate answer against the ground truth, step by step.

    Correctness (are the answer's facts accurate?): 90-100 all accurate; 70-89 minor inaccuracies;
    50-69 notable errors but main points right; 30-49 several significant errors; 0-29 mostly wrong.
    Completeness (is the ground truth's essential information present?): 90-100 all of it; 70-89 most;
    50-69 core only; 30-49 significant gaps; 0-29 most missing.
    Consistency (is the answer internally consistent?): 90-100 no contradictions; 70-89 minor ambiguity;
    50-69 some inconsistency; 30-49 notable contradictions; 0-29 highly contradictory.
    """

    question: str = dspy.InputField()
    ground_truth: str = dspy.InputField()
    answer: str = dspy.InputField()
    correctness_reasoning: str = dspy.OutputField()
    correctness: int = dspy.OutputField(desc="0-100")
    completeness_reasoning: str = dspy.OutputField()
    completeness: int = dspy.OutputField(desc="0-100")
    consistency_reasoning: str = dspy.OutputField()
    consistency: int = dspy.OutputField(desc="0-100")
    overall_reasoning: str = dspy.OutputField()


class AnswerClassification(dspy.Signature):
    """Classify the candidate answer as CORRECT or WRONG by comparing it to the ground truth.

    CORRECT: factually correct and addresses the question as the ground truth does. WRONG: factually
    incorrect, incomplete, or not answering the question. Consider factual accuracy, completeness and
    whether the core question is answered.
    """

    question: str = dspy.InputField()
    ground_truth: str = dspy.InputField()
    answer: str = dspy.InputField()
    classification: Literal["CORRECT", "WRONG"] = dspy.OutputField()
    reason: str = dspy.OutputField()


class ReferenceComparison(dspy.Signature):
    """Compare a candidate answer with the reference (ground-truth) answer and the retrieved contexts, in one pass.

    1. Break the reference answer into atomic, self-contained statements (facts, names, dates, quantities),
       and for each decide whether it can be found in or inferred from the contexts (name the context).
    2. Rate the candidate answer against the reference. Correctness (are its facts accurate?): 90-100 all
       accurate; 70-89 minor inaccuracies; 50-69 notable errors; 30-49 several significant errors; 0-29
       mostly wrong. Completeness (is the reference's essential information present?): 90-100 all; 70-89
       most; 50-69 core only; 30-49 significant gaps; 0-29 most missing. Consistency (is the answer
       internally consistent?): 90-100 no contradictions; 70-89 minor ambiguity; 50-69 some; 30-49
       notable; 0-29 highly contradictory.
    3. Classify the candidate answer: CORRECT if it is factually correct and answers the question as the
       reference does, otherwise WRONG.
    """

    question: str = dspy.InputField()
    answer: str = dspy.InputField(desc="the candidate answer")
    reference: str = dspy.InputField(desc="the reference answer")
    contexts: str = dspy.InputField(desc="the retrieved contexts, numbered 1, 2, ...")
    statements: list[StatementItem] = dspy.OutputField()
    correctness_reasoning: str = dspy.OutputField()
    correctness: int = dspy.OutputField(desc="0-100")
    completeness_reasoning: str = dspy.OutputField()
    completeness: int = dspy.OutputField(desc="0-100")
    consistency_reasoning: str = dspy.OutputField()
    consistency: int = dspy.OutputField(desc="0-100")
    classification: Literal["CORRECT", "WRONG"] = dspy.OutputField()
    classification_reason: str = dspy.OutputField()


class CompleteAssessment(dspy.Signature):
    """Assess a retrieval-augmented answer completely, in one pass.

    The documents and the response are split into sentences shown after their keys: document sentences
    '0a', '0b', '1a', ...; response sentences 'a', 'b', .... Refer to sentences only by these keys.

    1. List the document sentences useful for answering the question (all_relevant_sentence_keys).
    2. For every response sentence, in order, say whether it is fully supported by the documents, which
       document sentences support it, and why (sentence_support_information). Partly supported is not
       fully supported. 'supported_without_sentence', 'general', 'well_known_fact' or
       'numerical_reasoning' may stand in for document keys.
    3. Say whether the whole response is supported (overall_supported) and list the document sentences it
       used (all_utilized_sentence_keys).
    4. If a reference answer is given (not 'none'): break it into statements attributed (or not) to the
       documents (statements; supporting_context is the document number plus 1); rate the response's
       correctness, completeness and consistency against it (0-100 each); classify the response as
       CORRECT or WRONG. With no reference give no statements, zeros and WRONG.
    5. Write n questions that the response would be a good answer to.
    """

    question: str = dspy.InputField()
    documents: str = dspy.InputField(desc="the documents, one keyed sentence per line")
    response: str = dspy.InputField(desc="the response, one keyed sentence per line")
    reference: str = dspy.InputField(desc="the reference answer, or 'none'")
    n: int = dspy.InputField(desc="how many questions to write")
    relevance_explanation: str = dspy.OutputField()
    all_relevant_sentence_keys: list[str] = dspy.OutputField()
    overall_supported_explanation: str = dspy.OutputField()
    overall_supported: bool = dspy.OutputField()
    sentence_support_information: list[SentenceSupportItem] = dspy.OutputField(
        desc="one entry per response sentence, in order"
    )
    all_utilized_sentence_keys: list[str] = dspy.OutputField()
    statements: list[StatementItem] = dspy.OutputField()
    correctness: int = dspy.OutputField(desc="0-100")
    completeness: int = dspy.OutputField(desc="0-100")
    consistency: int = dspy.OutputField(desc="0-100")
    classification: Literal["CORRECT", "WRONG"] = dspy.OutputField()
    questions: list[str] = dspy.OutputField()


#: Judgement name → Signature, for every built-in judgement (each declaration names its Signature here).
SIGNATURES: dict[str, type[dspy.Signature]] = {
    name: globals()[d.signature] for name, d in DECLARATIONS.items() if name in BUILT_IN_JUDGEMENTS
}


#: What each sample field is, for a criteria Signature's input fields.
_CRITERIA_INPUTS: dict[str, str] = {
    "question": "the user's question",
    "contexts": "the retrieved contexts, numbered [Context 1], [Context 2], ...",
    "response": "the response (answer) to judge",
    "reference": "the reference (ground-truth) answer",
}


def _number(level: float) -> str:
    return f"{level:g}"


def criteria_signature(definition: CriteriaDefinition) -> type[dspy.Signature]:
    """A Signature judging ``definition``'s criteria: its instructions carry the criteria and the rubric, its
    inputs are the fields the definition ``uses``, its outputs a ``reason`` and a ``score`` (a rubric level).

    Example:
        >>> from rageval_lc.verdicts import CriteriaDefinition
        >>> d = CriteriaDefinition(name="polite", criteria="Is the answer polite?",
        ...                        rubric={0: "rude", 1: "polite"}, uses=("question", "response"))
        >>> signature = criteria_signature(d)
        >>> list(signature.input_fields), list(signature.output_fields)
        (['question', 'response'], ['reason', 'score'])
        >>> print(signature.instructions)
        Judge the inputs on the criteria 'polite'.
        <BLANKLINE>
        Criteria: Is the answer polite?
        <BLANKLINE>
        Rubric (score: what it means):
        0: rude
        1: polite
        <BLANKLINE>
        Give the reason first, then the score: exactly one of the rubric's scores (0, 1).
    """
    levels = definition.levels
    rubric = "\n".join(f"{_number(level)}: {definition.rubric[level]}" for level in levels)
    allowed = ", ".join(_number(level) for level in levels)
    instructions = (
        f"Judge the inputs on the criteria {definition.name!r}.\n\nCriteria: {definition.criteria.strip()}\n\n"
        f"Rubric (score: what it means):\n{rubric}\n\n"
        f"Give the reason first, then the score: exactly one of the rubric's scores ({allowed})."
    )
    fields: dict[str, tuple[type, object]] = {
        name: (str, dspy.InputField(desc=_CRITERIA_INPUTS[name])) for name in definition.uses
    }
    fields["reason"] = (str, dspy.OutputField(desc="why the inputs deserve the score"))
    fields["score"] = (float, dspy.OutputField(desc=f"one of: {allowed}"))
    name = "Criteria" + "".join(part.capitalize() for part in definition.name.split("_"))
    return dspy.make_signature(fields, instructions, signature_name=name)
