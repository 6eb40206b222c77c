"""The metric registry: every metric the CLI and the adapters know is one :class:`MetricSpec` in
:data:`REGISTRY`; nothing lists metrics by hand elsewhere.

Example:
    >>> [spec.name for spec in parse_metrics("trace, faithfulness")]
    ['trace', 'faithfulness']
    >>> REGISTRY["context_precision"].scores
    ('context_precision', 'context_precision_at_k')
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any

from rageval_lc.metrics.trace import COMPANION_SCORES, TRACE_METRICS, TRACE_SCORE_NAMES
from rageval_lc.schema import MetricResult
from rageval_lc.scoring import scorers
from rageval_lc.scoring.judgements import SampleJudgements
from rageval_lc.scoring.plan import COMPOSITES
from rageval_lc.scoring.spec import MetricSpec

__all__ = [
    "BUILT_IN_METRICS",
    "BUILT_IN_SCORES",
    "RAGAS_FAMILY",
    "REGISTRY",
    "MetricSpec",
    "get_metric",
    "parse_metrics",
]


_SPECS = (
    MetricSpec(
        "trace",
        TRACE_SCORE_NAMES,
        "TRACe (RAGBench): relevance, utilization, completeness, adherence from one labelling pass.",
        scorers.score_trace,
        requires=("question",),
        needs_contexts=True,
        headline=TRACE_METRICS,
    ),
    MetricSpec(
        "faithfulness",
        ("faithfulness",),
        "Supported claims / claims (the TRACe pass's sentence verdicts unless --scoring-mode separate).",
        scorers.score_faithfulness,
        needs_contexts=True,
    ),
    MetricSpec(
        "context_precision",
        ("context_precision", "context_precision_at_k"),
        "Share of relevant contexts, and its rank-aware form (mean precision@k).",
        scorers.score_context_precision,
        needs_contexts=True,
    ),
    MetricSpec(
        "context_recall",
        ("context_recall",),
        "Reference statements attributable to the contexts / reference statements.",
        scorers.score_context_recall,
        needs_reference=True,
        needs_contexts=True,
    ),
    MetricSpec(
        "answer_relevance",
        ("answer_relevance",),
        "Similarity of the question to questions generated from the answer (rubric fallback).",
        scorers.score_answer_relevance,
    ),
    MetricSpec(
        "factual_accuracy",
        ("factual_accuracy",),
        "GEval: 0.5 correctness + 0.3 completeness + 0.2 consistency against the reference; grade A-E.",
        scorers.score_factual_accuracy,
        needs_reference=True,
    ),
    MetricSpec(
        "answer_classification",
        ("answer_classification",),
        "CORRECT / WRONG against the reference, DON'T KNOW on an uncertainty phrase (1.0 = correct).",
        scorers.score_answer_classification,
        needs_reference=True,
    ),
    MetricSpec(
        "semantic_similarity",
        ("semantic_similarity",),
        "max(0, cosine) of answer and reference embeddings (no LLM).",
        scorers.score_semantic_similarity,
        needs_reference=True,
    ),
    MetricSpec(
        "bert_score",
        ("bert_score_precision", "bert_score_recall", "bert_score_f1"),
        "BERTScore from the embedding model's token vectors (no LLM).",
        scorers.score_bert_score,
        needs_reference=True,
        headline=("bert_score_f1", "bert_score_precision", "bert_score_recall"),
    ),
)
_BY_NAME = {spec.name: spec for spec in _SPECS}


def _score_ragas(ctx: SampleJudgements) -> tuple[dict[str, MetricResult], dict[str, Any]]:
    """The composite, each part scored through :func:`score_metric` (a part missing its evidence is left out)."""
    return scorers.score_ragas(
        ctx, {part: partial(scorers.score_metric, _BY_NAME[part]) for part in COMPOSITES["ragas_score"]}
    )


_SPECS += (
    MetricSpec(
        "ragas_score",
        ("ragas_score",),
        "RAGAS composite: 0.3 faithfulness, 0.2 precision, 0.2 recall, 0.3 relevance (renormalised).",
        _score_ragas,
    ),
)
REGISTRY: dict[str, MetricSpec] = {spec.name: spec for spec in _SPECS}
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
