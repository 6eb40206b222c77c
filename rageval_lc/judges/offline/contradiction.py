"""The offline judge's contradiction detector: is a response sentence contradicted by the documents?

A verdict of its own, apart from the support model fitted on RAGBench (whose hallucinations are nearly all
additions). Two kinds of evidence, each speaking only where the rest of the sentence *aligns* with the
document text (most of its other content words are there), so that an unrelated passage never changes a
verdict:

* **slot checks** (:mod:`~rageval_lc.judges.offline.slots`): a number with its unit, a date, a name, a negation,
  who did what to whom, or a comparison that differs between the sentence and an aligned document sentence,
  window of sentences or passage — while no aligned document sentence states it as it is;
* **the NLI model's** contradiction probability against the aligned pairs it scored (single document sentences,
  a window around the closest one), at least ``threshold`` and above its entailment probability.

The threshold was set for precision on a development set of our own (``benchmarks/contradiction_dev.py``),
never on RAGBench.

Example:
    >>> document = [("0a", "Canberra is the capital city of Australia."), ("0b", "Sydney is its largest city.")]
    >>> units = evidence_units([document])
    >>> find_conflict("The capital of Australia is Sydney.", units).detail
    'says Sydney; 0a says Canberra'
    >>> find_conflict("Canberra is Australia's capital.", units) is None
    True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from rageval_lc.judges.offline.slots import MONTHS, UNITS, Date, Quantity, dates, quantities, same_quantity, stem
from rageval_lc.judges.offline.word_slots import (
    ANTONYMS,
    COMMON_STARTS,
    NEGATIONS,
    Comparison,
    comparisons,
    names,
    negated_words,
    role_swap,
    same_name,
)

__all__ = [
    "Conflict",
    "EvidenceUnit",
    "alignment",
    "clauses",
    "evidence_units",
    "find_conflict",
    "frame_words",
    "keys_label",
    "nli_conflict",
    "said_verbatim",
    "stating_sentence",
]

#: Share of a sentence's content words (names, numbers and dates aside) a document text must hold to be compared.
MIN_ALIGNMENT = 0.6
#: Stricter for a negation, which turns on one word.
MIN_NEGATION_ALIGNMENT = 0.8
#: Share of a document sentence's frame words the response sentence must hold for a name, role or negation
#: conflict: the two say nearly the same thing, not a long sentence of many facts that shares a few words.
MIN_FOCUS = 0.5
#: The same for a number or date conflict.
MIN_FIGURE_FOCUS = 0.3
#: The same for a negation ("not recommended for children because of the risk of Reye's syndrome").
MIN_NEGATION_FOCUS = 0.4
#: A name conflict: the share of the sentence's frame words the document sentence holds (it adds nothing else).
MIN_NAME_ALIGNMENT = 0.8
#: How sure a slot conflict is taken to be (the NLI model's probability is used when higher).
SLOT_CONFLICT_STRENGTH = 0.95
#: An evidence unit that entails a sentence at least this probably rules out an NLI contradiction from another
#: (documents may disagree; the sentence is grounded in the one that states it).
ENTAILMENT_VETO = 0.5
_LEADING_PRONOUN = re.compile(
    r"^\s*(?:(?:later|then|also|today|now|in \w+ \d{4}|in \d{4}),?\s+)?(?:it|its|they|their|she|her|he|his)\b", re.I
)
_WINDOWS = (2, 3)  # consecutive sentences read together
_SINGLE = ("sentence", "clause")  # units that make one statement
#: Words that judge an action rather than state a fact ("aspirin is safe to give" says "aspirin may be given"): a
#: document sentence need not repeat them to be compared for a negation.
_VERDICT_WORDS = frozenset(stem(w) for w in "safe okay ok fine acceptable".split())
_CACHED_TEXTS = 4096  # texts whose slots, frame words and stems are remembered (a chunk's document sentences)
_SPELLED_NUMBERS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion "
    "trillion dozen half".split()
)
_FRAME_STOP = frozenset(
    "a an the of to in on at for and or is are was were be been being by with as it its this that these those has "
    "have had do does did from into than then there their they them he she his her which who whom what when where "
    "how also very can could would should will shall may might must any about around approximately roughly nearly "
    "almost some more less over under up least most than per yes so such only just i we you our your after before "
    "during since while if although however because according able went go goes gone came come comes got get gets "
    "made make makes took take takes put puts".split()
)


@dataclass(frozen=True)
class EvidenceUnit:
    """Document text a sentence is compared with: one sentence, a window of sentences or a whole passage."""

    keys: tuple[str, ...]
    text: str
    kind: str  # "sentence", "clause", "window" or "passage"
    context: str = ""  # a sentence opening with "it", "she", ...: the sentence before it, whose names it may mean


@dataclass(frozen=True)
class Conflict:
    """Why a response sentence is contradicted.

    Attributes:
        kind: ``number``, ``unit``, ``date``, ``name``, ``negation``, ``role_swap``, ``comparison`` or ``nli``.
        keys: the document sentence keys that say otherwise.
        detail: the conflict in words, e.g. ``"says 1991; 1b says 9 November 1989"``.
        strength: how sure the detector is (the NLI contradiction probability, or a slot conflict's).
    """

    kind: str
    keys: tuple[str, ...]
    detail: str
    strength: float


def evidence_units(documents: Sequence[Sequence[tuple[str, str]]]) -> list[EvidenceUnit]:
    """Every document sentence, every window of 2 and 3 consecutive sentences of one document, and every
    passage longer than that (keyed sentences per document, as in ``KeyedSentences.documents``)."""
    out = []
    for doc in documents:
        doc = [(k, t) for k, t in doc if t.strip()]
        for j, (k, t) in enumerate(doc):
            before = doc[j - 1][1] if j and _LEADING_PRONOUN.match(t) else ""
            out.append(EvidenceUnit((k,), t, "sentence", before))
            out += [EvidenceUnit((k,), part, "clause", before) for part in clauses(t)]
        for size in _WINDOWS:
            for start in range(0, len(doc) - size + 1):
                part = doc[start : start + size]
                out.append(EvidenceUnit(tuple(k for k, _ in part), " ".join(t for _, t in part), "window"))
        if len(doc) > max(_WINDOWS):
            out.append(EvidenceUnit(tuple(k for k, _ in doc), " ".join(t for _, t in doc), "passage"))
    return out


#: Where a sentence's trailing clause or aside begins: a comma before a subordinating word, an appositive's
#: article or "and"/"but" opening a clause; a semicolon; a dash.
_CLAUSE_BREAK = re.compile(
    r",\s+(?=(?:when|which|who|whom|whose|where|while|whereas|although|though|because|after|before|since|until|"
    r"unless|but|and|a|an|including|making|leading|resulting|according)\b)|;\s+|\s+[–—]\s+",
    re.I,
)
_MIN_CLAUSE_WORDS = 4


def clauses(sentence: str) -> list[str]:
    """The clauses of a document sentence that has more than one (trailing clauses and appositives split off),
    each of at least four words; [] for a sentence of one clause.

    A response sentence is compared with a clause as with a sentence, so that a passage sentence's trailing clause
    ("…, when East German authorities opened the border crossings") does not hide a conflict with its main clause.

    Example:
        >>> clauses("The Berlin Wall fell on 9 November 1989, when East German authorities opened the crossings.")
        ['The Berlin Wall fell on 9 November 1989', 'when East German authorities opened the crossings.']
        >>> clauses("Canberra is the capital city of Australia.")
        []
    """
    parts = [p.strip(" ,") for p in _CLAUSE_BREAK.split(sentence)]
    parts = [p for p in parts if len(p.split()) >= _MIN_CLAUSE_WORDS]
    return parts if len(parts) > 1 else []


def frame_words(text: str, drop_names: Sequence[str] = ()) -> set[str]:
    """Stems of the content words that frame a statement: no stopwords, numbers, dates, units, negations,
    nor the words of the names in ``drop_names``.

    Example:
        >>> sorted(frame_words("The capital of Australia is not Sydney, a 2020 report says.", ["Australia", "Sydney"]))
        ['capital', 'report', 'says']
    """
    return set(_frame_words(text, tuple(drop_names)))


@lru_cache(maxsize=_CACHED_TEXTS)
def _frame_words(text: str, drop_names: tuple[str, ...]) -> frozenset[str]:
    dropped = {w.lower().replace("’", "'").removesuffix("'s") for n in drop_names for w in n.split()}
    out = set()
    for word in re.findall(r"[A-Za-z][A-Za-z'’-]*", text):
        low = word.lower().replace("’", "'").removesuffix("'s")
        if (
            low in _FRAME_STOP
            or low in NEGATIONS
            or low.endswith("n't")
            or low in dropped
            or low in MONTHS
            or low in UNITS
            or low in _SPELLED_NUMBERS
            or len(low) < 2
        ):
            continue
        out.add(stem(low))
    return frozenset(out)


def alignment(hypothesis_frame: set[str], text: str) -> float:
    """The share of a sentence's frame words found in ``text`` (0 when the sentence has none)."""
    if not hypothesis_frame:
        return 0.0
    return len(hypothesis_frame & _stems(text)) / len(hypothesis_frame)


@lru_cache(maxsize=_CACHED_TEXTS)
def _stems(text: str) -> frozenset[str]:
    """Stems of every word of ``text``, and of the word each antonym negates ("closed" aligns "open")."""
    words = re.findall(r"[A-Za-z][A-Za-z'’-]*", text.lower())
    return frozenset({stem(w) for w in words} | {stem(ANTONYMS[w]) for w in words if w in ANTONYMS})


@dataclass(frozen=True)
class _Slots:
    text: str
    quantities: tuple[Quantity, ...]
    dates: tuple[Date, ...]
    names: tuple[str, ...]
    negated: frozenset[str]
    comparisons: tuple[Comparison, ...]
    meant: tuple[str, ...] = ()  # a leading "it", "she", ...: the previous response sentence's names, one meant

    @property
    def subject(self) -> str:
        """The name a leading pronoun most likely stands for (the previous sentence's first), or ""."""
        return self.meant[0] if self.meant else ""


@lru_cache(maxsize=_CACHED_TEXTS)
def _slots(text: str, context: str | None = None) -> _Slots:
    """The slots of ``text``; ``context``: the other side's text (a sentence-initial word is a name only when
    capitalised there too)."""
    bare = re.sub(r"^\s*(?:no|yes|if not)\s*[,.:;!-]\s*", "", text, flags=re.I)  # an answer's "No, ..."
    bare = re.sub(r"\s*\([^()]*\)", "", bare)  # a parenthesis is an aside, not the statement
    return _Slots(
        bare,
        tuple(quantities(bare)),
        tuple(dates(bare)),
        tuple(names(bare, context)),
        frozenset(negated_words(bare)),
        tuple(comparisons(bare)),
    )


def _unmatched_quantities(said: _Slots, there: _Slots) -> tuple[list[Quantity], list[Quantity]]:
    """(the sentence's quantities the text does not state nor let one work out, the text's quantities the sentence
    does not state)."""
    worked = [q for q in derived_quantities(there.text) if _asks_for(said.text, q)]
    stated = there.quantities + tuple(worked)
    new = [q for q in said.quantities if not any(same_quantity(q, e) for e in stated)]
    old = [e for e in there.quantities if not any(same_quantity(q, e) for q in said.quantities)]
    return new, old


_PART_OF = re.compile(
    r"\b(?P<part>\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+(?:out\s+)?(?:of|in)\s+"
    r"(?:the\s+|all\s+|these\s+|those\s+|every\s+)?(?P<whole>\d[\d,]*|two|three|four|five|six|seven|eight|nine|"
    r"ten|eleven|twelve)\b",
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
_SMALL = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}


@lru_cache(maxsize=_CACHED_TEXTS)
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


def _unmatched_dates(said: _Slots, there: _Slots) -> tuple[list[Date], list[Date]]:
    new = [d for d in said.dates if not any(d.agrees_with(e) for e in there.dates)]
    old = [e for e in there.dates if not any(d.agrees_with(e) for d in said.dates)]
    return new, old


def _unmatched_names(said: _Slots, there: _Slots, context: str = "") -> tuple[list[str], list[str]]:
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


_CONDITIONAL = re.compile(r"\b(?:if|unless|whether|in case|otherwise)\b", re.I)
_ADJECTIVAL = re.compile(r"(?:ian|ean|ican|ese|ish)$", re.I)


def _could_be_rival(name: str) -> bool:
    """Whether a capitalised run can stand for another filler of a name's role: not a menu path or heading of many
    words ("Settings Picture Expert Settings"), not shouted text ("DO NOT"), not an opening word ("To",
    "Cancelling"), not an adjective of nationality ("Australian", "South Korean")."""
    words = name.split()
    if len(words) > 3 or (len(words) > 1 and any(w.isupper() and len(w) > 1 for w in words)):
        return False
    first = words[0].lower()
    if first in COMMON_STARTS or first in _FRAME_STOP or first.endswith("ing"):
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


def _meant_found(said: _Slots, there: _Slots, context: str = "") -> bool:
    """For a sentence opening with a pronoun: whether one of the names it may stand for is in the document text."""
    if not said.meant:
        return True
    meant = [*there.names, *(names(context) if context else [])]
    return any(same_name(n, meant, there.text) for n in said.meant)


def _with_previous(said: _Slots, sentence: str, previous: str | None, documents: str) -> _Slots:
    """The slots with the names a leading pronoun may stand for (those of the previous response sentence)."""
    if previous and _LEADING_PRONOUN.match(sentence):
        return replace(said, meant=tuple(n for n in names(previous, documents) if n not in said.names))
    return said


def _negation_flip(said: _Slots, there: _Slots, frame: set[str]) -> tuple[str, str] | None:
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


def _comparison_conflict(said: _Slots, there: _Slots) -> tuple[Comparison, Comparison] | None:
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


def _numeric_comparison(said: _Slots, units: Sequence[EvidenceUnit]) -> Conflict | None:
    """ "A is cheaper than B" where a document text gives both amounts the other way round."""
    for comparison in said.comparisons:
        left, right = comparison.left - comparison.right, comparison.right - comparison.left
        if not left or not right:
            continue
        for unit in units:
            if unit.kind == "passage":
                continue
            values = _side_values(unit.text, left, right, comparison.measure)
            if values is None:
                continue
            (a, a_text), (b, b_text) = values
            if a == b:
                continue
            if (a - b) * comparison.direction < 0:
                detail = f'says "{comparison.text}"; {_where(unit)} gives {a_text} against {b_text}'
                return Conflict("comparison", unit.keys, detail, SLOT_CONFLICT_STRENGTH)
            return None  # the document's figures agree
    return None


def _side_values(text: str, left: frozenset[str], right: frozenset[str], measure: str) -> tuple | None:
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


def _slot_conflict(said: _Slots, frame: set[str], unit: EvidenceUnit) -> Conflict | None:
    """The conflict between a sentence and one aligned document text, slot by slot."""
    there = _slots(unit.text)
    where = _where(unit)
    new_n, old_n = _unmatched_names(said, there, unit.context)
    meant = _meant_found(said, there, unit.context)
    there_frame = frame_words(unit.text, there.names)
    # how much of the document text the sentence holds: a long text of many facts that shares a few words is no rival
    focus = 1.0 if not frame or not there_frame else len(there_frame & frame) / len(there_frame)
    same_subject = not new_n and meant and focus >= MIN_FIGURE_FOCUS  # another entity's number is no conflict
    new_q, old_q = _unmatched_quantities(said, there) if same_subject else ([], [])
    for q in new_q:
        rivals = [
            e
            for e in old_q
            if _family(e) == _family(q)
            and bool(_scope(e)) == bool(_scope(q))
            and not (e.value == q.value and e.dimension == q.dimension)  # one value, worded as a bound on one side
        ]
        if rivals:
            e = _closest(q, rivals)
            kind = "unit" if _number_part(q) == _number_part(e) else "number"
            return Conflict(
                kind, unit.keys, f"says {q.describe()}; {where} says {e.describe()}", SLOT_CONFLICT_STRENGTH
            )
    new_d, old_d = _unmatched_dates(said, there)
    if new_d and old_d and same_subject:
        e = min(old_d, key=lambda d: _date_distance(d, new_d[0]))
        detail = f"says {new_d[0].describe()}; {where} says {e.describe()}"
        return Conflict("date", unit.keys, detail, SLOT_CONFLICT_STRENGTH)
    # another name both share (or the one a leading pronoun stands for): the same subject, another filler
    anchored = len(said.names) - len(new_n) >= 1 or (bool(said.meant) and meant)
    focused = focus >= MIN_FOCUS
    covered = alignment(frame, unit.text) >= MIN_NAME_ALIGNMENT  # it adds nothing but the other name
    if new_n and old_n and anchored and len(new_n) == 1 and len(old_n) <= 2 and unit.kind in _SINGLE and focused:
        if not covered:
            return None
        if _LEADING_PRONOUN.match(unit.text) and not unit.context:  # "He later tutored ...": he may be the name
            return None
        detail = f"says {', '.join(new_n)}; {where} says {', '.join(old_n[:2])}"
        return Conflict("name", unit.keys, detail, SLOT_CONFLICT_STRENGTH)
    said_text, unit_text = _resolved(said.text, said.subject), _resolved(unit.text, _first_name(unit.context))
    swapped = (role_swap(said_text, unit_text) or _crossed_roles(said.text, unit.text, frame)) if focused else None
    if swapped:
        detail = f"{where} names {swapped[0]} and {swapped[1]} in the other roles"
        return Conflict("role_swap", unit.keys, detail, SLOT_CONFLICT_STRENGTH)
    compared = _comparison_conflict(said, there)
    if compared and alignment(frame, unit.text) >= MIN_ALIGNMENT:
        detail = f'says "{compared[0].text}"; {where} says "{compared[1].text}"'
        return Conflict("comparison", unit.keys, detail, SLOT_CONFLICT_STRENGTH)
    aligned = alignment(frame - _VERDICT_WORDS, unit.text) >= MIN_NEGATION_ALIGNMENT
    if aligned and focus >= MIN_NEGATION_FOCUS and unit.kind in _SINGLE and not new_q and not new_d and not new_n:
        flipped = (
            None
            if _CONDITIONAL.search(unit.text) or _CONDITIONAL.search(said.text)
            else _negation_flip(said, there, frame)
        )  # "if the picture is not correct, ..." states a condition, not that it is not correct
        if flipped:
            side, word = flipped
            detail = _negation_detail(said.text, unit.text, word, side, where)
            return Conflict("negation", unit.keys, detail, SLOT_CONFLICT_STRENGTH)
    return None


_PASSIVE = re.compile(r"\b(?:was|were|is|are|been|being|be)\s+(?:\w+\s+)?\w+(?:ed|en|wn|ght|id|ld|ne)\s+by\b", re.I)


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
    if bool(_PASSIVE.search(sentence)) != bool(_PASSIVE.search(document)):
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


def _distinctive(q: Quantity) -> bool:
    """A number precise enough that two texts giving it mean the same measurement (1,642; 42.195), not 25."""
    digits = re.sub(r"\D", "", _number_part(q))
    return len(digits.strip("0")) >= 3


def _number_part(q: Quantity) -> str:
    match = re.search(r"[\d.,\s]*\d|\b[a-z]+(?:[\s-][a-z]+)*\b", q.text.lower())
    return re.sub(r"[,\s]", "", match.group()) if match else q.text


def _negation_detail(sentence: str, document: str, word: str, side: str, where: str) -> str:
    """'says "recommended"; 0a says "not recommended"' — the words as each side writes them."""
    negated_text, plain_text = (document, sentence) if side == "document" else (sentence, document)
    tokens = re.findall(r"[A-Za-z]+(?:['’][a-z]+)?", negated_text)
    phrase = ""
    for i, token in enumerate(tokens):
        if token.lower() in NEGATIONS or token.lower().endswith(("n't", "n’t")):
            for j in range(i + 1, min(i + 3, len(tokens))):
                if stem(tokens[j]) == word:
                    phrase = " ".join(tokens[i : j + 1])
                    break
        if phrase:
            break
    plain = next((t for t in re.findall(r"[A-Za-z]+", plain_text) if stem(t) == word), word)
    if not phrase:  # an antonym ("closed" for "not open")
        phrase = next((t for t in re.findall(r"[A-Za-z]+", negated_text) if ANTONYMS.get(t.lower()) and
                       stem(ANTONYMS[t.lower()]) == word), f"not {plain}")  # fmt: skip
    if side == "document":
        return f'says "{plain}"; {where} says "{phrase}"'
    return f'says "{phrase}"; {where} says "{plain}"'


def keys_label(keys: Sequence[str]) -> str:
    """How a reason names document sentences: "1b", or "1b–1d" for a window or passage."""
    return keys[0] if len(keys) == 1 else f"{keys[0]}–{keys[-1]}"


def _where(unit: EvidenceUnit) -> str:
    return keys_label(unit.keys)


def _holds_every_fact(said: _Slots, there: _Slots, frame: set[str], unit: EvidenceUnit) -> bool:
    """Every number, date and name of the sentence is in the document text, with the same polarity."""
    return (
        not _unmatched_quantities(said, there)[0]
        and not _unmatched_dates(said, there)[0]
        and not _unmatched_names(said, there, unit.context)[0]
        and _meant_found(said, there, unit.context)
        and _negation_flip(said, there, frame) is None
    )


def _states(said: _Slots, frame: set[str], unit: EvidenceUnit) -> bool:
    """A document sentence says what the sentence says: aligned, every number, date and name found, the same
    polarity, roles and comparisons."""
    if alignment(frame, unit.text) < MIN_ALIGNMENT:
        return False
    if unit.context and said.names and not same_name(_first_name(unit.context), list(said.names), said.text):
        return False  # "It was chosen as the capital over Sydney": "it" is another name than the sentence's
    there = _slots(unit.text)
    return (
        _holds_every_fact(said, there, frame, unit)
        and role_swap(said.text, unit.text) is None
        and _crossed_roles(said.text, unit.text, frame) is None
        and _comparison_conflict(said, there) is None
    )


def _named_elsewhere(said: _Slots, frame: set[str], unit: EvidenceUnit, units: Sequence[EvidenceUnit]) -> bool:
    """Whether the sentence's names all stand in another document sentence about the same thing (half its frame
    words): the name said is then found where it belongs, not in place of another. A sentence that names the
    rival too, or whose pronoun stands for it ("It was chosen as the capital over Sydney", after "Canberra is the
    capital"), speaks for the rival, not for the name said."""
    rivals = _unmatched_names(said, _slots(unit.text), unit.context)[1]
    for other in units:
        if other.kind != "sentence" or other.keys == unit.keys or alignment(frame, other.text) < 0.5:
            continue
        if any(same_name(r, [], f"{other.context} {other.text}") for r in rivals):
            continue
        if not _unmatched_names(said, _slots(other.text), other.context)[0]:
            return True
    return False


def _figures_stated_elsewhere(
    said: _Slots, frame: set[str], unit: EvidenceUnit, aligned: Sequence[EvidenceUnit]
) -> bool:
    """Whether another single statement, as aligned, gives every number and date of the sentence and names what
    it names: the sentence then restates that one ("$50" from one seller's passage, "$60" in another's), and the
    figure it differs from belongs to another statement."""
    for other in aligned:
        if other.kind not in _SINGLE or other.keys == unit.keys:
            continue
        there = _slots(other.text)
        if (
            not _unmatched_quantities(said, there)[0]
            and not _unmatched_dates(said, there)[0]
            and not _unmatched_names(said, there, other.context)[0]
            and _meant_found(said, there, other.context)
            and (said.quantities or said.dates)
        ):
            return True
    return False


def _name_alignment(said: _Slots, text: str) -> float:
    """For a sentence of names alone ("Mount Kilimanjaro is in Kenya"): 1 when all but one of its names are in
    ``text``, else 0."""
    found = sum(same_name(n, [], text) for n in said.names)
    return 1.0 if len(said.names) >= 2 and found == len(said.names) - 1 else 0.0


def find_conflict(sentence: str, units: Sequence[EvidenceUnit], previous: str | None = None) -> Conflict | None:
    """The slot conflict between a response sentence and the documents, or None.

    A document sentence that states the sentence as it is clears it. Otherwise the aligned document texts are
    read, sentences first, then windows, then passages, most aligned first; the first conflict found is returned.
    ``previous``: the response sentence before it, whose first name a leading "it", "its", "she", ... stands for.
    """
    clauses = [c for c in re.split(r";\s+", sentence) if c.strip()]
    if len(clauses) > 1:
        return next((c for c in (find_conflict(c, units, previous) for c in clauses) if c is not None), None)
    documents = " ".join(u.text for u in units if u.kind == "sentence")
    if said_verbatim(sentence, units):
        return None
    said = _slots(sentence, documents)
    said = _with_previous(said, sentence, previous, documents)
    if not (said.quantities or said.dates or said.names or said.comparisons or frame_words(said.text)):
        return None
    frame = frame_words(said.text, said.names)
    if any(_states(said, frame, u) for u in units if u.kind in _SINGLE):
        return None
    if said.comparisons:
        compared = _numeric_comparison(said, units)
        if compared is not None:
            return compared
    order = {"sentence": 0, "clause": 0, "window": 1, "passage": 2}
    scored = [(alignment(frame, u.text) if frame else _name_alignment(said, u.text), u) for u in units]
    ranked = sorted(scored, key=lambda su: (order[su[1].kind], -su[0]))
    for score, unit in ranked:  # the same distinctive number in another unit ("42.195 miles" for kilometres)
        if unit.kind == "sentence" and score < MIN_ALIGNMENT and any(_distinctive(q) for q in said.quantities):
            conflict = _slot_conflict(said, frame, unit)
            if conflict is not None and conflict.kind == "unit":
                return conflict
    aligned = [u for score, u in ranked if score >= MIN_ALIGNMENT]
    found_somewhere: _Slots | None = None
    for unit in aligned:
        conflict = _slot_conflict(said, frame, unit)
        if conflict is None:
            continue
        if conflict.kind == "name" and _named_elsewhere(said, frame, unit, units):
            continue
        figure = conflict.kind in ("number", "unit", "date")
        if figure and _figures_stated_elsewhere(said, frame, unit, aligned):
            continue  # another statement of the same thing gives the sentence's figures: passages may differ
        if unit.kind == "sentence" or not figure:
            return conflict
        if found_somewhere is None:  # every number and date any aligned text holds
            texts = [_slots(u.text) for u in aligned]
            found_somewhere = _Slots(
                "",
                tuple(q for t in texts for q in t.quantities),
                tuple(d for t in texts for d in t.dates),
                (),
                frozenset(),
                (),
            )
        if _unmatched_quantities(said, found_somewhere)[0] or _unmatched_dates(said, found_somewhere)[0]:
            return conflict
    return None


_LIST_MARK = re.compile(r"^\s*(?:(?:step\s+)?\d{1,2}[.):]|[-•*])\s+", re.I)


def _plain_words(text: str) -> str:
    """A text as a run of lower-case words and numbers: list marks, punctuation and spacing gone."""
    text = _LIST_MARK.sub("", text.replace("’", "'"))
    return " ".join(re.findall(r"[a-z0-9]+(?:['.,][a-z0-9]+)*", text.lower()))


def _document(key: str) -> str:
    """The document a sentence key belongs to: "12" for "12c"."""
    return key.rstrip("abcdefghijklmnopqrstuvwxyz")


def _unit(text: str) -> EvidenceUnit:
    return EvidenceUnit((), text, "window")


def said_verbatim(sentence: str, units: Sequence[EvidenceUnit]) -> bool:
    """Whether a document text holds the sentence word for word (list marks, case and punctuation aside): what a
    passage says verbatim is never contradicted by it. The slot checks then find no conflict at all, as for a
    sentence a document sentence states; the NLI model's reading of another passage may still contradict it.

    Example:
        >>> units = evidence_units([[("0a", "3. Press and hold the power button for 10 seconds, then release it.")]])
        >>> said_verbatim("Press and hold the power button for 10 seconds.", units)
        True
        >>> said_verbatim("Press and hold the power button for 15 seconds.", units)
        False
    """
    words = _plain_words(sentence)
    if len(words.split()) < _MIN_CLAUSE_WORDS:
        return False
    return any(f" {words} " in f" {_plain_words(u.text)} " for u in units if u.kind != "passage")


def stating_sentence(sentence: str, units: Sequence[EvidenceUnit], previous: str | None = None) -> tuple[str, ...]:
    """The keys of a document sentence holding every specific the sentence states — each number with its unit,
    each date and each name, at least one number or date among them — or () when there is none.

    A restatement in other words ("Everest rises 8,849 m above sea level" for "Mount Everest is 8,849 metres
    tall") shares few words with its source but all of its facts; the judge counts it as support when the two
    sentences are also close in meaning (see :func:`~rageval_lc.judges.offline.judge.nli_adjusted`).

    Example:
        >>> units = evidence_units([[("0a", "Mount Everest is 8,849 metres tall.")]])
        >>> stating_sentence("Everest rises 8,849 m above sea level.", units)
        ('0a',)
        >>> stating_sentence("Everest rises 8,849 m above Nepal.", units)
        ()
    """
    documents = " ".join(u.text for u in units if u.kind == "sentence")
    said = _with_previous(_slots(sentence, documents), sentence, previous, documents)
    if not (said.quantities or said.dates):
        return ()
    frame = frame_words(said.text, said.names)
    for unit in units:
        if unit.kind != "sentence":
            continue
        if _holds_every_fact(said, _slots(unit.text), frame, unit):
            return unit.keys
    return ()


def nli_conflict(
    sentence: str,
    candidates: Sequence[tuple[tuple[str, ...], str]],
    probabilities: Sequence[Sequence[float]],
    threshold: float,
    min_alignment: float = MIN_ALIGNMENT,
) -> Conflict | None:
    """A contradiction the NLI model sees: the most contradicting aligned pair, when at least ``threshold``
    probable and above its entailment, and no pair entails the sentence more than it contradicts it or at least
    :data:`ENTAILMENT_VETO` probably.

    Args:
        sentence: the response sentence.
        candidates: the (document keys, premise) pairs scored.
        probabilities: per candidate, (entailment, neutral, contradiction).
        threshold: the contradiction probability needed.
        min_alignment: the share of the sentence's frame words the premise must hold.
    """
    # what a passage says verbatim it does not contradict (another passage may: documents can disagree)
    holding = {_document(k) for keys, premise in candidates for k in keys if said_verbatim(sentence, [_unit(premise)])}
    said = _slots(sentence)
    frame = frame_words(said.text, said.names)
    best: tuple[float, tuple[str, ...]] | None = None
    top_entailment = max((float(p[0]) for p in probabilities), default=0.0)
    for (keys, premise), p in zip(candidates, probabilities, strict=True):
        entail, contra = float(p[0]), float(p[2])
        if contra < threshold or contra <= entail or alignment(frame, premise) < min_alignment:
            continue
        if any(_document(k) in holding for k in keys):
            continue
        if best is None or contra > best[0]:
            best = (contra, keys)
    if best is None or top_entailment >= min(best[0], ENTAILMENT_VETO):
        return None
    return Conflict("nli", best[1], "", best[0])
