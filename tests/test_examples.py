"""Every example runs offline and prints what it promises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True, check=True, timeout=300
    )
    return done.stdout


def test_trace_from_labels_example() -> None:
    out = run("trace_from_labels.py")
    assert '"context_relevance": 0.1, "context_utilization": 0.5' in out  # capstone: 2/20 and 1/2
    assert "b: No document mentions flying." in out
    assert "aggregated RMSE 0.000000, consistency 1.000" in out  # the released scores come out exactly
    assert "pooled         8" in out


def test_compile_judge_example() -> None:
    out = run("compile_judge.py")
    assert "Compiled on 5 labelled rows: 2 demonstrations kept." in out
    assert "The reloaded judge scored 3 of 3 held-out rows identically." in out


def test_rgb_counterfactual_example(shared) -> None:
    out = run("rgb_counterfactual.py", str(shared / "data" / "rgb" / "en_fact.json"))
    # the fake model cycles: flag-and-refuse (rows 0, 3, ...: 34), flag only (33), trust the documents (33)
    assert "error detection 67.0% (67 of 100)" in out
    assert "error correction 50.7% of the detected" in out  # 34 of 67: a refusal after flagging counts


def test_ragas_suite_example() -> None:
    out = run("ragas_suite.py")
    # identical answer and reference: similarity and BERTScore 1; "I don't know." makes no claim
    assert "same           1.000          1.000         1.000" in out
    assert "unsure         1.000" in out and "DON'T KNOW" in out
    assert "dont_know_answers_count         1" in out
    assert "separate 23 calls" in out and "shared   9 calls" in out and "fused    3 calls (assess_all 3)" in out
