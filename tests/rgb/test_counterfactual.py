"""Counterfactual passages (issue 36, item 1, first part): the answer's every mention replaced by a wrong value of
its kind, in the mention's own form; nothing of the true answer left; the same seed, the same passage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rageval_lc.rgb.counterfactual import (
    COUNTRIES,
    answer_kind,
    date_parts,
    find_mentions,
    make_counterfactual,
    number_parts,
)


def test_a_date_keeps_each_mention_s_spelling_and_changes_its_value() -> None:
    passage = "It opened on July 21, 2017. Reports from 21 July 2017 and Jul. 21, 2017 agree."
    cf = make_counterfactual(passage, ["July 21 2017", "Jul 21, 2017", "Jul. 21, 2017"], seed=3)
    assert cf.replaced == 3 and not cf.problem
    assert find_mentions(cf.passage, "July 21 2017") == []  # no spelling of the true date is left
    month, day, year = date_parts(cf.wrong)
    assert (month, (day, year) != (21, 2017)) == (7, True)
    written = [cf.passage[s:e] for s, e in find_mentions(cf.passage, cf.wrong)]
    assert [date_parts(w) for w in written] == [date_parts(cf.wrong)] * 3
    assert written[0].startswith("July ") and "," in written[0]  # "July D, YYYY" stays so
    assert written[1].split()[1] == "July" and written[2].startswith("Jul. ")  # "D July YYYY", "Jul. D, YYYY"


def test_a_number_keeps_its_currency_scale_decimals_and_separators() -> None:
    cf = make_counterfactual("Revenue reached $10.4 billion, up from $7.4 billion.", "$10.4 billion", seed=1)
    currency, value, decimals, rest = number_parts(cf.wrong)
    assert (currency, decimals, rest) == ("$", 1, " billion") and abs(value - 10.4) > 1.0
    assert "$7.4 billion" in cf.passage and "$10.4 billion" not in cf.passage
    tall = make_counterfactual("The tower is 1,280 metres tall.", "1,280 metres", seed=1)
    assert number_parts(tall.wrong)[2:] == (0, " metres") and "," in tall.wrong and "1,280" not in tall.passage


def test_a_name_becomes_another_name_of_the_same_shape_that_the_passage_does_not_hold() -> None:
    pool = ["Simona Halep", "Angelique Kerber", "Ashleigh Barty", "Norway", "Tampa, Florida", "Glendale, Arizona"]
    cf = make_counterfactual("Simona Halep won; Angelique Kerber lost. halep's coach...", "Simona Halep", pool=pool)
    assert cf.wrong == "Ashleigh Barty"  # Kerber is in the passage already; Norway has one word
    assert cf.passage == "Ashleigh Barty won; Angelique Kerber lost. Barty's coach..."  # the surname alone too
    place = make_counterfactual("Played in Tampa, Florida.", "Tampa, Florida", pool=pool)
    assert place.wrong == "Glendale, Arizona" and place.passage == "Played in Glendale, Arizona."
    country = make_counterfactual("Oslo is in Norway.", "Norway", pool=["Norway", "Facebook"])
    assert country.wrong in COUNTRIES and country.wrong != "Norway"  # a country, never the company
    assert country.passage == f"Oslo is in {country.wrong}."
    lonely = make_counterfactual("Made by Facebook.", "Facebook", pool=["Facebook", "Norway"])
    assert (lonely.replaced, lonely.passage) == (0, "Made by Facebook.") and "no other name" in lonely.problem


def test_a_passage_without_the_answer_is_left_as_it_is_and_says_why() -> None:
    cf = make_counterfactual("Nothing to see.", "$6.3 billion")
    assert (cf.passage, cf.replaced, cf.problem) == ("Nothing to see.", 0, "the passage does not mention the answer")


def test_kinds() -> None:
    assert [answer_kind(a) for a in ("June 2020", "Dec. 1, 2017", "45%", "$1.39 billion", "Warner Bros")] == [
        "date",
        "date",
        "number",
        "number",
        "name",
    ]


def test_on_the_benchmark_s_own_passages_nothing_of_the_answer_is_left_and_a_seed_repeats(shared: Path) -> None:
    records = [json.loads(line) for line in (shared / "data" / "rgb" / "en_fact.json").read_text().splitlines()]
    pool = [r["answer"] for r in records if isinstance(r["answer"], str)]
    built = 0
    for record in records:
        forms = [record["answer"]] if isinstance(record["answer"], str) else record["answer"][0]
        for passage in record["positive"]:
            cf = make_counterfactual(passage, forms, seed=13, pool=pool)
            assert cf == make_counterfactual(passage, forms, seed=13, pool=pool)  # the same seed, the same passage
            if cf.problem:
                continue
            built += 1
            assert all(find_mentions(cf.passage, form) == [] for form in forms), (record["id"], cf.passage)
            assert answer_kind(cf.wrong) == answer_kind(forms[0])
    assert built >= 380  # of 395 passages: 6 name answers have no other name of their shape in the pool


@pytest.mark.parametrize("text", ["July 21 2017", "Jul 21, 2017", "Jul. 21, 2017", "21 July 2017"])
def test_every_spelling_of_a_day_reads_the_same(text: str) -> None:
    assert date_parts(text) == (7, 21, 2017)
