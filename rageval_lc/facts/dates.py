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

__all__ = ["MONTHS", "MONTH_NUMBERS", "MONTH_PATTERN", "WEEKDAYS", "Date", "date_pattern", "dates", "month_number"]

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


#: How a date is written, one pattern an order: the day's, month's and year's places (the named groups ``day``,
#: ``month`` and ``year``) and what stands between them. A day may be an ordinal ("21st"), "of" may stand between a
#: day and its month ("21st of July"), a comma before the year; a year is one from 1000 to 2099. ``ymd`` is ISO
#: (1989-11-09); ``y`` a year alone, not a number's part ("1,989", "1989.5", "$1989") nor a count of years or a
#: percentage ("1989 years", "2000 per ...", "2000 %").
_DATE_ORDERS: dict[str, tuple[str, re.RegexFlag]] = {
    "ymd": (r"\b{year}-(?P<month>\d{{1,2}})-(?P<day>\d{{1,2}})\b", re.RegexFlag(0)),
    "dmy": (r"\b{day}\s+(?:of\s+)?{month},?\s+{year}\b", re.I),
    "mdy": (r"\b{month}\s+{day},?\s+{year}\b", re.I),
    "my": (r"\b{month},?\s+{year}\b", re.I),
    "y": (r"(?<![\d,.$£€])\b{year}\b(?![\d,]|\.\d|\s*(?:%|per\b|years?\b))", re.RegexFlag(0)),
    "dm": (r"\b{day}\s+(?:of\s+)?{month}(?![\w])", re.I),
    "md": (r"\b{month}\s+{day}\b(?!\s*(?:%|[.,]\d))", re.I),
}


def date_pattern(order: str, *, month: str = MONTH_PATTERN) -> re.Pattern[str]:
    """The pattern of a date written in ``order`` (``ymd``, ``dmy``, ``mdy``, ``my``, ``y``, ``dm``, ``md``: see
    :data:`_DATE_ORDERS`), its parts in the groups ``day``, ``month`` and ``year``; ``month``: what a month's name is
    (a pattern with no group; :data:`MONTH_PATTERN`, a name or an abbreviation, by default).

    Example:
        >>> m = date_pattern("dmy").search("It opened on the 14th of December, 2004.")
        >>> m["day"], m["month"], m["year"]
        ('14', 'December', '2004')
        >>> date_pattern("mdy", month="(?:dec)[a-z]*").fullmatch("Decem 14 2004")["month"]
        'Decem'
    """
    text, flags = _DATE_ORDERS[order]
    return re.compile(
        text.format(
            day=r"(?P<day>\d{1,2})(?:st|nd|rd|th)?", month=f"(?P<month>{month})", year=r"(?P<year>1[0-9]{3}|20[0-9]{2})"
        ),
        flags,
    )


#: The patterns :func:`dates` reads, fullest first.
_DATE_PATTERNS = tuple((order, date_pattern(order)) for order in ("ymd", "dmy", "mdy", "my", "y", "dm", "md"))


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
    for order, pattern in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            parts = match.groupdict()
            year = int(parts["year"]) if parts.get("year") else None
            day = int(parts["day"]) if parts.get("day") else None
            month = None
            if parts.get("month") and order == "ymd":
                month = int(parts["month"])
            elif parts.get("month"):
                if not parts["month"][0].isupper():
                    continue  # a month is written with a capital ("may 2020" is the verb)
                month = month_number(parts["month"])
            if (month is not None and not 1 <= month <= 12) or (day is not None and not 1 <= day <= 31):
                continue
            if order == "y" and unit_after(text, match.end())[0]:
                continue  # "1280 metres" is a length, not a year
            found.append(Date(year, month, day, match.span()))
            taken.append(match.span())
    return sorted(found, key=lambda d: d.span)
