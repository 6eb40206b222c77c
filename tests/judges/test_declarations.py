"""A judgement of one's own from one declaration, made by the offline, the DSPy and the resilient judge."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dspy
import pytest
from dspy.utils import DummyLM
from pydantic import BaseModel

from rageval_lc.judges import (
    BaseJudge,
    Declaration,
    DspyJudge,
    Judgement,
    LabelsJudge,
    OfflineJudge,
    declare,
    undeclare,
)
from rageval_lc.judges.declarations import BUILT_IN_JUDGEMENTS, DECLARATIONS
from rageval_lc.judges.resilient import ResilientJudge
from rageval_lc.schema import RagSample
from rageval_lc.scoring.dry_run import _applies
from tests.fakes import BagOfWordsEncoder


class Tone(BaseModel):
    polite: bool
    reason: str = ""


class ToneCheck(dspy.Signature):
    """Is the answer polite to the person who asked?"""

    answer: str = dspy.InputField()
    polite: bool = dspy.OutputField()
    reason: str = dspy.OutputField()


RUDE = ("stupid", "shut up")


def tone_offline(judge: Any, answer: str) -> Judgement[Tone]:
    """The offline way: polite unless a rude phrase occurs."""
    rude = [phrase for phrase in RUDE if phrase in answer.lower()]
    reason = f"Says {rude[0]!r}." if rude else "No rude phrase."
    return Judgement(name="answer_tone", value=Tone(polite=not rude, reason=reason))


TONE = Declaration(
    name="answer_tone",
    about="polite or not",
    inputs=("answer",),
    verdict=Tone,
    signature=ToneCheck,
    module="AnswerToneJudge",
    prompt=lambda x: {"answer": x["answer"]},
    read=lambda prediction, x: (Tone(polite=bool(prediction.polite), reason=prediction.reason or ""), {}, None),
    problem=lambda value, x: None if value.reason else "no reason given",
    needs=frozenset({"response"}),
    of_sample=lambda sample, n: {"answer": sample.response},
    offline=tone_offline,
)


@pytest.fixture
def tone() -> Iterator[Declaration[Tone]]:
    declare(TONE)
    yield TONE
    undeclare("answer_tone")


def test_the_offline_judge_makes_a_declared_judgement(tone: Declaration[Tone]) -> None:
    judge = OfflineJudge(encoder=BagOfWordsEncoder())
    assert "answer_tone" in judge.supports
    made = judge.make(tone, {"answer": "Shut up, that is a stupid question."})
    assert (made.ok, made.value.polite, made.reason) == (True, False, "")
    assert made.value.reason == "Says 'stupid'."
    assert judge.answer_tone("Thanks for asking: Paris.").value.polite is True  # called by its name


def test_the_dspy_judge_makes_a_declared_judgement_in_one_call(tone: Declaration[Tone]) -> None:
    judge = DspyJudge(DummyLM([{"polite": "False", "reason": "It insults the asker."}]))
    assert "answer_tone" in judge.supports and judge.planned_calls("answer_tone") == 1
    made = judge.answer_tone("Shut up.")
    assert (made.ok, made.value, made.usage.calls) == (True, Tone(polite=False, reason="It insults the asker."), 1)
    assert type(judge.modules["answer_tone"]).__name__ == "AnswerToneJudge"
    sample = RagSample(question="Capital of France?", contexts=[], response="Shut up.")
    assert judge.estimate_prompt_tokens("answer_tone", sample) > 0


def test_the_resilient_judge_wraps_a_declared_judgement(tone: Declaration[Tone], tmp_path: Path) -> None:
    lm = DummyLM([{"polite": "True", "reason": "Courteous."}])
    judge = ResilientJudge(DspyJudge(lm), cache=tmp_path)
    first = judge.answer_tone("Thank you for asking.")
    again = ResilientJudge(DspyJudge(DummyLM([])), cache=tmp_path).make(tone, {"answer": "Thank you for asking."})
    assert (first.value, first.usage.calls) == (Tone(polite=True, reason="Courteous."), 1)
    assert (again.value, again.usage.calls, again.notes.get("cached")) == (first.value, 0, True)


def test_a_cached_value_failing_the_declared_check_is_not_used(tone: Declaration[Tone], tmp_path: Path) -> None:
    seen: list[str] = []

    class Flaky(BaseJudge):
        name, supports = "flaky", frozenset({"answer_tone"})

        def answer_tone(self, answer: str) -> Judgement[Tone]:
            seen.append(answer)
            if len(seen) == 1:
                raise ConnectionError("connection reset")  # transient: retried
            return Judgement(name="answer_tone", value=Tone(polite=True, reason="" if len(seen) == 2 else "ok"))

    judge = ResilientJudge(Flaky(), cache=tmp_path, backoff_s=0.0, sleep=lambda s: None)
    assert judge.answer_tone("Hi.").value.reason == ""  # the retry's answer, stored though its reason is empty
    assert (judge.answer_tone("Hi.").value.reason, len(seen)) == ("ok", 3)  # refused from the cache: made again


def test_a_declaration_binds_its_inputs_and_says_what_it_needs(tone: Declaration[Tone]) -> None:
    assert tone.bind("Hello.") == {"answer": "Hello."} == tone.bind(answer="Hello.")
    with pytest.raises(TypeError, match="needs answer"):
        tone.bind()
    with pytest.raises(TypeError, match="'question' is not one of its inputs"):
        tone.bind(question="Q?")
    blank = RagSample(question="Q?", contexts=[], response=" ")
    assert not _applies("answer_tone", blank) and _applies("answer_tone", blank.model_copy(update={"response": "A"}))


def test_a_judge_without_it_says_so_and_built_ins_cannot_be_replaced(tone: Declaration[Tone]) -> None:
    with pytest.raises(ValueError, match="'labels' judge cannot make the 'answer_tone' judgement"):
        LabelsJudge().answer_tone("Hello.")
    with pytest.raises(ValueError, match="built-in"):
        declare(DECLARATIONS["verify_claims"])
    undeclare("answer_tone")
    assert "answer_tone" not in DECLARATIONS and set(DECLARATIONS) == BUILT_IN_JUDGEMENTS
