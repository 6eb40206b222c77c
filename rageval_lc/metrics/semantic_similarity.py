"""Semantic similarity (docs/metrics/ragas.md): max(0, cosine) of the answer's and the reference's embeddings, on the
embedding model (no LLM). An empty side → 0.0.

Example:
    >>> import numpy as np
    >>> semantic_similarity(np.array([1.0, 0.0]), np.array([0.6, 0.8]))
    0.6
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rageval_lc.metrics.results import NEEDS_REFERENCE, details_of, ok, undetermined
from rageval_lc.metrics.spec import Judgements, MetricSpec, Scored

if TYPE_CHECKING:
    import numpy as np

__all__ = ["METRIC", "cosine", "score_semantic_similarity", "semantic_similarity"]


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity; 0.0 when either vector is zero."""
    import numpy as np  # here: importing the registry loads no numpy

    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(np.dot(a, b) / (na * nb))


def semantic_similarity(answer: np.ndarray, reference: np.ndarray) -> float:
    """max(0, cosine(answer, reference)); 0.0 when either side is empty (a zero vector)."""
    return max(0.0, min(1.0, cosine(answer, reference)))


def score_semantic_similarity(ctx: Judgements) -> Scored:
    """max(0, cosine(answer, reference)) on the embedding model; an empty side → 0.0."""
    sample = ctx.sample
    if sample.reference is None:
        return undetermined(("semantic_similarity",), NEEDS_REFERENCE), details_of(ctx, "semantic_similarity")
    if not sample.response.strip() or not sample.reference.strip():
        result = ok("semantic_similarity", 0.0, "The answer or the reference is empty.")
    else:
        score = ctx.embeddings.semantic_similarity(sample.response, sample.reference)
        result = ok("semantic_similarity", score, f"Cosine similarity of answer and reference: {score:.3f}.")
    model = ctx.embeddings.model_name
    return {"semantic_similarity": result}, details_of(ctx, "semantic_similarity", model=model)


METRIC = MetricSpec(
    "semantic_similarity",
    ("semantic_similarity",),
    "max(0, cosine) of answer and reference embeddings (no LLM).",
    score_semantic_similarity,
    needs_reference=True,
)
