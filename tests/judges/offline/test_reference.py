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
    assert (same.precision, same.recall) == (1.0, 1.0)
    # nothing new beyond the question: no key-term evidence either way
    assert key_term_overlap("Who acquired Instagram?", "instagram was acquired", "Facebook").precision is None
    dates = key_term_overlap("When was OpenAI founded?", "In December 2005.", "December 2015")
    assert (dates.precision, dates.not_in_reference) == (0.5, ("2005",))


def test_a_figure_of_the_question_or_a_year_read_two_ways_is_no_conflict() -> None:
    """Real rows (RAGBench, a passage as the reference): the question's own year is not the answer's claim, and
    "founded in 1187, which" (read as a number) is the reference's "founded in 1187 following" (read as a date)."""
    from rageval_lc.judges.offline.contradiction import figures_stated_otherwise

    reference = "The quartet toured to Montreal in 1942 and 1943."
    answer = "Der Lindberghflug was performed by the Pacific Mozart Ensemble in 2002."
    assert figures_stated_otherwise(answer, reference) == ["2002 (the reference: 1943)"]
    assert figures_stated_otherwise(answer, reference, "Who performed Der Lindberghflug in 2002?") == []
    asked = "When did the Golden Globe Awards 2020 take place?"  # the question's year does not give the day
    assert figures_stated_otherwise("May 5, 2020", "January 5 2020", asked) == [
        "5 May 2020 (the reference: 5 January 2020)"
    ]
    # a date without a year is no year: "8 May" leaves the prices and the days compared
    assert figures_stated_otherwise("It cost $5.", "On 8 May it cost $7.") == ["$5 (the reference: $7)"]
    assert figures_stated_otherwise("The game was on 8 May.", "It was on 9 May before 300 fans.") == [
        "8 May (the reference: 9 May)"
    ]
    founded = "Another source claims the city was founded in 1187 following a pagan raid on seven cities."
    assert figures_stated_otherwise("Another source claims it was founded in 1187, which is disputed.", founded) == []


@pytest.mark.parametrize(
    ("answer", "reference", "expected"),
    [
        ("The marathon is 42.195 kilometres long.", "A marathon is 42,195 metres.", []),  # one length, two units
        ("About 3 percent voted.", "3% of them voted.", []),
        ("It runs on Windows 7 and costs $40.", "It needs Windows 10 and costs $40.", []),  # a name, not a figure
        (
            "The Wall fell in 1991.",
            "The Berlin Wall fell on 9 November 1989.",
            ["1991 (the reference: 9 November 1989)"],
        ),
        ("He had 3 children.", "He had 4 children.", ["3 (the reference: 4)"]),
        ("It is 5 km long.", "It is 8 km long and 20 m wide.", ["5 km (the reference: 8 km)"]),
        ("It opened in 2001.", "It is 8 km long.", []),  # the reference gives no date: nothing to contradict
        (
            "The 2020 draft was held on May 8, 2020.",
            "November 18 2020",
            ["8 May 2020 (the reference: 18 November 2020)"],
        ),
        ("Revenue: $6.04 billion vs. $5.37 billion.", "$6.04 billion", []),  # it gives the reference's figure too
    ],
)
def test_figures_the_reference_gives_otherwise_are_read_with_their_units(answer, reference, expected) -> None:
    """The rule that caps factual accuracy is the contradiction detector's (a quantity of the same kind, or a date,
    with another value), not a word match: "42.195 kilometres" is "42,195 metres"; "Windows 7" is no number."""
    from rageval_lc.judges.offline.contradiction import figures_stated_otherwise

    assert figures_stated_otherwise(answer, reference) == expected


@pytest.fixture(scope="module")
def local_judge():
    from rageval_lc.judges.offline.judge import OfflineJudge

    return OfflineJudge()


def test_factual_accuracy_caps_a_wrong_date_and_not_a_restated_length(local_judge) -> None:
    wrong = local_judge.factual_accuracy("When did the Wall fall?", "It fell in 1991.", "It fell on 9 November 1989.")
    assert wrong.value.correctness <= 40.0
    assert (
        "figures the reference gives otherwise: 1991 (the reference: 9 November 1989)" in wrong.value.correctness_reason
    )
    question = "How long is a marathon?"
    same = local_judge.factual_accuracy(question, "It is 42.195 kilometres.", "A marathon is 42,195 metres.")
    assert "otherwise" not in same.value.correctness_reason


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
