"""Deprecated: the embedding maths moved to :mod:`~rageval_lc.metrics.semantic_similarity` (``cosine``,
``semantic_similarity``) and :mod:`~rageval_lc.metrics.bert_score`. Their names still import from here, for one
release; import them from their modules.
"""

from rageval_lc.metrics.bert_score import bert_score
from rageval_lc.metrics.semantic_similarity import cosine, semantic_similarity

__all__ = ["bert_score", "cosine", "semantic_similarity"]
