"""Judge answers kept within bounds and checked the same fresh or cached (issue 13, items 11 and 15)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from rageval_lc.engine.engine import evaluate
from rageval_lc.judges.labels import LabelsJudge
from rageval_lc.judges.llm.dspy_judge import DspyJudge
from rageval_lc.judges.resilient import JudgeCache, ResilientJudge
from rageval_lc.schema import RagSample
from rageval_lc.verdicts import Judgement
from tests.engine.test_engine import samples
from tests.fakes import JudgementChatModel, chat
from tests.metrics.test_trace import GUIDE_DOCS, GUIDE_LABELS, GUIDE_RESPONSE

# --- 11. raw output is capped -----------------------------------------------------------------------


def test_a_huge_raw_answer_is_stored_cut_with_head_and_tail() -> None:
    answer = "HEAD " + "x" * 5_000_000 + " TAIL"
    model = FakeListChatModel(responses=[answer])
    sample = RagSample(id="big", question="Q?", contexts=GUIDE_DOCS, response=GUIDE_RESPONSE)
    run = evaluate([sample], "trace", judge=DspyJudge(model, max_retries=0), concurrency=1, retries=0)
    row = run.results[0].to_row()
    assert set(row["status"].values()) == {"undetermined"}
    raw = json.dumps(row)
    assert len(raw) < 20_000
    stored = next(v for k, v in _walk(row) if k == "raw_output")
    assert stored.startswith("HEAD xxx") and stored.endswith("xxx TAIL")
    head, marker, tail = stored.partition(_marker(stored))
    assert marker == f"\n[… {len(answer) - len(head) - len(tail):,} characters cut …]\n"
    assert answer.startswith(head) and answer.endswith(tail) and len(head) + len(tail) <= 4_000


def test_the_wrapper_caps_any_judges_raw_output() -> None:
    class Verbose(LabelsJudge):
        def trace_labels(self, sample: RagSample) -> Judgement:
            return Judgement(name="trace_labels", status="undetermined", reason="unusable", raw="a" * 100_000)

    outcome = ResilientJudge(Verbose()).trace_labels(samples(1)[0])
    assert len(outcome.raw) < 10_000 and "characters cut" in outcome.raw


def _walk(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def _marker(stored: str) -> str:
    start = stored.index("\n[")
    return stored[start : stored.index("]\n", start) + 2]


# --- 15. cached judgements are checked like fresh ones ----------------------------------------------

GUIDE_ANSWER = chat(
    relevance_explanation="see documents",
    all_relevant_sentence_keys=GUIDE_LABELS["all_relevant_sentence_keys"],
    overall_supported_explanation="c is not in the documents.",
    overall_supported="false",
    sentence_support_information=[
        {**entry, "explanation": "see documents"} for entry in GUIDE_LABELS["sentence_support_information"]
    ],
    all_utilized_sentence_keys=GUIDE_LABELS["all_utilized_sentence_keys"],
)
GUIDE = RagSample(id="guide", question="What makes ML different?", contexts=GUIDE_DOCS, response=GUIDE_RESPONSE)


def forge(cache: Path, edit: Any) -> None:
    (entry,) = list(cache.rglob("*.json"))
    data = json.loads(entry.read_text(encoding="utf-8"))
    edit(data["value"])
    entry.write_text(json.dumps(data), encoding="utf-8")


def forged_keys(value: dict[str, Any]) -> None:
    value["all_relevant_sentence_keys"] = ["9z", "9y"]


def dropped_verdict(value: dict[str, Any]) -> None:
    value["sentence_support_information"] = value["sentence_support_information"][:1]


@pytest.mark.parametrize("edit", [forged_keys, dropped_verdict])
def test_a_forged_trace_entry_is_not_used(tmp_path: Path, edit: Any) -> None:
    first = JudgementChatModel(answers={"trace_labels": GUIDE_ANSWER})
    assert ResilientJudge(DspyJudge(first), cache=tmp_path).trace_labels(GUIDE).ok
    forge(tmp_path, edit)
    second = JudgementChatModel(answers={"trace_labels": GUIDE_ANSWER})
    outcome = ResilientJudge(DspyJudge(second), cache=tmp_path).trace_labels(GUIDE)
    assert second.calls["trace_labels"] == 1  # the forged entry was refused and the judge asked again
    assert outcome.ok and "cached" not in outcome.notes
    assert outcome.value.all_relevant_sentence_keys == GUIDE_LABELS["all_relevant_sentence_keys"]
    assert len(outcome.value.sentence_support_information) == len(GUIDE.sentences.response_keys)
    third = ResilientJudge(DspyJudge(JudgementChatModel(answers={})), cache=tmp_path).trace_labels(GUIDE)
    assert third.notes.get("cached") is True  # the fresh answer replaced the forged entry


def claims_reply(claims: list[str]) -> str:
    return chat(verdicts=[{"claim_number": i + 1, "supported": True, "reason": "ok"} for i in range(len(claims))])


@pytest.mark.parametrize(
    ("judgement", "args", "answer", "edit"),
    [
        (
            "verify_claims",
            (["Cats sleep.", "Dogs bark."], ["Cats sleep. Dogs bark."]),
            claims_reply(["Cats sleep.", "Dogs bark."]),
            lambda value: value.pop(),  # a claim left without a verdict
        ),
        (
            "context_relevance",
            ("What do cats do?", ["Cats sleep.", "Dogs bark."]),
            chat(
                verdicts=[
                    {"context_number": 1, "is_relevant": True, "relevance_score": 90, "reasoning": "on topic"},
                    {"context_number": 2, "is_relevant": False, "relevance_score": 5, "reasoning": "off topic"},
                ]
            ),
            lambda value: value[1].update(index=7),  # a context that does not exist
        ),
        (
            "generate_questions",
            ("Cats sleep a lot.", 2),
            chat(questions=["What do cats do?", "How much do cats sleep?"]),
            lambda value: value.extend(["Extra one?", "Extra two?"]),  # more questions than asked for
        ),
    ],
)
def test_forged_entries_of_other_judgements_are_not_used(
    tmp_path: Path, judgement: str, args: tuple, answer: str, edit: Any
) -> None:
    first = JudgementChatModel(answers={judgement: answer})
    fresh = getattr(ResilientJudge(DspyJudge(first), cache=tmp_path), judgement)(*args)
    assert fresh.ok, fresh.reason
    forge(tmp_path, edit)
    second = JudgementChatModel(answers={judgement: answer})
    outcome = getattr(ResilientJudge(DspyJudge(second), cache=tmp_path), judgement)(*args)
    assert second.calls[judgement] == 1 and outcome.value == fresh.value


def test_a_cache_entry_with_another_status_or_name_is_not_used(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    ok = Judgement(name="classify_answer", value={"label": "CORRECT", "reason": ""})
    cache.put("k1", ok)
    assert cache.get("k1", "classify_answer") is not None
    entry = next(tmp_path.rglob("k1.json"))
    data = json.loads(entry.read_text(encoding="utf-8"))
    entry.write_text(json.dumps({**data, "name": "trace_labels"}), encoding="utf-8")
    assert cache.get("k1", "classify_answer") is None
    entry.write_text(json.dumps({**data, "status": "undetermined", "reason": "forged"}), encoding="utf-8")
    assert cache.get("k1", "classify_answer") is None
