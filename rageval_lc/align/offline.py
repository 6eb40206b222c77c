"""Align the offline judge to a user's labelled rows, and prove it on rows it did not see (``rageval align``).

The labelled rows (:mod:`~rageval_lc.datasets.labelled`) are split by question (seeded; every row of one
question on one side, so near-duplicates cannot leak): the judge is refitted on one part
(:func:`~rageval_lc.align.refit.fit_aligned`, shrunk toward its current parameters) and both judges,
before and after, are measured on the other. Each figure (hallucination AUROC, per-sentence support accuracy,
RMSE of each labelled score) comes with its paired-bootstrap interval. A judge that is worse on held-out rows
(:attr:`AlignReport.worse`: clearly worse on one figure, or worse overall) is not written unless ``force``.

Example (the README's worked example runs it on 30 bundled rows)::

    report = align_judge(rows, out="my_judge.json")
    print(report.table())
    judge = make_judge("offline:my_judge.json")
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rageval_lc.align.refit import MODELS, AlignItem, fit_aligned
from rageval_lc.align.report import (
    SCORES,
    AlignReport,
    FigureChange,
    HeldOutCheck,
    figure_changes,
    held_out_kinds,
    question_key,
    split_by_question,
    split_labelled,
)
from rageval_lc.datasets.labelled import LabelledSample, read_labelled
from rageval_lc.judges.offline.model import LocalParams

__all__ = [
    "METRIC_MODELS",
    "AlignReport",
    "FigureChange",
    "HeldOutCheck",
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


def align_judge(
    data: object,
    judge: Any = "offline",
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
    the metrics use compiled (:func:`~rageval_lc.align.llm.align_llm_judge`).

    Args:
        data: labelled rows in any form :func:`~rageval_lc.datasets.labelled.read_labelled` reads.
        judge: ``"offline"``, ``"offline:PATH"`` (start from an aligned judge), ``"offline:nli=MODEL"`` (the offline
            judge on an NLI model of one's own; ``local`` is the old name of each), an :class:`OfflineJudge`, or an
            LLM judge.
        metrics: the metrics to align (offline judge: :data:`METRIC_MODELS`; ``trace``: every model).
        out: where to write the aligned judge (offline: JSON parameters, loaded by ``make_judge("offline:PATH")``,
            recording the NLI model when it is not the packaged one, e.g. ``offline:nli=MODEL``'s, so that it loads
            again with them; LLM: ``DspyJudge.save``'s file, loaded by ``DspyJudge(lm).load(path)``).
        held_out: the share of rows (whole questions) held out.
        tolerance: see :attr:`AlignReport.worse`.
        force: write the judge even if it is worse.
        optimizer, scoring_mode, dry_run: an LLM judge's compile (see
            :func:`~rageval_lc.align.compile.compile_modules`); a dry run calls no model.
        checkpoint: an LLM judge's resumable state (compiled modules, the held-out check's answers); by default
            ``OUT.partial``, removed when the run ends (see :mod:`~rageval_lc.align.llm`).
        progress: progress bars on stderr (featurising rows; compiling modules and the held-out check).

    Raises:
        ValueError: On unreadable or unlabelled rows, unknown metrics, or too few rows to hold some out.
    """
    from rageval_lc.judges.factory import canonical_judge_spec, make_judge, resolve_judge
    from rageval_lc.judges.offline.judge import OfflineJudge

    names = [m.strip() for m in (metrics.split(",") if isinstance(metrics, str) else metrics) if m.strip()]
    check = HeldOutCheck(held_out=held_out, seed=seed, force=force, tolerance=tolerance, progress=progress)
    if isinstance(judge, str):
        judge = canonical_judge_spec(judge)
    if not (isinstance(judge, OfflineJudge) or (isinstance(judge, str) and judge.startswith("offline"))):
        from rageval_lc.align.llm import align_llm_judge
        from rageval_lc.judges.llm.dspy_judge import DspyJudge

        llm = resolve_judge(judge)
        if not isinstance(llm, DspyJudge):
            raise ValueError(f"align_judge aligns the offline judge or an LLM (DSPy) judge; got {type(llm).__name__}.")
        compile_options = {"optimizer": optimizer, "mode": scoring_mode, "dry_run": dry_run, "checkpoint": checkpoint}
        return align_llm_judge(read_labelled(data), llm, names, out=out, check=check, **compile_options)
    unknown = [m for m in names if m not in METRIC_MODELS]
    if unknown:
        raise ValueError(f"Cannot align {unknown}: the offline judge aligns {', '.join(METRIC_MODELS)}.")
    models = sorted({model for m in names for model in METRIC_MODELS[m]})
    labelled = read_labelled(data)
    offline = judge if isinstance(judge, OfflineJudge) else make_judge(judge)
    if not isinstance(offline, OfflineJudge):
        raise ValueError(f"align_judge fits the offline judge; got {type(offline).__name__}.")
    fitted, held = split_labelled(labelled, held_out=check.held_out, seed=check.seed)
    items, skipped = _featurise(offline, labelled, progress=check.progress)
    before = offline.params
    after, report = align_items(
        [items[i] for i in fitted if items[i] is not None],
        [items[i] for i in held if items[i] is not None],
        before,
        models=models,
        seed=check.seed,
        tolerance=check.tolerance,
    )
    report.skipped = skipped
    report.held_out_share = check.held_out
    if out is not None and (check.force or report.usable):
        path = Path(out)
        # the NLI model the features came from (None: the packaged one), loaded with the file
        nli = offline.nli.record()
        meta = {
            **{k: v for k, v in before.metadata.items() if k != "nli_model"},
            **({"nli_model": nli} if nli else {}),
            "aligned": {
                "rows": len(labelled),
                "rows_sha256": _rows_digest(labelled),
                "metrics": names,
                "seed": check.seed,
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
            "labels": {
                k: _sorted(v) if isinstance(v, frozenset) else v for k, v in x.__dict__.items() if k != "sample"
            },
        }
        for x in labelled
    ]
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def _sorted(values: frozenset) -> list:
    """A set's values in a fixed order whatever their types (None, numbers and strings may meet in one label set)."""
    return sorted(values, key=lambda v: (type(v).__name__, json.dumps(v, sort_keys=True, default=str)))


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
        thresholds={
            name.removesuffix("_threshold"): (getattr(before, name), getattr(after, name))
            for name in ("adherence_threshold", "support_threshold")
            if abs(getattr(before, name) - getattr(after, name)) > 1e-12
        },
        held_out_kinds=held_out_kinds(held),
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
            features, verdicts = judge.features(sample.question, sample.sentences, sample.response)
        except ValueError as exc:  # unreadable text (UnreadableInput), too long
            items.append(None)
            skipped.append(f"{sample.id}: {exc}")
        else:
            items.append(
                AlignItem(
                    features=features,
                    verdicts=verdicts,
                    group=question_key(sample.question),
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
    """What the judge with ``params`` says of one item: P(hallucinated), its row verdict (hallucinated or not, at
    its own threshold), the sentences it flags, TRACe scores."""
    from rageval_lc.judges.offline.labelling import labels_from_features
    from rageval_lc.metrics.trace import trace_scores

    labels, notes = labels_from_features(item.features, item.verdicts, params)
    scores = trace_scores(labels, item.sentences, mode="ragbench").to_dict()
    return {
        "p_hallucinated": 1.0 - float(notes["adherence_probability"]),
        "hallucinated": not labels.overall_supported,
        "unsupported": set(labels.unsupported_response_sentence_keys or []),
        **{name: scores.get(name) for name in SCORES},
    }
