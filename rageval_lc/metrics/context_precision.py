"""Context precision (definition: docs/metrics/ragas.md, "Definitions"): the share of the retrieved contexts that
are relevant to the question, and its rank-aware form (the mean of precision@k over the ranks of the relevant
contexts).

The ``contexts`` verdict says, per context, relevant or not: by default read off the TRACe labelling pass (a
context is relevant iff one of its sentences is, :func:`relevant_contexts`); with ``--scoring-mode separate``,
judged in one call. No contexts → 0.0 (it is only scored on samples with contexts).

Example (relevant at ranks 1 and 3):
    >>> context_precision([True, False, True, False]), round(context_precision_at_k([True, False, True, False]), 4)
    (0.5, 0.8333)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rageval_lc.metrics.results import details_of, missing, ok
from rageval_lc.metrics.spec import Judgements, MetricSpec, Scored
from rageval_lc.text import normalize_key, parse_key, plural

__all__ = ["METRIC", "context_precision", "context_precision_at_k", "relevant_contexts", "score_context_precision"]


def context_precision(relevant: Sequence[bool]) -> float:
    """Mean of the per-context relevance verdicts; 0.0 when there are no contexts.

    Example:
        >>> context_precision([True, False, True, False])
        0.5
    """
    return sum(bool(r) for r in relevant) / len(relevant) if relevant else 0.0


def relevant_contexts(relevant_sentence_keys: Iterable[str], n_contexts: int) -> list[bool]:
    """Per-context relevance from TRACe's relevant sentence keys: a context is relevant iff one of its
    sentences is (this is how one labelling pass serves context precision too). Keys that are not
    document-sentence keys are ignored.

    Example:
        >>> relevant_contexts(["0b", "2a"], 3)
        [True, False, True]
    """
    relevant = [False] * n_contexts
    for raw in relevant_sentence_keys:
        key = normalize_key(raw)
        if key is None:
            continue
        document, _ = parse_key(key)
        if document is not None and 0 <= document < n_contexts:
            relevant[document] = True
    return relevant


def context_precision_at_k(relevant: Sequence[bool]) -> float:
    """Rank-aware precision: the mean of precision@k over the ranks k of relevant contexts; 0.0 if none.

    Example (relevant at ranks 1 and 3: (1/1 + 2/3) / 2):
        >>> round(context_precision_at_k([True, False, True, False]), 4)
        0.8333
    """
    hits, total = 0, 0.0
    for k, is_relevant in enumerate(relevant, start=1):
        if is_relevant:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


def score_context_precision(ctx: Judgements) -> Scored:
    """Mean relevance of the contexts and its rank-aware form (called on samples with contexts)."""
    names = ("context_precision", "context_precision_at_k")
    verdicts = ctx.context_verdicts()
    if not verdicts.ok:
        return missing(names, verdicts), details_of(ctx, "context_precision", verdicts)
    flags = [v.relevant for v in sorted(verdicts.value, key=lambda v: v.index)]
    if not flags:
        reason = "No contexts were retrieved."
    else:
        ranks = [str(i + 1) for i, f in enumerate(flags) if f]
        reason = f"{len(ranks)} of {plural(len(flags), 'context')} relevant" + (
            f" (ranks {', '.join(ranks)})." if ranks else "."
        )
    out = [v.model_dump() for v in verdicts.value]
    results = {
        "context_precision": ok("context_precision", context_precision(flags), reason, contexts=out),
        "context_precision_at_k": ok(
            "context_precision_at_k", context_precision_at_k(flags), reason + " Rank-aware: mean precision@k."
        ),
    }
    return results, details_of(ctx, "context_precision", verdicts, contexts=out)


METRIC = MetricSpec(
    "context_precision",
    ("context_precision", "context_precision_at_k"),
    "Share of relevant contexts, and its rank-aware form (mean precision@k).",
    score_context_precision,
    needs_contexts=True,
    verdicts=("contexts",),
)
