"""RGB scoring: every official rule and quirk by hand, and the lenient document's worked examples."""

from __future__ import annotations

import pytest

from rageval_lc.rgb.scoring import (
    EvaluationResult,
    RgbRow,
    check_answer,
    judge_row,
    lenient_corrects_error,
    lenient_detects_error,
    lenient_is_correct,
    lenient_is_rejection,
    normalize_answer,
    official_labels,
    score_rgb,
)

REJECT = "I can not answer the question because of the insufficient information in documents."
DATES = [["January 2 2022", "Jan 2, 2022", "Jan. 2, 2022", "January 2, 2022", "2 January 2022"]]

# --- official rules (the benchmark's evalue.py) --------------------------------------------------------


def test_answers_match_case_insensitively_as_substrings() -> None:
    assert official_labels("THE WINNER WAS NOVAK DJOKOVIC", "Novak Djokovic") == [1]
    assert official_labels("Djokovic won", "Novak Djokovic") == [0]  # the whole element must appear


def test_rejection_is_case_sensitive() -> None:
    assert official_labels("Insufficient information in documents.", "Paris") == [0]
    assert official_labels("INSUFFICIENT INFORMATION", "Paris") == [0]
    assert official_labels(REJECT, "Paris") == [-1]


def test_rejection_is_checked_before_correctness() -> None:
    prediction = "Paris, although there is insufficient information in documents."
    assert official_labels(prediction, "Paris") == [-1]
    j = judge_row(RgbRow(prediction, "Paris", "noise_robustness"))
    assert (j.rejected, j.correct) == (True, False)


def test_a_nested_list_is_any_of() -> None:
    assert check_answer("It happened on Jan 2, 2022.", DATES) == [1]
    assert check_answer("It happened on 2 January 2022.", DATES) == [1]
    assert check_answer("It happened on 2022-01-02.", DATES) == [0]


def test_every_top_level_element_is_required() -> None:
    assert check_answer("Paris and Lyon", ["Paris", "Lyon"]) == [1, 1]
    assert check_answer("Only Paris", ["Paris", "Lyon"]) == [1, 0]
    assert judge_row(RgbRow("Only Paris", ["Paris", "Lyon"], "information_integration")).correct is False
    assert judge_row(RgbRow("Paris and Lyon", ["Paris", "Lyon"], "information_integration")).correct is True
    # mixed: a required string and a list of alternatives
    assert check_answer("Jan 2, 2022 in Paris", [DATES[0], "Paris"]) == [1, 1]


def test_accuracy_needs_no_zero_and_at_least_one_one() -> None:
    assert judge_row(RgbRow("anything", [], "noise_robustness")).correct is False  # labels [] hold no 1


def test_factual_errors_detection_is_exact() -> None:
    def detected(prediction: str) -> bool:
        return judge_row(RgbRow(prediction, "Paris", "counterfactual_robustness")).error_detected

    assert detected("There are factual errors in the provided documents. It is Paris.")
    assert not detected("There is a factual error in the provided documents. It is Paris.")  # singular
    assert not detected("Factual errors exist.")  # capital F


def test_detection_plus_rejection_counts_as_corrected() -> None:
    j = judge_row(
        RgbRow(f"There are factual errors in the provided documents. {REJECT}", "Paris", "counterfactual_robustness")
    )
    assert j.labels == [-1] and j.error_detected and j.error_corrected and not j.correct
    wrong = judge_row(
        RgbRow(
            "There are factual errors in the provided documents. It is London.", "Paris", "counterfactual_robustness"
        )
    )
    assert wrong.error_detected and not wrong.error_corrected


def test_official_rates_by_hand() -> None:
    rows = [
        # counterfactual: 4 rows, 3 detected, 2 of them corrected (one by rejecting)
        RgbRow("There are factual errors in the provided documents. Paris.", "Paris", "counterfactual_robustness"),
        RgbRow(f"There are factual errors in the provided documents. {REJECT}", "Paris", "counterfactual_robustness"),
        RgbRow("There are factual errors in the provided documents. London.", "Paris", "counterfactual_robustness"),
        RgbRow("Paris.", "Paris", "counterfactual_robustness"),
        # negative rejection at ratio 1: one rejection, one correct answer anyway, one wrong
        RgbRow(REJECT, "Paris", "negative_rejection", noise_ratio=1.0),
        RgbRow("Paris", "Paris", "negative_rejection", noise_ratio=1.0),
        RgbRow("London", "Paris", "negative_rejection", noise_ratio=1.0),
        # noise robustness at two ratios
        RgbRow("Paris", "Paris", "noise_robustness", noise_ratio=0.0),
        RgbRow("Lyon", "Paris", "noise_robustness", noise_ratio=0.0),
        RgbRow("Paris", "Paris", "noise_robustness", noise_ratio=0.4),
    ]
    results, judgements = score_rgb(rows)
    by = {r.task_type: r for r in results}
    fact = by["counterfactual_robustness_0%"]
    assert (fact.errors_detected, fact.errors_corrected) == (3, 2)
    assert fact.error_detection_rate == 75.0
    assert fact.error_correction_rate == pytest.approx(200 / 3)  # corrected / detected
    assert fact.accuracy == 50.0  # rows 1 and 4 answer Paris with no 0 label
    rejection = by["negative_rejection_100%"]
    assert rejection.rejection_rate == pytest.approx(100 / 3)  # strict: rejections only
    assert rejection.all_rate == pytest.approx(200 / 3)  # the script: rejections and correct answers
    assert (rejection.rejected, rejection.correct, rejection.incorrect) == (1, 1, 1)
    noise = by["noise_robustness"]
    assert noise.noise_ratio is None and noise.accuracy_by_noise == {0: 50.0, 40: 100.0}
    assert by["noise_robustness_0%"].accuracy == 50.0
    assert [j.labels for j in judgements[:3]] == [[1], [-1], [0]]


def test_bad_rows_raise() -> None:
    with pytest.raises(ValueError, match="Unknown RGB task 'noise'"):
        score_rgb([RgbRow("x", "y", "noise")])
    with pytest.raises(ValueError, match=r"noise_ratio of row 'r' must be in \[0, 1\]"):
        score_rgb([RgbRow("x", "y", "noise_robustness", noise_ratio=1.5, id="r")])
    with pytest.raises(ValueError, match="'mode' parameter of score_rgb"):
        score_rgb([], mode="strict")  # type: ignore[arg-type]


# --- lenient rules (reference/rgb_evaluation.txt) ------------------------------------------------------


def test_normalize_answer_examples() -> None:
    assert normalize_answer("Paris.") == "paris"
    assert normalize_answer("The capital is Paris!!!") == "the capital is paris"


def test_is_correct_example_and_branches() -> None:
    assert lenient_is_correct("The capital of France is Paris.", "Paris")  # the document's example
    assert lenient_is_correct("Paris", "Paris, France")  # a short answer inside the long truth
    assert lenient_is_correct("capital city paris france", "Paris France capital city")  # 4/4 tokens, any order
    assert not lenient_is_correct("", "Paris")
    assert lenient_is_correct("paris", "Paris.", strict=True)
    assert not lenient_is_correct("the capital is paris", "Paris", strict=True)


def test_token_overlap_threshold() -> None:
    truth = "alpha beta gamma delta epsilon"
    assert lenient_is_correct("epsilon delta gamma beta here", truth)  # 4/5 = 80 %
    assert not lenient_is_correct("epsilon delta gamma here", truth)  # 3/5 = 60 %


def test_information_integration_example_follows_the_rules() -> None:
    """The document calls this response CORRECT with "85% token overlap". Its own rules disagree: only
    trailing punctuation is normalised, so of the truth's 11 tokens 'gases', 'deforestation,',
    'emissions,' and 'agricultural' are absent from the response: 7/11 = 64 % < 80 %, and no substring
    rule applies. The rules are implemented; the example's verdict cannot come out of them."""
    truth = "Greenhouse gases from fossil fuels, deforestation, industrial emissions, and agricultural methane"
    response = (
        "The main causes include greenhouse gas emissions from burning fossil fuels, loss of forests that "
        "absorb CO2, industrial pollution, and methane from agriculture."
    )
    truth_tokens = set(normalize_answer(truth).split())
    overlap = truth_tokens & set(normalize_answer(response).split())
    assert len(truth_tokens) == 11 and len(overlap) == 7
    assert not lenient_is_correct(response, truth)


@pytest.mark.parametrize(
    ("response", "rejected"),
    [
        ("I cannot answer this question because the documents don't contain relevant information.", True),
        ("Based on the provided documents, I cannot determine the answer.", True),
        ("The documents do not mention this topic, so I cannot provide an answer.", True),
        ("The answer is probably 42 but I'm not sure.", True),
        ("Based on the information, the answer is London.", False),
    ],
)
def test_rejection_examples(response: str, rejected: bool) -> None:
    assert lenient_is_rejection(response) is rejected


@pytest.mark.parametrize(
    ("response", "detected", "corrected"),
    [
        ("The documents state London, but that is incorrect. The actual capital is Paris.", True, True),
        ("According to the documents, the capital is London.", False, False),
        ("The documents are wrong - the capital is Tokyo.", True, False),
    ],
)
def test_counterfactual_examples(response: str, detected: bool, corrected: bool) -> None:
    assert lenient_detects_error(response, "London") is detected
    assert lenient_corrects_error(response, "Paris", "London") is corrected


def test_counterfactual_named_patterns() -> None:
    assert lenient_detects_error("It is not London.", "London")
    assert lenient_detects_error("london is wrong here", "London")
    assert not lenient_corrects_error("It is London, not Paris.", "Berlin", "London")


def test_lenient_rates_are_over_all_samples() -> None:
    rows = [
        RgbRow(
            "That is incorrect: the capital is Paris.",
            "Paris",
            "counterfactual_robustness",
            counterfactual_answer="London",
        ),
        RgbRow(
            "The documents are wrong - the capital is Tokyo.",
            "Paris",
            "counterfactual_robustness",
            counterfactual_answer="London",
        ),
        RgbRow("The capital is London.", "Paris", "counterfactual_robustness", counterfactual_answer="London"),
        RgbRow("I'm not sure.", "Paris", "negative_rejection", noise_ratio=1.0),
        RgbRow("Paris", "Paris", "negative_rejection", noise_ratio=1.0),
    ]
    results, _ = score_rgb(rows, mode="lenient")
    by = {r.task_type: r for r in results}
    fact = by["counterfactual_robustness_0%"]
    assert fact.error_detection_rate == pytest.approx(200 / 3)
    assert fact.error_correction_rate == pytest.approx(100 / 3)  # corrected / all samples
    assert fact.correct == 1
    rejection = by["negative_rejection_100%"]
    assert (rejection.rejected, rejection.correct, rejection.incorrect) == (1, 0, 1)
    assert rejection.rejection_rate == 50.0 and rejection.all_rate == 0.0  # lenient: accuracy, no rejections


def test_evaluation_result_example_outputs() -> None:
    assert EvaluationResult("negative_rejection", total_samples=100, rejected=92).rejection_rate == 92.0
    cf = EvaluationResult(
        "counterfactual_robustness", total_samples=100, errors_detected=89, errors_corrected=85, mode="lenient"
    )
    assert (cf.error_detection_rate, cf.error_correction_rate) == (89.0, 85.0)
    assert EvaluationResult("information_integration", total_samples=100, correct=78).accuracy == 78.0
    assert EvaluationResult("noise_robustness").accuracy == 0.0  # no samples: 0, never a division error


def test_result_and_judgement_dicts_keep_their_keys_and_order() -> None:
    """Two rows at ratio 0.2 (one correct, one rejected), one at 0.4 (wrong): the dicts as written by
    ``rageval rgb score``, key order included."""
    rows = [
        RgbRow("Paris.", "Paris", "noise_robustness", 0.2, id="a"),
        RgbRow(REJECT, "Paris", "noise_robustness", 0.2, id="b"),
        RgbRow("Lyon.", "Paris", "noise_robustness", 0.4, id="c"),
    ]
    results, judgements = score_rgb(rows, model_name="m")
    overall = results[-1].to_dict()
    assert list(overall.items()) == [
        ("task_type", "noise_robustness"),
        ("model_name", "m"),
        ("mode", "official"),
        ("noise_ratio", None),
        ("total_samples", 3),
        ("correct", 1),
        ("incorrect", 2),
        ("rejected", 1),
        ("errors_detected", 0),
        ("errors_corrected", 0),
        ("accuracy", 100 / 3),
        ("all_rate", 100 / 3),
        ("rejection_rate", 100 / 3),
        ("error_detection_rate", 0.0),
        ("error_correction_rate", 0.0),
        ("accuracy_by_noise", {"20": 50.0, "40": 0.0}),
    ]
    keys = ["id", "labels", "rejected", "correct", "error_detected", "error_corrected"]
    assert [list(j.to_dict()) for j in judgements] == [keys] * 3
    assert [list(j.to_dict().values()) for j in judgements] == [
        ["a", [1], False, True, False, False],
        ["b", [-1], True, False, False, False],
        ["c", [0], False, False, False, False],
    ]


def test_rgb_rows_are_read_from_json_objects() -> None:
    data = {"prediction": "Paris.", "answer": ["Paris"], "task": "noise_robustness", "noise_ratio": 1, "id": 5}
    assert RgbRow.from_dict(data) == RgbRow("Paris.", ["Paris"], "noise_robustness", 1.0, None, "5")
    assert RgbRow.from_dict({"prediction": "", "answer": "x", "task": "t"}).noise_ratio == 0.0
    with pytest.raises(TypeError, match="a row must be a JSON object, got list"):
        RgbRow.from_dict([])
    with pytest.raises(KeyError, match=r"the row lacks \['answer', 'task'\]"):
        RgbRow.from_dict({"prediction": "x"})
    with pytest.raises(TypeError, match="'prediction' must be a string, got int"):
        RgbRow.from_dict({"prediction": 1, "answer": "x", "task": "t"})
    with pytest.raises(TypeError, match="'noise_ratio' must be a number, got True"):
        RgbRow.from_dict({"prediction": "x", "answer": "x", "task": "t", "noise_ratio": True})


def test_the_table_says_what_each_figure_is_and_a_task_line_counts_as_its_ratio_lines() -> None:
    from rageval_lc.rgb.scoring import RESULT_HEADERS, RESULT_LEGEND, result_rows

    # The guide's run printed negative_rejection_100% 11.364 beside negative_rejection 0.000 in one column: the
    # ratio line counted rejections with right answers (RGB's all_rate), the task line right answers only.
    rows = [
        RgbRow(REJECT, "Paris", "negative_rejection", noise_ratio=1.0),  # rejected
        RgbRow("London", "Paris", "negative_rejection", noise_ratio=1.0),  # wrong
        RgbRow("Paris", "Paris", "noise_robustness", noise_ratio=0.0),  # right
        RgbRow("Lyon", "Paris", "noise_robustness", noise_ratio=0.4),  # wrong
    ]
    close = {"abs": 1e-9}
    for mode in ("official", "lenient"):
        table = {row[0]: row for row in result_rows(score_rgb(rows, mode=mode)[0])}
        # negative rejection: 1 of 2 rejected (and none right), on the ratio line and the task line alike
        for task in ("negative_rejection_100%", "negative_rejection"):
            assert table[task][2:4] == [pytest.approx(50.0, **close), pytest.approx(50.0, **close)], (mode, task)
        # noise robustness: 1 right of 2 over both ratios, none rejected
        assert table["noise_robustness"][2:4] == [pytest.approx(50.0, **close), pytest.approx(0.0, **close)]
    # the headers and the legend say what the figures are, in percent of the line's rows
    assert RESULT_HEADERS[2:4] == ("right %", "rejected %")
    assert "negative_rejection: rejected or right" in RESULT_LEGEND
    assert "per 100 rows" in RESULT_LEGEND
