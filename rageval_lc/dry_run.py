"""Say what a run will cost before any model is called.

For each judgement the metrics need (shared judgements counted once), the model calls per sample, the
total, and for LLM judges an estimate of the prompt tokens from the prompts the adapter would send.

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

from rageval_lc.evaluators import parse_metrics
from rageval_lc.judges.base import Judge, unsupported
from rageval_lc.schema import RagSample

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


def plan_calls(samples: Iterable[RagSample], metrics: str | Sequence[str], judge: Judge) -> list[CallPlan]:
    """Plan the model calls of scoring ``samples`` on ``metrics`` with ``judge``; nothing is sent.

    Raises:
        ValueError: If a metric is unknown or needs a judgement the judge cannot make.
    """
    specs = parse_metrics(metrics)
    needed: dict[str, list[str]] = {}
    for spec in specs:
        for judgement in spec.judgements:
            if judgement not in judge.supports:
                raise ValueError(unsupported(judge, judgement))
            needed.setdefault(judgement, []).append(spec.name)
    samples = list(samples)
    estimate = getattr(judge, "estimate_prompt_tokens", None)
    plans = []
    for judgement, names in needed.items():
        per_sample = judge.planned_calls(judgement)
        tokens = None
        if per_sample and callable(estimate):
            counts = [estimate(judgement, sample) for sample in samples]
            tokens = None if any(c is None for c in counts) else sum(counts)
        plans.append(CallPlan(judgement, tuple(names), per_sample, len(samples), per_sample * len(samples), tokens))
    return plans
