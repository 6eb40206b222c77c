"""Offline answer-vs-reference comparison: do the answer's key terms agree with the reference's?

Embedding similarity cannot tell "Tampa, Florida" from "Glendale, Arizona" (both on topic), so the local
judge also compares *key terms* — numbers, capitalised names and rare words — that the answer adds
beyond the question. Precision: the share of the answer's new key terms found in the reference;
recall: the share of the reference's new key terms found in the answer. None when a side adds none.
(A number or date the reference gives otherwise is the contradiction detector's to find, unit by unit:
:func:`~rageval_lc.judges.offline.contradiction.figures_stated_otherwise`.)

Example:
    >>> overlap = key_term_overlap("Super Bowl 2021 location", "Glendale, Arizona", "Tampa, Florida")
    >>> overlap.precision, overlap.recall, overlap.not_in_reference
    (0.0, 0.0, ('arizona', 'glendale'))
    >>> key_term_overlap("Where does the heath grow?", "It grows in Cornwall.", "On the Lizard, in Cornwall.").precision
    1.0
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from rageval_lc.judges.offline.features import STOPWORDS

__all__ = ["KeyTermOverlap", "key_term_overlap", "key_terms"]

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+(?:[.,:/]\d+)*")


@dataclass(frozen=True)
class KeyTermOverlap:
    """How the answer's and the reference's new key terms overlap (None: that side adds none)."""

    precision: float | None
    recall: float | None
    answer_terms: tuple[str, ...]
    reference_terms: tuple[str, ...]
    not_in_reference: tuple[str, ...] = ()


def _stem(word: str) -> str:
    word = word.lower().removesuffix("'s")
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def key_terms(text: str, *, is_rare: Callable[[str], bool] | None = None) -> set[str]:
    """Numbers, capitalised words and (with ``is_rare``) rare words of ``text``, lower-cased and stemmed."""
    terms = set()
    for token in _TOKEN.findall(text):
        low = token.lower()
        if low in STOPWORDS:
            continue
        if token[0].isdigit() or token[0].isupper() or (is_rare is not None and len(low) > 3 and is_rare(low)):
            terms.add(_stem(token))
    return terms


def key_term_overlap(
    question: str, answer: str, reference: str, *, is_rare: Callable[[str], bool] | None = None
) -> KeyTermOverlap:
    """Compare the key terms the answer and the reference add beyond the question's words."""
    asked = {_stem(t) for t in _TOKEN.findall(question)}
    reference_words = {_stem(t) for t in _TOKEN.findall(reference)}
    answer_words = {_stem(t) for t in _TOKEN.findall(answer)}
    new_in_answer = key_terms(answer, is_rare=is_rare) - asked
    new_in_reference = key_terms(reference, is_rare=is_rare) - asked
    precision = len(new_in_answer & reference_words) / len(new_in_answer) if new_in_answer else None
    recall = len(new_in_reference & answer_words) / len(new_in_reference) if new_in_reference else None
    return KeyTermOverlap(
        precision,
        recall,
        tuple(sorted(new_in_answer)),
        tuple(sorted(new_in_reference)),
        tuple(sorted(new_in_answer - reference_words)),
    )
