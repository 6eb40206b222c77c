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

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rageval_lc.schema import RagSample, TraceLabels

if TYPE_CHECKING:
    from rageval_lc.judges.declarations import Declaration

__all__ = [
    "CRITERIA",
    "CRITERIA_DEFINITIONS",
    "CRITERIA_FIELDS",
    "JUDGEMENTS",
    "AdoptedJudge",
    "AnswerLabel",
    "BaseJudge",
    "ClaimVerdict",
    "ContextVerdict",
    "CriteriaDefinition",
    "CriteriaScore",
    "FactualAccuracyVerdict",
    "FullAssessment",
    "Judge",
    "JudgeUsage",
    "Judgement",
    "ReferenceAssessment",
    "RubricScore",
    "StatementVerdict",
    "as_judge",
    "can_make",
    "judgement_kind",
    "unsupported",
    "wrapped_extras",
]

T = TypeVar("T")


class _Declared(Mapping[str, str]):
    """Judgement name → what it produces, for every declared judgement (a live view of
    :data:`~rageval_lc.judges.declarations.DECLARATIONS`: a judgement of one's own shows here once declared)."""

    def _declarations(self) -> Mapping[str, Any]:
        from rageval_lc.judges.declarations import DECLARATIONS

        return DECLARATIONS

    def __getitem__(self, name: str) -> str:
        return self._declarations()[name].about

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._declarations()))

    def __len__(self) -> int:
        return len(self._declarations())

    def __repr__(self) -> str:
        return repr(dict(self))


#: Every judgement a judge may support, with what it produces (declared in :mod:`rageval_lc.judges.declarations`).
JUDGEMENTS: Mapping[str, str] = _Declared()


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


def can_make(judge: object, judgement: str) -> bool:
    """True when ``judge`` supports the kind of ``judgement`` (any criteria judgement for ``criteria``)."""
    return judgement_kind(judgement) in getattr(judge, "supports", ())


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


@runtime_checkable
class Judge(Protocol):
    """A judge: a name, the judgements it supports, one entry point that makes any of them, and its abilities.

    Every judgement is declared once (:mod:`rageval_lc.judges.declarations`); :meth:`make` takes the
    declaration and its inputs by name. :class:`BaseJudge` makes each with the judge's own method of the
    judgement's name (``criteria(definition, sample)`` for a criteria metric's, when :attr:`supports` holds
    :data:`CRITERIA`), and lets any judge be called ``judge.<judgement>(*args)``; an LLM judge makes every
    declaration alike (its Signature, its reader); a wrapping judge wraps ``make``.
    """

    name: str
    supports: frozenset[str]
    encoder: Any  # a CachedEncoder the embedding metrics may share (the local judge's model), or None

    def planned_calls(self, judgement: str) -> int:
        """Model calls one ``judgement`` costs per sample, before any retry (0 for no model)."""
        ...

    def prepare(self, samples: Sequence[RagSample]) -> None:
        """Get ready to judge ``samples`` (the local judge encodes their texts in one batched pass)."""
        ...

    def estimate_prompt_tokens(self, judgement: str, sample: RagSample) -> int | None:
        """The prompt tokens ``judgement`` would send for ``sample`` (None: unknown or no model)."""
        ...

    def cache_identity(self) -> dict[str, Any]:
        """What shapes the judge's answers besides its inputs (model, settings): part of cache keys."""
        ...

    def set_transport_timeout(self, seconds: float) -> None:
        """Give the judge's own HTTP calls a timeout (a no-op for judges that make none)."""
        ...

    def make(self, judgement: Declaration[T], inputs: Mapping[str, Any]) -> Judgement[T]:
        """Make ``judgement`` (its declaration) on ``inputs`` (its inputs by name)."""
        ...


class BaseJudge:
    """The :class:`Judge` contract with defaults: subclass it, set ``name`` and ``supports``, and write
    a method for each judgement you support, named after it (and ``planned_calls`` if they call a model);
    ``make`` finds them, and ``judge.<judgement>(...)`` reaches ``make`` for any declared judgement.

    Example:
        >>> from rageval_lc.schema import TraceLabels
        >>> class EveryoneRelevant(BaseJudge):
        ...     name, supports = "everyone-relevant", frozenset({"trace_labels"})
        ...     def trace_labels(self, sample):
        ...         keys = list(sample.sentences.document_keys)
        ...         return Judgement(name="trace_labels", value=TraceLabels(all_relevant_sentence_keys=keys))
        >>> judge = EveryoneRelevant()
        >>> isinstance(judge, Judge), judge.planned_calls("trace_labels")
        (True, 0)
        >>> judge.extract_claims("Q?", "A.")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: The 'everyone-relevant' judge cannot make the 'extract_claims' judgement (it supports: ...).
    """

    name: str = "judge"
    supports: frozenset[str] = frozenset()
    encoder: Any = None

    def planned_calls(self, judgement: str) -> int:
        """Model calls per sample: 0 (a judge that calls a model says otherwise)."""
        return 0

    def prepare(self, samples: Sequence[RagSample]) -> None:
        """Nothing to prepare."""

    def estimate_prompt_tokens(self, judgement: str, sample: RagSample) -> int | None:
        """No prompt: None."""
        return None

    def cache_identity(self) -> dict[str, Any]:
        """Nothing beyond the judge's name and class."""
        return {}

    def set_transport_timeout(self, seconds: float) -> None:
        """No HTTP calls of its own."""

    def make(self, judgement: Declaration[T], inputs: Mapping[str, Any]) -> Judgement[T]:
        """Make ``judgement`` with the judge's own method of its name (``criteria`` for a criteria metric's,
        given the definition first).

        Raises:
            ValueError: If the judge has no such method (it cannot make the judgement).
        """
        method = self.method_for(judgement_kind(judgement.name))
        if method is None:
            raise ValueError(unsupported(self, judgement.name))
        if judgement.definition is not None:
            return method(judgement.definition, **inputs)
        return method(**inputs)

    def method_for(self, name: str) -> Callable[..., Judgement[Any]] | None:
        """The judge's own method called ``name`` (one its class defines), or None."""
        method = getattr(type(self), name, None)
        return method.__get__(self) if callable(method) else None

    def __getattr__(self, name: str) -> Any:
        call = judgement_call(self, name)
        if call is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return call


def judgement_call(judge: Any, name: str) -> Callable[..., Judgement[Any]] | None:
    """``judge.<judgement>(*args)`` for a declared judgement the judge's class does not write out: the
    arguments bound by the declaration and made through ``judge.make`` (``criteria(definition, sample)`` for a
    criteria metric's, when the judge supports criteria); None for any other name.

    Example:
        >>> from rageval_lc.judges import LabelsJudge
        >>> LabelsJudge().classify_answer("Q?", "A", "A")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: The 'labels' judge cannot make the 'classify_answer' judgement (it supports: trace_labels).
    """
    if name.startswith("_"):
        return None
    if name == CRITERIA:
        if CRITERIA not in getattr(judge, "supports", ()):
            return None
        from rageval_lc.judges.declarations import criteria_declaration

        return lambda definition, sample: judge.make(criteria_declaration(definition), {"sample": sample})
    from rageval_lc.judges.declarations import DECLARATIONS

    declaration = DECLARATIONS.get(name)
    if declaration is None:
        return None
    return lambda *args, **kwargs: judge.make(declaration, declaration.bind(*args, **kwargs))


def wrapped_extras(wrapper: Any, attribute: str) -> Any:
    """``__getattr__`` of a judge that wraps another (``.judge``): the wrapped judge's own extras (``lm``,
    ``modules``) read through the wrapper; everything of the contract is the wrapper's own, and a judgement
    called by its name (``wrapper.verify_claims(...)``) goes through the wrapper's ``make``."""
    call = judgement_call(wrapper, attribute)
    if call is not None:
        return call
    judge = wrapper.__dict__.get("judge")
    if judge is None:
        raise AttributeError(attribute)
    return getattr(judge, attribute)


def as_judge(judge: object) -> Judge:
    """``judge`` held to the :class:`Judge` contract: itself when it keeps all of it, else (a judge written
    without :class:`BaseJudge`: a ``name``, ``supports`` and the methods it supports) an
    :class:`AdoptedJudge` giving it the defaults for the rest. The one place that looks at what a judge has.

    Raises:
        TypeError: If it has no ``name`` or ``supports``, or lacks the method of a judgement it supports.
    """
    if isinstance(judge, Judge):
        return judge
    missing = [name for name in ("name", "supports") if not hasattr(judge, name)]
    if not callable(getattr(judge, "make", None)):
        supported = getattr(judge, "supports", ())
        missing += sorted(name for name in supported if not callable(getattr(judge, judgement_kind(name), None)))
    if missing:
        msg = (
            f"{type(judge).__name__} is not a judge: it lacks {', '.join(missing)}. "
            "Subclass rageval_lc.judges.BaseJudge and write the judgements it supports."
        )
        raise TypeError(msg)
    return AdoptedJudge(judge)


class AdoptedJudge(BaseJudge):
    """A judge written without :class:`BaseJudge`, held to the contract: what it has is its own (methods and
    attributes), the rest :class:`BaseJudge`'s defaults. Its cache identity is its own ``cache_identity()``, or
    the state of its DSPy ``modules``, so that two differently compiled judges never share cached answers.
    """

    def __init__(self, judge: Any) -> None:
        self.judge = judge
        for name in _CONTRACT:
            if hasattr(judge, name):
                setattr(self, name, getattr(judge, name))
        if not hasattr(judge, "cache_identity") and isinstance(getattr(judge, "modules", None), dict):
            self.cache_identity = self._modules_identity  # type: ignore[method-assign]

    def method_for(self, name: str) -> Callable[..., Judgement[Any]] | None:
        """The adopted judge's own method called ``name``, or None."""
        method = getattr(self.judge, name, None)
        return method if callable(method) else None

    def _modules_identity(self) -> dict[str, Any]:
        modules = self.judge.modules
        try:
            return {"modules": {k: m.dump_state() for k, m in modules.items()}}
        except Exception:
            return {"modules": sorted(modules)}

    __getattr__ = wrapped_extras


_CONTRACT = (
    "name",
    "supports",
    "encoder",
    "planned_calls",
    "prepare",
    "estimate_prompt_tokens",
    "cache_identity",
    "set_transport_timeout",
)


def unsupported(judge: object, judgement: str) -> str:
    """The message for a judgement a judge cannot make."""
    supported = ", ".join(sorted(getattr(judge, "supports", ()))) or "none"
    return (
        f"The {getattr(judge, 'name', type(judge).__name__)!r} judge cannot make the {judgement!r} judgement "
        f"(it supports: {supported})."
    )
