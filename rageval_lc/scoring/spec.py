"""What one metric is: a :class:`MetricSpec` (its scores, what it needs, how it scores a sample).

The built-in specs are listed in :data:`~rageval_lc.scoring.registry.REGISTRY`; their score functions live in
:mod:`~rageval_lc.scoring.scorers`, which reads the spec type from here.

Example:
    >>> from rageval_lc.scoring.registry import REGISTRY
    >>> spec = REGISTRY["faithfulness"]
    >>> spec.single, spec.judgements["separate"]
    ('faithfulness', ('extract_claims', 'verify_claims'))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rageval_lc.schema import MetricResult
from rageval_lc.scoring.judgements import SampleJudgements
from rageval_lc.scoring.plan import SCORING_MODES, metric_judgements

__all__ = ["MetricSpec", "ScoreFn"]

ScoreFn = Callable[[SampleJudgements], tuple[dict[str, MetricResult], dict[str, Any]]]


@dataclass(frozen=True)
class MetricSpec:
    """What one metric (or metric family scored in one pass) produces and needs.

    Attributes:
        name: the name used on the command line (``--metrics``).
        scores: the score names it reports, each in [0, 1], higher is better.
        description: one line for help texts.
        score: scores a sample from its shared judgements: one result per name in ``scores`` and details.
        requires: sample fields that must be non-empty.
        needs_reference: True when it is undetermined on a sample without a reference answer.
        needs_contexts: True when it is undetermined on a sample without retrieved contexts (none, or
            only blank ones): :func:`evaluate_sample` then calls no judge for it and gives every score
            ``undetermined`` with the reason.
        headline: the scores an integration reports as this metric's own (LangSmith feedback keys).
            Default: all ``scores``.
    """

    name: str
    scores: tuple[str, ...]
    description: str
    score: ScoreFn
    requires: tuple[str, ...] = ()
    needs_reference: bool = False
    needs_contexts: bool = False
    headline: tuple[str, ...] = ()

    @property
    def judgements(self) -> dict[str, tuple[str, ...]]:
        """Per scoring mode (``shared``, ``fused``, ``separate``), the judgements it consumes (from the plan)."""
        return {mode: metric_judgements(self.name, mode) for mode in SCORING_MODES}

    @property
    def headlines(self) -> tuple[str, ...]:
        """The scores integrations report (LangSmith feedback keys)."""
        return self.headline or self.scores

    @property
    def single(self) -> str:
        """The one score that stands for the metric (a LangChain evaluator's ``score``, a DSPy metric's value)."""
        return "average" if "average" in self.scores else self.headlines[0]
