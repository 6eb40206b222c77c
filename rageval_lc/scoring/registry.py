"""The metric registry: every metric the CLI and the adapters know is one :class:`MetricSpec` in
:data:`REGISTRY`, gathered from the metrics' own modules (:data:`~rageval_lc.metrics.METRIC_MODULES`, each
defining ``METRIC``); nothing lists metrics by hand elsewhere. A metric of one's own joins it
(:mod:`rageval_lc.scoring.custom`).

Example:
    >>> [spec.name for spec in parse_metrics("trace, faithfulness")]
    ['trace', 'faithfulness']
    >>> REGISTRY["context_precision"].scores
    ('context_precision', 'context_precision_at_k')
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from rageval_lc.metrics import METRIC_MODULES
from rageval_lc.metrics.spec import MetricSpec
from rageval_lc.metrics.trace import COMPANION_SCORES

__all__ = [
    "BUILT_IN_METRICS",
    "BUILT_IN_SCORES",
    "RAGAS_FAMILY",
    "REGISTRY",
    "MetricSpec",
    "get_metric",
    "parse_metrics",
]


def _gather(modules: Iterable[str]) -> dict[str, MetricSpec]:
    """Each module's ``METRIC``, by name, in order."""
    specs = [importlib.import_module(f"rageval_lc.metrics.{module}").METRIC for module in modules]
    return {spec.name: spec for spec in specs}


REGISTRY: dict[str, MetricSpec] = _gather(METRIC_MODULES)
#: The reference document's family (its report view renders these 0-100).
RAGAS_FAMILY: tuple[str, ...] = tuple(name for name in REGISTRY if name != "trace")
#: The metrics that ship with the library, and every score name they report: a metric of one's own
#: (:mod:`rageval_lc.scoring.custom`) joins :data:`REGISTRY` under a name that is neither.
BUILT_IN_METRICS: frozenset[str] = frozenset(REGISTRY)
BUILT_IN_SCORES: frozenset[str] = frozenset(
    {*COMPANION_SCORES, *(score for spec in REGISTRY.values() for score in spec.scores)}
)


def get_metric(name: str) -> MetricSpec:
    """Return the spec of a registered metric.

    Raises:
        ValueError: If no metric has that name (the message lists those that do).
    """
    try:
        return REGISTRY[name]
    except KeyError:
        msg = f"Unknown metric {name!r}. Known metrics: {', '.join(sorted(REGISTRY))}."
        raise ValueError(msg) from None


def parse_metrics(metrics: str | Iterable[str | MetricSpec]) -> list[MetricSpec]:
    """Parse ``"trace,faithfulness"`` (or a list of names or specs) into specs, in order, without duplicates.

    Specs pass through unchanged, so a run parses its metrics once and hands the specs down.
    """
    if isinstance(metrics, str):
        metrics = metrics.split(",")
    items = [m if isinstance(m, MetricSpec) else str(m).strip() for m in metrics]
    specs = [m if isinstance(m, MetricSpec) else get_metric(m) for m in dict.fromkeys(items) if m]
    if not specs:
        msg = "At least one metric is required (e.g. 'trace')."
        raise ValueError(msg)
    return list(dict.fromkeys(specs))
