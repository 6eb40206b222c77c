"""The call plan: which judgements each metric consumes in each scoring mode — the one table.

Metrics ask for *verdicts* (:data:`VERDICTS`: TRACe labels, claims, context verdicts, reference
statements, GEval criteria, the CORRECT/WRONG label, generated questions); :data:`ROUTES` says which
judge calls make each verdict in each mode, and :data:`METRIC_VERDICTS` which verdicts each metric
reads (as each metric's spec declares them: :attr:`~rageval_lc.metrics.spec.MetricSpec.verdicts`, and a
composite's parts'). The shared judgements (:class:`~rageval_lc.scoring.judgements.SampleJudgements` picks its
route here) and the dry run read these tables; nothing else lists them.

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
writes no questions rates answer relevance directly (:data:`FALLBACKS`: one call more in the fused mode).

Metrics of one's own (:mod:`rageval_lc.scoring.custom`) join these tables when registered
(:func:`add_metric`): a criteria metric ``m`` reads the verdict ``criteria:m``, made in every mode by the
judgement ``criteria:m`` — one call of its own, as its prompt is the user's (fusing it into the built-in
calls would change their prompts, and their compiled state, with every metric registered). A judge that
cannot make criteria judgements (the offline and labels judges) makes none: the metric is undetermined.
A function metric reads no verdict; a metric module of one's own reads the verdicts its spec declares: built-in
ones, or a judgement of one's own declared with :func:`~rageval_lc.judges.declarations.declare`, made in every mode
by that judgement (its own call, once per sample however many metrics read it; ``ctx.judgement(name)``).

Example:
    >>> metric_judgements("faithfulness", "separate")
    ('extract_claims', 'verify_claims')
    >>> metric_judgements("ragas_score", "shared")
    ('trace_labels', 'assess_reference', 'generate_questions')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, get_args

from rageval_lc.judges.declarations import BUILT_IN_JUDGEMENTS, DECLARATIONS
from rageval_lc.scoring.registry import REGISTRY
from rageval_lc.verdicts import CRITERIA, judgement_kind

__all__ = [
    "COMPOSITES",
    "CONTEXT_JUDGEMENTS",
    "FALLBACKS",
    "FALLBACK_VERDICTS",
    "METRIC_VERDICTS",
    "REFERENCE_JUDGEMENTS",
    "ROUTES",
    "SCORING_MODES",
    "VERDICTS",
    "ScoringMode",
    "add_metric",
    "is_declared",
    "metric_judgements",
    "remove_metric",
    "route",
    "verdict_judgements",
]

ScoringMode = Literal["shared", "fused", "separate"]
SCORING_MODES: tuple[str, ...] = get_args(ScoringMode)


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

#: Metric -> the verdicts it reads, as its spec declares them (the embedding metrics read none: they call no
#: judge; a composite reads its parts').
METRIC_VERDICTS: Mapping[str, tuple[str, ...]] = {name: spec.reads for name, spec in REGISTRY.items()}
#: A metric made of other metrics (scored through them, each part with its own evidence rules), as declared.
COMPOSITES: Mapping[str, tuple[str, ...]] = {
    name: tuple(part.name for part in spec.parts) for name, spec in REGISTRY.items() if spec.parts
}

#: A judgement a judge may lack, and what is made instead (answer relevance's direct rubric). A verdict
#: routed through a call that cannot carry it for such a judge (the fused call of a judge that writes no
#: questions) adds the fallback after that call.
FALLBACKS: Mapping[str, str] = {"generate_questions": "rate_answer_relevance"}
#: The verdict each fallback stands in for.
FALLBACK_VERDICTS: Mapping[str, str] = {"generate_questions": "questions"}

#: Judgements that only apply to samples with a reference answer (as declared: their ``needs``).
REFERENCE_JUDGEMENTS = frozenset(name for name, d in DECLARATIONS.items() if "reference" in d.needs)

#: Judgements only the metrics that need contexts make (none is made for a sample without contexts).
CONTEXT_JUDGEMENTS = frozenset(name for name, d in DECLARATIONS.items() if "contexts" in d.needs)


_BUILT_IN_METRICS = frozenset(METRIC_VERDICTS)


def add_metric(metric: str, verdicts: tuple[str, ...]) -> None:
    """Put a metric of one's own in the plan: it reads ``verdicts``, each a verdict of :data:`VERDICTS` (made as
    the built-in metrics' are, once however many metrics read it), a ``criteria:<metric>`` verdict or the name of
    a judgement of one's own (:func:`~rageval_lc.judges.declarations.declare`), each of the last two made in
    every mode by the judgement of the same name (none, for a metric that calls no judge).

    Raises:
        ValueError: If ``metric`` is a built-in metric or a verdict is none of these.
    """
    if metric in _BUILT_IN_METRICS:
        msg = f"{metric!r} is a built-in metric: the plan keeps its entry."
        raise ValueError(msg)
    unknown = [v for v in verdicts if v not in VERDICTS and judgement_kind(v) != CRITERIA and not is_declared(v)]
    if unknown:
        msg = (
            f"A metric of one's own reads the verdicts {', '.join(VERDICTS)}, criteria verdicts "
            f"('criteria:<metric>') or judgements of one's own declared with declare(). Got {unknown!r}."
        )
        raise ValueError(msg)
    routes, metric_verdicts = _mutable(ROUTES), _mutable(METRIC_VERDICTS)
    for verdict in _own(verdicts):
        routes[verdict] = {mode: (verdict,) for mode in SCORING_MODES}
    metric_verdicts[metric] = tuple(verdicts)


def remove_metric(metric: str) -> None:
    """Take a metric of one's own out of the plan (nothing happens for one not there).

    Raises:
        ValueError: If ``metric`` is a built-in metric.
    """
    if metric in _BUILT_IN_METRICS:
        msg = f"{metric!r} is a built-in metric: the plan keeps its entry."
        raise ValueError(msg)
    routes, metric_verdicts = _mutable(ROUTES), _mutable(METRIC_VERDICTS)
    for verdict in _own(metric_verdicts.pop(metric, ())):
        if not any(verdict in others for others in metric_verdicts.values()):  # a declared one may be shared
            routes.pop(verdict, None)


def is_declared(verdict: str) -> bool:
    """Whether ``verdict`` names a judgement of one's own, declared with
    :func:`~rageval_lc.judges.declarations.declare` (a metric module may read it).

    Example:
        >>> is_declared("verify_claims"), is_declared("claims")
        (False, False)
    """
    return verdict in DECLARATIONS and verdict not in BUILT_IN_JUDGEMENTS


def _own(verdicts: tuple[str, ...]) -> list[str]:
    """The verdicts a metric of one's own routes itself (criteria and declared ones; the others are built in)."""
    return [v for v in verdicts if v not in VERDICTS]


def _mutable(table: Mapping[str, object]) -> dict[str, object]:
    assert isinstance(table, dict)  # the module's own tables; a test may patch them with other dicts
    return table


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
    return verdict_judgements(METRIC_VERDICTS[metric], mode)


def verdict_judgements(
    verdicts: tuple[str, ...] | list[str], mode: str, supports: frozenset[str] | None = None
) -> tuple[str, ...]:
    """The judgements that make ``verdicts`` in ``mode``, each once, in order; with ``supports`` (a judge's
    judgements), a judgement the judge lacks is replaced by its fallback, a verdict routed through a
    call that cannot carry it for that judge is followed by the fallback, and a criteria judgement the
    judge cannot make is left out (its metric is undetermined).

    Example:
        >>> verdict_judgements(["questions"], "fused", frozenset({"assess_all"}))
        ('assess_all', 'rate_answer_relevance')
    """
    made: list[str] = []
    for verdict in verdicts:
        for judgement in route(verdict, mode):
            if supports is not None and judgement_kind(judgement) == CRITERIA:
                if CRITERIA in supports:
                    made.append(judgement)
                continue
            lacking = supports is not None and judgement not in supports
            made.append(FALLBACKS[judgement] if lacking and judgement in FALLBACKS else judgement)
        for needed, instead in FALLBACKS.items():
            if supports is not None and FALLBACK_VERDICTS[needed] == verdict and needed not in supports:
                made.append(instead)
    return tuple(dict.fromkeys(made))
