"""The call plan: which judgements each metric consumes in each scoring mode — the one table.

Metrics ask for *verdicts* (:data:`VERDICTS`: TRACe labels, claims, context verdicts, reference
statements, GEval criteria, the CORRECT/WRONG label, generated questions); :data:`ROUTES` says which
judge calls make each verdict in each mode, and :data:`METRIC_VERDICTS` which verdicts each metric
reads. The registry's specs, the shared judgements (:class:`~rageval_lc.scoring.judgements.SampleJudgements`
picks its route here) and the dry run all read these tables; nothing else lists them.

========================  ==========================  ===============  ==================================
verdict                   ``shared`` (default)        ``fused``        ``separate``
========================  ==========================  ===============  ==================================
trace                     trace_labels                assess_all       trace_labels
claims                    trace_labels (sentences)    assess_all       extract_claims + verify_claims
contexts                  trace_labels (N contexts)   assess_all       context_relevance (N in one call)
statements                assess_reference            assess_all       attribute_reference
accuracy                  assess_reference            assess_all       factual_accuracy
label                     assess_reference            assess_all       classify_answer
questions                 generate_questions          assess_all       generate_questions
========================  ==========================  ===============  ==================================

So the whole suite costs at most 3 calls per sample by default and 1 in the fused mode. A judge that
writes no questions rates answer relevance directly (:data:`FALLBACKS`).

Example:
    >>> metric_judgements("faithfulness", "separate")
    ('extract_claims', 'verify_claims')
    >>> metric_judgements("ragas_score", "shared")
    ('trace_labels', 'assess_reference', 'generate_questions')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

__all__ = [
    "CONTEXT_JUDGEMENTS",
    "FALLBACKS",
    "METRIC_VERDICTS",
    "REFERENCE_JUDGEMENTS",
    "ROUTES",
    "SCORING_MODES",
    "VERDICTS",
    "ScoringMode",
    "metric_judgements",
    "route",
]

ScoringMode = Literal["shared", "fused", "separate"]
SCORING_MODES: tuple[str, ...] = ("shared", "fused", "separate")


def _modes(shared: tuple[str, ...], separate: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    return {"shared": shared, "fused": ("assess_all",), "separate": separate}


#: Verdict -> scoring mode -> the judgements that make it, in call order.
ROUTES: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "trace": _modes(("trace_labels",), ("trace_labels",)),
    "claims": _modes(("trace_labels",), ("extract_claims", "verify_claims")),
    "contexts": _modes(("trace_labels",), ("context_relevance",)),
    "statements": _modes(("assess_reference",), ("attribute_reference",)),
    "accuracy": _modes(("assess_reference",), ("factual_accuracy",)),
    "label": _modes(("assess_reference",), ("classify_answer",)),
    "questions": _modes(("generate_questions",), ("generate_questions",)),
}
VERDICTS: tuple[str, ...] = tuple(ROUTES)

#: Metric -> the verdicts it reads (the embedding metrics read none: they call no judge).
METRIC_VERDICTS: Mapping[str, tuple[str, ...]] = {
    "trace": ("trace",),
    "faithfulness": ("claims",),
    "context_precision": ("contexts",),
    "context_recall": ("statements",),
    "answer_relevance": ("questions",),
    "factual_accuracy": ("accuracy",),
    "answer_classification": ("label",),
    "semantic_similarity": (),
    "bert_score": (),
    "ragas_score": ("claims", "contexts", "statements", "questions"),
}

#: A judgement a judge may lack, and what is made instead (answer relevance's direct rubric).
FALLBACKS: Mapping[str, str] = {"generate_questions": "rate_answer_relevance"}

#: Judgements that only apply to samples with a reference answer.
REFERENCE_JUDGEMENTS = frozenset({"assess_reference", "attribute_reference", "factual_accuracy", "classify_answer"})

#: Judgements only the metrics that need contexts make (none is made for a sample without contexts).
CONTEXT_JUDGEMENTS = frozenset(
    {"trace_labels", "extract_claims", "verify_claims", "context_relevance", "attribute_reference"}
)


def route(verdict: str, mode: str) -> tuple[str, ...]:
    """The judgements that make ``verdict`` in scoring ``mode``.

    Raises:
        KeyError: If the verdict or the mode is not in the plan.
    """
    return ROUTES[verdict][mode]


def metric_judgements(metric: str, mode: str) -> tuple[str, ...]:
    """The judgements ``metric`` consumes in ``mode``, each once, in order (before any fallback).

    Raises:
        KeyError: If the metric has no plan entry.
    """
    return tuple(dict.fromkeys(j for verdict in METRIC_VERDICTS[metric] for j in route(verdict, mode)))
