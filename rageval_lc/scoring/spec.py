"""Deprecated: :class:`~rageval_lc.metrics.spec.MetricSpec` moved to :mod:`rageval_lc.metrics.spec`, beside the
metric modules that declare one each. Its names still import from here, for one release."""

from rageval_lc.metrics.spec import MetricSpec, ScoreFn

__all__ = ["MetricSpec", "ScoreFn"]
