"""Embedding-based scores: semantic similarity, question similarity, BERTScore — on the configured model.

No LLM is involved; the default model is the packaged all-MiniLM-L6-v2, and any sentence-transformers
model can be passed. BERTScore uses the same model's contextual token vectors, so no second model stack
is needed; with ``model_type=<that model's path>, num_layers=<its layer count>`` the ``bert-score``
package gives the same figures.

Example:
    >>> scorer = EmbeddingScorer()  # doctest: +SKIP
    >>> scorer.semantic_similarity("Cornish heath", "Cornish heath")  # doctest: +SKIP
    1.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rageval_lc.judges.offline.encoder import CachedEncoder, SentenceTransformerEncoder
from rageval_lc.metrics.bert_score import bert_score
from rageval_lc.metrics.semantic_similarity import cosine, semantic_similarity

__all__ = ["EmbeddingScorer"]


class EmbeddingScorer:
    """Scores texts with a sentence-transformers model.

    Args:
        model: a model name, path or loaded ``SentenceTransformer``; None for the packaged model.
        encoder: a :class:`~rageval_lc.judges.offline.encoder.CachedEncoder` to share (the offline judge's, say).
        device: where a model built here runs (``auto``, ``cpu``, ``cuda`` or ``mps``).
    """

    def __init__(self, model: Any = None, *, encoder: CachedEncoder | None = None, device: str = "auto") -> None:
        self.encoder = encoder or CachedEncoder(SentenceTransformerEncoder(model, device=device))

    @property
    def model_name(self) -> str:
        """The sentence model's name (its path, or the class of an injected encoder)."""
        base = self.encoder.encoder
        return base.name if isinstance(base, SentenceTransformerEncoder) else type(base).__name__

    def semantic_similarity(self, answer: str, reference: str) -> float:
        """max(0, cosine) of the two texts' embeddings; 0.0 when either is empty."""
        if not answer.strip() or not reference.strip():
            return 0.0
        a, r = self.encoder.encode([answer, reference])
        return semantic_similarity(a.sentence, r.sentence)

    def similarities(self, question: str, others: Sequence[str]) -> list[float]:
        """Cosine of the question with each of ``others`` (generated questions, for answer relevance)."""
        if not others:
            return []
        encoded = self.encoder.encode([question, *others])
        return [cosine(encoded[0].sentence, e.sentence) for e in encoded[1:]]

    def bert_scores(self, candidates: Sequence[str], references: Sequence[str]) -> list[tuple[float, float, float]]:
        """(precision, recall, F1) per candidate/reference pair; (0, 0, 0) when either side is empty."""
        if len(candidates) != len(references):
            msg = f"bert_scores needs one reference per candidate. Got {len(candidates)} and {len(references)}."
            raise ValueError(msg)
        base = self.encoder.encoder
        if not isinstance(base, SentenceTransformerEncoder):
            msg = "BERTScore needs a sentence-transformers encoder (its token vectors)."
            raise TypeError(msg)
        texts = list(dict.fromkeys([*candidates, *references]))
        vectors = dict(zip(texts, base.wordpiece_embeddings(texts), strict=True))
        out = []
        for candidate, reference in zip(candidates, references, strict=True):
            if not candidate.strip() or not reference.strip():
                out.append((0.0, 0.0, 0.0))
                continue
            (c, wc), (r, wr) = vectors[candidate], vectors[reference]
            out.append(bert_score(c, r, candidate_weights=wc, reference_weights=wr))
        return out

    def bert_score(self, candidate: str, reference: str) -> tuple[float, float, float]:
        """(precision, recall, F1) of one pair."""
        return self.bert_scores([candidate], [reference])[0]
