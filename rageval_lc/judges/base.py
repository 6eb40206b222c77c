"""The judge contract: what a judge is (:class:`Judge`), the defaults a judge of one's own starts from
(:class:`BaseJudge`), and the judgements it can make (:data:`JUDGEMENTS`) — no model, no framework import.

A judge turns inputs into verdicts: ``judge.make(declaration, inputs)`` returns a
:class:`~rageval_lc.verdicts.Judgement` (the verdict types live in :mod:`rageval_lc.verdicts` and
are named here too). A judge never computes a score.

Example:
    >>> from rageval_lc.judges import LabelsJudge
    >>> judge = as_judge(LabelsJudge())
    >>> judge.name, can_make(judge, "trace_labels"), can_make(judge, "verify_claims")
    ('labels', True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from rageval_lc.judges.declarations import DECLARATIONS, Declaration, criteria_declaration
from rageval_lc.schema import RagSample
from rageval_lc.verdicts import (
    CRITERIA,
    Judgement,
    judgement_kind,
)

__all__ = [
    "JUDGEMENTS",
    "AdoptedJudge",
    "BaseJudge",
    "Judge",
    "as_judge",
    "can_make",
    "unsupported",
    "wrapped_extras",
]

T = TypeVar("T")


class _Declared(Mapping[str, str]):
    """Judgement name → what it produces, for every declared judgement (a live view of
    :data:`~rageval_lc.judges.declarations.DECLARATIONS`: a judgement of one's own shows here once declared)."""

    def __getitem__(self, name: str) -> str:
        return DECLARATIONS[name].about

    def __iter__(self) -> Iterator[str]:
        return iter(list(DECLARATIONS))

    def __len__(self) -> int:
        return len(DECLARATIONS)

    def __repr__(self) -> str:
        return repr(dict(self))


#: Every judgement a judge may support, with what it produces (declared in :mod:`rageval_lc.judges.declarations`).
JUDGEMENTS: Mapping[str, str] = _Declared()


def can_make(judge: object, judgement: str) -> bool:
    """True when ``judge`` supports the kind of ``judgement`` (any criteria judgement for ``criteria``)."""
    return judgement_kind(judgement) in getattr(judge, "supports", ())


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
    encoder: Any  # a CachedEncoder the embedding metrics may share (the offline judge's model), or None

    def planned_calls(self, judgement: str) -> int:
        """Model calls one ``judgement`` costs per sample, before any retry (0 for no model)."""
        ...

    def prepare(self, samples: Sequence[RagSample]) -> None:
        """Get ready to judge ``samples`` (the offline judge encodes their texts in one batched pass)."""
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
        return lambda definition, sample: judge.make(criteria_declaration(definition), {"sample": sample})
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
    "make",  # a judge that makes every judgement through its own entry point keeps it
)


def unsupported(judge: object, judgement: str) -> str:
    """The message for a judgement a judge cannot make."""
    supported = ", ".join(sorted(getattr(judge, "supports", ()))) or "none"
    return (
        f"The {getattr(judge, 'name', type(judge).__name__)!r} judge cannot make the {judgement!r} judgement "
        f"(it supports: {supported})."
    )
