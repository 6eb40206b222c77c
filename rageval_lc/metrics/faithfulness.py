"""Faithfulness (definition: docs/metrics/ragas.md, "Definitions"): the share of the answer's claims the contexts
support.

The claims are the ``claims`` verdict: by default the response sentences with the TRACe labelling pass's
support verdicts (sentences that only state uncertainty make no claim); with ``--scoring-mode separate``,
claims extracted from the answer and verified in one call. No claims → 1.0 (nothing unsupported was said).

Example:
    >>> faithfulness([True, True, False, True]), faithfulness([])
    (0.75, 1.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rageval_lc.metrics.results import details_of, missing, ok
from rageval_lc.metrics.spec import Judgements, MetricSpec, Scored
from rageval_lc.text import plural

__all__ = ["METRIC", "faithfulness", "score_faithfulness"]


def faithfulness(supported: Sequence[bool]) -> float:
    """Supported claims / claims; 1.0 when there are no claims (nothing unsupported was said).

    Example:
        >>> faithfulness([True, False])
        0.5
    """
    return sum(bool(s) for s in supported) / len(supported) if supported else 1.0


def _claim_text(verdict: Any) -> str:
    """An unsupported claim, quoted, with the judge's reason up to its figures (the offline judge's are long)."""
    reason = (verdict.reason or "").split("; estimated")[0].rstrip(". ")
    return f"{verdict.claim!r}" + (f" ({reason})" if reason else "")


def score_faithfulness(ctx: Judgements) -> Scored:
    """Supported claims / claims (no claims → 1.0)."""
    claims = ctx.claims()
    if not claims.ok:
        return missing(("faithfulness",), claims), details_of(ctx, "faithfulness", claims)
    verdicts = claims.value
    score = faithfulness([c.supported for c in verdicts])
    unsupported = [c for c in verdicts if not c.supported]
    if not verdicts:
        reason = "The answer makes no claim, so nothing it says is unsupported."
    elif unsupported:
        shown = "; ".join(_claim_text(c) for c in unsupported[:5])
        supported = len(verdicts) - len(unsupported)
        reason = f"{supported} of {plural(len(verdicts), 'claim')} supported; unsupported: {shown}"
    else:
        every = "The claim is" if len(verdicts) == 1 else f"All {len(verdicts)} claims are"
        reason = f"{every} supported by the contexts."
    claims_out = [c.model_dump() for c in verdicts]
    result = ok("faithfulness", score, reason, claims=claims_out)
    return {"faithfulness": result}, details_of(ctx, "faithfulness", claims, claims=claims_out)


METRIC = MetricSpec(
    "faithfulness",
    ("faithfulness",),
    "Supported claims / claims (the TRACe pass's sentence verdicts unless --scoring-mode separate).",
    score_faithfulness,
    needs_contexts=True,
    answer_scores=("faithfulness",),
    verdicts=("claims",),
)
