"""RGB records and the documents the benchmark builds, checked against hand-computed expectations.

Which passages are chosen is worked out by hand from the benchmark's rules; their order is the
hand-built list shuffled by ``random.Random(2333)`` (the benchmark seeds 2333 before each question).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rageval_lc.rgb.records import RGB_SYSTEM_PROMPT, RgbRecord, build_documents, load_rgb, rgb_prompt

EN = RgbRecord(id=0, query="Q?", answer="A", positive=["p0", "p1", "p2"], negative=[f"n{i}" for i in range(6)])


def shuffled(items: list[str], rng: random.Random | None = None) -> list[str]:
    rng = rng or random.Random(2333)
    items = list(items)
    rng.shuffle(items)
    return items


@pytest.mark.parametrize(
    ("ratio", "before_shuffle"),
    [
        (0.0, ["p0", "p1", "p2", "n0", "n1"]),  # 5 positives wanted, only 3: negatives fill in
        (0.2, ["p0", "p1", "p2", "n0", "n1"]),  # 1 negative, 4 positives wanted: still short by one
        (0.4, ["p0", "p1", "p2", "n0", "n1"]),  # ceil(2.0) = 2 negatives, 3 positives
        (0.6, ["p0", "p1", "n0", "n1", "n2"]),  # 3 negatives
        (0.8, ["p0", "n0", "n1", "n2", "n3"]),  # 4 negatives
        (1.0, ["n0", "n1", "n2", "n3", "n4"]),  # negative rejection: only negatives
    ],
)
def test_en_documents(ratio: float, before_shuffle: list[str]) -> None:
    assert build_documents(EN, ratio) == shuffled(before_shuffle)


def test_en_with_too_few_negatives() -> None:
    record = RgbRecord(id=1, query="Q?", answer="A", positive=[f"p{i}" for i in range(6)], negative=["n0"])
    # ratio 0.6 wants 3 negatives; only 1 exists, so positives fill in: 4 of them
    assert build_documents(record, 0.6) == shuffled(["p0", "p1", "p2", "p3", "n0"])


def test_en_with_too_few_of_both() -> None:
    record = RgbRecord(id=2, query="Q?", answer="A", positive=["p0"], negative=["n0"])
    # negatives are short first: neg 1, pos wanted 4 but only p0 exists -> 2 documents
    assert build_documents(record, 0.4) == shuffled(["p0", "n0"])


def test_ceil_of_the_noise_count() -> None:
    # 5 × 0.3 = 1.5 -> 2 negatives
    assert sorted(build_documents(EN, 0.3)) == ["n0", "n1", "p0", "p1", "p2"]


def test_int_documents_round_robin_over_shuffled_groups() -> None:
    record = RgbRecord(
        id=3, query="Q?", answer=["A", "B"], positive=[["a0", "a1", "a2"], ["b0"]], negative=["n0", "n1"]
    )
    assert record.kind == "int"
    rng = random.Random(2333)
    a = shuffled(["a0", "a1", "a2"], rng)
    b = shuffled(["b0"], rng)
    # first of each group, then the second of each, the third ...: 4 positives, then 1 negative
    expected = shuffled([a[0], b[0], a[1], a[2], "n0"], rng)
    assert build_documents(record, 0.0) == expected
    assert record.positive == [["a0", "a1", "a2"], ["b0"]]  # the record is left as it was


def test_int_documents_stop_at_the_positive_budget() -> None:
    record = RgbRecord(
        id=4, query="Q?", answer=["A", "B"], positive=[["a0", "a1", "a2"], ["b0", "b1"]], negative=["n0", "n1", "n2"]
    )
    rng = random.Random(2333)
    a, b = shuffled(["a0", "a1", "a2"], rng), shuffled(["b0", "b1"], rng)
    # ratio 0.4: 3 positives (a, b, then a's second), 2 negatives
    assert build_documents(record, 0.4) == shuffled([a[0], b[0], a[1], "n0", "n1"], rng)


def test_fact_documents_sample_counterfactual_passages(shared: Path) -> None:
    records = load_rgb(shared / "data" / "rgb" / "en_fact.json")
    assert len(records) == 100 and all(r.kind == "fact" for r in records)
    record = records[0]
    rng = random.Random(2333)
    indexes = list(range(len(record.positive)))
    chosen = rng.sample(indexes, min(len(indexes), 5))
    expected = shuffled([record.positive_wrong[i] for i in chosen], rng)  # type: ignore[index]
    assert build_documents(record, 0.0) == expected
    assert all(doc in record.positive_wrong for doc in expected)  # type: ignore[operator]
    # with noise 0.4: 3 counterfactual passages, then the first 2 negatives
    rng = random.Random(2333)
    chosen = rng.sample(indexes, min(len(indexes), 3))
    expected = shuffled([*(record.positive_wrong[i] for i in chosen), *record.negative[:2]], rng)  # type: ignore[index]
    assert build_documents(record, 0.4) == expected


def test_fact_with_correct_passages() -> None:
    record = RgbRecord(
        id=5,
        query="Q?",
        answer="A",
        positive=["t0", "t1", "t2", "t3"],
        positive_wrong=["w0", "w1", "w2", "w3"],
        fakeanswer="F",
        negative=["n0"],
    )
    rng = random.Random(2333)
    chosen = rng.sample([0, 1, 2, 3], 3)  # ratio 0, correct_rate 0.4 -> 2 true passages, 3 counterfactual
    remain = [i for i in range(4) if i not in chosen]
    true = rng.sample(remain, 1)  # only one index remains
    expected = shuffled([*(f"w{i}" for i in chosen), *(f"t{i}" for i in true)], rng)
    assert build_documents(record, 0.0, correct_rate=0.4) == expected


def test_loaders_detect_the_three_shapes(tmp_path: Path) -> None:
    path = tmp_path / "mixed.json"
    lines = [
        {"id": 0, "query": "Who?", "answer": [["Jan 2, 2022", "January 2 2022"]], "positive": ["p"], "negative": ["n"]},
        {
            "id": 1,
            "query": "Both?",
            "answer": ["A", "B"],
            "answer1": "A",
            "answer2": "B",
            "positive": [["a0"], ["b0"]],
            "negative": [],
        },
        {
            "id": 2,
            "query": "When?",
            "answer": "1990",
            "fakeanswer": "1991",
            "positive": ["in 1990"],
            "positive_wrong": ["in 1991"],
            "negative": [],
        },
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n", encoding="utf-8")
    records = load_rgb(path)
    assert [r.kind for r in records] == ["en", "int", "fact"]
    assert records[2].fakeanswer == "1991"
    bad = tmp_path / "bad.json"
    bad.write_text('{"id": 0, "query": "Q"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.json:1: not a valid RGB record"):
        load_rgb(bad)


def test_bad_ratios_and_the_prompt() -> None:
    with pytest.raises(ValueError, match=r"'noise_ratio' parameter of build_documents must be in \[0, 1\]"):
        build_documents(EN, 1.2)
    assert rgb_prompt("Who?", ["d1", "d2"]) == "Document:\nd1\nd2 \n\nQuestion:\nWho?"
    assert "\u2019I can not answer the question because of the insufficient information in documents.\u2018" in (
        RGB_SYSTEM_PROMPT
    )
    assert "'There are factual errors in the provided documents.'" in RGB_SYSTEM_PROMPT


def test_without_filling_a_question_with_one_positive_gets_ceil_5r_negatives_beside_it() -> None:
    """Worked by hand: one positive, six negatives; ratio r gives ceil(5 r) negatives and the positive (RGB's own
    filling gives five documents at every ratio below 1)."""
    record = RgbRecord(query="Who won?", answer="Ann", positive=["Ann won."], negative=[f"N{i}" for i in range(6)])
    for ratio, negatives in ((0.0, 0), (0.2, 1), (0.4, 2), (0.6, 3), (0.8, 4)):
        documents = build_documents(record, ratio, fill=False)
        assert sorted(documents) == sorted(["Ann won.", *[f"N{i}" for i in range(negatives)]])
        assert len(build_documents(record, ratio)) == 5
    assert sorted(build_documents(record, 1.0, fill=False)) == [f"N{i}" for i in range(5)]  # ratio 1: as RGB
    grouped = RgbRecord(query="Q", answer=[["a"], ["b"]], positive=[["A."], ["B."]], negative=["N0", "N1", "N2"])
    assert sorted(build_documents(grouped, 0.0, fill=False)) == ["A.", "B."]
    assert sorted(build_documents(grouped, 0.4, fill=False)) == ["A.", "B.", "N0", "N1"]
    assert sorted(build_documents(grouped, 0.0)) == ["A.", "B.", "N0", "N1", "N2"]
    three = RgbRecord(query="Q", answer=[["a"], ["b"], ["c"]], positive=[["A."], ["B."], ["C."]],
                      negative=[f"N{i}" for i in range(6)])  # fmt: skip
    counts = [len(build_documents(three, ratio, fill=False)) for ratio in (0.0, 0.2, 0.4, 0.6, 0.8)]
    assert counts == [3, 4, 5, 5, 5]  # 3 positives, then ceil(5 r) negatives, never past 5 documents
