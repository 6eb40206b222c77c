"""The NLI adapter merged into the packaged MiniLM once, and kept: later processes read the merged weights.

The LoRA adapter (``nli/``) is merged into the base model in numpy (:mod:`~rageval_lc.judges.offline.lora`; with
peft, whose import takes seconds, only for an adapter of a kind not merged there); the merged model is the same on
every run, so the first run saves the tensors the merge changed (the encoder layers, the norms, the pooler and the
head: about 45 MB; the embeddings are the base model's) to the user's cache, and a later run reads them with
``safetensors`` alone, as numpy arrays. The file is named by what it was made from (the adapter's files, by their
digest, so a new adapter is merged again, and the base weights' place, size and modification time, as Python's
``.pyc`` files are), written to a temporary file and renamed into place, and carries a checksum of its tensors:
a file cut short or damaged is found out, and merged again (and rewritten). Where the cache cannot be written
(a read-only home, a full disk), each process merges in memory.

The cache lives in ``$RAGEVAL_CACHE_DIR`` when set, else the platform's user cache folder
(``~/.cache/rageval_lc`` on Linux), under ``nli/``.

Example:
    >>> cache_dir({"RAGEVAL_CACHE_DIR": "/tmp/rageval-cache"}).as_posix()
    '/tmp/rageval-cache'
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "FORMAT",
    "cache_dir",
    "file_digest",
    "merge_adapter",
    "merge_adapter_with_peft",
    "merged_nli_weights",
    "merged_path",
    "peft_model",
    "read_merged",
]

FORMAT = "rageval_lc merged NLI 2"  # in each file's metadata; a new layout changes it (and so every file's name)
_log = logging.getLogger(__name__)


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where rageval_lc keeps what it computes once: ``$RAGEVAL_CACHE_DIR`` (of ``environ``, by default the
    process's environment), else the user cache folder."""
    override = (os.environ if environ is None else environ).get("RAGEVAL_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("rageval_lc", appauthor=False))


_digests: dict[tuple[str, int, int], str] = {}


def file_digest(path: Path) -> str:
    """The SHA-256 of a file's bytes, computed once per process while its size and modification time stay."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _digests:
        _digests[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return _digests[key]


def merged_path(adapter: Path, base: Path) -> Path:
    """The cache file of ``adapter`` merged into the model in ``base``: named by the adapter's files (their
    digest) and the base weights (their resolved path, size and modification time) and :data:`FORMAT`."""
    weights = base / "model.safetensors"
    stat = weights.stat()
    key = hashlib.blake2b(digest_size=16)
    for part in (
        FORMAT,
        file_digest(adapter / "adapter_config.json"),
        file_digest(adapter / "adapter_model.safetensors"),
        str(weights.resolve()),
        str(stat.st_size),
        str(stat.st_mtime_ns),
    ):
        key.update(part.encode("utf-8") + b"\0")
    return cache_dir() / "nli" / f"{key.hexdigest()}.safetensors"


def peft_model(adapter: Path) -> tuple[Any, Any]:
    """The tokenizer and the merged model as peft makes them: the base sequence classifier in float32, the adapter
    applied, ``merge_and_unload`` (call it under :func:`~rageval_lc.judges.offline.quiet.quiet_model_loading`)."""
    try:
        from peft import PeftModel
    except ImportError as exc:
        from rageval_lc.errors import MissingDependencyError

        msg = "The offline NLI model needs peft: `pip install peft`."
        raise MissingDependencyError(msg) from exc
    from rageval_lc.judges.offline.nli_base import build_base

    tokenizer, base = build_base()
    return tokenizer, PeftModel.from_pretrained(base.float(), str(adapter)).merge_and_unload()


def merge_adapter(adapter: Path, base: Path | None = None) -> dict[str, np.ndarray]:
    """The whole merged model's tensors (float32 numpy arrays, named without the ``bert.`` prefix) of ``adapter`` on
    the MiniLM in ``base`` (None: the packaged one): merged in numpy
    (:func:`~rageval_lc.judges.offline.lora.merge_lora_folder`), or by peft (:func:`peft_model`, on the packaged
    model) for an adapter of a kind not merged there."""
    from safetensors.numpy import load_file

    from rageval_lc.judges.offline.encoder import default_model_path
    from rageval_lc.judges.offline.lora import UnsupportedAdapter, merge_lora_folder

    weights = load_file(str((base or default_model_path()) / "model.safetensors"))
    weights.pop("embeddings.position_ids", None)  # a buffer, not a weight
    try:
        return merge_lora_folder(adapter, weights)
    except UnsupportedAdapter as exc:
        _log.info("Merging the NLI adapter with peft (%s).", exc)
        return merge_adapter_with_peft(adapter)


def merge_adapter_with_peft(adapter: Path) -> dict[str, np.ndarray]:
    """The whole merged model's tensors as peft merges them (:func:`peft_model`), as numpy arrays."""
    from rageval_lc.judges.offline.quiet import quiet_model_loading

    with quiet_model_loading():
        _, model = peft_model(adapter)
    state = model.state_dict()
    state.pop("bert.embeddings.position_ids", None)
    return {name.removeprefix("bert."): tensor.detach().float().cpu().numpy() for name, tensor in state.items()}


def _checksum(data: bytes | memoryview) -> str:
    return f"{zlib.crc32(data):08x}"


def read_merged(path: Path) -> dict[str, np.ndarray] | None:
    """The tensors saved in ``path``, or None when there is no such file or it is not whole: cut short, damaged
    (its checksum differs), or not written by :func:`merged_nli_weights`."""
    from safetensors.numpy import load

    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        size = int.from_bytes(data[:8], "little")
        header = json.loads(data[8 : 8 + size])
        meta = header.get("__metadata__") or {}
        if len(data) < 8 + size or meta.get("format_of") != FORMAT:
            return None
        if meta.get("checksum") != _checksum(memoryview(data)[8 + size :]):
            return None
        return load(data)
    except Exception:  # any unreadable file is merged again, never used
        return None


def _write(path: Path, tensors: dict[str, np.ndarray]) -> None:
    """Save ``tensors`` to ``path`` atomically (a temporary file in the same folder, renamed into place)."""
    from safetensors.numpy import save

    data = save(tensors)  # the checksum covers the tensors' bytes, which follow the header
    size = int.from_bytes(data[:8], "little")
    data = save(tensors, metadata={"format_of": FORMAT, "checksum": _checksum(memoryview(data)[8 + size :])})
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def merged_nli_weights(adapter: Path, base: Path) -> dict[str, np.ndarray]:
    """The NLI model's tensors (float32 numpy arrays): the base model's with the cached merge's on top, or, when the
    cache has no whole file for this adapter and base, merged now (:func:`merge_adapter`) and saved for the next
    process."""
    from safetensors.numpy import load_file

    path = merged_path(adapter, base)
    changed = read_merged(path)
    weights = load_file(str(base / "model.safetensors"))
    weights.pop("embeddings.position_ids", None)  # a buffer, not a weight
    if changed is not None:
        return {**weights, **changed}
    merged = merge_adapter(adapter, base)
    changed = {name: array for name, array in merged.items() if name not in weights or not _same(array, weights[name])}
    try:
        _write(path, changed)
    except OSError as exc:  # a read-only or full cache: merge again next time
        _log.info("Could not keep the merged NLI model in %s (%s); it is merged on each load.", path.parent, exc)
    return merged


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b))
