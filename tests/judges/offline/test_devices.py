"""The offline judge's device (issue 15, item 1): ``auto`` picks CUDA, then MPS, then the CPU; an unknown
device or one that is not there is a one-line error; the encoder and the NLI model follow the judge's device;
``--device cpu`` and ``--device auto`` score alike on a machine without a GPU."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from rageval_lc.cli import main
from rageval_lc.engine.engine import evaluate, make_resilient
from rageval_lc.judges.factory import make_judge, resolve_judge
from rageval_lc.judges.offline.devices import DEVICE_CHOICES, resolve_device
from rageval_lc.judges.offline.embeddings import EmbeddingScorer
from rageval_lc.judges.offline.encoder import SentenceTransformerEncoder
from rageval_lc.judges.offline.judge import OfflineJudge
from rageval_lc.judges.offline.nli import NliModel
from rageval_lc.schema import RagSample
from tests.floats import assert_close_structure


@pytest.fixture
def ragbench_rows(shared: Path) -> list[str]:
    """HotpotQA rows of RAGBench (../shared; skipped when absent, required in CI)."""
    return (shared / "data" / "ragbench" / "hotpotqa_validation.jsonl").read_text(encoding="utf-8").splitlines()


@pytest.fixture
def gpus(monkeypatch: pytest.MonkeyPatch):
    """Set which accelerators torch reports: ``gpus(cuda=True, mps=False)``."""

    def set_available(*, cuda: bool, mps: bool) -> None:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: 2 if cuda else 0)
        monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)

    return set_available


@pytest.mark.parametrize(
    ("cuda", "mps", "expected"),
    [(True, True, "cuda"), (True, False, "cuda"), (False, True, "mps"), (False, False, "cpu")],
)
def test_auto_prefers_cuda_then_mps_then_cpu(gpus, cuda: bool, mps: bool, expected: str) -> None:
    gpus(cuda=cuda, mps=mps)
    assert resolve_device("auto") == expected
    assert resolve_device() == expected  # auto is the default


def test_an_available_device_is_itself(gpus) -> None:
    gpus(cuda=True, mps=True)
    assert [resolve_device(d) for d in ("cpu", "cuda", "cuda:1", "mps", " CUDA ")] == [
        "cpu",
        "cuda",
        "cuda:1",
        "mps",
        "cuda",
    ]


def test_an_unknown_device_names_the_choices() -> None:
    assert DEVICE_CHOICES == ("auto", "cpu", "cuda", "mps")
    with pytest.raises(ValueError, match=r"^Unknown device 'tpu'\. Use auto, cpu, cuda or mps\.$"):
        resolve_device("tpu")


def test_a_missing_accelerator_is_a_clear_error(gpus) -> None:
    gpus(cuda=False, mps=False)
    with pytest.raises(ValueError, match=r"^Device 'cuda' asked for, but no CUDA device is available"):
        resolve_device("cuda")
    with pytest.raises(ValueError, match=r"^Device 'mps' asked for, but no MPS device is available"):
        resolve_device("mps")
    gpus(cuda=True, mps=False)
    with pytest.raises(ValueError, match=r"^Device 'cuda:2' asked for, but there are 2 CUDA devices"):
        resolve_device("cuda:2")


def test_the_encoder_and_nli_model_follow_the_judges_device(gpus) -> None:
    gpus(cuda=True, mps=False)
    judge = OfflineJudge()  # nothing is loaded yet: the devices are only chosen
    assert (judge.device, judge.encoder.encoder.device, judge.nli.device) == ("cuda", "cuda", "cuda")
    gpus(cuda=False, mps=True)
    judge = OfflineJudge(device="auto")
    assert (judge.device, judge.encoder.encoder.device, judge.nli.device) == ("mps", "mps", "mps")
    gpus(cuda=True, mps=True)
    judge = OfflineJudge(device="cpu")
    assert (judge.device, judge.encoder.encoder.device, judge.nli.device) == ("cpu", "cpu", "cpu")
    assert SentenceTransformerEncoder().device == "cuda"
    assert NliModel().device == "cuda"
    assert EmbeddingScorer(device="mps").encoder.encoder.device == "mps"


def test_every_entry_point_takes_the_device(gpus) -> None:
    gpus(cuda=True, mps=False)
    assert make_judge("offline", device="cpu").device == "cpu"
    assert make_judge("offline").device == "cuda"
    assert resolve_judge(None, device="cpu").device == "cpu"
    assert resolve_judge("offline", device="cuda").device == "cuda"
    assert resolve_judge(None).device == "cuda"
    assert make_resilient(None, device="cpu").judge.device == "cpu"
    assert make_judge("labels", device="cuda").name == "labels"  # other judges have no device
    gpus(cuda=False, mps=False)
    for build in (lambda: make_judge("offline", device="cuda"), lambda: resolve_judge(None, device="cuda")):
        with pytest.raises(ValueError, match="no CUDA device is available"):
            build()
    with pytest.raises(ValueError, match="Unknown device 'gpu'"):
        make_judge("labels", device="gpu")
    sample = RagSample(question="Q?", contexts=["A."], response="A.")
    with pytest.raises(ValueError, match="no CUDA device is available"):  # before any sample is scored
        evaluate([sample], "trace", device="cuda")


def test_cli_device_errors_are_one_line(
    gpus, ragbench_rows: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gpus(cuda=False, mps=False)
    source = tmp_path / "in.jsonl"
    source.write_text(ragbench_rows[0] + "\n", encoding="utf-8")
    assert main(["evaluate", str(source), "--device", "cuda", "--out", str(tmp_path / "o.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rageval: error: Device 'cuda' asked for, but no CUDA device is available")
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o.jsonl").exists()
    with pytest.raises(SystemExit) as exit_info:
        main(["evaluate", str(source), "--device", "tpu"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'tpu'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["agreement", str(source), "--device", "tpu"])
    assert "invalid choice: 'tpu'" in capsys.readouterr().err


def test_cpu_and_auto_score_alike_here(ragbench_rows: list[str], tmp_path: Path) -> None:
    assert not torch.cuda.is_available()  # this test is about a machine without a GPU
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(ragbench_rows[:4]) + "\n", encoding="utf-8")
    rows = {}
    for device in ("cpu", "auto"):
        out = tmp_path / f"{device}.jsonl"
        assert main(["evaluate", str(source), "--device", device, "--out", str(out), "--no-progress"]) == 0
        rows[device] = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows["cpu"]) == 4
    assert {s for row in rows["cpu"] for s in row["status"].values()} == {"ok"}
    assert_close_structure(rows["auto"], rows["cpu"])  # statuses, reasons and details exactly; floats within 1e-5
    # --resume of the cpu run with --device auto keeps every row (the device is not a run setting)
    out = tmp_path / "cpu.jsonl"
    before = out.read_text(encoding="utf-8")
    assert main(["evaluate", str(source), "--out", str(out), "--resume", "--no-progress"]) == 0
    assert out.read_text(encoding="utf-8") == before
