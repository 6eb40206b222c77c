"""Numbers in words: the words (ones, tens, scales, "dozen"), a number in words read as its value, and a value
written in words.

Example:
    >>> number_value("two million"), number_value("a dozen"), number_in_words(42, joiner=" ", capital=True)
    (2000000.0, 12.0, 'Forty two')
"""

from __future__ import annotations

import re

__all__ = ["NUMBER_WORDS", "ONES", "SCALES", "TENS", "number_in_words", "number_value"]

#: "zero" to "nineteen": ``ONES[n]`` is the word of n.
ONES: tuple[str, ...] = tuple(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split()
)
#: "twenty" to "ninety": ``TENS[i]`` is the word of 10 × (i + 2).
TENS: tuple[str, ...] = tuple("twenty thirty forty fifty sixty seventy eighty ninety".split())
#: The scale words and their values, smallest first.
SCALES: dict[str, int] = {
    "hundred": 100,
    "thousand": 1_000,
    "million": 1_000_000,
    "billion": 1_000_000_000,
    "trillion": 10**12,
}
#: Every word a number is written with: the ones, the tens, the scales and "dozen".
NUMBER_WORDS = frozenset([*ONES, *TENS, *SCALES, "dozen"])


def number_value(words: str) -> float | None:
    """The value of a number in words, else None.

    Hyphens, spaces and "and" between the words are read; "a" or "an" before a scale or "dozen" is one, "half"
    adds 0.5: "twenty-five" is 25, "two hundred and six" 206, "a dozen" 12, "one half" 1.5. An "a" before any
    other word ends the number ("two and a half" is 2); a word that is no number's, or "a" or "half" alone, gives
    None.

    Example:
        >>> number_value("twenty-five"), number_value("Two hundred and six"), number_value("a hundred thousand")
        (25.0, 206.0, 100000.0)
        >>> number_value("one half"), number_value("half"), number_value("seven dwarfs")
        (1.5, None, None)
    """
    tokens = [t for t in re.split(r"[\s-]+", words.lower()) if t and t != "and"]
    if not tokens or all(t in ("a", "an", "half") for t in tokens):
        return None
    total, current, seen = 0.0, 0.0, False
    for i, token in enumerate(tokens):
        if token in ("a", "an"):
            if i + 1 < len(tokens) and tokens[i + 1] in (*SCALES, "dozen"):
                current = max(current, 1.0)
                continue
            return None if not seen else total + current
        if token == "half":
            current = current + 0.5 if current else 0.5
        elif token == "dozen":
            current = (current or 1.0) * 12
        elif token in ONES:
            current += ONES.index(token)
        elif token in TENS:
            current += 10 * (TENS.index(token) + 2)
        elif token == "hundred":
            current = (current or 1.0) * 100
        elif token in SCALES:
            total += (current or 1.0) * SCALES[token]
            current = 0.0
        else:
            return None
        seen = True
    return total + current if seen else None


def number_in_words(value: int, *, joiner: str = "-", capital: bool = False) -> str:
    """``value`` (0 to 99) in words, a ten and a one joined by ``joiner``; with ``capital``, capitalised.

    Example:
        >>> number_in_words(7), number_in_words(30), number_in_words(21), number_in_words(21, joiner=" ", capital=True)
        ('seven', 'thirty', 'twenty-one', 'Twenty one')
    """
    if not 0 <= value <= 99:
        raise ValueError(f"{value} is not from 0 to 99")
    tens, ones = divmod(value, 10)
    text = ONES[value] if value < 20 else TENS[tens - 2] + (joiner + ONES[ones]) * bool(ones)
    return text.capitalize() if capital else text
