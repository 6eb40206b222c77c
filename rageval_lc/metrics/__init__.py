"""Pure metric maths: labels and verdicts in, numbers out. No model call, no framework import."""

from rageval_lc.metrics.aggregation import rmse_against_truth, rmse_aggregation, trace_rmse_aggregation
from rageval_lc.metrics.agreement import AgreementRecord, AgreementReport, auroc, judge_agreement, rmse
from rageval_lc.metrics.trace import TRACE_METRICS, TRACE_SCORE_NAMES, TraceScores, trace_scores

__all__ = [
    "TRACE_METRICS",
    "TRACE_SCORE_NAMES",
    "AgreementRecord",
    "AgreementReport",
    "TraceScores",
    "auroc",
    "judge_agreement",
    "rmse",
    "rmse_against_truth",
    "rmse_aggregation",
    "trace_rmse_aggregation",
    "trace_scores",
]
