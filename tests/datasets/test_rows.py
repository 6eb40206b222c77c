"""Generic input rows."""

from __future__ import annotations

import pytest

from rageval_lc.datasets.rows import sample_from_row


def test_generic_row_keeps_unknown_fields_in_metadata() -> None:
    sample = sample_from_row(
        {
            "id": 9,
            "question": "Q?",
            "contexts": ["Alpha is first."],
            "response": "Alpha.",
            "reference": "Alpha",
            "metadata": {"split": "dev"},
            "rating": 4,
        }
    )
    assert sample.id == "9"
    assert sample.reference == "Alpha"
    assert sample.metadata == {"split": "dev", "row": {"rating": 4}}
    assert sample.labels is None


def test_generic_row_with_labels_and_pre_keyed_sentences() -> None:
    sample = sample_from_row(
        {
            "question": "Q?",
            "contexts": ["x"],
            "response": "y",
            "documents_sentences": [[["0a", "x"]]],
            "response_sentences": [["a", "y"]],
            "labels": {"all_relevant_sentence_keys": ["0a"]},
        }
    )
    assert sample.sentences.document_keys == ("0a",)
    assert sample.labels is not None and sample.labels.all_relevant_sentence_keys == ["0a"]


@pytest.mark.parametrize(
    ("row", "error", "pattern"),
    [
        ([1, 2], TypeError, r"'row' field of sample_from_row must be a mapping"),
        (
            {"question": "Q?", "contexts": ["x"], "response": "y", "labels": ["0a"]},
            TypeError,
            r"'labels' field of sample_from_row must be a mapping",
        ),
        (
            {"question": "Q?", "contexts": ["x"], "response": "y", "metadata": 3},
            TypeError,
            r"'metadata' field of sample_from_row must be a mapping",
        ),
        (
            {"question": "Q?", "contexts": ["x"], "response": "y", "documents_sentences": []},
            ValueError,
            r"lacks \['response_sentences'\]",
        ),
        ({"question": "", "contexts": ["x"], "response": "y"}, ValueError, r"'question' field .* non-empty"),
        ({"question": "Q?", "response": "y"}, ValueError, r"requires the 'contexts' field"),
    ],
)
def test_bad_rows(row: object, error: type, pattern: str) -> None:
    with pytest.raises(error, match=pattern):
        sample_from_row(row)
