"""Scoring one sample: the metric registry, the call plan, the shared judgements, the scorers.

Example:
    >>> from rageval_lc.scoring import metric_judgements
    >>> metric_judgements("faithfulness", "separate")
    ('extract_claims', 'verify_claims')
"""

from __future__ import annotations

from rageval_lc.scoring.plan import metric_judgements
from rageval_lc.scoring.registry import RAGAS_FAMILY, REGISTRY, MetricSpec, get_metric, parse_metrics
from rageval_lc.scoring.sample import SampleResult, evaluate_sample

__all__ = [
    "RAGAS_FAMILY",
    "REGISTRY",
    "MetricSpec",
    "SampleResult",
    "evaluate_sample",
    "get_metric",
    "metric_judgements",
    "parse_metrics",
]
