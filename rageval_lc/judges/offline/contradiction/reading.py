"""What a response sentence is compared with, and how either side is read for the comparison.

The documents as evidence units (:func:`evidence_units`: each sentence and its clauses, windows of consecutive
sentences, a whole passage); the frame words of a text (:func:`frame_words`) and the share of a sentence's frame
a text holds (:func:`alignment`); and the slots of a text, read once and remembered (:func:`read_slots`: its
numbers and dates, :mod:`~rageval_lc.facts.numbers` and :mod:`~rageval_lc.facts.dates`; its names, negations and
comparisons, :mod:`~rageval_lc.facts.names` and :mod:`~rageval_lc.facts.polarity`), with the names a leading
pronoun may stand for (:func:`with_previous`). :mod:`~rageval_lc.judges.offline.contradiction.matching` compares
the two sides.

Example:
    >>> said = read_slots("The Berlin Wall fell in 1991.")
    >>> [d.describe() for d in said.dates], said.names, sorted(frame_words(said.text, said.names))
    (['1991'], ('Berlin Wall',), ['fell'])
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from rageval_lc.facts import MONTH_NUMBERS, NUMBER_WORDS, UNITS
from rageval_lc.facts.dates import Date, dates
from rageval_lc.facts.names import names
from rageval_lc.facts.numbers import Quantity, quantities
from rageval_lc.facts.polarity import ANTONYMS, NEGATIONS, Comparison, comparisons, negated_words
from rageval_lc.facts.words import STOP_WORDS, stem

__all__ = [
    "CACHED_TEXTS",
    "FRAME_STOP",
    "LEADING_PRONOUN",
    "MIN_CLAUSE_WORDS",
    "SINGLE",
    "EvidenceUnit",
    "Slots",
    "alignment",
    "clauses",
    "evidence_units",
    "frame_words",
    "read_slots",
    "with_previous",
]

#: A sentence opening with a pronoun ("it", "they", "in 2010, she"): it may mean the previous sentence's names.
LEADING_PRONOUN = re.compile(
    r"^\s*(?:(?:later|then|also|today|now|in \w+ \d{4}|in \d{4}),?\s+)?(?:it|its|they|their|she|her|he|his)\b", re.I
)
_WINDOWS = (2, 3)  # consecutive sentences read together
#: The kinds of evidence unit that make one statement.
SINGLE = ("sentence", "clause")
#: Texts whose slots, frame words and stems are remembered (a chunk's document sentences).
CACHED_TEXTS = 4096
_SPELLED_NUMBERS = NUMBER_WORDS | {"half"}  # and "half", which the figure slots read as a number too
#: Words that frame no statement: articles, auxiliaries, pronouns, prepositions, light verbs.
FRAME_STOP = STOP_WORDS | frozenset(
    "whom about around approximately roughly nearly almost some more less over under up least most per yes so such "
    "only just i we you our your after before during since while if although however because according able went go "
    "goes gone came come comes got get gets made make makes took take takes put puts".split()
)


@dataclass(frozen=True)
class EvidenceUnit:
    """Document text a sentence is compared with: one sentence, a window of sentences or a whole passage."""

    keys: tuple[str, ...]
    text: str
    kind: str  # "sentence", "clause", "window" or "passage"
    context: str = ""  # a sentence opening with "it", "she", ...: the sentence before it, whose names it may mean


def evidence_units(documents: Sequence[Sequence[tuple[str, str]]]) -> list[EvidenceUnit]:
    """Every document sentence, every window of 2 and 3 consecutive sentences of one document, and every
    passage longer than that (keyed sentences per document, as in ``KeyedSentences.documents``)."""
    out = []
    for doc in documents:
        doc = [(k, t) for k, t in doc if t.strip()]
        for j, (k, t) in enumerate(doc):
            before = doc[j - 1][1] if j and LEADING_PRONOUN.match(t) else ""
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
#: The fewest words a clause (or a sentence said verbatim) must have to be read on its own.
MIN_CLAUSE_WORDS = 4


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
    parts = [p for p in parts if len(p.split()) >= MIN_CLAUSE_WORDS]
    return parts if len(parts) > 1 else []


def frame_words(text: str, drop_names: Sequence[str] = ()) -> set[str]:
    """Stems of the content words that frame a statement: no stopwords, numbers, dates, units, negations,
    nor the words of the names in ``drop_names``.

    Example:
        >>> sorted(frame_words("The capital of Australia is not Sydney, a 2020 report says.", ["Australia", "Sydney"]))
        ['capital', 'report', 'says']
    """
    return set(_frame_words(text, tuple(drop_names)))


@lru_cache(maxsize=CACHED_TEXTS)
def _frame_words(text: str, drop_names: tuple[str, ...]) -> frozenset[str]:
    dropped = {w.lower().replace("’", "'").removesuffix("'s") for n in drop_names for w in n.split()}
    out = set()
    for word in re.findall(r"[A-Za-z][A-Za-z'’-]*", text):
        low = word.lower().replace("’", "'").removesuffix("'s")
        if (
            low in FRAME_STOP
            or low in NEGATIONS
            or low.endswith("n't")
            or low in dropped
            or low in MONTH_NUMBERS
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


@lru_cache(maxsize=CACHED_TEXTS)
def _stems(text: str) -> frozenset[str]:
    """Stems of every word of ``text``, and of the word each antonym negates ("closed" aligns "open")."""
    words = re.findall(r"[A-Za-z][A-Za-z'’-]*", text.lower())
    return frozenset({stem(w) for w in words} | {stem(ANTONYMS[w]) for w in words if w in ANTONYMS})


@dataclass(frozen=True)
class Slots:
    """What a text states, slot by slot (:func:`read_slots`)."""

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


@lru_cache(maxsize=CACHED_TEXTS)
def read_slots(text: str, context: str | None = None) -> Slots:
    """The slots of ``text``; ``context``: the other side's text (a sentence-initial word is a name only when
    capitalised there too)."""
    bare = re.sub(r"^\s*(?:no|yes|if not)\s*[,.:;!-]\s*", "", text, flags=re.I)  # an answer's "No, ..."
    bare = re.sub(r"\s*\([^()]*\)", "", bare)  # a parenthesis is an aside, not the statement
    return Slots(
        bare,
        tuple(quantities(bare)),
        tuple(dates(bare)),
        tuple(names(bare, context)),
        frozenset(negated_words(bare)),
        tuple(comparisons(bare)),
    )


def with_previous(said: Slots, sentence: str, previous: str | None, documents: str) -> Slots:
    """The slots with the names a leading pronoun may stand for (those of the previous response sentence)."""
    if previous and LEADING_PRONOUN.match(sentence):
        return replace(said, meant=tuple(n for n in names(previous, documents) if n not in said.names))
    return said
