"""Align the offline judge to a user's labelled rows, and prove it on rows it did not see (``rageval align``).

The labelled rows (:mod:`~rageval_lc.datasets.labelled`) are split by question (seeded; every row of one
question on one side, so near-duplicates cannot leak): the judge is refitted on one part
(:func:`~rageval_lc.judges.offline.align.fit_aligned`, shrunk toward its current parameters) and both judges,
before and after, are measured on the other. Each figure (hallucination AUROC, per-sentence support accuracy,
RMSE of each labelled score) comes with its paired-bootstrap interval. A judge that is worse on held-out rows
(:attr:`AlignReport.worse`: clearly worse on one figure, or worse overall) is not written unless ``force``.

Example (the README's worked example runs it on 30 bundled rows)::

    report = align_judge(rows, out="my_judge.json")
    print(report.table())
    judge = make_judge("local:my_judge.json")
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rageval_lc.datasets.labelled import LabelledSample, read_labelled
from rageval_lc.judges.offline.align import MODELS, AlignItem, fit_aligned
from rageval_lc.judges.offline.model import LocalParams
from rageval_lc.metrics.agreement import auroc
from rageval_lc.reports.stats import paired_statistic_ci

__all__ = [
    "METRIC_MODELS",
    "AlignReport",
    "FigureChange",
    "align_items",
    "align_judge",
    "figure_changes",
    "predictions",
    "split_by_question",
]

#: The offline judge's models each metric reads (what ``--metrics`` refits).
METRIC_MODELS: dict[str, tuple[str, ...]] = {
    "trace": MODELS,
    "faithfulness": ("support", "hallucination"),
    "adherence": ("support", "hallucination"),
    "context_relevance": ("relevance", "relevance_share"),
    "context_utilization": ("utilization", "utilization_share"),
    "completeness": ("relevance", "utilization", "relevance_share", "utilization_share", "completeness"),
}
_SCORES = ("context_relevance", "context_utilization", "completeness")


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


@dataclass
class AlignReport:
    """What :func:`align_judge` measured and did."""

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
        clearly = [f for f in known if _worse_end(f) < -self.tolerance]
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


def _worse_end(figure: FigureChange) -> float:
    """The better end of the change's interval, as a gain (below zero: the whole interval is worse)."""
    if figure.ci_low is None or figure.ci_high is None:
        return figure.gain or 0.0
    return figure.ci_high if figure.higher_is_better else -figure.ci_low


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
        by_question.setdefault(_question_key(question), []).append(i)
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
        questions = len({_question_key(x.sample.question) for x in labelled})
        msg = (
            f"{len(labelled)} labelled rows on {questions} distinct questions are too few to fit on some and hold "
            "some out: give at least 10 rows on at least 4 questions (rows of one question stay together)."
        )
        raise ValueError(msg)
    return fitted, held


def _question_key(question: str) -> str:
    return " ".join(question.lower().split())


def align_judge(
    data: object,
    judge: Any = "local",
    *,
    metrics: str | Sequence[str] = ("trace",),
    out: str | Path | None = None,
    held_out: float = 0.3,
    seed: int = 0,
    force: bool = False,
    tolerance: float = 0.01,
    progress: bool = False,
    optimizer: Any = "labeled",
    scoring_mode: str = "shared",
    dry_run: bool = False,
    checkpoint: str | Path | None = None,
) -> AlignReport:
    """Align a judge to labelled rows and measure it before and after on held-out rows.

    The offline judge's models are refitted (see the module docstring); an LLM judge (``dspy:<model>``, a
    :class:`~rageval_lc.judges.llm.dspy_judge.DspyJudge`, a ``dspy.LM`` or a LangChain chat model) has every module
    the metrics use compiled (:func:`~rageval_lc.runs.align_llm.align_llm_judge`).

    Args:
        data: labelled rows in any form :func:`~rageval_lc.datasets.labelled.read_labelled` reads.
        judge: ``"local"``, ``"local:PATH"`` (start from an aligned judge), a :class:`LocalJudge`, or an LLM judge.
        metrics: the metrics to align (offline judge: :data:`METRIC_MODELS`; ``trace``: every model).
        out: where to write the aligned judge (offline: JSON parameters, loaded by ``make_judge("local:PATH")``;
            LLM: ``DspyJudge.save``'s file, loaded by ``DspyJudge(lm).load(path)``).
        held_out: the share of rows (whole questions) held out.
        tolerance: see :attr:`AlignReport.worse`.
        force: write the judge even if it is worse.
        optimizer, scoring_mode, dry_run: an LLM judge's compile (see
            :func:`~rageval_lc.judges.llm.align.compile_modules`); a dry run calls no model.
        checkpoint: an LLM judge's resumable state (compiled modules, the held-out check's answers); by default
            ``OUT.partial``, removed when the run ends (see :mod:`~rageval_lc.runs.align_llm`).
        progress: progress bars on stderr (featurising rows; compiling modules and the held-out check).

    Raises:
        ValueError: On unreadable or unlabelled rows, unknown metrics, or too few rows to hold some out.
    """
    from rageval_lc.judges.factory import make_judge, resolve_judge
    from rageval_lc.judges.offline.judge import LocalJudge

    names = [m.strip() for m in (metrics.split(",") if isinstance(metrics, str) else metrics) if m.strip()]
    if not (isinstance(judge, LocalJudge) or (isinstance(judge, str) and judge.startswith("local"))):
        from rageval_lc.judges.llm.dspy_judge import DspyJudge
        from rageval_lc.runs.align_llm import align_llm_judge

        llm = resolve_judge(judge)
        if not isinstance(llm, DspyJudge):
            raise ValueError(f"align_judge aligns the offline judge or an LLM (DSPy) judge; got {type(llm).__name__}.")
        return align_llm_judge(
            read_labelled(data),
            llm,
            names,
            out=out,
            held_out=held_out,
            seed=seed,
            force=force,
            tolerance=tolerance,
            optimizer=optimizer,
            mode=scoring_mode,
            dry_run=dry_run,
            checkpoint=checkpoint,
            progress=progress,
        )
    unknown = [m for m in names if m not in METRIC_MODELS]
    if unknown:
        raise ValueError(f"Cannot align {unknown}: the offline judge aligns {', '.join(METRIC_MODELS)}.")
    models = sorted({model for m in names for model in METRIC_MODELS[m]})
    labelled = read_labelled(data)
    local = judge if isinstance(judge, LocalJudge) else make_judge(judge)
    if not isinstance(local, LocalJudge):
        raise ValueError(f"align_judge fits the offline judge; got {type(local).__name__}.")
    fitted, held = split_labelled(labelled, held_out=held_out, seed=seed)
    items, skipped = _featurise(local, labelled, progress=progress)
    before = local.params
    after, report = align_items(
        [items[i] for i in fitted if items[i] is not None],
        [items[i] for i in held if items[i] is not None],
        before,
        models=models,
        seed=seed,
        tolerance=tolerance,
    )
    report.skipped = skipped
    if out is not None and (force or report.usable):
        path = Path(out)
        meta = {
            **before.metadata,
            "aligned": {
                "rows": len(labelled),
                "rows_sha256": _rows_digest(labelled),
                "metrics": names,
                "seed": seed,
                "report": report.to_dict(),
            },
        }
        path.write_text(dataclasses.replace(after, metadata=meta).to_json() + "\n", encoding="utf-8")
        report.written = path
    return report


def _rows_digest(labelled: Sequence[LabelledSample]) -> str:
    """A short hash of the labelled rows the judge was aligned on: each sample's texts and its labels."""
    content = [
        {
            "sample": x.sample.model_dump(mode="json", include={"id", "question", "contexts", "response", "reference"}),
            "labels": {k: sorted(v) if isinstance(v, frozenset) else v for k, v in x.__dict__.items() if k != "sample"},
        }
        for x in labelled
    ]
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def align_items(
    fitted: Sequence[AlignItem],
    held: Sequence[AlignItem],
    before: LocalParams,
    *,
    models: Sequence[str] = MODELS,
    seed: int = 0,
    tolerance: float = 0.01,
) -> tuple[LocalParams, AlignReport]:
    """Refit ``before`` on the ``fitted`` items and measure both on the ``held`` ones: the aligned parameters
    and the report (its ``worse`` says whether they may be used)."""
    after, strengths = fit_aligned(fitted, before, models)
    report = AlignReport(
        fitted_rows=len(fitted),
        held_out_rows=len(held),
        strengths=strengths,
        figures=figure_changes(
            held, [predictions(it, before) for it in held], [predictions(it, after) for it in held], seed=seed
        ),
        tolerance=tolerance,
    )
    return after, report


def _featurise(
    judge: Any, labelled: Sequence[LabelledSample], *, progress: bool
) -> tuple[list[AlignItem | None], list[str]]:
    """Each row's feature tables (None for a row the judge cannot read, named in the second list)."""
    samples = [x.sample for x in labelled]
    judge.prepare(samples)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(samples), unit="row", file=sys.stderr, desc="rageval align")
    items: list[AlignItem | None] = []
    skipped = []
    for x in labelled:
        sample = x.sample
        try:
            judge._prepared({"trace": (sample.question, sample.response, tuple(sample.contexts))})
            features = judge.features(sample.question, sample.sentences, sample.response)
        except ValueError as exc:  # unreadable text (UnreadableInput), too long
            items.append(None)
            skipped.append(f"{sample.id}: {exc}")
        else:
            items.append(
                AlignItem(
                    features=features,
                    group=_question_key(sample.question),
                    sentences=sample.sentences,
                    relevant=x.relevant,
                    utilized=x.utilized,
                    unsupported=x.unsupported,
                    hallucinated=x.hallucinated,
                    scores=dict(x.scores),
                )
            )
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return items, skipped


def predictions(item: AlignItem, params: LocalParams) -> dict[str, Any]:
    """What the judge with ``params`` says of one item: P(hallucinated), the sentences it flags, TRACe scores."""
    from rageval_lc.judges.offline.judge import labels_from_features
    from rageval_lc.metrics.trace import trace_scores

    labels, notes = labels_from_features(item.features, params)
    scores = trace_scores(labels, item.sentences, mode="ragbench").to_dict()
    return {
        "p_hallucinated": 1.0 - float(notes["adherence_probability"]),
        "unsupported": set(labels.unsupported_response_sentence_keys or []),
        **{name: scores.get(name) for name in _SCORES},
    }


def figure_changes(
    items: Sequence[AlignItem], old: Sequence[dict], new: Sequence[dict], *, seed: int = 0
) -> list[FigureChange]:
    """Hallucination AUROC, sentence support accuracy and each score's RMSE of two judges' predictions
    (:func:`predictions`) on the same labelled ``items``, with the change's paired-bootstrap interval."""
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
    for name in _SCORES:

        def rmse(preds: Sequence[dict], rows: list[int], name: str = name) -> float | None:
            errors = [(preds[i][name] - items[i].scores[name]) ** 2 for i in rows]
            return float(np.sqrt(np.mean(errors))) if errors else None

        rows = [i for i, it in enumerate(items) if name in it.scores and old[i][name] is not None]
        add(f"{name}_rmse", [i for i in rows if new[i][name] is not None], rmse, False)
    return figures
