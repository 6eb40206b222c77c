"""Metric maths and metrics: labels and verdicts in, numbers out. No model call, no framework import.

Each metric is one module here holding its :class:`~rageval_lc.metrics.spec.MetricSpec` (``METRIC``), its
score function and its maths; :data:`METRIC_MODULES` names them in the order the registry
(:data:`~rageval_lc.scoring.registry.REGISTRY`), the outputs and the docs list them. Beside them: TRACe's
RMSE aggregation (``aggregation``), judge agreement (``agreement``) and the RGB benchmark (``rgb``).
"""

from rageval_lc.metrics.aggregation import rmse_against_truth, rmse_aggregation, trace_rmse_aggregation
from rageval_lc.metrics.agreement import AgreementRecord, AgreementReport, auroc, judge_agreement, rmse
from rageval_lc.metrics.spec import MetricSpec
from rageval_lc.metrics.trace import TRACE_METRICS, TRACE_SCORE_NAMES, TraceScores, trace_scores

__all__ = [
    "METRIC_MODULES",
    "TRACE_METRICS",
    "TRACE_SCORE_NAMES",
    "AgreementRecord",
    "AgreementReport",
    "MetricSpec",
    "TraceScores",
    "auroc",
    "judge_agreement",
    "rmse",
    "rmse_against_truth",
    "rmse_aggregation",
    "trace_rmse_aggregation",
    "trace_scores",
]

#: The built-in metrics' modules (each defines ``METRIC``), in registry order.
METRIC_MODULES: tuple[str, ...] = (
    "trace",
    "faithfulness",
    "context_precision",
    "context_recall",
    "answer_relevance",
    "factual_accuracy",
    "answer_classification",
    "semantic_similarity",
    "bert_score",
    "ragas_score",
)
