"""``align_judge`` for an LLM judge: compile every module the metrics use on part of the labelled rows
(:func:`~rageval_lc.align.compile.compile_modules`), and score the rest before and after.

The held-out rows are scored with the metrics by the judge as it was, then as compiled (the model is called for
each; a dry run calls nothing and says how many calls compiling and checking would make). The figures, the
refusal of a worse judge and the report are those of the offline judge's alignment
(:mod:`~rageval_lc.align.report`); the compiled judge is written with ``DspyJudge.save`` and loaded with
``DspyJudge(lm).load(path)``.

A long compile can be stopped and run again: the checkpoint folder (``checkpoint``; by default ``OUT.partial``
beside the judge's file, removed once the run ends) keeps each compiled module as it is done and every model answer
of the held-out check (the judge's disk cache), so a second run makes only the calls the first did not finish.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rageval_lc.align.refit import AlignItem
from rageval_lc.align.report import (
    SCORES,
    AlignReport,
    HeldOutCheck,
    figure_changes,
    held_out_kinds,
    split_labelled,
)
from rageval_lc.datasets.labelled import LabelledSample

__all__ = ["align_llm_judge"]


def _predictions(run: Any) -> list[dict[str, Any]]:
    """Per row: P(hallucinated) from the adherence probability, faithfulness or adherence (whichever the metrics
    give), the row verdict (hallucinated: adherence 0, or faithfulness below 0.5, as labels are read), and the
    TRACe scores; None where a score is not ok."""
    out = []
    for result in run.results:
        scores = {name: r.score for name, r in result.results.items() if r.status == "ok"}
        p = None
        if scores.get("adherence_probability") is not None:
            p = 1.0 - scores["adherence_probability"]
        elif scores.get("faithfulness") is not None:
            p = 1.0 - scores["faithfulness"]
        elif scores.get("adherence") is not None:
            p = 1.0 - scores["adherence"]
        verdict = next((scores[k] < 0.5 for k in ("adherence", "faithfulness") if scores.get(k) is not None), None)
        row = {"p_hallucinated": p, "hallucinated": verdict, "unsupported": None}
        out.append({**row, **{name: scores.get(name) for name in SCORES}})
    return out


def align_llm_judge(
    labelled: Sequence[LabelledSample],
    judge: Any,
    metrics: str | Sequence[str],
    *,
    out: str | Path | None,
    check: HeldOutCheck,
    optimizer: Any = "labeled",
    mode: str = "shared",
    dry_run: bool = False,
    checkpoint: str | Path | None = None,
) -> AlignReport:
    """See :func:`~rageval_lc.align.offline.align_judge`."""
    from rageval_lc.align.compile import compile_modules
    from rageval_lc.engine.engine import evaluate

    fitted, held = split_labelled(labelled, held_out=check.held_out, seed=check.seed)
    fit_rows = [labelled[i] for i in fitted]
    held_rows = [labelled[i] for i in held]
    folder = Path(checkpoint) if checkpoint is not None else None
    if folder is None and out is not None:
        folder = Path(f"{out}.partial")
    modules = None if folder is None else folder / "modules"
    plan = compile_modules(judge, fit_rows, metrics, optimizer=optimizer, mode=mode, dry_run=True, checkpoint=modules)
    if dry_run:
        from rageval_lc.scoring.dry_run import plan_calls

        checking = 2 * sum(
            c.calls for c in plan_calls([x.sample for x in held_rows], metrics, judge, scoring_mode=mode)
        )
        return AlignReport(
            fitted_rows=len(fit_rows),
            held_out_rows=len(held_rows),
            strengths={},
            figures=[],
            tolerance=check.tolerance,
            kind="llm",
            compiled=plan.compiled,
            resumed=plan.resumed,
            planned_calls=plan.planned_calls + checking,
        )
    samples = [x.sample for x in held_rows]
    scoring = {"concurrency": 1, "scoring_mode": mode, "progress": check.progress}
    if folder is not None:
        scoring["cache_dir"] = folder / "calls"
    before = _predictions(evaluate(samples, metrics, judge=judge, **scoring))
    kept = {name: module.deepcopy() for name, module in judge.modules.items()}
    report = compile_modules(
        judge, fit_rows, metrics, optimizer=optimizer, mode=mode, checkpoint=modules, progress=check.progress
    )
    after = _predictions(evaluate(samples, metrics, judge=judge, **scoring))
    items = [
        AlignItem(features=None, group="", unsupported=x.unsupported, hallucinated=x.hallucinated, scores=x.scores)
        for x in held_rows
    ]
    figures = figure_changes(items, before, after, seed=check.seed)
    result = AlignReport(
        fitted_rows=len(fit_rows),
        held_out_rows=len(held_rows),
        strengths={},
        figures=figures,
        tolerance=check.tolerance,
        kind="llm",
        compiled=report.compiled,
        resumed=report.resumed,
        skipped=[f"{name}: {why}" for name, why in report.skipped.items()],
        held_out_kinds=held_out_kinds(items),
        held_out_share=check.held_out,
    )
    if check.force or result.usable:
        if out is not None:
            result.written = judge.save(out)
    else:
        judge.modules.clear()  # refused: the caller's judge is left as it was
        judge.modules.update(kept)
    if folder is not None and checkpoint is None:
        shutil.rmtree(folder, ignore_errors=True)  # the run ended: the default checkpoint has done its work
    return result
