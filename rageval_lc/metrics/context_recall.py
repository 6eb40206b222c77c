"""Context recall (definition: docs/metrics/ragas.md, "Definitions"): the share of the reference answer's
statements that the contexts support.

The ``statements`` verdict splits the reference into statements, each attributed or not to the contexts. No
statements → 1.0; no contexts → 0.0 (it is only scored on samples with contexts and a reference).

Example:
    >>> context_recall([True, False]), context_recall([]), context_recall([True], has_contexts=False)
    (0.5, 1.0, 0.0)
"""

from __future__ import annotations

from collections.abc import Sequence

from rageval_lc.metrics.results import NEEDS_REFERENCE, details_of, missing, ok, undetermined
from rageval_lc.metrics.spec import Judgements, MetricSpec, Scored
from rageval_lc.text import plural

__all__ = ["METRIC", "context_recall", "score_context_recall"]


def context_recall(attributed: Sequence[bool], *, has_contexts: bool = True) -> float:
    """Reference statements attributable to the contexts / statements; 1.0 with no statements, 0.0 with no contexts.

    Example:
        >>> context_recall([True, True, False, True])
        0.75
    """
    if not attributed:
        return 1.0
    if not has_contexts:
        return 0.0
    return sum(bool(a) for a in attributed) / len(attributed)


def score_context_recall(ctx: Judgements) -> Scored:
    """Reference statements attributable to the contexts / statements (none → 1.0; called on samples with
    contexts)."""
    if not ctx.has_reference:
        return undetermined(("context_recall",), NEEDS_REFERENCE), details_of(ctx, "context_recall")
    statements = ctx.statements()
    if not statements.ok:
        return missing(("context_recall",), statements), details_of(ctx, "context_recall", statements)
    flags = [s.attributed for s in statements.value]
    score = context_recall(flags, has_contexts=bool(ctx.sample.contexts))
    if not flags:
        reason = "The reference has no statements to recall."
    elif not ctx.sample.contexts:
        reason = "No contexts were retrieved, so nothing of the reference is recalled."
    else:
        missed = [s.statement for s in statements.value if not s.attributed]
        reason = f"{len(flags) - len(missed)} of {plural(len(flags), 'reference statement')} found in the contexts" + (
            "; missing: " + "; ".join(repr(m) for m in missed[:5]) if missed else "."
        )
    out = [s.model_dump() for s in statements.value]
    return {"context_recall": ok("context_recall", score, reason, statements=out)}, details_of(
        ctx, "context_recall", statements, statements=out
    )


METRIC = MetricSpec(
    "context_recall",
    ("context_recall",),
    "Reference statements attributable to the contexts / reference statements.",
    score_context_recall,
    needs_reference=True,
    needs_contexts=True,
    verdicts=("statements",),
)
