"""The calendar's words: the months (their names, abbreviations and numbers) and the days of the week.

Example:
    >>> MONTHS[10], month_number("Nov."), month_number("Sept"), month_number("Maybe")
    ('november', 11, 9, None)
"""

from __future__ import annotations

from itertools import pairwise

__all__ = ["MONTHS", "MONTH_NUMBERS", "MONTH_PATTERN", "WEEKDAYS", "month_number"]

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
