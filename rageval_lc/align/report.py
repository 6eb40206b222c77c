"""What an alignment measured: the held-out figures before and after (:func:`figure_changes`), the report
(:class:`AlignReport`: whether the aligned judge may be used) and the split of the labelled rows by question.

Shared by the offline judge's alignment (:mod:`~rageval_lc.align.offline`) and the LLM judge's
(:mod:`~rageval_lc.align.llm`); both import it, neither the other's module.

A figure counts as evidence only where it could move (:attr:`FigureChange.informative`), and the judge is written
only when the verdicts it gives (row and sentence verdict accuracy, row balanced accuracy) exclude a loss beyond the
tolerance on the held-out rows (:attr:`AlignReport.usable`).

Example:
    >>> auroc = FigureChange("hallucination_auroc", 30, 0.61, 0.58, -0.09, -0.01, True)
    >>> report = AlignReport(fitted_rows=70, held_out_rows=30, strengths={}, figures=[auroc], tolerance=0.005)
    >>> report.usable, report.refusal
    (False, 'the aligned judge is worse on held-out rows (hallucination_auroc)')
    >>> ceiling = FigureChange("row_verdict_accuracy", 12, 1.0, 1.0, 0.0, 0.0, True)
    >>> AlignReport(fitted_rows=24, held_out_rows=12, strengths={}, figures=[ceiling], tolerance=0.01).refusal
    'nothing measured on the held-out rows could show a change (row_verdict_accuracy: at its ceiling before)'
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rageval_lc.align.refit import AlignItem
from rageval_lc.datasets.labelled import LabelledSample
from rageval_lc.metrics.agreement import auroc, balanced_accuracy
from rageval_lc.reports.stats import paired_statistic_ci

__all__ = [
    "SCORES",
    "VERDICT_FIGURES",
    "AlignReport",
    "FigureChange",
    "figure_changes",
    "held_out_kinds",
    "question_key",
    "split_by_question",
    "split_labelled",
]

#: The labelled scores whose RMSE each alignment measures.
SCORES = ("context_relevance", "context_utilization", "completeness")
#: The figures of the verdicts a user reads: the judge is written only when none of them may have lost.
VERDICT_FIGURES = ("row_verdict_accuracy", "row_balanced_accuracy", "sentence_verdict_accuracy")
#: Held-out rows of each kind (faithful, not) the row verdicts need before they can exclude a loss: with fewer, one
#: row is more than a tenth of a kind's hit rate, and a bootstrap cannot show a loss that no held-out row had.
MIN_HELD_OUT_PER_KIND = 10


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

    @property
    def stuck(self) -> str | None:
        """Why this figure cannot move, so that it is no evidence either way (None: it can): at its ceiling or
        floor (every figure lives on 0–1) before the change, or an interval of zero width (the resampled rows
        never told the two judges apart)."""
        if self.before is None or self.after is None:
            return "not measured"
        best, worst = (1.0, 0.0) if self.higher_is_better else (0.0, 1.0)
        if abs(self.before - best) < 1e-9:
            return "at its ceiling before" if self.higher_is_better else "at its floor before"
        if abs(self.before - worst) < 1e-9:
            return "at its floor before" if self.higher_is_better else "at its ceiling before"
        if self.ci_low is None or self.ci_high is None or self.ci_high - self.ci_low < 1e-12:
            return "an interval of zero width"
        return None

    @property
    def informative(self) -> bool:
        """Whether the figure could move (:attr:`stuck` is None): only such a figure counts as evidence."""
        return self.stuck is None


@dataclass
class AlignReport:
    """What :func:`~rageval_lc.align.offline.align_judge` (or the LLM judge's alignment) measured and did."""

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
    thresholds: dict[str, tuple[float, float]] = field(default_factory=dict)  # refitted: name -> (before, after)
    held_out_kinds: dict[str, int] = field(default_factory=dict)  # held-out rows by label: faithful / unfaithful
    held_out_share: float = 0.3

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
    def evidence(self) -> list[FigureChange]:
        """The figures that count as evidence: those that could move (:attr:`FigureChange.informative`)."""
        return [f for f in self.figures if f.informative]

    @property
    def unresolved(self) -> list[FigureChange]:
        """The verdict figures (:data:`VERDICT_FIGURES`; without any, the other figures that count as evidence)
        whose interval does not exclude a loss beyond the tolerance: the held-out rows are too few to show that
        the aligned judge's verdicts are not worse."""
        measured = [f for f in self.figures if f.name in VERDICT_FIGURES and f.gain is not None]
        candidates = measured or self.evidence
        return [
            f
            for f in candidates
            if f.gain_interval[0] < -self.tolerance  # type: ignore[index]
            or (self._few_kinds and f.name.startswith("row_"))
        ]

    @property
    def _few_kinds(self) -> bool:
        """Whether the held-out part has fewer than :data:`MIN_HELD_OUT_PER_KIND` rows of a kind."""
        return bool(self.held_out_kinds) and min(self.held_out_kinds.values()) < MIN_HELD_OUT_PER_KIND

    @property
    def usable(self) -> bool:
        """Whether the aligned judge may be written: not :attr:`worse`, some figure could move, and no verdict
        figure may have lost more than the tolerance (:attr:`unresolved`)."""
        return bool(self.evidence) and not self.worse and not self.unresolved

    @property
    def refusal(self) -> str | None:
        """Why the judge was not written (None when it may be)."""
        if self.usable:
            return None
        if self.worse:
            return f"the aligned judge is worse on held-out rows ({', '.join(f.name for f in self.worse)})"
        if not any(f.gain is not None for f in self.figures):
            return "nothing could be measured on the held-out rows (no figure the labels allow came out on both judges)"
        if not self.evidence:
            stuck = "; ".join(f"{f.name}: {f.stuck}" for f in self.figures)
            return f"nothing measured on the held-out rows could show a change ({stuck})"
        why = []
        if self._few_kinds:
            kinds = self.held_out_kinds
            why.append(
                f"{kinds['faithful']} faithful and {kinds['unfaithful']} unfaithful, fewer than "
                f"{MIN_HELD_OUT_PER_KIND} of a kind"
            )
        wide = [f for f in self.unresolved if f.gain_interval[0] < -self.tolerance]  # type: ignore[index]
        if wide:
            ends = ", ".join(f"{f.name} {f.gain_interval[0]:+.3f}" for f in wide)  # type: ignore[index]
            why.append(f"lower end of the change's interval: {ends}")
        return (
            f"the {self.held_out_rows} held-out rows are too few to exclude a loss beyond {self.tolerance:g} "
            f"({'; '.join(why)})"
        )

    @property
    def advice(self) -> str | None:
        """What to add so that the check can speak (None when the judge is usable or clearly worse)."""
        if self.usable or self.worse:
            return None
        kinds = self.held_out_kinds
        have = (
            f"; the held-out part holds {kinds.get('faithful', 0)} faithful and {kinds.get('unfaithful', 0)} "
            "unfaithful answers"
            if kinds
            else ""
        )
        needed = self._rows_needed()
        if needed is None:
            return (
                "The aligned judge does not look better on the held-out rows: more labelled rows may let the refit "
                "find a gain; meanwhile keep the shipped judge."
            )
        total = self.fitted_rows + self.held_out_rows
        more = max(needed - total, 1)
        return (
            f"Add about {more} more labelled rows ({needed} in all{have}): whole questions, with as many answers "
            "that state something the passages do not support as faithful ones, and sentence labels where you can."
        )

    def _rows_needed(self) -> int | None:
        """Labelled rows in all for a held-out part whose interval could exclude a loss beyond the tolerance: from
        the observed gain and interval (the interval narrows as 1/√rows), or, when nothing could move, enough for
        :data:`MIN_HELD_OUT_PER_KIND` held-out rows of each kind. None: the gain itself is a loss."""
        share = self.held_out_share or 0.3
        if not self.evidence:
            return math.ceil(2 * MIN_HELD_OUT_PER_KIND / share)
        held = self.held_out_rows
        for f in self.unresolved:
            gain, low = f.gain, f.gain_interval[0]  # type: ignore[index]
            if low >= -self.tolerance:  # unresolved only for want of rows of a kind
                continue
            if gain + self.tolerance <= 0:  # type: ignore[operator]
                return None
            width = max(gain - low, 1e-9)  # type: ignore[operator]
            held = max(held, math.ceil(self.held_out_rows * (width / (gain + self.tolerance)) ** 2))  # type: ignore[operator]
        if self._few_kinds:
            fewest = min(self.held_out_kinds.values())
            per_kind = math.ceil(self.held_out_rows * MIN_HELD_OUT_PER_KIND / fewest) if fewest else 0
            held = max(held, per_kind, 2 * MIN_HELD_OUT_PER_KIND)
        return math.ceil(held / share)

    def to_dict(self) -> dict[str, Any]:
        return {
            "fitted_rows": self.fitted_rows,
            "held_out_rows": self.held_out_rows,
            "strengths": {k: (None if math.isinf(v) else v) for k, v in self.strengths.items()},
            "figures": [{**f.__dict__, "gain": f.gain, "stuck": f.stuck} for f in self.figures],
            "worse": [f.name for f in self.worse],
            "unresolved": [f.name for f in self.unresolved],
            "refusal": self.refusal,
            "advice": self.advice,
            "thresholds": {k: list(v) for k, v in self.thresholds.items()},
            "held_out_kinds": self.held_out_kinds,
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
        worse = self.worse
        for f in self.figures:
            change = "–" if f.gain is None else f"{f.after - f.before:+.3f}"
            interval = "" if f.ci_low is None else f" [{f.ci_low:+.3f}, {f.ci_high:+.3f}]"
            arrow = "↑" if f.higher_is_better else "↓"
            note = f"  (no evidence: {f.stuck})" if f.stuck and f.gain is not None and f not in worse else ""
            lines.append(
                f"{f.name + ' ' + arrow:<28} {f.rows:>5} {_num(f.before):>8} {_num(f.after):>8} "
                f"{change + interval:>28}{note}"
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
            if self.thresholds:
                lines.append(
                    "Thresholds refitted with them: "
                    + ", ".join(f"{k} {old:.3f} -> {new:.3f}" for k, (old, new) in self.thresholds.items())
                )
        if self.worse:
            lines.append("Worse on held-out rows: " + ", ".join(f.name for f in self.worse))
        elif self.refusal and self.planned_calls is None:
            lines.append(f"Not usable: {self.refusal}.")
        if self.advice and self.planned_calls is None:
            lines.append(self.advice)
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
    """The held-out figures of two judges' predictions (:func:`~rageval_lc.align.offline.predictions`) on the same
    labelled ``items``, each with the change's paired-bootstrap interval: what the user reads first — the row
    verdict's accuracy and balanced accuracy at each judge's own threshold, and the sentence verdicts' accuracy —
    then the hallucination AUROC and each labelled score's RMSE."""
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
        if it.hallucinated is not None
        and old[i].get("hallucinated") is not None
        and new[i].get("hallucinated") is not None
    ]

    def truth(rows: list[int]) -> list[bool]:
        return [bool(items[i].hallucinated) for i in rows]

    add(
        "row_verdict_accuracy",
        verdicts,
        lambda preds, rows: float(
            np.mean([preds[i]["hallucinated"] == t for i, t in zip(rows, truth(rows), strict=True)])
        ),
        True,
    )
    add(
        "row_balanced_accuracy",
        verdicts if len(set(truth(verdicts))) == 2 else [],
        lambda preds, rows: (
            balanced_accuracy([preds[i]["hallucinated"] for i in rows], truth(rows))
            if len(set(truth(rows))) == 2
            else None
        ),
        True,
    )
    ranked = [
        i
        for i, it in enumerate(items)
        if it.hallucinated is not None and old[i]["p_hallucinated"] is not None and new[i]["p_hallucinated"] is not None
    ]
    add(
        "hallucination_auroc",
        ranked,
        lambda preds, rows: auroc(truth(rows), [preds[i]["p_hallucinated"] for i in rows]),
        True,
    )

    def sentence_accuracy(preds: Sequence[dict], rows: list[int]) -> float | None:
        hits = [
            (key in preds[i]["unsupported"]) == (key in items[i].unsupported)
            for i in rows
            for key in items[i].features.response_keys
        ]
        return float(np.mean(hits)) if hits else None

    with_sentences = [
        i
        for i, it in enumerate(items)
        if it.unsupported is not None and old[i]["unsupported"] is not None and new[i]["unsupported"] is not None
    ]
    add("sentence_verdict_accuracy", with_sentences, sentence_accuracy, True)
    for name in SCORES:

        def rmse(preds: Sequence[dict], rows: list[int], name: str = name) -> float | None:
            errors = [(preds[i][name] - items[i].scores[name]) ** 2 for i in rows]
            return float(np.sqrt(np.mean(errors))) if errors else None

        rows = [i for i, it in enumerate(items) if name in it.scores and old[i][name] is not None]
        add(f"{name}_rmse", [i for i in rows if new[i][name] is not None], rmse, False)
    return figures


def held_out_kinds(items: Sequence[AlignItem]) -> dict[str, int]:
    """How many held-out rows are labelled faithful and how many not (rows without a row label left out)."""
    labels = [it.hallucinated for it in items if it.hallucinated is not None]
    return {"faithful": labels.count(False), "unfaithful": labels.count(True)} if labels else {}
