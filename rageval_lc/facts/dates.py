"""The calendar's words: the months (their names, abbreviations and numbers) and the days of the week; and the
dates of a text, in any common order (9 November 1989, November 9, 1989, 1989-11-09, November 1989, 1989).

Example:
    >>> MONTHS[10], month_number("Nov."), month_number("Sept"), month_number("Maybe")
    ('november', 11, 9, None)
    >>> [d.describe() for d in dates("It fell on November 9, 1989, not in 1991.")]
    ['9 November 1989', '1991']
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from rageval_lc.facts.units import unit_after

__all__ = ["MONTHS", "MONTH_NUMBERS", "MONTH_PATTERN", "WEEKDAYS", "Date", "dates", "month_number"]

#: The months' names, lower-cased, January first.
MONTHS: tuple[str, ...] = tuple(
    "january february march april may june july august september october november december".split()
)
#: The days' names, lower-cased, Monday first.
WEEKDAYS: tuple[str, ...] = tuple("monday tuesday wednesday thursday friday saturday sunday".split())

#: A month's name or abbreviation, lower-cased, -> its number (1-12): the full names, then the three-letter
#: abbreviations, then "sept".
MONTH_NUMBERS: dict[str, int] = {m: i + 1 for i, m in enumerate(MONTHS)}
MONTH_NUMBERS |= {m[:3]: i for m, i in list(MONTH_NUMBERS.items())} | {"sept": 9}


def _spellings(month: str) -> str:
    """A month's spellings of :data:`MONTH_NUMBERS` as one pattern, shortest first: "sep(?:t(?:ember)?)?"."""
    cuts = sorted(len(word) for word in MONTH_NUMBERS if month.startswith(word))
    optional = ""
    for start, end in reversed(list(pairwise(cuts))):
        optional = f"(?:{month[start:end]}{optional})?"
    return month[: cuts[0]] + optional


#: A regular expression (no group) for a month as written: its full name or an abbreviation of
#: :data:`MONTH_NUMBERS`, with a dot or not ("Nov.", "Sept", "September"); match it ignoring case.
MONTH_PATTERN = "(?:" + "|".join(_spellings(m) for m in MONTHS) + r")\.?"


def month_number(word: str, *, any_four_letters: bool = False) -> int | None:
    """The number (1-12) of the month ``word`` names, case and a final dot aside, else None.

    A month is named by its full name, its first three letters, or "Sept" (:data:`MONTH_NUMBERS`); with
    ``any_four_letters`` any month's first four letters name it too ("Janu", "Octo").

    Example:
        >>> month_number("December"), month_number("dec."), month_number("Octo")
        (12, 12, None)
        >>> month_number("Octo", any_four_letters=True)
        10
    """
    word = word.lower().rstrip(".")
    if any_four_letters:
        return next((i + 1 for i, m in enumerate(MONTHS) if word in (m, m[:3], m[:4])), None)
    return MONTH_NUMBERS.get(word)


_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(1[0-9]{3}|20[0-9]{2})"
_DATE_PATTERNS = (
    re.compile(rf"\b{_YEAR}-(\d{{1,2}})-(\d{{1,2}})\b"),  # ISO: year, month, day
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?({MONTH_PATTERN}),?\s+{_YEAR}\b", re.I),  # day, month, year
    re.compile(rf"\b({MONTH_PATTERN})\s+{_DAY},?\s+{_YEAR}\b", re.I),  # month, day, year
    re.compile(rf"\b({MONTH_PATTERN}),?\s+{_YEAR}\b", re.I),  # month, year
    re.compile(rf"(?<![\d,.$£€])\b{_YEAR}\b(?![\d,]|\.\d|\s*(?:%|per\b|years?\b))"),  # a year alone
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?({MONTH_PATTERN})(?![\w])", re.I),  # day, month
    re.compile(rf"\b({MONTH_PATTERN})\s+{_DAY}\b(?!\s*(?:%|[.,]\d))", re.I),  # month, day
)


@dataclass(frozen=True)
class Date:
    """A calendar date, as fully as the text gives it."""

    year: int | None
    month: int | None
    day: int | None
    span: tuple[int, int]

    def describe(self) -> str:
        parts = [str(self.day)] if self.day else []
        parts += [MONTHS[self.month - 1].capitalize()] if self.month else []
        return " ".join([*parts, str(self.year)] if self.year else parts)

    def agrees_with(self, other: Date) -> bool:
        """The same date as far as both say: 1989 agrees with 9 November 1989; 1991 does not."""
        if self.year and other.year and self.year != other.year:
            return False
        if self.month and other.month and self.month != other.month:
            return False
        return not (self.day and other.day and self.day != other.day)


def dates(text: str) -> list[Date]:
    """The dates of ``text`` in order, each read once (the fullest pattern wins)."""
    found: list[Date] = []
    taken: list[tuple[int, int]] = []
    for index, pattern in enumerate(_DATE_PATTERNS):
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            groups = match.groups()
            if index == 0:
                year, month, day = int(groups[0]), int(groups[1]), int(groups[2])
            elif index == 1:
                day, month, year = int(groups[0]), month_number(groups[1]), int(groups[2])
            elif index == 2:
                month, day, year = month_number(groups[0]), int(groups[1]), int(groups[2])
            elif index == 3:
                month, day, year = month_number(groups[0]), None, int(groups[1])
            elif index == 4:
                year, month, day = int(groups[0]), None, None
            elif index == 5:
                day, month, year = int(groups[0]), month_number(groups[1]), None
            else:
                month, day, year = month_number(groups[0]), int(groups[1]), None
            month_word = {1: 1, 2: 0, 3: 0, 5: 1, 6: 0}.get(index)
            if month_word is not None and not groups[month_word][0].isupper():
                continue  # a month is written with a capital ("may 2020" is the verb)
            if (month is not None and not 1 <= month <= 12) or (day is not None and not 1 <= day <= 31):
                continue
            if index == 4 and unit_after(text, match.end())[0]:
                continue  # "1280 metres" is a length, not a year
            found.append(Date(year, month, day, match.span()))
            taken.append(match.span())
    return sorted(found, key=lambda d: d.span)
