"""Deprecated: GEval factual accuracy moved to :mod:`~rageval_lc.metrics.factual_accuracy` and answer
classification to :mod:`~rageval_lc.metrics.answer_classification`. Their names still import from here, for one
release; import them from their modules.
"""

from rageval_lc.metrics.answer_classification import (
    SHORT_NON_ANSWERS,
    UNCERTAINTY_PHRASES,
    answer_counts,
    is_dont_know,
)
from rageval_lc.metrics.factual_accuracy import GEVAL_WEIGHTS, factual_accuracy, grade

__all__ = [
    "GEVAL_WEIGHTS",
    "SHORT_NON_ANSWERS",
    "UNCERTAINTY_PHRASES",
    "answer_counts",
    "factual_accuracy",
    "grade",
    "is_dont_know",
]
