"""The contradiction detector and its slots: the same fact in another form is never a conflict, a changed one is,
and an unrelated passage changes nothing. No model is loaded: slot checks are pure text work."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rageval_lc.facts.dates import dates
from rageval_lc.facts.numbers import quantities, same_quantity
from rageval_lc.judges.offline.contradiction import evidence_units, find_conflict, nli_conflict
from rageval_lc.text import KeyedSentences

DATA = Path(__file__).resolve().parents[3] / "benchmarks" / "data"


def conflict(response: str, *contexts: str):
    keyed = KeyedSentences.from_texts(list(contexts), response)
    units = evidence_units(keyed.documents)
    sentences = [t for _, t in keyed.response]
    found = [find_conflict(t, units, sentences[i - 1] if i else None) for i, t in enumerate(sentences)]
    return next((c for c in found if c is not None), None)


# Item 2 of the issue: each a faithful restatement of its context, none a conflict.
RESTATEMENTS = [
    ("Mount Everest is 8,849 metres tall.", "Mount Everest is 8849 m tall."),
    ("Mount Everest is 8,849 metres tall.", "Mount Everest is 8 849 meters tall."),
    ("Mount Everest is 8,849 metres tall.", "Mount Everest is about 8,800 m tall."),
    ("Mount Everest is 8,849 metres tall.", "Mount Everest is roughly nine thousand metres tall."),
    ("The route is 42 km long.", "The route is 42 kilometres long."),
    ("The route is 42 km long.", "The route is 42 kilometers long."),
    ("The parcel weighs 3 kg.", "The parcel weighs 3 kilograms."),
    ("The parcel weighs 1.1 kg.", "The parcel weighs 1,100 grams."),
    ("Water boils at 100 °C at sea level.", "At sea level water boils at 100 degrees Celsius."),
    ("Turnout was 67% in the election.", "Turnout in the election was 67 per cent."),
    ("Turnout was 67% in the election.", "Turnout in the election was 67 percent."),
    ("The club has 12 members.", "The club has twelve members."),
    ("The club has 12 members.", "The club has a dozen members."),
    ("The city has 2,000,000 residents.", "The city has two million residents."),
    ("The city has 2.96 million residents.", "The city has roughly 3 million residents."),
    ("The fund holds $4.2 billion.", "The fund holds $4,200,000,000."),
    ("The tour lasts 200 hours.", "The tour lasts two hundred hours."),
    ("The Berlin Wall fell on 9 November 1989.", "The Berlin Wall fell on November 9, 1989."),
    ("The Berlin Wall fell on 9 November 1989.", "The Berlin Wall fell on 1989-11-09."),
    ("The Berlin Wall fell on 9 November 1989.", "The Berlin Wall fell in 1989."),
    ("The Berlin Wall fell on 9 November 1989.", "The Berlin Wall fell in November 1989."),
    ("Microsoft acquired GitHub in 2018.", "GitHub was acquired by Microsoft in 2018."),
    ("Canberra is the capital city of Australia.", "The capital of Australia is Canberra."),
    ("Argentina defeated France in the 2022 final.", "France lost to Argentina in the 2022 final."),
    ("Marie Curie won the 1911 Nobel Prize in Chemistry.", "In 1911 Curie won the Nobel Prize in Chemistry."),
]


@pytest.mark.parametrize(("context", "restatement"), RESTATEMENTS)
def test_the_same_fact_in_another_form_is_no_conflict(context: str, restatement: str) -> None:
    assert conflict(restatement, context) is None


# A changed fact, each with the detail the reason gives (worked out by hand).
CHANGES = [
    ("Mount Everest is 8,849 metres tall.", "Mount Everest is 6,120 metres tall.", "number",
     "says 6,120 metres; 0a says 8,849 metres"),
    ("The Berlin Wall fell on 9 November 1989, after weeks of protest.", "The Berlin Wall fell in 1991.", "date",
     "says 1991; 0a says 9 November 1989"),
    ("Canberra is the capital city of Australia. Sydney is its largest city.", "The capital of Australia is Sydney.",
     "name", "says Sydney; 0a says Canberra"),
    ("Aspirin is not recommended for children because of the risk of Reye's syndrome.",
     "Aspirin is recommended for children.", "negation", 'says "recommended"; 0a says "not recommended"'),
    ("Microsoft acquired GitHub in 2018.", "GitHub acquired Microsoft in 2018.", "role_swap",
     "0a names GitHub and Microsoft in the other roles"),
    ("The tunnel section is 4 kilometres long.", "The tunnel section is 4 miles long.", "unit",
     "says 4 miles; 0a says 4 kilometres"),
    ("The Aria X2 costs $349, while the Aria Buds cost $199.", "The Aria X2 is cheaper than the Aria Buds.",
     "comparison", 'says "cheaper than the Aria Buds"; 0a gives $349 against $199'),
    ("Membership costs £45 a year.", "Membership costs £45 a month.", "unit", "says £45 a month; 0a says £45 a year"),
]  # fmt: skip


@pytest.mark.parametrize(("context", "response", "kind", "detail"), CHANGES)
def test_a_changed_fact_is_a_conflict_with_its_detail(context: str, response: str, kind: str, detail: str) -> None:
    found = conflict(response, context)
    assert found is not None and (found.kind, found.detail) == (kind, detail)


def test_the_conflicting_document_sentence_is_named_among_distractors() -> None:
    found = conflict(
        "The Berlin Wall fell in 1991. It had divided the city since 1961.",
        "The Soviet Union was dissolved in 1991.",
        "The Berlin Wall had divided the city since 1961. It fell on 9 November 1989.",
    )
    assert found is not None and found.keys == ("1b",)
    assert found.detail == "says 1991; 1b says 9 November 1989"


def test_a_stated_fact_clears_a_rival_elsewhere() -> None:
    # the same number of another entity is no conflict; the entity's own sentence states it
    assert conflict("The Danube is about 2,850 kilometres long.",
                    "The Rhine is about 1,230 kilometres long.",
                    "The Danube is about 2,850 kilometres long.") is None  # fmt: skip
    assert conflict("The Danube flows through ten countries.", "The Rhine flows through six countries.") is None


def test_reasons_read_numbers_whole() -> None:
    assert [q.describe() for q in quantities("It is 6,120 m, not 8 849 m.")] == ["6,120 m", "8 849 m"]
    assert [d.describe() for d in dates("From 1989-11-09 to November 10, 1989.")] == [
        "9 November 1989",
        "10 November 1989",
    ]
    assert same_quantity(quantities("about 8,800 m")[0], quantities("8,849 metres")[0])
    assert not same_quantity(quantities("8,800 m")[0], quantities("8,849 metres")[0])  # rounding not stated


def test_nli_conflict_needs_the_threshold_alignment_and_no_stronger_entailment() -> None:
    cands = [(("0a",), "The museum opens daily at nine."), (("0b",), "Bananas are yellow.")]
    sentence = "The museum opens daily at ten."
    assert nli_conflict(sentence, cands, [[0.01, 0.01, 0.98], [0.0, 0.0, 0.0]], 0.97).keys == ("0a",)
    assert nli_conflict(sentence, cands, [[0.01, 0.01, 0.98], [0.99, 0.0, 0.01]], 0.97) is None  # entailed elsewhere
    assert nli_conflict(sentence, cands, [[0.0, 0.0, 0.0], [0.01, 0.01, 0.98]], 0.97) is None  # not aligned


def test_a_sentence_another_document_entails_is_not_contradicted() -> None:
    """Documents may disagree: a sentence one of them entails (at least even odds) is grounded, even where
    another contradicts it more strongly (rag-unit-07-f: "It has a 14-inch screen" of another model, 0.963)."""
    cands = [(("0b",), "It has a 14-inch screen."), (("2a",), "The Vantage 12 has a 12-inch screen and weighs 1.1 kg.")]
    sentence = "The Vantage 12 has a 12-inch screen."
    assert nli_conflict(sentence, cands, [[0.02, 0.017, 0.963], [0.955, 0.018, 0.027]], 0.96) is None
    assert nli_conflict(sentence, cands, [[0.02, 0.017, 0.963], [0.49, 0.01, 0.5]], 0.96).keys == ("0b",)


def _cases() -> list[tuple[str, list[str], str]]:
    pairs = [json.loads(line) for line in (DATA / "contradiction_pairs.jsonl").read_text().splitlines()]
    rag = [json.loads(line) for line in (DATA / "contradiction_rag_cases.jsonl").read_text().splitlines()]
    return [(p["id"], [p["context"]], p["response"]) for p in pairs] + [
        (r["id"], r["contexts"], r["response"]) for r in rag
    ]


def test_an_off_topic_passage_changes_no_slot_verdict() -> None:
    """Item 3 as a property: each benchmark case with an off-topic passage appended (three drawn per case, fixed
    seed) has the same verdict per sentence (the whole judge is checked in test_judge.py)."""
    passages = [json.loads(line)["text"] for line in (DATA / "off_topic_passages.jsonl").read_text().splitlines()]
    rng = random.Random(7)

    def verdicts(contexts: list[str], response: str) -> list[str | None]:
        keyed = KeyedSentences.from_texts(contexts, response)
        units = evidence_units(keyed.documents)
        sentences = [t for _, t in keyed.response]
        found = [find_conflict(t, units, sentences[i - 1] if i else None) for i, t in enumerate(sentences)]
        return [None if c is None else c.detail for c in found]

    changed = []
    for case_id, contexts, response in _cases():
        before = verdicts(contexts, response)
        for passage in rng.sample(passages, 3):
            if verdicts([*contexts, passage], response) != before:
                changed.append((case_id, passage))
    assert changed == []
