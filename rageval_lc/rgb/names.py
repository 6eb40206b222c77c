"""Names in passages, without a model: what kind a name is (person, place, organisation, event, work, other), the
places a place may become, and the spans a name's replacement must cover (:mod:`~rageval_lc.rgb.counterfactual`
uses them to swap a name for another of its kind).

A name's kind comes from its own shape first (a country, a US state, a well-known city, "City, State"; an
organisation's, a place's, an event's or a work's word), then from the words around its mentions in a corpus
(:func:`name_kind`, :class:`NameKinds`). The lists of places and the calendar's words come from
:mod:`rageval_lc.facts` (``COUNTRIES``, ``US_STATES``, ``CITIES``, ``MONTHS`` and ``WEEKDAYS`` here are its own).

Example:
    >>> name_kind("Warner Bros"), place_level("Norway"), merged_spans([(0, 5), (3, 9), (12, 14)])
    ('organisation', 'country', [(0, 9), (12, 14)])
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rageval_lc.facts import CITIES, CITIES_NAMED_LIKE_PEOPLE, COUNTRIES, MONTHS, US_STATES, WEEKDAYS

__all__ = [
    "CITIES",
    "COUNTRIES",
    "MONTHS",
    "NAME_KINDS",
    "ORGANISATION_WORDS",
    "US_STATES",
    "WEEKDAYS",
    "NameKinds",
    "bare_word",
    "is_region",
    "known_places",
    "merged_spans",
    "name_kind",
    "place_level",
    "whole_names",
    "without_stale_region",
]

#: The kinds a name is told to be (:func:`name_kind`).
NAME_KINDS = ("person", "place", "organisation", "event", "work", "other")

# Words that make a name an organisation wherever they stand ("Warner Bros", "University of Texas").
ORGANISATION_WORDS = frozenset(
    """Inc Inc. Corp Corp. Corporation Company Co Co. Ltd Ltd. LLC PLC plc GmbH Group Holdings Partners Investments
    Capital Bank Bancorp Airlines Airways Motors Technologies Technology Systems Labs Laboratories Pharmaceuticals
    Records Studios Studio Productions Films Pictures Entertainment Media Publishing Publishers Press Comics Network
    Networks Communications Broadcasting Software Electronics Industries Enterprises Insurance Bros Bros. Brothers
    University College Institute Academy Foundation Association Society Agency Council Committee Commission Ministry
    Department Authority Party League Federation Organization Organisation FC F.C. Club Times Post Journal
    Magazine""".split()
)
# Words that make a name a place when it ends with them ("Raymond James Stadium") or begins ("Lake Tahoe").
_PLACE_WORDS = frozenset(
    """City County Province District Region Island Islands River Lake Mountain Mountains Valley Bay Beach Coast
    Peninsula Desert Ocean Sea Gulf Canyon Harbor Harbour Falls Heights Springs Hills Street Avenue Square Bridge
    Stadium Arena Airport Park""".split()
)
_PLACE_FIRST_WORDS = frozenset("Mount Mt. Lake Port Fort Saint St.".split())
# Words that make a name an event or an award ("U.S. Open", "Golden Globe Awards", "Best Picture"), and a work.
_EVENT_WORDS = frozenset(
    """Award Awards Prize Cup Championship Championships Open Games Olympics Festival Series Trophy Bowl Tour War Act
    Treaty Election Marathon Season Edition Summit Conference""".split()
)
_WORK_WORDS = frozenset("Film Movie Album Song Show Feature Novel Book".split())
_PARTICLES = frozenset("de da van von der del della la le di du bin al ibn dos das".split())
_NOT_FIRST_NAMES = frozenset("The A An This That North South East West New Best".split())

# Cues around a mention: the words just before it and the text just after it, lower-cased.
_BEFORE_CUES = {
    "person": re.compile(
        r"\b(?:mr|mrs|ms|dr|sir|dame|president|senator|governor|ceo|chief executive|director|actor|actress|singer|"
        r"coach|player|star|author|novelist|writer|founder|chairman|chairwoman|said|says)\.?,?\s+$"
    ),
    "organisation": re.compile(
        r"\b(?:ceo of|chief executive of|founder of|co-founder of|shares of|shares in|stake in|acquired by|bought by|"
        r"purchased by|owned by|employees of|spokesperson for|spokesman for|spokeswoman for|subsidiary of)\s+$"
    ),
    "place": re.compile(r"\b(?:in|near|city of|town of|village of|state of|province of|capital of)\s+$"),
    "work": re.compile(r"(?:\b(?:movie|film|novel|album|song|video game|sequel)\s+|[\"“])$"),
}
_AFTER_CUES = {
    "person": re.compile(
        r"^(?:\s+(?:himself|herself)\b|,?\s+who\b|\s+was born\b|,\s+born\b|\s+\(born\b|"
        r"['’]s\s+(?:wife|husband|mother|father|son|daughter)\b)"
    ),
    "organisation": re.compile(
        r"^(?:\s+(?:acquired|acquires|bought|buys|purchased|purchases|announced|announces|owns|shares|stock|"
        r"employees|headquarters|board|inc|corp|company|co|made a bid|agreed to (?:buy|acquire))\b|"
        r"['’]s\s+(?:\$[\d.,]+\s*\w*\s+)?(?:ceo|chief executive|founder|acquisition|purchase|bid|deal|shares|stock|"
        r"headquarters|board|subsidiary)\b|\s+is\s+headquartered\b|-owned\b)"
    ),
    "place": re.compile(r"^(?:-based\b|,\s+(?P<region>[A-Z][\w.]*(?:\s+[A-Z][\w.]*)?)|\s+residents\b)"),
    "work": re.compile(r"^(?:[\"”]|\s*\((?:19|20)\d\d\)|\s+(?:movie|film|trailer|soundtrack|sequel)\b)"),
}


def bare_word(word: str) -> str:
    """A word without the punctuation around it."""
    return word.strip(",;:()\"'“”‘’")


def is_region(text: str) -> bool:
    """Whether ``text`` is a country or a US state."""
    return text in COUNTRIES or text in US_STATES


def _person_shaped(words: list[str]) -> bool:
    """Two to four capitalised words (initials and particles allowed), no digits: "Niels B. Christiansen"."""
    if not 2 <= len(words) <= 4 or words[0] in _NOT_FIRST_NAMES or any(c.isdigit() for w in words for c in w):
        return False
    return all(
        w in _PARTICLES or (w[0].isupper() and (w[1:].replace("-", "").isalpha() or w[1:] == ".")) for w in words
    )


def _shape_leaning(name: str) -> str | None:
    """The kind a name's shape leans to without deciding it: an ambiguous city a place, "Best X" an award."""
    if name in CITIES_NAMED_LIKE_PEOPLE:  # their shape only leans to a place: the words around them decide
        return "place"
    words = name.split()
    if len(words) >= 2 and words[0] == "Best" and not any(bare_word(w) in _EVENT_WORDS for w in words):
        return "event"  # "Best Picture", but "Best Buy" is a company
    return None


def _kind_from_shape(name: str) -> str | None:
    """The kind a name's own shape says, or None when only its context can tell (or its shape only leans)."""
    if _shape_leaning(name):
        return None
    words = [bare_word(w) for w in name.split()]
    if "," in name:
        city, _, region = (part.strip() for part in name.partition(","))
        if is_region(region) or city in CITIES:
            return "place"
    if name in COUNTRIES or name in US_STATES or name in CITIES:
        return "place"
    if any(w in ORGANISATION_WORDS for w in words):
        return "organisation"
    if len(words) >= 2 and (words[-1] in _PLACE_WORDS or words[0] in _PLACE_FIRST_WORDS):
        return "place"
    if any(w in _EVENT_WORDS for w in words):
        return "event"
    if any(w in _WORK_WORDS for w in words):
        return "work"
    if len(words) == 1 and 2 <= len(name.rstrip(".").replace(".", "")) <= 5 and name.replace(".", "").isupper():
        return "organisation"  # an acronym: "NFL", "FIFA" (countries' acronyms are read above)
    return None


def name_kind(name: str, contexts: Sequence[str] = ()) -> str:
    """``person``, ``place``, ``organisation``, ``event``, ``work`` or ``other``: what a name is, without a model.

    Its own shape decides first: a country, a US state, a well-known city or "City, State" is a place; a name with
    an organisation's word ("Inc.", "Bank", "University", "FC", "Records", "Party", "Airlines", "Bros") an
    organisation; one ending in a place's word ("Stadium", "County", "River") or beginning with one ("Lake") a
    place; one with an event's word ("Cup", "Awards", "Open") or an award's "Best ..." an event; one with a work's
    word ("Film", "Album") a work; an acronym ("NFL") an organisation. Else the words around its mentions in
    ``contexts`` vote: "in X", "city of X", "X-based", "X, Florida" for a place; "Mr. X", "said X", "X, who",
    "X was born" for a person; "CEO of X", "acquired by X", "X bought", "X's CEO" for an organisation; "the movie
    X", "“X”", "X (2019)" for a work; two to four capitalised words without digits ("Simona Halep") count two votes
    for a person. The most votes win; none or a tie: ``other``.

    Example:
        >>> name_kind("Warner Bros"), name_kind("Tampa, Florida"), name_kind("Simona Halep"), name_kind("Soul")
        ('organisation', 'place', 'person', 'other')
        >>> name_kind("Facebook", ["Facebook bought Instagram.", "WhatsApp was acquired by Facebook in 2014."])
        'organisation'
        >>> name_kind("Soul", ["Pixar's “Soul” won the Oscar."]), name_kind("Meridia", ["She was born in Meridia."])
        ('work', 'place')
    """
    name = name.strip()
    shaped = _kind_from_shape(name)
    if shaped:
        return shaped
    votes: dict[str, float] = dict.fromkeys(("person", "organisation", "place", "work"), 0.0)
    person_shaped = _person_shaped([bare_word(w) for w in name.split()])
    votes["person"] += 2 * person_shaped
    leaning = _shape_leaning(name)
    if leaning:
        votes[leaning] = votes.get(leaning, 0) + 0.5  # "Phoenix" a place, "Best Actress" an award, unless told else
    pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w])")
    for text in contexts:
        if name not in text:
            continue
        for m in pattern.finditer(text):
            before, after = text[max(0, m.start() - 40) : m.start()].lower(), text[m.end() : m.end() + 40]
            for kind in [k for k in votes if k in _AFTER_CUES]:
                cue = _AFTER_CUES[kind].match(after if kind == "place" else after.lower())
                if kind == "place" and cue and cue["region"] and (person_shaped or not is_region(cue["region"])):
                    cue = None  # "X, Florida" is a place; "X, Tim Cook" is no cue, nor "Baker Mayfield, Oklahoma"
                cued_before = bool(_BEFORE_CUES[kind].search(before))
                if kind == "place" and name.startswith("The ") and before.endswith("in "):
                    cued_before = False  # "in The Shape of Water": a work, most often
                votes[kind] += cued_before + bool(cue)
    best = max(votes.values())
    winners = [kind for kind, n in votes.items() if n == best]
    return winners[0] if best and len(winners) == 1 else "other"


def place_level(name: str) -> str:
    """``country``, ``state`` or ``city`` (any other place; "New York" is a city): a place becomes a place of its
    level."""
    name = name.strip()
    if name in COUNTRIES:
        return "country"
    return "state" if name in US_STATES and name not in CITIES else "city"


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
            self._kinds[name] = _kind_from_shape(name.strip()) or name_kind(name, self._corpus)
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
