"""Names in passages, without a model: the kinds of a corpus's names, the places a place may become, and the spans
a name's replacement must cover (:mod:`~rageval_lc.rgb.counterfactual` uses them to swap a name for another of its
kind).

What kind a name is (person, place, organisation, event, work, other) is :mod:`rageval_lc.facts.names`' typer
(:func:`name_kind`, read here over a corpus by :class:`NameKinds`); the lists of places and the calendar's words
come from :mod:`rageval_lc.facts` (``COUNTRIES``, ``US_STATES``, ``CITIES``, ``MONTHS``, ``WEEKDAYS``,
and the names' words and kinds).

Example:
    >>> NameKinds(["Disney bought Fox."])("Disney"), merged_spans([(0, 5), (3, 9), (12, 14)])
    ('organisation', [(0, 9), (12, 14)])
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rageval_lc.facts import CITIES, COUNTRIES, MONTHS, US_STATES, WEEKDAYS
from rageval_lc.facts.names import ORGANISATION_WORDS, bare_word, is_region, name_kind

__all__ = [
    "CITIES",
    "COUNTRIES",
    "MONTHS",
    "US_STATES",
    "WEEKDAYS",
    "NameKinds",
    "known_places",
    "merged_spans",
    "whole_names",
    "without_stale_region",
]


class NameKinds:
    """The kinds of names as a corpus uses them (:func:`name_kind` over its passages), each name read once.

    Example:
        >>> kinds = NameKinds(["Disney bought Fox.", "The deal was led by Bob Iger."])
        >>> kinds("Disney"), kinds("Bob Iger"), kinds("Fox")
        ('organisation', 'person', 'other')
    """

    def __init__(self, corpus: Sequence[str]) -> None:
        self._corpus = list(corpus)
        self._kinds: dict[str, str] = {}

    def __call__(self, name: str) -> str:
        if name not in self._kinds:
            self._kinds[name] = name_kind(name, self._corpus)
        return self._kinds[name]


# A region after a city: ", Zhejiang, China", ", Alberta, Canada", ", Iran" (one or two parts, each 1-3 words).
_REGION_AFTER = re.compile(r"(?:,\s+[A-Z]\w*(?:\s+[A-Z]\w*){0,2}){1,2}")  # not "France-based"'s "-based" nor a "'s"
_NAME_WORD = re.compile(r"[A-Z][\w'’&-]*(?:\.(?=\s+[a-z0-9(]|,))?")  # "Inc." in "Inc. said", not "Group." ending one
_FUNCTION_WORDS = frozenset("A An And As At But By For From In Of On Or The To With".split())
_CALENDAR_WORDS = frozenset([*(w.capitalize() for w in (*WEEKDAYS, *MONTHS)), "Yesterday", "Today", "Tomorrow"])


def _opens_sentence(passage: str, start: int) -> bool:
    """Whether the word at ``start`` opens a sentence (or the passage, or follows RGB's "...")."""
    before = passage[:start].rstrip()
    return not before or before[-1] in ".!?"


def without_stale_region(passage: str, spans: list[tuple[int, int]], other: str) -> list[tuple[int, int]]:
    """A city's mentions, each widened over the region written after it (", Zhejiang, China") when the region ends
    in a country or a US state the other city is not known to lie in: "born in Hangzhou, Zhejiang, China" becomes
    "born in Hamadan", not "Hamadan, Zhejiang, China", a city the passage would put in the wrong country. The comma
    closing such an aside goes too ("Hangzhou, China, is big" → "Hamadan is big").

    Example:
        >>> text = "Born in Hangzhou, Zhejiang, China, he moved."
        >>> [text[s:e] for s, e in without_stale_region(text, [(8, 16)], "Hamadan")]
        ['Hangzhou, Zhejiang, China,']
    """
    out = []
    for start, end in spans:
        m = _REGION_AFTER.match(passage, end)
        region = m.group(0).rsplit(",", 1)[-1].strip() if m else ""
        if m is None or not is_region(region) or other in US_STATES.get(region, ()):
            out.append((start, end))
            continue
        out.append((start, m.end() + (passage[m.end() : m.end() + 1] == ",")))
    return out


def whole_names(passage: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """An organisation's mentions, each widened over the longer name it stands in when an organisation's word ends
    that name ("The Walt Disney Company" for "Disney"; "Simon Property Group Inc."), so that the name is replaced
    whole rather than "The Walt Facebook Company" ("The" included, opening a sentence or not). A title-case
    headline ("Facebook Board of Directors"), a possessive before ("Zuckerberg's Facebook"), a day, a month and any
    other word opening a sentence ("Yesterday Disney Company said") stay outside."""
    out = []
    for start, end in spans:
        widened = end
        while passage[widened : widened + 1] == " ":
            w = _NAME_WORD.match(passage, widened + 1)
            word = bare_word(w.group(0)) if w else ""
            possessive = word[-2:] in ("'s", "’s")
            if (word[:-2] if possessive else word) not in ORGANISATION_WORDS:
                break
            widened = w.end() - 2 if possessive else w.end()  # "Company's": the name ends before its "'s"
            if possessive:
                break
        if widened == end:
            out.append((start, end))
            continue
        for w in reversed(list(_NAME_WORD.finditer(passage[:start]))):
            name_word = w.group(0)
            if (
                passage[w.end() : start] != " "
                or name_word in (_FUNCTION_WORDS - {"The"}) | _CALENDAR_WORDS
                or name_word[-2:] in ("'s", "’s")
                or (name_word != "The" and _opens_sentence(passage, w.start()))
            ):
                break
            start = w.start()
            if name_word == "The":
                break  # the name's first word
        out.append((start, widened))
    return out


def merged_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans that overlap (a name and its short form within it, once widened) as one."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def known_places(name: str, level: str) -> list[str]:
    """Places of the lists that may stand for a place of the corpus: a country's other countries, a state's other
    states, a US "City, State"'s other cities of the state (then any state's), a city's other cities."""
    if level == "country":
        return sorted(COUNTRIES)
    if level == "state":
        return sorted(US_STATES)
    if "," in name:
        state = name.partition(",")[2].strip()
        if state not in US_STATES:
            return []  # "Lyon, France": no list of the cities of France here
        same = [f"{city}, {state}" for city in US_STATES[state]]
        return same + sorted(f"{city}, {s}" for s, cities in US_STATES.items() if s != state for city in cities)
    return sorted(CITIES)
