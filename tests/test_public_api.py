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


#: Where each package of the one-house layout keeps its public pieces (README "Architecture").
LAYOUT = {
    "rageval_lc.scoring": ["REGISTRY", "MetricSpec", "SampleResult", "evaluate_sample", "parse_metrics"],
    "rageval_lc.scoring.plan": ["ROUTES", "METRIC_VERDICTS", "COMPOSITES", "FALLBACKS", "metric_judgements"],
    "rageval_lc.scoring.dry_run": ["plan_calls", "CallPlan"],
    "rageval_lc.scoring.custom": ["criteria_metric", "register_metric", "unregister_metric", "temporary_metrics"],
    "rageval_lc.engine.engine": ["evaluate", "aevaluate", "EvaluationRun", "score_items"],
    "rageval_lc.engine.jsonl": ["evaluate_lines", "run_settings"],
    "rageval_lc.engine.ray_engine": ["score_on_ray", "evaluate_dataset"],
    "rageval_lc.rgb.run": ["run_rgb"],
    "rageval_lc.align.offline": ["align_judge", "align_items", "split_by_question", "AlignReport"],
    "rageval_lc.align.refit": ["fit_aligned", "shrunk_logistic", "shrunk_linear", "AlignItem"],
    "rageval_lc.datasets.labelled": ["read_labelled", "LabelledSample"],
    "rageval_lc.reports.summary": ["summarize", "format_table", "reference_view"],
    "rageval_lc.reports.html": ["render_html"],
    "rageval_lc.reports.gate": ["check_gate", "format_gate", "parse_threshold", "parse_condition", "Threshold"],
    "rageval_lc.adapters.assertions": ["assert_scores", "configure_judge", "configured_judge", "metrics_for"],
    "rageval_lc.adapters.pytest_plugin": ["rageval_judge", "pytest_addoption", "judge_setting"],
    "rageval_lc.reports.compare": ["compare", "Comparison", "format_comparison"],
    "rageval_lc.reports.compare_html": ["render_compare_html"],
    "rageval_lc.judges": ["BaseJudge", "Judge", "LabelsJudge", "make_judge"],
    "rageval_lc.judges.resilient": ["ResilientJudge", "JudgeCache"],
    "rageval_lc.adapters": ["RagEvaluator", "langsmith_evaluator", "dspy_metric", "RagEvalCallbackHandler"],
}


def test_the_layout_exports_its_pieces() -> None:
    import importlib

    missing = [
        f"{module}.{name}"
        for module, names in LAYOUT.items()
        for name in names
        if getattr(importlib.import_module(module), name, None) is None
    ]
    assert missing == []


def test_the_top_level_names_are_the_layout_ones() -> None:
    from rageval_lc.engine.engine import evaluate
    from rageval_lc.reports.compare import compare
    from rageval_lc.scoring import REGISTRY, evaluate_sample

    assert rageval_lc.evaluate is evaluate
    assert rageval_lc.compare is compare
    assert rageval_lc.evaluate_sample is evaluate_sample
    assert rageval_lc.REGISTRY is REGISTRY
    from rageval_lc.adapters.assertions import assert_scores

    assert rageval_lc.assert_scores is assert_scores


def test_evaluate_dataset_is_the_ray_engines() -> None:
    from rageval_lc.engine.ray_engine import evaluate_dataset

    assert rageval_lc.evaluate_dataset is evaluate_dataset


def test_the_package_root_holds_at_most_nine_modules() -> None:
    from pathlib import Path

    root = Path(rageval_lc.__file__).parent
    assert len(list(root.glob("*.py"))) <= 9, sorted(p.name for p in root.glob("*.py"))


def test_a_judge_of_ones_own_is_checked_against_the_contract() -> None:
    import pytest

    from rageval_lc.judges.factory import resolve_judge

    class HalfAJudge:
        name, supports = "half", frozenset({"trace_labels"})

    with pytest.raises(TypeError, match=r"lacks trace_labels\. Subclass rageval_lc\.judges\.BaseJudge"):
        resolve_judge(HalfAJudge())
