"""The hand-written contradiction benchmark data (benchmarks/data/contradiction_pairs.jsonl) is well formed.

No model is loaded: these checks read the file only.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

PAIRS = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "contradiction_pairs.jsonl"
FIELDS = {"id", "kind", "label", "question", "context", "response", "note"}
CONTRADICTION_KINDS = ("number", "date", "name", "negation", "role_swap", "unit")
LABEL_OF = {
    **dict.fromkeys(CONTRADICTION_KINDS, "contradiction"),
    "paraphrase": "faithful",
    "faithful_copy": "faithful",
}


def _rows() -> list[dict]:
    return [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines() if line.strip()]


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _overlap(row: dict) -> float:
    """Share of the response's words that occur in the context."""
    words = _words(row["response"])
    context = set(_words(row["context"]))
    return sum(w in context for w in words) / len(words)


ROWS = _rows()


def test_fields_ids_and_labels() -> None:
    ids = [row["id"] for row in ROWS]
    assert len(ids) == len(set(ids))
    for row in ROWS:
        assert set(row) == FIELDS, row["id"]
        assert row["kind"] in LABEL_OF, row["id"]
        assert row["label"] == LABEL_OF[row["kind"]], row["id"]
        for field in ("id", "question", "context", "response"):
            assert isinstance(row[field], str) and row[field].strip(), (row["id"], field)
        assert isinstance(row["note"], str)
        if row["label"] == "contradiction":
            assert row["note"].strip(), row["id"]
        assert row["response"].strip() != row["context"].strip(), row["id"]


def test_counts_per_kind() -> None:
    counts = Counter(row["kind"] for row in ROWS)
    for kind in CONTRADICTION_KINDS:
        assert counts[kind] >= 10, kind
    assert sum(counts[kind] for kind in CONTRADICTION_KINDS) >= 60
    assert counts["paraphrase"] >= 40
    assert counts["faithful_copy"] >= 8


def test_contexts_are_passages() -> None:
    """Every context has at least two sentences, so the conflicting fact sits among others."""
    for row in ROWS:
        sentences = [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", row["context"]) if s.strip()]
        assert 2 <= len(sentences) <= 6, row["id"]


def test_paraphrases_share_fewer_words_than_copies() -> None:
    mean = {
        kind: sum(_overlap(r) for r in ROWS if r["kind"] == kind) / sum(r["kind"] == kind for r in ROWS)
        for kind in ("paraphrase", "faithful_copy")
    }
    assert mean["paraphrase"] < 0.6 < mean["faithful_copy"]


@pytest.mark.parametrize(
    ("context_part", "response"),
    [
        ("Mount Everest is 8,849 metres tall.", "Mount Everest is 6,120 metres tall."),
        (
            "Canberra is the capital city of Australia. Sydney is its largest city.",
            "The capital of Australia is Sydney.",
        ),
        ("The Berlin Wall fell on 9 November 1989", "The Berlin Wall fell in 1991."),
        ("Aspirin is not recommended for children", "Aspirin is recommended for children."),
    ],
)
def test_issue_examples_are_present_with_a_paraphrase(context_part: str, response: str) -> None:
    matches = [r for r in ROWS if context_part in r["context"]]
    assert any(r["label"] == "contradiction" and r["response"] == response for r in matches)
    assert any(r["kind"] == "paraphrase" for r in matches)
