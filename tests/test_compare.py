"""Decide with evidence: bootstrap intervals on every summary mean, and `rageval compare` / `rageval_lc.compare`
(paired differences, their intervals and permutation p-values), checked against numpy and scipy."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

from rageval_lc.cli import main
from rageval_lc.reports import stats
from rageval_lc.reports.summary import DEFAULT_RESAMPLES, ScoreSummary, mean_interval, summarize

DATA = Path(__file__).resolve().parents[1] / "rageval_lc" / "data" / "quickstart_ragbench.jsonl"


def result_row(row_id: str | None, scores: dict[str, float | None], **extra: object) -> dict:
    """A result row as `rageval evaluate` writes it (a None score is undetermined)."""
    return {
        "id": row_id,
        "scores": scores,
        "status": {name: "ok" if value is not None else "undetermined" for name, value in scores.items()},
        "reason": {name: f"{name} of {row_id} is {value}" for name, value in scores.items()},
        "details": {},
        **extra,
    }


def write_rows(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


# --- intervals on summary means ---------------------------------------------------------------------------


def test_summary_interval_is_the_percentile_bootstrap_of_the_ok_values() -> None:
    values = [0.9, 0.1, 0.4, 0.75, 1.0, 0.0, 0.6, 0.35, 0.8, 0.55, 0.2, 0.95]
    rows = [result_row(str(i), {"faithfulness": v}) for i, v in enumerate(values)]
    rows.append(result_row("u", {"faithfulness": None}))  # undetermined: neither in the mean nor resampled
    summary = summarize(rows, n_resamples=4000, seed=7)[0]
    # the same draws written out with numpy: resample indices, means, 2.5 % and 97.5 % quantiles
    rng = np.random.default_rng(7)
    means = np.asarray(values)[rng.integers(0, len(values), size=(4000, len(values)))].mean(axis=1)
    assert (summary.ci_low, summary.ci_high) == tuple(np.quantile(means, [0.025, 0.975]))
    # and scipy's percentile bootstrap (its own draws) lands within sampling noise of it
    scipy_ci = scipy_stats.bootstrap(
        (values,), np.mean, n_resamples=20000, method="percentile", random_state=np.random.default_rng(1)
    ).confidence_interval
    assert summary.ci_low == pytest.approx(scipy_ci.low, abs=0.02)
    assert summary.ci_high == pytest.approx(scipy_ci.high, abs=0.02)
    assert summary.mean == pytest.approx(np.mean(values)) and summary.ci_low < summary.mean < summary.ci_high
    assert (summary.ok, summary.undetermined) == (12, 1)


def test_summary_intervals_are_seeded_configurable_and_can_be_turned_off() -> None:
    rows = [result_row(str(i), {"adherence": (i * 7 % 30) / 29}) for i in range(30)]  # 0..1, each once
    first, again = summarize(rows, seed=3)[0], summarize(rows, seed=3)[0]
    assert first == again and first != summarize(rows, seed=4)[0]
    assert summarize(rows, n_resamples=0)[0] == ScoreSummary("adherence", 0.5, 30, 0, 0)
    assert DEFAULT_RESAMPLES == stats.DEFAULT_RESAMPLES
    with pytest.raises(ValueError, match=r"n_resamples must be an integer >= 0 .*Got -1"):
        summarize(rows, n_resamples=-1)
    with pytest.raises(ValueError, match=r"confidence must be between 0 and 1\. Got 1\.5"):
        summarize(rows, confidence=1.5)


def test_a_large_run_is_bootstrapped_in_blocks_with_the_same_result() -> None:
    values = np.random.default_rng(0).random(301).tolist()
    whole = stats.bootstrap_ci(values, n_resamples=999, seed=5)
    assert mean_interval(values, n_resamples=999, seed=5, max_draws=1000) == whole  # 3 resamples a block
    assert mean_interval(values, n_resamples=999, seed=5, max_draws=10**9) == whole


def test_the_evaluate_and_report_summaries_show_the_interval(tmp_path: Path, capsys) -> None:
    out = tmp_path / "scores.jsonl"
    assert main(["evaluate", str(DATA), "--judge", "labels", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    relevance = [r["scores"]["context_relevance"] for r in rows]
    low, high = stats.bootstrap_ci(relevance, n_resamples=2000, seed=0)
    assert f"context_relevance    {np.mean(relevance):.3f}  [{low:.3f}, {high:.3f}]   8" in printed
    assert main(["report", str(out), "--bootstrap", "500", "--seed", "9"]) == 0
    low, high = stats.bootstrap_ci(relevance, n_resamples=500, seed=9)
    assert f"context_relevance    {np.mean(relevance):.3f}  [{low:.3f}, {high:.3f}]   8" in capsys.readouterr().out
    assert main(["evaluate", str(DATA), "--judge", "labels", "--out", str(out), "--bootstrap", "0"]) == 0
    assert "95% CI" not in capsys.readouterr().err
    assert main(["report", str(out), "--bootstrap", "-5"]) == 2
    assert capsys.readouterr().err == "rageval: error: --bootstrap must be >= 0. Got -5.\n"


def test_a_resumed_run_with_its_own_bootstrap_covers_the_kept_rows(tmp_path: Path, capsys) -> None:
    lines = DATA.read_text(encoding="utf-8").splitlines(keepends=True)
    source, out = tmp_path / "rows.jsonl", tmp_path / "scores.jsonl"
    source.write_text("".join(lines[:3]), encoding="utf-8")
    assert main(["evaluate", str(source), "--judge", "labels", "--out", str(out)]) == 0
    source.write_text("".join(lines), encoding="utf-8")
    args = ["--judge", "labels", "--out", str(out), "--resume", "--bootstrap", "300", "--seed", "2"]
    capsys.readouterr()
    assert main(["evaluate", str(source), *args]) == 0
    relevance = [json.loads(line)["scores"]["context_relevance"] for line in out.read_text().splitlines()]
    low, high = stats.bootstrap_ci(relevance, n_resamples=300, seed=2)  # the 3 kept rows, then the 5 new
    assert len(relevance) == 8 and stats.bootstrap_ci(relevance) != (low, high)
    assert f"context_relevance    {np.mean(relevance):.3f}  [{low:.3f}, {high:.3f}]   8" in capsys.readouterr().err
