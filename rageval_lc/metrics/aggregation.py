"""RMSE aggregation of TRACe scores (docs/metrics/trace.md, "RMSE aggregation and agreement").

Three questions, three functions:

* :func:`rmse_aggregation` — how balanced are one evaluation's four metrics?
* :func:`rmse_against_truth` — how far is one evaluation from its ground truth?
* :func:`trace_rmse_aggregation` — how far are many evaluations from theirs, and how consistent?

A metric missing (absent or None) on either side is left out, never counted as 0.

Example (the reference's "balanced metrics" example):
    >>> round(rmse_aggregation([0.85, 0.82, 0.88, 0.84]), 3)
    0.022
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["TRACE_METRIC_NAMES", "rmse_against_truth", "rmse_aggregation", "trace_rmse_aggregation"]

TRACE_METRIC_NAMES: tuple[str, ...] = ("context_relevance", "context_utilization", "completeness", "adherence")


def rmse_aggregation(scores: Sequence[float] | Mapping[str, Any]) -> float:
    """Return the spread of the four TRACe metrics around their mean (population RMSE).

    μ = mean(R, U, C, A); result = sqrt(mean((m − μ)²)). 0 means perfectly balanced.

    Args:
        scores: four numbers, or a mapping with the four TRACe metric names.

    Raises:
        ValueError: If a metric is missing or not a finite number.

    Example:
        >>> rmse_aggregation({"context_relevance": 0.5, "context_utilization": 0.5,
        ...                   "completeness": 0.5, "adherence": 0.5})
        0.0
    """
    if isinstance(scores, Mapping):
        values = [_number(scores.get(name), name, "rmse_aggregation") for name in TRACE_METRIC_NAMES]
    else:
        if len(scores) != 4:
            msg = f"rmse_aggregation needs the four TRACe metrics. Got {len(scores)} values instead."
            raise ValueError(msg)
        values = [_number(v, TRACE_METRIC_NAMES[i], "rmse_aggregation") for i, v in enumerate(scores)]
    mean = math.fsum(values) / 4
    return math.sqrt(math.fsum((v - mean) ** 2 for v in values) / 4)


def rmse_against_truth(predicted: Mapping[str, Any], truth: Mapping[str, Any]) -> dict[str, Any]:
    """Compare one evaluation with its ground truth.

    Per metric the error is |pred − truth|; the aggregate is sqrt(mean of squared errors) over the
    metrics present on both sides. (The reference's code takes sqrt(mean(|error|)); its formula, which
    is followed here, does not.)

    Returns:
        ``{"per_metric": {metric: error}, "aggregated_rmse": float, "evaluated_metrics": [...]}``

    Raises:
        ValueError: If no metric is present on both sides.

    Example:
        >>> out = rmse_against_truth({"context_relevance": 0.5, "adherence": 1.0},
        ...                          {"context_relevance": 0.2, "adherence": True, "completeness": 0.4})
        >>> {k: round(v, 4) for k, v in out["per_metric"].items()}, round(out["aggregated_rmse"], 4)
        ({'context_relevance': 0.3, 'adherence': 0.0}, 0.2121)
    """
    errors = {name: abs(d) for name, d in _differences(predicted, truth, "rmse_against_truth").items()}
    if not errors:
        msg = "rmse_against_truth found no TRACe metric present in both 'predicted' and 'truth'."
        raise ValueError(msg)
    return {
        "per_metric": errors,
        "aggregated_rmse": _root_mean_square(errors.values()),
        "evaluated_metrics": list(errors),
    }


def trace_rmse_aggregation(results: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Aggregate many evaluations against their ground truth.

    For each metric M present on both sides in n_M evaluations, RMSE_M = sqrt(Σ(pred − truth)² / n_M);
    aggregated = sqrt(Σ RMSE_M² / number of evaluated metrics); consistency = 1 − min(aggregated, 1).

    Args:
        results: items shaped ``{"metrics": {...}, "ground_truth_scores": {...}}`` as in the reference.

    Returns:
        ``per_metric_rmse``, ``aggregated_rmse``, ``consistency_score``, ``num_evaluations``,
        ``evaluated_metrics`` and ``per_metric_count``.

    Raises:
        ValueError: If an item lacks its two mappings or no metric is present on both sides anywhere.

    Example:
        >>> out = trace_rmse_aggregation([
        ...     {"metrics": {"context_relevance": 0.8}, "ground_truth_scores": {"context_relevance": 0.6}},
        ...     {"metrics": {"context_relevance": 0.4}, "ground_truth_scores": {"context_relevance": 0.4}}])
        >>> round(out["per_metric_rmse"]["context_relevance"], 4), round(out["consistency_score"], 4)
        (0.1414, 0.8586)
    """
    differences: dict[str, list[float]] = {name: [] for name in TRACE_METRIC_NAMES}
    count = 0
    for index, item in enumerate(results):
        count += 1
        if not isinstance(item, Mapping) or not all(
            isinstance(item.get(k), Mapping) for k in ("metrics", "ground_truth_scores")
        ):
            msg = (
                f"Item {index} of trace_rmse_aggregation's 'results' must be a mapping with 'metrics' and "
                f"'ground_truth_scores' mappings. Got {type(item).__name__}."
            )
            raise ValueError(msg)
        pairs = _differences(item["metrics"], item["ground_truth_scores"], "trace_rmse_aggregation")
        for name, difference in pairs.items():
            differences[name].append(difference)
    per_metric = {name: _root_mean_square(ds) for name, ds in differences.items() if ds}
    if not per_metric:
        msg = "trace_rmse_aggregation found no TRACe metric present in both predictions and ground truth."
        raise ValueError(msg)
    aggregated = _root_mean_square(per_metric.values())
    return {
        "per_metric_rmse": per_metric,
        "aggregated_rmse": aggregated,
        "consistency_score": 1.0 - min(aggregated, 1.0),
        "num_evaluations": count,
        "evaluated_metrics": list(per_metric),
        "per_metric_count": {name: len(ds) for name, ds in differences.items() if ds},
    }


def _differences(predicted: Mapping[str, Any], truth: Mapping[str, Any], caller: str) -> dict[str, float]:
    """pred − truth for each TRACe metric present (not None) on both sides."""
    return {
        name: _number(predicted[name], name, caller) - _number(truth[name], name, caller)
        for name in TRACE_METRIC_NAMES
        if predicted.get(name) is not None and truth.get(name) is not None
    }


def _root_mean_square(values: Iterable[float]) -> float:
    values = list(values)
    return math.sqrt(math.fsum(v * v for v in values) / len(values))


def _number(value: Any, name: str, caller: str) -> float:
    """Return a metric value as a float (bools are 0/1), or raise naming the metric."""
    if isinstance(value, bool):
        return float(value)
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        msg = f"The {name!r} value given to {caller} must be a finite number. Got {value!r} instead."
        raise ValueError(msg)
    return float(value)
