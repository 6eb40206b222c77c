"""The NLI adapter merged once and kept in RAGEVAL_CACHE_DIR (rageval_lc/judges/offline/merged_nli.py): the saved
merge gives the probabilities of a merge on load, a file cut short or damaged is found out and merged again, and a
cache that cannot be written only costs the merge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rageval_lc.judges.offline import merged_nli
from rageval_lc.judges.offline.encoder import default_model_path
from rageval_lc.judges.offline.merged_nli import cache_dir, merged_nli_weights, merged_path, read_merged
from rageval_lc.judges.offline.nli import NliModel, shipped_adapter_path
from tests.floats import ABS

PAIRS = [
    ("Mount Everest is 8,849 metres tall.", "Mount Everest is 6,120 metres tall."),
    ("Mount Everest is 8,849 metres tall.", "Everest rises to a height of 8,849 metres."),
    ("A man is playing a guitar on stage.", "A person plays an instrument."),
]


@pytest.fixture(scope="module")
def merged() -> dict[str, Any]:
    """The adapter merged (in numpy), once for the module."""
    return merged_nli.merge_adapter(shipped_adapter_path())


@pytest.fixture
def merges(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, merged: dict[str, Any]) -> list[int]:
    """A cache in tmp_path, and a count of the merges made (each one a copy of the module's)."""
    monkeypatch.setenv("RAGEVAL_CACHE_DIR", str(tmp_path / "cache"))
    made: list[int] = []

    def merge(adapter: Path, base: Path | None = None) -> dict[str, Any]:
        made.append(1)
        return {name: array.copy() for name, array in merged.items()}

    monkeypatch.setattr(merged_nli, "merge_adapter", merge)
    return made


def _probabilities() -> np.ndarray:
    return NliModel(device="cpu", precision="float32").predict(PAIRS)


def _path() -> Path:
    return merged_path(shipped_adapter_path(), default_model_path())


def test_the_saved_merge_gives_the_probabilities_of_a_merge_on_load(merges: list[int], tmp_path: Path) -> None:
    on_load = NliModel(device="cpu", precision="float32")
    on_load._loaded = on_load._load_with_transformers()  # peft's merge, in transformers' model, as before
    expected = on_load.predict(PAIRS)
    first = _probabilities()  # merges and saves
    assert merges == [1] and _path().parent == tmp_path / "cache" / "nli" and _path().is_file()
    again = _probabilities()  # reads the saved merge
    assert merges == [1]
    np.testing.assert_allclose(first, expected, atol=ABS)
    np.testing.assert_allclose(again, expected, atol=ABS)
    assert [p.name for p in _path().parent.iterdir()] == [_path().name]  # no temporary file left behind


def test_only_what_the_merge_changed_is_saved(merges: list[int], merged: dict[str, Any]) -> None:
    merged_nli_weights(shipped_adapter_path(), default_model_path())  # merges and saves
    saved = read_merged(_path())
    assert saved is not None and "classifier.weight" in saved and "embeddings.word_embeddings.weight" not in saved
    weights = merged_nli_weights(shipped_adapter_path(), default_model_path())  # the saved part and the base's
    assert merges == [1] and set(weights) == set(merged)
    assert all(np.array_equal(weights[name], merged[name]) for name in merged)  # read back: the same numbers


@pytest.mark.parametrize("damage", ["cut short", "a flipped byte", "not safetensors", "empty"])
def test_a_damaged_file_is_found_out_and_merged_again(merges: list[int], damage: str) -> None:
    expected = _probabilities()
    path = _path()
    data = bytearray(path.read_bytes())
    if damage == "cut short":
        data = data[: len(data) // 2]
    elif damage == "a flipped byte":
        data[-1000] ^= 0x01  # inside a tensor: the header still reads
    elif damage == "not safetensors":
        data = bytearray(b"{not a header" + bytes(100))
    else:
        data = bytearray()
    path.write_bytes(bytes(data))
    assert read_merged(path) is None
    got = _probabilities()
    assert merges == [1, 1]  # merged again, not read
    assert read_merged(path) is not None  # and saved whole again
    np.testing.assert_allclose(got, expected, atol=ABS)


def test_another_adapter_or_base_gets_another_file(tmp_path: Path) -> None:
    adapter = tmp_path / "adapter"
    adapter.mkdir()
    for name in ("adapter_config.json", "adapter_model.safetensors"):
        (adapter / name).write_bytes((shipped_adapter_path() / name).read_bytes())
    assert merged_path(adapter, default_model_path()) == _path()  # named by the files' contents, not their place
    (adapter / "adapter_config.json").write_text("{}")
    assert merged_path(adapter, default_model_path()) != _path()


def test_a_cache_that_cannot_be_written_only_costs_the_merge(
    merges: list[int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("RAGEVAL_CACHE_DIR", str(blocker / "cache"))  # mkdir fails, as on a read-only home
    first, second = _probabilities(), _probabilities()
    assert merges == [1, 1] and not (blocker / "cache").exists()
    np.testing.assert_allclose(first, second, atol=ABS)


def test_the_cache_folder_is_the_environment_variable_or_the_user_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    assert cache_dir({"RAGEVAL_CACHE_DIR": "/somewhere/else"}) == Path("/somewhere/else")
    monkeypatch.delenv("RAGEVAL_CACHE_DIR")
    assert cache_dir().name == "rageval_lc"
