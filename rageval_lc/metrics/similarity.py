"""Embedding similarity and BERTScore from token embeddings — pure maths on vectors.

BERTScore (Zhang et al., 2020) greedily matches each candidate token to its most similar reference token
(precision) and each reference token to its most similar candidate token (recall); F1 is their harmonic
mean. As in the ``bert-score`` package, every token — [CLS] and [SEP] included — can be matched, while
the special tokens carry no weight in the averages, and a token's best similarity counts as at least 0
(``bert-score`` masks padding with zeros, so a negative best match becomes 0 there).

Example:
    >>> import numpy as np
    >>> a = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> bert_score(a, a)
    (1.0, 1.0, 1.0)
    >>> semantic_similarity(np.array([1.0, 0.0]), np.array([0.6, 0.8]))
    0.6
"""

from __future__ import annotations

import numpy as np

__all__ = ["bert_score", "cosine", "semantic_similarity"]


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity; 0.0 when either vector is zero."""
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(np.dot(a, b) / (na * nb))


def semantic_similarity(answer: np.ndarray, reference: np.ndarray) -> float:
    """max(0, cosine(answer, reference)); 0.0 when either side is empty (a zero vector)."""
    return max(0.0, min(1.0, cosine(answer, reference)))


def bert_score(
    candidate: np.ndarray,
    reference: np.ndarray,
    *,
    candidate_weights: np.ndarray | None = None,
    reference_weights: np.ndarray | None = None,
) -> tuple[float, float, float]:
    """Precision, recall and F1 of greedy token matching.

    Args:
        candidate, reference: token embeddings, one row per token (normalised here).
        candidate_weights, reference_weights: per-token weights (0 for special tokens); all 1 by default.

    Returns:
        (precision, recall, f1); all 0.0 when a side has no weighted token.
    """
    c = _unit(candidate)
    r = _unit(reference)
    wc = np.ones(len(c)) if candidate_weights is None else np.asarray(candidate_weights, dtype=float)
    wr = np.ones(len(r)) if reference_weights is None else np.asarray(reference_weights, dtype=float)
    if len(c) == 0 or len(r) == 0 or wc.sum() == 0 or wr.sum() == 0:
        return 0.0, 0.0, 0.0
    sim = c @ r.T
    precision = float((np.maximum(sim.max(axis=1), 0.0) * wc).sum() / wc.sum())
    recall = float((np.maximum(sim.max(axis=0), 0.0) * wr).sum() / wr.sum())
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def _unit(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return x.reshape(0, 0)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)
