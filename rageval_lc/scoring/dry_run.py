"""Say what a run will cost before any model is called.

For each judgement the metrics need in the scoring mode (shared judgements counted once), the model
calls per sample, the samples it applies to (reference judgements only where a reference exists,
context judgements only where contexts exist; no classification call for a "don't know" answer), the
total, and for LLM judges an estimate of the prompt tokens from the prompts the adapter would send. The
answer-relevance rubric fallback, made only when no question could be generated, is not counted.

Example:
    >>> from rageval_lc.judges import LabelsJudge
    >>> from rageval_lc.schema import RagSample
    >>> sample = RagSample(question="Q?", contexts=["A."], response="A.")
    >>> plan_calls([sample], ["trace"], LabelsJudge())[0]
    CallPlan(judgement='trace_labels', metrics=('trace',), calls_per_sample=0, samples=1, calls=0, prompt_tokens=None)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rageval_lc.judges.base import Judge
from rageval_lc.metrics.geval import is_dont_know
from rageval_lc.schema import RagSample
from rageval_lc.scoring.judgements import planned_judgements
from rageval_lc.scoring.plan import CONTEXT_JUDGEMENTS, REFERENCE_JUDGEMENTS
from rageval_lc.scoring.registry import get_metric, parse_metrics

__all__ = ["CallPlan", "plan_calls"]


@dataclass(frozen=True)
class CallPlan:
    """The planned calls of one judgement over a run (before any retry)."""

    judgement: str
    metrics: tuple[str, ...]
    calls_per_sample: int
    samples: int
    calls: int
    prompt_tokens: int | None


def plan_calls(
    samples: Iterable[RagSample], metrics: str | Sequence[str], judge: Judge, *, scoring_mode: str = "shared"
) -> list[CallPlan]:
    """Plan the model calls of scoring ``samples`` on ``metrics`` with ``judge``; nothing is sent.

    Raises:
        ValueError: If a metric or the mode is unknown, or a metric needs a judgement the judge cannot make.
    """
    needed = planned_judgements(parse_metrics(metrics), scoring_mode, judge)
    samples = list(samples)
    plans = []
    for judgement, names in needed.items():
        applies = [s for s in samples if _applies(judgement, names, s)]
        per_sample = judge.planned_calls(judgement)
        tokens = None
        if per_sample:
            counts = [judge.estimate_prompt_tokens(judgement, sample) for sample in applies]
            tokens = None if any(c is None for c in counts) else sum(counts)
        plans.append(CallPlan(judgement, tuple(names), per_sample, len(applies), per_sample * len(applies), tokens))
    return plans


def _applies(judgement: str, metrics: Sequence[str], sample: RagSample) -> bool:
    """Whether scoring ``sample`` will make ``judgement`` (the shortcuts the metrics take)."""
    if not sample.has_contexts and (
        judgement in CONTEXT_JUDGEMENTS or all(get_metric(m).needs_contexts for m in metrics)
    ):
        return False
    if judgement in REFERENCE_JUDGEMENTS:
        if not (sample.reference and sample.reference.strip()):
            return False
        if judgement in ("classify_answer", "assess_reference") and set(metrics) == {"answer_classification"}:
            return not is_dont_know(sample.response)
    if judgement in ("generate_questions", "rate_answer_relevance", "extract_claims"):
        return bool(sample.response.strip())
    if judgement in ("verify_claims", "context_relevance"):
        return bool(sample.contexts)
    return True
