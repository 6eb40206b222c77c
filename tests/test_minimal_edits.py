"""Minimal-edit NLI pairs: each edit changes (or keeps) the fact the way its label says."""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "training"))

import minimal_edits as me  # noqa: E402

EVEREST = "Mount Everest is 8,849 metres tall and was first climbed in 1953."


def test_number_edit_changes_a_number_that_is_not_a_year() -> None:
    label, hypothesis, kind = me.edit_number(EVEREST, random.Random(0))
    assert (label, kind) == ("contradiction", "number")
    assert "8,849" not in hypothesis and "1953" in hypothesis
    assert hypothesis.replace("1953", "") != EVEREST.replace("1953", "")


def test_year_edit_moves_the_year_and_keeps_the_rest() -> None:
    label, hypothesis, _ = me.edit_year(EVEREST, random.Random(0))
    assert label == "contradiction"
    assert "8,849" in hypothesis and "1953" not in hypothesis
    year = int(hypothesis.rstrip(".").split()[-1])
    assert 1 <= abs(year - 1953) <= 30
    # the draws the docstring describes, made on the same seed: one year of one found, a sign, 1-30 years
    draws = random.Random(0)
    draws.choice(["1953"])
    assert year == 1953 + draws.choice((-1, 1)) * draws.randint(1, 30)
    assert hypothesis == EVEREST.replace("1953", str(year))  # only the year moved
    for seed in range(1, 20):  # every seed moves it by the documented draws, 1-30 years, and touches nothing else
        moved = me.edit_year(EVEREST, random.Random(seed))[1]
        other = int(moved.rstrip(".").split()[-1])
        draws = random.Random(seed)
        draws.choice(["1953"])
        assert other == 1953 + draws.choice((-1, 1)) * draws.randint(1, 30), seed
        assert 1 <= abs(other - 1953) <= 30 and moved == EVEREST.replace("1953", str(other))


def test_negation_is_added_after_the_first_auxiliary_or_removed() -> None:
    assert me.edit_negation(EVEREST, random.Random(0))[1] == (
        "Mount Everest is not 8,849 metres tall and was first climbed in 1953."
    )
    assert me.edit_negation("Aspirin is not recommended for children.", random.Random(0))[1] == (
        "Aspirin is recommended for children."
    )
    assert me.edit_negation("Rain falls.", random.Random(0)) is None


def test_role_swap_swaps_names_across_a_verb_but_not_a_conjunction() -> None:
    swapped = me.edit_role_swap("In 1066 William defeated Harold at Hastings.", random.Random(0))
    assert swapped is not None and swapped[1] == "In 1066 Harold defeated William at Hastings."
    assert me.edit_role_swap("Lennon and McCartney wrote the song.", random.Random(0)) is None


def test_unit_edit_keeps_the_number_and_changes_the_unit() -> None:
    label, hypothesis, _ = me.edit_unit(EVEREST, random.Random(0))
    assert (label, hypothesis) == ("contradiction", "Mount Everest is 8,849 feet tall and was first climbed in 1953.")


def test_entailed_rewrites_keep_the_fact() -> None:
    assert me.keep_number_written_otherwise(EVEREST, random.Random(0))[1] == (
        "Mount Everest is 8849 metres tall and was first climbed in 1953."
    )
    shortened = me.keep_shortened("Canberra (population 460,000) is the capital of Australia.", random.Random(0))
    assert shortened == ("entailment", "Canberra is the capital of Australia.", "shortened")


def test_pairs_are_reproducible_and_mixed() -> None:
    sentences = [
        EVEREST,
        "The Nile flows north through eleven countries and is 6,650 kilometres long.",
        "In 1066 William defeated Harold at Hastings.",
        "Aspirin is not recommended for children under 16 years.",
        "The Eiffel Tower was completed in 1889 for the World's Fair in Paris.",
        "Lake Baikal holds about 20 per cent of the world's unfrozen fresh water.",
    ]
    rows = me.minimal_edit_pairs(sentences, 60, seed=3)
    assert rows == me.minimal_edit_pairs(sentences, 60, seed=3)
    assert len(rows) == 60
    labels = Counter(r["label"] for r in rows)
    assert set(labels) == {"entailment", "contradiction", "neutral"}
    for r in rows:
        if r["label"] == "contradiction":
            assert r["hypothesis"] not in r["premise"]
        if r["kind"] == "copy":
            assert r["hypothesis"] in r["premise"]
        if r["label"] == "neutral":
            assert r["hypothesis"] not in r["premise"]
