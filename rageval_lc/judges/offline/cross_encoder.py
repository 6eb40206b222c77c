"""A grounding model of one's own: any sequence-classification NLI cross-encoder in place of the packaged one.

:class:`CrossEncoderNli` loads a Hugging Face model (a folder written by ``save_pretrained``, or a model id,
downloaded unless ``HF_HUB_OFFLINE=1``) with ``AutoModelForSequenceClassification`` and reads its labels from
its ``config.json`` (``id2label``), whatever their order:

- **three-way** (NLI): one label each for entailment (``entail*``, ``support*``), neutral (``neutral``,
  ``not enough info``) and contradiction (``contradict*``, ``refute*``), case and spaces ignored;
- **binary** (consistency): one label that says the hypothesis holds (``entail*``, ``support*``,
  ``consistent``, ``faithful``, ``factual``, ``grounded``, ``true``, ``yes``, ``correct``) and one that says
  it does not (``not_*``, ``non_*``, ``inconsistent``, ``unsupported``, ``hallucinat*``, ``unfaithful``,
  ``false``, ``no``, ``incorrect``); or a single logit read through a sigmoid as P(holds) (as P(does not hold)
  when its label is one of the second kind).

A binary model's P(holds) = p becomes the row (p, 1 − p, 0): entailment p, neutral 1 − p, contradiction 0. It
says whether the documents support a sentence, never that they contradict it, so the judge's contradictions
then come from its slot checks alone (numbers, dates, names, negation, roles; see
:mod:`~rageval_lc.judges.offline.contradiction`).

The judge's calibration (``params.json``) was fitted on the packaged model's outputs: with another model it is
used as it is, with a :class:`CalibrationWarning`, until ``rageval align`` refits it on labelled rows; the
aligned judge file records the model (``metadata["nli_model"]``) and loads it again.

Example:
    >>> labels = label_map({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"})
    >>> labels.layout, labels.columns
    ('three-way', (2, 1, 0))
    >>> labels.probabilities(np.array([[0.0, 0.0, np.log(2.0)]])).round(2).tolist()  # e^x / sum: 1/4, 1/4, 2/4
    [[0.5, 0.25, 0.25]]
    >>> binary = label_map({0: "not_entailment", 1: "entailment"})
    >>> binary.probabilities(np.array([[0.0, np.log(3.0)]])).round(2).tolist()  # P(entailment) = 3/4
    [[0.75, 0.25, 0.0]]
"""

from __future__ import annotations

import hashlib
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rageval_lc.errors import MissingDependencyError
from rageval_lc.judges.offline.nli import LABELS, NliModel

__all__ = ["CalibrationWarning", "CrossEncoderNli", "LabelMap", "label_map", "load_nli", "nli_for_judge"]

#: Tokens a pair is truncated to by default (the longer text first); the model's own limit when lower.
MAX_LENGTH = 512
_WEIGHTS = ("*.safetensors", "pytorch_model*.bin", "*.safetensors.index.json", "pytorch_model.bin.index.json")
_HOLDS = {"consistent", "faithful", "factual", "grounded", "true", "yes", "correct"}
_FAILS = {"inconsistent", "unsupported", "unfaithful", "false", "no", "incorrect"}


class CalibrationWarning(UserWarning):
    """The offline judge runs an NLI model its calibration was not fitted on (``rageval align`` refits it)."""


def _norm(label: str) -> str:
    return re.sub(r"[\s\-]+", "_", str(label).strip().lower())


def _three_way_class(name: str) -> str | None:
    if name.startswith(("entail", "support")):
        return "entailment"
    if name.startswith("neutral") or name in {"not_enough_info", "not_enough_information", "nei"}:
        return "neutral"
    if name.startswith(("contradict", "refute")):
        return "contradiction"
    return None


def _holds(name: str) -> bool | None:
    """True for a label saying the hypothesis holds, False for one saying it does not, None for neither."""
    if name.startswith(("not_", "non_", "hallucinat")) or name in _FAILS:
        return False
    if name.startswith(("entail", "support")) or name in _HOLDS:
        return True
    return None


@dataclass(frozen=True)
class LabelMap:
    """How a model's outputs become rows of P(entailment), P(neutral), P(contradiction).

    ``layout``: ``three-way`` (``columns``: the output index of each of :data:`LABELS`), ``binary`` (``columns``:
    the index of the label saying the hypothesis holds) or ``single-logit`` (``columns``: ``(0,)``; ``flip``:
    the logit says it does not hold). ``labels``: the model's label names in output order.
    """

    layout: str
    columns: tuple[int, ...]
    labels: tuple[str, ...]
    flip: bool = False

    def probabilities(self, logits: np.ndarray) -> np.ndarray:
        """Rows in :data:`LABELS` order from a batch of logits (rows of ``len(labels)`` numbers)."""
        z = np.asarray(logits, dtype=np.float64)
        if self.layout == "single-logit":
            p = 0.5 * (1.0 + np.tanh(0.5 * z[:, 0] * (-1.0 if self.flip else 1.0)))  # the sigmoid, stable
        else:
            e = np.exp(z - z.max(axis=1, keepdims=True))
            softmax = e / e.sum(axis=1, keepdims=True)
            if self.layout == "three-way":
                return softmax[:, list(self.columns)].astype(np.float32)
            p = softmax[:, self.columns[0]]
        return np.column_stack([p, 1.0 - p, np.zeros_like(p)]).astype(np.float32)


def label_map(id2label: Mapping[int, str]) -> LabelMap:
    """Read a model's labels (its config's ``id2label``): three-way NLI, binary consistency or a single logit.

    Raises:
        ValueError: If the labels are none of these (the message names them).

    Example:
        >>> label_map({"0": "entailment", "1": "neutral", "2": "contradiction"}).columns
        (0, 1, 2)
        >>> label_map({0: "LABEL_0", 1: "LABEL_1"})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: Cannot read the NLI model's labels ['LABEL_0', 'LABEL_1']: ...
    """
    by_index = {int(k): str(v) for k, v in id2label.items()}  # keys are ints in a config, strings in its JSON
    labels = tuple(by_index[i] for i in sorted(by_index))
    names = [_norm(label) for label in labels]
    if len(names) == 3:
        classes = [_three_way_class(name) for name in names]
        if sorted(c or "" for c in classes) == sorted(LABELS):
            return LabelMap("three-way", tuple(classes.index(label) for label in LABELS), labels)
    elif len(names) == 2:
        says = [_holds(name) for name in names]
        if sorted(says, key=str) == [False, True]:
            return LabelMap("binary", (says.index(True),), labels)
    elif len(names) == 1:
        return LabelMap("single-logit", (0,), labels, flip=_holds(names[0]) is False)
    msg = (
        f"Cannot read the NLI model's labels {list(labels)}: expected three (entailment, neutral, contradiction, "
        "in any order) or two (one saying the hypothesis holds, e.g. entailment, consistent or supported, and one "
        "saying it does not, e.g. not_entailment, inconsistent or unsupported), or a single logit. Name them in "
        "the model's config.json (id2label)."
    )
    raise ValueError(msg)


def _transformers() -> Any:
    try:
        import transformers
    except ImportError as exc:  # pragma: no cover - sentence-transformers brings transformers
        msg = "An NLI model of one's own needs transformers: `pip install sentence-transformers`."
        raise MissingDependencyError(msg) from exc
    return transformers


class CrossEncoderNli(NliModel):
    """An NLI model of one's own: a sequence-classification cross-encoder read as the packaged one is.

    Same contract as :class:`~rageval_lc.judges.offline.nli.NliModel` (``predict(pairs)``: rows of
    P(entailment), P(neutral), P(contradiction); de-duplicated, length-sorted batches; an LRU cache; the device
    and precision choices; pickled without the loaded model). The configuration and the labels are read now, so
    a wrong folder or unreadable labels fail here; the tokenizer and the weights load on first use.

    Args:
        model: a folder written by ``save_pretrained`` (``config.json``, weights, tokenizer files) or a Hugging Face
            model id (downloaded unless ``HF_HUB_OFFLINE=1``; custom model code is never run).
        device, batch_size, cache_size, precision: as :class:`~rageval_lc.judges.offline.nli.NliModel`'s.
        max_length: tokens a pair is truncated to, the longer text first (at most the model's own limit).

    Raises:
        ValueError: If there is no model there, or its labels cannot be read (:func:`label_map`).

    Example:
        >>> nli = CrossEncoderNli("cross-encoder/nli-deberta-v3-base")  # doctest: +SKIP
        >>> nli.labels.layout, nli.labels.labels  # doctest: +SKIP
        ('three-way', ('contradiction', 'entailment', 'neutral'))
    """

    def __init__(
        self,
        model: str | Path,
        *,
        device: str = "auto",
        batch_size: int = 32,
        cache_size: int = 200_000,
        precision: str = "auto",
        max_length: int = MAX_LENGTH,
    ) -> None:
        self.adapter = None  # no adapter: the whole model is the user's
        self.model = _model_source(model)
        config = _load_config(self.model)
        self.labels = label_map(config.id2label)
        limit = getattr(config, "max_position_embeddings", None)
        self.max_length = min(max_length, limit) if isinstance(limit, int) and limit > 2 else max_length
        self._commit = getattr(config, "_commit_hash", None)
        self._identity: str | None = None
        self._setup(device=device, batch_size=batch_size, cache_size=cache_size, precision=precision)

    @property
    def source(self) -> str:
        """The model's folder (absolute) or id."""
        return self.model

    def record(self) -> dict[str, Any]:
        """What an aligned judge file keeps of this model, to load it again."""
        return {"model": self.model, "layout": self.labels.layout, "labels": list(self.labels.labels)}

    def identity(self) -> str:
        """What tells this model's answers apart, for a judge cache's key: a folder's configuration and weights
        (their hash), or a model id at its downloaded revision."""
        if self._identity is None:
            folder = Path(self.model)
            if folder.is_dir():
                digest = hashlib.sha256()
                files = {folder / "config.json", *(f for pattern in _WEIGHTS for f in folder.glob(pattern))}
                for path in sorted(files):
                    digest.update(path.name.encode("utf-8"))
                    with path.open("rb") as handle:
                        for block in iter(lambda handle=handle: handle.read(1 << 20), b""):
                            digest.update(block)
                self._identity = digest.hexdigest()
            else:
                self._identity = f"{self.model}@{self._commit or 'unknown revision'}"
        return self._identity

    def _load(self) -> tuple[Any, Any]:
        if self._loaded is None:
            transformers = _transformers()
            from rageval_lc.judges.offline.quiet import quiet_model_loading

            try:
                with quiet_model_loading():
                    tokenizer = transformers.AutoTokenizer.from_pretrained(self.model)
                    model, info = transformers.AutoModelForSequenceClassification.from_pretrained(
                        self.model, output_loading_info=True
                    )
            except ImportError as exc:  # a tokenizer that needs sentencepiece, tiktoken, …
                msg = f"Loading the NLI model {self.model!r} needs a package that is missing: {exc}"
                raise MissingDependencyError(msg) from exc
            except (OSError, ValueError) as exc:
                msg = f"Cannot load the NLI model {self.model!r}: {' '.join(str(exc).split())}"
                raise ValueError(msg) from exc
            missing = sorted(k for k in info.get("missing_keys", ()) if not k.endswith("position_ids"))
            if missing:
                msg = (
                    f"The NLI model {self.model!r} lacks trained weights for {', '.join(missing[:4])}"
                    f"{' …' if len(missing) > 4 else ''}: it is not a fine-tuned sequence classifier (they would be "
                    "random)."
                )
                raise ValueError(msg)
            model.float().eval().to(self.device)
            self._loaded = (tokenizer, model)
        return self._loaded

    def _probabilities(self, logits: Any) -> np.ndarray:
        return self.labels.probabilities(logits.float().cpu().numpy())


def _model_source(model: str | Path) -> str:
    """A folder as an absolute path, a model id as it is.

    Raises:
        ValueError: If ``model`` names a path (absolute, ``./``, ``~``) where there is no folder, a file, or a folder
            without ``config.json``.
    """
    text = str(model).strip()
    path = Path(text).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            msg = (
                f"No NLI model in {text!r}: the folder has no config.json (save the model and its tokenizer there "
                "with save_pretrained)."
            )
            raise ValueError(msg)
        return str(path.resolve())
    if path.exists():
        msg = f"{text!r} is a file; give the NLI model's folder (config.json, weights, tokenizer) or its model id."
        raise ValueError(msg)
    if not text or path.is_absolute() or text.startswith((".", "~")) or "\\" in text:
        msg = f"No NLI model folder at {text!r}."
        raise ValueError(msg)
    return text


def _load_config(model: str) -> Any:
    transformers = _transformers()
    try:
        from rageval_lc.judges.offline.quiet import quiet_model_loading

        with quiet_model_loading():
            return transformers.AutoConfig.from_pretrained(model)
    except (OSError, ValueError) as exc:
        hint = "" if Path(model).is_dir() else " (not a folder here, nor a model id that could be fetched)"
        msg = f"Cannot read the NLI model {model!r}{hint}: {' '.join(str(exc).split())}"
        raise ValueError(msg) from exc


def load_nli(nli: NliModel | str | Path | None = None, *, device: str = "auto", cache_size: int = 200_000) -> NliModel:
    """The NLI model ``nli`` names: None, the packaged one; an adapter folder (``adapter_config.json`` or
    ``adapter_model.safetensors``, from ``training/train_nli.py``), the packaged model with that adapter; any
    other folder or a model id, a :class:`CrossEncoderNli`; a model, itself.

    Raises:
        ValueError: See :class:`CrossEncoderNli`.
    """
    if isinstance(nli, NliModel):
        return nli
    if nli is None:
        return NliModel(device=device, cache_size=cache_size)
    folder = Path(nli).expanduser()
    adapter = (folder / "adapter_config.json").is_file() or (folder / "adapter_model.safetensors").is_file()
    if folder.is_dir() and adapter:
        return NliModel(folder, device=device, cache_size=cache_size)
    return CrossEncoderNli(nli, device=device, cache_size=cache_size)


def nli_for_judge(
    nli: NliModel | str | Path | None, params: Any, *, device: str, cache_size: int
) -> tuple[Any, NliModel]:
    """The offline judge's parameters and NLI model: ``nli``, else the one ``params`` were aligned with (an aligned
    judge file's ``metadata["nli_model"]``), else the packaged one. A :class:`CalibrationWarning` says so when the
    parameters were fitted on another model than the one it runs.

    ``params`` (None, a :class:`~rageval_lc.judges.offline.model.LocalParams` or a path) comes back as it is, or
    loaded when it had to be read (a path, with an NLI model to check against).
    """
    from rageval_lc.judges.offline.model import LocalParams

    if nli is None and params is None:
        return None, load_nli(None, device=device, cache_size=cache_size)  # the shipped pair: nothing to read
    loaded = params if isinstance(params, LocalParams) else LocalParams.load(params)
    recorded = (loaded.metadata.get("nli_model") or {}).get("model")
    try:
        model = load_nli(nli if nli is not None else recorded, device=device, cache_size=cache_size)
    except ValueError as exc:
        if nli is not None:
            raise
        msg = (
            f"The judge's parameters were aligned with the NLI model {recorded!r}, which cannot be read here ({exc}). "
            "Give its new place with --judge offline:nli=MODEL,judge=FILE (OfflineJudge(nli=..., params=...))."
        )
        raise ValueError(msg) from exc
    if model.source != recorded:
        fitted = f"the NLI model {recorded!r}" if recorded else "the packaged NLI model"
        running = f"{model.source!r}" if model.source else "the packaged one"
        warnings.warn(
            f"The offline judge's calibration was fitted on {fitted}, not on {running}: it is used as it is, and "
            "its probabilities and thresholds may not suit this model. `rageval align` refits it on labelled rows "
            f"(--judge {'offline:nli=' + model.source if model.source else 'offline'}).",
            CalibrationWarning,
            stacklevel=3,
        )
    return (params if params is None or isinstance(params, LocalParams) else loaded), model
