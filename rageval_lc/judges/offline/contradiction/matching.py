"""Slot by slot, what a response sentence says that a document text does not (:class:`SlotMatch`).

The sentence's numbers, dates and names the text lacks, and the text's the sentence lacks (its rivals), allowing
for what the text lets one work out (:func:`derived_quantities`: totals, differences, shares), for a people named
after a place and for the names a leading pronoun may stand for; a negation on one side only; a comparison that
runs the other way, or the values a text gives each side of one; two words that trade roles around a shared one.
The detector's verdicts (:mod:`~rageval_lc.judges.offline.contradiction.verdicts`) turn what these find into
conflicts; they read one :class:`SlotMatch` per document text and never the slots themselves.

Example:
    >>> from rageval_lc.judges.offline.contradiction.reading import EvidenceUnit, frame_words, read_slots
    >>> said = read_slots("The Berlin Wall fell in 1991.")
    >>> unit = EvidenceUnit(("0a",), "The Berlin Wall fell on 9 November 1989.", "sentence")
    >>> match = SlotMatch(said, frame_words(said.text, said.names), unit)
    >>> [d.describe() for d in match.dates[0]], [d.describe() for d in match.dates[1]], match.alignment
    (['1991'], ['9 November 1989'], 1.0)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cached_property, lru_cache

from rageval_lc.facts import ONES
from rageval_lc.facts.dates import Date, dates
from rageval_lc.facts.names import COMMON_STARTS, PASSIVE, names, role_swap, same_name
from rageval_lc.facts.numbers import Quantity, quantities, same_quantity
from rageval_lc.facts.polarity import Comparison
from rageval_lc.facts.words import stem
from rageval_lc.judges.offline.contradiction.reading import (
    CACHED_TEXTS,
    FRAME_STOP,
    EvidenceUnit,
    Slots,
    alignment,
    frame_words,
    read_slots,
)

__all__ = [
    "SlotMatch",
    "derived_quantities",
    "distinctive",
    "figures_stated_otherwise",
    "side_values",
    "unmatched_figures",
]


def unmatched_quantities(said: Slots, there: Slots) -> tuple[list[Quantity], list[Quantity]]:
    """(the sentence's quantities the text does not state nor let one work out, the text's quantities the sentence
    does not state)."""
    worked = [q for q in derived_quantities(there.text) if _asks_for(said.text, q)]
    stated = there.quantities + tuple(worked)
    new = [q for q in said.quantities if not any(same_quantity(q, e) for e in stated)]
    old = [e for e in there.quantities if not any(same_quantity(q, e) for q in said.quantities)]
    return new, old


_PART_OF = re.compile(  # "3 of the 12", "one in ten": in words, a part from one and a whole from two, to twelve
    rf"\b(?P<part>\d+|{'|'.join(ONES[1:13])})\s+(?:out\s+)?(?:of|in)\s+"
    rf"(?:the\s+|all\s+|these\s+|those\s+|every\s+)?(?P<whole>\d[\d,]*|{'|'.join(ONES[2:13])})\b",
    re.I,
)
_TOTAL_CUE = re.compile(
    r"\b(?:total|totals|totalled|totaled|in all|altogether|combined|together|overall|sum|all told)\b", re.I
)
_DIFFERENCE_CUE = re.compile(
    r"\b(?:difference|more|less|fewer|longer|shorter|higher|lower|larger|smaller|bigger|increased?|decreased?|rose|"
    r"fell|grew|dropped|gap|apart|later|earlier|by)\b",
    re.I,
)


def _asks_for(sentence: str, worked: Quantity) -> bool:
    """Whether a sentence speaks of what a worked-out quantity is: a total ("in all"), a difference ("more than",
    "rose by"); a share needs no word. Without one, "The building costs £48 million" is no restatement of £59
    million less £11 million."""
    if " + " in worked.text:
        return bool(_TOTAL_CUE.search(sentence))
    if " − " in worked.text:
        return bool(_DIFFERENCE_CUE.search(sentence))
    return True


_MAX_SUMMED = 6  # figures of a text whose totals and differences are worked out, at most
_SMALL = {w: i for i, w in enumerate(ONES[:13])}


@lru_cache(maxsize=CACHED_TEXTS)
def derived_quantities(text: str) -> tuple[Quantity, ...]:
    """Quantities a text lets one work out without saying them: the total and the difference of two amounts it
    gives in the same unit, and the share "3 of the 12" is (25 %). A sentence that states one of them restates
    the text ("a quarter of the patients"; "£70 million in all" from £59 million and £11 million).

    Example:
        >>> sorted(round(q.value, 1) for q in derived_quantities("3 of the 12 patients improved."))
        [25.0]
        >>> [q.text for q in derived_quantities("It costs £59 million plus £11 million for the site.")]
        ['£59 million + £11 million', '£59 million − £11 million']
    """
    out: list[Quantity] = []
    for match in _PART_OF.finditer(text):
        part, whole = (match.group(g).lower().replace(",", "") for g in ("part", "whole"))
        a, b = float(_SMALL.get(part, part)), float(_SMALL.get(whole, whole))
        if 0 < a < b:
            out.append(Quantity(100 * a / b, "percent", 0.1, False, "", match.group(), match.span()))
    plain = [q for q in quantities(text) if not q.bound]
    if len(plain) > _MAX_SUMMED:
        plain = []  # a text of many figures: any total could be met by chance
    for i, a in enumerate(plain):
        for b in plain[i + 1 :]:
            if a.dimension != b.dimension:
                continue
            step, rough = max(a.step, b.step), a.approximate or b.approximate
            out.append(Quantity(a.value + b.value, a.dimension, step, rough, "", f"{a.text} + {b.text}", a.span))
            if a.value != b.value:
                difference = abs(a.value - b.value)
                out.append(Quantity(difference, a.dimension, step, rough, "", f"{a.text} − {b.text}", a.span))
    return tuple(out)


def unmatched_dates(said: Slots, there: Slots) -> tuple[list[Date], list[Date]]:
    new = [d for d in said.dates if not any(d.agrees_with(e) for e in there.dates)]
    old = [e for e in there.dates if not any(d.agrees_with(e) for d in said.dates)]
    return new, old


def _unmatched_names(said: Slots, there: Slots, context: str = "") -> tuple[list[str], list[str]]:
    """(the sentence's names the document text lacks, the document text's names the sentence lacks); ``context``:
    text whose names a pronoun of the document text may stand for."""
    meant = names(context) if context else []
    new = [
        n
        for n in said.names
        if not same_name(n, [*there.names, *meant], there.text) and not _demonym(n, [*there.names, *meant])
    ]
    lower = set(re.findall(r"\b[a-z][\w'’-]*", f"{said.text} {there.text}"))
    old = [
        n
        for n in there.names
        if not same_name(n, list(said.names), said.text)
        and not (len(n.split()) == 1 and n.lower() in lower)
        and _could_be_rival(n)
    ]
    return new, old


_ADJECTIVAL = re.compile(r"(?:ian|ean|ican|ese|ish)$", re.I)


def _could_be_rival(name: str) -> bool:
    """Whether a capitalised run can stand for another filler of a name's role: not a menu path or heading of many
    words ("Settings Picture Expert Settings"), not shouted text ("DO NOT"), not an opening word ("To",
    "Cancelling"), not an adjective of nationality ("Australian", "South Korean")."""
    words = name.split()
    if len(words) > 3 or (len(words) > 1 and any(w.isupper() and len(w) > 1 for w in words)):
        return False
    first = words[0].lower()
    if first in COMMON_STARTS or first in FRAME_STOP or first.endswith("ing"):
        return False
    return not _ADJECTIVAL.search(words[-1])


def _demonym(name: str, there: Sequence[str]) -> bool:
    """Whether a one-word name is a people or language named after a place the text names ("Icelanders" for
    Iceland, "Canadians" for Canada, "Japanese" for Japan)."""
    if " " in name or len(name) < 5:
        return False
    low = name.lower()
    places = {w.lower() for n in there for w in n.split() if len(w) >= 4}
    return any(low != p and low.startswith(p[:-1]) and len(low) - len(p) <= 4 for p in places)


def _meant_found(said: Slots, there: Slots, context: str = "") -> bool:
    """For a sentence opening with a pronoun: whether one of the names it may stand for is in the document text."""
    if not said.meant:
        return True
    meant = [*there.names, *(names(context) if context else [])]
    return any(same_name(n, meant, there.text) for n in said.meant)


def _negation_flip(said: Slots, there: Slots, frame: set[str]) -> tuple[str, str] | None:
    """(the side that negates, the word) when a frame word is negated on one side only, and the other side
    negates nothing ("it is not safe to drive" and "do not drive" agree)."""
    if said.negated and there.negated:
        return None
    there_frame = frame_words(there.text)
    for word in sorted((there.negated - said.negated) & frame):
        return "document", word
    for word in sorted((said.negated - there.negated) & there_frame):
        return "sentence", word
    return None


def _comparison_conflict(said: Slots, there: Slots) -> tuple[Comparison, Comparison] | None:
    for a in said.comparisons:
        for b in there.comparisons:
            if a.measure != b.measure:
                continue
            same_sides = bool(a.left & b.left) and bool(a.right & b.right)
            swapped = bool(a.left & b.right) and bool(a.right & b.left)
            if (same_sides and not swapped and a.direction != b.direction) or (
                swapped and not same_sides and a.direction == b.direction
            ):
                return a, b
    return None


def _nearest_date(date: Date, others: Sequence[Date]) -> Date:
    return min(others, key=lambda d: _date_distance(d, date))


def _date_distance(a: Date, b: Date) -> float:
    return sum(
        abs((x or 0) - (y or 0)) * w for x, y, w in ((a.year, b.year, 400), (a.month, b.month, 31), (a.day, b.day, 1))
    )


def _scope(q: Quantity) -> str:
    """What a quantity is counted over: "day" for "two tablets a day", "" for one amount. A daily count is never
    compared with the count of one dose, nor a monthly price with a price (a monthly with a yearly one is)."""
    parts = q.dimension.split("/")
    return parts[1] if len(parts) > 1 else ""


def _family(q: Quantity) -> str:
    return q.dimension.split("/")[0].split("_")[0]


#: which quantities a comparison's measure is read from ("age" and "time" compare dates: earlier is older)
_MEASURE_FAMILIES = {
    "price": {"usd", "eur", "gbp", "jpy"}, "weight": {"mass"}, "size": {"length", "area", "volume", "bytes"},
    "height": {"length"}, "length": {"length", "time"}, "width": {"length"}, "depth": {"length"},
    "level": {"length", "percent", ""}, "speed": {"speed"}, "heat": {"temperature"}, "power": {"power"},
    "amount": {"usd", "eur", "gbp", "jpy", "", "percent", "mass", "volume", "bytes", "length", "area"},
}  # fmt: skip
_DATE_MEASURES = {"age": -1, "time": 1}  # older = an earlier date; later = a later date


def side_values(text: str, left: frozenset[str], right: frozenset[str], measure: str) -> tuple | None:
    """The values a text gives for each side of a comparison: each number (or date) goes to the side named last
    before it in its clause."""
    words = [(m.start(), stem(m.group())) for m in re.finditer(r"[\w'’-]+", text)]
    if measure in _DATE_MEASURES:
        found = [
            (d.span[0], (d.year or 0) * 400 + (d.month or 0) * 31 + (d.day or 0), d.describe()) for d in dates(text)
        ]
        sign = _DATE_MEASURES[measure]
        found = [(start, sign * value, words_) for start, value, words_ in found]
    elif measure in _MEASURE_FAMILIES:
        families = _MEASURE_FAMILIES[measure]
        found = [(q.span[0], q.value, q.describe()) for q in quantities(text) if _family(q) in families and not q.bound]
    else:
        return None
    sides: dict[str, tuple[float, str]] = {}
    for start, value, described in found:
        named = [
            (pos, "left" if w in left else "right") for pos, w in words if pos < start and (w in left or w in right)
        ]
        if not named:
            continue
        pos, side = named[-1]
        if re.search(r"[.;]", text[pos:start]) or side in sides:
            continue
        sides[side] = (value, described)
    if len(sides) < 2:
        return None
    return sides["left"], sides["right"]


def _closest(said: Quantity, old: list[Quantity]) -> Quantity:
    """The document's quantity the sentence's one most likely restates: the same number in another unit first,
    then the same dimension and kind of bound, nearest in value."""
    return min(
        old,
        key=lambda q: (
            _number_part(q) != _number_part(said),
            q.dimension != said.dimension,
            q.bound != said.bound,
            abs(q.value - said.value),
        ),
    )


def _ordered_frame(text: str) -> list[str]:
    seen: dict[str, None] = {}
    for word in re.findall(r"[A-Za-z][A-Za-z'’-]*", text):
        stems = frame_words(word)
        for s in stems:
            seen.setdefault(s)
    return list(seen)


def _crossed_roles(sentence: str, document: str, frame: set[str]) -> list[str] | None:
    """Two words that trade places around a shared word in otherwise the same statement, both in the same voice
    ("bile is produced by the gallbladder and stored in the liver" against "... by the liver and stored in the
    gallbladder"; "seals hunt polar bears" against "polar bears hunt seals"). None otherwise."""
    h, d = _ordered_frame(sentence), _ordered_frame(document)
    shared = [w for w in h if w in set(d)]
    if len(shared) < 3 or len(shared) < 0.8 * len(set(h)) or len(shared) < 0.8 * len(set(d)) or len(set(d)) > 12:
        return None  # two short statements of the same words only
    if bool(PASSIVE.search(sentence)) != bool(PASSIVE.search(document)):
        return None
    where_h = {w: i for i, w in enumerate(w for w in h if w in shared)}
    where_d = {w: i for i, w in enumerate(w for w in d if w in shared)}
    for pivot in shared:
        before_h = {w for w in shared if where_h[w] < where_h[pivot]}
        after_h = {w for w in shared if where_h[w] > where_h[pivot]}
        before_d = {w for w in shared if where_d[w] < where_d[pivot]}
        after_d = {w for w in shared if where_d[w] > where_d[pivot]}
        crossed_one, crossed_two = before_h & after_d, after_h & before_d
        once = all(h.count(w) == 1 and d.count(w) == 1 for w in crossed_one | crossed_two)
        once = once and not any(_comma_between(t, crossed_one, crossed_two) for t in (sentence, document))
        once = once and all(_occurrences(t, crossed_one | crossed_two) for t in (sentence, document))
        if crossed_one and crossed_two and once and not _coordinated(sentence, crossed_one | crossed_two):
            return [
                _word_for(sentence, min(crossed_one, key=where_h.get)),
                _word_for(sentence, min(crossed_two, key=where_h.get)),
            ]
    return None


def _comma_between(text: str, one: set[str], two: set[str]) -> bool:
    """Whether a comma stands between a word of ``one`` and a word of ``two`` (they are in different clauses)."""
    spots = [(m.start(), stem(m.group())) for m in re.finditer(r"[A-Za-z][A-Za-z'’-]*|,", text)]
    a = [i for i, w in spots if w in one]
    b = [i for i, w in spots if w in two]
    commas = [i for i, w in spots if w == ","]
    return bool(a and b) and any(min(a[0], b[0]) < c < max(a[0], b[0]) for c in commas)


def _occurrences(text: str, stems: set[str]) -> bool:
    """Whether each of the stems occurs once in the text (a word said twice has no single role)."""
    found = [stem(w) for w in re.findall(r"[A-Za-z][A-Za-z'’-]*", text)]
    return all(found.count(s) == 1 for s in stems)


def _coordinated(text: str, stems: set[str]) -> bool:
    """Whether two of the words stand side by side joined by "and", "or" or a comma (an order that means nothing)."""
    words = re.findall(r"[A-Za-z][A-Za-z'’-]*|,", text)
    for a, joiner, b in zip(words, words[1:], words[2:], strict=False):
        if joiner.lower() in ("and", "or", ",") and stem(a) in stems and stem(b) in stems:
            return True
    return False


def _word_for(text: str, word_stem: str) -> str:
    return next((w for w in re.findall(r"[A-Za-z][A-Za-z'’-]*", text) if stem(w) == word_stem), word_stem)


def _first_name(text: str) -> str:
    found = names(text) if text else []
    return found[0] if found else ""


def _resolved(text: str, subject: str) -> str:
    """The text with a leading "it", "he", "she" or "they" replaced by ``subject`` (when there is one)."""
    if not subject:
        return text
    return re.sub(r"^(\s*(?:(?:later|then|also|in \w+ \d{4}|in \d{4}),?\s+)?)(?:it|he|she|they)\b", rf"\g<1>{subject}",
                  text, count=1, flags=re.I)  # fmt: skip


def distinctive(q: Quantity) -> bool:
    """A number precise enough that two texts giving it mean the same measurement (1,642; 42.195), not 25."""
    digits = re.sub(r"\D", "", _number_part(q))
    return len(digits.strip("0")) >= 3


def _number_part(q: Quantity) -> str:
    match = re.search(r"[\d.,\s]*\d|\b[a-z]+(?:[\s-][a-z]+)*\b", q.text.lower())
    return re.sub(r"[,\s]", "", match.group()) if match else q.text


def unmatched_figures(said: Slots, texts: Sequence[Slots]) -> bool:
    """Whether a number or date of the sentence is in none of ``texts`` (every figure any of them holds counts)."""
    pooled = Slots(
        "", tuple(q for t in texts for q in t.quantities), tuple(d for t in texts for d in t.dates), (), frozenset(), ()
    )
    return bool(unmatched_quantities(said, pooled)[0] or unmatched_dates(said, pooled)[0])


class SlotMatch:
    """How a response sentence's slots (``said``, its frame words ``frame``) match one document text (``unit``):
    each part worked out when first asked for, then remembered.

    ``names``, ``quantities``, ``dates``: (the sentence's the text lacks, the text's the sentence lacks);
    ``meant_found``: a leading pronoun's name is in the text; ``alignment``: the share of the sentence's frame
    words the text holds; ``focus``: the share of the text's frame words the sentence holds; ``negation_flip``,
    ``comparison_conflict``, :meth:`swapped_roles`: what turns the other way.
    """

    def __init__(self, said: Slots, frame: set[str], unit: EvidenceUnit) -> None:
        self.said, self.frame, self.unit = said, frame, unit

    @cached_property
    def there(self) -> Slots:
        return read_slots(self.unit.text)

    @cached_property
    def names(self) -> tuple[list[str], list[str]]:
        return _unmatched_names(self.said, self.there, self.unit.context)

    @cached_property
    def meant_found(self) -> bool:
        return _meant_found(self.said, self.there, self.unit.context)

    @cached_property
    def quantities(self) -> tuple[list[Quantity], list[Quantity]]:
        return unmatched_quantities(self.said, self.there)

    @cached_property
    def dates(self) -> tuple[list[Date], list[Date]]:
        return unmatched_dates(self.said, self.there)

    @cached_property
    def alignment(self) -> float:
        return alignment(self.frame, self.unit.text)

    @cached_property
    def focus(self) -> float:
        """How much of the text the sentence holds: a long text of many facts that shares a few words is no rival."""
        there_frame = frame_words(self.unit.text, self.there.names)
        return 1.0 if not self.frame or not there_frame else len(there_frame & self.frame) / len(there_frame)

    @cached_property
    def negation_flip(self) -> tuple[str, str] | None:
        return _negation_flip(self.said, self.there, self.frame)

    @cached_property
    def comparison_conflict(self) -> tuple[Comparison, Comparison] | None:
        return _comparison_conflict(self.said, self.there)

    @cached_property
    def holds_every_fact(self) -> bool:
        """Every number, date and name of the sentence is in the text, with the same polarity."""
        return (
            not self.quantities[0]
            and not self.dates[0]
            and not self.names[0]
            and self.meant_found
            and self.negation_flip is None
        )

    @cached_property
    def context_means_another(self) -> bool:
        """The text opens with a pronoun for a name (its context's first) that is none of the sentence's names."""
        context, said = self.unit.context, self.said
        return bool(context and said.names and not same_name(_first_name(context), list(said.names), said.text))

    def swapped_roles(self, *, resolve_pronouns: bool = False) -> list[str] | None:
        """Two names or words in each other's roles; ``resolve_pronouns``: a leading "it", "she", ... read on each
        side as the name it stands for."""
        said, unit = self.said, self.unit
        if resolve_pronouns:
            swapped = role_swap(_resolved(said.text, said.subject), _resolved(unit.text, _first_name(unit.context)))
        else:
            swapped = role_swap(said.text, unit.text)
        return swapped or _crossed_roles(said.text, unit.text, self.frame)

    def quantity_rival(self) -> tuple[str, Quantity, Quantity] | None:
        """The first of the sentence's quantities the text states otherwise: (``number`` or ``unit``, the sentence's,
        the text's), the text's being the one the sentence's most likely restates; None when none is."""
        new_q, old_q = self.quantities
        for q in new_q:
            rival = self.quantity_rival_of(q, old_q)
            if rival is not None:
                return rival[0], q, rival[1]
        return None

    @staticmethod
    def quantity_rival_of(q: Quantity, old: Sequence[Quantity]) -> tuple[str, Quantity] | None:
        """Among a text's quantities ``old`` (those the sentence does not state), the one that gives ``q`` otherwise:
        (``number`` or ``unit``, that quantity), or None when none measures the same kind of thing."""
        rivals = [
            e
            for e in old
            if _family(e) == _family(q)
            and bool(_scope(e)) == bool(_scope(q))
            and not (e.value == q.value and e.dimension == q.dimension)  # one value, worded as a bound on one side
        ]
        if not rivals:
            return None
        e = _closest(q, rivals)
        return ("unit" if _number_part(q) == _number_part(e) else "number"), e

    def date_rival(self) -> tuple[Date, Date] | None:
        """(the sentence's first date the text lacks, the text's date nearest to it), or None."""
        new_d, old_d = self.dates
        if not (new_d and old_d):
            return None
        return new_d[0], _nearest_date(new_d[0], old_d)


def figures_stated_otherwise(text: str, reference: str, question: str = "") -> list[str]:
    """The numbers (with their units) and dates of ``text`` that ``reference`` gives otherwise, each as "X (the
    reference: Y)": a quantity of the same kind with another value (in any unit: "5 km" is "5,000 metres"), a date
    where the reference gives another. As the detector reads a document: a figure of the reference that ``text``
    states too is not set against its other figures ("$6.04 billion vs. $5.37 billion a year before" gives the
    reference's $6.04 billion), and a quantity of a kind the reference does not give is no conflict (a date is set
    against the reference's dates, whatever they date: a reference answers one question); a bare year does not state
    the reference's day ("the 2020 draft was held on 8 May 2020" against "18 November 2020"). A figure the
    ``question`` gives (a date as precisely) is the question's, not the answer's claim; a year read as a number on
    one side ("in 1187, which") and as a date on the other ("in 1187 following") is one figure.

    Example:
        >>> figures_stated_otherwise("It fell in 1991 after a 5 km march.", "It fell in 1989; they marched 5,000 m.")
        ['1991 (the reference: 1989)']
        >>> figures_stated_otherwise("About 3 percent voted.", "3% of them voted.")
        []
    """
    match = SlotMatch(read_slots(text), set(), EvidenceUnit((), reference, "passage"))
    asked = read_slots(question)
    there = match.there
    found = []
    for q in match.quantities[0]:
        year = _year_of(q)
        if any(same_quantity(q, e) for e in asked.quantities) or (year and year in {d.year for d in there.dates}):
            continue
        rival = SlotMatch.quantity_rival_of(q, match.quantities[1])
        if rival is not None:
            found.append(f"{q.describe()} (the reference: {rival[1].describe()})")
    said = match.said.dates
    unstated = [e for e in there.dates if not any(d.agrees_with(e) and _precision(d) >= _precision(e) for d in said)]
    for d in match.dates[0] if unstated else ():
        asked_too = any(d.agrees_with(e) and _precision(e) >= _precision(d) for e in asked.dates)
        if asked_too or (d.year and d.year in {_year_of(q) for q in there.quantities}):
            continue
        found.append(f"{d.describe()} (the reference: {_nearest_date(d, unstated).describe()})")
    return found


def _year_of(q: Quantity) -> int | None:
    """The year a bare whole number could be ("1187"), else None."""
    whole = not q.dimension and not q.bound and float(q.value).is_integer()
    return int(q.value) if whole and 1000 <= q.value <= 2099 else None


def _precision(date: Date) -> int:
    """How much of a date is given: year, month and day each count one."""
    return sum(part is not None for part in (date.year, date.month, date.day))
