"""The RAGAS / GraphRAG family from verdicts (SPEC §5, ``reference/graphrag_metrics.txt``) — pure maths.

Scores are in [0, 1] here; the report layer renders them 0–100 under the reference's names. An
unmeasurable case returns None (the caller marks it undetermined); the edge cases SPEC §5 defines have
values: no claims → faithfulness 1.0; no contexts → context precision 0.0 and context recall 0.0;
no reference statements → context recall 1.0.

Example (the reference's composite for its local_search row: context precision undetermined):
    >>> round(100 * ragas_score({"faithfulness": 1.0, "context_precision": None,
    ...                           "context_recall": 1.0, "answer_relevance": 0.8327}), 2)
    93.73
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from rageval_lc.text import normalize_key, parse_key

__all__ = [
    "RAGAS_WEIGHTS",
    "answer_relevance",
    "context_precision",
    "context_precision_at_k",
    "context_recall",
    "faithfulness",
    "ragas_score",
    "relevant_contexts",
]

#: The reference's default composite weights.
RAGAS_WEIGHTS: dict[str, float] = {
    "faithfulness": 0.30,
    "context_precision": 0.20,
    "context_recall": 0.20,
    "answer_relevance": 0.30,
}


def faithfulness(supported: Sequence[bool]) -> float:
    """Supported claims / claims; 1.0 when there are no claims (nothing unsupported was said).

    Example:
        >>> faithfulness([True, True, False, True]), faithfulness([])
        (0.75, 1.0)
    """
    return sum(bool(s) for s in supported) / len(supported) if supported else 1.0


def context_precision(relevant: Sequence[bool]) -> float:
    """Mean of the per-context relevance verdicts; 0.0 when there are no contexts.

    Example:
        >>> context_precision([True, False, True, False])
        0.5
    """
    return sum(bool(r) for r in relevant) / len(relevant) if relevant else 0.0


def relevant_contexts(relevant_sentence_keys: Iterable[str], n_contexts: int) -> list[bool]:
    """Per-context relevance from TRACe's relevant sentence keys: a context is relevant iff one of its
    sentences is (this is how one labelling pass serves context precision too). Keys that are not
    document-sentence keys are ignored.

    Example:
        >>> relevant_contexts(["0b", "2a"], 3)
        [True, False, True]
    """
    relevant = [False] * n_contexts
    for raw in relevant_sentence_keys:
        key = normalize_key(raw)
        if key is None:
            continue
        document, _ = parse_key(key)
        if document is not None and 0 <= document < n_contexts:
            relevant[document] = True
    return relevant


def context_precision_at_k(relevant: Sequence[bool]) -> float:
    """Rank-aware precision: the mean of precision@k over the ranks k of relevant contexts; 0.0 if none.

    Example (relevant at ranks 1 and 3: (1/1 + 2/3) / 2):
        >>> round(context_precision_at_k([True, False, True, False]), 4)
        0.8333
    """
    hits, total = 0, 0.0
    for k, is_relevant in enumerate(relevant, start=1):
        if is_relevant:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


def context_recall(attributed: Sequence[bool], *, has_contexts: bool = True) -> float:
    """Reference statements attributable to the contexts / statements; 1.0 with no statements, 0.0 with no contexts.

    Example:
        >>> context_recall([True, False]), context_recall([]), context_recall([True], has_contexts=False)
        (0.5, 1.0, 0.0)
    """
    if not attributed:
        return 1.0
    if not has_contexts:
        return 0.0
    return sum(bool(a) for a in attributed) / len(attributed)


def answer_relevance(similarities: Sequence[float], *, fallback: float | None = None) -> float | None:
    """Mean cosine between the question and the questions generated from the answer, floored at 0;
    the direct rubric score (``fallback``) when nothing was generated; None when neither exists.

    Example:
        >>> round(answer_relevance([0.9, 0.8, 0.7]), 4), answer_relevance([], fallback=0.5), answer_relevance([])
        (0.8, 0.5, None)
    """
    if similarities:
        return max(0.0, math.fsum(similarities) / len(similarities))
    return fallback


def ragas_score(scores: Mapping[str, float | None], weights: Mapping[str, float] | None = None) -> float | None:
    """Weighted mean of the four metrics present, the weights renormalised over them; None if none is present.

    Raises:
        ValueError: If a weight is negative or the weights of the present metrics sum to 0.

    Example (the reference's basic_search row: 0.3 × 83.27 / 1.0):
        >>> round(100 * ragas_score({"faithfulness": 0.0, "context_precision": 0.0,
        ...                          "context_recall": 0.0, "answer_relevance": 0.8327}), 2)
        24.98
    """
    weights = dict(weights or RAGAS_WEIGHTS)
    if any(w < 0 for w in weights.values()):
        msg = f"RAGAS weights must be >= 0. Got {weights!r}."
        raise ValueError(msg)
    present = {
        name: float(value)
        for name, value in scores.items()
        if name in weights and value is not None and math.isfinite(value)
    }
    if not present:
        return None
    total = math.fsum(weights[name] for name in present)
    if total <= 0:
        msg = f"The weights of the metrics present ({sorted(present)}) sum to 0."
        raise ValueError(msg)
    return math.fsum(value * weights[name] / total for name, value in present.items())
