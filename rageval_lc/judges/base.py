"""What every judge returns, and the judgements a judge can make — no model, no framework import.

A judge turns inputs into verdicts (:data:`JUDGEMENTS` names them). Each call returns a
:class:`Judgement`: the verdict when the judge produced a usable one (``ok``), or ``undetermined``
with the reason and the raw model output when it did not, or ``error`` when the model call failed.
Metrics turn verdicts into numbers; a judge never computes a score.

Example:
    >>> j = Judgement[list[str]](name="extract_claims", value=["Paris is in France."],
    ...                          usage=JudgeUsage(calls=1, prompt_tokens=120, completion_tokens=9))
    >>> j.ok, j.usage.total
    (True, 129)
"""

from __future__ import annotations

from typing import Any, Generic, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rageval_lc.schema import RagSample, TraceLabels

__all__ = [
    "JUDGEMENTS",
    "AnswerLabel",
    "ClaimVerdict",
    "ContextVerdict",
    "FactualAccuracyVerdict",
    "FullAssessment",
    "Judge",
    "JudgeUsage",
    "Judgement",
    "ReferenceAssessment",
    "RubricScore",
    "StatementVerdict",
    "unsupported",
]

T = TypeVar("T")

#: Every judgement a judge may support, with what it produces.
JUDGEMENTS: dict[str, str] = {
    "trace_labels": "TRACe sentence labels: relevant and utilized keys, per-sentence support (one call)",
    "extract_claims": "atomic factual claims of an answer",
    "verify_claims": "supported / not supported for every claim against the contexts (one call)",
    "context_relevance": "relevant / not relevant for every context (one call)",
    "attribute_reference": "reference statements and whether each is attributable to the contexts (one call)",
    "generate_questions": "questions the answer would answer (n=3)",
    "rate_answer_relevance": "a direct 0-1 rubric score of how well the answer addresses the question",
    "factual_accuracy": "GEval correctness, completeness and consistency (0-100 each) against a reference",
    "classify_answer": "CORRECT or WRONG against a reference",
    "assess_reference": "in one call: reference statements with attribution, GEval criteria, CORRECT/WRONG",
    "assess_all": "in one call: TRACe labels, reference statements, GEval criteria, CORRECT/WRONG, questions",
}


class JudgeUsage(BaseModel):
    """Model calls and tokens spent on one judgement (or summed over several).

    ``prompt_tokens`` / ``completion_tokens`` are what the provider reported (None when it reported
    nothing); ``estimated_tokens`` is always filled, from the characters sent and received (÷ 4).
    """

    model_config = ConfigDict(frozen=True)

    calls: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    estimated_tokens: int = 0

    @property
    def total(self) -> int | None:
        """Reported prompt + completion tokens, or None when the provider reported none."""
        if self.prompt_tokens is None and self.completion_tokens is None:
            return None
        return (self.prompt_tokens or 0) + (self.completion_tokens or 0)

    def __add__(self, other: JudgeUsage) -> JudgeUsage:
        def add(a: int | None, b: int | None) -> int | None:
            return None if a is None and b is None else (a or 0) + (b or 0)

        return JudgeUsage(
            calls=self.calls + other.calls,
            prompt_tokens=add(self.prompt_tokens, other.prompt_tokens),
            completion_tokens=add(self.completion_tokens, other.completion_tokens),
            estimated_tokens=self.estimated_tokens + other.estimated_tokens,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready figures."""
        return {
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total,
            "estimated_tokens": self.estimated_tokens,
        }


class Judgement(BaseModel, Generic[T]):
    """One judgement's outcome.

    Attributes:
        name: the judgement (a key of :data:`JUDGEMENTS`).
        value: the verdict; None unless ``status`` is ``ok``.
        status: ``ok``, ``undetermined`` (no usable verdict after the allowed attempts) or ``error``
            (the model could not be called).
        reason: why it is not ``ok``, or the judge's own summary.
        raw: the last raw model output, kept when the verdict was unusable.
        attempts: model attempts made (0 for judges that call no model).
        usage: calls and tokens spent.
        notes: what validation did (keys dropped, values clamped) and extras such as
            ``adherence_probability``.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    name: str
    value: T | None = None
    status: Literal["ok", "undetermined", "error"] = "ok"
    reason: str = ""
    raw: str | None = None
    attempts: int = 0
    usage: JudgeUsage = Field(default_factory=JudgeUsage)
    notes: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> Judgement[T]:
        if self.status == "ok" and self.value is None:
            msg = f"An 'ok' Judgement needs a value ({self.name!r})."
            raise ValueError(msg)
        if self.status != "ok" and not self.reason:
            msg = f"A {self.status!r} Judgement needs a reason ({self.name!r})."
            raise ValueError(msg)
        return self

    @property
    def ok(self) -> bool:
        """True when the verdict is usable."""
        return self.status == "ok"


class ClaimVerdict(BaseModel):
    """Whether one claim is supported by the contexts."""

    model_config = ConfigDict(frozen=True)

    claim: str
    supported: bool
    reason: str = ""


class ContextVerdict(BaseModel):
    """Whether one retrieved context (0-based ``index``) helps answer the question."""

    model_config = ConfigDict(frozen=True)

    index: int
    relevant: bool
    score: float | None = None  # 0-1 when the judge grades as well
    reason: str = ""


class StatementVerdict(BaseModel):
    """One statement of the reference answer and whether the contexts support it."""

    model_config = ConfigDict(frozen=True)

    statement: str
    attributed: bool
    context_index: int | None = None  # 0-based index of the supporting context, when named
    reason: str = ""


class RubricScore(BaseModel):
    """A 0-1 score on a rubric, with the judge's reason."""

    model_config = ConfigDict(frozen=True)

    score: float = Field(ge=0.0, le=1.0)
    reason: str = ""


class FactualAccuracyVerdict(BaseModel):
    """GEval's three criteria, each 0-100 (None when the judge cannot assess one)."""

    model_config = ConfigDict(frozen=True)

    correctness: float | None = Field(default=None, ge=0.0, le=100.0)
    completeness: float | None = Field(default=None, ge=0.0, le=100.0)
    consistency: float | None = Field(default=None, ge=0.0, le=100.0)
    correctness_reason: str = ""
    completeness_reason: str = ""
    consistency_reason: str = ""
    overall_reason: str = ""


class AnswerLabel(BaseModel):
    """CORRECT or WRONG against the reference answer."""

    model_config = ConfigDict(frozen=True)

    label: Literal["CORRECT", "WRONG"]
    reason: str = ""


class ReferenceAssessment(BaseModel):
    """Everything a reference answer lets a judge say in one pass."""

    model_config = ConfigDict(frozen=True)

    statements: list[StatementVerdict] = Field(default_factory=list)
    accuracy: FactualAccuracyVerdict = Field(default_factory=FactualAccuracyVerdict)
    label: AnswerLabel | None = None


class FullAssessment(BaseModel):
    """Every judgement of a sample in one pass (the fused mode)."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    trace: TraceLabels
    reference: ReferenceAssessment | None = None
    questions: list[str] = Field(default_factory=list)


@runtime_checkable
class Judge(Protocol):
    """A judge: a name, the judgements it supports, and one method per judgement it supports.

    Methods a judge does not support need not exist; :attr:`supports` says which do.
    """

    name: str
    supports: frozenset[str]

    def planned_calls(self, judgement: str) -> int:
        """Model calls one ``judgement`` costs per sample, before any retry (0 for no model)."""
        ...

    def trace_labels(self, sample: RagSample) -> Judgement[TraceLabels]:
        """Label the sample's sentences for TRACe."""
        ...


def unsupported(judge: object, judgement: str) -> str:
    """The message for a judgement a judge cannot make."""
    supported = ", ".join(sorted(getattr(judge, "supports", ()))) or "none"
    return (
        f"The {getattr(judge, 'name', type(judge).__name__)!r} judge cannot make the {judgement!r} judgement "
        f"(it supports: {supported})."
    )
