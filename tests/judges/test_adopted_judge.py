"""Judges written without BaseJudge keep working (held to the contract by judges.base.as_judge)."""

from __future__ import annotations

from typing import Any

import pytest

from rageval_lc import RagSample, evaluate, evaluate_sample
from rageval_lc.engine.engine import make_resilient
from rageval_lc.judges.base import AdoptedJudge, Judge, as_judge
from rageval_lc.judges.resilient import ResilientJudge, judge_identity
from rageval_lc.schema import TraceLabels
from rageval_lc.verdicts import Judgement

SAMPLE = RagSample(
    question="Where is Paris?", contexts=["Paris is in France. It is big."], response="Paris is in France."
)


class OldStyle:
    """The shape the old docs allowed: a name, supports, planned_calls and the one judgement it makes."""

    name, supports = "old-style", frozenset({"trace_labels"})

    def __init__(self, prompt: str = "p") -> None:
        self.modules = {"trace_labels": _Module(prompt)}

    def planned_calls(self, judgement: str) -> int:
        return 1

    def trace_labels(self, sample: Any) -> Judgement[TraceLabels]:
        return Judgement(name="trace_labels", value=TraceLabels(all_relevant_sentence_keys=["0a"]))


class _Module:
    def __init__(self, prompt: str) -> None:
        self.prompt = prompt

    def dump_state(self) -> dict[str, str]:
        return {"prompt": self.prompt}


def test_an_old_style_judge_scores_through_every_layer() -> None:
    # context relevance: 1 relevant sentence of 2 = 0.5 (RAGBench's formula), as with a BaseJudge subclass
    assert evaluate_sample(SAMPLE, "trace", judge=OldStyle()).scores()["context_relevance"] == 0.5
    run = evaluate([SAMPLE, SAMPLE], "trace", judge=OldStyle(), concurrency=1, timeout_s=5)
    assert [r.scores()["context_relevance"] for r in run.results] == [0.5, 0.5]


def test_it_is_adopted_with_the_defaults_and_keeps_its_extras() -> None:
    judge = as_judge(OldStyle())
    assert isinstance(judge, AdoptedJudge) and isinstance(judge, Judge)
    assert judge.planned_calls("trace_labels") == 1  # its own
    assert judge.estimate_prompt_tokens("trace_labels", SAMPLE) is None  # the default
    assert judge.modules["trace_labels"].prompt == "p"  # its extras pass through
    with pytest.raises(ValueError, match="cannot make the 'extract_claims' judgement"):
        judge.extract_claims("Q?", "A.")


def test_differently_compiled_judges_never_share_a_cache_key() -> None:
    assert judge_identity(as_judge(OldStyle("a"))) != judge_identity(as_judge(OldStyle("b")))
    assert judge_identity(as_judge(OldStyle("a"))) == judge_identity(as_judge(OldStyle("a")))


def test_a_resilient_wrapper_takes_an_old_style_judge_and_passes_its_extras_through() -> None:
    wrapped = ResilientJudge(OldStyle(), timeout_s=5)
    assert wrapped.trace_labels(SAMPLE).value.all_relevant_sentence_keys == ["0a"]
    assert wrapped.modules["trace_labels"].prompt == "p"


def test_options_for_an_already_wrapped_judge_are_refused_not_dropped() -> None:
    wrapped = ResilientJudge(OldStyle(), retries=0)
    assert make_resilient(wrapped) is wrapped  # no option: the wrapper as it is
    with pytest.raises(ValueError, match="already a ResilientJudge; cache_dir, retries would be ignored"):
        make_resilient(wrapped, retries=5, cache_dir="/tmp/x")


def test_a_judge_with_its_own_entry_point_is_adopted_with_it() -> None:
    """A judge written without BaseJudge that makes every judgement through ``make`` keeps its ``make``."""
    made: list[str] = []

    class OneEntry:
        name, supports = "one-entry", frozenset({"classify_answer"})

        def make(self, judgement: Any, inputs: Any) -> Judgement[Any]:
            made.append(judgement.name)
            return Judgement(name=judgement.name, value={"label": "CORRECT", "reason": inputs["answer"]})

    judge = as_judge(OneEntry())
    assert isinstance(judge, AdoptedJudge)
    verdict = judge.classify_answer("Q?", "Paris", "Paris")
    assert (made, verdict.value) == (["classify_answer"], {"label": "CORRECT", "reason": "Paris"})
