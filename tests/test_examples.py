"""Every example runs offline and prints what it promises."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.floats import ABS

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
    assert out.splitlines()[3].startswith("wrong") and "WRONG" in out.splitlines()[3]
    assert "dont_know_answers_count         1" in out
    # separate: "I don't know." is extracted but no claim is left to verify (verify_claims 2 of 3 rows)
    assert "separate 22 calls" in out and "verify_claims 2," in out
    assert "shared   9 calls" in out and "fused    3 calls (assess_all 3)" in out


def test_langchain_evaluator_example() -> None:
    out = run("langchain_evaluator.py")
    assert "semantic similarity of identical answers: 1.00" in out
    assert "classification: DON'T KNOW" in out


def test_runnable_batch_example() -> None:
    out = run("runnable_batch.py")
    assert "\"I don't know.\": DON'T KNOW" in out
    assert "faithfulness of the chain's answer:" in out


def test_langsmith_evaluators_example() -> None:
    out = run("langsmith_evaluators.py")
    first = out.splitlines()[0]
    assert first.startswith("rageval_semantic_similarity {'key': 'semantic_similarity', 'score': "), first
    score = float(re.search(r"'score': ([-+0-9.e]+)", first).group(1))
    assert score == pytest.approx(1.0, abs=ABS)  # identical answers: a cosine of float32 vectors, within ABS of 1
    assert [line.split(":")[0] for line in out.splitlines()[1:]] == [
        "context_relevance",
        "context_utilization",
        "completeness",
        "adherence",
    ]


def test_dspy_optimizer_example() -> None:
    out = run("dspy_optimizer.py")
    # the two exact answers pass (similarity 1 ≥ 0.9); the two "I don't know." answers do not
    assert "BootstrapFewShot kept 2 demonstrations: ['Where is the Eiffel Tower?', 'Where does the Cornish" in out
    score = float(out.split("dspy.Evaluate with rageval semantic_similarity: ")[1].split()[0])
    assert 50.0 <= score < 75.0  # 2 × 1.0 plus two low similarities, over 4


def test_callback_handler_example(tmp_path) -> None:
    target = tmp_path / "scores.jsonl"
    out = run("callback_handler.py", str(target))
    assert "3 answers; 3 runs scored into scores.jsonl" in out
    assert len(target.read_text().splitlines()) == 3
    assert out.count(": 2 documents, context precision") == 3


def test_dspy_before_after_example() -> None:
    out = run("dspy_before_after.py")
    assert "Compiled with LabeledFewShot: 3 demonstrations; devset of 11." in out
    assert "11 rows paired by id; 0 only in A, 0 only in B." in out
    cells = next(line for line in out.splitlines() if line.startswith("semantic_similarity")).split()
    n, before, after, diff = int(cells[1]), float(cells[2]), float(cells[3]), float(cells[4])
    low, high = float(cells[5].strip("[,")), float(cells[6].strip("]"))
    wins, ties, losses = (int(c) for c in cells[8:11])
    assert n == wins + ties + losses == 11 and losses == 0  # the stand-in model never answers worse with demos
    assert diff == pytest.approx(after - before, abs=0.0015) and 0 < low < diff < high  # B - A, its interval
    assert "Compilation helped" in out
