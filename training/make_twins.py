"""Twins of real RAG answers: contradiction data made from RAGBench rows the annotator labelled fully supported.

Run:  python training/make_twins.py [--shared ../shared] [--out .cache/twins/twins.jsonl] [--seed 13]

For every answer labelled fully supported (``unsupported_response_sentence_keys`` empty, ``adherence_score``
true, no sentence marked ``fully_supported: false``) in the RAGBench files of ``shared/data/ragbench`` and in
WiCE's supported claims (``shared/data/aux/wice.jsonl.gz``, which lists evidence sentences the same way; ARES'
synthetic rows name no evidence sentence, so they are not used), the script writes *twins*: the same row with
one supported sentence changed.

- A **contradicting twin** changes one fact of one sentence that the labels say is supported by named document
  sentences (its *evidence*), and only where the evidence states the original fact, so that the passage now
  says the opposite of the twin. Kinds (``edit_kind``):

  - ``number``: a quantity of the sentence (with its unit, currency or counted noun) becomes another number of
    the same kind found in an unrelated passage sentence, else a plausible shift of it (two digits swapped, else
    10-50 % up or down), in the same format ("1,280 metres" -> "1,820 metres"); never a range end, a label
    ("#5", "§ 120.08"), an address, one side of a conversion ("145°F (63°C)") or a "1" before its unit.
  - ``date``: the year (else the month, else the day) of a date becomes another one found elsewhere in the
    passages, or moves by a few years or months; the date keeps its format; never a range end or the year of a
    name ("the 1996 AFC Asian Cup").
  - ``entity``: a name after the clause's verb ("named after X", "born in X", "directed by X") becomes another
    name of the passages of the same type (person, country, state, city, county ..., school, company ...: read
    from the names' shapes and the cues around them in the passages by ``rageval_lc.facts.names.name_type``;
    skipped when unsure); never a name of a
    list, of a relation that holds for many ("members of", "such as"), or the end of a longer name.
  - ``negation``: "not" added to or taken from the first auxiliary of the main clause ("is" / "is not", "can"
    / "cannot", "do not" / "do", "has never been" / "has been"), where an evidence sentence states the same
    auxiliary and verb, of the same subject, with the original polarity.
  - ``direction``: a comparison or a direction flipped by an antonym table (more / less than, higher / lower
    than, larger / smaller, increase / decrease, reduce / increase, rise / fall, before / after + -ing,
    earlier / later than, above / below, maximum / minimum load ...), where an evidence sentence has the word
    with the same neighbour and never its opposite; not under a negation, a modal or in a relative clause.
  - ``role_swap``: "A <verb> B" -> "B <verb> A" for two names around a relation that is not symmetric, checked
    with the judge's own ``facts.names.role_swap`` against an evidence sentence.
  - ``scope``: all -> only some, always -> only sometimes, required <-> optional, mandatory -> optional,
    must -> need not, none of -> all of, where an evidence sentence has the word with its next two words.

  The new value never appears in the evidence, nor in any passage sentence that shares most of the answer
  sentence's words (another source stating the same thing); values borrowed from the passages come from
  sentences that do not. Labels: ``unsupported_response_sentence_keys = [edited_key]``, ``adherence_score``
  false, the edited sentence's ``fully_supported`` false (and no supporting keys, as RAGBench writes it).

- A **faithful twin** states the same facts another way, and is checked to parse to the same numbers, units and
  dates with the judge's own parsers (``facts.numbers.quantities``, ``facts.dates.dates``,
  ``same_quantity``). Kinds:

  - ``unit_spelling``: "12 km" <-> "12 kilometers", "5%" <-> "5 percent", "20 °C" <-> "20 degrees Celsius".
  - ``number_form``: "1,500,000" <-> "1.5 million", "3 days" <-> "three days" (two to twelve).
  - ``unit_conversion``: exact conversions within one system: "90 minutes" -> "1.5 hours", "2 weeks" ->
    "14 days", "1.5 km" -> "1,500 meters", "500 mg" -> "0.5 g".
  - ``arithmetic``: "two times" <-> "twice", "a dozen" <-> "12", "50% of" -> "half of", "half an hour" <->
    "30 minutes", "one in the morning and one in the evening" -> "twice a day".
  - ``date_order``: "9 November 1989" <-> "November 9, 1989", "1989-11-09" -> "9 November 1989".
  - ``clause_order``: a fronted clause or phrase moved behind the main clause at its comma ("To reset the TV,
    press Menu." -> "Press Menu to reset the TV."; "In 2012, X opened Y." -> "X opened Y in 2012.").
  - ``short_answer``: a one-sentence answer cut to the fact the question asks for, lifted verbatim with its
    verb ("Founded in 2012.", "Beatrice Muriel Hill Tinsley.").

  A faithful twin keeps its original's labels (all supported).

Every twin changes one sentence and keeps the others; the edited response is split again with
``rageval_lc.text.split_sentences`` and kept only when it gives as many sentences as the original, differing in
that one. Rows in doubt are skipped, not guessed at. One twin per kind per row at most (a seeded choice among the
sentences and spots where the kind applies).

Split: each twin carries ``fold``, its original's fold by ``benchmarks/ragbench_folds.py`` (the rule
``benchmarks/calibrate_local_judge.py`` fits and holds out by: ``fit`` / ``held``; WiCE rows, weak data fitted
on only, are ``aux``), and ``original_id`` (the original's sample id, ``dataset:id:generator``): a twin never
crosses the split.

Output: one JSON row per twin in RAGBench's own row format (``rageval_lc.datasets.ragbench.load_ragbench`` reads
it unchanged; ``dataset_name`` is ``twin_<sub-dataset>``) plus ``twin``, ``edit_kind``, ``edited_key``,
``original_sentence``, ``edited_sentence``, ``evidence_keys``, ``detail``, ``fold``, ``original_id``. The other
judges' columns (``ragas_faithfulness`` ...) are emptied: they scored the original text. Deterministic: the same
seed writes the same bytes. Pure text work, no model; about 40 s on 2 CPU cores.

Read by hand (30 twins drawn at random, half of each side, against their evidence; see ``docs/judges/offline.md``):
every fault found was turned into a check here; the last round found none in 30.

Data: RAGBench (Friel, Belyi, Sanyal, Galileo; CC BY 4.0) and WiCE (Kamoi et al. 2023; annotations ODC-BY 1.0,
claims from Wikipedia, CC BY-SA). The twins are derived from them and are written under ``.cache/`` (not in
git); this script regenerates them.

    >>> edit = contradict_negation(_sentence("The museum is open on Mondays.", "The museum is open on Mondays."))[0]
    >>> apply(edit.sentence, edit)
    'The museum is not open on Mondays.'
"""

from __future__ import annotations

import argparse
import collections
import gzip
import hashlib
import json
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from ragbench_folds import fold_of  # noqa: E402

from rageval_lc.datasets.ragbench import OTHER_JUDGE_COLUMNS  # noqa: E402
from rageval_lc.facts import MONTHS, ONES, UNITS  # noqa: E402
from rageval_lc.facts.dates import dates  # noqa: E402
from rageval_lc.facts.names import name_type, names, role_swap, same_name  # noqa: E402
from rageval_lc.facts.numbers import Quantity, quantities, same_quantity  # noqa: E402
from rageval_lc.facts.polarity import NEGATIONS  # noqa: E402
from rageval_lc.facts.units import UNIT_ABBREVIATIONS, UNIT_NAMES, UNIT_STEPS, british_spelling  # noqa: E402
from rageval_lc.facts.words import STOP_WORDS, stem  # noqa: E402
from rageval_lc.text import normalize_key, split_sentences  # noqa: E402

CONTRADICTING = ("number", "date", "entity", "negation", "direction", "role_swap", "scope")
FAITHFUL = (
    "unit_spelling",
    "number_form",
    "unit_conversion",
    "arithmetic",
    "date_order",
    "clause_order",
    "short_answer",
)
AUX_SOURCES = ("wice",)  # ARES' synthetic rows list no evidence sentences: no twin can be checked against one
_STOP = STOP_WORDS | frozenset("not no you your yours our we i".split())


# --- the pieces ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sentence:
    """A response sentence the labels call supported, with its evidence (the document sentences named for it)
    and the rest of the row's text."""

    key: str
    text: str
    evidence: tuple[tuple[str, str], ...]
    documents: tuple[tuple[str, str], ...] = ()
    question: str = ""
    response_sentences: tuple[str, ...] = ()

    @property
    def evidence_text(self) -> str:
        return " ".join(text for _, text in self.evidence)


@dataclass(frozen=True)
class Edit:
    """Replace ``sentence.text[start:end]`` by ``new``."""

    kind: str
    sentence: Sentence
    start: int
    end: int
    new: str
    detail: str


def apply(sentence: Sentence, edit: Edit) -> str:
    return sentence.text[: edit.start] + edit.new + sentence.text[edit.end :]


def _sentence(text: str, evidence: str, documents: tuple[str, ...] = (), question: str = "") -> Sentence:
    """A sentence supported by one evidence sentence (key 0a), for examples and tests."""
    docs = (("0a", evidence), *((f"1{chr(97 + i)}", d) for i, d in enumerate(documents)))
    return Sentence("a", text, (("0a", evidence),), docs, question, (text,))


@lru_cache(maxsize=65536)
def _quantities(text: str) -> tuple[Quantity, ...]:
    return tuple(quantities(text))


@lru_cache(maxsize=65536)
def _dates(text: str) -> tuple:
    return tuple(dates(text))


@lru_cache(maxsize=65536)
def _names(text: str) -> tuple[str, ...]:
    return tuple(names(text))


@lru_cache(maxsize=65536)
def _stems(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in re.findall(r"[A-Za-z0-9]+", text) if w.lower() not in _STOP)


def _share(text: str, other: str) -> float:
    """Share of the content words of ``text`` that ``other`` has too."""
    own = _stems(text)
    return len(own & _stems(other)) / len(own) if own else 0.0


def related(sentence: Sentence) -> list[str]:
    """The evidence, plus every passage sentence that shares most of the sentence's words (another source
    stating the same thing): a contradicting value must be absent from all of them."""
    out = [text for _, text in sentence.evidence]
    out += [t for _, t in sentence.documents if t not in out and _share(sentence.text, t) >= 0.5]
    return out


def sources(sentence: Sentence) -> list[str]:
    """Passage sentences that may lend a value: not the evidence and about something else."""
    near = set(related(sentence))
    return [t for _, t in sentence.documents if t not in near and _share(sentence.text, t) < 0.35]


def _case_like(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def _phrase_in(phrase: str, texts: list[str] | str) -> bool:
    """Whether a phrase occurs, as whole words and ignoring case, in any of the texts."""
    pattern = re.compile(rf"(?<![\w]){re.escape(phrase)}(?![\w])", re.I)
    return any(pattern.search(t) for t in ([texts] if isinstance(texts, str) else texts))


def _word_at(text: str, position: int, before: bool) -> str:
    """The word right before (or after) a position, lower case."""
    m = re.search(r"([\w'’-]+)[^\w]*$", text[:position]) if before else re.match(r"[^\w]*([\w'’-]+)", text[position:])
    return m.group(1).lower() if m else ""


def _bigram_in(sentence: Sentence, start: int, end: int, texts: list[str], exact_case: bool = False) -> bool:
    """Whether the word at [start, end) occurs with the same next word (or, at the end, the previous one); with
    ``exact_case``, a capitalised occurrence (a heading: "Before Connecting") counts only for a capitalised word."""
    word = sentence.text[start:end]
    after = _word_at(sentence.text, end, before=False)
    before = _word_at(sentence.text, start, before=True)
    if after and after not in _STOP:
        phrases = [f"{word} {after}"]
    elif before:
        phrases = [f"{before} {word}", *([f"{word} {after}"] if after else [])]
    else:
        return False
    for phrase in phrases:
        for text in texts:
            for m in re.finditer(rf"(?<![\w]){re.escape(phrase)}(?![\w])", text, re.I):
                if not exact_case or m.group()[:1].isupper() == phrase[:1].isupper() or m.start() == 0:
                    return True
    return False


def in_range(text: str, start: int, end: int) -> bool:
    """Whether the value at [start, end) is one end of a range or a choice ("200 to 400", "$8-$100", "2 or 3")."""
    before, after = text[:start], text[end:]
    if re.search(r"(?:\bfrom|\bbetween)\s*$", before, re.I):
        return True
    if re.match(r"\s*(?:-|–|—|to\b|and\b|or\b|until\b|through\b)\s*(?:about\s+)?[$€£]?\d|s\b", after):
        return True
    if re.search(r"(?:-|–|—|\bto|\band|\bor|\buntil|\bthrough)\s*[$€£]?$", before) and re.search(r"\d", before[-40:]):
        return True
    to = re.search(r"\bto\s+(?:as (?:much|many|high|low|long) as\s+|about\s+|around\s+|roughly\s+)?[$€£]?$", before)
    return bool(to and re.search(r"\b(?:from|between)\s+", before))


_QUOTED = re.compile(r"[\"“]([^\"“”]{1,80})[\"”]|(?<![\w])['‘]([^'‘’]{1,60})['’](?![\w])")


def in_title(text: str, start: int, end: int) -> bool:
    """Whether [start, end) lies in a short quoted span (a title: "Twice in a Lifetime", "We Were Soldiers")."""
    for m in _QUOTED.finditer(text):
        inner = m.group(1) or m.group(2) or ""
        if m.start() < start and end <= m.end() and len(inner.split()) <= 8:
            return True
    return False


def _title_case(text: str, start: int) -> bool:
    """A capitalised word that does not open the sentence (part of a name or a title)."""
    return text[start : start + 1].isupper() and bool(text[:start].strip(" \"'“‘-•*0123456789.)"))


# --- contradicting edits ---------------------------------------------------------------------------------

_DIGITS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_LABEL_BEFORE = re.compile(
    r"(?:\b(?:figures?|fig|tables?|steps?|pages?|p|pp|sections?|chapters?|versions?|v|models?|no|nos|numbers?|"
    r"items?|lines?|levels?|channels?|options?|refs?|references?|appendix|articles?|grades?|class|types?|modes?|"
    r"slots?|ports?|ch|vol|issues?|volumes?|parts?|phases?|stages?|rounds?|episodes?|seasons?|acts?|scenes?|"
    r"verses?|routes?|highways?|interstate|rooms?|suite|floors?|gates?|platforms?|flights?|exits?|codes?|"
    r"errors?|buttons?|keys?|positions?|rank|ranked|number|season|series|generation|gen|ages?|aged)\.?\s*#?|#|"
    r"[A-Z][\w-]*|§|¶)\s*$"
)


def _number_text(sentence: str, q: Quantity) -> re.Match[str] | None:
    """The written digits of a quantity, when they stand alone (not part of a code, a time, a range end)."""
    m = _DIGITS.search(sentence, q.span[0], q.span[1])
    if not m:
        return None
    before, after = sentence[max(0, m.start() - 1) : m.start()], sentence[m.end() : m.end() + 2]
    if re.match(r"[\w\-/.:'’]", before) or re.match(r"[\w:/]|[-–][\d\w]|'s", after):
        return None
    return m


def _format_number(value: float, like: str) -> str:
    decimals = len(like.split(".")[1]) if "." in like else 0
    text = f"{value:,.{decimals}f}" if "," in like else f"{value:.{decimals}f}"
    return text


def _clean_number(value: float, like: str) -> bool:
    """Whether a value can be written with the digits ``like`` has (same decimals at most)."""
    decimals = len(like.split(".")[1]) if "." in like else 0
    return value > 0 and abs(round(value, decimals) - value) < 1e-9 * max(1.0, abs(value))


def _shifts(number: str, rng: random.Random) -> list[float]:
    """Plausible wrong values: two digits swapped (first), else 10-50 % up or down, in the same precision."""
    plain = number.replace(",", "")
    whole, _, fraction = plain.partition(".")
    swaps = []
    for i in range(len(whole) - 1):
        if whole[i] != whole[i + 1] and not (i == 0 and whole[i + 1] == "0"):
            swapped = whole[:i] + whole[i + 1] + whole[i] + whole[i + 2 :]
            swaps.append(float(swapped + ("." + fraction if fraction else "")))
    rng.shuffle(swaps)
    out = []
    value = float(plain)
    decimals = len(fraction)
    for factor in (0.5, 0.6, 0.7, 0.8, 0.9, 1.1, 1.2, 1.3, 1.4, 1.5):
        new = round(value * factor, decimals)
        if decimals == 0 and value >= 100:
            step = 10 ** (len(whole) - len(whole.rstrip("0")))
            new = round(value * factor / step) * step  # keep the round trailing zeros ("1,200" -> "1,500")
        if new > 0 and new != value:
            out.append(float(new))
    rng.shuffle(out)
    return list(dict.fromkeys([*swaps, *out]))  # two digits swapped first: the same digits, another value


def contradict_number(sentence: Sentence, rng: random.Random | None = None) -> list[Edit]:
    """A quantity the evidence states, changed to another number of the same kind.

    >>> s = _sentence("The bridge is 1,280 metres long.", "The bridge is 1,280 metres long.")
    >>> [apply(s, e) for e in contradict_number(s, random.Random(1))]
    ['The bridge is 1,820 metres long.']
    """
    rng = rng or random.Random(0)
    text = sentence.text
    near = related(sentence)
    near_quantities = [q for t in near for q in _quantities(t)]
    evidence = [q for _, t in sentence.evidence for q in _quantities(t)]
    edits = []
    own = _quantities(text)
    for q in own:
        m = _number_text(text, q)
        if m is None or q.approximate or q.bound or sum(same_quantity(q, o) for o in own) != 1:
            continue
        if re.search(r"(?:#|§|\bNo\.?)\s*$", text[: m.start()]):
            continue  # a number that names ("#5 carbon", "§ 120.08")
        if in_range(text, q.span[0], q.span[1]) or in_range(text, m.start(), m.end()):
            continue
        if re.search(r"\d[^()]{0,20}\(\s*$", text[: q.span[0]]) or re.match(r"\s*\(\s*[$€£~≈]?\d", text[q.span[1] :]):
            continue  # one side of a conversion ("145°F (63°C)"): changed alone, the sentence disagrees with itself
        if re.match(r"\s+\d+/\d+", text[q.span[1] :]) or re.search(
            r"\d\s*(?:feet|foot|ft|ft\.|')\s*$", text[: m.start()]
        ):
            continue  # part of a compound measure ("5 feet 11 1/2 inches")
        if not q.dimension and (
            _LABEL_BEFORE.search(text[: m.start()])
            or float(m.group().replace(",", "")) < 11
            or re.match(r"\s+[A-Z]", text[m.end() :])
        ):
            continue  # a bare number: only a plain amount ("a score of 45"), never a label, an address or a model
        if not q.dimension and 1000 <= float(m.group().replace(",", "")) <= 2100 and "," not in m.group():
            continue  # a year the date reader did not take
        if not any(same_quantity(q, e) for e in evidence):
            continue  # the evidence must state the original value
        written = m.group()
        if written in ("0", "1"):
            continue  # "1 second" -> "2 second": the unit would need another form
        factor = q.value / float(written.replace(",", ""))
        borrowed = []
        if q.dimension:  # bare numbers lend nothing: "45" of one passage is rarely the same kind as another's
            for t in sources(sentence):
                for p in _quantities(t):
                    if p.dimension == q.dimension and not (p.approximate or p.bound) and re.search(r"\d", p.text):
                        new = p.value / factor
                        if _clean_number(new, written) and not same_quantity(p, q):
                            borrowed.append(new)
        rng.shuffle(borrowed)
        for new in [*dict.fromkeys(borrowed), *_shifts(written, rng)]:
            if (q.dimension == "percent" and q.value <= 100 < new) or new == 1:
                continue  # no 120 %, no "1 minutes"
            new_text = _format_number(new, written)
            if new_text == written or _phrase_in(new_text, near):
                continue
            edited = text[: m.start()] + new_text + text[m.end() :]
            after = [p for p in _quantities(edited) if p.span[0] <= m.start() < p.span[1]]
            if len(after) != 1 or after[0].dimension != q.dimension:
                continue
            if any(same_quantity(after[0], r) for r in near_quantities):
                continue  # the new value is stated in the evidence or a sentence like it
            source = "passages" if new in borrowed else "shift"
            edits.append(
                Edit("number", sentence, m.start(), m.end(), new_text, f"{q.text} -> {after[0].text} ({source})")
            )
            break
    return edits


_MONTH_FULL = [m.capitalize() for m in MONTHS]
_RANGE_BEFORE = re.compile(r"(?:\bfrom|\bbetween|\d\s*(?:-|–|—|to|and|until|through))\s*$", re.I)
_RANGE_AFTER = re.compile(r"^\s*(?:-|–|—|to\b|and\b|until\b|through\b)\s*\d|^s\b")


def _month_word(new: int, like: str) -> str:
    """Month ``new`` written as ``like`` is: full or abbreviated, with its dot and its case."""
    full = _MONTH_FULL[new - 1]
    bare = like.rstrip(".")
    word = full if bare.lower() in (m.lower() for m in _MONTH_FULL) else full[:3] + like[len(bare) :]
    return word.upper() if bare.isupper() and len(bare) > 1 else word


def contradict_date(sentence: Sentence, rng: random.Random | None = None) -> list[Edit]:
    """A date the evidence states with a year (else month, else day) moved to another one.

    >>> s = _sentence("The wall fell on 9 November 1989.", "The wall fell on 9 November 1989.")
    >>> [apply(s, e) for e in contradict_date(s, random.Random(0))]
    ['The wall fell on 9 November 1990.']
    """
    rng = rng or random.Random(0)
    text = sentence.text
    near = related(sentence)
    near_dates = [d for t in near for d in _dates(t)]
    evidence = [d for _, t in sentence.evidence for d in _dates(t)]
    lent = [d for t in sources(sentence) for d in _dates(t)]
    edits = []
    for d in _dates(text):
        start, end = d.span
        if _RANGE_BEFORE.search(text[:start]) or _RANGE_AFTER.search(text[end:]) or in_range(text, start, end):
            continue  # one end of a range
        if not d.month and re.match(r"\s+[A-Z]", text[end:]):
            continue  # a year in a name ("the 1996 AFC Asian Cup")
        stated = [e for e in evidence if e.agrees_with(d)]
        piece = text[start:end]
        if d.year and any(e.year == d.year for e in stated) and text.count(str(d.year)) == 1:
            years = [e.year for e in lent if e.year and e.year != d.year and abs(e.year - d.year) <= 40]
            rng.shuffle(years)
            shifts = [d.year + s for s in rng.sample([-6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6], 12)]
            for year in dict.fromkeys([*years, *shifts]):
                if year > max(2024, d.year) or _phrase_in(str(year), near):
                    continue
                at = start + piece.rindex(str(d.year))
                source = "passages" if year in years else "shift"
                edits.append(Edit("date", sentence, at, at + 4, str(year), f"{d.describe()} -> {year} ({source})"))
                break
        elif d.month and any(e.month == d.month for e in stated) and text.count(piece) == 1:
            m = re.search(r"[A-Za-z]+\.?", piece)
            if not m:
                continue
            months = [e.month for e in lent if e.month and e.month != d.month]
            rng.shuffle(months)
            shifts = [(d.month - 1 + s) % 12 + 1 for s in rng.sample([-3, -2, -1, 1, 2, 3], 6)]
            for month in dict.fromkeys([*months, *shifts]):
                word = _month_word(month, m.group())
                if any(e.month == month and (not e.year or e.year == d.year) for e in near_dates):
                    continue
                if _phrase_in(_MONTH_FULL[month - 1], near):
                    continue
                source = "passages" if month in months else "shift"
                detail = f"{d.describe()} -> {_MONTH_FULL[month - 1]} ({source})"
                edits.append(Edit("date", sentence, start + m.start(), start + m.end(), word, detail))
                break
        elif d.day and any(e.day == d.day for e in stated):
            m = re.search(r"\b\d{1,2}(?=st|nd|rd|th|\b)", piece)
            if not m or (d.year and m.group() == str(d.year)):
                continue
            for shift in rng.sample([-7, -3, -2, -1, 1, 2, 3, 7], 8):
                day = d.day + shift
                if not 1 <= day <= 28 or any(e.day == day and e.month == d.month for e in near_dates):
                    continue
                suffix = re.match(r"st|nd|rd|th", piece[m.end() :])
                new = str(day)
                if suffix:  # keep an ordinal an ordinal
                    new_suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
                    edits.append(
                        Edit(
                            "date",
                            sentence,
                            start + m.start(),
                            start + m.end() + 2,
                            new + new_suffix,
                            f"{d.describe()} -> day {day} (shift)",
                        )
                    )
                else:
                    edits.append(
                        Edit(
                            "date",
                            sentence,
                            start + m.start(),
                            start + m.end(),
                            new,
                            f"{d.describe()} -> day {day} (shift)",
                        )
                    )
                break
    return edits


_OBJECT_BEFORE = re.compile(
    r"\b(?:by|in|at|from|after|as|to|for|is|was|are|were|named|called|titled|became|becomes|of)\s+(?:the\s+)?$"
)
_NOT_ONE_OF_A_KIND = re.compile(  # relations that hold for many: another name there would not contradict
    r"\b(?:members?|include[sd]?|including|such as|among|one|part|parts|portion|some|many|like|with|and|or|"
    r"visited|toured|travell?ed|flights?|trips?|ties|relations|also|both|either|near|around|across|throughout|"
    r"against|versus|vs|between)\s+(?:\w+\s+)?(?:of\s+|in\s+|to\s+|by\s+|at\s+)?(?:the\s+)?$",
    re.I,
)
_VERB = re.compile(
    r"\b(?:is|are|was|were|be|been|being|has|have|had|did|does|became|becomes|become|won|led|began|went|came|"
    r"made|took|gave|wrote|grew|lives|lived|died|works|worked|plays|played|founded|born|[a-z]{3,}ed)\b"
)
_LIST_AROUND = re.compile(r"(?:,|\band|\bor|&|/|\()\s*(?:the\s+)?$")
_LIST_AFTER = re.compile(r"^\s*(?:,\s*(?:and\s+|or\s+)?[A-Z]|and\b|or\b|&|/|\))")


def contradict_entity(sentence: Sentence, rng: random.Random | None = None) -> list[Edit]:
    """A name in an object position replaced by another name of the passages of the same type.

    >>> s = _sentence("The prize is named after Beatrice Tinsley.", "The prize is named after Beatrice Tinsley.",
    ...               ("The astronomer Beatrice Tinsley (1941-1981) was born in Chester.",
    ...                "Its main rival, the writer John Smith (born 1950), lives in Leeds."))
    >>> [apply(s, e) for e in contradict_entity(s)]
    ['The prize is named after John Smith.']
    """
    rng = rng or random.Random(0)
    text = sentence.text
    near = related(sentence)
    corpus = [t for _, t in sentence.documents] + [text]
    taken = " ".join([*sentence.response_sentences, sentence.question])
    edits = []
    for name in _names(text):
        if name.endswith(("'s", "’s")) or text.count(name) != 1:
            continue
        start = text.index(name)
        before, after = text[:start], text[start + len(name) :]
        clause = re.split(r"[,;:()]", before)[-1]
        if start == 0 or not _OBJECT_BEFORE.search(before) or not _VERB.search(clause):
            continue  # an object after the clause's verb, not its subject
        if _LIST_AROUND.search(before) or _LIST_AFTER.match(after) or _NOT_ONE_OF_A_KIND.search(before):
            continue
        if re.match(r"['’]s\b|\s+\d", after) or not any(name in t for _, t in sentence.evidence):
            continue
        if re.search(r"[A-Z][\w.&-]*\s+(?:at|of|in|for|on|de)\s+(?:the\s+)?$", before):
            continue  # the end of a longer name ("the University of Texas at Austin")
        kind = name_type(name, corpus)
        if kind is None:
            continue
        article = bool(re.search(r"\bthe\s+$", before))
        lent = [n for t in sources(sentence) for n in _names(t)]
        lent = [n for n in dict.fromkeys(lent) if not n.endswith(("'s", "’s"))]
        rng.shuffle(lent)
        for other in lent:
            if _stems(other) & _stems(name) or same_name(other, list(_names(taken)), taken):
                continue
            if any(_stems(other) & _stems(t) for t in near):
                continue  # any word of it in the evidence or a sentence like it
            if name_type(other, corpus) != kind:
                continue
            with_article = any(re.search(rf"\bthe\s+{re.escape(other)}\b", t) for t in corpus)
            bare = any(re.search(rf"(?<!\bthe )(?<!\bThe ){re.escape(other)}\b", t) for t in corpus)
            if (article and not with_article) or (not article and not bare):
                continue  # "the University of Houston" for "the Blinn College" reads wrong
            edits.append(Edit("entity", sentence, start, start + len(name), other, f"{name} -> {other} ({kind})"))
            break
    return edits


_AUX_ADD = {  # auxiliary -> its negation
    "is": "is not", "are": "are not", "was": "was not", "were": "were not", "can": "cannot", "will": "will not",
    "should": "should not", "must": "must not", "has": "has not", "have": "have not", "had": "had not",
}  # fmt: skip
_NEGATED_AUX = {  # negated auxiliary -> the positive
    "is not": "is", "are not": "are", "was not": "was", "were not": "were", "cannot": "can", "can not": "can",
    "will not": "will", "should not": "should", "must not": "must", "has not": "has", "have not": "have",
    "had not": "had", "does not": "does", "do not": "do", "did not": "did", "isn't": "is", "aren't": "are",
    "wasn't": "was", "weren't": "were", "can't": "can", "won't": "will", "shouldn't": "should", "hasn't": "has",
    "haven't": "have", "hadn't": "had", "doesn't": "does", "don't": "do", "didn't": "did",
}  # fmt: skip
_PARTICIPLE = re.compile(
    r"(?:\w+(?:ed|en)|been|made|done|gone|seen|known|shown|given|taken|found|become|won|lost|held|built|sold|told|"
    r"kept|left|brought|bought|thought|taught|led|met|paid|put|read|run|set|sent|spent|begun|grown|drawn|written)$"
)
_SUBORDINATE = re.compile(
    r"\b(?:if|when|whenever|while|because|although|though|whether|that|which|who|whom|whose|where|unless|once|"
    r"before|after|as|since|until|so|than|what|how)\b",
    re.I,
)
_NOT_AFTER_AUX = frozenset("not also still just only n't never no a an".split())
_NEGATION_WORDS = "|".join(sorted(NEGATIONS - {"n't"}))  # "n't" ends a word rather than standing alone
_NEGATION_TOKEN = re.compile(rf"\b(?:{_NEGATION_WORDS})\b|n't\b", re.I)


def _main_clause_start(text: str, position: int) -> bool:
    """Whether nothing subordinates the clause a position is in (since the last comma, colon or semicolon)."""
    clause = re.split(r"[,;:]", text[:position])[-1]
    return not _SUBORDINATE.search(clause) and not re.match(r"\s*(?:to|in order to)\b", clause, re.I)


def _same_subject(text: str, position: int, evidence: str) -> bool:
    """Whether the evidence sentence has most content words of the clause before a position (its subject)."""
    clause = re.split(r"[,;:]", text[:position])[-1]
    return not _stems(clause) or _share(clause, evidence) >= 0.5


def contradict_negation(sentence: Sentence, rng: random.Random | None = None) -> list[Edit]:
    """ "not" added to the main auxiliary, or taken from it, where an evidence sentence has the same auxiliary and
    verb, with the original polarity, about the same subject.

    >>> s = _sentence("You do not need an adapter.", "You do not need an adapter for the port.")
    >>> [apply(s, e) for e in contradict_negation(s)]
    ['You do need an adapter.']
    """
    text = sentence.text
    evidence = [t for _, t in sentence.evidence]
    near = related(sentence)
    negations = len(_NEGATION_TOKEN.findall(text))
    if re.search(r"\bonly\b", text, re.I):
        return []  # "only the recording will stop": a negation under "only" reads two ways
    negated = re.search(r"\b(" + "|".join(re.escape(k) for k in _NEGATED_AUX) + r")\s+(\w+)", text, re.I)
    never = re.search(r"\b(has|have|had|is|are|was|were|will|can)\s+(never)\s+(\w+)", text, re.I)
    if negated or never:
        if negations != 1:
            return []  # two negations: too easy to turn into a double one
        if negated:
            start, end, word = negated.start(1), negated.end(1), negated.group(2)
            positive = _NEGATED_AUX[negated.group(1).lower()]
            forms = [k for k, v in _NEGATED_AUX.items() if v == positive] + [f"{positive} never"]
            new = _case_like(positive, negated.group(1))
        else:
            start, end, word = never.start(1), never.end(2), never.group(3)
            positive = never.group(1)
            forms = [f"{positive.lower()} never"]
            new = positive
        if not _main_clause_start(text, start) or word.lower() in _NOT_AFTER_AUX or _title_case(text, start):
            return []
        stating = [t for t in evidence if any(_phrase_in(f"{form} {word}", t) for form in forms)]
        if not any(_same_subject(text, start, t) for t in stating) or _phrase_in(f"{positive} {word}", near):
            return []
        return [Edit("negation", sentence, start, end, new, f"{text[start:end]} -> {new}")]
    if negations:
        return []
    for m in re.finditer(r"\b(" + "|".join(_AUX_ADD) + r")\s+(\w+)", text, re.I):
        aux, word = m.group(1), m.group(2)
        if not _main_clause_start(text, m.start()):
            continue  # in a clause that "if", "when", "which" ... subordinates
        # the first auxiliary of a main clause is the one to negate, or none: a later one may sit in a clause
        # that nothing marks ("the next time the TV is turned on")
        if word.lower() in _NOT_AFTER_AUX or _title_case(text, m.start()):
            return []
        if aux.lower() in ("has", "have", "had") and not _PARTICIPLE.match(word.lower()):
            return []  # "has two ports" is the main verb: no auxiliary to negate
        if m.start() == 0 or text[: m.start()].rstrip()[-1:] in "?":
            return []  # a question
        plain = [t for t in evidence if _phrase_in(f"{aux} {word}", t) and _same_subject(text, m.start(), t)]
        if not plain or any(_NEGATION_TOKEN.search(t) for t in plain):
            return []  # the evidence must state it plainly, of the same subject, with no negation about
        new = _case_like(_AUX_ADD[aux.lower()], aux)
        return [Edit("negation", sentence, m.start(1), m.end(1), new, f"{aux} -> {new}")]
    return []


_DIRECTION_PAIRS = (
    "higher lower", "highest lowest", "larger smaller", "largest smallest", "bigger smaller", "increase decrease",
    "increases decreases", "increased decreased", "increasing decreasing", "rise fall", "rises falls",
    "rising falling", "rose fell", "before after", "earlier later", "above below", "maximum minimum",
    "longer shorter", "faster slower", "older younger", "improves worsens", "improved worsened", "raises lowers",
    "better worse", "stronger weaker", "easier harder", "more less", "fewer more",
    "reduces increases", "reduced increased", "reduce increase", "reducing increasing",
)  # fmt: skip
_FLIP: dict[str, str] = {}
for _pair in _DIRECTION_PAIRS:
    _a, _b = _pair.split()
    _FLIP.setdefault(_a, _b)
    _FLIP.setdefault(_b, _a)
_FLIP["less"] = "more"
_FLIP["fewer"] = "more"
_LIMITED = frozenset(
    "load capacity speed temperature brightness weight number amount value level heat volume time length size range "
    "limit height depth width power pressure dose dosage age distance duration".split()
)
_COMPARATIVES = frozenset(
    "higher lower larger smaller bigger longer shorter faster slower older younger better worse stronger weaker "
    "easier harder".split()
)
_LINKING = frozenset(
    "is are was were be been being become becomes became appear appears look looks seem seems get gets".split()
)
_ADJECTIVE_END = re.compile(r"\w+(?:ive|ful|ent|ant|able|ible|ous|al|ic|ly|er|ing|ed)$")


def contradict_direction(sentence: Sentence, rng: random.Random | None = None) -> list[Edit]:
    """A comparison or direction flipped where the evidence has the same word with the same neighbour.

    >>> s = _sentence("Smoking increases the risk of stroke.", "Smoking increases the risk of stroke and cancer.")
    >>> [apply(s, e) for e in contradict_direction(s)]
    ['Smoking decreases the risk of stroke.']
    """
    rng = rng or random.Random(0)
    text = sentence.text
    evidence = [t for _, t in sentence.evidence]
    near = related(sentence)
    edits = []
    for m in re.finditer(r"(?<![\w-])(" + "|".join(_FLIP) + r")(?![\w-])", text, re.I):
        word = m.group(1)
        low = word.lower()
        before, after = _word_at(text, m.start(), before=True), _word_at(text, m.end(), before=False)
        if low in ("more", "less", "fewer"):
            if before in ("no", "not", "any", "once", "even", "much", "far", "the", "or", "and") or not (
                re.match(r"(?:\s+[\w-]+){0,3}?\s+than\b", text[m.end() :]) or _ADJECTIVE_END.match(after)
            ):
                continue  # only "more than" and "more <adjective>": "more information" is no direction
            if re.match(r"\s+than\s+(?:one|1|zero|0)\b", text[m.end() :]):
                continue  # "more than one TV" has no "less than one TV"
            if low in ("less", "fewer") and not re.match(r"\s+than\b", text[m.end() :]):
                continue  # "less" and "fewer" only before "than": "more" for "less" elsewhere may not parse
        if low in ("earlier", "later") and not re.match(r"\s+than\b", text[m.end() :]):
            continue  # "would later be known" has no earlier
        if low in ("before", "after") and not re.fullmatch(r"[a-z]+ing", after):
            continue  # only "before proceeding", "after downloading": "named after", "twice before the ..." are not
        if low in _COMPARATIVES and not (
            re.match(r"(?:\s+[\w-]+){0,3}?\s+than\b", text[m.end() :]) or before in _LINKING
        ):
            continue  # "the lower airway" is a name for a place, not a comparison
        if low in ("maximum", "minimum") and after not in _LIMITED:
            continue  # "the maximum load" is a limit; "maximum likelihood" is a name
        if re.match(r"(?:\s+\w+)?\s+(?:too\s+)?(?:high|higher|low|lower|up|down|above|below)\b", text[m.end() :]):
            continue  # "rise too high" -> "fall too high" says nothing
        if _title_case(text, m.start()) or _NEGATION_TOKEN.search(" ".join(text[: m.start()].split()[-4:])):
            continue  # "do not increase" -> "do not decrease" need not contradict
        if re.search(
            r"\b(?:may|might|can|could|who|which|that|whom|whose)\b", re.split(r"[,;:]", text[: m.start()])[-1], re.I
        ):
            continue  # "may assist students who enroll less than half-time": a possibility, or a relative clause
        new = _case_like(_FLIP[low], word)
        if not _bigram_in(sentence, m.start(), m.end(), evidence, exact_case=True) or _phrase_in(_FLIP[low], evidence):
            continue  # the evidence has the word with its neighbour, and never the opposite
        edited = text[: m.start()] + new + text[m.end() :]
        if _phrase_in(edited, near):
            continue
        start = m.start()
        article = re.search(r"\b(an?)\s+$", text[: m.start()])
        if article:  # "an increase" -> "a decrease"
            right = "an" if new[0].lower() in "aeiou" else "a"
            new = (
                text[article.start(1) : m.start()].replace(article.group(1), _case_like(right, article.group(1)), 1)
                + new
            )
            start = article.start(1)
        edits.append(Edit("direction", sentence, start, m.end(), new, f"{word} -> {_FLIP[low]}"))
    rng.shuffle(edits)
    return edits[:1]


_SYMMETRIC = re.compile(
    r"\b(?:connects?|connected|connecting|links?|linked|joins?|joined|to|and|or|of|from|in|on|at|for|"
    r"married|marry|marries|met|meet|meets|partnered|collaborated|worked with|played with|fought|versus|vs|"
    r"against|alongside|together|with|both|between|shared|tied|drew|merged|sibling|siblings|cousin|cousins|"
    r"same|similar|like|unlike|compared|near|next to|neighbou?rs?|border|borders|bordering|adjacent)\b",
    re.I,
)


def contradict_role_swap(sentence: Sentence, rng: random.Random | None = None) -> list[Edit]:
    """Two names around a relation that is not symmetric swapped, checked with ``facts.names.role_swap``.

    >>> s = _sentence("Acme Corporation acquired Beta Industries in 2018.",
    ...               "In 2018, Acme Corporation acquired Beta Industries for $7.5 billion.")
    >>> [apply(s, e) for e in contradict_role_swap(s)]
    ['Beta Industries acquired Acme Corporation in 2018.']
    """
    text = sentence.text
    evidence = [t for _, t in sentence.evidence]
    found = [n for n in _names(text) if not n.endswith(("'s", "’s")) and text.count(n) == 1]
    if len(found) != 2:
        return []
    a, b = found
    i, j = text.index(a), text.index(b)
    if i > j:
        (a, i), (b, j) = (b, j), (a, i)
    if i + len(a) > j:
        return []
    between = text[i + len(a) : j]
    if _SYMMETRIC.search(between) or len(between.split()) > 4 or not _VERB.search(between):
        return []  # a verb between, no preposition and nothing symmetric ("married", "connects ... to")
    corpus = [t for _, t in sentence.documents] + [text]
    if name_type(a, corpus) is None or name_type(b, corpus) is None or in_title(text, i, j + len(b)):
        return []  # two names of things (persons, places, organisations), not menu items
    edited = text[:i] + b + between + a + text[j + len(b) :]
    if not any(role_swap(edited, t) for t in evidence if a in t and b in t):
        return []
    return [Edit("role_swap", sentence, i, j + len(b), b + between + a, f"{a} <-> {b}")]


_SCOPE = (  # pattern -> replacement: a wider or narrower scope than the evidence states
    (
        r"(?<!\bselect )(?<!\bdelete )(?<!\bremove )(?<!\bclear )(?<!\bcheck )\b[Aa]ll(?= of )",
        "only some",
    ),
    (
        r"(?<!\bselect )(?<!\bdelete )(?<!\bremove )(?<!\bclear )(?<!\bcheck )\b[Aa]ll"
        r"(?= (?:the |these |those |its |their |his |her )[a-z])",
        "only some of",
    ),
    (
        r"(?<!\bselect )(?<!\bdelete )(?<!\bremove )(?<!\bclear )(?<!\bcheck )\b[Aa]ll(?= [a-z]+s\b)",
        "only some",
    ),
    (r"\b[Aa]lways\b", "only sometimes"),
    (r"\b[Rr]equired\b(?! (?:to|by|that|for)\b)", "optional"),
    (r"\b[Mm]andatory\b", "optional"),
    (r"\b[Oo]ptional\b", "required"),
    (r"\b[Mm]ust(?= (?!not\b)[a-z]+)", "need not"),
    (r"\b[Nn]one of\b", "all of"),
)


def contradict_scope(sentence: Sentence, rng: random.Random | None = None) -> list[Edit]:
    """A condition or scope changed (all / only some, always / only sometimes, required / optional, must / need
    not) where the evidence has the same word with the same neighbour.

    >>> s = _sentence("For guests, a password is required.", "A password is required.")
    >>> [apply(s, e) for e in contradict_scope(s)]
    ['For guests, a password is optional.']
    """
    rng = rng or random.Random(0)
    text = sentence.text
    evidence = [t for _, t in sentence.evidence]
    near = related(sentence)
    edits = []
    for pattern, replacement in _SCOPE:
        for m in re.finditer(pattern, text):
            if re.search(r"\b(?:not|at|after|in|for|above|once|of)\s+$", text[: m.start()], re.I):
                continue  # "not all", "at all", "after all", "above all", "a list of all"
            if re.search(r"\b(?:may|might|can|could)\s+(?:also\s+)?be\s+$", text[: m.start()], re.I):
                continue  # "may be required" -> "may be optional" need not contradict
            if _NEGATION_TOKEN.search(re.split(r"[,;:]", text[: m.start()])[-1]):
                continue  # "not receiving all channels" -> "not receiving only some channels" reads two ways
            if not _bigram_in(sentence, m.start(), m.end(), evidence):
                continue
            following = re.match(r"((?:\s+[\w'’-]+){1,2})", text[m.end() :])
            if (
                following
                and len(following.group(1).split()) == 2
                and not _phrase_in(m.group() + following.group(1), evidence)
            ):
                continue  # "must be in the OFF position" is not "must be taken": two words on, as the evidence has them
            new = _case_like(replacement, m.group())
            if _phrase_in(replacement, near) or (replacement == "optional" and _phrase_in("not required", near)):
                continue
            edits.append(Edit("scope", sentence, m.start(), m.end(), new, f"{m.group()} -> {replacement}"))
    rng.shuffle(edits)
    return edits[:1]


# --- faithful edits -------------------------------------------------------------------------------------------


def same_facts(text: str, edited: str) -> bool:
    """Whether two texts state the same quantities (value, unit kind, bound, rounding) and dates."""

    def key(q: Quantity) -> tuple:
        return (q.dimension, q.bound, q.approximate)

    one, two = (
        sorted(_quantities(text), key=lambda q: (key(q), q.value)),
        sorted(_quantities(edited), key=lambda q: (key(q), q.value)),
    )
    if len(one) != len(two) or any(key(a) != key(b) or not same_quantity(a, b) for a, b in zip(one, two, strict=True)):
        return False
    dated = sorted((d.year or 0, d.month or 0, d.day or 0) for d in _dates(text))
    return dated == sorted((d.year or 0, d.month or 0, d.day or 0) for d in _dates(edited))


_UNIT_ABBR = re.compile(
    r"( ?)(" + "|".join(re.escape(a) for a in sorted(UNIT_NAMES, key=len, reverse=True)) + r")(?![\w/°²³-])"
)
_UNIT_FULL = re.compile(
    r"( )(" + "|".join(re.escape(f) for f in sorted(UNIT_ABBREVIATIONS, key=len, reverse=True)) + r")(?![\w/-])", re.I
)


def _british(sentence: Sentence) -> bool:
    return bool(
        re.search(r"\b(?:\w*metres?|\w*litres?)\b", " ".join([sentence.text, *(t for _, t in sentence.documents)]))
    )


def _spelled_unit(abbr: str, value: float, british: bool) -> str:
    singular, plural = UNIT_NAMES[abbr]
    word = singular if value == 1 else plural
    return british_spelling(word) if british else word


def faithful_unit_spelling(sentence: Sentence, rng: random.Random | None = None) -> list[Edit]:
    """A unit written the other way: abbreviated <-> spelled out.

    >>> s = _sentence("The trail is 12 km long and 5% of it is paved.", "The trail is 12 km long.")
    >>> sorted(apply(s, e) for e in faithful_unit_spelling(s))
    ['The trail is 12 kilometers long and 5% of it is paved.', 'The trail is 12 km long and 5 percent of it is paved.']
    """
    text = sentence.text
    british = _british(sentence)
    edits = []
    for q in _quantities(text):
        m = _number_text(text, q) or _DIGITS.search(text, q.span[0], q.span[1])
        if not m or not q.dimension or q.dimension.startswith("count:"):
            continue
        value = float(m.group().replace(",", ""))
        abbr = _UNIT_ABBR.match(text, m.end())
        full = _UNIT_FULL.match(text, m.end())
        if abbr and abbr.end() <= q.span[1]:
            new = " " + _spelled_unit(abbr.group(2), value, british)
            start, end, old = abbr.start(), abbr.end(), abbr.group(2)
        elif full and full.end() <= q.span[1]:
            short = UNIT_ABBREVIATIONS[full.group(2).lower()]
            new = short if short in ("%", "°C", "°F") else " " + short
            start, end, old = full.start(), full.end(), full.group(2)
        else:
            continue
        edited = text[:start] + new + text[end:]
        if same_facts(text, edited):
            edits.append(Edit("unit_spelling", sentence, start, end, new, f"{m.group()} {old} -> {m.group()}{new}"))
    return edits


_LARGE = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3}){2,})(?![\w]|[.,]\d)")
_SCALED = re.compile(r"(?<![\w.,])(\d+(?:\.\d{1,2})?) (million|billion)\b")
_SMALL_DIGIT = re.compile(r"(?<![\w.,:/$€£-])([2-9]|1[0-2])(?= ([a-z]+s)\b)")
_SMALL_WORD = re.compile(rf"\b({'|'.join(ONES[2:13])})(?= ([a-z]+s)\b)", re.I)


def faithful_number_form(sentence: Sentence, rng: random.Random | None = None) -> list[Edit]:
    """A number written another way: grouped digits <-> "1.5 million", digits <-> words from two to twelve.

    >>> s = _sentence("About 1,500,000 people visit in 3 days.", "About 1,500,000 people visit in 3 days.")
    >>> sorted(apply(s, e) for e in faithful_number_form(s))
    ['About 1,500,000 people visit in three days.', 'About 1.5 million people visit in 3 days.']
    """
    text = sentence.text
    edits = []
    for m in _LARGE.finditer(text):
        if in_range(text, m.start(), m.end()):
            continue
        value = int(m.group(1).replace(",", ""))
        scale, word = (10**9, "billion") if value >= 10**9 else (10**6, "million")
        scaled = value / scale
        if round(scaled, 2) == scaled:
            new = f"{scaled:g} {word}"
            edits.append(Edit("number_form", sentence, m.start(1), m.end(1), new, f"{m.group(1)} -> {new}"))
    for m in _SCALED.finditer(text):
        if in_range(text, m.start(), m.end()) or re.search(r"\d\s*(?:-|–|to|or|and)\s*[$€£]?$", text[: m.start()]):
            continue  # "3 to 5 million" is not "3 to 5,000,000"
        value = float(m.group(1)) * (10**6 if m.group(2) == "million" else 10**9)
        if value.is_integer():
            new = f"{int(value):,}"
            edits.append(Edit("number_form", sentence, m.start(), m.end(), new, f"{m.group()} -> {new}"))
    for m in _SMALL_DIGIT.finditer(text):
        if re.search(r"\d,?\s*(?:or|and)?\s*$", text[: m.start()]):
            continue  # one of a list of digits ("3, 5, or 7 days") stays a digit
        if (
            _LABEL_BEFORE.search(text[: m.start()])
            or m.group(2) in UNIT_ABBREVIATIONS
            or re.match(r"\s*(?:-|–|to)\s*\d", text[m.end() + len(m.group(2)) + 1 :])
        ):
            continue
        new = ONES[int(m.group(1))]
        if m.start() == 0:
            new = new.capitalize()
        edits.append(Edit("number_form", sentence, m.start(1), m.end(1), new, f"{m.group(1)} -> {new}"))
    for m in _SMALL_WORD.finditer(text):
        if m.start() == 0:
            continue  # a sentence does not start with a digit
        new = str(ONES.index(m.group(1).lower()))
        edits.append(Edit("number_form", sentence, m.start(1), m.end(1), new, f"{m.group(1)} -> {new}"))
    return [e for e in edits if same_facts(text, apply(sentence, e))]


_UNIT_WORD = re.compile(r"(\s?)([A-Za-zµ]+)(?![\w/°²³-])")


def faithful_unit_conversion(sentence: Sentence, rng: random.Random | None = None) -> list[Edit]:
    """A quantity in the next larger or smaller unit of its system, when the number stays plain.

    >>> s = _sentence("Charging takes 90 minutes.", "Charging takes 90 minutes.")
    >>> [apply(s, e) for e in faithful_unit_conversion(s)]
    ['Charging takes 1.5 hours.']
    """
    text = sentence.text
    british = _british(sentence)
    edits = []
    for q in _quantities(text):
        m = _number_text(text, q)
        if not m or q.approximate or q.dimension.split("/")[0] not in UNIT_STEPS:
            continue
        if in_range(text, m.start(), m.end()):
            continue
        unit = _UNIT_WORD.match(text, m.end())
        if not unit or unit.end() > q.span[1] or unit.group(2).lower() not in UNITS:
            continue
        dimension, size = UNITS[unit.group(2).lower()]
        steps = UNIT_STEPS[dimension]
        here = [i for i, (_, s) in enumerate(steps) if abs(s - size) < 1e-12]
        if not here:
            continue
        number = float(m.group().replace(",", ""))
        for i in (here[0] + 1, here[0] - 1):
            if not 0 <= i < len(steps):
                continue
            name, target = steps[i]
            new_number = number * size / target
            if not (new_number * 2).is_integer() and not (abs(new_number * 2 - round(new_number * 2)) < 1e-9):
                continue
            new_number = round(new_number * 2) / 2
            if not 1 <= new_number <= (1000 if target < size else 100_000):
                continue
            written = f"{int(new_number):,}" if new_number.is_integer() else f"{new_number:g}"
            word = name + ("" if new_number == 1 else "s")
            if british:
                word = british_spelling(word)
            new = f"{written} {word}"
            edited = text[: m.start()] + new + text[unit.end() :]
            if same_facts(text, edited):
                detail = f"{text[m.start() : unit.end()]} -> {new}"
                edits.append(Edit("unit_conversion", sentence, m.start(), unit.end(), new, detail))
                break
    return edits


_ARITHMETIC = (
    (r"\b(?:two|2) times\b", "twice"),
    (r"\btwice\b", "two times"),
    (r"\bone in the morning and one in the evening\b", "twice a day"),
    (r"\bone in the morning and one at night\b", "twice a day"),
    (r"\ba dozen\b", "12"),
    (r"\b12(?= (?!months|hours|inches|minutes|seconds|days|weeks|years)[a-z]+s\b)", "a dozen"),
    (r"\b(?:50|fifty) ?(?:%|percent|per cent) of\b", "half of"),
    (r"\bhalf an hour\b", "30 minutes"),
    (r"\b(?:30|thirty) minutes\b", "half an hour"),
)


def faithful_arithmetic(sentence: Sentence, rng: random.Random | None = None) -> list[Edit]:
    """The same amount by arithmetic: "two times" <-> "twice", "a dozen" <-> "12", "50% of" -> "half of",
    "half an hour" <-> "30 minutes", "one in the morning and one in the evening" -> "twice a day".

    >>> s = _sentence("Take one in the morning and one in the evening.", "Take one in the morning and one at noon.")
    >>> [apply(s, e) for e in faithful_arithmetic(s)]
    ['Take twice a day.']
    """
    text = sentence.text
    edits = []
    for pattern, replacement in _ARITHMETIC:
        for m in re.finditer(pattern, text, re.I):
            if (m.start() > 0 and text[m.start() - 1] in "-–.$") or _title_case(text, m.start()):
                continue
            new = _case_like(replacement, m.group()) if m.group()[:1].isalpha() else replacement
            edits.append(Edit("arithmetic", sentence, m.start(), m.end(), new, f"{m.group()} -> {new}"))
    return edits


def faithful_date_order(sentence: Sentence, rng: random.Random | None = None) -> list[Edit]:
    """A full date in the other order: "9 November 1989" <-> "November 9, 1989"; ISO -> "9 November 1989".

    >>> s = _sentence("The wall fell on November 9, 1989.", "It fell on 9 November 1989.")
    >>> [apply(s, e) for e in faithful_date_order(s)]
    ['The wall fell on 9 November 1989.']
    """
    text = sentence.text
    edits = []
    for d in _dates(text):
        if not (d.year and d.month and d.day):
            continue
        start, end = d.span
        piece = text[start:end]
        month = _MONTH_FULL[d.month - 1]
        new = (
            f"{month} {d.day}, {d.year}"
            if piece[0].isdigit() and not re.match(r"\d{4}-", piece)
            else f"{d.day} {month} {d.year}"
        )
        edited = text[:start] + new + text[end:]
        if new != piece and same_facts(text, edited):
            edits.append(Edit("date_order", sentence, start, end, new, f"{piece} -> {new}"))
    return edits


_LEAD = re.compile(
    r"^(If|When|Whenever|Once|After|Before|While|Although|Though|Because|Unless|Until|Since|As soon as|"
    r"To(?= (?!the|a|an|this|that|these|those|my|your|his|her|its|our|their|date|some|all|each|be)[a-z]+)|"
    r"In|On|During|For|By|At)\b"
)
_DISCOURSE = re.compile(
    r"^(?:In (?:addition|summary|conclusion|short|fact|other words|contrast|brief|turn|the meantime|the end|"
    r"comparison|essence|particular|general|this regard|that regard|(?:the|this|that) (?:context|passage|text|"
    r"document|article|source|study|case))|"
    r"For (?:example|instance|this reason|these reasons)|"
    r"By (?:contrast|comparison|the way)|At (?:the same time|first|last|least|most|once|times)|"
    r"On (?:the other hand|the contrary|top of)|As (?:a result|such|well))\b",
    re.I,
)
_PRONOUN_START = re.compile(  # a pronoun to look back with, or no main clause at all ("which is disputed")
    r"^(?:he|she|it|they|this|these|those|his|her|its|their|him|them|there|which|who|whom|whose|that|and|but|or|"
    r"so|then|as|if|when|while|because|although|though)\b",
    re.I,
)
_MARKERS = re.compile(r"^(\s*(?:\d{1,2}[.)]|[-*•])\s+)?(.*?)(\s+\d{1,2}[.)])?\s*$", re.S)


def faithful_clause_order(sentence: Sentence, rng: random.Random | None = None) -> list[Edit]:
    """A fronted clause or phrase moved behind the main clause at its comma.

    >>> s = _sentence("To reset the TV, press and hold the Menu button.", "To reset the TV, press and hold Menu.")
    >>> [apply(s, e) for e in faithful_clause_order(s)]
    ['Press and hold the Menu button to reset the TV.']
    """
    text = sentence.text
    parts = _MARKERS.match(text)
    if not parts:
        return []
    core_start = parts.start(2)
    core = parts.group(2)
    m = re.match(r"^([^,;:()\"“”]{4,140}),\s+([^,;:()\"“”]+?)([.!])$", core)
    if not m or not _LEAD.match(m.group(1)) or _DISCOURSE.match(m.group(1)):
        return []
    lead, main, stop = m.groups()
    main = main.rstrip()
    if len(lead.split()) < 2 or len(main.split()) < 3 or _PRONOUN_START.match(main):
        return []
    first = lead.split()[0]
    moved = lead[0].lower() + lead[1:] if first not in ("I",) else lead
    new = main[0].upper() + main[1:] + " " + moved + stop
    if sorted(re.findall(r"\w+", new.lower())) != sorted(re.findall(r"\w+", core.lower())):
        return []
    return [Edit("clause_order", sentence, core_start, core_start + len(core), new, f"'{lead},' moved to the end")]


_WANTS = (
    (
        re.compile(r"^\s*(?:when|what year|in what year|in which year|which year|what date|on what date)\b", re.I),
        "date",
    ),
    (re.compile(r"^\s*how (?:many|much|long|old|far|big|tall|high|large|heavy|deep|wide)\b", re.I), "quantity"),
    (
        re.compile(
            r"^\s*(?:who|whom|where|which|what (?!is\b|are\b|was\b|were\b|does\b|do\b|did\b|can\b|could\b|causes?\b|"
            r"happens?\b|should\b|would\b|will\b|if\b|kinds?\b|types?\b|makes?\b|has\b|have\b|had\b)[a-z]+)\b",
            re.I,
        ),
        "name",
    ),
)
_VERB_BEFORE = re.compile(
    r"\b((?:[a-z]+ed|born|built|made|held|founded|located|based|headquartered|released|published|written|directed|"
    r"produced|named|called|known|sold|won|led|set|shot|formed|established|opened|created|designed|invented|"
    r"discovered|introduced|launched|elected|appointed|signed|drafted|married|awarded|buried|raised|situated|"
    r"begun|began|started|died|ended)\s+(?:in|on|at|by|from|after|as|for|to|into|with)\s+(?:the\s+)?)$"
)


def faithful_short_answer(sentence: Sentence, rng: random.Random | None = None) -> list[Edit]:
    """A one-sentence answer cut to the one fact (date, quantity or name) its question asks for, lifted
    verbatim with its verb and preposition when it has them.

    >>> s = _sentence("Acme was founded in 2012 by three engineers.", "Acme was founded in 2012.",
    ...               question="When was Acme founded?")
    >>> [apply(s, e) for e in faithful_short_answer(s)]
    ['Founded in 2012.']
    """
    if len(sentence.response_sentences) != 1 or len(sentence.text.split()) > 30:
        return []
    if re.search(
        r"\b(?:but|however|although|though|except|unless|as of|additional|only|not|no|never|if)\b", sentence.text, re.I
    ):
        return []  # a qualified answer: its one fact alone would say more than it
    wants = next((kind for pattern, kind in _WANTS if pattern.match(sentence.question)), None)
    text, question = sentence.text, sentence.question
    evidence = sentence.evidence_text
    spans: list[tuple[int, int]] = []
    if wants == "date":
        asked = {d.year for d in _dates(question)}
        for d in _dates(text):
            if d.year and d.year not in asked and any(e.agrees_with(d) and e.year for e in _dates(evidence)):
                spans.append(d.span)
    elif wants == "quantity":
        asked_q = _quantities(question)
        for q in _quantities(text):
            if q.bound or any(same_quantity(q, a) for a in asked_q):
                continue
            if in_range(text, *q.span) or re.search(r"\d\s*(?:-|–|to|or)\s*$", text[: q.span[0]]):
                return []  # "3 to 5 million": one end is not the answer
            if any(same_quantity(q, e) for e in _quantities(evidence)):
                start = q.span[0] - (len(q.text) - len(text[q.span[0] : q.span[1]]))  # "about" with it
                spans.append((start, q.span[1]))
    elif wants == "name":
        asked_n = list(_names(question))
        for name in _names(text):
            if same_name(name, asked_n, question):
                continue
            start = text.find(name)
            whole = text.count(name) == 1 and not re.match(r"\s*(?:[A-Z]|['’]s\b)", text[start + len(name) :])
            if not whole or name not in evidence or in_title(text, start, start + len(name)):
                return []  # the answer is not this one name, whole and stated ("Donald" of "Donald J. Trump's")
            spans.append((start, start + len(name)))
    if len(spans) != 1:
        return []
    start, end = spans[0]
    verb = _VERB_BEFORE.search(text[:start])
    if verb:
        start = verb.start(1)
    piece = text[start:end].strip()
    if not piece or len(piece.split()) > 12:
        return []
    short = piece[0].upper() + piece[1:] + ("" if piece.endswith(".") else ".")
    if short.rstrip(".") == text.rstrip(". ") or len(split_sentences(short)) != 1:
        return []
    return [Edit("short_answer", sentence, 0, len(text), short, f"answer cut to {short!r}")]


# --- the rows -------------------------------------------------------------------------------------------

EDITS: dict[str, Callable[[Sentence, random.Random], list[Edit]]] = {
    "number": contradict_number,
    "date": contradict_date,
    "entity": contradict_entity,
    "negation": contradict_negation,
    "direction": contradict_direction,
    "role_swap": contradict_role_swap,
    "scope": contradict_scope,
    "unit_spelling": faithful_unit_spelling,
    "number_form": faithful_number_form,
    "unit_conversion": faithful_unit_conversion,
    "arithmetic": faithful_arithmetic,
    "date_order": faithful_date_order,
    "clause_order": faithful_clause_order,
    "short_answer": faithful_short_answer,
}


def sample_id(row: dict[str, Any]) -> str:
    """The row's sample id as ``rageval_lc.datasets.ragbench`` builds it: ``dataset:id:generator``."""
    parts = (row.get("dataset_name"), row.get("id"), row.get("generation_model_name"))
    return ":".join(str(part) for part in parts if part is not None)


def subset_of(dataset_name: str) -> str:
    for suffix in ("_train", "_validation", "_test"):
        if dataset_name.endswith(suffix):
            return dataset_name[: -len(suffix)]
    return dataset_name


def supported_sentences(row: dict[str, Any]) -> tuple[list[Sentence], str | None]:
    """The response sentences labelled supported by named document sentences, or why the row is not used."""
    if row.get("unsupported_response_sentence_keys") != [] or row.get("adherence_score") is not True:
        return [], "answer not labelled fully supported"
    info = row.get("sentence_support_information") or []
    if not info:
        return [], "no sentence support information"
    if any(entry.get("fully_supported") is False for entry in info):
        return [], "a sentence labelled not supported (labels disagree)"
    documents = tuple((normalize_key(k) or k, t) for doc in row["documents_sentences"] for k, t in doc)
    lookup = dict(documents)
    response = [(k, t) for k, t in row["response_sentences"]]
    support = {normalize_key(entry.get("response_sentence_key")): entry for entry in info}
    out = []
    for key, text in response:
        entry = support.get(normalize_key(key))
        if entry is None:
            continue
        keys = [normalize_key(k) for k in entry.get("supporting_sentence_keys") or []]
        keys = [k for k in dict.fromkeys(keys) if k in lookup]
        if keys and text.strip():
            evidence = tuple((k, lookup[k]) for k in keys)
            out.append(Sentence(key, text, evidence, documents, row["question"], tuple(t for _, t in response)))
    return out, (None if out else "no sentence with evidence keys")


def _flexible(text: str) -> str:
    """A pattern for ``text`` that lets any run of white space match any other."""
    return "".join(r"\s+" if part.isspace() else re.escape(part) for part in re.split(r"(\s+)", text) if part)


def edited_response(response: str, sentence: str, edit: Edit) -> str | None:
    """The response with the edit made where the sentence stands in it (its white space may differ)."""
    pattern = _flexible(sentence[: edit.start]) + "(" + _flexible(sentence[edit.start : edit.end]) + ")"
    pattern += _flexible(sentence[edit.end :])
    found = list(re.finditer(pattern, response))
    if len(found) != 1:
        return None
    m = found[0]
    return response[: m.start(1)] + edit.new + response[m.end(1) :]


def make_twin(row: dict[str, Any], edit: Edit, fold: str) -> dict[str, Any] | str:
    """The twin row for an edit, or why it cannot be made."""
    sentence = edit.sentence
    new_sentence = apply(sentence, edit)
    if edit.kind not in ("clause_order", "short_answer") and in_title(sentence.text, edit.start, edit.end):
        return "inside a quoted title"
    if edit.kind == "short_answer":
        response = new_sentence
    else:
        response = edited_response(row["response"], sentence.text, edit)
        if response is None:
            return "sentence not found once in the response"
    before, after = split_sentences(row["response"]), split_sentences(response)
    if len(before) != len(after):
        return "re-split: another sentence count"
    if sum(a != b for a, b in zip(before, after, strict=True)) != 1:
        return "re-split: not exactly one sentence changed"
    if len(split_sentences(new_sentence)) != len(split_sentences(sentence.text)):
        return "re-split: the edited sentence splits differently"
    twin = "contradicting" if edit.kind in CONTRADICTING else "faithful"
    subset = subset_of(str(row.get("dataset_name") or "ragbench"))
    out = dict(row)
    out["id"] = f"{row.get('id')}:{twin}:{edit.kind}"
    out["dataset_name"] = f"twin_{subset}"
    out["response"] = response
    out["response_sentences"] = [[k, new_sentence if k == sentence.key else t] for k, t in row["response_sentences"]]
    for column in OTHER_JUDGE_COLUMNS:
        if column in out:
            out[column] = None  # they scored the original text
    if twin == "contradicting":
        note = f"Twin of {sample_id(row)}: sentence {sentence.key} changed ({edit.detail}); "
        note += f"the documents ({', '.join(k for k, _ in sentence.evidence)}) state the original."
        out["unsupported_response_sentence_keys"] = [sentence.key]
        out["adherence_score"] = False
        out["overall_supported_explanation"] = note
        info = []
        for entry in row["sentence_support_information"]:
            if normalize_key(entry.get("response_sentence_key")) == normalize_key(sentence.key):
                entry = {**entry, "explanation": note, "fully_supported": False, "supporting_sentence_keys": []}
            info.append(entry)
        out["sentence_support_information"] = info
    out.update(
        twin=twin,
        edit_kind=edit.kind,
        edited_key=sentence.key,
        original_sentence=sentence.text,
        edited_sentence=new_sentence,
        evidence_keys=[k for k, _ in sentence.evidence],
        detail=edit.detail,
        fold=fold,
        original_id=sample_id(row),
    )
    return out


def _rng(seed: int, *parts: str) -> random.Random:
    digest = hashlib.sha256(":".join([str(seed), *parts]).encode()).hexdigest()
    return random.Random(int(digest[:16], 16))


def twins_of(row: dict[str, Any], fold: str, seed: int, tally: collections.Counter) -> list[dict[str, Any]]:
    """Every twin of one row: one per kind at most, a seeded choice among the places the kind applies."""
    sentences, reason = supported_sentences(row)
    if reason:
        tally[f"row skipped: {reason}"] += 1
        return []
    out = []
    for kind, make in EDITS.items():
        rng = _rng(seed, sample_id(row), kind)
        edits = [edit for sentence in sentences for edit in make(sentence, rng)]
        rng.shuffle(edits)
        for edit in edits:
            twin = make_twin(row, edit, fold)
            if isinstance(twin, str):
                tally[f"{kind} edit dropped: {twin}"] += 1
                continue
            out.append(twin)
            break
    if not out:
        tally["row skipped: no edit applies"] += 1
    return out


def read_rows(shared: Path) -> Iterator[tuple[dict[str, Any], str]]:
    """RAGBench rows with their fold, then WiCE's (fold ``aux``, a question made as the calibration makes it)."""
    for path in sorted((shared / "data" / "ragbench").glob("*.jsonl")):
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    row = json.loads(line)
                    name = str(row.get("dataset_name") or path.stem)
                    yield row, fold_of(name, subset_of(name), row.get("id"))
    for source in AUX_SOURCES:
        path = shared / "data" / "aux" / f"{source}.jsonl.gz"
        if not path.exists():
            continue
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                row["question"] = row.get("question") or (
                    f"What do the sources say about {row.get('aux_claim_title') or 'this'}?"
                )
                yield row, "aux"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--out", type=Path, default=ROOT / ".cache" / "twins" / "twins.jsonl")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    start = time.time()
    tally: collections.Counter = collections.Counter()
    counts: collections.Counter = collections.Counter()
    rows = 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    with args.out.open("w", encoding="utf-8", newline="\n") as fh:
        for row, fold in read_rows(args.shared):
            rows += 1
            for twin in twins_of(row, fold, args.seed, tally):
                key = sample_id(twin)
                if key in seen:
                    tally[f"{twin['edit_kind']} edit dropped: duplicate id"] += 1
                    continue
                seen.add(key)
                counts[(twin["twin"], twin["edit_kind"], twin["fold"])] += 1
                fh.write(json.dumps(twin, ensure_ascii=False) + "\n")
    print(report(counts, tally, rows, time.time() - start, args.out))
    return 0


def report(counts: collections.Counter, tally: collections.Counter, rows: int, seconds: float, out: Path) -> str:
    folds = sorted({fold for _, _, fold in counts}, key=lambda f: ("fit", "held", "aux").index(f))
    lines = [f"{sum(counts.values())} twins of {rows} rows written to {out} in {seconds:.0f}s", ""]
    lines.append(f"| twin | kind | {' | '.join(folds)} | all |")
    lines.append("|---|---|" + "---|" * (len(folds) + 1))
    for twin, kinds in (("contradicting", CONTRADICTING), ("faithful", FAITHFUL)):
        for kind in kinds:
            cells = [counts[(twin, kind, fold)] for fold in folds]
            lines.append(f"| {twin} | {kind} | {' | '.join(map(str, cells))} | {sum(cells)} |")
        cells = [sum(counts[(twin, k, fold)] for k in kinds) for fold in folds]
        lines.append(f"| {twin} | all | {' | '.join(map(str, cells))} | {sum(cells)} |")
    lines += ["", "Rows skipped and edits dropped:"]
    lines += [f"  {reason}: {n}" for reason, n in sorted(tally.items())]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
