"""The RAGAS composite (definition: docs/metrics/ragas.md, "Definitions"): the weighted mean of faithfulness,
context precision, context recall and answer relevance, the weights renormalised over the parts determined.

Its parts are the four metrics' own specs: each is scored through
:func:`~rageval_lc.metrics.spec.score_metric` with its own evidence rules (a context part is left out on a
sample without contexts), on the judgements the sample shares, so the composite adds no judge call. Scores are
in [0, 1] here; the report layer renders them 0–100 under the reference's names.

Example (the reference's composite for its local_search row: context precision undetermined):
    >>> round(100 * ragas_score({"faithfulness": 1.0, "context_precision": None,
    ...                           "context_recall": 1.0, "answer_relevance": 0.8327}), 2)
    93.73
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from rageval_lc.metrics.answer_relevance import METRIC as ANSWER_RELEVANCE
from rageval_lc.metrics.context_precision import METRIC as CONTEXT_PRECISION
from rageval_lc.metrics.context_recall import METRIC as CONTEXT_RECALL
from rageval_lc.metrics.faithfulness import METRIC as FAITHFULNESS
from rageval_lc.metrics.results import details_of, ok
from rageval_lc.metrics.spec import Judgements, MetricSpec, Scored, score_metric
from rageval_lc.schema import MetricResult

__all__ = ["METRIC", "RAGAS_WEIGHTS", "ragas_score", "score_ragas"]

#: The reference's default composite weights.
RAGAS_WEIGHTS: dict[str, float] = {
    "faithfulness": 0.30,
    "context_precision": 0.20,
    "context_recall": 0.20,
    "answer_relevance": 0.30,
}


def ragas_score(scores: Mapping[str, float | None], weights: Mapping[str, float] | None = None) -> float | None:
    """Weighted mean of the four metrics present, the weights renormalised over them; None if none is present.

    Raises:
        ValueError: If a weight is negative or the weights of the present metrics sum to 0.

    Example (the reference's basic_search row: 0.3 × 83.27 / 1.0):
        >>> round(100 * ragas_score({"faithfulness": 0.0, "context_precision": 0.0,
        ...                          "context_recall": 0.0, "answer_relevance": 0.8327}), 2)
        24.98
    """
    weights = dict(weights or RAGAS_WEIGHTS)
    if any(w < 0 for w in weights.values()):
        msg = f"RAGAS weights must be >= 0. Got {weights!r}."
        raise ValueError(msg)
    present = {
        name: float(value)
        for name, value in scores.items()
        if name in weights and value is not None and math.isfinite(value)
    }
    if not present:
        return None
    total = math.fsum(weights[name] for name in present)
    if total <= 0:
        msg = f"The weights of the metrics present ({sorted(present)}) sum to 0."
        raise ValueError(msg)
    return math.fsum(value * weights[name] / total for name, value in present.items())


def score_ragas(ctx: Judgements) -> Scored:
    """The weighted composite of the four, renormalised over those determined (each part scored through
    :func:`~rageval_lc.metrics.spec.score_metric`: a part missing its evidence is left out)."""
    components: dict[str, float | None] = {}
    for part in METRIC.parts:
        results, _ = score_metric(part, ctx)  # the judgements are shared; only the arithmetic is repeated
        components[part.name] = results[part.name].score
    weights = ctx.options.ragas_weights
    score = ragas_score(components, weights)
    left_out = [name for name, value in components.items() if value is None]
    details = details_of(ctx, "ragas_score", components=components, left_out=left_out)
    if score is None:
        result = MetricResult(name="ragas_score", status="undetermined", reason="None of its four parts is determined.")
        return {"ragas_score": result}, details
    reason = "Weighted mean of " + ", ".join(f"{n} {v:.2f}" for n, v in components.items() if v is not None)
    reason += f"; left out (weights renormalised): {', '.join(left_out)}." if left_out else "."
    return {"ragas_score": ok("ragas_score", score, reason, components=components)}, details


METRIC = MetricSpec(
    "ragas_score",
    ("ragas_score",),
    "RAGAS composite: 0.3 faithfulness, 0.2 precision, 0.2 recall, 0.3 relevance (renormalised).",
    score_ragas,
    parts=(FAITHFULNESS, CONTEXT_PRECISION, CONTEXT_RECALL, ANSWER_RELEVANCE),
)
