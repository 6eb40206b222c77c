"""What an alignment measured: the held-out figures before and after (:func:`figure_changes`), the report
(:class:`AlignReport`: whether the aligned judge may be used) and the split of the labelled rows by question.

Shared by the offline judge's alignment (:mod:`~rageval_lc.runs.align`) and the LLM judge's
(:mod:`~rageval_lc.runs.align_llm`); both import it, neither the other's module.

Example:
    >>> auroc = FigureChange("hallucination_auroc", 30, 0.61, 0.58, -0.09, -0.01, True)
    >>> report = AlignReport(fitted_rows=70, held_out_rows=30, strengths={}, figures=[auroc], tolerance=0.005)
    >>> report.usable, report.refusal
    (False, 'the aligned judge is worse on held-out rows (hallucination_auroc)')
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rageval_lc.datasets.labelled import LabelledSample
from rageval_lc.judges.offline.align import AlignItem
from rageval_lc.metrics.agreement import auroc
from rageval_lc.reports.stats import paired_statistic_ci

__all__ = [
    "SCORES",
    "AlignReport",
    "FigureChange",
    "figure_changes",
    "question_key",
    "split_by_question",
    "split_labelled",
]

#: The labelled scores whose RMSE each alignment measures.
SCORES = ("context_relevance", "context_utilization", "completeness")


@dataclass(frozen=True)
class HeldOutCheck:
    """How an aligned judge is checked: the share of rows held out (whole questions), the seed of the split and of
    the bootstrap, the tolerance of :attr:`AlignReport.worse`, whether a worse judge is written anyway (``force``),
    and progress bars on stderr."""

    held_out: float = 0.3
    seed: int = 0
    force: bool = False
    tolerance: float = 0.01
    progress: bool = False


@dataclass(frozen=True)
class FigureChange:
    """One held-out figure before and after, with the paired-bootstrap interval of the change."""

    name: str
    rows: int
    before: float | None
    after: float | None
    ci_low: float | None
    ci_high: float | None
    higher_is_better: bool

    @property
    def gain(self) -> float | None:
        """The change in the good direction (positive: better)."""
        if self.before is None or self.after is None:
            return None
        return (self.after - self.before) * (1 if self.higher_is_better else -1)

    @property
    def gain_interval(self) -> tuple[float, float] | None:
        """The change's 95 % interval in the good direction (above zero: better); the gain itself when no
        interval was drawn, None when nothing was measured."""
        if self.gain is None:
            return None
        if self.ci_low is None or self.ci_high is None:
            return self.gain, self.gain
        low, high = (self.ci_low, self.ci_high) if self.higher_is_better else (-self.ci_high, -self.ci_low)
        return low + 0.0, high + 0.0  # + 0.0: no "-0.000"


@dataclass
class AlignReport:
    """What :func:`~rageval_lc.runs.align.align_judge` (or the LLM judge's alignment) measured and did."""

    fitted_rows: int
    held_out_rows: int
    strengths: dict[str, float]
    figures: list[FigureChange]
    tolerance: float
    written: Path | None = None
    skipped: list[str] = field(default_factory=list)
    compiled: dict[str, int] = field(default_factory=dict)  # an LLM judge: module -> training examples
    resumed: list[str] = field(default_factory=list)  # an LLM judge: modules loaded from the checkpoint
    kind: str = "offline"  # the judge aligned: "offline" (refitted) or "llm" (compiled)
    planned_calls: int | None = None  # an LLM judge's dry run: model calls compiling and checking would make

    @property
    def worse(self) -> list[FigureChange]:
        """Why the aligned judge is refused: each figure it is clearly worse on (the change's whole 95 % interval
        on the worse side, beyond the tolerance), or, when the figures' gains add up to less than minus the
        tolerance (worse overall), every figure it lost on. Empty: it may be used."""
        known = [f for f in self.figures if f.gain is not None]
        clearly = [f for f in known if f.gain_interval[1] < -self.tolerance]  # type: ignore[index]
        if clearly:
            return clearly
        if sum(f.gain for f in known) < -self.tolerance:  # type: ignore[misc]
            return [f for f in known if f.gain < 0]  # type: ignore[operator]
        return []

    @property
    def usable(self) -> bool:
        """Whether the aligned judge may be written: something was measured on held-out rows and it is not worse."""
        return any(f.gain is not None for f in self.figures) and not self.worse

    @property
    def refusal(self) -> str | None:
        """Why the judge was not written (None when it may be)."""
        if self.usable:
            return None
        if self.worse:
            return f"the aligned judge is worse on held-out rows ({', '.join(f.name for f in self.worse)})"
        return "nothing could be measured on the held-out rows (no figure the labels allow came out on both judges)"

    def to_dict(self) -> dict[str, Any]:
        return {
            "fitted_rows": self.fitted_rows,
            "held_out_rows": self.held_out_rows,
            "strengths": {k: (None if math.isinf(v) else v) for k, v in self.strengths.items()},
            "figures": [{**f.__dict__, "gain": f.gain} for f in self.figures],
            "worse": [f.name for f in self.worse],
            "refusal": self.refusal,
            "written": None if self.written is None else str(self.written),
            "skipped": self.skipped,
            "compiled": self.compiled,
            "resumed": self.resumed,
            "kind": self.kind,
            "planned_calls": self.planned_calls,
        }

    def table(self) -> str:
        """The report as printed by ``rageval align``."""
        lines = [
            f"Fitted on {self.fitted_rows} rows, measured on {self.held_out_rows} held-out rows (split by question).",
            f"{'figure':<28} {'rows':>5} {'before':>8} {'after':>8} {'change [95% interval]':>28}",
        ]
        for f in self.figures:
            change = "–" if f.gain is None else f"{f.after - f.before:+.3f}"
            interval = "" if f.ci_low is None else f" [{f.ci_low:+.3f}, {f.ci_high:+.3f}]"
            arrow = "↑" if f.higher_is_better else "↓"
            lines.append(
                f"{f.name + ' ' + arrow:<28} {f.rows:>5} {_num(f.before):>8} {_num(f.after):>8} {change + interval:>28}"
            )
        if self.kind == "llm":
            lines.append(
                "Compiled: " + (", ".join(f"{k} ({n} examples)" for k, n in self.compiled.items()) or "nothing")
            )
            if self.resumed:
                lines.append("Resumed (loaded from the checkpoint, not compiled again): " + ", ".join(self.resumed))
            lines += [f"Left as it was: {why}" for why in self.skipped]
            if self.planned_calls is not None:
                lines.append(f"Dry run: {self.planned_calls} model calls planned (compiling and the held-out check).")
        else:
            moved = {k: v for k, v in self.strengths.items() if not math.isinf(v)}
            lines.append(
                "Refitted: "
                + (", ".join(f"{k} (strength {v:g})" for k, v in moved.items()) or "nothing (kept as shipped)")
            )
        if self.worse:
            lines.append("Worse on held-out rows: " + ", ".join(f.name for f in self.worse))
        elif self.refusal and self.planned_calls is None:
            lines.append(f"Not usable: {self.refusal}.")
        if self.written is not None:
            lines.append(f"Written: {self.written}")
        return "\n".join(lines)


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def split_by_question(questions: Sequence[str], *, held_out: float = 0.3, seed: int = 0) -> tuple[list[int], list[int]]:
    """Indices of the fitted and held-out rows, given each row's question: the distinct questions shuffled
    (seeded), then dealt to the held-out side until it holds ``held_out`` of the rows; all rows of a question
    (compared without case or spacing) fall on one side.

    Example:
        >>> fit, held = split_by_question(["a", "a", "b", "b", "c", "c", "d", "d"], held_out=0.25)
        >>> len(held), {("abcd")[i // 2] for i in held}.isdisjoint({("abcd")[i // 2] for i in fit})
        (2, True)
    """
    by_question: dict[str, list[int]] = {}
    for i, question in enumerate(questions):
        by_question.setdefault(question_key(question), []).append(i)
    keys = sorted(by_question)
    random.Random(seed).shuffle(keys)
    held: list[int] = []
    for key in keys:
        if len(held) >= held_out * len(questions):
            break
        held += by_question[key]
    fitted = sorted(set(range(len(questions))) - set(held))
    return fitted, sorted(held)


def split_labelled(labelled: Sequence[LabelledSample], *, held_out: float, seed: int) -> tuple[list[int], list[int]]:
    """:func:`split_by_question` on labelled rows, refusing a split with nothing to fit on or hold out.

    Raises:
        ValueError: If too few rows or distinct questions leave one side (nearly) empty.
    """
    fitted, held = split_by_question([x.sample.question for x in labelled], held_out=held_out, seed=seed)
    if len(fitted) < 2 or not held:
        questions = len({question_key(x.sample.question) for x in labelled})
        msg = (
            f"{len(labelled)} labelled rows on {questions} distinct questions are too few to fit on some and hold "
            "some out: give at least 10 rows on at least 4 questions (rows of one question stay together)."
        )
        raise ValueError(msg)
    return fitted, held


def question_key(question: str) -> str:
    """The question as rows are grouped by it (without case or spacing)."""
    return " ".join(question.lower().split())


def figure_changes(
    items: Sequence[AlignItem], old: Sequence[dict], new: Sequence[dict], *, seed: int = 0
) -> list[FigureChange]:
    """Hallucination AUROC, sentence support accuracy and each score's RMSE of two judges' predictions
    (:func:`~rageval_lc.runs.align.predictions`) on the same labelled ``items``, with the change's
    paired-bootstrap interval."""
    figures = []

    def add(name: str, rows: list[int], stat: Callable[[Sequence[dict], list[int]], float | None], up: bool) -> None:
        if not rows:
            return
        index = np.array(rows)
        low, high = paired_statistic_ci(
            lambda r: stat(new, index[r].tolist()), lambda r: stat(old, index[r].tolist()), len(rows), seed=seed
        )
        figures.append(FigureChange(name, len(rows), stat(old, rows), stat(new, rows), low, high, up))

    verdicts = [
        i
        for i, it in enumerate(items)
        if it.hallucinated is not None and old[i]["p_hallucinated"] is not None and new[i]["p_hallucinated"] is not None
    ]
    add(
        "hallucination_auroc",
        verdicts,
        lambda preds, rows: auroc(
            [bool(items[i].hallucinated) for i in rows], [preds[i]["p_hallucinated"] for i in rows]
        ),
        True,
    )

    def sentence_accuracy(preds: Sequence[dict], rows: list[int]) -> float | None:
        hits = [
            (key in preds[i]["unsupported"]) == (key in items[i].unsupported)
            for i in rows
            for key in items[i].features.response_keys
        ]
        return float(np.mean(hits)) if hits else None

    with_sentences = [i for i in verdicts if items[i].unsupported is not None and old[i]["unsupported"] is not None]
    add("sentence_support_accuracy", with_sentences, sentence_accuracy, True)
    for name in SCORES:

        def rmse(preds: Sequence[dict], rows: list[int], name: str = name) -> float | None:
            errors = [(preds[i][name] - items[i].scores[name]) ** 2 for i in rows]
            return float(np.sqrt(np.mean(errors))) if errors else None

        rows = [i for i, it in enumerate(items) if name in it.scores and old[i][name] is not None]
        add(f"{name}_rmse", [i for i in rows if new[i][name] is not None], rmse, False)
    return figures
