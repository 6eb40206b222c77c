"""The offline judge's NLI pass: align each response sentence to document text, score the pairs, explain.

Each response sentence is paired with its two closest document sentences (by embedding similarity) and
with a window of three sentences around the closest one (for claims spread over two sentences). The NLI
model (:mod:`~rageval_lc.judges.nli`) scores every pair; per sentence this yields the features of
:data:`NLI_FEATURES` (fed to the calibrated support model) and a :class:`SentenceNli` verdict:
``supported`` (some pair is entailed), ``contradicted`` (some pair is contradicted and none entailed) or
``not_found``. A contradiction names the document sentence and, where it can, what conflicts.

Example:
    >>> conflict_detail("Mount Everest is 6,120 metres tall.", "0a", "Mount Everest is 8,849 metres tall.")
    'says 6,120 metres; 0a says 8,849 metres'
    >>> conflict_detail("The capital of Australia is Sydney.", "0a", "Canberra is the capital city of Australia.")
    'says Sydney; 0a says Canberra'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rageval_lc.text import KeyedSentences

__all__ = [
    "NLI_FEATURES",
    "SentenceNli",
    "conflict_detail",
    "nli_pairs",
    "nli_table",
]

#: Columns of the per-response-sentence NLI table (appended to the support features).
NLI_FEATURES: tuple[str, ...] = (
    "nli_entail_max",
    "nli_contradiction_max",
    "nli_entail_logit",
    "nli_contradiction_logit",
    "nli_neutral_at_best",
    "nli_contradicted",
)
_WINDOW = 1  # sentences on each side of the closest one
_SINGLES = 2  # closest document sentences scored alone
_QUANTITY = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)(?:\s*(%|[A-Za-z°][A-Za-z°/]*))?")
_NAME = re.compile(r"\b[A-Z][a-zA-Z]+(?:\s+[A-Z][a-zA-Z]+)*")
_NEGATION = re.compile(r"\b(not|no|never|none|nor|cannot|without|n't)\b", re.I)
_NOT_UNITS = frozenset("a an the and or of in on at to for by with is are was were be it its as than that".split())


@dataclass(frozen=True)
class SentenceNli:
    """The NLI outcome of one response sentence.

    Attributes:
        verdict: ``supported``, ``contradicted`` or ``not_found``.
        entailment: the highest entailment probability over its pairs.
        contradiction: the highest contradiction probability over its pairs.
        entailing_keys: the document keys of the most entailing pair.
        contradicting_keys: the document keys of the most contradicting pair.
        detail: for a contradiction, what conflicts (``"says X; 0a says Y"``), else "".
    """

    verdict: str
    entailment: float
    contradiction: float
    entailing_keys: tuple[str, ...]
    contradicting_keys: tuple[str, ...]
    detail: str = ""


def nli_pairs(
    sentences: KeyedSentences, best_matches: Sequence[Sequence[str]]
) -> list[list[tuple[tuple[str, ...], str]]]:
    """Per response sentence, its (document keys, premise text) candidates.

    Args:
        sentences: the sample's keyed sentences.
        best_matches: per response sentence, its closest document keys, closest first.
    """
    text_of = {key: text for doc in sentences.documents for key, text in doc}
    place = {key: (i, j) for i, doc in enumerate(sentences.documents) for j, (key, _) in enumerate(doc)}
    out = []
    for matches in best_matches:
        candidates: dict[tuple[str, ...], str] = {}
        for key in list(matches)[:_SINGLES]:
            candidates[(key,)] = text_of[key]
        if matches:
            i, j = place[matches[0]]
            doc = sentences.documents[i]
            window = doc[max(0, j - _WINDOW) : j + _WINDOW + 1]
            if len(window) > 1:
                candidates[tuple(k for k, _ in window)] = " ".join(t for _, t in window)
        out.append(list(candidates.items()))
    return out


def _logit(p: float) -> float:
    p = min(1 - 1e-4, max(1e-4, p))
    return float(np.log(p / (1 - p)))


def nli_table(
    sentences: KeyedSentences,
    best_matches: Sequence[Sequence[str]],
    predict: object,
) -> tuple[np.ndarray, tuple[SentenceNli, ...]]:
    """The NLI features (rows in response order, columns :data:`NLI_FEATURES`) and verdicts.

    Args:
        sentences: the sample's keyed sentences.
        best_matches: per response sentence, its closest document keys, closest first.
        predict: a callable taking (premise, hypothesis) pairs and returning probability rows
            (entailment, neutral, contradiction), e.g. :meth:`NliModel.predict`.
    """
    candidates = nli_pairs(sentences, best_matches)
    hypotheses = [text for _, text in sentences.response]
    flat = [(premise, hypotheses[k]) for k, cands in enumerate(candidates) for _, premise in cands]
    probabilities = np.asarray(predict(flat)) if flat else np.zeros((0, 3))  # type: ignore[operator]
    text_of = {key: text for doc in sentences.documents for key, text in doc}
    table = np.zeros((len(hypotheses), len(NLI_FEATURES)))
    verdicts = []
    start = 0
    for k, cands in enumerate(candidates):
        p = probabilities[start : start + len(cands)]
        start += len(cands)
        if not len(p):
            table[k] = (0.0, 0.0, _logit(0.0), _logit(0.0), 1.0, 0.0)
            verdicts.append(SentenceNli("not_found", 0.0, 0.0, (), ()))
            continue
        best_e, best_c = int(np.argmax(p[:, 0])), int(np.argmax(p[:, 2]))
        entail, contra = float(p[best_e, 0]), float(p[best_c, 2])
        entailed = bool((p.argmax(axis=1) == 0).any())
        contradicted = not entailed and int(p[best_c].argmax()) == 2
        table[k] = (entail, contra, _logit(entail), _logit(contra), float(p[best_e, 1]), float(contradicted))
        keys_c = cands[best_c][0]
        detail = ""
        if contradicted:
            key = min(keys_c, key=lambda x: -_overlap(hypotheses[k], text_of[x]))
            detail = conflict_detail(hypotheses[k], key, text_of[key])
        verdict = "supported" if entailed else "contradicted" if contradicted else "not_found"
        verdicts.append(SentenceNli(verdict, entail, contra, cands[best_e][0], keys_c, detail))
    return table, tuple(verdicts)


def _overlap(a: str, b: str) -> int:
    return len(set(a.lower().split()) & set(b.lower().split()))


def _quantities(text: str) -> list[tuple[str, str]]:
    """(number, unit) pairs; the unit is the word right after the number, when it is not a common word."""
    out = []
    for number, unit in _QUANTITY.findall(text):
        unit = unit if unit and unit.lower() not in _NOT_UNITS else ""
        out.append((number, unit))
    return out


def conflict_detail(hypothesis: str, key: str, premise: str) -> str:
    """What a contradicted sentence says against document sentence ``key``, as far as words show it.

    Numbers (with their units) first, then names, then a negation present on one side only; "" when
    nothing specific shows (the reason then quotes the document sentence).
    """
    said, there = _quantities(hypothesis), _quantities(premise)
    there_numbers = {n.replace(",", "") for n, _ in there}
    said_numbers = {n.replace(",", "") for n, _ in said}
    new = [q for q in said if q[0].replace(",", "") not in there_numbers]
    old = [q for q in there if q[0].replace(",", "") not in said_numbers]
    if new and old:
        return f"says {_join(new)}; {key} says {_join(old)}"
    said_units = {(n.replace(",", ""), u.lower()) for n, u in said if u}
    for number, unit in there:
        for n, u in said_units:
            if n == number.replace(",", "") and unit and u != unit.lower():
                return f"says {number} {u}; {key} says {number} {unit}"
    names_said = _names(hypothesis)
    names_there = _names(premise)
    new_names = [n for n in names_said if n.lower() not in premise.lower()]
    old_names = [n for n in names_there if n.lower() not in hypothesis.lower()]
    if new_names and old_names:
        return f"says {', '.join(new_names)}; {key} says {', '.join(old_names[:3])}"
    neg_said, neg_there = bool(_NEGATION.search(hypothesis)), bool(_NEGATION.search(premise))
    if neg_said != neg_there:
        return f"{key} {'does not negate' if neg_said else 'negates'} what the sentence states"
    return ""


def _names(text: str) -> list[str]:
    """Capitalised word runs, without the sentence's first word when it is a common word."""
    names = _NAME.findall(text)
    first = text.lstrip().split(" ", 1)[0]
    if names and names[0] == first and first.lower() in _COMMON_STARTS:
        names = names[1:]
    return list(dict.fromkeys(names))


def _join(quantities: list[tuple[str, str]]) -> str:
    return ", ".join(f"{n} {u}".strip() for n, u in quantities[:3])


_COMMON_STARTS = frozenset(
    "the a an it its this that these those he she they we you i in on at by for from with as there their his her "
    "our my your after before during since when while if although however yes no".split()
)
