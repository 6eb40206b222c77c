"""The slots a contradiction turns on that are said in words: names, negation, roles and comparisons.

Pure text work, no model, like the figure slots (:mod:`~rageval_lc.facts.numbers`: numbers with units;
:mod:`~rageval_lc.facts.dates`: dates); both match words by :func:`~rageval_lc.facts.words.stem`. A name is
found in a text when each of its own words is, accents aside; a negation, or an antonym ("closed": not "open"),
bears on one word; two names may stand in each other's roles ("Microsoft acquired GitHub" / "GitHub acquired
Microsoft"); a comparison runs one way ("cheaper than").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from rageval_lc.facts import MONTHS, WEEKDAYS
from rageval_lc.facts.words import stem

__all__ = ["comparisons", "names", "negated_words", "role_swap", "same_name"]

# --- names ----------------------------------------------------------------------------------------

_NAME = re.compile(
    r"\b[A-Z][\w'’&.-]*[A-Za-z0-9](?:\s+(?:of\s+|de\s+|von\s+|van\s+|the\s+)?[A-Z][\w'’&.-]*[A-Za-z0-9])*"
    r"(?:\s+\d{1,2}\b(?![.,:]\d))?"  # "Pixelon 7", "Apollo 11"
)
COMMON_STARTS = frozenset(
    "the a an it its this that these those he she they we you i in on at by for from with as there their his her "
    "our my your after before during since when while if although however yes no additionally moreover furthermore "
    "also one two three first second third finally overall thus therefore then many most some several such both "
    "each all other another because table figure passage abstract background results methods conclusion note "
    "title summary source question answer according based not only its unlike like until despite use press select "
    "turn open close connect remove install insert check make sure ensure set go see note tap click choose enter "
    "follow read keep avoid do try treatment product description delete step warning caution important take give "
    "use apply store wash call ask contact stop start place allow wait drink eat add mix pour plug unplug charge "
    "replace clean visit consult".split()
)
_NOT_NAMES = frozenset([*MONTHS, *WEEKDAYS, "i"])


def names(text: str, context: str | None = None) -> list[str]:
    """Capitalised word runs that are names. A sentence's (or clause's) first word counts only when it is not a
    common opener and, given ``context`` (the other text of a pair), only when that text has it capitalised too.
    Months and weekdays are dates, not names.

    Example:
        >>> names("However, Canberra is the capital. Table 2: Sydney (NSW) is larger. Brisbane is not.")
        ['Canberra', 'Sydney', 'Brisbane']
        >>> names("Press the button. Canberra is far.", context="Canberra is the capital.")
        ['Canberra']
    """
    out = []
    for match in _NAME.finditer(text):
        words = match.group().split()
        before = text[: match.start()].rstrip()
        at_start = not before or before[-1] in ".!?:;(\"'\u201c\u2014" or before.endswith(("-", "\u2013"))
        first = words[0]
        if at_start and (
            first.lower() in COMMON_STARTS
            or (context is not None and not re.search(rf"\b{re.escape(first)}\b", context))
        ):
            words = words[1:]
        while words and words[0].lower() in ("of", "de", "von", "van", "the"):
            words = words[1:]
        words = [w for w in words if w.lower() not in _NOT_NAMES and w.lower().rstrip("s") not in _NOT_NAMES]
        run = " ".join(w for w in words if len(w) > 1 or w.isdigit())
        if run and not (run.isupper() and len(run) <= 5) and not run[0].isdigit():
            out.append(run)
    return list(dict.fromkeys(out))


_GENERIC_NAME_WORDS = frozenset(
    "the and of mount mt lake river saint st king queen prince princess president university college city county "
    "state republic north south east west new old great sir dr mr mrs ms lord lady general".split()
)


def same_name(name: str, text_names: list[str], text: str) -> bool:
    """Whether a name is found in a text: every specific word of it (stemmed) is among the text's words.

    Example:
        >>> same_name("Pierre Curie", ["Marie Curie", "Pierre"], "Marie Curie and Pierre")
        True
        >>> same_name("Pierre Curie", ["Marie Curie"], "Marie Curie won it.")
        False
        >>> same_name("Mount Kilimanjaro", ["Mount Kenya"], "Mount Kenya lies in Kenya.")
        False
    """
    text = _plain(" ".join([text, *text_names]))
    name = _plain(name)
    if name.lower() in text.lower():
        return True
    tokens = _token_stems(text)
    words = [w for w in re.findall(r"[\w'’]+", name) if len(w) > 1 or w.isdigit()]
    own = [stem(w) for w in words if stem(w) not in _GENERIC_NAME_WORDS]
    if own and all(w in tokens for w in own):
        return True
    if len(words) >= 2 and words[-1][:1].isupper() and stem(words[-1]) not in _GENERIC_NAME_WORDS:
        # a surname alone ("Hillenburg" for "Stephen Hillenburg"), unless another first name comes with it
        for match in re.finditer(rf"\b{re.escape(words[-1])}\b", text):
            before = re.search(r"([A-Z][\w'’-]*)\s+$", text[: match.start()])
            if before is None or before.group(1) in words:
                return True
    return False


@lru_cache(maxsize=4096)
def _token_stems(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in re.findall(r"[\w'’]+", text))


@lru_cache(maxsize=4096)
def _plain(text: str) -> str:
    """Accents dropped ("Résistance" -> "Resistance")."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


# --- polarity, roles, comparisons -------------------------------------------------------------------

NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "cannot", "without", "n't", "neither"})
_STOP = frozenset(
    "a an the of to in on at for and or is are was were be been being by with as it its this that these those "
    "has have had do does did from into than then there their they them he she his her which who what when "
    "where how also very can could would should will shall may might must any".split()
)


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


_NEGATION_SKIP = _STOP | frozenset(
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


_PASSIVE = re.compile(r"\b(?:was|were|is|are|been|being|be)\s+(?:\w+\s+)?\w+(?:ed|en|wn|ght|id|ld|ne)\s+by\b", re.I)


def role_swap(hypothesis: str, premise: str) -> list[str] | None:
    """The two names both sentences share, when they stand in the other roles: the same two names in the other
    order, both sentences in the same voice (or the same order in different voices). None otherwise.

    Example:
        >>> role_swap("Microsoft acquired GitHub.", "GitHub acquired Microsoft in 2018.")
        ['Microsoft', 'GitHub']
        >>> role_swap("GitHub was bought by Microsoft.", "Microsoft acquired GitHub in 2018.") is None
        True
    """
    ordered_h = names(hypothesis, premise)
    ordered_p = [n for n in names(premise, hypothesis) if any(n.lower() == h.lower() for h in ordered_h)]
    if len(ordered_h) != 2 or len(ordered_p) != 2 or any(len(n.split()) > 3 for n in ordered_h):
        return None
    a, b = ordered_h[0].lower(), ordered_h[1].lower()
    lowered = [n.lower() for n in ordered_p]
    if a not in lowered or b not in lowered:
        return None
    reversed_order = lowered.index(a) > lowered.index(b)
    voices_differ = bool(_PASSIVE.search(hypothesis)) != bool(_PASSIVE.search(premise))
    if reversed_order == voices_differ:
        return None
    between_h, between_p = _between(hypothesis, ordered_h), _between(premise, ordered_p)
    if between_h is None or between_p is None or any(_NOT_A_RELATION.search(t) for t in (between_h, between_p)):
        return None  # "X is the capital of Y" and "the capital of Y is X" say the same
    if converse_verbs(between_h, between_p):
        return None  # "France lost to Argentina" and "Argentina beat France" say the same
    return ordered_h


_NOT_A_RELATION = re.compile(  # a copula or a coordination between the two names: no roles to swap
    r"\b(?:is|are|was|were|be|been|became|become|becomes|remains|'s|and|or|&)\b|,", re.I
)
_CONVERSES = [
    ("beat beats defeated defeat defeats won", "lost lose loses"),
    ("sold sell sells", "bought buy buys purchased acquired"),
    ("lent lend lends loaned", "borrowed borrow borrows"),
    ("taught teach teaches tutored tutor", "learned studied student"),
    ("succeeded succeed replaced replace", "preceded precede"),
    ("gave give gives sent send sends", "received receive receives got"),
    ("employs employ employed hired", "works work worked"),
    ("owns own owned", "belongs belong belonged"),
    ("parent father mother", "child son daughter"),
    ("named appointed", "became joined"),
    ("invested", "received raised"),
    ("preceded", "followed"),
]


def converse_verbs(a: str, b: str) -> bool:
    """Whether two relation phrases are converses of each other ("lost to" / "beat", "bought" / "sold")."""
    wa, wb = set(a.lower().split()), set(b.lower().split())
    for one, two in _CONVERSES:
        x, y = set(one.split()), set(two.split())
        if (wa & x and wb & y) or (wa & y and wb & x):
            return True
    return False


def _between(text: str, pair: list[str]) -> str | None:
    low = text.lower()
    i, j = low.find(pair[0].lower()), low.find(pair[1].lower())
    if i < 0 or j < 0:
        return None
    first, second = (i, pair[0]) if i < j else (j, pair[1]), (j, pair[1]) if i < j else (i, pair[0])
    return text[first[0] + len(first[1]) : second[0]]


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
    return frozenset(stem(w) for w in words if w not in _STOP and w not in verbs)
