"""Questions written from passages by an LLM judge (issue 36, item 2), with DSPy's DummyLM: an answer the passage
holds is kept, one it does not is sent back and then dropped with its reason; the dry run counts the calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dspy.utils import DummyLM

from rageval_lc.cli import main
from rageval_lc.judges.llm.dspy_judge import DspyJudge
from rageval_lc.rgb.questions import generate_questions, question_cost
from tests.rgb.test_build import CORPUS


def test_an_answer_the_passage_does_not_hold_is_dropped_with_its_reason() -> None:
    lm = DummyLM(
        [
            {"question": "When did the Millau Viaduct open?", "answer": "14 December 2004"},
            {"question": "How long is it?", "answer": "3 miles"},  # not in the passage: asked again
            {"question": "How long is it?", "answer": "3 miles"},
        ]
    )
    rows, dropped = generate_questions(CORPUS[:3:2], DspyJudge(lm, max_retries=1), count=2)
    assert rows == [{"question": "When did the Millau Viaduct open?", "answer": "14 December 2004", "passage": 0}]
    assert dict(dropped) == {"no usable question (undetermined)": 1}


def test_the_dry_run_counts_one_call_per_passage_drawn(tmp_path: Path, capsys) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(CORPUS) + "\n")
    judge = DspyJudge(DummyLM([]))
    calls, tokens = question_cost(CORPUS, judge, count=3, seed=1)
    assert calls == 3 and tokens is not None and tokens > 3 * 50
    argv = [
        "rgb",
        "build",
        "--corpus",
        str(corpus),
        "--generate",
        "3",
        "--judge",
        "dspy:openai/gpt-4o-mini",
        "--dry-run",
        "--out",
        str(tmp_path / "t.json"),
    ]
    assert main(argv) == 0
    assert "3 calls before retries" in capsys.readouterr().out
    assert not (tmp_path / "t.json").exists()
    assert main(["rgb", "build", "--corpus", str(corpus), "--generate", "3", "--out", str(tmp_path / "t.json")]) == 2


def test_generated_questions_make_a_testbed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from rageval_lc.judges import factory

    answers = {
        "Millau Viaduct opened": {"question": "When did the Millau Viaduct open?", "answer": "14 December 2004"},
        "Golden Gate Bridge was designed": {
            "question": "Who designed the Golden Gate Bridge?",
            "answer": "Joseph Strauss",
        },
    }
    lm = DummyLM(answers)
    monkeypatch.setattr(factory, "make_judge", lambda *args, **kwargs: DspyJudge(lm, max_retries=0))
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"text": p}) + "\n" for p in CORPUS))
    out = tmp_path / "testbed.json"
    argv = ["rgb", "build", "--corpus", str(corpus), "--generate", "8", "--judge", "dspy:fake", "--out", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "question not written for 6 passages: no usable question (undetermined)" in printed
    assert "2 questions: 2 noise/rejection, 2 counterfactual, 0 integration records" in printed
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["query"] for r in records} == {
        "When did the Millau Viaduct open?",
        "Who designed the Golden Gate Bridge?",
    }
    # the other question's answer is a date: the wrong designer is the corpus's other name "designed by"
    assert [r["fakeanswer"] for r in records if r.get("fakeanswer") and "Gate" in r["query"]] == ["Norman Foster"]
