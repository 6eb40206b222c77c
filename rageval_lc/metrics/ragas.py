"""Deprecated: the RAGAS family's maths moved into one module per metric (:mod:`~rageval_lc.metrics.faithfulness`,
:mod:`~rageval_lc.metrics.context_precision`, :mod:`~rageval_lc.metrics.context_recall`,
:mod:`~rageval_lc.metrics.answer_relevance`, :mod:`~rageval_lc.metrics.ragas_score`). Its names still import
from here, for one release; import them from their modules.
"""

from rageval_lc.metrics.answer_relevance import answer_relevance
from rageval_lc.metrics.context_precision import context_precision, context_precision_at_k, relevant_contexts
from rageval_lc.metrics.context_recall import context_recall
from rageval_lc.metrics.faithfulness import faithfulness
from rageval_lc.metrics.ragas_score import RAGAS_WEIGHTS, ragas_score

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
