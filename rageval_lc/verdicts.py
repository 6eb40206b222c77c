"""What every judgement produces: a :class:`Judgement` holding a verdict, and the verdicts themselves — plain
pydantic models, no judge, no model, no framework import.

A judgement's value is ``ok`` when the judge produced a usable verdict, else ``undetermined`` (with the reason
and the raw model output) or ``error`` (the model call failed). Metrics turn verdicts into numbers.

Example:
    >>> j = Judgement[list[str]](name="extract_claims", value=["Paris is in France."],
    ...                          usage=JudgeUsage(calls=1, prompt_tokens=120, completion_tokens=9))
    >>> j.ok, j.usage.total
    (True, 129)
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rageval_lc.schema import TraceLabels

__all__ = [
    "CRITERIA",
    "CRITERIA_DEFINITIONS",
    "CRITERIA_FIELDS",
    "AnswerLabel",
    "ClaimVerdict",
    "ContextVerdict",
    "CriteriaDefinition",
    "CriteriaScore",
    "FactualAccuracyVerdict",
    "FullAssessment",
    "JudgeUsage",
    "Judgement",
    "ReferenceAssessment",
    "RubricScore",
    "StatementVerdict",
    "judgement_kind",
]

T = TypeVar("T")

#: The judgement kind of the user's criteria metrics (:func:`rageval_lc.criteria_metric`): a judge that
#: supports it has a ``criteria(definition, sample)`` method and makes each criteria metric's judgement,
#: named ``criteria:<metric>``, in one call of its own.
CRITERIA = "criteria"
#: The sample fields a criteria judgement may read, in prompt order.
CRITERIA_FIELDS: tuple[str, ...] = ("question", "contexts", "response", "reference")


def judgement_kind(judgement: str) -> str:
    """The kind of a judgement name: ``criteria`` for ``criteria:<metric>``, else the name itself.

    Example:
        >>> judgement_kind("criteria:helpfulness"), judgement_kind("trace_labels")
        ('criteria', 'trace_labels')
    """
    return CRITERIA if judgement.startswith(CRITERIA + ":") else judgement


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
        figures = self.model_dump()
        estimated = figures.pop("estimated_tokens")
        return {**figures, "total_tokens": self.total, "estimated_tokens": estimated}


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


class CriteriaDefinition(BaseModel):
    """A criteria metric's judgement: what to judge, the rubric levels, and the sample fields it reads.

    A judge answers with one rubric level; the score is the level rescaled to [0, 1] over the rubric's
    range, ``(level - lowest) / (highest - lowest)`` (a 1-5 rubric's 4 scores 0.75).

    Example:
        >>> d = CriteriaDefinition(name="polite", criteria="Is the answer polite?",
        ...                        rubric={1: "rude", 3: "neutral", 5: "warm"}, uses=("response",))
        >>> d.judgement, d.score_of(4.0), d.level_of("5"), d.level_of(4.5)
        ('criteria:polite', 0.75, 5.0, None)
    """

    model_config = ConfigDict(frozen=True)

    name: str
    criteria: str
    rubric: dict[float, str]
    uses: tuple[str, ...]

    @property
    def judgement(self) -> str:
        """The judgement's name: ``criteria:<name>``."""
        return f"{CRITERIA}:{self.name}"

    @property
    def levels(self) -> list[float]:
        """The rubric levels, lowest first."""
        return sorted(self.rubric)

    def level_of(self, value: Any) -> float | None:
        """The rubric level ``value`` names (a number or its text), or None when it names none."""
        try:
            number = float(str(value).strip())
        except ValueError:
            return None
        return next((level for level in self.levels if abs(level - number) < 1e-9), None)

    def score_of(self, level: float) -> float:
        """``level`` rescaled to [0, 1] over the rubric's range."""
        low, high = self.levels[0], self.levels[-1]
        return (level - low) / (high - low)


class CriteriaScore(BaseModel):
    """A criteria judgement: the rubric level the judge chose, its score in [0, 1], and the judge's reason."""

    model_config = ConfigDict(frozen=True)

    level: float
    score: float = Field(ge=0.0, le=1.0)
    reason: str = ""


#: The criteria metrics' definitions by metric name (kept by :mod:`rageval_lc.scoring.custom` when a criteria
#: metric is registered or unregistered): a DSPy judge builds, estimates and loads their modules from here.
CRITERIA_DEFINITIONS: dict[str, CriteriaDefinition] = {}


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
