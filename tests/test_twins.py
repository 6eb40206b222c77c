"""Twins of real answers (training/make_twins.py): each edit kind gives the sentence worked out by hand, the labels
say what the twin is, a twin keeps its original's fold, and the rows load as RAGBench rows. No model is loaded."""

from __future__ import annotations

import collections
import json
import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "training"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import make_twins as mt  # noqa: E402
from ragbench_folds import fold_of  # noqa: E402

from rageval_lc.datasets.ragbench import load_ragbench  # noqa: E402

OTHER_PASSAGE = "The writer John Smith (born 1950) lives in Leeds and teaches 40 students."


def row(
    response: list[str],
    evidence: list[str],
    *,
    question: str = "What do the passages say?",
    others: tuple[str, ...] = (OTHER_PASSAGE,),
    row_id: str = "q1",
    dataset: str = "toyqa_validation",
    supported: bool = True,
) -> dict:
    """A RAGBench row: response sentence i is supported by document sentence 0<i>; document 1 holds the others."""
    keys = "abcdefgh"
    documents = [[[f"0{keys[i]}", text] for i, text in enumerate(evidence)]]
    if others:
        documents.append([[f"1{keys[i]}", text] for i, text in enumerate(others)])
    return {
        "id": row_id,
        "question": question,
        "documents": [" ".join(text for _, text in doc) for doc in documents],
        "response": " ".join(response),
        "generation_model_name": "toy-model",
        "dataset_name": dataset,
        "documents_sentences": documents,
        "response_sentences": [[keys[i], text] for i, text in enumerate(response)],
        "sentence_support_information": [
            {
                "response_sentence_key": keys[i],
                "supporting_sentence_keys": [f"0{keys[i]}"],
                "fully_supported": bool(supported or i),
                "explanation": "",
            }
            for i in range(len(response))
        ],
        "unsupported_response_sentence_keys": [] if supported else ["a"],
        "adherence_score": supported,
        "all_relevant_sentence_keys": [f"0{keys[i]}" for i in range(len(evidence))],
        "all_utilized_sentence_keys": [f"0{keys[i]}" for i in range(len(evidence))],
        "relevance_score": 0.5,
        "utilization_score": 0.5,
        "completeness_score": 1.0,
        "ragas_faithfulness": 1.0,
    }


def twins(data: dict, seed: int = 13) -> dict[str, dict]:
    """The twins of one row, by edit kind."""
    made = mt.twins_of(data, fold_of(data["dataset_name"], "toyqa", data["id"]), seed, collections.Counter())
    return {twin["edit_kind"]: twin for twin in made}


# --- each kind: the sentence worked out by hand -------------------------------------------------------------

CASES = [
    # kind, response sentence, evidence sentence, expected twin sentence
    (
        "number",
        "The bridge is 1,280 metres long.",
        "The bridge is 1,280 metres long.",
        "The bridge is 1,820 metres long.",
    ),
    (
        "date",
        "The wall fell on 9 November 1989.",
        "The wall fell on 9 November 1989.",
        "The wall fell on 9 November 1950.",
    ),
    (
        "entity",
        "The prize is named after Beatrice Tinsley.",
        "The prize is named after the astronomer Beatrice Tinsley (1941-1981).",
        "The prize is named after John Smith.",
    ),
    (
        "negation",
        "The museum is open on Mondays.",
        "The museum is open on Mondays.",
        "The museum is not open on Mondays.",
    ),
    ("negation", "You do not need an adapter.", "You do not need an adapter for it.", "You do need an adapter."),
    (
        "direction",
        "Smoking increases the risk of stroke.",
        "Smoking increases the risk of stroke and cancer.",
        "Smoking decreases the risk of stroke.",
    ),
    (
        "direction",
        "Unplug the TV before cleaning the screen.",
        "Always unplug the TV before cleaning the screen.",
        "Unplug the TV after cleaning the screen.",
    ),
    (
        "role_swap",
        "Acme Corporation acquired Beta Industries in 2018.",
        "In 2018, Acme Corporation acquired Beta Industries for $7.5 billion.",
        "Beta Industries acquired Acme Corporation in 2018.",
    ),
    ("scope", "For guests, a password is required.", "A password is required.", "For guests, a password is optional."),
    (
        "scope",
        "You must restart the TV after the update.",
        "You must restart the TV after the update is installed.",
        "You need not restart the TV after the update.",
    ),
    (
        "unit_spelling",
        "The trail is 12 km long.",
        "The trail is 12 km long.",
        "The trail is 12 kilometers long.",
    ),
    (
        "unit_spelling",
        "About 45% of students are male.",
        "About 45% are male.",
        "About 45 percent of students are male.",
    ),
    (
        "number_form",
        "The city has 1,500,000 residents.",
        "The city has 1,500,000 residents.",
        "The city has 1.5 million residents.",
    ),
    ("number_form", "It lasted three days.", "It lasted three days.", "It lasted 3 days."),
    ("unit_conversion", "Charging takes 90 minutes.", "Charging takes 90 minutes.", "Charging takes 1.5 hours."),
    ("unit_conversion", "The recall covers 2 weeks.", "The recall covers 2 weeks.", "The recall covers 14 days."),
    (
        "arithmetic",
        "Take one in the morning and one in the evening.",
        "Take one tablet in the morning and one in the evening.",
        "Take twice a day.",
    ),
    ("arithmetic", "Press the button twice.", "Press the button twice.", "Press the button two times."),
    (
        "date_order",
        "The wall fell on November 9, 1989.",
        "It fell on 9 November 1989.",
        "The wall fell on 9 November 1989.",
    ),
    (
        "clause_order",
        "To reset the TV, press and hold the Menu button.",
        "To reset the TV, press and hold Menu.",
        "Press and hold the Menu button to reset the TV.",
    ),
    (
        "clause_order",
        "In 2012, Acme opened a plant in Ohio.",
        "Acme opened a plant in Ohio in 2012.",
        "Acme opened a plant in Ohio in 2012.",
    ),
]


@pytest.mark.parametrize(
    ("kind", "sentence", "evidence", "expected"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_each_kind_makes_the_sentence_worked_out_by_hand(
    kind: str, sentence: str, evidence: str, expected: str
) -> None:
    twin = twins(row([sentence], [evidence]))[kind]
    assert twin["edited_sentence"] == expected
    assert twin["original_sentence"] == sentence
    assert twin["twin"] == ("contradicting" if kind in mt.CONTRADICTING else "faithful")
    assert twin["response"] == expected and twin["response_sentences"] == [["a", expected]]


def test_a_short_answer_lifts_the_asked_fact_with_its_verb() -> None:
    data = row(
        ["Acme was founded in 2012 by three engineers."],
        ["Acme was founded in 2012 in Toronto."],
        question="When was Acme founded?",
    )
    assert twins(data)["short_answer"]["edited_sentence"] == "Founded in 2012."
    who = row(["The first American in space was Alan Shepard."], ["Alan Shepard was the first American in space."])
    who["question"] = "Who was the first American in space?"
    assert twins(who)["short_answer"]["response"] == "Alan Shepard."


def test_a_borrowed_number_comes_from_the_passages_and_keeps_the_format() -> None:
    data = row(
        ["The bridge is 1,280 metres long."],
        ["The bridge is 1,280 metres long."],
        others=("The old tunnel runs for 2,500 metres under the river.",),
    )
    twin = twins(data)["number"]
    assert twin["edited_sentence"] == "The bridge is 2,500 metres long."
    assert twin["detail"] == "1,280 metres -> 2,500 metres (passages)"


# --- what is not made ----------------------------------------------------------------------------------------


def test_no_contradiction_when_the_evidence_does_not_state_the_original_value() -> None:
    data = row(["The bridge is 1,280 metres long."], ["The bridge is long and old."], others=())
    assert "number" not in twins(data)


def test_no_contradiction_whose_new_value_the_evidence_also_states() -> None:
    sentence = mt._sentence("The tower is 300 m tall.", "The tower is 300 m tall, and its mast, 330 m.")
    new_values = [mt.apply(sentence, edit) for edit in mt.contradict_number(sentence, random.Random(1))]
    assert new_values and all("330" not in value for value in new_values)


def test_no_edit_of_one_end_of_a_range_or_a_quoted_title() -> None:
    ranged = row(["It costs $100 to $200 a year."], ["It costs $100 to $200 a year."], others=())
    assert "number" not in twins(ranged)
    title = row(['He starred in "Twice in a Lifetime".'], ['He starred in "Twice in a Lifetime".'], others=())
    assert "arithmetic" not in twins(title)


def test_rows_not_labelled_fully_supported_are_not_used() -> None:
    data = row(["The bridge is 1,280 metres long.", "It opened in 1990."], ["x", "It opened in 1990."], supported=False)
    tally: collections.Counter = collections.Counter()
    assert mt.twins_of(data, "fit", 13, tally) == []
    assert tally["row skipped: answer not labelled fully supported"] == 1
    disagreeing = row(["The bridge is 1,280 metres long."], ["The bridge is 1,280 metres long."])
    disagreeing["sentence_support_information"][0]["fully_supported"] = False  # labels that contradict each other
    assert mt.twins_of(disagreeing, "fit", 13, tally) == []


# --- labels, split, format -----------------------------------------------------------------------------------

TWO_SENTENCES = row(
    ["The bridge is 1,280 metres long.", "It opened on 9 November 1989."],
    ["The bridge is 1,280 metres long.", "It opened on 9 November 1989."],
)


def test_a_contradicting_twin_marks_exactly_the_edited_key_and_keeps_the_other_sentences() -> None:
    made = twins(TWO_SENTENCES)
    for kind in ("number", "date"):
        twin = made[kind]
        key = twin["edited_key"]
        assert twin["unsupported_response_sentence_keys"] == [key]
        assert twin["adherence_score"] is False
        support = {entry["response_sentence_key"]: entry for entry in twin["sentence_support_information"]}
        assert support[key]["fully_supported"] is False and support[key]["supporting_sentence_keys"] == []
        original = {entry["response_sentence_key"]: entry for entry in TWO_SENTENCES["sentence_support_information"]}
        assert all(support[k] == original[k] for k in support if k != key)
        assert twin["evidence_keys"] == ["0a" if key == "a" else "0b"]
        unchanged = [pair for pair in twin["response_sentences"] if pair[0] != key]
        assert unchanged == [pair for pair in TWO_SENTENCES["response_sentences"] if pair[0] != key]
        assert twin["ragas_faithfulness"] is None  # the other judges scored the original text


def test_a_faithful_twin_keeps_its_original_labels() -> None:
    twin = twins(TWO_SENTENCES)["date_order"]
    assert twin["edited_sentence"] == "It opened on November 9, 1989."
    for field in ("unsupported_response_sentence_keys", "adherence_score", "sentence_support_information"):
        assert twin[field] == TWO_SENTENCES[field]


@pytest.mark.parametrize(
    ("dataset", "row_id"), [("toyqa_validation", "q1"), ("toyqa_validation", "q3"), ("toyqa_train", "q1")]
)
def test_a_twin_keeps_its_originals_fold(dataset: str, row_id: str) -> None:
    data = {**TWO_SENTENCES, "dataset_name": dataset, "id": row_id}
    made = mt.twins_of(data, fold_of(dataset, "toyqa", row_id), 13, collections.Counter())
    assert made
    for twin in made:
        assert twin["fold"] == fold_of(dataset, "toyqa", row_id)
        assert twin["original_id"] == f"{dataset}:{row_id}:toy-model"
        assert twin["dataset_name"] == "twin_toyqa"
    assert {fold_of("toyqa_validation", "toyqa", i) for i in ("q1", "q3")} == {"fit", "held"}  # both folds tested


def write_shared(tmp_path: Path) -> Path:
    shared = tmp_path / "shared"
    folder = shared / "data" / "ragbench"
    folder.mkdir(parents=True)
    rows = [
        TWO_SENTENCES,
        {**TWO_SENTENCES, "id": "q2"},
        row(["The museum is open on Mondays."], ["The museum is open on Mondays."], row_id="q3"),
        row(["To reset the TV, press and hold Menu."], ["To reset the TV, press and hold Menu."], row_id="q4"),
        row(["It costs $5."], ["It costs $5."], row_id="q5", supported=False),
    ]
    (folder / "toyqa_validation.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return shared


def test_the_script_is_deterministic_and_its_rows_load_as_ragbench_rows(tmp_path: Path, capsys) -> None:
    shared = write_shared(tmp_path)
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert mt.main(["--shared", str(shared), "--out", str(first)]) == 0
    assert mt.main(["--shared", str(shared), "--out", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()
    report = capsys.readouterr().out
    assert "row skipped: answer not labelled fully supported: 1" in report and "| contradicting | number |" in report
    records = list(load_ragbench(first))
    rows = [json.loads(line) for line in first.read_text(encoding="utf-8").splitlines()]
    assert len(records) == len(rows) >= 8
    assert len({r.sample.id for r in records}) == len(records)
    assert all(r.dataset == "twin_toyqa" for r in records)
    assert not any(r["original_id"].endswith(":q5:toy-model") for r in rows)
    for record, data in zip(records, rows, strict=True):
        unsupported = record.labels.unsupported_response_sentence_keys
        assert unsupported == ([data["edited_key"]] if data["twin"] == "contradicting" else [])
        assert record.sample.sentences.sentence(data["edited_key"]) == data["edited_sentence"]
    other = tmp_path / "c.jsonl"
    mt.main(["--shared", str(shared), "--out", str(other), "--seed", "14"])
    assert other.read_bytes() != first.read_bytes()  # the seed picks among the candidate edits


def test_the_calibration_splits_by_the_same_rule() -> None:
    """One fold rule for the fit and for the twins: calibrate_local_judge.py imports it, it does not copy it."""
    source = (ROOT / "benchmarks" / "calibrate_local_judge.py").read_text(encoding="utf-8")
    assert "from ragbench_folds import fold_of" in source and "def fold_of" not in source
