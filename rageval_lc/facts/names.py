"""Names and their kinds: what a name is (a person, a place, an organisation, an event, a work, another name), read
from its own shape and from the words around its mentions, without a model.

One typer, read two ways: :func:`name_kind` gives the likeliest coarse kind (RGB's counterfactual passages swap a
name for another of its kind), :func:`name_type` a finer kind ("organisation:school", "city", "place:county") or
None whenever the cues are not all of one kind (the training twins change a name only where they are sure). Both
read the same shape (:func:`kind_from_shape`) and the same cues (:func:`cued_kinds`). And the names a text holds
(:func:`names`), whether a name is found in a text in any of its forms (:func:`same_name`), and two names standing in
each other's roles (:func:`role_swap`), which the judge's contradiction detector and the twins read.

Example:
    >>> name_kind("Warner Bros"), name_type("Bergen County", []), name_type("Blinn College", [])
    ('organisation', 'place:county', 'organisation:school')
    >>> place_level("Norway"), kind_from_shape("Battle of Wake Island"), kind_from_shape("Times Square")
    ('country', 'event', 'place:square')
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from rageval_lc.facts.dates import MONTHS, WEEKDAYS
from rageval_lc.facts.places import CITIES, CITIES_NAMED_LIKE_PEOPLE, COUNTRIES, REGIONS_ABROAD, US_STATES
from rageval_lc.facts.words import stem

__all__ = [
    "COMMON_STARTS",
    "EVENT_WORDS",
    "NAME_KINDS",
    "ORGANISATION_GROUPS",
    "ORGANISATION_WORDS",
    "PASSIVE",
    "PLACE_FIRST_WORDS",
    "PLACE_WORDS",
    "REGION_WORDS",
    "ROLES",
    "TITLES",
    "VENUE_WORDS",
    "WORK_WORDS",
    "bare_word",
    "coarse_kind",
    "converse_verbs",
    "cued_kinds",
    "is_region",
    "kind_from_shape",
    "name_kind",
    "name_type",
    "names",
    "place_level",
    "role_swap",
    "same_name",
]

#: The coarse kinds a name is told to be (:func:`name_kind`).
NAME_KINDS = ("person", "place", "organisation", "event", "work", "other")

#: Words that make a name an organisation, by the kind of organisation they name (a school for a school).
ORGANISATION_GROUPS: dict[str, frozenset[str]] = {
    group: frozenset(words.split())
    for group, words in {
        "school": "University College Institute School Academy",
        "company": """Inc Inc. Corp Corp. Corporation Company Co Co. Ltd Ltd. LLC PLC plc GmbH Group Holdings Partners
            Investments Capital Bank Bancorp Airlines Airways Motors Technologies Technology Systems Services Labs
            Laboratory Laboratories Pharmaceuticals Records Studios Studio Productions Films Pictures Entertainment
            Media Publishing Publishers Press Comics Network Networks Communications Broadcasting Software
            Electronics Industries Enterprises Insurance Bros Bros. Brothers Times Post Journal Magazine""",
        "public body": """Party Council Committee Commission Department Ministry Agency Authority Parliament Congress
            Senate Court Army Navy""",  # not "Board" nor "Office": "Facebook Board of Directors", "Microsoft Office"
        "association": """Association Society Foundation Organization Organisation Union League Federation Club FC
            F.C. Church Institution""",
        "venue": "Hospital Museum Library Center Centre",
    }.items()
}
#: A word of an organisation's name -> its group (:data:`ORGANISATION_GROUPS`).
ORGANISATION_WORDS: dict[str, str] = {w: group for group, words in ORGANISATION_GROUPS.items() for w in words}
#: Words that make a name a place when it ends with them ("Raymond James Stadium", "Bergen County").
PLACE_WORDS = frozenset(
    """City County Province District Region Island Islands River Lake Mountain Mountains Mount Valley Bay Beach
    Coast Peninsula Desert Ocean Sea Gulf Canyon Harbor Harbour Falls Heights Springs Hills Street Avenue Road
    Square Bridge Stadium Arena Airport Park Forest Borough Parish Township Village Strait Creek""".split()
)
#: Words that make a name a place when it begins with them ("Lake Tahoe", "Fort Worth").
PLACE_FIRST_WORDS = frozenset("Mount Mt. Lake Port Fort Saint St.".split())
#: Words that make a name an event or an award ("U.S. Open", "Golden Globe Awards", "Battle of Hastings").
EVENT_WORDS = frozenset(
    """Award Awards Prize Cup Championship Championships Open Games Olympics Festival Series Trophy Bowl Tour War
    Battle Siege Campaign Expedition Revolution Crisis Act Treaty Election Marathon Season Edition Summit
    Conference""".split()
)
#: Words that make a name a work ("The Lego Movie").
WORK_WORDS = frozenset("Film Movie Album Song Show Feature Novel Book".split())
#: Words that open the name of a region rather than of a town ("Southeast Asia").
REGION_WORDS = frozenset(
    """North South East West Northern Southern Eastern Western Central Southeast Southwest Northeast Northwest Upper
    Lower""".split()
)
#: Words of a building or a venue: such a name is no town ("Madison Square Garden").
VENUE_WORDS = frozenset(
    """Museum World Park Centre Center Hall Stadium Arena Theatre Theater Hotel Mall Airport Station Bridge Tower
    Building Church Cathedral Castle Palace House Mansion Gallery Zoo Garden Gardens School""".split()
)
#: Titles written before a person's name.
TITLES = tuple(
    """Mr Mrs Ms Miss Dr Prof Professor Sir Dame Lord Lady President Senator Governor Mayor King Queen Prince Princess
    Pope General Colonel Captain Judge Justice Rev Reverend Chancellor Minister Bishop Archbishop""".split()
)
#: What a person is said to be ("the astronomer X", "X is an American actor").
ROLES = tuple(
    """actor actress singer songwriter rapper director author writer novelist poet player footballer cricketer coach
    manager producer composer musician guitarist drummer bassist vocalist artist painter sculptor journalist
    politician professor scientist physicist chemist biologist astronomer philosopher economist historian founder
    co-founder ceo chairman chairwoman wife husband son daughter brother sister father mother widow uncle aunt nephew
    niece grandson granddaughter dancer comedian presenter host filmmaker screenwriter playwright designer architect
    engineer inventor entrepreneur businessman businesswoman lawyer attorney physician surgeon nurse soldier pilot
    astronaut athlete boxer wrestler swimmer golfer quarterback pitcher goalkeeper striker model cosmologist
    mathematician lyricist conductor pianist violinist cartoonist animator illustrator photographer star""".split()
)
_PARTICLES = frozenset("de da van von der del della la le di du bin al ibn dos das".split())
_NOT_FIRST_NAMES = frozenset("The A An This That North South East West New Best".split())
_SCHOOL_FIRST = frozenset(["University", "Bank", "Institute"])  # an organisation's word that opens its name


def bare_word(word: str) -> str:
    """A word without the punctuation around it."""
    return word.strip(",;:()\"'“”‘’")


def is_region(text: str) -> bool:
    """Whether ``text`` is a country or a US state."""
    return text in COUNTRIES or text in US_STATES


def place_level(name: str) -> str:
    """``country``, ``state`` or ``city`` (any other place; "New York" is a city): a place becomes a place of its
    level."""
    name = name.strip()
    if name in COUNTRIES:
        return "country"
    return "state" if name in US_STATES and name not in CITIES else "city"


def coarse_kind(kind: str | None) -> str:
    """A fine kind (:func:`kind_from_shape`, :func:`name_type`) as one of :data:`NAME_KINDS`."""
    if kind is None:
        return "other"
    if kind in ("country", "state", "city") or kind.startswith("place"):
        return "place"
    return kind.partition(":")[0]


def _head(words: list[str]) -> str:
    """The word a name is a name of: the last before its "of" ("Battle of Hastings"), else its last."""
    return words[words.index("of") - 1] if "of" in words[1:] else words[-1]


def kind_from_shape(name: str) -> str | None:
    """The kind a name's own shape says, finely, or None when only its context can tell.

    A "City, State", a country, a US state or a city of the lists is ``city``, ``country`` or ``state`` (a city
    also a person's name, "Phoenix", and "Best ..." are left to their context); else its head word (the last, or
    the last before "of") decides: an organisation's word ``organisation:<group>`` ("Blinn College":
    ``organisation:school``), an event's ``event``, a place's ``place:<word>`` ("Bergen County":
    ``place:county``), a work's ``work``; else an organisation's, an event's or a work's word anywhere in it (an
    organisation's word opening a name counts for University, Bank and Institute only); else a name opening with a
    region's word is ``place:region`` ("Southeast Asia", not "South Korean"), one opening with a place's word
    ``place:<word>`` ("Lake Tahoe"), an acronym ("NFL") ``organisation:acronym``.

    Example:
        >>> [kind_from_shape(n) for n in ("Tampa, Florida", "Georgia", "Phoenix", "University of Texas")]
        ['city', 'country', None, 'organisation:school']
        >>> [kind_from_shape(n) for n in ("Club World Cup", "Open University", "Southeast Asia", "FIFA")]
        ['event', 'organisation:school', 'place:region', 'organisation:acronym']
    """
    name = name.strip()
    if "," in name:
        city, _, region = (part.strip() for part in name.partition(","))
        if is_region(region) or city in CITIES:
            return "city"
    if name in CITIES_NAMED_LIKE_PEOPLE:  # their shape only leans to a place: the words around them decide
        return None
    if name in COUNTRIES:
        return "country"
    if name in US_STATES or name in REGIONS_ABROAD:
        return "state"
    if name in CITIES:
        return "city"
    words = [bare_word(w) for w in name.split()]
    if not words:
        return None

    if len(words) >= 2 and words[0] == "Best" and not any(w in EVENT_WORDS for w in words):
        return None  # an award ("Best Picture") or a company ("Best Buy"): the words around it tell

    def of_word(word: str, opening: bool, head: bool) -> str | None:
        if word in ORGANISATION_WORDS and (not opening or word in _SCHOOL_FIRST):
            return f"organisation:{ORGANISATION_WORDS[word]}"
        if word in EVENT_WORDS:
            return "event"
        if word in PLACE_WORDS and head and not opening:
            return f"place:{word.lower()}"
        return "work" if word in WORK_WORDS else None

    head = _head(words)
    kind = of_word(head, head is words[0] and "of" not in words, head=True)
    for i, word in enumerate(words):
        kind = kind or of_word(word, i == 0, head=False)
    if kind:
        return kind
    if len(words) >= 2 and words[0] in REGION_WORDS and not re.search(r"(?:an|ese|ish)$", words[-1]):
        return "place:region"
    if len(words) >= 2 and words[0] in PLACE_FIRST_WORDS:
        return f"place:{words[0].rstrip('.').lower()}"
    if len(words) == 1 and 2 <= len(name.rstrip(".").replace(".", "")) <= 5 and name.replace(".", "").isupper():
        return "organisation:acronym"
    return None


def _person_shaped(words: list[str]) -> bool:
    """Two to four capitalised words (initials and particles allowed), no digits: "Niels B. Christiansen"."""
    if not 2 <= len(words) <= 4 or words[0] in _NOT_FIRST_NAMES or any(c.isdigit() for w in words for c in w):
        return False
    return all(
        w in _PARTICLES or (w[0].isupper() and (w[1:].replace("-", "").isalpha() or w[1:] == ".")) for w in words
    )


# Cues around a mention: the text just before it and just after it.
_PERSON_BEFORE = re.compile(
    r"(?:\b(?:" + "|".join(TITLES) + r"|said|says|chief executive)\.?|\b(?:" + "|".join(ROLES) + r")s?,?)\s+$", re.I
)
_PERSON_AFTER = re.compile(
    r"^(?:\s*\((?:born|b\.|née|né|c\.)|\s*\(\s*\d{1,2}?\s*\w*\s*\d{4}\s*[–-]|,?\s+(?:who|whose)\b|\s+(?:was|is) born\b|"
    r",\s+born\b|\s+(?:himself|herself)\b|['’]s\s+(?:wife|husband|mother|father|son|daughter)\b|"
    r"\s+(?:wrote|writes|told|married|died)\b|\s+(?:is|was) (?:an?|the) (?:[A-Z][\w-]+ )?(?:"
    + "|".join(ROLES)
    + r")\b)"
)
_ORGANISATION_BEFORE = re.compile(
    r"\b(?:ceo of|chief executive of|founder of|co-founder of|shares of|shares in|stake in|acquired by|bought by|"
    r"purchased by|owned by|employees of|spokesperson for|spokesman for|spokeswoman for|subsidiary of)\s+$",
    re.I,
)
_ORGANISATION_AFTER = re.compile(
    r"^(?:\s+(?:acquired|acquires|bought|buys|purchased|purchases|announced|announces|owns|shares|stock|"
    r"employees|headquarters|board|inc|corp|company|co|made a bid|agreed to (?:buy|acquire))\b|"
    r"['’]s\s+(?:\$[\d.,]+\s*\w*\s+)?(?:ceo|chief executive|founder|acquisition|purchase|bid|deal|shares|stock|"
    r"headquarters|board|subsidiary)\b|\s+is\s+headquartered\b|-owned\b)",
    re.I,
)
#: A place's cue before it: a strong one names a place ("born in", "the city of": its kind), a weak one may
#: ("in", "near").
_PLACE_BEFORE = re.compile(
    r"\b(?:(?P<strong>born|located|situated|based|headquartered|lives|lived|died|raised|settled|moved|grew up|"
    r"native)\s+(?:in|to|near|at|of)|(?P<kind>city|town|village|capital|state|province|county|country|region|"
    r"island|district|borough|suburb|municipality|republic|kingdom|neighborhood|neighbourhood)\s+of)"
    r"\s+(?:the\s+)?$|\b(?P<weak>in|near)\s+$",
    re.I,
)
_PLACE_AFTER = re.compile(r"^(?:-based\b|,\s+(?P<region>[A-Z][\w.]*(?:\s+[A-Z][\w.]*)?)|\s+residents\b)")
_PLACE_KIND = {"town": "city", "village": "city", "capital": "city", "republic": "country", "kingdom": "country"}
_WORK_BEFORE = re.compile(r"(?:\b(?:movie|film|novel|album|song|video game|sequel)\s+|[\"“])$", re.I)
_WORK_AFTER = re.compile(r"^(?:[\"”]|\s*\((?:19|20)\d\d\)|\s+(?:movie|film|trailer|soundtrack|sequel)\b)", re.I)


def cued_kinds(name: str, contexts: Sequence[str]) -> Counter[str]:
    """What the words around each mention of ``name`` in ``contexts`` say it is, counted: ``person`` ("Mr. X",
    "the actor X", "said X", "X, who", "X (born 1950)", "X married"; not "X says": a company says things too),
    ``organisation`` ("CEO of X", "acquired by X", "X bought", "X's CEO"), ``work`` ("the movie X", "“X”", "X
    (2019)"), a place strongly (``place:strong``: "born in X", "X-based", "X, Florida", "X residents"; and its
    kind when the cue names one: ``kind:city`` for "the town of X", ``kind:county`` for "the county of X") or
    weakly (``place:weak``: "in X", "near X").

    Example:
        >>> sorted(cued_kinds("Meridia", ["She was born in Meridia.", "He works near Meridia."]).items())
        [('place:strong', 1), ('place:weak', 1)]
    """
    cues: Counter[str] = Counter()
    pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w])")
    person_shaped = _person_shaped([bare_word(w) for w in name.split()])
    for text in contexts:
        if name not in text:
            continue
        for m in pattern.finditer(text):
            before, after = text[max(0, m.start() - 60) : m.start()], text[m.end() : m.end() + 60]
            cues["person"] += bool(_PERSON_BEFORE.search(before)) + bool(_PERSON_AFTER.match(after))
            cues["organisation"] += bool(_ORGANISATION_BEFORE.search(before)) + bool(_ORGANISATION_AFTER.match(after))
            cues["work"] += bool(_WORK_BEFORE.search(before)) + bool(_WORK_AFTER.match(after))
            place = _PLACE_BEFORE.search(before)
            if place and name.startswith("The ") and place["weak"]:
                place = None  # "in The Shape of Water": a work, most often
            if place:
                cues["place:weak" if place["weak"] else "place:strong"] += 1
                if place["kind"]:
                    cues[f"kind:{_PLACE_KIND.get(place['kind'].lower(), place['kind'].lower())}"] += 1
            after_place = _PLACE_AFTER.match(after)
            region = after_place["region"] if after_place else None
            if after_place and not (
                region and (person_shaped or not (is_region(region) or is_region(region.split()[0])))
            ):  # "X, Florida" is a place; "X, Tim Cook" is no cue, nor "Baker Mayfield, Oklahoma"
                cues["place:strong"] += 1
    return +cues


def name_kind(name: str, contexts: Sequence[str] = ()) -> str:
    """``person``, ``place``, ``organisation``, ``event``, ``work`` or ``other``: the likeliest kind of a name.

    Its own shape decides first (:func:`kind_from_shape`, coarsely). Else the cues around its mentions in
    ``contexts`` vote (:func:`cued_kinds`: a place's strong and weak cues alike); two to four capitalised words
    without digits ("Simona Halep") count two votes for a person, a city also a person's name ("Phoenix") half a
    vote for a place and an award's "Best ..." half a vote for an event. The most votes win; none or a tie:
    ``other``.

    Example:
        >>> name_kind("Warner Bros"), name_kind("Tampa, Florida"), name_kind("Simona Halep"), name_kind("Soul")
        ('organisation', 'place', 'person', 'other')
        >>> name_kind("Facebook", ["Facebook bought Instagram.", "WhatsApp was acquired by Facebook in 2014."])
        'organisation'
        >>> name_kind("Soul", ["Pixar's “Soul” won the Oscar."]), name_kind("Meridia", ["She was born in Meridia."])
        ('work', 'place')
    """
    name = name.strip()
    shaped = kind_from_shape(name)
    if shaped:
        return coarse_kind(shaped)
    cues = cued_kinds(name, contexts)
    votes = {
        "person": cues["person"] + 2.0 * _person_shaped([bare_word(w) for w in name.split()]),
        "organisation": float(cues["organisation"]),
        "place": cues["place:strong"] + cues["place:weak"] + 0.5 * (name in CITIES_NAMED_LIKE_PEOPLE),
        "work": float(cues["work"]),
    }
    words = name.split()
    if len(words) >= 2 and words[0] == "Best":
        votes["event"] = 0.5  # "Best Picture", unless told else ("Best Buy" is a company)
    best = max(votes.values())
    winners = [kind for kind, n in votes.items() if n == best]
    return winners[0] if best and len(winners) == 1 else "other"


def name_type(name: str, contexts: Sequence[str]) -> str | None:
    """A name's kind where its shape and the cues around it (:func:`cued_kinds`, a place's strong cues only) agree:
    ``person``, ``organisation:<group>`` (school, company, public body, association, venue), ``country``,
    ``state``, ``city``, ``place:<word>`` ("Bergen County": ``place:county``) or ``place`` (any city of the lists
    is a city here, "Phoenix" too, unless a cue says a person); None when no kind or several are cued, for an
    event or a work, a people's adjective ("South African"), a building ("Madison Square Garden" is no town), and
    for a person or an organisation of one word or more than five (too often a surname, an acronym or a menu
    item).

    Example:
        >>> name_type("John Smith", ["The writer John Smith (born 1950) lives in Leeds."])
        'person'
        >>> name_type("Bergen County", []), name_type("Settings", ["Open Settings."]), name_type("Phoenix", [])
        ('place:county', None, 'city')
        >>> name_type("Phoenix", ["The Oscar went to Phoenix, who played the Joker."])  # a city and a person
    """
    words = name.split()
    shaped = kind_from_shape(name) or ("city" if name.strip() in CITIES else None)  # "Phoenix" too: cues may undo it
    if shaped in ("event", "work", "organisation:acronym"):
        return None
    found = {shaped} if shaped else set()
    cues = cued_kinds(name, contexts)
    if cues["person"]:
        found.add("person")
    if not any(coarse_kind(kind) == "place" for kind in found):
        kinds = {kind[5:] for kind in cues if kind.startswith("kind:")}
        found |= kinds or ({"place"} if cues["place:strong"] else set())
    if any(k.startswith("place") for k in found) and re.search(r"(?:an|ese|ish)$", words[-1]):
        return None  # "South African", "Chinese": a people's adjective, not a place
    if len(found) > 1 and "place" in found:
        found.discard("place")  # "located in Nicosia" and "the city of Nicosia": a city
    if len(found) != 1 or (found & {"place", "city"} and any(w in VENUE_WORDS for w in words)):
        return None
    kind = found.pop()
    if (kind == "person" or kind.startswith("organisation")) and not 2 <= len(words) <= 5:
        return None
    return kind


# --- the names of a text, and their roles ------------------------------------------------------------

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


#: A passive clause with its agent ("was acquired by", "is made by"): who does what is said the other way round.
PASSIVE = re.compile(r"\b(?:was|were|is|are|been|being|be)\s+(?:\w+\s+)?\w+(?:ed|en|wn|ght|id|ld|ne)\s+by\b", re.I)


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
    voices_differ = bool(PASSIVE.search(hypothesis)) != bool(PASSIVE.search(premise))
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
