"""Counterfactual passages (issue 36, item 1, first part): the answer's every mention replaced by a wrong value of
its kind, in the mention's own form; nothing of the true answer left; the same seed, the same passage."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rageval_lc.facts.names import name_kind
from rageval_lc.rgb.counterfactual import answer_kind, date_parts, find_mentions, make_counterfactual, number_parts
from rageval_lc.rgb.names import COUNTRIES, US_STATES, NameKinds


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
    kinds = NameKinds(list(dict.fromkeys(p for r in records for p in [*r["positive"], *r["negative"]])))
    built, dropped = 0, set()
    for record in records:
        forms = [record["answer"]] if isinstance(record["answer"], str) else record["answer"][0]
        for passage in record["positive"]:
            cf = make_counterfactual(passage, forms, seed=13, pool=pool, kinds=kinds)
            assert cf == make_counterfactual(passage, forms, seed=13, pool=pool, kinds=kinds)  # the same passage
            if cf.problem:
                dropped.add(forms[0])
                continue
            built += 1
            assert all(find_mentions(cf.passage, form) == [] for form in forms), (record["id"], cf.passage)
            assert answer_kind(cf.wrong) == answer_kind(forms[0])
            if answer_kind(forms[0]) == "name":
                assert kinds(cf.wrong) == kinds(forms[0]), (forms[0], cf.wrong)  # a company never becomes a city
    # of 395 passages: three films have no other film of their shape among the answers ("Tampa, Florida", which had
    # no other "City, State", becomes another city of Florida)
    assert dropped == {"Soul", "Toy Story 4", "The Shape of Water"} and built == 384


@pytest.mark.parametrize("text", ["July 21 2017", "Jul 21, 2017", "Jul. 21, 2017", "21 July 2017", "21st of July 2017"])
def test_every_spelling_of_a_day_reads_the_same(text: str) -> None:
    assert date_parts(text) == (7, 21, 2017)


def test_a_name_s_kind_is_read_from_its_shape_and_from_the_words_around_it() -> None:
    shapes = ["Warner Bros", "Fidelity Investments", "Manchester United FC", "NFL", "U.S.", "Raymond James Stadium"]
    assert [name_kind(n) for n in shapes] == ["organisation"] * 4 + ["place"] * 2
    assert [name_kind(n) for n in ["Tampa, Florida", "Athens", "Golden Globe Awards", "Best Picture"]] == [
        "place",
        "place",
        "event",
        "event",
    ]
    assert name_kind("Zorblat Quin") == "person"  # two capitalised words, nothing against: a person
    assert [name_kind(n) for n in ["Toy Story 4", "Soul", "Alexa"]] == ["other"] * 3  # nothing tells
    assert name_kind("Soul", ["Pixar's “Soul” won the Oscar."]) == "work"
    assert name_kind("Meridia", ["She was born in Meridia.", "Meridia-based firms grew."]) == "place"
    assert name_kind("Orvex", ["He is the CEO of Orvex.", "Orvex bought a rival."]) == "organisation"
    assert name_kind("Orvex", ["He is the CEO of Orvex.", "She lives in Orvex."]) == "other"  # a tie tells nothing
    kinds = NameKinds(["Disney bought Fox.", "The deal was led by Bob Iger."])
    assert (kinds("Disney"), kinds("Bob Iger"), kinds("Fox")) == ("organisation", "person", "other")


def test_an_organisation_becomes_another_organisation_never_a_place() -> None:
    corpus = ["Instagram was acquired by Facebook in 2012.", "Disney bought Fox in 2019.", "Games held in London."]
    kinds = NameKinds(corpus)
    pool = ["London", "Soul", "Disney", "Norway"]  # one word each: only Disney is an organisation
    cf = make_counterfactual(corpus[0], "Facebook", pool=pool, kinds=kinds)
    assert (cf.wrong, cf.passage) == ("Disney", "Instagram was acquired by Disney in 2012.")
    lonely = make_counterfactual(corpus[0], "Facebook", pool=["London", "Soul", "Norway"], kinds=kinds)
    assert (lonely.replaced, lonely.passage) == (0, corpus[0])
    assert lonely.problem == "no other name of its kind (organisation) and shape (1 word) in the pool"
    city = make_counterfactual(corpus[2], "London", pool=pool, kinds=kinds)
    assert city.wrong not in ("Disney", "Norway", "Soul") and kinds(city.wrong) == "place"  # a city of the list
    # an organisation's name alone, without its "Investments", is the answer too
    fund = make_counterfactual(
        "Fidelity Investments named a CEO. Fidelity said so.", "Fidelity Investments", pool=["Vanguard Group"]
    )
    assert fund.passage == "Vanguard Group named a CEO. Vanguard said so."


def test_a_city_state_becomes_another_city_state_of_the_corpus_else_another_city_of_the_state() -> None:
    passage = "Played in Tampa, Florida. Tampa fans cheered."
    corpus = make_counterfactual(passage, "Tampa, Florida", pool=["Glendale, Arizona", "Simona Halep"])
    assert corpus.passage == "Played in Glendale, Arizona. Glendale fans cheered."
    listed = make_counterfactual(passage, "Tampa, Florida", seed=0)  # none in the pool: Florida's cities of the list
    city, state = listed.wrong.split(", ")
    assert state == "Florida" and city in US_STATES["Florida"] and city != "Tampa"
    assert listed.passage == f"Played in {listed.wrong}. {city} fans cheered."
    assert listed.wrong == "Tallahassee, Florida"  # seed 0 draws it of Tallahassee, Miami, Orlando, Jacksonville
    foreign = make_counterfactual("Held in Lyon, France.", "Lyon, France")  # no list of France's cities
    assert foreign.problem == "no other name of its kind (place) and shape (2 words, City, State) in the pool"


def test_a_city_s_region_goes_with_it_unless_the_other_city_lies_there_too() -> None:
    """Read on the shipped corpus: "born 1950 in Hangzhou, Zhejiang, China" became "Hamadan, Zhejiang, China" and
    "Edmonton, Alberta, Canada" "Hamadan, Alberta, Canada", a passage that contradicts itself."""
    kinds = NameKinds(["He was born in Hamadan.", "It is headquartered in Edmonton.", "born 1950 in Hangzhou"])
    born = make_counterfactual("Ho (born 1950 in Hangzhou, Zhejiang, China) is a Macau entrepreneur.", "Hangzhou",
                               pool=["Hamadan"], kinds=kinds)  # fmt: skip
    assert born.passage == "Ho (born 1950 in Hamadan) is a Macau entrepreneur."
    based = make_counterfactual("It is headquartered in Edmonton, Alberta, Canada. Edmonton is cold.", "Edmonton",
                                pool=["Hamadan"], kinds=kinds)  # fmt: skip
    assert based.passage == "It is headquartered in Hamadan. Hamadan is cold."
    same_state = make_counterfactual("It moved to Tampa, Florida, in 1990.", "Tampa", pool=["Tallahassee"])
    assert same_state.passage == "It moved to Tallahassee, Florida, in 1990."  # Tallahassee lies in Florida
    not_a_region = make_counterfactual("Born in Hangzhou, Ho studied law.", "Hangzhou", pool=["Hamadan"], kinds=kinds)
    assert not_a_region.passage == "Born in Hamadan, Ho studied law."  # "Ho" is no country or state


def test_an_organisation_inside_a_longer_name_is_replaced_with_the_whole_name() -> None:
    """ "The Walt Disney Company" became "The Walt Facebook Company" (BENCHMARKS.md, the RGB validation)."""
    kinds = NameKinds(["Shares of Facebook rose; Facebook bought Instagram.", "Disney bought Pixar.", "Disney's CEO"])
    cf = make_counterfactual(
        "Pixar was bought by The Walt Disney Company in 2006. Disney paid $7.4 billion. The Disney deal closed. "
        "The Walt Disney Company's shares rose.",
        "Disney", pool=["Facebook"], kinds=kinds,
    )  # fmt: skip
    assert cf.passage == (
        "Pixar was bought by Facebook in 2006. Facebook paid $7.4 billion. The Facebook deal closed. Facebook's "
        "shares rose."  # "The" is the longer name's first word, opening a sentence or not
    )
    mall = make_counterfactual(
        "The mall is owned by the Simon Property Group. Simon Property Group Inc. said so.", "Simon Property Group",
        pool=["Walt Disney Productions"],
    )  # fmt: skip
    assert mall.passage == "The mall is owned by the Walt Disney Productions. Walt Disney Productions said so."
    headline = make_counterfactual(
        "Koum to join Facebook Board of Directors. Mark Zuckerberg's Facebook Inc. grew.", "Facebook",
        pool=["Disney"], kinds=kinds,
    )  # fmt: skip
    assert headline.passage == "Koum to join Disney Board of Directors. Mark Zuckerberg's Disney grew."


def test_a_number_in_words_is_a_mention_of_the_number_and_stays_in_words() -> None:
    assert [answer_kind(a) for a in ("three", "twenty-one", "two million", "one", "Three Billboards")] == [
        "number",
        "number",
        "number",
        "name",  # "one" alone is a pronoun as often
        "name",  # a title
    ]
    assert number_parts("twelve") == ("", 12.0, 0, "") and number_parts("two million") == ("", 2.0, 0, " million")
    text = "They won three titles, then 3 more."
    assert find_mentions(text, "3") == [(9, 21), (28, 34)]  # "three titles", "3 more"
    assert find_mentions(text, "three") == [(9, 21), (28, 34)]  # and the other way round
    assert find_mentions("one of them", "1") == [] and find_mentions("one million fans", "1 million") == [(0, 11)]
    assert find_mentions("2 million fans, 2 fans", "2") == [(16, 22)]  # a scale word makes another number
    cf = make_counterfactual("They won three titles; 3 in all, not 3 million.", "3", seed=0)
    # 3 x 0.5-0.8 rounds to 2: the word becomes "two", the digits "2"; "3 million" is another number
    assert (cf.passage, cf.wrong, cf.replaced) == ("They won two titles; 2 in all, not 3 million.", "2", 2)
    worded = make_counterfactual("Twelve players, 12 in all.", "twelve", seed=0)
    assert worded.passage == "Twenty-three players, 23 in all." and worded.wrong == "twenty-three"
    # 2 x 0.5-0.8 would round to 1 or 2, and 2 x 1.25-2.0 to 2, 3 or 4: a count of 2 becomes 3 or 4, never 1 or 2
    assert {make_counterfactual("Two goals.", "2", seed=s).passage for s in range(30)} == {
        "Three goals.",
        "Four goals.",
    }


def test_a_longer_name_stops_at_a_word_opening_the_sentence_a_day_or_a_month() -> None:
    """Found in review: "Yesterday Walt Disney Company said" became "Facebook said"."""
    kinds = NameKinds(["Disney bought Pixar.", "Shares of Disney fell.", "Facebook bought Instagram."])
    for text, expected in [
        ("Yesterday Walt Disney Company said so.", "Yesterday Facebook said so."),
        ("On Monday Walt Disney Company announced it.", "On Monday Facebook announced it."),
    ]:
        assert make_counterfactual(text, "Disney", pool=["Facebook"], kinds=kinds).passage == expected


def test_an_aside_region_goes_with_its_comma_and_a_suffix_stays() -> None:
    kinds = NameKinds(["born in Hamadan", "born in Hangzhou", "born in Lyon"])
    for text, answer, expected in [
        ("Hangzhou, China, is big.", "Hangzhou", "Hamadan is big."),
        ("The Lyon, France-based firm grew.", "Lyon", "The Hamadan-based firm grew."),
    ]:
        assert make_counterfactual(text, answer, pool=["Hamadan"], kinds=kinds).passage == expected


def test_a_bare_count_is_not_read_in_names_ordinals_times_or_dates() -> None:
    """Found in review: with the answer "3" (or "7", "66"), "3rd", "G7", "MP3", "Windows 7", "3 p.m.", "3 May 2019",
    "Chapter 3", "Route 66" and "Three Billboards" were rewritten. Each stays; the count beside it is replaced."""
    for text, answer, kept in [
        ("He finished 3rd in the race, 3 times.", "3", "3rd"),
        ("The G7 summit had 7 leaders.", "7", "G7"),
        ("MP3 players sold 3 units.", "3", "MP3"),
        ("Windows 7 shipped 7 editions.", "7", "Windows 7"),
        ("at 3 p.m. on 3 May 2019, 3 goals", "3", "at 3 p.m. on 3 May 2019, "),
        ("Chapter 3 has 3 parts.", "3", "Chapter 3"),
        ("Route 66 is 66 miles long.", "66", "Route 66"),
        ("Three Billboards won 3 Oscars.", "3", "Three Billboards"),
    ]:
        cf = make_counterfactual(text, answer, seed=0)
        assert cf.replaced == 1 and kept in cf.passage and cf.passage != text, (text, cf)
    assert find_mentions("In 3 games he scored.", "3") == [(3, 10)]  # a count after a sentence's opening word


def test_number_forms_keep_their_spaces_and_percent_reads_both_ways() -> None:
    spaced = make_counterfactual("three (3) titles", "3", seed=0)
    assert re.fullmatch(r"[a-z]+ \(\d\) titles", spaced.passage) and "three" not in spaced.passage
    percent = make_counterfactual("Up 3%, or 3 percent.", "3%", seed=0)
    new = percent.wrong.rstrip("%")
    assert percent.passage == f"Up {new}%, or {new} percent." and new != "3"
    hundred = make_counterfactual("one hundred copies, 100 in all", "100", seed=0)
    assert (hundred.replaced, hundred.problem) == (0, "the answer is written in words past ninety-nine")


def test_an_organisation_named_x_of_y_has_no_short_name() -> None:
    """Found in review: "Bank of America ... in America" lost its "America" too."""
    cf = make_counterfactual("Bank of America is a big bank in America.", "Bank of America", pool=["Wells Fargo Bank"])
    assert cf.passage == "Wells Fargo Bank is a big bank in America."


def test_context_outvotes_a_shape_that_only_leans() -> None:
    assert name_kind("Phoenix", ["The Oscar went to Phoenix, who played the Joker."]) == "person"
    assert name_kind("Phoenix") == "place" and name_kind("Best Picture") == "event"
    assert name_kind("Best Buy", ["Shares of Best Buy fell.", "Best Buy bought Geek Squad."]) == "organisation"
