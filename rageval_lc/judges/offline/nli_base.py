"""The NLI model's base: its labels and the 3-way classifier over the packaged MiniLM that the adapter is trained on
and merged into (:mod:`~rageval_lc.judges.offline.nli`, :mod:`~rageval_lc.judges.offline.merged_nli`, and
``training/train_nli.py`` read it from here).

Example:
    >>> LABELS
    ('entailment', 'neutral', 'contradiction')
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rageval_lc.errors import MissingDependencyError

__all__ = ["LABELS", "build_base"]

LABELS = ("entailment", "neutral", "contradiction")


def build_base(model_path: str | Path | None = None) -> tuple[Any, Any]:
    """The tokenizer and a 3-way sequence classifier over the base MiniLM weights (head untrained).

    Raises:
        MissingDependencyError: If transformers (or the packaged model) is missing.
    """
    from rageval_lc.judges.offline.encoder import default_model_path

    try:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
    except ImportError as exc:  # pragma: no cover - sentence-transformers brings transformers
        msg = "The offline NLI model needs transformers: `pip install sentence-transformers`."
        raise MissingDependencyError(msg) from exc
    path = str(model_path or default_model_path())
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForSequenceClassification.from_pretrained(
        path,
        num_labels=len(LABELS),
        id2label=dict(enumerate(LABELS)),
        label2id={label: i for i, label in enumerate(LABELS)},
    )
    return tokenizer, model
