"""Issue 43: the grounding model's input (built alike at run time and in training) and the rows a new user tried
that the judge before it passed: a before/after swap, an added list item, two dosages, a pool with two passages."""

from __future__ import annotations

import numpy as np
import pytest

from rageval_lc.judges.offline.decision import answer_unfound
from rageval_lc.judges.offline.grounding import EVIDENCE_MARGIN, EVIDENCE_SENTENCES, claim_text, grounding_pairs
from rageval_lc.judges.offline.judge import OfflineJudge
from rageval_lc.metrics.overlap import overlap_hallucination
from rageval_lc.schema import RagSample
from rageval_lc.text import KeyedSentences


def test_the_evidence_is_the_closest_sentences_in_document_order_and_the_best_word_match() -> None:
    keyed = KeyedSentences.from_texts(["A one. B two. C three.", "D four. E five. F six."], "Claim about six.")
    # similarities chosen by hand: 1b, 1a, 0c, 0a closest (four); "six" is only in 1c, which is added
    sims = np.array([[0.5, 0.1, 0.6, 0.8, 0.2, 0.0]])
    ((keys, text, claim),) = grounding_pairs(keyed, sims, "What about six?")
    assert EVIDENCE_SENTENCES == 4
    assert keys == ("0a", "0c", "1a", "1b", "1c")
    assert text == "A one. C three. D four. E five. F six."
    assert claim == "What about six? Claim about six."  # three words: read after its question


def test_an_unrelated_passage_never_enters_the_evidence() -> None:
    """A passage whose every sentence is over EVIDENCE_MARGIN less similar than the closest one is left out, even
    when it shares the claim's words: the evidence is the same with it and without it (the bystander property)."""
    alone = KeyedSentences.from_texts(["The museum opens at nine."], "The museum opens at nine on Mondays.")
    ((keys, text, _),) = grounding_pairs(alone, np.array([[0.9]]))
    assert (keys, text) == (("0a",), "The museum opens at nine.")
    both = KeyedSentences.from_texts(
        ["The museum opens at nine.", "Mondays are busy. Nine trains leave."], "The museum opens at nine on Mondays."
    )
    # by hand: 0.9 - 0.6 = 0.3 > EVIDENCE_MARGIN (0.25), so passage 1 is too far although it holds 'mondays', 'nine'
    assert EVIDENCE_MARGIN == 0.25
    assert grounding_pairs(both, np.array([[0.9, 0.6, 0.5]]))[0][:2] == (("0a",), "The museum opens at nine.")
    # within the margin (0.9 - 0.7 = 0.2) the second passage is evidence: its closest sentences are read too
    assert grounding_pairs(both, np.array([[0.9, 0.7, 0.5]]))[0][0] == ("0a", "1a", "1b")


def test_a_long_claim_is_read_alone_and_no_documents_give_no_evidence() -> None:
    assert claim_text("Why?", "The tower was finished in the spring of 1889.") == (
        "The tower was finished in the spring of 1889."
    )
    keyed = KeyedSentences.from_texts([], "It is tall.")
    assert grounding_pairs(keyed, np.zeros((1, 0)), "") == [((), "", "It is tall.")]


@pytest.mark.parametrize(
    ("answer", "passages", "expected"),
    [
        ("It was finished in 1999.", ["The tower was finished in 1889."], 0.5),  # 'finished' found, '1999' not
        ("Tower tower 1889.", ["The tower was finished in 1889."], 0.0),
        ("The a of.", ["x"], 0.0),  # no content word: 0 by definition
    ],
)
def test_the_word_overlap_baseline_by_hand(answer: str, passages: list[str], expected: float) -> None:
    assert overlap_hallucination(answer, passages) == pytest.approx(expected, abs=1e-12)


@pytest.fixture(scope="module")
def judge() -> OfflineJudge:
    return OfflineJudge(device="cpu")


def verdicts(judge: OfflineJudge, question: str, passages: list[str], answer: str) -> tuple[dict[str, str], bool]:
    result = judge.trace_labels(RagSample(question=question, contexts=passages, response=answer))
    return result.notes["sentence_verdicts"], result.value.overall_supported


#: (question, passages, answer, the verdict a careful reader gives the answer as a whole)
NEW_USER_ROWS = [
    pytest.param(  # a before/after swap
        "When should I remove the battery?",
        ["Always remove the battery before cleaning the device. Clean it with a dry cloth."],
        "Remove the battery after cleaning the device.",
        False,
        marks=pytest.mark.xfail(strict=True, reason="issue 43: passes (P(supported) high on a swapped order)"),
    ),
    (
        "When should I remove the battery?",
        ["Always remove the battery before cleaning the device. Clean it with a dry cloth."],
        "Remove the battery before you clean the device.",
        True,
    ),
    (  # an item added to a list
        "How do I reset the router?",
        ["To reset the router, press the reset button for ten seconds. Wait until the light turns green."],
        "To reset the router:\n- Press the reset button for ten seconds.\n- Wait until the light turns green.\n"
        "- Then update the firmware from the vendor's website.",
        False,
    ),
    (  # two dosages: one is the passage's in other words, the other is not
        "How often should I take it?",
        ["Take one tablet in the morning and one tablet in the evening, with food."],
        "Take it three times a day.",
        False,
    ),
    pytest.param(
        "How often should I take it?",
        ["Take one tablet in the morning and one tablet in the evening, with food."],
        "Take it two times a day, with food.",
        True,
        marks=pytest.mark.xfail(strict=True, reason="issue 43: a count worked out of two doses is read as not found"),
    ),
    (  # a pool with two passages: the second gives opening hours, the first says it is closed on Mondays
        "Is the pool open on Mondays?",
        ["The municipal pool is closed on Mondays for cleaning.", "Opening hours: 7 am to 9 pm, Tuesday to Sunday."],
        "Yes, the municipal pool is open on Mondays.",
        False,
    ),
]


@pytest.mark.parametrize(("question", "passages", "answer", "supported"), NEW_USER_ROWS, ids=lambda v: str(v)[:20])
def test_the_rows_the_judge_before_passed_get_the_right_verdict(
    judge: OfflineJudge, question: str, passages: list[str], answer: str, supported: bool
) -> None:
    sentence_verdicts, overall = verdicts(judge, question, passages, answer)
    assert overall is supported, sentence_verdicts
    if not supported:
        assert any(v in ("not_found", "contradicted") for v in sentence_verdicts.values())


def test_headings_and_hedges_make_no_claim_in_the_judge(judge: OfflineJudge) -> None:
    answer = "## Opening hours\nThe pool opens at 7 am.\nI do not have information about holidays.\nHope this helps!"
    sentence_verdicts, overall = verdicts(
        judge, "When does the pool open?", ["The pool opens at 7 am and closes at 9 pm."], answer
    )
    assert overall is True
    assert [v for v in sentence_verdicts.values() if v != "no_claim"] == ["supported"]
    assert list(sentence_verdicts.values()).count("no_claim") == 3


SKYLINE = (
    "How tall is the Skyline Tower?",
    [
        "The Skyline Tower is 320 metres tall, the tallest building in the city. Its spire adds another 12 metres.",
        "The Skyline Tower was completed in 2011 after four years of construction. It cost 400 million dollars.",
    ],
)


@pytest.mark.parametrize("answer", ["It was completed in 2011.", "", "It is 320 metres tall.", "I don't know."])
def test_relevance_follows_the_question_not_the_answer(judge: OfflineJudge, answer: str) -> None:
    """Issue 44 item 4: the same question and passages give the same relevant sentences whatever the answer, and the
    height sentence is among them."""
    question, passages = SKYLINE
    base = judge.trace_labels(RagSample(question=question, contexts=passages, response="The tower is tall."))
    result = judge.trace_labels(RagSample(question=question, contexts=passages, response=answer))
    assert result.value.all_relevant_sentence_keys == base.value.all_relevant_sentence_keys
    assert "0a" in result.value.all_relevant_sentence_keys


def test_the_reason_never_calls_a_word_missing_that_another_passage_holds(judge: OfflineJudge) -> None:
    """Issue 44 item 9: "words not in the documents: cho, daniel" when passage 2 names Daniel Cho."""
    passages = [
        "The lab studies protein folding with cryo-electron microscopy.",
        "Daniel Cho joined the lab in 2019 as its director.",
    ]
    result = judge.trace_labels(
        RagSample(question="Who directs the lab?", contexts=passages, response="Daniel Cho directs the lab.")
    )
    (sentence,) = result.value.sentence_support_information
    _, _, named = sentence.explanation.partition("words not in the documents: ")
    assert not {"cho", "daniel"} & set(named.rstrip(".").split(", "))


def test_the_row_model_reads_the_word_overlap_baseline_of_the_claims_alone(judge: OfflineJudge) -> None:
    """answer_unfound: the share of the claims' words their evidence does not hold — here (one passage, one claim) the
    word-overlap baseline of the claim's text computed on its own; the heading makes no claim and does not count."""
    passages = ["The tower was finished in 1889."]
    sample = RagSample(question="When?", contexts=passages, response="Here is how:\n\nThe tower was finished in 1999.")
    features, _ = judge.features(sample.question, sample.sentences, sample.response)
    assert features.claim_free[0] is not None and features.claim_free[1] is None
    expected = overlap_hallucination("The tower was finished in 1999.", passages)
    assert answer_unfound(features) == pytest.approx(expected, abs=1e-12)
    assert expected == pytest.approx(1 / 3, abs=1e-12)
