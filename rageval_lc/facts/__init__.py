"""Facts of the world that text is read by (calendar words, numbers in words, units, places, names), and a text's facts.

The facts a text states are found and compared the same way everywhere: its numbers with their units
(:mod:`~rageval_lc.facts.numbers`), its dates (:mod:`~rageval_lc.facts.dates`), its names and their roles
(:mod:`~rageval_lc.facts.names`), its negations and comparisons (:mod:`~rageval_lc.facts.polarity`), its words'
stems (:mod:`~rageval_lc.facts.words`).

Each word list is held here once, with the small functions that are the same knowledge everywhere (a number in
words and its value, a month's name and its number, the quantities and dates of a text and whether two agree); the
offline judge's slots, RGB's counterfactual passages and the training scripts' edits read them from here. Pure
Python, no model, and no import from another room.

Example:
    >>> month_number("Sept."), number_value("twenty-five"), number_in_words(21), UNITS["km"]
    (9, 25.0, 'twenty-one', ('length', 1000.0))
    >>> "Norway" in COUNTRIES, "Tampa" in US_STATES["Florida"]
    (True, True)
"""

from __future__ import annotations

from rageval_lc.facts.dates import MONTH_NUMBERS, MONTH_PATTERN, MONTHS, WEEKDAYS, Date, dates, month_number
from rageval_lc.facts.number_words import (
    NUMBER_WORDS,
    ONES,
    SCALES,
    TENS,
    number_in_words,
    number_value,
)
from rageval_lc.facts.numbers import Quantity, quantities, same_quantity
from rageval_lc.facts.places import (
    CITIES,
    CITIES_NAMED_LIKE_PEOPLE,
    COUNTRIES,
    REGIONS_ABROAD,
    US_STATES,
    WELL_KNOWN_CITIES,
    WELL_KNOWN_COUNTRIES,
    WORLD_CITIES,
)
from rageval_lc.facts.units import UNITS
from rageval_lc.facts.words import stem

__all__ = [
    "CITIES",
    "CITIES_NAMED_LIKE_PEOPLE",
    "COUNTRIES",
    "MONTHS",
    "MONTH_NUMBERS",
    "MONTH_PATTERN",
    "NUMBER_WORDS",
    "ONES",
    "REGIONS_ABROAD",
    "SCALES",
    "TENS",
    "UNITS",
    "US_STATES",
    "WEEKDAYS",
    "WELL_KNOWN_CITIES",
    "WELL_KNOWN_COUNTRIES",
    "WORLD_CITIES",
    "Date",
    "Quantity",
    "dates",
    "month_number",
    "number_in_words",
    "number_value",
    "quantities",
    "same_quantity",
    "stem",
]
