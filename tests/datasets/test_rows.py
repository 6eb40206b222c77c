"""Generic input rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rageval_lc.datasets.rows import sample_from_row, scored_samples
from rageval_lc.files import line_sha256


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


def test_scored_samples_reads_the_lines_rows_were_scored_from(tmp_path: Path) -> None:
    good = {"id": "a", "question": "Q?", "contexts": ["Doc."], "response": "R."}
    lines = [json.dumps(good), json.dumps({**good, "id": "b"}), "not json", json.dumps({**good, "id": "d"})]
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    raw = path.read_bytes().splitlines(keepends=True)
    rows = [
        {"line": 1, "input_sha256": line_sha256(raw[0], 1)},  # as scored
        {"line": 2, "input_sha256": "changed since"},
        {"line": 3},  # not a row
        {"line": 4},  # no input_sha256: the line as it is
        {"line": 9},  # gone
        {"id": "no line"},
    ]
    assert [(line, sample.id) for line, sample in scored_samples(path, rows)] == [(1, "a"), (4, "d")]
