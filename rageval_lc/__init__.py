"""rageval_lc: score retrieval-augmented generation inside LangChain, DSPy and LangSmith, offline by default.

Importing the package is light: it loads pydantic, not torch, sentence-transformers, DSPy or LangChain.

Example:
    >>> from rageval_lc import RagSample, evaluate_sample
    >>> sample = RagSample(question="Where is Paris?", contexts=["Paris is in France. It is large."],
    ...                    response="Paris is in France.",
    ...                    labels={"all_relevant_sentence_keys": ["0a"], "all_utilized_sentence_keys": ["0a"],
    ...                            "unsupported_response_sentence_keys": []})
    >>> evaluate_sample(sample, "trace", judge="labels").scores()["completeness"]
    1.0
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

from rageval_lc._lazy import lazy_exports
from rageval_lc.adapters.assertions import assert_scores
from rageval_lc.datasets import RagbenchRecord, load_ragbench, ragbench_record, sample_from_row
from rageval_lc.engine.engine import EvaluationRun, aevaluate, evaluate
from rageval_lc.errors import MissingDependencyError, RagevalError
from rageval_lc.judges import LabelsJudge
from rageval_lc.metrics import (
    AgreementRecord,
    AgreementReport,
    TraceScores,
    auroc,
    judge_agreement,
    rmse_against_truth,
    rmse_aggregation,
    trace_rmse_aggregation,
    trace_scores,
)
from rageval_lc.reports.compare import compare
from rageval_lc.rgb.records import RgbRecord, build_documents, load_rgb
from rageval_lc.rgb.run import run_rgb
from rageval_lc.rgb.scoring import EvaluationResult, RgbRow, score_rgb
from rageval_lc.schema import KeyReport, MetricResult, RagSample, SentenceSupport, TraceLabels
from rageval_lc.scoring.custom import criteria_metric, register_metric
from rageval_lc.scoring.registry import REGISTRY, MetricSpec
from rageval_lc.scoring.sample import SampleResult, evaluate_sample
from rageval_lc.text import KeyedSentences, split_sentences

if TYPE_CHECKING:
    from rageval_lc.align.offline import align_judge
    from rageval_lc.engine.ray_engine import evaluate_dataset

__all__ = [
    "REGISTRY",
    "AgreementRecord",
    "AgreementReport",
    "EvaluationResult",
    "EvaluationRun",
    "KeyReport",
    "KeyedSentences",
    "LabelsJudge",
    "MetricResult",
    "MetricSpec",
    "MissingDependencyError",
    "RagSample",
    "RagbenchRecord",
    "RagevalError",
    "RgbRecord",
    "RgbRow",
    "SampleResult",
    "SentenceSupport",
    "TraceLabels",
    "TraceScores",
    "__version__",
    "aevaluate",
    "align_judge",
    "assert_scores",
    "auroc",
    "build_documents",
    "compare",
    "criteria_metric",
    "evaluate",
    "evaluate_dataset",
    "evaluate_sample",
    "judge_agreement",
    "load_ragbench",
    "load_rgb",
    "ragbench_record",
    "register_metric",
    "rmse_against_truth",
    "rmse_aggregation",
    "run_rgb",
    "sample_from_row",
    "score_rgb",
    "split_sentences",
    "trace_rmse_aggregation",
    "trace_scores",
]


#: ``evaluate_dataset`` (Ray Data) and ``align_judge`` (numpy) are imported when first asked for.
__getattr__ = lazy_exports(
    __name__, {"evaluate_dataset": "rageval_lc.engine.ray_engine", "align_judge": "rageval_lc.align.offline"}
)
