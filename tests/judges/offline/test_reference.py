"""The offline judge against a reference: key-term overlap by hand, and RGB's counterfactual answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rageval_lc.judges.offline.reference import key_term_overlap


def test_key_terms_beyond_the_question() -> None:
    overlap = key_term_overlap("Who acquired Instagram?", "Apple acquired Instagram.", "Facebook")
    assert (overlap.answer_terms, overlap.precision, overlap.recall) == (("apple",), 0.0, 0.0)
    same = key_term_overlap("Who acquired Instagram?", "Facebook acquired it in 2012.", "Facebook, in 2012")
    assert (same.precision, same.recall, same.conflicting_numbers) == (1.0, 1.0, ())
    # nothing new beyond the question: no key-term evidence either way
    assert key_term_overlap("Who acquired Instagram?", "instagram was acquired", "Facebook").precision is None
    dates = key_term_overlap("When was OpenAI founded?", "In December 2005.", "December 2015")
    assert (dates.precision, dates.conflicting_numbers) == (0.5, ("2005",))


@pytest.fixture(scope="module")
def local_judge():
    from rageval_lc.judges.offline.judge import OfflineJudge

    return OfflineJudge()


def test_rgb_counterfactual_answers_are_wrong_and_true_answers_correct(local_judge, shared: Path) -> None:
    """RGB's en_fact gives each question its true answer and a counterfactual one (released data)."""
    records = [json.loads(line) for line in (shared / "data" / "rgb" / "en_fact.json").read_text().splitlines()]
    true_correct = fake_wrong = 0
    for record in records:
        answer = record["answer"]
        while isinstance(answer, list):
            answer = answer[0]
        question, fake = record["query"], record["fakeanswer"]
        true_correct += local_judge.classify_answer(question, answer, answer).value.label == "CORRECT"
        fake_wrong += local_judge.classify_answer(question, f"The answer is {fake}.", answer).value.label == "WRONG"
    assert len(records) == 100
    # measured: 100 and 99 (the miss: "May 5, 2020" for "January 5 2020" — "may" reads as a stopword)
    assert true_correct == 100
    assert fake_wrong >= 97
