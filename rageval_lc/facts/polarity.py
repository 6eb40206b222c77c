"""Which way a statement runs: the words a negation bears on (and the antonyms that negate a word: "closed" is
"not open"), and the comparisons it makes ("A is cheaper than B"), matched across forms by
:func:`~rageval_lc.facts.words.stem`.

Example:
    >>> sorted(negated_words("It is not recommended and closed on Mondays."))
    ['open', 'recommend']
    >>> [(c.measure, c.direction) for c in comparisons("The Aria 5 is cheaper than the Volt X.")]
    [('price', -1)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rageval_lc.facts.words import STOP_WORDS, stem

__all__ = ["ANTONYMS", "NEGATIONS", "Comparison", "comparisons", "negated_words"]

NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "cannot", "without", "n't", "neither"})


_ANTONYM_PAIRS = (
    "open closed",
    "allowed banned",
    "allowed prohibited",
    "allowed forbidden",
    "permitted prohibited",
    "safe unsafe",
    "legal illegal",
    "possible impossible",
    "available unavailable",
    "true false",
    "alive dead",
    "included excluded",
    "able unable",
    "compatible incompatible",
    "effective ineffective",
    "visible invisible",
    "waterproof leaky",
    "approved rejected",
    "accept reject",
    "accepts rejects",
    "accepted rejected",
    "present absent",
    "required optional",
    "mandatory optional",
    "free paid",
    "public private",
    "flightless fly",
    "edible inedible",
    "reversible irreversible",
    "contagious noncontagious",
    "increase decrease",
    "increased decreased",
    "increases decreases",
    "rose fell",
    "rise fall",
    "rises falls",
    "win lose",
    "won lost",
)
#: a word -> the word it negates ("closed" is "not open")
ANTONYMS = {b: a for a, b in (p.split() for p in _ANTONYM_PAIRS)}


_NEGATION_SKIP = STOP_WORDS | frozenset(
    "longer yet always even just really necessarily ever currently usually generally often quite fully".split()
)
_LABEL_NEGATION = re.compile(r"(?<=\w[\s,;:])(?:Not|No)\s+[A-Z][a-z]+")


def negated_words(text: str) -> set[str]:
    """Stems of the words within two words after a negation ("not recommended", "never been approved"), and of
    the word an antonym negates ("closed": not "open").

    Example:
        >>> sorted(negated_words("It is not recommended and closed on Mondays."))
        ['open', 'recommend']
    """
    text = _LABEL_NEGATION.sub(" ", text)  # "Not Set", "No Signal": a label shown on a screen, not a statement
    tokens = re.findall(r"[a-z]+(?:'[a-z]+)?", text.lower().replace("’", "'"))
    out = set()
    for i, token in enumerate(tokens):
        if token in NEGATIONS or token.endswith("n't"):
            # the word the negation bears on: the first after it but auxiliaries and adverbs ("not be given",
            # "no longer receive"); "do not want apps" negates wanting, not apps
            out.update(stem(t) for t in [t for t in tokens[i + 1 : i + 4] if t not in _NEGATION_SKIP][:1])
        elif token in ANTONYMS:
            out.add(stem(ANTONYMS[token]))
    return out


# comparative -> (what it measures, direction)
_COMPARATIVES = {
    "cheaper": ("price", -1), "less expensive": ("price", -1), "more expensive": ("price", 1), "pricier": ("price", 1),
    "costlier": ("price", 1), "heavier": ("weight", 1), "lighter": ("weight", -1), "older": ("age", 1),
    "younger": ("age", -1), "newer": ("age", -1), "larger": ("size", 1), "bigger": ("size", 1),
    "smaller": ("size", -1), "taller": ("height", 1), "shorter": ("length", -1), "longer": ("length", 1),
    "faster": ("speed", 1), "quicker": ("speed", 1), "slower": ("speed", -1), "higher": ("level", 1),
    "lower": ("level", -1), "warmer": ("heat", 1), "hotter": ("heat", 1), "colder": ("heat", -1),
    "cooler": ("heat", -1), "earlier": ("time", -1), "later": ("time", 1), "more": ("amount", 1),
    "less": ("amount", -1), "fewer": ("amount", -1), "greater": ("amount", 1), "wider": ("width", 1),
    "narrower": ("width", -1), "deeper": ("depth", 1), "shallower": ("depth", -1), "stronger": ("strength", 1),
    "weaker": ("strength", -1), "better": ("quality", 1), "worse": ("quality", -1), "louder": ("loudness", 1),
    "quieter": ("loudness", -1), "safer": ("risk", -1), "riskier": ("risk", 1), "more dangerous": ("risk", 1),
    "less dangerous": ("risk", -1), "more efficient": ("efficiency", 1), "less efficient": ("efficiency", -1),
}  # fmt: skip
_COMPARATIVE = re.compile(
    r"\b(" + "|".join(sorted((re.escape(c) for c in _COMPARATIVES), key=len, reverse=True)) + r")\b"
    r"(?:\s+\w+){0,3}?\s+than\s+([^,.;:]+)",
    re.I,
)


@dataclass(frozen=True)
class Comparison:
    """ "A is cheaper than B": the measure, its direction, and the content-word stems of each side."""

    measure: str
    direction: int
    left: frozenset[str]
    right: frozenset[str]
    text: str


def comparisons(text: str) -> list[Comparison]:
    """The "... -er than ..." comparisons of ``text``, each with the words of its two sides.

    Example:
        >>> c = comparisons("The Aria 5 is cheaper than the Volt X.")[0]
        >>> c.measure, c.direction, sorted(c.left), sorted(c.right)
        ('price', -1, ['5', 'aria'], ['volt', 'x'])
    """
    out = []
    for match in _COMPARATIVE.finditer(text):
        measure, direction = _COMPARATIVES[match.group(1).lower()]
        clause = re.split(r"[,;:]|\b(?:and|but|while|whereas|which|that)\b", text[: match.start()])[-1]
        left = _side_words(clause)
        right = _side_words(match.group(2))
        if left and right:
            out.append(Comparison(measure, direction, left, right, match.group(0)))
    return out


def _side_words(text: str) -> frozenset[str]:
    words = re.findall(r"[\w'’]+", text.lower())
    verbs = {"is", "are", "was", "were", "costs", "cost", "weighs", "weigh", "runs", "run", "be", "been", "much", "far"}
    return frozenset(stem(w) for w in words if w not in STOP_WORDS and w not in verbs)
