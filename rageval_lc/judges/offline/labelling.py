"""TRACe labels from the offline judge's features and the NLI pass's verdicts: the decisions of
:mod:`~rageval_lc.judges.offline.decision` (which document sentences are relevant and utilized, which response
sentences are supported) written as labels, with the reason given for each (:func:`labels_from_features`), and the
probability that each verdict is right (:func:`confidence_notes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rageval_lc.judges.offline.confidence import ConfidenceModels, row_inputs, sentence_inputs, verdict_confidence
from rageval_lc.judges.offline.contradiction import keys_label
from rageval_lc.judges.offline.decision import (
    SupportDecision,
    claim_mask,
    context_decision,
    support_decision,
)
from rageval_lc.judges.offline.features import SampleFeatures
from rageval_lc.judges.offline.model import LocalParams
from rageval_lc.judges.offline.nli_pass import SentenceNli
from rageval_lc.schema import TraceLabels
from rageval_lc.text import CLAIM_FREE_KINDS, plural

__all__ = ["confidence_inputs", "confidence_notes", "labels_from_features", "sentence_explanation"]


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


def labels_from_features(
    features: SampleFeatures,
    verdicts: Sequence[SentenceNli],
    params: LocalParams,
    confidence: ConfidenceModels | None = None,
) -> tuple[TraceLabels, dict[str, Any]]:
    """Turn a sample's features and the NLI pass's ``verdicts`` (one per response sentence) into TRACe labels and
    notes (``adherence_probability`` among them, and with ``confidence`` the probability that each verdict is
    right: :func:`confidence_notes`).

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
        context = context_decision(features, params)
        relevant, utilized = context.relevant, context.utilized
        share_rel, share_use = context.relevant_share, context.utilized_share
        if context.matched_utilized is not None and context.expected_completeness is not None:
            utilized = context.matched_utilized
            notes["expected_completeness"] = round(context.expected_completeness, 4)
        relevance_text = (
            f"Estimated {len(relevant)} of {plural(n, 'document sentence')} relevant (share {max(0.0, share_rel):.2f}) "
            f"from the question alone, and {len(utilized)} used by the response."
        )
        notes["expected_relevance_share"] = round(min(1.0, max(0.0, share_rel)), 4)
        notes["expected_utilization_share"] = round(min(1.0, max(0.0, share_use)), 4)

    decision = support_decision(features, verdicts, params)
    p_unsupported, probability = decision.p_unsupported, decision.answer_supported
    forced, flagged = decision.forced, set(decision.marked)
    # an unsupported sentence with a conflict (of a kind that forces or not) is contradicted, and says by what
    # "contradicted" is said only where its kind is precise enough to force the verdict (SPEC §6: precision >= 0.9 on
    # real answers); another conflict on an unsupported sentence is evidence its reason names, not a verdict
    contradicted = {k: v for k, v in forced.items() if v.contradicting_keys}
    # a sentence flagged only as the most doubtful one of an answer judged not fully supported says so
    doubt = (
        f"the answer as a whole is judged not fully supported (probability {probability:.3f}, below the "
        f"threshold {params.adherence_threshold:.3f}) and this is its most doubtful sentence"
    )
    support = []
    claim_free = dict(zip(features.response_keys, features.claim_free or (None,) * m, strict=True))
    only_by_answer = decision.only_as_most_doubtful(features, params)
    for i, key in enumerate(features.response_keys):
        by_answer = only_by_answer[i]
        kind = claim_free[key]
        support.append(
            {
                "response_sentence_key": key,
                "explanation": f"Makes no claim ({CLAIM_FREE_KINDS[kind]}): neither supported nor unsupported."
                if kind
                else sentence_explanation(
                    features,
                    verdicts,
                    i,
                    float(p_unsupported[i]),
                    key in flagged,
                    doubt if by_answer else None,
                    contradicted=key in contradicted,
                ),
                "supporting_sentence_keys": [] if kind else _supporting_keys(features, verdicts, i, key in flagged),
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
        notes.update(confidence_notes(features, verdicts, decision, params, confidence))
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


def confidence_inputs(
    features: SampleFeatures, verdicts: Sequence[SentenceNli], decision: SupportDecision, params: LocalParams
) -> np.ndarray:
    """The confidence models' :data:`~rageval_lc.judges.offline.confidence.SENTENCE_FEATURES` of an answer."""
    marked = set(decision.marked)
    return sentence_inputs(
        decision.p_unsupported,
        decision.p_before_nli,
        verdicts or [None] * len(features.response_keys),
        [k in marked for k in features.response_keys],
        decision.answer_supported,
        features.best_similarity,
        decision.only_as_most_doubtful(features, params),
        [k in decision.forced for k in features.response_keys],
    )


def confidence_notes(
    features: SampleFeatures,
    verdicts: Sequence[SentenceNli],
    decision: SupportDecision,
    params: LocalParams,
    models: ConfidenceModels,
) -> dict[str, Any]:
    """The probability that each verdict of an answer is right: ``sentence_confidence`` (key → probability),
    ``sentence_unsupported_probability`` (key → the confidence model's P(unsupported)) and
    ``adherence_confidence`` (the answer's verdict). A sentence that makes no claim is certain (a rule decides
    it: 1.0, unsupported with probability 0) and does not enter the answer's confidence."""
    keys = features.response_keys
    x = confidence_inputs(features, verdicts, decision, params)
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


def _supporting_keys(features: SampleFeatures, verdicts: Sequence[SentenceNli], i: int, flagged: bool) -> list[str]:
    """The document keys a sentence's verdict rests on: none for a contradicted one, the closest for one not
    found, and for a supported one its entailing or stating sentence, else its closest — never a key that speaks
    against it."""
    best = list(features.best_matches[i])
    verdict = verdicts[i] if verdicts else None
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
    verdicts: Sequence[SentenceNli],
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
    verdict = verdicts[i] if verdicts else None
    conflicting, detail = _opposition(verdict) if verdict is not None else ((), "")
    against = sorted(_against(verdict))
    keys = _supporting_keys(features, verdicts, i, flagged)
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
