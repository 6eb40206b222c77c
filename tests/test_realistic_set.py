"""The realistic RAG-answer yardstick (benchmarks/data/realistic_rag_answers.jsonl) is well formed.

No model is loaded: these checks read the file and split sentences only.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from rageval_lc.text import split_sentences

DATA = Path(__file__).resolve().parents[1] / "benchmarks" / "data"
REALISTIC = DATA / "realistic_rag_answers.jsonl"
FIELDS = {"id", "kind", "label", "question", "contexts", "response", "contradicted_sentence", "note"}
CONTRADICTION_KINDS = ("number", "date", "entity", "negation", "comparison", "role_swap", "scope")
FAITHFUL_KINDS = (
    "unit", "number_format", "date_format", "arithmetic", "reorder", "paraphrase", "verbatim", "terse",
    "other_quantity",
)  # fmt: skip
LABEL_OF = {**dict.fromkeys(CONTRADICTION_KINDS, "contradiction"), **dict.fromkeys(FAITHFUL_KINDS, "faithful")}
# examples that are tests elsewhere, kept out of this set
ELSEWHERE = ("Berlin Wall", "aspirin", "Canberra", "Fleming", "Pasteur", "Toronto")


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


ROWS = _rows(REALISTIC)


def test_fields_ids_and_labels() -> None:
    ids = [row["id"] for row in ROWS]
    assert len(ids) == len(set(ids))
    for row in ROWS:
        assert set(row) == FIELDS, row["id"]
        assert row["kind"] in LABEL_OF, row["id"]
        assert row["label"] == LABEL_OF[row["kind"]], row["id"]
        for field in ("id", "question", "response", "note"):
            assert isinstance(row[field], str) and row[field].strip(), (row["id"], field)
        assert isinstance(row["contexts"], list) and all(isinstance(c, str) and c.strip() for c in row["contexts"])


def test_counts_per_kind() -> None:
    counts = Counter(row["kind"] for row in ROWS)
    labels = Counter(row["label"] for row in ROWS)
    assert len(ROWS) >= 80
    assert labels["contradiction"] >= 40 and labels["faithful"] >= 40
    for kind in CONTRADICTION_KINDS:
        assert counts[kind] >= 5, kind
    for kind in FAITHFUL_KINDS:
        assert counts[kind] >= 4, kind


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_shape_of_a_row(row: dict) -> None:
    """Two or three passages of two to four sentences; an answer of one to four sentences; a contradiction names
    a sentence the splitter produces, a faithful answer none."""
    assert 2 <= len(row["contexts"]) <= 3
    for passage in row["contexts"]:
        assert 2 <= len(split_sentences(passage)) <= 4, passage
    sentences = split_sentences(row["response"])
    assert 1 <= len(sentences) <= 4
    index = row["contradicted_sentence"]
    if row["label"] == "contradiction":
        assert isinstance(index, int) and not isinstance(index, bool)
        assert 0 <= index < len(sentences)
        assert sentences[index] not in " ".join(row["contexts"])  # the contradicting sentence is no copy
    else:
        assert index is None
    assert row["response"].strip() not in row["contexts"]


def test_kept_apart_from_the_other_sets() -> None:
    """No response or passage of the older contradiction sets, and none of the examples tested elsewhere."""
    others = _rows(DATA / "contradiction_rag_cases.jsonl") + _rows(DATA / "contradiction_pairs.jsonl")
    responses = {o["response"].strip() for o in others}
    passages = {p.strip() for o in others for p in o.get("contexts", [o.get("context", "")])}
    for row in ROWS:
        assert row["response"].strip() not in responses, row["id"]
        assert not passages & {p.strip() for p in row["contexts"]}, row["id"]
        text = " ".join([row["question"], row["response"], *row["contexts"]]).lower()
        assert not [w for w in ELSEWHERE if w.lower() in text], row["id"]
