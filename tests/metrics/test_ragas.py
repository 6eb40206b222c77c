"""RAGAS / GraphRAG maths: hand-worked values, SPEC §5's edge cases and the reference document's examples."""

from __future__ import annotations

import math

import pytest

from rageval_lc.metrics.answer_classification import answer_counts, is_dont_know
from rageval_lc.metrics.answer_relevance import answer_relevance
from rageval_lc.metrics.context_precision import context_precision, context_precision_at_k, relevant_contexts
from rageval_lc.metrics.context_recall import context_recall
from rageval_lc.metrics.factual_accuracy import factual_accuracy, grade
from rageval_lc.metrics.faithfulness import faithfulness
from rageval_lc.metrics.ragas_score import ragas_score
from rageval_lc.reports.summary import format_reference_view, reference_view


def test_faithfulness() -> None:
    assert faithfulness([True, False, True]) == pytest.approx(2 / 3)
    assert faithfulness([]) == 1.0  # no claims: nothing unsupported


def test_context_precision_mean_and_rank_aware() -> None:
    assert context_precision([True, False, False, True]) == 0.5
    # relevant at ranks 1 and 4: (1/1 + 2/4) / 2 = 0.75
    assert context_precision_at_k([True, False, False, True]) == 0.75
    # relevant at ranks 2 and 3: (1/2 + 2/3) / 2 = 7/12
    assert context_precision_at_k([False, True, True]) == pytest.approx(7 / 12)
    assert context_precision([]) == context_precision_at_k([]) == 0.0
    assert context_precision_at_k([False, False]) == 0.0


def test_relevant_contexts_from_sentence_keys() -> None:
    assert relevant_contexts(["1c", "1a", "3b."], 4) == [False, True, False, True]
    assert relevant_contexts(["a", "9z", "junk"], 2) == [False, False]  # response keys, out of range, junk


def test_context_recall() -> None:
    assert context_recall([True, True, False, False]) == 0.5
    assert context_recall([]) == 1.0  # nothing to recall
    assert context_recall([], has_contexts=False) == 1.0  # the reference's order: statements first
    assert context_recall([True, True], has_contexts=False) == 0.0


def test_answer_relevance() -> None:
    assert answer_relevance([0.9, 0.6, 0.6]) == pytest.approx(0.7)
    assert answer_relevance([-0.2, -0.4]) == 0.0  # floored: the scale is 0-1
    assert answer_relevance([], fallback=0.4) == 0.4
    assert answer_relevance([]) is None


def test_ragas_composite_reference_examples() -> None:
    # graphrag_metrics.txt, Llama3_test: local_search has no context precision, so the weights renormalise:
    # (0.3·100 + 0.2·100 + 0.3·83.27) / 0.8 = 93.73
    local = {"faithfulness": 1.0, "context_precision": None, "context_recall": 1.0, "answer_relevance": 0.8327}
    assert 100 * ragas_score(local) == pytest.approx(93.73, abs=5e-3)  # the two decimals the reference shows
    basic = {"faithfulness": 0.0, "context_precision": 0.0, "context_recall": 0.0, "answer_relevance": 0.8327}
    assert 100 * ragas_score(basic) == pytest.approx(24.98, abs=5e-3)


def test_ragas_composite_edges() -> None:
    assert ragas_score({"faithfulness": None, "answer_relevance": math.nan}) is None
    assert ragas_score({"faithfulness": 0.5}) == 0.5
    custom = {"faithfulness": 1.0, "context_precision": 0.0}
    assert ragas_score(custom, {"faithfulness": 3.0, "context_precision": 1.0}) == 0.75
    with pytest.raises(ValueError, match=">= 0"):
        ragas_score(custom, {"faithfulness": -1.0})
    with pytest.raises(ValueError, match="sum to 0"):
        ragas_score(custom, {"faithfulness": 0.0, "context_precision": 0.0})


def test_geval_weights_and_renormalisation() -> None:
    assert factual_accuracy(100, 100, 100) == 100.0
    assert factual_accuracy(80, 60, 100) == 78.0  # 40 + 18 + 20
    assert factual_accuracy(80, 60, None) == 72.5  # (40 + 18) / 0.8
    assert factual_accuracy(None, None, None) is None


def test_grade_boundaries_of_the_reference() -> None:
    cases = {100: "A", 80: "A", 79.99: "B", 60: "B", 59.9: "C", 40: "C", 39.9: "D", 20: "D", 19.9: "E", 0: "E"}
    assert {score: grade(score) for score in cases} == cases


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("I don't know.", True),
        ("I do not know who wrote it.", True),
        ("The author is unknown.", True),
        ("I'm not sure, maybe 1889.", True),
        ("We cannot determine this from the text.", True),
        ("There is no information about it.", True),
        ("Insufficient data.", True),
        ("I am unable to answer that.", True),
        ("I cannot answer this question.", True),
        ("I don't have enough information.", True),
        ("The figure is not available.", True),
        ("No data.", True),
        ("N/A", True),
        ("none", True),
        ("null", True),
        ("", True),
        ("None of the novels mention it, but the play does: 1602.", False),  # long: not a bare "none"
        ("Paris.", False),
        ("The Eiffel Tower was finished in 1889.", False),
    ],
)
def test_dont_know_detection(answer: str, expected: bool) -> None:
    assert is_dont_know(answer) is expected


def test_classification_counts_from_a_list() -> None:
    # The reference's Llama3_test distribution for llm_with_context: 24 answers, 1 "don't know".
    labels = ["CORRECT"] * 17 + ["WRONG"] * 6 + ["DON'T KNOW"] + [None]
    assert answer_counts(labels) == {
        "correct_answers_count": 17,
        "wrong_answers_count": 6,
        "dont_know_answers_count": 1,
        "undetermined": 1,
    }


def test_reference_view_names_and_scale() -> None:
    rows = [
        {
            "scores": {"faithfulness": 1.0, "context_recall": 1.0, "answer_relevance": 0.9, "factual_accuracy": 0.9},
            "status": {
                "context_precision": "undetermined",
                "faithfulness": "ok",
                "context_recall": "ok",
                "answer_relevance": "ok",
                "factual_accuracy": "ok",
                "answer_classification": "ok",
            },
            "label": "CORRECT",
        },
        {
            "scores": {
                "faithfulness": 0.5,
                "context_recall": None,
                "answer_relevance": 0.7654,
                "factual_accuracy": 0.5,
            },
            "status": {
                "context_precision": "undetermined",
                "faithfulness": "ok",
                "context_recall": "undetermined",
                "answer_relevance": "ok",
                "factual_accuracy": "ok",
                "answer_classification": "ok",
            },
            "label": "DON'T KNOW",
        },
    ]
    view = reference_view(rows)
    # means: faithfulness 0.75, recall 1.0 (one ok row), relevance 0.8327, accuracy 0.7
    assert view["ragas_faithfulness"] == 75.0
    assert view["ragas_context_recall"] == 100.0
    assert view["ragas_answer_relevance"] == 83.27
    # context precision scored but undetermined everywhere: left out, (0.3·75 + 0.2·100 + 0.3·83.27) / 0.8 = 84.35
    assert view["ragas_score"] == pytest.approx(84.35)
    assert view["ragas_context_precision"] is None
    assert (view["factual_accuracy_percentage"], view["factual_accuracy_grade"]) == (70.0, "B")
    assert (view["correct_answers_count"], view["wrong_answers_count"], view["dont_know_answers_count"]) == (1, 0, 1)


def test_the_composite_of_a_run_that_did_not_score_all_its_parts_is_not_a_number() -> None:
    rows = [
        {
            "scores": {"faithfulness": 0.5, "answer_relevance": 1.0},
            "status": {"faithfulness": "ok", "answer_relevance": "ok"},
        }
    ]
    assert reference_view(rows) == {
        "ragas_faithfulness": 50.0,
        "ragas_answer_relevance": 100.0,
        "ragas_score": "not shown: context_precision, context_recall were not scored",
    }
    only = [{"scores": {"faithfulness": 0.5}, "status": {"faithfulness": "ok"}}]
    assert format_reference_view(reference_view(only)).splitlines() == [
        "reference name      value",
        "------------------  " + "-" * 78,  # the value's width: the longest, the text
        "ragas_faithfulness  50.000",
        "ragas_score         not shown: context_precision, context_recall, answer_relevance were not scored",
    ]
