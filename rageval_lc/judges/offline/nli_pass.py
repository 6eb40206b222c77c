"""The offline judge's grounding pass: score each response sentence against its evidence, explain.

Each response sentence is paired with its evidence (:mod:`~rageval_lc.judges.offline.grounding`: its closest
document sentences, in document order). The grounding model (:mod:`~rageval_lc.judges.offline.nli`, trained on
these pairs) scores every pair: P(supported), P(not found), P(contradicted). Per sentence this yields the features
of :data:`NLI_FEATURES` (fed to the calibrated support model) and a :class:`SentenceNli` verdict:
``contradicted`` when the contradiction detector (:mod:`~rageval_lc.judges.offline.contradiction`: slot checks
and the model's contradiction probability on aligned text) finds a conflict, else ``supported`` (the pair is
read as supported) or ``not_found``. A contradiction names the document sentence and what conflicts.

Example:
    >>> from rageval_lc.text import KeyedSentences
    >>> keyed = KeyedSentences.from_texts(["The Berlin Wall fell on 9 November 1989."], "The Berlin Wall fell in 1991.")
    >>> evidence = [(("0a",), "The Berlin Wall fell on 9 November 1989.", "The Berlin Wall fell in 1991.")]
    >>> _, verdicts = nli_table(keyed, evidence, lambda pairs: [[0.8, 0.1, 0.1]] * len(pairs), threshold=0.9)
    >>> verdicts[0].verdict, verdicts[0].detail
    ('contradicted', 'says 1991; 0a says 9 November 1989')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from rageval_lc.judges.offline.contradiction import (
    Conflict,
    alignment,
    evidence_units,
    find_conflict,
    frame_words,
    nli_conflict,
    stating_sentence,
)
from rageval_lc.text import KeyedSentences, is_claim

__all__ = [
    "NLI_FEATURES",
    "OPPOSING",
    "SentenceNli",
    "nli_inputs",
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
    "lexical_conflict",
)
#: An aligned pair the NLI model reads as contradicting at least this probably (and above every entailment) is
#: evidence against the sentence (:attr:`SentenceNli.opposing_keys`).
OPPOSING = 0.5
#: A premise must hold this share of the sentence's frame words for its contradiction probability to count as a
#: feature (an unrelated sentence among the closest ones reads as "contradiction" to a small NLI model).
_FEATURE_ALIGNMENT = 0.3


@dataclass(frozen=True)
class SentenceNli:
    """The NLI outcome of one response sentence.

    Attributes:
        verdict: ``supported``, ``contradicted`` or ``not_found``.
        entailment: the highest entailment probability over its pairs.
        contradiction: the highest contradiction probability over its aligned pairs.
        entailing_keys: the document keys of the most entailing pair.
        contradicting_keys: for a contradiction, the document keys that say otherwise.
        detail: for a contradiction, what conflicts (``"says X; 0a says Y"``), else "".
        kind: for a contradiction, its kind (``number``, ``unit``, ``date``, ``name``, ``negation``,
            ``role_swap``, ``comparison`` or ``nli``), else "".
        strength: for a contradiction, how sure the detector is, else 0.
        stated_by: the keys of a document sentence that holds every number, date and name of the sentence
            (:func:`~rageval_lc.judges.offline.contradiction.stating_sentence`), else ().
        opposing_keys: the document keys of the aligned pair the NLI model reads as contradicting the sentence
            most, when that reading is at least :data:`OPPOSING` probable and above every pair's entailment, else ().
            Evidence, not a verdict: a sentence the judge finds unsupported is then called contradicted by them,
            and a supported one never cites them.
    """

    verdict: str
    entailment: float
    contradiction: float
    entailing_keys: tuple[str, ...]
    contradicting_keys: tuple[str, ...]
    detail: str = ""
    kind: str = ""
    strength: float = 0.0
    stated_by: tuple[str, ...] = ()
    opposing_keys: tuple[str, ...] = ()


def nli_inputs(
    sentences: KeyedSentences, evidence: Sequence[tuple[tuple[str, ...], str, str]]
) -> tuple[list[list[tuple[tuple[str, ...], str]]], list[tuple[str, str]]]:
    """Per response sentence its (document keys, premise) candidate (one: the grounding pair of
    :func:`~rageval_lc.judges.offline.grounding.grounding_pairs`, none without document sentences) and, flattened in
    the same order, the (premise, claim) pairs the grounding model scores."""
    claims = [is_claim(text) for _, text in sentences.response]  # a sentence that makes no claim is not scored
    pairs = list(zip(evidence, claims, strict=True))
    candidates = [[(keys, text)] if keys and claim else [] for (keys, text, _), claim in pairs]
    flat = [(text, claim) for (keys, text, claim), real in pairs if keys and real]
    return candidates, flat


def _named(keys: tuple[str, ...], sentences: KeyedSentences, frame: set[str]) -> tuple[str, ...]:
    """Of an evidence's keys, the one sentence a verdict names: the one holding most of the claim's frame words
    (the first in document order on a tie), so a reason cites a sentence, not a span of passages."""
    if len(keys) <= 1:
        return keys
    return (max(keys, key=lambda key: alignment(frame, sentences.sentence(key))),)


def _logit(p: float) -> float:
    p = min(1 - 1e-4, max(1e-4, p))
    return float(np.log(p / (1 - p)))


def nli_table(
    sentences: KeyedSentences,
    evidence: Sequence[tuple[tuple[str, ...], str, str]],
    predict: object,
    *,
    threshold: float,
    slots: bool = True,
) -> tuple[np.ndarray, tuple[SentenceNli, ...]]:
    """The NLI features (rows in response order, columns :data:`NLI_FEATURES`) and verdicts.

    Args:
        sentences: the sample's keyed sentences.
        evidence: per response sentence, its grounding pair (:attr:`SampleFeatures.evidence`).
        predict: a callable taking (premise, hypothesis) pairs and returning probability rows
            (entailment, neutral, contradiction), e.g. :meth:`NliModel.predict`.
        threshold: the NLI contradiction probability the detector needs (on aligned pairs).
        slots: whether the slot checks (numbers, dates, names, negation, roles, comparisons) flag contradictions.
    """
    candidates, flat = nli_inputs(sentences, evidence)
    hypotheses = [text for _, text in sentences.response]
    probabilities = np.asarray(predict(flat)) if flat else np.zeros((0, 3))  # type: ignore[operator]
    units = evidence_units(sentences.documents)
    table = np.zeros((len(hypotheses), len(NLI_FEATURES)))
    verdicts = []
    start = 0
    for k, cands in enumerate(candidates):
        p = probabilities[start : start + len(cands)]
        start += len(cands)
        previous = hypotheses[k - 1] if k else None
        conflict = find_conflict(hypotheses[k], units, previous) if slots and units else None
        frame = frame_words(hypotheses[k])
        if conflict is None and len(p):
            conflict = nli_conflict(hypotheses[k], cands, p, threshold)
            if conflict is not None:
                conflict = replace(conflict, keys=_named(conflict.keys, sentences, frame))
        stated = stating_sentence(hypotheses[k], units, previous) if conflict is None and units else ()
        if not len(p):
            table[k] = (0.0, 0.0, _logit(0.0), _logit(0.0), 1.0, 0.0, float(conflict is not None))
            verdicts.append(_verdict(conflict, 0.0, 0.0, (), stated=stated))
            continue
        best_e = int(np.argmax(p[:, 0]))
        entail = float(p[best_e, 0])
        aligned = [i for i, (_, premise) in enumerate(cands) if alignment(frame, premise) >= _FEATURE_ALIGNMENT]
        contra = max((float(p[i, 2]) for i in aligned), default=0.0)
        top = max(aligned, key=lambda i: float(p[i, 2]), default=None)
        opposing = cands[top][0] if top is not None and contra >= OPPOSING and contra > float(p[:, 0].max()) else ()
        opposing = _named(opposing, sentences, frame)
        table[k] = (
            entail, contra, _logit(entail), _logit(contra), float(p[best_e, 1]),
            float(conflict is not None and conflict.kind == "nli"),
            float(conflict is not None and conflict.kind != "nli"),
        )  # fmt: skip
        entailed = bool((p.argmax(axis=1) == 0).any())
        entailing = _named(cands[best_e][0], sentences, frame)
        verdict = _verdict(conflict, entail, contra, entailing, entailed=entailed, stated=stated)
        verdicts.append(replace(verdict, opposing_keys=opposing))
    return table, tuple(verdicts)


def _verdict(
    conflict: Conflict | None,
    entail: float,
    contra: float,
    entailing: tuple[str, ...],
    *,
    entailed: bool = False,
    stated: tuple[str, ...] = (),
) -> SentenceNli:
    if conflict is not None:
        return SentenceNli(
            "contradicted", entail, contra,  # an NLI conflict's pair is among the aligned ones: contra >= strength
            entailing, conflict.keys, conflict.detail, conflict.kind, conflict.strength,
        )  # fmt: skip
    verdict = "supported" if entailed else "not_found"
    return SentenceNli(verdict, entail, contra, entailing, (), stated_by=stated)
