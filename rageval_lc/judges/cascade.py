"""A judge that pays for the LLM only where the offline judge is unsure: :class:`CascadeJudge`.

The offline judge decides every verdict first, each with the probability that it is right
(:mod:`~rageval_lc.judges.offline.confidence`). The cascade sends the least confident verdicts to an LLM judge and
keeps the offline verdict of every other one:

* a **budget** (``escalate=0.2``): the 20 % least confident verdicts of a run. On a file (``rageval evaluate``,
  ``rageval_lc.evaluate``) the engine first judges every row offline (:meth:`CascadeJudge.plan`), so exactly
  ``round(0.2 × verdicts)`` are escalated; where rows come one at a time (an evaluator, the callback handler, a
  DSPy metric) the share is kept by a running quantile of the confidences seen so far;
* a **threshold** (``escalate_below=0.8``): every verdict less than 80 % likely to be right, for streams.

The unit is the **verdict** — a response sentence of the TRACe labelling (which, in the default shared mode, also
gives faithfulness), a claim, a reference statement, a context — not the row: the offline judge's confidence in
single sentences predicts its errors, its confidence in a whole row much less (BENCHMARKS.md, issue 35), and
the row verdicts of TRACe and the RAGAS family are made of these verdicts. A row's escalated verdicts go to the
LLM in one call (the sentences and claims as claims to verify against the contexts, the contexts for relevance),
so the calls are at most the rows with an escalated verdict, each shorter than labelling the whole row.

Every verdict records which judge decided it (``notes["decided_by"]``). When the LLM call fails, the offline
verdicts stand and ``notes["escalation"]`` says why; the judgement stays usable. Give the cascade's LLM judge
rate limits, retries and a cache as for any judge (the engine does: only the LLM's calls are limited, retried
and cached).

Example:
    >>> from dspy.utils import DummyLM
    >>> from rageval_lc.judges import DspyJudge, LabelsJudge
    >>> judge = CascadeJudge(LabelsJudge(), DspyJudge(DummyLM([{"verdicts": "[]"}])), escalate_below=0.8)
    >>> judge.name
    'cascade:labels,dspy:dummy'
"""

from __future__ import annotations

import copy
import hashlib
import json
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from rageval_lc.judges.base import BaseJudge, as_judge, can_make, wrapped_extras
from rageval_lc.judges.declarations import DECLARATIONS, Declaration
from rageval_lc.judges.portable import Portable
from rageval_lc.schema import RagSample, SentenceSupport, TraceLabels
from rageval_lc.text import split_sentences
from rageval_lc.verdicts import ClaimVerdict, ContextVerdict, FullAssessment, Judgement, StatementVerdict

__all__ = ["ESCALATED", "CascadeJudge", "escalation_key"]

T = TypeVar("T")

#: The judgements whose verdicts the cascade can escalate: the confidence note the offline judge writes for each,
#: and the judgement the LLM is asked.
ESCALATED: Mapping[str, tuple[str, str]] = {
    "trace_labels": ("sentence_confidence", "verify_claims"),
    "assess_all": ("sentence_confidence", "verify_claims"),
    "verify_claims": ("claim_confidence", "verify_claims"),
    "attribute_reference": ("statement_confidence", "verify_claims"),
    "context_relevance": ("context_confidence", "context_relevance"),
}
_PLAN_CHUNK = 256  # samples the offline judge prepares together while a budget is planned
_RUNNING = 20_000  # confidences remembered for the running quantile of a budget without a plan


def escalation_key(judgement: str, inputs: Mapping[str, Any]) -> str:
    """The key of one judgement on its inputs (a sample's id and metadata left out, as the judge cache does)."""
    from rageval_lc.judges.resilient import plain_json

    text = json.dumps([judgement, plain_json(dict(inputs))], sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CascadeJudge(Portable, BaseJudge):
    """The offline judge, with its least confident verdicts re-judged by an LLM judge.

    Args:
        offline: the judge that decides first and gives each verdict a confidence (the offline judge, ``OfflineJudge``).
        llm: the judge the least confident verdicts go to (any judge that makes ``verify_claims`` and
            ``context_relevance``: a ``DspyJudge``).
        escalate: the share of verdicts to escalate (0-1), or
        escalate_below: the confidence under which a verdict is escalated (0-1).

    Raises:
        ValueError: Unless exactly one of ``escalate`` and ``escalate_below`` is given, within [0, 1].
    """

    _fresh: ClassVar[Mapping[str, Callable[[], Any]]] = {
        "_memo": dict,
        "_lock": threading.Lock,
    }

    def __init__(
        self, offline: Any, llm: Any, *, escalate: float | None = None, escalate_below: float | None = None
    ) -> None:
        if (escalate is None) == (escalate_below is None):
            msg = "A cascade judge needs one of escalate (a share of verdicts) and escalate_below (a confidence)."
            raise ValueError(msg)
        for option, value in (("escalate", escalate), ("escalate_below", escalate_below)):
            if value is not None and not (isinstance(value, (int, float)) and 0.0 <= value <= 1.0):
                msg = f"{option} must be a number from 0 to 1. Got {value!r}."
                raise ValueError(msg)
        self.offline = as_judge(offline)
        self.llm = as_judge(llm)
        self.escalate = None if escalate is None else float(escalate)
        self.escalate_below = None if escalate_below is None else float(escalate_below)
        self._plan: dict[str, frozenset[int]] = {}
        self._planned = False
        self._seen: deque[float] = deque(maxlen=_RUNNING)
        self._memo: dict[str, Judgement[Any]] = {}
        self._lock = threading.Lock()

    # --- the judge contract ----------------------------------------------------------------------------------

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"cascade:{self.offline.name},{self.llm.name}"

    @property
    def supports(self) -> frozenset[str]:  # type: ignore[override]
        return self.offline.supports

    @property
    def encoder(self) -> Any:  # type: ignore[override]
        return self.offline.encoder

    @property
    def limiter(self) -> Any:
        """The LLM judge's rate limiter (workers and Ray actors share a limit out through it)."""
        return getattr(self.llm, "limiter", None)

    @limiter.setter
    def limiter(self, value: Any) -> None:
        if hasattr(self.llm, "limiter"):
            self.llm.limiter = value

    def __copy__(self) -> CascadeJudge:
        """A copy with its own copy of the LLM judge, so a limiter set on it leaves the original's alone."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.llm = copy.copy(self.llm)
        return twin

    def planned_calls(self, judgement: str) -> int:
        """At most one LLM call per sample for a judgement it escalates (none for the others)."""
        return 1 if self._escalates(judgement) else 0

    def prepare(self, samples: Sequence[RagSample]) -> None:
        self.offline.prepare(samples)

    def describe_budget(self, judgements: Iterable[str], samples: Sequence[RagSample]) -> str:
        """What a dry run says of the cascade: the verdicts its budget (or threshold) sends to the LLM at most."""
        escalated = [j for j in judgements if self._escalates(j)]
        if self.escalate_below is not None:
            return (
                f"Cascade: every verdict less than {self.escalate_below:g} likely to be right goes to {self.llm.name}, "
                "at most one call per row (the calls above); how many depends on the offline judge's confidence."
            )
        verdicts = sum(_verdicts_of(j, s) for j in escalated for s in samples)
        return (
            f"Cascade: at most {round(self.escalate * verdicts)} of {verdicts} verdicts ({self.escalate:.0%}) go to "
            f"{self.llm.name}, one call per row with one (the calls above); the others are {self.offline.name}'s."
        )

    def most_calls(self, judgement: str, samples: Sequence[RagSample]) -> int:
        """The LLM calls ``judgement`` can cost over ``samples`` at most: one per sample with an escalated verdict,
        so, with a budget, no more than the verdicts it allows (a threshold: one per sample)."""
        if not self._escalates(judgement):
            return 0
        if self.escalate is None:
            return len(samples)
        verdicts = sum(_verdicts_of(judgement, sample) for sample in samples)
        return min(len(samples), round(self.escalate * verdicts))

    def estimate_prompt_tokens(self, judgement: str, sample: RagSample) -> int | None:
        """At most the LLM's prompt for the judgement it would be asked (every verdict of the sample escalated)."""
        if not self._escalates(judgement):
            return 0
        return self.llm.estimate_prompt_tokens(ESCALATED[judgement][1], sample)

    def cache_identity(self) -> dict[str, Any]:
        return {
            "offline": [self.offline.name, self.offline.cache_identity()],
            "llm": [self.llm.name, self.llm.cache_identity()],
            "escalate": self.escalate,
            "escalate_below": self.escalate_below,
        }

    def set_transport_timeout(self, seconds: float) -> None:
        self.llm.set_transport_timeout(seconds)

    __getattr__ = wrapped_extras

    # --- planning a budget over a run ------------------------------------------------------------------------

    def plan(self, samples: Iterable[RagSample], score: Callable[[Any, RagSample], Any]) -> dict[str, int]:
        """Choose the verdicts a budget escalates over ``samples``: score each with the offline judge through
        ``score(judge, sample)`` (the engine's scoring of one sample), gather every escalatable verdict's
        confidence, and keep the ``round(escalate × verdicts)`` least confident (ties: in run order). The offline
        judgements are remembered for the scoring pass (in this process: worker processes judge their rows offline
        again). A threshold cascade needs no plan (nothing is done).

        Returns:
            ``verdicts`` (escalatable verdicts seen), ``escalated`` (chosen) and ``rows`` (samples with one).
        """
        if self.escalate is None:
            return {"verdicts": 0, "escalated": 0, "rows": 0}
        recorder = _Recorder(self)
        samples = list(samples)
        for start in range(0, len(samples), _PLAN_CHUNK):  # the offline judge encodes a chunk in one pass
            chunk = samples[start : start + _PLAN_CHUNK]
            self.offline.prepare(chunk)
            for sample in chunk:
                recorder.sample = sample
                score(recorder, sample)
        units = [
            (c, order, key, i)
            for order, (key, confidences) in enumerate(recorder.seen.items())
            for i, c in enumerate(confidences)
            if c is not None
        ]
        count = round(self.escalate * len(units))
        chosen: dict[str, set[int]] = {key: set() for key in recorder.seen}
        for _, _, key, i in sorted(units, key=lambda u: (u[0], u[1], u[3]))[:count]:
            chosen[key].add(i)
        self._plan = {key: frozenset(indices) for key, indices in chosen.items()}
        self._planned = True
        self._memo = recorder.memo
        rows = len({recorder.sample_of[key] for key, indices in chosen.items() if indices})
        return {"verdicts": len(units), "escalated": count, "rows": rows}

    # --- judging ---------------------------------------------------------------------------------------------

    def make(self, judgement: Declaration[T], inputs: Mapping[str, Any]) -> Judgement[T]:
        """The offline judgement, its least confident verdicts re-judged by the LLM."""
        key = escalation_key(judgement.name, inputs)
        with self._lock:
            offline = self._memo.pop(key, None)
        if offline is None:
            offline = self.offline.make(judgement, inputs)
        if not offline.ok:
            return offline
        confidences = _confidences(judgement.name, offline) if self._escalates(judgement.name) else None
        if confidences is None:  # nothing to rank: the offline judge decided it all
            return offline.model_copy(update={"notes": {**offline.notes, "decided_by": self.offline.name}})
        chosen = self._choose(key, confidences)
        return _escalate(self, judgement.name, inputs, offline, chosen)

    def _escalates(self, judgement: str) -> bool:
        return judgement in ESCALATED and can_make(self.llm, ESCALATED[judgement][1])

    def _choose(self, key: str, confidences: list[float | None]) -> list[int]:
        if self.escalate_below is not None:
            return [i for i, c in enumerate(confidences) if c is not None and c < self.escalate_below]
        if self._planned and key in self._plan:
            return sorted(self._plan[key])
        with self._lock:  # no plan (rows one at a time): the running quantile of the confidences seen
            self._seen.extend(c for c in confidences if c is not None)
            seen = sorted(self._seen)
        count = round(self.escalate * len(seen))
        if count == 0:
            return []
        cut = seen[count - 1]
        return [i for i, c in enumerate(confidences) if c is not None and c <= cut]


class _Recorder(BaseJudge):
    """The offline judge during planning: makes and remembers each judgement, and records the confidences of
    the verdicts the cascade could escalate."""

    def __init__(self, cascade: CascadeJudge) -> None:
        self.cascade = cascade
        self.name, self.supports, self.encoder = cascade.name, cascade.supports, cascade.encoder
        self.seen: dict[str, list[float | None]] = {}
        self.memo: dict[str, Judgement[Any]] = {}
        self.sample_of: dict[str, int] = {}
        self.sample: RagSample | None = None
        self._count = 0

    def prepare(self, samples: Sequence[RagSample]) -> None:
        self.cascade.offline.prepare(samples)

    def make(self, judgement: Declaration[T], inputs: Mapping[str, Any]) -> Judgement[T]:
        key = escalation_key(judgement.name, inputs)
        made = self.memo.get(key) or self.cascade.offline.make(judgement, inputs)
        self.memo[key] = made
        if made.ok and self.cascade._escalates(judgement.name):
            confidences = _confidences(judgement.name, made)
            if confidences is not None and key not in self.seen:
                self.seen[key] = confidences
                self.sample_of[key] = id(self.sample)
        return made


def _verdicts_of(judgement: str, sample: RagSample) -> int:
    """How many verdicts ``judgement`` makes on ``sample`` (the offline judge's claims are the answer's sentences)."""
    if judgement == "context_relevance":
        return len(sample.contexts)
    if judgement == "attribute_reference":
        return len(split_sentences(sample.reference or ""))
    return len(sample.sentences.response)


def _confidences(name: str, judgement: Judgement[Any]) -> list[float | None] | None:
    """Each escalatable verdict's confidence, in verdict order (response sentences in answer order); None for a
    sentence the offline judge found makes no claim (a heading, a greeting: nothing for an LLM to re-judge)."""
    note = judgement.notes.get(ESCALATED[name][0])
    if note is None:
        return None
    if isinstance(note, Mapping):
        keys = [s.response_sentence_key for s in _trace(judgement.value).sentence_support_information]
        verdicts = judgement.notes.get("sentence_verdicts") or {}
        return [None if verdicts.get(k) == "no_claim" else float(note.get(k, 1.0)) for k in keys]
    return [float(c) for c in note]


def _trace(value: Any) -> TraceLabels:
    return value.trace if isinstance(value, FullAssessment) else value


def _escalate(
    cascade: CascadeJudge, name: str, inputs: Mapping[str, Any], offline: Judgement[Any], chosen: list[int]
) -> Judgement[Any]:
    """``offline`` with the verdicts at ``chosen`` re-judged by the LLM (or kept, with why, when it fails)."""
    first, llm_name = cascade.offline.name, cascade.llm.name
    count = _count(name, offline.value)
    if not chosen:
        nothing = {"asked": 0, "status": "ok", "llm": llm_name}
        return _with(offline, offline.value, [first] * count, nothing, offline.usage, first)
    question, texts, contexts = _request(name, inputs, offline.value, chosen)
    asked = ESCALATED[name][1]
    if asked == "verify_claims":
        answer = cascade.llm.make(DECLARATIONS[asked], {"claims": texts, "contexts": contexts})
    else:
        call = {"question": question, "contexts": texts, "reference": inputs.get("reference")}
        answer = cascade.llm.make(DECLARATIONS[asked], call)
    usage = offline.usage + answer.usage
    verdicts = list(answer.value or [])
    if not answer.ok or len(verdicts) != len(chosen):
        why = answer.reason if not answer.ok else f"the LLM gave {len(verdicts)} verdicts for {len(chosen)} asked"
        escalation = {
            "asked": len(chosen),
            "llm": llm_name,
            "status": answer.status if not answer.ok else "undetermined",
            "reason": f"{why}; the offline verdicts stand",
        }
        return _with(offline, offline.value, [first] * count, escalation, usage, first)
    value, changed = _merged(name, offline.value, chosen, verdicts, llm_name)
    decided = [llm_name if i in set(chosen) else first for i in range(count)]
    escalation = {"asked": len(chosen), "llm": llm_name, "status": "ok", "changed": changed}
    return _with(offline, value, decided, escalation, usage, first)


def _count(name: str, value: Any) -> int:
    if name in ("trace_labels", "assess_all"):
        return len(_trace(value).sentence_support_information)
    return len(value)


def _request(name: str, inputs: Mapping[str, Any], value: Any, chosen: list[int]) -> tuple[str, list[str], list[str]]:
    """What the LLM is asked: the question, the texts of the chosen verdicts and the contexts."""
    if name in ("trace_labels", "assess_all"):
        sample: RagSample = inputs["sample"]
        texts = dict(sample.sentences.response)
        support = _trace(value).sentence_support_information
        return sample.question, [texts[support[i].response_sentence_key] for i in chosen], list(sample.contexts)
    if name == "verify_claims":
        return "", [inputs["claims"][i] for i in chosen], list(inputs["contexts"])
    if name == "attribute_reference":
        return inputs["question"], [value[i].statement for i in chosen], list(inputs["contexts"])
    return inputs["question"], [inputs["contexts"][i] for i in chosen], []


def _merged(name: str, value: Any, chosen: list[int], answers: list[Any], by: str) -> tuple[Any, int]:
    """The offline verdicts with the chosen ones replaced by the LLM's, and how many changed."""
    changed = 0
    if name in ("trace_labels", "assess_all"):
        trace = _trace(value)
        support = list(trace.sentence_support_information)
        for i, answer in zip(chosen, answers, strict=True):
            old = support[i]
            supported = bool(answer.supported)
            changed += supported != (old.fully_supported is not False)
            support[i] = SentenceSupport(
                response_sentence_key=old.response_sentence_key,
                explanation=f"Judged by {by}: {answer.reason}".strip(),
                supporting_sentence_keys=old.supporting_sentence_keys if supported else [],
                fully_supported=supported,
            )
        unsupported = [s.response_sentence_key for s in support if s.fully_supported is False]
        new = trace.model_copy(
            update={
                "sentence_support_information": support,
                "unsupported_response_sentence_keys": unsupported,
                "overall_supported": not unsupported,
            }
        )
        return (value.model_copy(update={"trace": new}) if isinstance(value, FullAssessment) else new), changed
    items = list(value)
    for i, answer in zip(chosen, answers, strict=True):
        old = items[i]
        if isinstance(old, ClaimVerdict):
            changed += bool(answer.supported) != old.supported
            items[i] = ClaimVerdict(claim=old.claim, supported=bool(answer.supported), reason=answer.reason)
        elif isinstance(old, StatementVerdict):
            changed += bool(answer.supported) != old.attributed
            items[i] = StatementVerdict(
                statement=old.statement, attributed=bool(answer.supported), reason=answer.reason
            )
        else:
            changed += bool(answer.relevant) != old.relevant
            items[i] = ContextVerdict(
                index=old.index, relevant=bool(answer.relevant), score=answer.score, reason=answer.reason
            )
    return items, changed


def _with(
    offline: Judgement[Any], value: Any, decided: list[str], escalation: dict[str, Any], usage: Any, first: str
) -> Judgement[Any]:
    """The judgement with its (merged) verdicts, who decided each, and what the escalation did."""
    notes = dict(offline.notes)
    if isinstance(notes.get("sentence_confidence"), Mapping):
        support = _trace(value).sentence_support_information
        notes["decided_by"] = {s.response_sentence_key: by for s, by in zip(support, decided, strict=True)}
        offline_verdicts = notes.get("sentence_verdicts", {})
        notes["sentence_verdicts"] = {
            s.response_sentence_key: (
                offline_verdicts.get(s.response_sentence_key, "supported")
                if by == first
                else "supported"
                if s.fully_supported
                else "not_found"
            )
            for s, by in zip(support, decided, strict=True)
        }
    else:
        notes["decided_by"] = decided
    notes["escalation"] = escalation
    reason = offline.reason
    if escalation.get("asked"):
        reason = f"{reason} {escalation['asked']} verdict(s) escalated to the LLM: {escalation['status']}"
        reason += f" ({escalation['reason']})." if escalation["status"] != "ok" else "."
    return Judgement(
        name=offline.name,
        value=value,
        status=offline.status,
        reason=reason.strip(),
        raw=offline.raw,
        attempts=offline.attempts,
        usage=usage,
        notes=notes,
    )
