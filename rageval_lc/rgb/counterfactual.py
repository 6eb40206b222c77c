"""Counterfactual passages for RGB's counterfactual-robustness testbed: a passage with every mention of the answer
replaced by a wrong value of the same kind, written in the same form as each mention (issue 36, item 1).

An answer is a **date** (a month name with a year, and a day when given: "July 21, 2017", "Jul. 21, 2017",
"21 July 2017", "June 2020"), a **number** (with its currency, scale word or unit: "$10.4 billion", "1,280
metres", "45%"; or in words, 2 to 99: "three", "twenty-one", "two million") or a **name** (anything else), and a
name is a person, a place, an organisation, an event, a work or another name (:func:`name_kind`: from its own
shape and the words around its mentions, no model). The wrong value:

* a date moves by 1-9 years (and its day, when it has one, by 1-20 days within the month), each mention
  rewritten in its own spelling ("Jul. 21, 2017" → "Jul. 9, 2012");
* a number is scaled by a factor of 0.5-0.8 or 1.25-2.0 and written with the same decimals, separators, currency,
  scale word and unit ("$10.4 billion" → "$6.7 billion", "1,280 metres" → "1,920 metres"); a number in words stays
  in words ("three titles" → "five titles"), and a count of 2-99 stays within 2-99 so that its digits and its words
  get the same value; a bare count ("3") is stated by "3 goals" and "three of them" too;
* a name is another name of the same kind and shape from the pool given (the other questions' answers: as many
  words, the same "City, State" comma), never one the passage already names; a place stays a place of its level (a
  country another country, a US state another state, a city another city: the pool's, else one of
  :data:`COUNTRIES`, :data:`US_STATES`, :data:`CITIES`; "Tampa, Florida" another city of Florida when the pool has
  no "City, State"); a person's surname, a place's city or an organisation's name without its "Inc." standing
  alone becomes the other's. With no candidate of its kind the passage is not made, and ``problem`` says why
  (rather than a company becoming a city).

Every choice comes from ``random.Random(seed)``, so the same seed gives the same passages.

Example:
    >>> cf = make_counterfactual("The tower, finished on July 21, 2017, is 1,280 metres tall.", "July 21 2017", seed=1)
    >>> cf.wrong, cf.passage
    ('July 8 2024', 'The tower, finished on July 8, 2024, is 1,280 metres tall.')
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = [
    "CITIES",
    "COUNTRIES",
    "NAME_KINDS",
    "US_STATES",
    "Counterfactual",
    "NameKinds",
    "answer_kind",
    "date_parts",
    "find_mentions",
    "make_counterfactual",
    "name_kind",
    "number_parts",
]

#: The months' names, lower-cased.
MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH = r"(?P<month>(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?)"
_DATE_PATTERNS = [
    re.compile(rf"\b{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?(?P<comma>,?)\s+(?P<year>\d{{4}})\b", re.I),
    re.compile(rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH}(?P<comma>,?)\s+(?P<year>\d{{4}})\b", re.I),
    re.compile(rf"\b{_MONTH}(?P<comma>,?)\s+(?P<year>\d{{4}})\b", re.I),
]
_NUMBER = re.compile(
    r"(?P<currency>[$€£¥])?(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<decimals>\d+))?"
    r"(?P<rest>\s*(?:%|percent|billion|million|thousand|trillion|[a-zA-Z]+)?)"
)
_ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
).split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_SCALES = frozenset("hundred thousand million billion trillion dozen".split())
# A number in words, 2 to 99 ("three", "twelve", "twenty-one"), with a scale word or a unit after it ("two million",
# "three goals"). "one" alone is no number here: it is a pronoun as often ("one of them") — but "one million" is.
_TENS_WORD, _DIGIT_WORD, _TEEN_WORD = "|".join(_TENS[2:]), "|".join(_ONES[1:10]), "|".join(reversed(_ONES[2:]))
_NUMBER_WORDS = re.compile(
    rf"(?<![\w-])(?P<words>(?i:(?:{_TENS_WORD})(?:[- ](?:{_DIGIT_WORD}))?|{_TEEN_WORD}|"
    r"one(?=\s+(?:hundred|thousand|million|billion|trillion)\b)))(?![\w-])(?P<rest>\s*(?:%|percent|[a-z]+)?)"
)


#: Countries (and the short names news writes), so that a country answer becomes another country.
COUNTRIES = frozenset(
    """Afghanistan Albania Algeria Andorra Angola Argentina Armenia Australia Austria Azerbaijan Bahamas Bahrain
    Bangladesh Barbados Belarus Belgium Belize Benin Bhutan Bolivia Botswana Brazil Brunei Bulgaria Burundi Cambodia
    Cameroon Canada Chad Chile China Colombia Comoros Congo Croatia Cuba Cyprus Czechia Denmark Djibouti Dominica
    Ecuador Egypt Eritrea Estonia Eswatini Ethiopia Fiji Finland France Gabon Gambia Georgia Germany Ghana Greece
    Grenada Guatemala Guinea Guyana Haiti Honduras Hungary Iceland India Indonesia Iran Iraq Ireland Israel Italy
    Jamaica Japan Jordan Kazakhstan Kenya Kiribati Kosovo Kuwait Kyrgyzstan Laos Latvia Lebanon Lesotho Liberia
    Libya Liechtenstein Lithuania Luxembourg Madagascar Malawi Malaysia Maldives Mali Malta Mauritania Mauritius
    Mexico Micronesia Moldova Monaco Mongolia Montenegro Morocco Mozambique Myanmar Namibia Nauru Nepal Netherlands
    Nicaragua Niger Nigeria Norway Oman Pakistan Palau Palestine Panama Paraguay Peru Philippines Poland Portugal
    Qatar Romania Russia Rwanda Samoa Senegal Serbia Seychelles Singapore Slovakia Slovenia Somalia Spain Sudan
    Suriname Sweden Switzerland Syria Taiwan Tajikistan Tanzania Thailand Togo Tonga Tunisia Turkey Turkmenistan
    Tuvalu Uganda Ukraine Uruguay Uzbekistan Vanuatu Venezuela Vietnam Yemen Zambia Zimbabwe England Scotland Wales
    U.S. US USA U.K. UK""".split()
) | frozenset(
    [
        "United States",
        "United Kingdom",
        "New Zealand",
        "South Africa",
        "South Korea",
        "North Korea",
        "Saudi Arabia",
        "Sri Lanka",
        "Costa Rica",
        "El Salvador",
        "Czech Republic",
        "Dominican Republic",
        "Sierra Leone",
        "Burkina Faso",
        "Ivory Coast",
        "Northern Ireland",
        "United Arab Emirates",
        "Papua New Guinea",
    ]
)

#: The US states, each with well-known cities of its own (its capital and largest ones), so that "Tampa, Florida"
#: can become another city of Florida when the corpus names none.
US_STATES: dict[str, tuple[str, ...]] = {
    "Alabama": ("Montgomery", "Birmingham", "Mobile"),
    "Alaska": ("Juneau", "Anchorage", "Fairbanks"),
    "Arizona": ("Phoenix", "Tucson", "Glendale", "Mesa"),
    "Arkansas": ("Little Rock", "Fayetteville"),
    "California": ("Sacramento", "Los Angeles", "San Diego", "San Francisco", "San Jose", "Oakland", "Fresno"),
    "Colorado": ("Denver", "Boulder", "Aurora"),
    "Connecticut": ("Hartford", "Bridgeport", "Stamford"),
    "Delaware": ("Dover", "Wilmington"),
    "Florida": ("Tallahassee", "Miami", "Tampa", "Orlando", "Jacksonville"),
    "Georgia": ("Atlanta", "Savannah", "Augusta"),
    "Hawaii": ("Honolulu", "Hilo"),
    "Idaho": ("Boise", "Pocatello"),
    "Illinois": ("Springfield", "Chicago", "Peoria"),
    "Indiana": ("Indianapolis", "Bloomington"),
    "Iowa": ("Des Moines", "Davenport"),
    "Kansas": ("Topeka", "Wichita"),
    "Kentucky": ("Frankfort", "Louisville", "Lexington"),
    "Louisiana": ("Baton Rouge", "New Orleans", "Shreveport"),
    "Maine": ("Augusta", "Portland", "Bangor"),
    "Maryland": ("Annapolis", "Baltimore"),
    "Massachusetts": ("Boston", "Worcester", "Cambridge"),
    "Michigan": ("Lansing", "Detroit", "Flint"),
    "Minnesota": ("Saint Paul", "Minneapolis", "Duluth"),
    "Mississippi": ("Jackson", "Biloxi"),
    "Missouri": ("Jefferson City", "Kansas City", "St. Louis"),
    "Montana": ("Helena", "Billings"),
    "Nebraska": ("Lincoln", "Omaha"),
    "Nevada": ("Carson City", "Las Vegas", "Reno"),
    "New Hampshire": ("Concord", "Manchester"),
    "New Jersey": ("Trenton", "Newark", "East Rutherford"),
    "New Mexico": ("Santa Fe", "Albuquerque"),
    "New York": ("Albany", "New York City", "Buffalo", "Rochester"),
    "North Carolina": ("Raleigh", "Charlotte", "Durham"),
    "North Dakota": ("Bismarck", "Fargo"),
    "Ohio": ("Columbus", "Cleveland", "Cincinnati"),
    "Oklahoma": ("Oklahoma City", "Tulsa"),
    "Oregon": ("Salem", "Portland", "Eugene"),
    "Pennsylvania": ("Harrisburg", "Philadelphia", "Pittsburgh"),
    "Rhode Island": ("Providence", "Newport"),
    "South Carolina": ("Columbia", "Charleston"),
    "South Dakota": ("Pierre", "Sioux Falls"),
    "Tennessee": ("Nashville", "Memphis", "Knoxville"),
    "Texas": ("Austin", "Houston", "Dallas", "San Antonio", "Arlington"),
    "Utah": ("Salt Lake City", "Provo"),
    "Vermont": ("Montpelier", "Burlington"),
    "Virginia": ("Richmond", "Norfolk"),
    "Washington": ("Olympia", "Seattle", "Spokane"),
    "West Virginia": ("Charleston", "Huntington"),
    "Wisconsin": ("Madison", "Milwaukee", "Green Bay"),
    "Wyoming": ("Cheyenne", "Casper"),
}

#: Well-known cities of the world (and the US cities of :data:`US_STATES`), so that a city becomes a city.
_WORLD_CITIES = """London Paris Berlin Rome Madrid Tokyo Beijing Moscow Athens Sydney Melbourne Toronto Montreal
    Vancouver Dublin Edinburgh Manchester Liverpool Glasgow Vienna Prague Amsterdam Brussels Lisbon Istanbul Cairo
    Delhi Mumbai Shanghai Seoul Bangkok Barcelona Munich Hamburg Milan Naples Oslo Stockholm Copenhagen Helsinki
    Warsaw Budapest Nairobi Lagos Johannesburg Dubai Doha Jakarta Manila Sochi Pyeongchang Nagano Turin Beirut
    Jerusalem Tehran Baghdad Karachi Lahore Dhaka Hanoi Taipei Osaka Kyoto Auckland Wellington Lima Santiago Bogota
    Caracas Havana Brasilia Geneva Zurich Marseille Lyon Florence Venice Atlanta Dallas Houston Seattle Denver
    Boston Chicago Miami Detroit""".split()
_WORLD_CITIES += ["New York", "Los Angeles", "Rio de Janeiro", "Buenos Aires", "Mexico City", "Hong Kong", "Cape Town"]
CITIES = frozenset([*_WORLD_CITIES, *(city for cities in US_STATES.values() for city in cities)])

#: The kinds a name is told to be (:func:`name_kind`).
NAME_KINDS = ("person", "place", "organisation", "event", "work", "other")

# Words that make a name an organisation wherever they stand ("Warner Bros", "University of Texas").
_ORGANISATION_WORDS = frozenset(
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


def _bare(word: str) -> str:
    return word.strip(",;:()\"'“”‘’")


def _is_region(text: str) -> bool:
    return text in COUNTRIES or text in US_STATES


def _person_shaped(words: list[str]) -> bool:
    """Two to four capitalised words (initials and particles allowed), no digits: "Niels B. Christiansen"."""
    if not 2 <= len(words) <= 4 or words[0] in _NOT_FIRST_NAMES or any(c.isdigit() for w in words for c in w):
        return False
    return all(
        w in _PARTICLES or (w[0].isupper() and (w[1:].replace("-", "").isalpha() or w[1:] == ".")) for w in words
    )


def _kind_from_shape(name: str) -> str | None:
    """The kind a name's own shape says, or None when only its context can tell."""
    words = [_bare(w) for w in name.split()]
    if "," in name:
        city, _, region = (part.strip() for part in name.partition(","))
        if _is_region(region) or city in CITIES:
            return "place"
    if name in COUNTRIES or name in US_STATES or name in CITIES:
        return "place"
    if any(w in _ORGANISATION_WORDS for w in words):
        return "organisation"
    if len(words) >= 2 and (words[-1] in _PLACE_WORDS or words[0] in _PLACE_FIRST_WORDS):
        return "place"
    if any(w in _EVENT_WORDS for w in words) or (len(words) >= 2 and words[0] == "Best"):
        return "event"  # "Best Picture": an award's category
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
    votes = dict.fromkeys(("person", "organisation", "place", "work"), 0)
    person_shaped = _person_shaped([_bare(w) for w in name.split()])
    votes["person"] += 2 * person_shaped
    pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w])")
    for text in contexts:
        if name not in text:
            continue
        for m in pattern.finditer(text):
            before, after = text[max(0, m.start() - 40) : m.start()].lower(), text[m.end() : m.end() + 40]
            for kind in votes:
                cue = _AFTER_CUES[kind].match(after if kind == "place" else after.lower())
                if kind == "place" and cue and cue["region"] and (person_shaped or not _is_region(cue["region"])):
                    cue = None  # "X, Florida" is a place; "X, Tim Cook" is no cue, nor "Baker Mayfield, Oklahoma"
                cued_before = bool(_BEFORE_CUES[kind].search(before))
                if kind == "place" and name.startswith("The ") and before.endswith("in "):
                    cued_before = False  # "in The Shape of Water": a work, most often
                votes[kind] += cued_before + bool(cue)
    best = max(votes.values())
    winners = [kind for kind, n in votes.items() if n == best]
    return winners[0] if best and len(winners) == 1 else "other"


def _place_level(name: str) -> str:
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


@dataclass(frozen=True)
class Counterfactual:
    """A counterfactual passage, the wrong value written as the answer's first form, how many mentions were
    replaced, and why it was not built (``problem``; the passage is then the original)."""

    passage: str
    wrong: str
    replaced: int
    problem: str = ""


def _month_index(word: str) -> int | None:
    word = word.lower().rstrip(".")
    return next(
        (i for i, name in enumerate(MONTHS) if name.startswith(word[:3]) and word in (name, name[:3], name[:4])), None
    )


def date_parts(text: str) -> tuple[int, int | None, int] | None:
    """(month 1-12, day or None, year) of a date written alone, else None.

    Example:
        >>> date_parts("Jul. 21, 2017"), date_parts("June 2020"), date_parts("Tampa")
        ((7, 21, 2017), (6, None, 2020), None)
    """
    for pattern in _DATE_PATTERNS:
        m = pattern.fullmatch(text.strip())
        if m and _month_index(m["month"]) is not None:
            day = m.groupdict().get("day")
            return _month_index(m["month"]) + 1, int(day) if day else None, int(m["year"])
    return None


def number_parts(text: str) -> tuple[str, float, int, str] | None:
    """(currency, value, decimals, what follows) of a number written alone, else None.

    Example:
        >>> number_parts("$10.4 billion"), number_parts("1,280 metres"), number_parts("Norway")
        (('$', 10.4, 1, ' billion'), ('', 1280.0, 0, ' metres'), None)
        >>> number_parts("twenty-one"), number_parts("two million")
        (('', 21.0, 0, ''), ('', 2.0, 0, ' million'))
    """
    m = _NUMBER.fullmatch(text.strip())
    if not m:
        words = _NUMBER_WORDS.fullmatch(text.strip())
        return ("", float(_words_value(words["words"])), 0, words["rest"]) if words else None
    value = float(m["digits"].replace(",", "") + ("." + m["decimals"] if m["decimals"] else ""))
    return m["currency"] or "", value, len(m["decimals"] or ""), m["rest"] or ""


def _words_value(words: str) -> int:
    """The value of a number in words: "twenty-one" → 21."""
    parts = re.split(r"[- ]", words.lower())
    return sum(_TENS.index(w) * 10 if w in _TENS else _ONES.index(w) for w in parts)


def _in_words(value: int, like: str) -> str:
    """``value`` (2-99) in words, capitalised and joined ("twenty-one", "twenty one") as ``like`` is."""
    tens, ones = divmod(value, 10)
    text = _ONES[value] if value < 20 else _TENS[tens] + (("-" if " " not in like else " ") + _ONES[ones]) * bool(ones)
    return text.capitalize() if like[:1].isupper() else text


def _same_unit(found: str, wanted: str) -> bool:
    """Whether a mention's unit (what follows its number) states the answer's: the same, or any word but a scale or a
    percent when the answer is a bare count ("3" is stated by "3 goals" and "three of them", not by "3 million")."""
    found, wanted = found.strip().lower(), wanted.strip().lower()
    return found == wanted or (not wanted and found not in _SCALES and found not in ("%", "percent"))


def answer_kind(answer: str) -> str:
    """``date``, ``number`` or ``name``.

    Example:
        >>> answer_kind("Dec. 1, 2017"), answer_kind("$6.3 billion"), answer_kind("Simona Halep")
        ('date', 'number', 'name')
    """
    if date_parts(answer):
        return "date"
    if number_parts(answer):
        return "number"
    return "name"


def find_mentions(passage: str, answer: str) -> list[tuple[int, int]]:
    """Where the answer stands in the passage, in any of its forms: a date in any spelling of the same day (or
    month), a number with or without thousands separators or in words (2 to 99: "three", "twenty-one"; with a
    scale word: "two million"), a name as written (case-insensitive).

    Example:
        >>> find_mentions("On 21 July 2017, and again on Jul 21, 2017.", "July 21 2017")
        [(3, 15), (30, 42)]
        >>> find_mentions("Three goals: 3 of them in May.", "3")
        [(0, 11), (13, 17)]
    """
    kind = answer_kind(answer)
    spans: list[tuple[int, int]] = []
    if kind == "date":
        target = date_parts(answer)
        for pattern in _DATE_PATTERNS:
            for m in pattern.finditer(passage):
                if _month_index(m["month"]) is None or any(s <= m.start() < e for s, e in spans):
                    continue
                parts = date_parts(m.group(0))
                if parts is not None and parts == target:
                    spans.append(m.span())
    elif kind == "number":
        _, value, _, rest = number_parts(answer)  # type: ignore[misc]
        for m in [*_NUMBER.finditer(passage), *_NUMBER_WORDS.finditer(passage)]:
            found = number_parts(m.group(0))
            if found and abs(found[1] - value) < 1e-9 and _same_unit(found[3], rest):
                spans.append(m.span())
    else:
        spans = [m.span() for m in re.finditer(rf"(?<!\w){re.escape(answer)}(?!\w)", passage, re.I)]
    return sorted(spans)


def _write_date(mention: str, month: int, day: int | None, year: int) -> str:
    """``mention`` (a date) with its month, day and year replaced, in its own spelling."""
    for pattern in _DATE_PATTERNS:
        m = pattern.fullmatch(mention)
        if not m:
            continue
        written = m["month"]
        name = MONTHS[month - 1]
        if written.rstrip(".").lower() in (MONTHS[_month_index(written)][:3], MONTHS[_month_index(written)][:4]):
            name = name[: len(written.rstrip("."))]
        name = name.capitalize() if written[0].isupper() else name
        name += "." if written.endswith(".") else ""
        out = mention
        spans = sorted(
            (
                (m.span(g), value)
                for g, value in (("month", name), ("day", str(day)), ("year", str(year)))
                if m.groupdict().get(g) is not None
            ),
            reverse=True,
        )
        for (start, end), value in spans:
            out = out[:start] + value + out[end:]
        return out
    return mention


def _new_count(value: int, factor: float) -> int:
    """A whole number scaled by ``factor`` and rounded, never itself nor under 1; a count of 2-99 stays within 2-99,
    so that its digits and its words (:func:`_in_words`) get the same new value."""
    low, high = (2, 99) if 2 <= value <= 99 else (1, float("inf"))
    return next(
        n
        for n in (round(value * factor), round(value / factor), value + 1, value - 1)
        if n != value and low <= n <= high
    )


def _write_number(mention: str, factor: float) -> str:
    """``mention`` (a number) scaled by ``factor``, in its own form: digits with the same decimals, separators,
    currency and unit, words as words ("three goals" → "five goals")."""
    m = _NUMBER.fullmatch(mention)
    currency, value, decimals, rest = number_parts(mention)  # type: ignore[misc]
    if m is None:
        words = _NUMBER_WORDS.fullmatch(mention)
        return _in_words(_new_count(int(value), factor), words["words"]) + rest  # type: ignore[index]
    if decimals == 0:
        new = _new_count(int(value), factor)
        text = f"{new:,}" if "," in m["digits"] else str(new)
    else:
        text = f"{value * factor:,.{decimals}f}" if "," in m["digits"] else f"{value * factor:.{decimals}f}"
    return f"{currency}{text}{rest}"


def _short_name(name: str, kind: str) -> str | None:
    """The part of a name that names it alone: a person's last word, a place's part before its comma, an
    organisation's name without its organisation's words ("Fidelity Investments" → "Fidelity"); else None."""
    words = name.split()
    if "," in name and kind == "place":
        return name.split(",")[0].strip()
    if kind == "person" and len(words) >= 2:
        return words[-1]
    if kind == "organisation":
        core = [w for w in words if _bare(w) not in _ORGANISATION_WORDS and w not in ("The", "of", "&", "and")]
        return " ".join(core) if core and len(core) < len(words) and answer_kind(" ".join(core)) == "name" else None
    return None


def _with_short_mentions(passage: str, spans: list[tuple[int, int]], short: str) -> list[tuple[int, int]]:
    """``spans`` with the mentions of ``short`` alone (outside them) added."""
    alone = [
        m.span()
        for m in re.finditer(rf"(?<!\w){re.escape(short)}(?!\w)", passage, re.I)
        if not any(s <= m.start() < e for s, e in spans)
    ]
    return sorted(spans + alone)


def _known_names(name: str, level: str) -> list[str]:
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


def make_counterfactual(
    passage: str,
    answer: str | Sequence[str],
    *,
    seed: int = 0,
    pool: Sequence[str] = (),
    avoid: str = "",
    kinds: Callable[[str], str] | None = None,
) -> Counterfactual:
    """The passage with every mention of ``answer`` (a string, or spellings of one value) replaced by one wrong
    value of the same kind (see the module docstring); ``pool``: candidate names for a name answer; ``avoid``: more
    text whose names are never chosen (a question's other passages, so that all of them get the same name);
    ``kinds``: what tells a name's kind (a :class:`NameKinds` over the corpus); None: :func:`name_kind` over the
    passage and ``avoid``."""
    forms = [answer] if isinstance(answer, str) else list(answer)
    first = forms[0]
    kind = answer_kind(first)
    rng = random.Random(f"{seed}:{first}")
    spans = sorted({s for form in forms for s in find_mentions(passage, form)})
    if not spans:
        return Counterfactual(passage, "", 0, "the passage does not mention the answer")
    short = None
    if kind == "date":
        month, day, year = date_parts(first)  # type: ignore[misc]
        new_year = year + rng.choice([-1, 1]) * rng.randint(1, 9)
        new_day = None if day is None else (day + rng.randint(1, 20) - 1) % 28 + 1
        if new_day == day:
            new_day = None if day is None else day % 28 + 1
        write = lambda mention: _write_date(mention, month, new_day, new_year)  # noqa: E731
    elif kind == "number":
        factor = rng.uniform(0.5, 0.8) if rng.random() < 0.5 else rng.uniform(1.25, 2.0)
        write = lambda mention: _write_number(mention, factor)  # noqa: E731
    else:
        kind_of = kinds or (lambda name: name_kind(name, [passage, avoid]))
        name_of = kind_of(first)
        level = _place_level(first) if name_of == "place" else ""
        shape = (len(first.split()), "," in first)
        named = f"{passage} {avoid}".lower()

        def fits(p: str) -> bool:
            return (
                (len(p.split()), "," in p) == shape
                and p.lower() not in named
                and p.lower() != first.lower()
                and answer_kind(p) == "name"
                and kind_of(p) == name_of
                and (not level or _place_level(p) == level)
            )

        candidates = sorted({p for p in pool if fits(p)})
        listed = level in ("country", "state") or first in CITIES or "," in first
        if not candidates and level and listed:  # a place of the lists: a city of the same state first
            candidates = [p for p in _known_names(first, level) if fits(p)]
            if "," in first:
                state = first.partition(",")[2].strip()
                candidates = [p for p in candidates if p.endswith(f", {state}")] or candidates
        if not candidates:
            words = f"{shape[0]} word{'s' * (shape[0] > 1)}{', City, State' if shape[1] else ''}"
            what = {"other": "other name", "place": f"{level if level != 'city' else 'place'}"}.get(name_of, name_of)
            return Counterfactual(passage, "", 0, f"no other name of its kind ({what}) and shape ({words}) in the pool")
        other = rng.choice(candidates)
        short, other_short = _short_name(first, name_of), _short_name(other, name_of)
        if short:  # a surname, a city or a company's name alone is the answer too: it becomes the other's
            spans = _with_short_mentions(passage, spans, short)
        write = lambda mention: other if len(mention) > len(short or "") else (other_short or other)  # noqa: E731
    out = passage
    for start, end in reversed(spans):
        out = out[:start] + write(passage[start:end]) + out[end:]
    wrong = write(first)
    left = [form for form in forms if find_mentions(out, form)]
    if kind == "name" and short and re.search(rf"(?<!\w){re.escape(short)}(?!\w)", out, re.I):
        left.append(short)
    if left:
        return Counterfactual(passage, wrong, 0, f"the answer is still there after the edit ({left[0]!r})")
    return Counterfactual(out, wrong, len(spans))
