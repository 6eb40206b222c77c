"""Numbers as stated, normalised: quantities with their units, currencies, scales, precision and bounds, and
whether two state the same amount.

The same amount written another way reads the same: units (m / metre(s) / meter(s), km / kilometres, °C / degrees
Celsius, % / per cent / percent), thousands separators and spaces, spelled numbers (two, twelve, hundred, two
million, a dozen), durations and fractions said in words ("half an hour", "a quarter of") and rounding stated as
such (about 8,800 m). Dates (:func:`~rageval_lc.facts.dates.dates`) are no quantities.

Example:
    >>> [(q.value, q.dimension, q.describe()) for q in quantities("Everest rises 8 849 m, about nine thousand metres.")]
    [(8849.0, 'length', '8 849 m'), (9000.0, 'length', 'about nine thousand metres')]
    >>> same_quantity(quantities("8,849 m")[0], quantities("8849 meters")[0])
    True
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from rageval_lc.facts.dates import dates
from rageval_lc.facts.number_words import ONES, SCALES, TENS, number_value
from rageval_lc.facts.units import UNITS, unit_after
from rageval_lc.facts.words import stem

__all__ = ["Quantity", "quantities", "same_quantity"]

_SCALE_ABBREVIATIONS = {"bn": 1_000_000_000, "mn": 1_000_000}
_SPELLED = re.compile(
    r"\b(?:(?:a|an|" + "|".join([*ONES[1:], *TENS, *SCALES]) + r"|half|dozen|and)(?:[\s-]+|\b))+",
    re.I,
)
#: Fractions said in words, as percentages ("a quarter of the patients" is 25 % of them).
_FRACTIONS = {
    "half": 50.0, "a half": 50.0, "one half": 50.0, "a third": 100 / 3, "one third": 100 / 3,
    "two thirds": 200 / 3, "a quarter": 25.0, "one quarter": 25.0, "three quarters": 75.0, "a fifth": 20.0,
    "one fifth": 20.0, "a tenth": 10.0, "one tenth": 10.0,
}  # fmt: skip
#: Durations said in words, in seconds.
_SPOKEN_DURATIONS = {
    "half an hour": 1800.0, "a half hour": 1800.0, "half a minute": 30.0, "a quarter of an hour": 900.0,
    "quarter of an hour": 900.0, "three quarters of an hour": 2700.0, "an hour and a half": 5400.0,
    "a day and a half": 129600.0, "half a day": 43200.0,
}  # fmt: skip


def _phrases(phrases: list[str] | dict[str, float]) -> str:
    """Phrases as one regular expression (no group), longest first, their words joined by spaces or hyphens."""
    return "|".join(r"[\s-]+".join(p.split()) for p in sorted(phrases, key=len, reverse=True))


def _said_before(cues: str) -> re.Pattern[str]:
    """A regular expression for one of ``cues`` (alternatives) closing the text before a number."""
    return re.compile(rf"(?:{cues})\s*$", re.I)


_SPOKEN_DURATION = re.compile(rf"\b(?:{_phrases(_SPOKEN_DURATIONS)})\b", re.I)
_FRACTION = re.compile(rf"\b(?P<fraction>{_phrases(_FRACTIONS)})(?=\s+of\b)", re.I)
_APPROX = _said_before(
    r"about|around|approximately|approx\.?|roughly|nearly|almost|some|circa|ca\.|an estimated|estimated|close to|~|≈"
)
_LOWER = _said_before(
    r"(?<!no )(?<!not )more than|over|at least|above|exceeding|exceeds|upwards of|in excess of|no less than|"
    r"not less than"
)
_UPPER = _said_before(
    r"(?<!no )(?<!not )less than|under|up to|at most|below|no more than|(?<!no )fewer than|not exceed|"
    r"not more than|maximum of|a maximum|max\.?"
)
_CURRENCY = {"$": "usd", "us$": "usd", "€": "eur", "£": "gbp", "¥": "jpy"}
_NUMBER = re.compile(
    r"(?P<currency>(?:US)?[$€£¥])?\s?"
    r"(?P<number>\d{1,3}(?:(?:,|\u202f|\u00a0|\s)\d{3})+(?:\.\d+)?(?!\d)|\d+(?:\.\d+)?)"
    r"(?:\s*(?P<scale>" + "|".join([*SCALES, *_SCALE_ABBREVIATIONS]) + r")\b)?",
    re.I,
)
_RATE = re.compile(r"\s*(?:a|an|per|each|every|/)\s*(second|minute|hour|day|week|month|year|annum)\b", re.I)
_DAILY = re.compile(r"\s*(?:in|per|within|over)\s+(?:any\s+|a\s+)?(?:24 hours|24-hour period)()", re.I)
_COUNT_NOUN = re.compile(r"\s+([a-z][a-z-]{2,})\b")
_NOT_COUNT_NOUNS = frozenset(
    "of the and or to in on at for by with as is are was were be from than that which who times per more less "
    "other others out among new will would can could may might must should shall has have had did does do "
    "also still then".split()
)
_RANGE_JOIN = re.compile(r"^\s*(?:to|-|–|—|and|or)\s*$", re.I)


@dataclass(frozen=True)
class Quantity:
    """A number as stated: its value in the dimension's base unit, how precisely it is stated, and how.

    Attributes:
        value: the number times its scale (million, ...) in the unit's base (metres, grams, ...).
        dimension: ``length``, ``mass``, ``percent``, ``usd``, ... or "" for a bare number.
        step: the stated precision in base units (1 for "12", 0.1 for "4.2", 100 for "about 8,800").
        approximate: stated as rounded ("about", "roughly", "nearly").
        bound: "" for a value, "lower" ("more than 500"), "upper" ("up to 1,200 mg").
        text: the words it was read from.
        span: where those words are in the text.
    """

    value: float
    dimension: str
    step: float
    approximate: bool
    bound: str
    text: str
    span: tuple[int, int]

    def describe(self) -> str:
        """The quantity in words, as the text had it (numbers with thousands separators)."""
        return self.text


def _step_of(number: str, approximate: bool) -> float:
    """The stated precision: one unit of the last written digit (trailing zeros count only when approximate)."""
    if "." in number:
        return 10.0 ** -len(number.split(".")[1])
    if approximate:
        digits = number.rstrip("0")
        return 10.0 ** (len(number) - len(digits)) if digits else 1.0
    return 1.0


def quantities(text: str) -> list[Quantity]:
    """Quantities of ``text`` in order: digits or spelled numbers, their scale, unit or currency, whether stated
    as approximate or as a bound. Dates are not quantities; a bare number up to 10 is left out (list items and
    counts differ too often in wording); a range ("200 to 400 mg") gives its unit to both ends."""
    date_spans = [d.span for d in dates(text)]
    found: list[tuple[int, int, float, str, float, str]] = []  # start, end, value, unit, step, number text
    for match in _NUMBER.finditer(text):
        if any(s <= match.start("number") < e for s, e in date_spans):
            continue
        glued = re.match(r"[\w]", text[match.end() : match.end() + 1] or " ") and not match.group("scale")
        if glued and not re.match(r"\d+(?:\.\d+)?[a-zA-Z°µ%]", text[match.start("number") :]):
            continue  # part of a word or code ("A4", "mp3")
        if match.start("number") > 0 and re.match(r"[\w.]", text[match.start("number") - 1]):
            continue  # inside a code or version ("v2", "3.10.4")
        number = re.sub(r"[,\u202f\u00a0\s]", "", match.group("number"))
        value = float(number)
        scale = match.group("scale")
        factor = float(SCALES.get((scale or "").lower()) or _SCALE_ABBREVIATIONS.get((scale or "").lower(), 1))
        unit, end = unit_after(text, match.end())
        currency = match.group("currency")
        if currency:
            letters = re.match(r"(m|bn|k)\b", text[match.end() : match.end() + 3], re.I)
            if letters and not scale:  # "€50m", "$3bn", "£40k"
                factor = {"m": 1e6, "bn": 1e9, "k": 1e3}[letters.group(1).lower()]
                end = match.end() + len(letters.group(1))
            unit = _CURRENCY[currency.lower()]
        start = match.start() if currency else match.start("number")
        found.append((start, end, value * factor, unit, factor, number))
    for match in _SPOKEN_DURATION.finditer(text):  # "half an hour" is 30 minutes
        if not any(s < match.end() and match.start() < e for s, e, *_ in found):
            seconds = _SPOKEN_DURATIONS[re.sub(r"[\s-]+", " ", match.group().lower())]
            found.append((match.start(), match.end(), seconds, "duration", 1.0, "duration"))
    for match in _FRACTION.finditer(text):
        if any(s < match.end() and match.start() < e for s, e, *_ in found):
            continue
        value = _FRACTIONS[re.sub(r"[\s-]+", " ", match.group("fraction").lower())]
        found.append((match.start(), match.end(), value, "fraction", 1.0, "fraction"))
    for match in _SPELLED.finditer(text):
        lead = re.match(r"(?:and[\s-]+)+", match.group(), re.I)
        begin = match.start() + (lead.end() if lead else 0)
        words = re.sub(r"[\s-]+and$", "", text[begin : match.end()].strip(" -"), flags=re.I)
        value = number_value(words)
        if value is None or any(s < match.end() and begin < e for s, e, *_ in found):
            continue
        end = begin + len(words)
        unit, end = unit_after(text, end)
        if unit in ("in",):
            unit = ""
        found.append((begin, end, value, unit, max(1.0, 10 ** math.floor(math.log10(value or 1))), "spelled"))
    found.sort()
    out: list[Quantity] = []
    for i, (start, end, value, unit, factor, number) in enumerate(found):
        if not unit and i + 1 < len(found) and _RANGE_JOIN.match(text[end : found[i + 1][0]]):
            unit = found[i + 1][3]  # "200 to 400 mg": the unit of the range's end
        before = text[max(0, start - 24) : start]
        approximate = bool(_APPROX.search(before))
        bound = "lower" if _LOWER.search(before) else "upper" if _UPPER.search(before) else ""
        dimension, unit_factor = UNITS.get(unit, ("", 1.0)) if unit else ("", 1.0)
        rate = _RATE.match(text, end)
        if dimension and rate:  # "£45 a month", "10 µg per day": a rate
            dimension = f"{dimension}/{rate.group(1).lower().replace('annum', 'year')}"
            end = rate.end()
        if not dimension and value <= 10 and float(value).is_integer():
            if re.search(r"\b[A-Z][\w-]*\s*$", text[:start]) and number != "spelled":
                continue  # a model number ("Pixelon 7", "Apollo 11"), part of a name
            noun = _COUNT_NOUN.match(text, end)
            if not noun or noun.group(1) in _NOT_COUNT_NOUNS:
                continue  # a bare small number: list items and counts differ too often in wording
            dimension = f"count:{stem(noun.group(1))}"  # "two goals" compares only with goals
            rate = _RATE.match(text, noun.end()) or _DAILY.match(text, noun.end())
            if rate:  # "two tablets a day" is a daily count, not the count of one dose
                dimension = f"{dimension}/{(rate.group(1) or 'day').lower().replace('annum', 'year')}"
                end = rate.end()
        if number == "duration":  # as precise as the minutes it stands for
            out.append(Quantity(value, "time", 60.0, False, bound, text[start:end].strip(), (start, end)))
            continue
        if number == "fraction":  # "a quarter of" is 25 %, as precise as a percentage rounded to one place
            out.append(Quantity(value, "percent", 0.1, value % 1 != 0, bound, text[start:end].strip(), (start, end)))
            continue
        spelled = number == "spelled"
        step = (factor if approximate else 1.0) if spelled else _step_of(number, approximate) * factor
        words = text[start:end].strip()
        if approximate:
            words = f"{_APPROX.search(before).group().strip()} {words}"  # type: ignore[union-attr]
        out.append(
            Quantity(value * unit_factor, dimension, step * unit_factor, approximate, bound, words, (start, end))
        )
    return out


def same_quantity(a: Quantity, b: Quantity) -> bool:
    """Whether two quantities state the same amount, allowing for the precision either states.

    Values of different dimensions (metres against miles) never agree; a bound agrees with a value it admits.
    """
    if a.dimension != b.dimension:
        one, other = a.dimension.split("/"), b.dimension.split("/")
        if one[0] != other[0] or len(one) == len(other):
            return False  # metres against miles, £ a month against £ a year; "$13.79" is "$13.79 per hour"
    if a.bound and not b.bound:
        return b.value > a.value if a.bound == "lower" else b.value <= a.value
    if b.bound and not a.bound:
        return a.value > b.value if b.bound == "lower" else a.value <= b.value
    tolerance = max(a.step, b.step) / 2
    if a.approximate or b.approximate:
        tolerance = max(tolerance, 0.05 * max(abs(a.value), abs(b.value)))
    return abs(a.value - b.value) <= tolerance * (1 + 1e-9) + 1e-12 * max(abs(a.value), abs(b.value))
