"""BERTScore (Zhang et al., 2020) from the embedding model's token vectors (docs/metrics/ragas.md; no LLM).

Greedy matching: each candidate (answer) token to its most similar reference token (precision) and each
reference token to its most similar candidate token (recall); F1 is their harmonic mean. As in the
``bert-score`` package, every token — [CLS] and [SEP] included — can be matched, while the special tokens
carry no weight in the averages, and a token's best similarity counts as at least 0 (``bert-score`` masks
padding with zeros, so a negative best match becomes 0 there).

Example:
    >>> import numpy as np
    >>> a = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> bert_score(a, a)
    (1.0, 1.0, 1.0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rageval_lc.metrics.results import NEEDS_REFERENCE, details_of, ok, undetermined
from rageval_lc.metrics.spec import Judgements, MetricSpec, Scored

if TYPE_CHECKING:
    import numpy as np

__all__ = ["METRIC", "bert_score", "score_bert_score"]


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
    import numpy as np  # here: importing the registry loads no numpy

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
    import numpy as np

    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return x.reshape(0, 0)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


def score_bert_score(ctx: Judgements) -> Scored:
    """BERTScore precision, recall and F1 from the embedding model's token vectors."""
    names = ("bert_score_precision", "bert_score_recall", "bert_score_f1")
    sample = ctx.sample
    if sample.reference is None:
        return undetermined(names, NEEDS_REFERENCE), details_of(ctx, "bert_score")
    precision, recall, f1 = ctx.embeddings.bert_score(sample.response, sample.reference)
    if not sample.response.strip() or not sample.reference.strip():
        why = "The answer or the reference is empty."
    else:
        why = f"Greedy token matching: precision {precision:.3f}, recall {recall:.3f}."
    values = dict(zip(names, (precision, recall, f1), strict=True))
    results = {name: ok(name, value, why) for name, value in values.items()}
    return results, details_of(ctx, "bert_score", model=ctx.embeddings.model_name)


METRIC = MetricSpec(
    "bert_score",
    ("bert_score_precision", "bert_score_recall", "bert_score_f1"),
    "BERTScore from the embedding model's token vectors (no LLM).",
    score_bert_score,
    needs_reference=True,
    headline=("bert_score_f1", "bert_score_precision", "bert_score_recall"),
)
