"""TRACe labels from the offline judge's features: which document sentences are relevant and utilized, which
response sentences are supported, and the reason given for each — the probabilities of the fitted models turned
into verdicts, with the NLI pass's contradictions and entailments applied (:func:`labels_from_features`).

Example:
    >>> _top_keys(["0a", "0b", "0c"], np.array([0.2, 0.9, 0.5]), 0.4)
    ['0b']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rageval_lc.judges.offline.confidence import ConfidenceModels, row_inputs, sentence_inputs, verdict_confidence
from rageval_lc.judges.offline.contradiction import keys_label
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
from rageval_lc.schema import TraceLabels
from rageval_lc.text import CLAIM_FREE_KINDS, plural

__all__ = [
    "SupportDecision",
    "answer_inputs",
    "answer_unfound",
    "claim_mask",
    "closest_documents",
    "confidence_inputs",
    "confidence_notes",
    "contradiction_strength",
    "labels_from_features",
    "nli_adjusted",
    "sentence_explanation",
    "support_decision",
]


def _top_keys(keys: Sequence[str], probabilities: np.ndarray, share: float) -> list[str]:
    """The round(share × N) most probable keys, in document order."""
    count = round(min(1.0, max(0.0, share)) * len(keys))
    chosen = set(np.argsort(-probabilities, kind="stable")[:count].tolist())
    return [key for i, key in enumerate(keys) if i in chosen]


def nli_adjusted(
    p_unsupported: np.ndarray,
    verdicts: Sequence[SentenceNli],
    params: LocalParams,
    closest: Sequence[tuple[str | None, float]] = (),
) -> tuple[np.ndarray, list[bool]]:
    """P(unsupported) after the NLI verdicts, and which sentences are contradicted outright.

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


def _opposition(verdict: SentenceNli) -> tuple[tuple[str, ...], str]:
    """The document keys that contradict a sentence and how, or ((), "") when none does: the contradiction
    detector's conflict, forcing or not (an NLI reading alone is too often wrong on paraphrases to name a
    contradiction: it is only mentioned, see :func:`sentence_explanation`)."""
    if verdict.verdict == "contradicted":
        return verdict.contradicting_keys, verdict.detail
    return (), ""


def _against(verdict: SentenceNli | None) -> set[str]:
    """Every document key that speaks against a sentence: the detector's conflict or the NLI model's reading."""
    if verdict is None:
        return set()
    return set(_opposition(verdict)[0]) | set(verdict.opposing_keys)


def _match_completeness(
    keys: Sequence[str],
    p_rel: np.ndarray,
    p_use: np.ndarray,
    relevant: list[str],
    utilized: list[str],
    m: int,
    params: LocalParams,
) -> tuple[list[str], float]:
    """Re-pick the utilized keys (same count) so that their overlap with the relevant ones gives the
    completeness the completeness model predicts: the most probably used relevant sentences first, the
    rest from outside the relevant set."""
    assert params.completeness is not None
    overlap = len(set(relevant) & set(utilized))
    row = completeness_row_features(p_rel, p_use, len(relevant), len(utilized), overlap, m)
    expected = float(np.clip(params.completeness.predict(row)[0], 0.0, 1.0))
    inside = min(len(utilized), round(expected * len(relevant)))
    in_set = set(relevant)
    ranked = [int(i) for i in np.argsort(-p_use, kind="stable")]
    chosen = [i for i in ranked if keys[i] in in_set][:inside]
    chosen += [i for i in ranked if keys[i] not in in_set][: len(utilized) - inside]
    if len(chosen) < len(utilized):  # not enough outside: fill with relevant ones
        chosen += [i for i in ranked if i not in chosen][: len(utilized) - len(chosen)]
    picked = set(chosen)
    return [key for i, key in enumerate(keys) if i in picked], expected


def labels_from_features(
    features: SampleFeatures, params: LocalParams, confidence: ConfidenceModels | None = None
) -> tuple[TraceLabels, dict[str, Any]]:
    """Turn a sample's features into TRACe labels and notes (``adherence_probability`` among them, and with
    ``confidence`` the probability that each verdict is right: :func:`confidence_notes`).

    Relevant and utilized keys are the most probable sentences, as many as the predicted share of the
    context; a response whose probability of being fully supported is below the threshold gets its
    doubtful sentences marked unsupported (at least the most doubtful one).
    """
    n = len(features.document_keys)
    m = len(features.response_keys)
    notes: dict[str, Any] = {}
    relevant: list[str] = []
    utilized: list[str] = []
    relevance_text = "The contexts have no sentences."
    if n:
        p_rel = params.relevance.predict(features.documents)
        p_use = params.utilization.predict(features.documents)
        share_rel = float(params.relevance_share.predict(question_share_row_features(p_rel, features.documents))[0])
        share_use = float(params.utilization_share.predict(share_row_features(p_use, features.documents, m))[0])
        relevant = _top_keys(features.document_keys, p_rel, share_rel)
        utilized = _top_keys(features.document_keys, p_use, share_use)
        if params.completeness is not None and relevant:
            utilized, completeness = _match_completeness(
                features.document_keys, p_rel, p_use, relevant, utilized, m, params
            )
            notes["expected_completeness"] = round(completeness, 4)
        relevance_text = (
            f"Estimated {len(relevant)} of {plural(n, 'document sentence')} relevant (share {max(0.0, share_rel):.2f}) "
            f"from the question alone, and {len(utilized)} used by the response."
        )
        notes["expected_relevance_share"] = round(min(1.0, max(0.0, share_rel)), 4)
        notes["expected_utilization_share"] = round(min(1.0, max(0.0, share_use)), 4)

    decision = support_decision(features, params)
    p_unsupported, verdicts, probability = decision.p_unsupported, features.nli_verdicts, decision.answer_supported
    forced, flagged = decision.forced, set(decision.marked)
    # an unsupported sentence with a conflict (of a kind that forces or not) is contradicted, and says by what
    # "contradicted" is said only where its kind is precise enough to force the verdict (SPEC §6: precision >= 0.9 on
    # real answers); another conflict on an unsupported sentence is evidence its reason names, not a verdict
    contradicted = {
        k: v
        for k, v in zip(features.response_keys, verdicts, strict=True)
        if k in flagged and _opposition(v)[0] and contradiction_strength(v, params) is not None
    }
    # a sentence flagged only as the most doubtful one of an answer judged not fully supported says so
    doubt = (
        f"the answer as a whole is judged not fully supported (probability {probability:.3f}, below the "
        f"threshold {params.adherence_threshold:.3f}) and this is its most doubtful sentence"
    )
    support = []
    claim_free = dict(zip(features.response_keys, features.claim_free or (None,) * m, strict=True))
    for i, key in enumerate(features.response_keys):
        by_answer = key in flagged and key not in forced and p_unsupported[i] < params.support_threshold
        kind = claim_free[key]
        support.append(
            {
                "response_sentence_key": key,
                "explanation": f"Makes no claim ({CLAIM_FREE_KINDS[kind]}): neither supported nor unsupported."
                if kind
                else sentence_explanation(
                    features,
                    i,
                    float(p_unsupported[i]),
                    key in flagged,
                    doubt if by_answer else None,
                    contradicted=key in contradicted,
                ),
                "supporting_sentence_keys": [] if kind else _supporting_keys(features, i, key in flagged),
                "fully_supported": key not in flagged,
            }
        )
    notes["sentence_verdicts"] = {
        key: (
            "no_claim"
            if claim_free[key]
            else "contradicted"
            if key in contradicted
            else "not_found"
            if key in flagged
            else "supported"
        )
        for key in features.response_keys
    }
    if m and not any(kind is None for kind in claim_free.values()):
        notes["abstains"] = True  # an answer that makes no claim asserts nothing false (SPEC §6)
    if contradicted:
        notes["contradictions"] = [
            {
                "response_sentence_key": k,
                "document_sentence_keys": list(_opposition(v)[0]),
                "kind": v.kind if v.verdict == "contradicted" else "nli",
                "conflict": _opposition(v)[1] or "the NLI model reads it as contradicted",
            }
            for k, v in contradicted.items()
        ]
    notes["adherence_probability"] = round(probability, 6)
    if confidence is not None and m:
        notes.update(confidence_notes(features, decision, params, confidence))
    labels = TraceLabels(
        relevance_explanation=relevance_text,
        all_relevant_sentence_keys=relevant,
        overall_supported_explanation=(
            f"Estimated probability that every response sentence is supported: {probability:.3f} "
            f"({'at or above' if probability >= params.adherence_threshold else 'below'} the threshold "
            f"{params.adherence_threshold:.3f}" + ("; a contradiction decides it)." if forced else ").")
        ),
        overall_supported=decision.supported,
        sentence_support_information=support,
        all_utilized_sentence_keys=utilized,
        unsupported_response_sentence_keys=sorted(flagged, key=features.response_keys.index),
    )
    return labels, notes


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


def support_decision(features: SampleFeatures, params: LocalParams) -> SupportDecision:
    """The support verdicts of an answer's sentences and of the answer (see :class:`SupportDecision`): a response
    whose probability of being fully supported is below the threshold, or with a forcing contradiction, gets its
    doubtful sentences marked unsupported (at least the most doubtful one)."""
    m = len(features.response_keys)
    p_before = params.support.predict(features.support_inputs) if m else np.zeros(0)
    verdicts = features.nli_verdicts
    p_unsupported, flags = nli_adjusted(p_before, verdicts, params, closest_documents(features))
    claims = claim_mask(features)
    p_unsupported = np.where(claims, p_unsupported, 0.0)  # a sentence that makes no claim is never unsupported
    flags = [bool(c and f) for c, f in zip(claims, flags, strict=True)]
    forced = {k: v for k, v, c in zip(features.response_keys, verdicts, flags, strict=True) if c}
    probability = 1.0
    if claims.any():
        probability = float(1.0 - params.hallucination.predict(answer_inputs(features, p_unsupported, params))[0])
    if forced:  # a contradiction is a hallucination, however fluent the rest
        strengths = [contradiction_strength(v, params) or 0.0 for v in forced.values()]
        probability = min(probability, 1.0 - max(strengths))
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


def confidence_inputs(features: SampleFeatures, decision: SupportDecision, params: LocalParams) -> np.ndarray:
    """The confidence models' :data:`~rageval_lc.judges.offline.confidence.SENTENCE_FEATURES` of an answer."""
    marked = set(decision.marked)
    return sentence_inputs(
        decision.p_unsupported,
        decision.p_before_nli,
        features.nli_verdicts or [None] * len(features.response_keys),
        [k in marked for k in features.response_keys],
        decision.answer_supported,
        features.best_similarity,
        decision.only_as_most_doubtful(features, params),
        [k in decision.forced for k in features.response_keys],
    )


def confidence_notes(
    features: SampleFeatures, decision: SupportDecision, params: LocalParams, models: ConfidenceModels
) -> dict[str, Any]:
    """The probability that each verdict of an answer is right: ``sentence_confidence`` (key → probability),
    ``sentence_unsupported_probability`` (key → the confidence model's P(unsupported)) and
    ``adherence_confidence`` (the answer's verdict). A sentence that makes no claim is certain (a rule decides
    it: 1.0, unsupported with probability 0) and does not enter the answer's confidence."""
    keys = features.response_keys
    x = confidence_inputs(features, decision, params)
    marked = np.array([k in set(decision.marked) for k in keys], dtype=bool)
    claims = claim_mask(features)
    q = np.where(claims, models.probability("sentence", x), 0.0) if len(keys) else np.zeros(0)
    forced = bool(decision.forced)
    row = row_inputs(decision.answer_supported, decision.supported, forced, q[claims], int(marked[claims].sum()))
    p_row = float(models.probability("row", row)[0])
    confidence = np.where(claims, verdict_confidence(q, marked), 1.0)
    return {
        "sentence_confidence": {k: round(float(c), 4) for k, c in zip(keys, confidence, strict=True)},
        "sentence_unsupported_probability": {k: round(float(p), 4) for k, p in zip(keys, q, strict=True)},
        "adherence_confidence": round(float(verdict_confidence(np.array([p_row]), [decision.supported])[0]), 4),
    }


def _supporting_keys(features: SampleFeatures, i: int, flagged: bool) -> list[str]:
    """The document keys a sentence's verdict rests on: none for a contradicted one, the closest for one not
    found, and for a supported one its entailing or stating sentence, else its closest — never a key that speaks
    against it."""
    best = list(features.best_matches[i])
    verdict = features.nli_verdicts[i] if features.nli_verdicts else None
    against = _against(verdict)
    if flagged:
        return [] if verdict is not None and _opposition(verdict)[0] else [k for k in best if k not in against][:1]
    if verdict is not None and verdict.verdict == "supported" and not against & set(verdict.entailing_keys):
        return list(dict.fromkeys(verdict.entailing_keys))
    if verdict is not None and verdict.stated_by and not against & set(verdict.stated_by):
        return list(verdict.stated_by)
    return [k for k in best if k not in against]


def _against_note(verdict: SentenceNli | None, against: Sequence[str]) -> str:
    """What reads against a sentence the judge does not call contradicted: a conflict of a kind that does not force
    the verdict (weighed as evidence), or the NLI model's reading."""
    if verdict is None or not against:
        return ""
    conflicting, detail = _opposition(verdict)
    if conflicting:  # a slot check says how; the grounding model's own reading says how sure it is
        how = detail or f"the grounding model's contradiction probability {verdict.contradiction:.2f}"
        return f"; {keys_label(conflicting)} disagrees ({how}), weighed as evidence"
    return (
        f"; the NLI model reads {' and '.join(against)} against it (contradiction {verdict.contradiction:.2f}), "
        "but no number, date, name, negation or role conflicts"
    )


def sentence_explanation(
    features: SampleFeatures,
    i: int,
    p_unsupported: float,
    flagged: bool,
    by_answer: str | None = None,
    *,
    contradicted: bool | None = None,
) -> str:
    """Why response sentence ``i`` is supported, contradicted or not found, in words and figures. ``by_answer``:
    why a sentence the figures alone would not flag is flagged all the same (the answer's verdict), said first so
    that the reason never reads against the verdict. ``contradicted``: whether its verdict is "contradicted" (None:
    whenever it is flagged and a conflict speaks against it); a flagged sentence that is not reads "not found" and
    names the conflict as evidence."""
    best = features.best_matches[i]
    verdict = features.nli_verdicts[i] if features.nli_verdicts else None
    conflicting, detail = _opposition(verdict) if verdict is not None else ((), "")
    against = sorted(_against(verdict))
    keys = _supporting_keys(features, i, flagged)
    if contradicted is None:
        contradicted = flagged and bool(conflicting)
    if verdict is not None and flagged and conflicting and contradicted:
        text = f"Contradicted by {keys_label(conflicting)}"
        text += f": {detail}" if detail else ""
        if verdict.kind == "nli":
            text += f" (NLI contradiction probability {verdict.strength:.2f})"
    elif flagged:
        text = f"Not shown to be supported: {by_answer}" if by_answer else "Not found in the documents"
        if keys:
            similarity = f" (similarity {features.best_similarity[i]:.2f})" if best and keys[0] == best[0] else ""
            text += f"; closest document sentence {keys[0]}{similarity}"
        text += _against_note(verdict, against)  # never "not found" without saying what reads against it
    elif verdict is not None and verdict.verdict == "supported" and keys == list(verdict.entailing_keys):
        text = f"Supported by {', '.join(keys)} (entailment probability {verdict.entailment:.2f})"
    elif verdict is not None and verdict.stated_by and keys == list(verdict.stated_by):
        text = f"Supported by {', '.join(keys)}, which states each of its figures and names"
    elif keys:
        similarity = f" (similarity {features.best_similarity[i]:.2f})" if best and keys[0] == best[0] else ""
        text = f"Closest document sentence {keys[0]}{similarity}"
    elif against:  # supported, though a document sentence reads against it: say so, cite nothing
        text = "No document sentence entails it"
    else:
        text = "No document sentence to compare with"
    if not flagged and against:
        text += _against_note(verdict, against)
    if verdict is not None and not (flagged and conflicting):
        text += f"; entailment {verdict.entailment:.2f}, contradiction {verdict.contradiction:.2f}"
    text += f"; estimated probability unsupported {max(0.0, p_unsupported):.2f}"
    missing = [w for w in features.missing_words[i] if not any(c.isdigit() for c in w)]
    if missing:  # numbers are read whole by the contradiction detector, never as fragments ("6", "120")
        text += f"; words not in the documents: {', '.join(missing)}"
    return text + "."
