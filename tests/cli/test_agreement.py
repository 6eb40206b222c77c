"""``rageval agreement``: a judge against the labels in the rows, next to the rows' other judges."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from rageval_lc.cli import main


@pytest.fixture(scope="module")
def covid_rows(ragbench_files: list[Path]) -> list[str]:
    path = next(p for p in ragbench_files if p.name.startswith("covidqa"))
    return path.read_text(encoding="utf-8").splitlines()


def test_labels_judge_agrees_perfectly_and_gpt35_matches_sklearn(covid_rows, tmp_path: Path, capsys) -> None:
    source = tmp_path / "covid.jsonl"
    source.write_text("\n".join(covid_rows) + "\n", encoding="utf-8")
    assert main(["agreement", str(source), "--judge", "labels", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    ours = out["judges"]["labels"]["pooled"]
    assert out["rows"] == len(covid_rows) == 267
    assert ours["context_relevance_rmse"] == 0.0
    assert ours["context_utilization_rmse"] == 0.0
    assert ours["completeness_rmse"] == 0.0
    assert ours["hallucination_auroc"] == 1.0
    # GPT-3.5's columns, computed here with sklearn the way RAGBench's calculate_metrics.py does
    rows = [json.loads(line) for line in covid_rows]
    truth = np.array([r["relevance_score"] for r in rows])
    pred = np.array([np.nan if r["gpt3_context_relevance"] is None else r["gpt3_context_relevance"] for r in rows])
    keep = ~np.isnan(pred)
    expected_rmse = math.sqrt(np.mean((pred[keep] - truth[keep]) ** 2))
    hallucinated = np.array([not r["adherence_score"] for r in rows])
    adherence = np.array([np.nan if r["gpt3_adherence"] is None else r["gpt3_adherence"] for r in rows])
    ok = ~np.isnan(adherence)
    expected_auroc = roc_auc_score(hallucinated[ok], 1 - adherence[ok])
    gpt = out["judges"]["gpt35"]["pooled"]
    assert gpt["context_relevance_rmse"] == pytest.approx(expected_rmse, abs=1e-12)
    assert gpt["hallucination_auroc"] == pytest.approx(expected_auroc, abs=1e-12)
    assert out["judges"]["gpt35"]["groups"]["covidqa"]["n"] == int(ok.sum())


def test_agreement_table_and_bad_rows(covid_rows, tmp_path: Path, capsys) -> None:
    source = tmp_path / "mixed.jsonl"
    generic = {"id": "g1", "question": "Q?", "contexts": ["Alpha is first."], "response": "Alpha."}
    source.write_text("\n".join([*covid_rows[:30], "{broken", json.dumps(generic)]) + "\n", encoding="utf-8")
    assert main(["agreement", str(source), "--judge", "labels", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "Hallucination AUROC (higher is better)" in captured.out
    assert "Context relevance RMSE (lower is better)" in captured.out
    assert "30 rows scored by labels, 2 skipped." in captured.out
    assert "line 31 skipped: JSONDecodeError" in captured.err
    assert "line 32 skipped: ValueError: the row carries no labels" in captured.err


def test_agreement_usage_errors(tmp_path: Path, capsys) -> None:
    assert main(["agreement", str(tmp_path / "none.jsonl")]) == 2
    source = tmp_path / "x.jsonl"
    source.write_text("{}\n", encoding="utf-8")
    assert main(["agreement", str(source), "--judge", "dspy:"]) == 2
    assert "needs a model id" in capsys.readouterr().err
