"""The public API is pinned: changing it is a deliberate act."""

from __future__ import annotations

import rageval_lc

EXPECTED = [
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
    "auroc",
    "build_documents",
    "evaluate",
    "evaluate_sample",
    "judge_agreement",
    "load_ragbench",
    "load_rgb",
    "ragbench_record",
    "rmse_against_truth",
    "rmse_aggregation",
    "run_rgb",
    "sample_from_row",
    "score_rgb",
    "split_sentences",
    "trace_rmse_aggregation",
    "trace_scores",
]


def test_all_is_pinned() -> None:
    assert rageval_lc.__all__ == EXPECTED


def test_every_name_resolves() -> None:
    for name in rageval_lc.__all__:
        assert getattr(rageval_lc, name) is not None, name


def test_registry_lists_trace() -> None:
    spec = rageval_lc.REGISTRY["trace"]
    assert spec.scores[:4] == ("context_relevance", "context_utilization", "completeness", "adherence")
    assert spec.requires == ("question",)
    assert spec.needs_contexts  # undetermined without contexts, not an error
    context_metrics = {name for name, spec in rageval_lc.REGISTRY.items() if spec.needs_contexts}
    assert context_metrics == {"trace", "faithfulness", "context_precision", "context_recall"}
