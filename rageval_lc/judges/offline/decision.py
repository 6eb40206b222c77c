"""How the offline judge decides, from its features and the NLI pass's verdicts: which document sentences are
relevant and utilized (:func:`context_decision`), each response sentence's P(unsupported) after the verdicts
(:func:`nli_adjusted`), which contradictions force a verdict (:func:`contradiction_strength`) and the answer's
verdict (:func:`support_decision`). The judge (:mod:`~rageval_lc.judges.offline.labelling`), the aligner
(:mod:`rageval_lc.align.refit`) and the fitting script (``benchmarks/calibrate_local_judge.py``) call these and
decide nothing of their own.

Example:
    >>> top_keys(["0a", "0b", "0c"], np.array([0.2, 0.9, 0.5]), 0.4)
    ['0b']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from rageval_lc.judges.offline.features import SampleFeatures
from rageval_lc.judges.offline.model import (
    LocalParams,
    adherence_row_features,
    completeness_row_features,
    question_share_row_features,
    share_row_features,
)
from rageval_lc.judges.offline.nli_pass import SentenceNli
from rageval_lc.metrics.overlap import overlap_counts

__all__ = [
    "ContextDecision",
    "SupportDecision",
    "answer_inputs",
    "answer_unfound",
    "claim_mask",
    "closest_documents",
    "context_decision",
    "contradiction_strength",
    "forced_probability",
    "nli_adjusted",
    "support_decision",
    "top_keys",
]


def top_keys(keys: Sequence[str], probabilities: np.ndarray, share: float) -> list[str]:
    """The round(share × N) most probable keys, in document order."""
    count = round(min(1.0, max(0.0, share)) * len(keys))
    chosen = set(np.argsort(-probabilities, kind="stable")[:count].tolist())
    return [key for i, key in enumerate(keys) if i in chosen]


@dataclass(frozen=True)
class ContextDecision:
    """Which document sentences the judge calls relevant and utilized: the relevance and utilization models'
    probabilities, the shares of the context the share models predict, the most probable keys as many as those
    shares say (``relevant``, ``utilized``), and the utilized keys re-picked to meet the completeness the
    completeness model predicts (``matched_utilized``, ``expected_completeness``; None without that model)."""

    p_relevant: np.ndarray
    p_utilized: np.ndarray
    relevant_share: float
    utilized_share: float
    relevant: list[str]
    utilized: list[str]
    matched_utilized: list[str] | None = None
    expected_completeness: float | None = None

    def completeness_inputs(self, response_sentences: int) -> np.ndarray:
        """What the completeness model reads of these key sets (``response_sentences``: the answer's count)."""
        overlap = len(set(self.relevant) & set(self.utilized))
        return completeness_row_features(
            self.p_relevant, self.p_utilized, len(self.relevant), len(self.utilized), overlap, response_sentences
        )


def context_decision(features: SampleFeatures, params: LocalParams, *, matched: bool = True) -> ContextDecision:
    """The relevant and utilized document sentences of a sample (see :class:`ContextDecision`); its features must
    have a document table (at least one document sentence). ``matched=False``: the key sets alone, the utilized
    keys not re-picked for the completeness model (what that model reads)."""
    m = len(features.response_keys)
    p_rel = params.relevance.predict(features.documents)
    p_use = params.utilization.predict(features.documents)
    share_rel = float(params.relevance_share.predict(question_share_row_features(p_rel, features.documents))[0])
    share_use = float(params.utilization_share.predict(share_row_features(p_use, features.documents, m))[0])
    relevant = top_keys(features.document_keys, p_rel, share_rel)
    utilized = top_keys(features.document_keys, p_use, share_use)
    decision = ContextDecision(p_rel, p_use, share_rel, share_use, relevant, utilized)
    if not matched or params.completeness is None or not relevant:
        return decision
    expected = float(np.clip(params.completeness.predict(decision.completeness_inputs(m))[0], 0.0, 1.0))
    matched = _matched_utilized(features.document_keys, p_use, relevant, len(utilized), expected)
    return ContextDecision(p_rel, p_use, share_rel, share_use, relevant, utilized, matched, expected)


def _matched_utilized(
    keys: Sequence[str], p_use: np.ndarray, relevant: list[str], count: int, expected: float
) -> list[str]:
    """Re-pick the utilized keys (``count`` of them) so that their overlap with the relevant ones gives the
    ``expected`` completeness: the most probably used relevant sentences first, the rest from outside the
    relevant set."""
    inside = min(count, round(expected * len(relevant)))
    in_set = set(relevant)
    ranked = [int(i) for i in np.argsort(-p_use, kind="stable")]
    chosen = [i for i in ranked if keys[i] in in_set][:inside]
    chosen += [i for i in ranked if keys[i] not in in_set][: count - inside]
    if len(chosen) < count:  # not enough outside: fill with relevant ones
        chosen += [i for i in ranked if i not in chosen][: count - len(chosen)]
    picked = set(chosen)
    return [key for i, key in enumerate(keys) if i in picked]


def nli_adjusted(
    p_unsupported: np.ndarray,
    verdicts: Sequence[SentenceNli],
    params: LocalParams,
    closest: Sequence[tuple[str | None, float]] = (),
    claims: np.ndarray | None = None,
) -> tuple[np.ndarray, list[bool]]:
    """P(unsupported) after the NLI verdicts, and which sentences are contradicted outright (with ``claims``, per
    sentence whether it makes a claim: one that makes none is never unsupported nor contradicted).

    A sentence entailed with probability at least ``params.entailment_threshold`` is unsupported with at
    most 1 − that probability (a paraphrase the word features doubt), and so is a restatement: a sentence whose
    every number, date and name its closest document sentence holds (``closest``: per sentence, that sentence's
    key and similarity), at least ``params.slot_support_similarity`` similar. One the contradiction detector
    flags is unsupported with at least the detector's strength, whatever the support model says.

    Example:
        >>> from rageval_lc.judges.offline.nli_pass import SentenceNli
        >>> from dataclasses import replace
        >>> params = replace(LocalParams.load(), entailment_threshold=0.9, forcing_kinds=["date"])
        >>> v = [SentenceNli("contradicted", 0.01, 0.2, (), ("0a",), "says 1991; 0a says 1989", "date", 0.95),
        ...      SentenceNli("supported", 0.99, 0.0, ("0b",), ())]
        >>> p, flags = nli_adjusted(np.array([0.2, 0.6]), v, params)
        >>> p.round(2).tolist(), flags
        ([0.95, 0.01], [True, False])
    """
    p = np.asarray(p_unsupported, dtype=float).copy()
    flags = []
    for i, v in enumerate(verdicts):
        strength = contradiction_strength(v, params)
        if strength is not None:
            p[i] = max(p[i], strength)
        else:
            if v.verdict == "supported" and v.entailment >= params.entailment_threshold:
                p[i] = min(p[i], 1.0 - v.entailment)
            if i < len(closest) and v.stated_by and closest[i][0] in v.stated_by:
                similarity = closest[i][1]
                if similarity >= params.slot_support_similarity:
                    p[i] = min(p[i], 1.0 - similarity)
        flags.append(strength is not None)
    if claims is not None:
        p = np.where(claims, p, 0.0)
        flags = [bool(c and f) for c, f in zip(claims, flags, strict=True)]
    return p, flags


def closest_documents(features: SampleFeatures) -> list[tuple[str | None, float]]:
    """Per response sentence: its closest document sentence's key (None without one) and their similarity."""
    return [
        (matches[0] if matches else None, similarity)
        for matches, similarity in zip(features.best_matches, features.best_similarity, strict=True)
    ]


def contradiction_strength(verdict: SentenceNli, params: LocalParams | None = None) -> float | None:
    """How sure the judge is that a sentence is contradicted, or None when the contradiction detector
    (:mod:`~rageval_lc.judges.offline.contradiction`) did not flag it, or (with ``params``) flagged it with a kind
    of conflict that does not force the verdict: not among :attr:`LocalParams.forcing_kinds`, and not read as
    contradicted by the grounding model at the probability :attr:`LocalParams.forcing_contradiction` asks of it.

    Example:
        >>> from dataclasses import replace
        >>> from rageval_lc.judges.offline.nli_pass import SentenceNli
        >>> params = replace(LocalParams.load(), forcing_kinds=["negation"], forcing_contradiction={"date": 0.7})
        >>> date = SentenceNli("contradicted", 0.01, 0.8, (), ("0a",), "says 1991; 0a says 1989", "date", 0.6)
        >>> contradiction_strength(date, params), contradiction_strength(replace(date, contradiction=0.5), params)
        (0.8, None)
    """
    if verdict.verdict != "contradicted":
        return None
    if params is None or (params.forcing_kinds is None and params.forcing_contradiction is None):
        return verdict.strength
    if verdict.kind in (params.forcing_kinds or ()):
        return verdict.strength
    needed = (params.forcing_contradiction or {}).get(verdict.kind)
    if needed is not None and verdict.contradiction >= needed:
        return max(verdict.strength, verdict.contradiction)
    return None


@dataclass(frozen=True)
class SupportDecision:
    """How the offline judge decides an answer's support: each sentence's P(unsupported) before and after the NLI
    pass, the contradictions that force a verdict (key → detector verdict), the answer's P(fully supported), its
    verdict, and the sentences marked unsupported (in answer order)."""

    p_before_nli: np.ndarray
    p_unsupported: np.ndarray
    forced: dict[str, SentenceNli]
    answer_supported: float
    supported: bool
    marked: list[str]

    def only_as_most_doubtful(self, features: SampleFeatures, params: LocalParams) -> list[bool]:
        """Per sentence: marked unsupported only because its answer was judged not fully supported."""
        marked = set(self.marked)
        return [
            key in marked and key not in self.forced and float(p) < params.support_threshold
            for key, p in zip(features.response_keys, self.p_unsupported, strict=True)
        ]


def support_decision(features: SampleFeatures, verdicts: Sequence[SentenceNli], params: LocalParams) -> SupportDecision:
    """The support verdicts of an answer's sentences and of the answer (see :class:`SupportDecision`) from its
    features and the NLI pass's ``verdicts``: a response whose probability of being fully supported is below the
    threshold, or with a forcing contradiction, gets its doubtful sentences marked unsupported (at least the most
    doubtful one)."""
    m = len(features.response_keys)
    p_before = params.support.predict(features.support_inputs) if m else np.zeros(0)
    claims = claim_mask(features)
    p_unsupported, flags = nli_adjusted(p_before, verdicts, params, closest_documents(features), claims)
    forced = {k: v for k, v, c in zip(features.response_keys, verdicts, flags, strict=True) if c}
    probability = 1.0
    if claims.any():
        probability = float(1.0 - params.hallucination.predict(answer_inputs(features, p_unsupported, params))[0])
    probability = forced_probability(probability, forced.values(), params)
    supported = probability >= params.adherence_threshold and not forced
    flagged: set[str] = set(forced)
    if not supported and claims.any():
        flagged |= {
            k for k, p in zip(features.response_keys, p_unsupported, strict=True) if p >= params.support_threshold
        }
        flagged = flagged or {features.response_keys[int(np.argmax(np.where(claims, p_unsupported, -1.0)))]}
    marked = [k for k in features.response_keys if k in flagged]
    return SupportDecision(p_before, p_unsupported, forced, probability, supported, marked)


def answer_inputs(features: SampleFeatures, p_unsupported: np.ndarray, params: LocalParams) -> np.ndarray:
    """What the row model (``params.hallucination``) reads of an answer: :func:`adherence_row_features` of its
    claims' P(unsupported), with the share of their words no passage holds when ``params.row_overlap``."""
    claims = claim_mask(features)
    unfound = answer_unfound(features) if params.row_overlap else None
    return adherence_row_features(np.asarray(p_unsupported, dtype=float)[claims], unfound)


def answer_unfound(features: SampleFeatures) -> float:
    """The word-overlap baseline of an answer's claims, each read against its own evidence: the share of the words
    of their grounding pairs' claims (:attr:`SampleFeatures.evidence`) that the evidence does not hold. Read against
    the evidence rather than every passage, so that an unrelated passage added to the contexts changes nothing."""
    counts = [
        overlap_counts(claim, [evidence])
        for (_, evidence, claim), is_claim in zip(features.evidence, claim_mask(features), strict=True)
        if is_claim
    ]
    found, words = sum(c[0] for c in counts), sum(c[1] for c in counts)
    return 1.0 - found / words if words else 0.0


def claim_mask(features: SampleFeatures) -> np.ndarray:
    """Per response sentence: True when it makes a claim (:mod:`rageval_lc.text`; every sentence when the
    features predate the claim test)."""
    kinds = features.claim_free or (None,) * len(features.response_keys)
    return np.array([kind is None for kind in kinds], dtype=bool)


def forced_probability(supported: float, verdicts: Iterable[SentenceNli], params: LocalParams) -> float:
    """An answer's P(fully supported) lowered by its strongest forcing contradiction (a contradiction is a
    hallucination, however fluent the rest): at most 1 − that contradiction's strength.

    Example:
        >>> from rageval_lc.judges.offline.nli_pass import SentenceNli
        >>> negation = SentenceNli("contradicted", 0.01, 0.8, (), ("0a",), 'says "safe"', "negation", 0.9)
        >>> params = LocalParams.load()
        >>> round(forced_probability(0.7, [negation], params), 3), forced_probability(0.7, [], params)
        (0.1, 0.7)
    """
    strengths = [s for s in (contradiction_strength(v, params) for v in verdicts) if s is not None]
    return min(supported, 1.0 - max(strengths)) if strengths else supported
