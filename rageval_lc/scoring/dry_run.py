"""Say what a run will cost before any model is called.

For each judgement the metrics need in the scoring mode (shared judgements counted once), the model
calls per sample, the samples it applies to (reference judgements only where a reference exists,
context judgements only where contexts exist; no classification call for a "don't know" answer), the
total (for a cascade judge, the most its budget allows: :meth:`~rageval_lc.judges.cascade.CascadeJudge.most_calls`),
and for LLM judges an estimate of the prompt tokens from the prompts the adapter would send. The
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
from rageval_lc.judges.declarations import declaration_of
from rageval_lc.metrics.answer_classification import is_dont_know
from rageval_lc.schema import RagSample
from rageval_lc.scoring.judgements import planned_judgements
from rageval_lc.scoring.plan import METRIC_VERDICTS, route, verdict_judgements
from rageval_lc.scoring.registry import MetricSpec, parse_metrics
from rageval_lc.text import is_claim

__all__ = ["CallPlan", "judgements_made", "plan_calls"]


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
    specs = parse_metrics(metrics)
    samples = list(samples)
    needed = planned_judgements(specs, scoring_mode, judge)
    made = [judgements_made(sample, specs, scoring_mode, judge.supports) for sample in samples]
    plans = []
    for judgement, names in needed.items():
        applies = [sample for sample, its in zip(samples, made, strict=True) if judgement in its]
        per_sample = judge.planned_calls(judgement)
        calls = per_sample * len(applies)
        tokens = None
        if per_sample:
            counts = [judge.estimate_prompt_tokens(judgement, sample) for sample in applies]
            tokens = None if any(c is None for c in counts) else sum(counts)
            most = getattr(judge, "most_calls", None)  # a cascade: the calls its budget allows
            if callable(most) and applies:
                calls = most(judgement, applies)
                tokens = None if tokens is None else round(tokens * calls / len(applies))
        plans.append(CallPlan(judgement, tuple(names), per_sample, len(applies), calls, tokens))
    return plans


def judgements_made(sample: RagSample, specs: Sequence[MetricSpec], mode: str, supports: frozenset[str]) -> set[str]:
    """The judgements scoring ``sample`` on ``specs`` makes in ``mode`` for a judge supporting ``supports``:
    the plan's routes, less the shortcuts the metrics take (a metric without its evidence is undetermined
    without a call; a "don't know" answer makes no claim and is classified without a call).

    Example:
        >>> from rageval_lc.scoring.registry import parse_metrics
        >>> sample = RagSample(question="Q?", contexts=[], response="A.", reference="A.")
        >>> sorted(judgements_made(sample, parse_metrics("faithfulness,factual_accuracy"), "shared",
        ...                        frozenset({"trace_labels", "assess_reference"})))
        ['assess_reference']
    """
    made: set[str] = set()
    has_reference = bool(sample.reference and sample.reference.strip())
    for spec in _parts(specs):
        if (spec.needs_contexts and not sample.has_contexts) or (spec.needs_reference and not has_reference):
            continue
        for verdict in METRIC_VERDICTS[spec.name]:
            if not _verdict_needs_a_call(verdict, mode, sample):
                continue
            made.update(j for j in verdict_judgements((verdict,), mode, supports) if _applies(j, sample))
    return made


def _parts(specs: Sequence[MetricSpec]) -> list[MetricSpec]:
    """The specs with each composite replaced by its parts (each scored with its own evidence rules)."""
    return [part for spec in specs for part in spec.parts or (spec,)]


def _verdict_needs_a_call(verdict: str, mode: str, sample: RagSample) -> bool:
    if verdict == "claims" and route(verdict, mode)[0] != "extract_claims":
        # claims are the response sentences: an answer of only "I don't know." makes no claim
        return any(is_claim(text) for _, text in sample.sentences.response)
    if verdict == "label":
        return not is_dont_know(sample.response)
    return True


def _applies(judgement: str, sample: RagSample) -> bool:
    """Whether ``judgement`` can be made for ``sample`` at all (what it declares it needs is there)."""
    if judgement == "verify_claims" and not any(is_claim(text) for _, text in sample.sentences.response):
        return False  # whatever the extractor returns of an answer that makes no claim is left out, unverified
    declaration = declaration_of(judgement)
    return declaration is None or declaration.applies_to(sample)
