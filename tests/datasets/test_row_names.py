"""Generic rows under the names users bring from ragas and deepeval."""

from __future__ import annotations

import pytest

from rageval_lc.datasets.rows import sample_from_row

OURS = {
    "id": "q1",
    "question": "What do cats do?",
    "contexts": ["Cats sleep a lot."],
    "response": "Cats sleep.",
    "reference": "They sleep.",
}
RAGAS = {
    "id": "q1",
    "user_input": "What do cats do?",
    "retrieved_contexts": ["Cats sleep a lot."],
    "response": "Cats sleep.",
    "reference": "They sleep.",
}
DEEPEVAL = {
    "id": "q1",
    "input": "What do cats do?",
    "retrieval_context": ["Cats sleep a lot."],
    "actual_output": "Cats sleep.",
    "expected_output": "They sleep.",
}


@pytest.mark.parametrize("row", [RAGAS, DEEPEVAL], ids=["ragas", "deepeval"])
def test_ragas_and_deepeval_names_give_the_same_sample(row: dict) -> None:
    sample = sample_from_row(row)
    assert sample == sample_from_row(OURS)
    assert "row" not in sample.metadata  # the names were read, not kept as unknown fields


def test_a_missing_field_lists_the_accepted_names() -> None:
    question = r"requires the 'question' field \(accepted names: question, user_input, input\)"
    with pytest.raises(ValueError, match=question):
        sample_from_row({"retrieved_contexts": ["x"], "response": "y"})
    names = r"'contexts' field \(accepted names: contexts, retrieved_contexts, retrieval_context\)"
    with pytest.raises(ValueError, match=names):
        sample_from_row({"input": "Q?", "actual_output": "y"})


def test_two_names_for_one_field_with_different_values_are_refused() -> None:
    with pytest.raises(ValueError, match=r"both 'question' and 'user_input'"):
        sample_from_row({**OURS, "user_input": "Something else?"})
    assert sample_from_row({**OURS, "input": OURS["question"]}).question == OURS["question"]
