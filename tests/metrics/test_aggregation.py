"""RMSE aggregation: the reference's examples and formulas (reference/trace_rmse_aggregation.txt)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rageval_lc.metrics.aggregation import rmse_against_truth, rmse_aggregation, trace_rmse_aggregation

METRICS = ("context_relevance", "context_utilization", "completeness", "adherence")


def as_scores(r: float, u: float, c: float, a: float) -> dict[str, float]:
    return dict(zip(METRICS, (r, u, c, a), strict=True))


def test_example_1_balanced_metrics() -> None:
    # R 0.85, U 0.82, C 0.88, A 0.84: μ = 0.8475, MSE ≈ 0.000488 (exactly 0.00046875), RMSE = 0.022.
    value = rmse_aggregation(as_scores(0.85, 0.82, 0.88, 0.84))
    assert value == pytest.approx(math.sqrt(0.00046875))
    assert value == pytest.approx(0.022, abs=5e-4)  # the three decimals the example shows


def test_example_2_imbalanced_metrics_follows_the_formula() -> None:
    """The reference's own steps: μ = 0.75, deviations [0.20, -0.25, 0.10, -0.05], squares
    0.04 + 0.0625 + 0.01 + 0.0025. Their mean is 0.02875, so RMSE = 0.1696; the reference then writes
    "MSE = 0.0237, RMSE = 0.154", an arithmetic slip (0.0237 is not the mean of its own squares).
    The formula SPEC §3.4 mandates is what is implemented and asserted here."""
    scores = as_scores(0.95, 0.50, 0.85, 0.70)
    mean = sum(scores.values()) / 4
    assert mean == pytest.approx(0.75)
    deviations = [scores[m] - mean for m in ("context_relevance", "adherence", "completeness", "context_utilization")]
    assert deviations == pytest.approx([0.20, -0.05, 0.10, -0.25])
    assert sum(d * d for d in deviations) == pytest.approx(0.04 + 0.0625 + 0.01 + 0.0025)
    assert rmse_aggregation(scores) == pytest.approx(math.sqrt(0.115 / 4))
    assert rmse_aggregation(scores) == pytest.approx(0.170, abs=5e-4)


def test_target_example_and_visual_guide() -> None:
    # "Target: R=0.87, U=0.85, C=0.85, A=0.82": the formula gives 0.0179 (the reference rounds to 0.019).
    assert rmse_aggregation(as_scores(0.87, 0.85, 0.85, 0.82)) == pytest.approx(math.sqrt(0.00031875))
    # Visual guide (0.20, 0.75, 0.75, 0.0): 0.333 by the formula (the guide prints 0.437; SPEC §3.4).
    assert rmse_aggregation([0.2, 0.75, 0.75, 0.0]) == pytest.approx(0.333, abs=5e-4)


def test_rmse_aggregation_rejects_incomplete_input() -> None:
    with pytest.raises(ValueError, match=r"'adherence' value given to rmse_aggregation must be a finite number"):
        rmse_aggregation({"context_relevance": 1.0, "context_utilization": 1.0, "completeness": 1.0})
    with pytest.raises(ValueError, match=r"needs the four TRACe metrics\. Got 3"):
        rmse_aggregation([0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match=r"finite number\. Got nan"):
        rmse_aggregation([0.1, 0.2, 0.3, math.nan])


@given(st.lists(st.floats(0, 1), min_size=4, max_size=4))
def test_rmse_aggregation_is_the_population_standard_deviation(values: list[float]) -> None:
    import numpy as np

    assert rmse_aggregation(values) == pytest.approx(float(np.std(values)), abs=1e-12)


def test_against_truth_single_evaluation() -> None:
    predicted = as_scores(0.80, 0.75, 0.90, 1.0)
    truth = as_scores(0.85, 0.67, 0.87, 1.0)
    out = rmse_against_truth(predicted, truth)
    assert out["per_metric"] == pytest.approx(
        {"context_relevance": 0.05, "context_utilization": 0.08, "completeness": 0.03, "adherence": 0.0}
    )
    # sqrt(mean of squared errors) = sqrt((0.0025 + 0.0064 + 0.0009 + 0) / 4); the reference's code would
    # take sqrt(mean(|errors|)) = sqrt(0.04) = 0.2 instead.
    assert out["aggregated_rmse"] == pytest.approx(math.sqrt(0.0098 / 4))
    assert out["evaluated_metrics"] == list(METRICS)


def test_against_truth_leaves_missing_metrics_out() -> None:
    out = rmse_against_truth(
        {"context_relevance": 0.5, "completeness": None}, {"context_relevance": 0.1, "completeness": 0.3}
    )
    assert out["evaluated_metrics"] == ["context_relevance"]
    assert out["aggregated_rmse"] == pytest.approx(0.4)
    with pytest.raises(ValueError, match="no TRACe metric present in both"):
        rmse_against_truth({"adherence": 1.0}, {"completeness": 1.0})


def test_many_evaluations_hand_computed() -> None:
    results = [
        {"metrics": as_scores(0.8, 0.6, 1.0, 1.0), "ground_truth_scores": as_scores(0.6, 0.6, 0.5, 1.0)},
        {"metrics": as_scores(0.4, 0.2, 0.5, 0.0), "ground_truth_scores": as_scores(0.4, 0.6, 0.5, True)},
    ]
    out = trace_rmse_aggregation(results)
    # Per metric: R sqrt((0.04 + 0)/2), U sqrt((0 + 0.16)/2), C sqrt((0.25 + 0)/2), A sqrt((0 + 1)/2).
    expected = {
        "context_relevance": math.sqrt(0.02),
        "context_utilization": math.sqrt(0.08),
        "completeness": math.sqrt(0.125),
        "adherence": math.sqrt(0.5),
    }
    assert out["per_metric_rmse"] == pytest.approx(expected)
    aggregated = math.sqrt((0.02 + 0.08 + 0.125 + 0.5) / 4)
    assert out["aggregated_rmse"] == pytest.approx(aggregated)
    assert out["consistency_score"] == pytest.approx(1 - aggregated)
    assert out["num_evaluations"] == 2
    assert out["evaluated_metrics"] == list(METRICS)


def test_many_evaluations_missing_metrics_are_never_zero() -> None:
    results = [
        {"metrics": {"context_relevance": 0.5, "adherence": None}, "ground_truth_scores": as_scores(0.3, 0, 0, 1)},
        {"metrics": {"context_relevance": 0.1}, "ground_truth_scores": {"context_relevance": 0.1}},
    ]
    out = trace_rmse_aggregation(results)
    assert out["evaluated_metrics"] == ["context_relevance"]
    assert out["per_metric_count"] == {"context_relevance": 2}
    assert out["per_metric_rmse"]["context_relevance"] == pytest.approx(math.sqrt(0.04 / 2))
    assert out["aggregated_rmse"] == pytest.approx(math.sqrt(0.02))


def test_consistency_score_floors_at_zero_and_bad_items_raise() -> None:
    out = trace_rmse_aggregation([{"metrics": as_scores(1, 1, 1, 1), "ground_truth_scores": as_scores(0, 0, 0, 0)}])
    assert out["aggregated_rmse"] == 1.0
    assert out["consistency_score"] == 0.0
    with pytest.raises(ValueError, match=r"Item 0 .* 'metrics' and 'ground_truth_scores'"):
        trace_rmse_aggregation([{"metrics": {}}])
    with pytest.raises(ValueError, match="no TRACe metric present"):
        trace_rmse_aggregation([])
