"""training/twin_pairs.py: NLI pairs from twins of real answers, worked out by hand on three twins."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "training"))

import twin_pairs  # noqa: E402

from rageval_lc.judges.offline.nli import LABELS  # noqa: E402

DOCS = [
    [
        ["0a", "Title: Erie Canal"],
        ["0b", "The canal opened in 1825, when the state paid for it."],
        ["0c", "It is 363 miles long."],
        ["0d", "Boats still use it."],
    ],
    [
        ["1a", "Title: Lake Erie"],
        ["1b", "The lake is shallow."],
        ["1c", "Its average depth is 62 feet."],
        ["1d", " "],  # an empty sentence is nobody's neighbour
        ["1e", "It freezes in winter."],
    ],
]
CANAL = "Title: Erie Canal The canal opened in 1825, when the state paid for it. It is 363 miles long."
BOTH = (
    "The canal opened in 1825, when the state paid for it. It is 363 miles long. Boats still use it."
    " The lake is shallow. Its average depth is 62 feet. It freezes in winter."
)


def twin(**fields: object) -> dict:
    return {"documents_sentences": DOCS, "response": "…", **fields}


TWINS = [
    twin(  # evidence 0b: its neighbours 0a and 0c come with it
        twin="contradicting",
        edit_kind="date",
        original_id="d:1:g",
        edited_key="a",
        original_sentence="The canal opened in 1825.",
        edited_sentence="The canal opened in 1830.",
        evidence_keys=["0b"],
        fold="fit",
    ),
    twin(  # the same original sentence: no second entailment pair for it
        twin="faithful",
        edit_kind="clause_order",
        original_id="d:1:g",
        edited_key="a",
        original_sentence="The canal opened in 1825.",
        edited_sentence="In 1825 the canal opened.",
        evidence_keys=["0b"],
        fold="fit",
    ),
    twin(  # evidence in two documents, named out of document order; 1d is empty, so 1e is 1c's next neighbour
        twin="contradicting",
        edit_kind="number",
        original_id="d:2:g",
        edited_key="b",
        original_sentence="The lake is 62 feet deep and the canal 363 miles long.",
        edited_sentence="The lake is 26 feet deep and the canal 363 miles long.",
        evidence_keys=["1c", "0c"],
        fold="held",
    ),
]


def test_twin_pairs_are_the_pairs_worked_out_by_hand() -> None:
    assert twin_pairs.twin_pairs(TWINS) == [
        {
            "premise": CANAL,
            "hypothesis": "The canal opened in 1830.",
            "label": "contradiction",
            "source": "twins_fit",
            "kind": "date",
        },
        {
            "premise": CANAL,
            "hypothesis": "The canal opened in 1825.",
            "label": "entailment",
            "source": "twins_fit",
            "kind": "original",
        },
        {
            "premise": CANAL,
            "hypothesis": "In 1825 the canal opened.",
            "label": "entailment",
            "source": "twins_fit",
            "kind": "clause_order",
        },
        {
            "premise": BOTH,
            "hypothesis": "The lake is 26 feet deep and the canal 363 miles long.",
            "label": "contradiction",
            "source": "twins_held",
            "kind": "number",
        },
        {
            "premise": BOTH,
            "hypothesis": "The lake is 62 feet deep and the canal 363 miles long.",
            "label": "entailment",
            "source": "twins_held",
            "kind": "original",
        },
    ]
    assert {p["label"] for p in twin_pairs.twin_pairs(TWINS)} <= set(LABELS)  # the NLI data's label strings


def test_the_premise_cap_keeps_evidence_whole_and_adds_neighbours_that_fit() -> None:
    # 0c (5 words) + 0b (11) would pass 10 words; 0d (4) fits: 9 words
    assert twin_pairs.premise(DOCS, ["0c"], max_words=10) == "It is 363 miles long. Boats still use it."
    # the evidence alone is over the cap: kept whole, no neighbour
    assert twin_pairs.premise(DOCS, ["0c", "0b"], max_words=3) == (
        "The canal opened in 1825, when the state paid for it. It is 363 miles long."
    )
    assert twin_pairs.premise(DOCS, ["9z"]) == ""
    lost = TWINS[0] | {"evidence_keys": ["9z"]}
    assert twin_pairs.twin_pairs([lost]) == []  # evidence that names no sentence: skipped
    aux = TWINS[0] | {"fold": "aux"}  # WiCE twins are fitted on
    assert {p["source"] for p in twin_pairs.twin_pairs([aux])} == {"twins_fit"}


def test_twin_pairs_write_the_same_bytes_each_time(tmp_path: Path) -> None:
    source = tmp_path / "twins.jsonl"
    source.write_text("".join(json.dumps(t) + "\n" for t in TWINS), encoding="utf-8")
    for out in ("a", "b"):
        assert twin_pairs.main(["--twins", str(source), "--out", str(tmp_path / out)]) == 0
    for name in ("twins_fit.jsonl.gz", "twins_held.jsonl.gz"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    with gzip.open(tmp_path / "a" / "twins_held.jsonl.gz", "rt", encoding="utf-8") as fh:
        held = [json.loads(line) for line in fh]
    assert held == twin_pairs.twin_pairs(TWINS)[3:]
