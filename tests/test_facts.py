"""The facts text is read by are held once, in ``rageval_lc/facts/``, and its functions give what one works out by
hand (issue 47, item 1)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from rageval_lc.facts import (
    CITIES,
    COUNTRIES,
    MONTH_NUMBERS,
    MONTH_PATTERN,
    MONTHS,
    NUMBER_WORDS,
    ONES,
    SCALES,
    TENS,
    UNITS,
    US_STATES,
    WEEKDAYS,
    WELL_KNOWN_CITIES,
    WELL_KNOWN_COUNTRIES,
    WORLD_CITIES,
    dates,
    month_number,
    number_in_words,
    number_value,
)
from rageval_lc.facts.dates import date_pattern
from rageval_lc.facts.names import (
    EVENT_WORDS,
    ORGANISATION_WORDS,
    PLACE_WORDS,
    ROLES,
    coarse_kind,
    kind_from_shape,
    name_kind,
    name_type,
    names,
    role_swap,
    same_name,
)
from rageval_lc.facts.polarity import ANTONYMS, NEGATIONS, comparisons, negated_words
from rageval_lc.facts.units import UNIT_ABBREVIATIONS, UNIT_NAMES, UNIT_STEPS, UNIT_SWAPS, british_spelling

ROOT = Path(__file__).resolve().parents[1]

# --- (a) no copy of a list outside facts/ ----------------------------------------------------------------------

_NOT_UNIT_DIMENSIONS = ("time", "months", "years", "percent")
#: What makes a literal a copy of a list: at least this many different words of one kind in it. "may" and "march"
#: are left out of the months (words of their own), the countries' short names ("US", "UK") too.
_WORD_KINDS: dict[str, tuple[frozenset[str], int]] = {
    "month names": (frozenset(MONTHS) - {"may", "march"}, 3),
    "month abbreviations": (frozenset(w for w in MONTH_NUMBERS if len(w) <= 4 and w not in MONTHS), 4),
    "weekday names": (frozenset(WEEKDAYS), 3),
    "tens in words": (frozenset(TENS), 3),
    "ones in words": (frozenset(ONES), 6),
    "scale words": (frozenset(SCALES), 4),
    "organisation words": (frozenset(w.lower() for w in ORGANISATION_WORDS if w.isalpha() and len(w) > 3), 6),
    "event words": (frozenset(w.lower() for w in EVENT_WORDS) - {"open", "act", "series", "season", "tour"}, 5),
    "place words": (frozenset(w.lower() for w in PLACE_WORDS), 8),
    "person roles": (frozenset(ROLES), 8),
    # the units' names (not time's: "second|minute|hour" reads a rate; nor "percent")
    "unit names": (
        frozenset(
            w for w, (dim, _) in UNITS.items() if w.isalpha() and len(w) >= 4 and dim not in _NOT_UNIT_DIMENSIONS
        ),
        4,
    ),
}
_NAME_KINDS: dict[str, tuple[frozenset[str], int]] = {
    "country names": (COUNTRIES - {"US", "U.S.", "USA", "UK", "U.K."}, 4),
    "US state names": (frozenset(US_STATES), 4),
    "city names": (CITIES, 8),
}
#: Each kind's names by their first word, to look up a text's capitalised words in.
_NAMES_BY_FIRST_WORD = {
    kind: {first: [n for n in names if n.split()[0] == first] for first in {n.split()[0] for n in names}}
    for kind, (names, _) in _NAME_KINDS.items()
}


def _names_in(text: str, kind: str) -> set[str]:
    """The names of a kind (:data:`_NAME_KINDS`) a text holds as whole words."""
    index, found = _NAMES_BY_FIRST_WORD[kind], set()
    for word in set(re.findall(r"[A-Z][\w.]*", text)):
        for name in index.get(word, index.get(word.rstrip("."), [])):
            if " " not in name or re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text):
                found.add(name)
    return found


def _literals(source: str) -> Iterator[tuple[int, str]]:
    """Each string literal of a module but its docstrings and other bare strings (prose, not a list) (implicitly
    joined parts as one; an f-string's text parts), and each list, tuple, set or dict of string literals read as
    one text, with its line: the strings nested in it too (a dict of tuples of words)."""
    tree = ast.parse(source)
    prose = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            yield node.lineno, node.value
        elif isinstance(node, ast.List | ast.Tuple | ast.Set | ast.Dict):
            texts = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
            if len(texts) > 1:
                yield node.lineno, " ".join(texts)


def _kinds_in(text: str) -> dict[str, set[str]]:
    """The words of each kind a text holds that are that kind's often enough to make a list."""
    words = set(re.findall(r"[a-z]+", text.lower()))
    kinds = {kind: words & listed for kind, (listed, _) in _WORD_KINDS.items()}
    kinds |= {kind: _names_in(text, kind) for kind in _NAME_KINDS}
    least = {kind: n for kind, (_, n) in (_WORD_KINDS | _NAME_KINDS).items()}
    return {kind: hits for kind, hits in kinds.items() if len(hits) >= least[kind]}


def list_copies(root: Path) -> list[str]:
    """``path:line: kind (words)`` for each literal of ``rageval_lc/`` and ``training/`` under ``root``, outside
    ``rageval_lc/facts/``, that holds a list of months, weekdays, number words, countries, US states, cities or
    units."""
    found = []
    for folder in ("rageval_lc", "training"):
        for path in sorted((root / folder).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            if path.is_relative_to(root / "rageval_lc" / "facts") or not _kinds_in(source):
                continue  # facts/ holds the lists; a module without enough words of a kind in all holds none
            for line, text in _literals(source):
                found += [
                    f"{path.relative_to(root).as_posix()}:{line}: {kind} ({' '.join(sorted(hits)[:6])} ...)"
                    for kind, hits in _kinds_in(text).items()
                ]
    return found


def test_no_list_of_months_weekdays_number_words_or_places_outside_facts() -> None:
    assert list_copies(ROOT) == []


def test_the_scan_finds_a_copied_list(tmp_path: Path) -> None:
    copies = {
        "months.py": 'MONTHS = "january february march april".split()\n',
        "days.py": 'DAYS = ["Monday", "Tuesday", "Wednesday"]\n',
        "tens.py": 'PATTERN = r"(?:twenty|thirty|forty)"\n',
        "ones.py": '_SMALL = "zero one two three four five six".split()\n',
        "short.py": 'MONTH = r"(?:jan|feb|mar|apr)[a-z]*"\n',
        "places.py": 'PLACES = {"France", "Norway", "South Korea", "Peru"}\n',
        "orgs.py": 'ORGS = "Inc Corporation Company University College Institute Foundation".split()\n',
        "events.py": 'EVENTS = ("Award", "Prize", "Cup", "Championship", "Festival", "Olympics")\n',
        "units.py": 'STEPS = {"length": (("meter", 1), ("kilometer", 1000)), "mass": (("gram", 1), ("kilo", 1000))}\n',
    }
    (tmp_path / "training").mkdir()
    for name, text in copies.items():
        (tmp_path / "training" / name).write_text(text)
    (tmp_path / "rageval_lc" / "facts").mkdir(parents=True)
    (tmp_path / "rageval_lc" / "facts" / "kept.py").write_text(copies["months.py"])  # facts/ may hold them
    (tmp_path / "rageval_lc" / "fine.py").write_text('"""Open on Mondays, from one to two, in Norway and France."""\n')
    prose = '"""In metres, meters, kilometres or miles."""\n\n\ndef f():\n    """In grams, pounds, ounces, tonnes."""\n'
    (tmp_path / "training" / "prose.py").write_text(prose)  # docstrings are prose, no list
    found = [line.split(": ", 1)[1].split(" (")[0] for line in list_copies(tmp_path)]
    assert sorted(found) == sorted(
        [
            "month names",
            "weekday names",
            "tens in words",
            "ones in words",
            "month abbreviations",
            "country names",
            "organisation words",
            "event words",
            "unit names",
        ]
    )


# --- (b) the functions on worked examples ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "four", "number"),
    [
        ("January", False, 1),
        ("jan.", False, 1),
        ("May", False, 5),
        ("SEPT", False, 9),
        ("Sept.", False, 9),
        ("sep", False, 9),
        ("September", False, 9),
        ("Octo", False, None),  # four letters name only September ("Sept")
        ("Octo", True, 10),
        ("janu.", True, 1),
        ("Ju", True, None),  # two letters name no month
        ("Mayday", True, None),
        ("", False, None),
    ],
)
def test_month_number(word: str, four: bool, number: int | None) -> None:
    assert month_number(word, any_four_letters=four) == number


def test_the_month_pattern_takes_a_name_or_an_abbreviation_with_its_dot() -> None:
    matches = [
        w
        for w in ("Sept.", "sept", "Sep", "September", "jun", "June", "Septem", "Junee")
        if re.fullmatch(MONTH_PATTERN, w, re.I)
    ]
    assert matches == ["Sept.", "sept", "Sep", "September", "jun", "June"]
    assert len(MONTH_NUMBERS) == 12 + 11 + 1  # full names; three letters ("may" is both); "sept"


@pytest.mark.parametrize(
    ("text", "order", "parts"),
    [
        ("on 9 November 1989.", "dmy", ("9", "November", "1989")),
        ("the 14th of Dec. 2004", "dmy", ("14", "Dec.", "2004")),  # an ordinal, "of", an abbreviation with its dot
        ("November 9, 1989", "mdy", ("9", "November", "1989")),
        ("Sept 1st 2020", "mdy", ("1", "Sept", "2020")),
        ("in June, 2020", "my", (None, "June", "2020")),
        ("1989-11-09", "ymd", ("09", "11", "1989")),
        ("in 1989.", "y", (None, None, "1989")),
        ("9 November", "dm", ("9", "November", None)),
        ("November 9", "md", ("9", "November", None)),
    ],
)
def test_a_date_pattern_s_parts(text: str, order: str, parts: tuple[str | None, ...]) -> None:
    m = date_pattern(order).search(text)
    assert m is not None
    found = m.groupdict()
    assert (found.get("day"), found.get("month"), found.get("year")) == parts


@pytest.mark.parametrize(
    ("text", "order"),
    [
        ("9 Novem 1989", "dmy"),  # no month's spelling
        ("November 9, 2189", "mdy"),  # a year is from 1000 to 2099
        ("1,989 people", "y"),
        ("$1989", "y"),
        ("2000 years", "y"),
        ("2000 per year", "y"),
        ("May 5.5", "md"),  # a decimal, not a day
    ],
)
def test_no_date_pattern_reads_these(text: str, order: str) -> None:
    assert date_pattern(order).search(text) is None


def test_a_month_pattern_of_one_s_own_keeps_the_orders() -> None:
    loose = date_pattern("mdy", month=r"(?:jan|oct)[a-z]*\.?")  # RGB's: any word a month's three letters open
    assert loose.fullmatch("Octo. 5, 2017")["month"] == "Octo."
    assert date_pattern("mdy").fullmatch("Octo. 5, 2017") is None
    assert [d.describe() for d in dates("On the 25th of April, 1915, and in may 1916; 2000 metres.")] == [
        "25 April 1915",
        "1916",  # "may" in lower case is the verb: only its year is a date
    ]


@pytest.mark.parametrize(
    ("words", "value"),
    [
        ("seven", 7.0),
        ("Nineteen", 19.0),
        ("ninety-nine", 99.0),  # 90 + 9
        ("forty two", 42.0),
        ("one hundred and five", 105.0),  # 1 × 100 + 5
        ("nineteen hundred", 1900.0),  # 19 × 100
        ("two thousand three hundred", 2300.0),  # 2 × 1,000 + 3 × 100
        ("three million", 3_000_000.0),
        ("a hundred thousand", 100_000.0),  # (1 × 100) × 1,000
        ("a dozen", 12.0),
        ("two dozen", 24.0),  # 2 × 12
        ("one half", 1.5),  # 1 + 0.5
        ("two and a half", 2.0),  # "a" before no scale ends the number
        ("half", None),
        ("a", None),
        ("seven dwarfs", None),
        ("", None),
    ],
)
def test_number_value(words: str, value: float | None) -> None:
    assert number_value(words) == value


def test_number_in_words() -> None:
    assert [number_in_words(n) for n in (0, 13, 40, 99)] == ["zero", "thirteen", "forty", "ninety-nine"]
    assert number_in_words(58, joiner=" ", capital=True) == "Fifty eight"
    assert all(number_value(number_in_words(n)) == n for n in range(100))
    with pytest.raises(ValueError, match="not from 0 to 99"):
        number_in_words(100)


def test_the_word_lists() -> None:
    assert len(MONTHS) == 12 and MONTHS[8] == "september" and len(WEEKDAYS) == 7 and WEEKDAYS[-1] == "sunday"
    assert len(NUMBER_WORDS) == 20 + 8 + 5 + 1 and "dozen" in NUMBER_WORDS and "half" not in NUMBER_WORDS
    assert SCALES["billion"] == 1_000 * SCALES["million"] == 10**9
    assert UNITS["km"] == ("length", 1000.0) and UNITS["%"] == UNITS["per cent"] == ("percent", 1.0)
    assert UNITS["square feet"][0] == "area" and UNITS["square feet"][1] == pytest.approx(0.3048**2, abs=1e-12)
    assert UNITS["kph"][0] == "speed" and UNITS["kph"][1] == pytest.approx(1000 / 3600, abs=1e-12)
    assert len(US_STATES) == 50 and "Georgia" in US_STATES and "Georgia" in COUNTRIES
    assert "South Korea" in COUNTRIES and "Korea" not in COUNTRIES and WELL_KNOWN_COUNTRIES < COUNTRIES
    assert WELL_KNOWN_CITIES < WORLD_CITIES < CITIES and "Tampa" in CITIES and "Tampa" not in WORLD_CITIES


def test_the_unit_tables_agree_with_units() -> None:
    # a unit's name and its abbreviation are one unit of UNITS (the same dimension and size)
    for abbreviation, (singular, plural) in UNIT_NAMES.items():
        sizes = {UNITS.get(w.lower()) for w in (abbreviation, singular, plural, british_spelling(plural))}
        assert len(sizes - {None}) == 1, abbreviation
    assert all(UNITS[w] == UNITS[a.lower()] for w, a in UNIT_ABBREVIATIONS.items() if w in UNITS and a.lower() in UNITS)
    assert UNIT_ABBREVIATIONS["kilometres"] == UNIT_ABBREVIATIONS["kilometer"] == "km"
    assert UNIT_ABBREVIATIONS["hours"] == "h" and UNIT_ABBREVIATIONS["millilitre"] == "ml"  # not "hrs", not "mL"
    assert UNIT_ABBREVIATIONS["per cent"] == UNIT_ABBREVIATIONS["percent"] == "%"
    # the conversion steps: one dimension each, smallest first, the sizes UNITS gives
    for dimension, steps in UNIT_STEPS.items():
        assert all(UNITS[name] == (dimension, size) for name, size in steps)
        assert [size for _, size in steps] == sorted(size for _, size in steps)
    assert [name for name, _ in UNIT_STEPS["time"]] == ["second", "minute", "hour", "day", "week"]
    # a swap states another amount: never the unit itself nor the same unit in another spelling
    assert all(new != old and UNITS.get(new.lower(), 0) != UNITS.get(old.lower(), 1) for old, new in UNIT_SWAPS.items())
    assert british_spelling("kilometers per hour") == "kilometres per hour" and british_spelling("liter") == "litre"


@pytest.mark.parametrize(
    ("name", "shape", "kind"),
    [
        ("Tampa, Florida", "city", "place"),
        ("Georgia", "country", "place"),  # a country and a US state: a country, as place_level says
        ("Phoenix", None, "place"),  # a city also a person's name: its context decides; alone, half a vote
        ("Academy Awards", "event", "event"),  # the head word decides: an award, not the Academy
        ("Academy of Motion Picture Arts", "organisation:school", "organisation"),  # the head before "of"
        ("Battle of Wake Island", "event", "event"),  # not the island
        ("Times Square", "place:square", "place"),  # not the newspaper
        ("Open University", "organisation:school", "organisation"),
        ("Club World Cup", "event", "event"),
        ("Southeast Asia", "place:region", "place"),
        ("South Korean", None, "other"),  # a people's adjective is no region
        ("Best Picture", None, "event"),
        ("School", None, "other"),  # an organisation's word alone names none
        ("NFL", "organisation:acronym", "organisation"),
    ],
)
def test_a_name_s_kind_from_its_shape(name: str, shape: str | None, kind: str) -> None:
    assert kind_from_shape(name) == shape
    assert name_kind(name) == kind
    assert coarse_kind(shape) == (kind if shape else "other")


def test_the_sure_reading_of_a_name_s_kind() -> None:
    assert name_type("Phoenix", []) == "city"
    assert name_type("Phoenix", ["The Oscar went to Phoenix, who played the Joker."]) is None  # a city and a person
    assert name_type("Academy Awards", []) is None  # an event is never swapped
    assert name_type("Nicosia", ["He was born in Nicosia.", "The city of Nicosia grew."]) == "city"
    assert name_type("Meridia", ["He was born in Meridia."]) == "place"
    assert name_type("Meridia", ["He works in Meridia."]) is None  # "in X" is no sure cue
    assert name_type("Apple Inc", ["Apple Inc says it grew."]) == "organisation:company"  # "X says": no person
    assert name_type("Madison Square Garden", ["She was born in Madison Square Garden."]) is None  # a building


def test_the_names_of_a_text_and_their_roles() -> None:
    assert names("In May, Canberra became the capital; on Monday Sydney grew.") == ["Canberra", "Sydney"]  # no month
    assert same_name("Stephen Hillenburg", [], "Hillenburg created it.")  # a surname alone
    assert not same_name("Mount Kilimanjaro", ["Mount Kenya"], "Mount Kenya lies in Kenya.")  # "Mount" is generic
    assert role_swap("Microsoft acquired GitHub.", "GitHub acquired Microsoft.") == ["Microsoft", "GitHub"]
    assert role_swap("France lost to Argentina.", "Argentina beat France.") is None  # converse verbs: the same fact


def test_negations_and_comparisons() -> None:
    assert negated_words("The drug should not be given to children; the park is closed.") == {"give", "open"}
    assert negated_words("The screen shows No Signal.") == set()  # a label, no statement
    (comparison,) = comparisons("The new model is lighter than the old one.")
    assert (comparison.measure, comparison.direction) == ("weight", -1)
    assert ANTONYMS["closed"] == "open" and "never" in NEGATIONS
