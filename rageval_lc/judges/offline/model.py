"""The offline judge's learned parameters: small linear models, stored as JSON, evaluated with numpy.

``params.json`` (shipped beside this module) is written by ``benchmarks/calibrate_local_judge.py``,
which fits these models on part of the RAGBench rows and records its held-out figures in ``metadata``.

Example:
    >>> model = Logistic(mean=[0.0], scale=[1.0], coef=[2.0], intercept=0.0)
    >>> model.predict(np.array([[0.0], [1.0]])).round(3).tolist()
    [0.5, 0.881]
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

__all__ = [
    "PARAMS_FILE",
    "Linear",
    "LocalParams",
    "Logistic",
    "adherence_row_features",
    "completeness_row_features",
    "expand",
    "read_fitted",
    "share_row_features",
]

PARAMS_FILE = "params.json"
_EXPANDED = 8  # the first features also enter squared, and the first two multiplied


def expand(x: np.ndarray) -> np.ndarray:
    """Add squares of the first features and the product of the first two (after standardising).

    Example:
        >>> expand(np.arange(10.0).reshape(1, 10)).shape
        (1, 19)
    """
    return np.hstack([x, x[:, :_EXPANDED] ** 2, (x[:, 0] * x[:, 1])[:, None]])


@dataclass(frozen=True)
class _Standardised:
    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float
    expanded: bool = False
    columns: list[int] | None = None  # the feature columns used, when not all

    def _score(self, x: np.ndarray) -> np.ndarray:
        x = np.atleast_2d(np.asarray(x, dtype=float))
        if self.columns is not None:
            x = x[:, self.columns]
        z = (x - np.asarray(self.mean)) / np.asarray(self.scale)
        if self.expanded:
            z = expand(z)
        return z @ np.asarray(self.coef) + self.intercept


@dataclass(frozen=True)
class Logistic(_Standardised):
    """Logistic regression on standardised features: ``predict`` gives probabilities."""

    def predict(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-np.clip(self._score(x), -60.0, 60.0)))  # no overflow from a wild fit


@dataclass(frozen=True)
class Linear(_Standardised):
    """Linear (ridge) regression on standardised features: ``predict`` gives values."""

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self._score(x)


def question_share_row_features(probabilities: np.ndarray, documents: np.ndarray) -> np.ndarray:
    """Sample-level features for the relevant share, from the question's side only (relevance belongs to the
    question, SPEC §6): the sentence probabilities and the documents' similarity to the question."""
    from rageval_lc.judges.offline.features import DOCUMENT_FEATURES

    p = np.asarray(probabilities, dtype=float)
    if p.size == 0:
        return np.zeros(10)
    column = {name: i for i, name in enumerate(DOCUMENT_FEATURES)}
    sim, words = documents[:, column["sim_question"]], documents[:, column["words_from_question"]]
    quantiles = (p.mean(), np.quantile(p, 0.5), np.quantile(p, 0.9), p.max(), (p > 0.5).mean(), np.log(len(p)))
    return np.array([*quantiles, sim.mean(), sim.max(), words.mean(), words.max()])


def share_row_features(probabilities: np.ndarray, documents: np.ndarray, response_sentences: int) -> np.ndarray:
    """Sample-level features for the relevance / utilization share, from the sentence probabilities."""
    from rageval_lc.judges.offline.features import DOCUMENT_FEATURES

    p = np.asarray(probabilities, dtype=float)
    if p.size == 0:
        return np.zeros(10)
    column = {name: i for i, name in enumerate(DOCUMENT_FEATURES)}
    return np.array(
        [
            p.mean(),
            np.quantile(p, 0.5),
            np.quantile(p, 0.9),
            p.max(),
            (p > 0.5).mean(),
            np.log(len(p)),
            response_sentences,
            documents[:, column["sim_response_best"]].mean(),
            documents[:, column["cover_chosen"]].mean(),
            documents[:, column["cover_gain"]].sum() / len(p),
        ]
    )


def completeness_row_features(
    p_relevant: np.ndarray, p_utilized: np.ndarray, relevant: int, utilized: int, overlap: int, response_sentences: int
) -> np.ndarray:
    """Sample-level features for completeness, from the chosen key sets and the sentence probabilities.

    Example:
        >>> completeness_row_features(np.array([0.9, 0.1]), np.array([0.8, 0.2]), 1, 1, 1, 2).round(2).tolist()
        [0.5, 0.5, 1.0, 1.0, 0.5, 0.5, 1.1, 2.0, 0.74]
    """
    p_r, p_u = np.asarray(p_relevant, dtype=float), np.asarray(p_utilized, dtype=float)
    n = len(p_r)
    if n == 0:
        return np.zeros(9)
    return np.array(
        [
            relevant / n,
            utilized / n,
            min(1.0, utilized / max(1, relevant)),
            overlap / relevant if relevant else 1.0,
            p_r.mean(),
            p_u.mean(),
            np.log1p(n),
            response_sentences,
            float((p_r * p_u).sum() / max(1e-9, p_r.sum())),
        ]
    )


def adherence_row_features(unsupported: np.ndarray, unfound: float | None = None) -> np.ndarray:
    """Sample-level features for adherence: the largest, noisy-or and mean unsupported probability, and (when
    given) the share of the answer's words the passages do not hold (the word-overlap baseline).

    Example:
        >>> adherence_row_features(np.array([0.5, 0.5]), unfound=0.25).tolist()
        [0.5, 0.75, 0.5, 0.25]
    """
    p = np.asarray(unsupported, dtype=float)
    rows = np.zeros(3) if p.size == 0 else np.array([p.max(), 1.0 - np.prod(1.0 - p), p.mean()])
    return rows if unfound is None else np.append(rows, unfound)


@dataclass(frozen=True)
class LocalParams:
    """Every learned part of the offline judge.

    ``relevance`` / ``utilization``: P(a document sentence is relevant / used); ``*_share``: the sample's
    relevant / used share from those probabilities; ``support``: P(a response sentence is unsupported);
    ``hallucination``: P(the response is not fully supported) from the sentence probabilities;
    ``question_relevance``: P(relevant) from question-side features only (for context relevance);
    ``completeness``: the sample's completeness from the relevance and utilization predictions.
    """

    relevance: Logistic
    relevance_share: Linear
    utilization: Logistic
    utilization_share: Linear
    support: Logistic
    hallucination: Logistic
    question_relevance: Logistic
    context_relevant_threshold: float = 0.5
    support_threshold: float = 0.5
    adherence_threshold: float = 0.5
    #: the contradiction detector: an NLI contradiction on aligned text at least this probable flags the sentence
    #: (set for precision on benchmarks/contradiction_dev.py, never on RAGBench)
    contradiction_threshold: float = 0.5
    entailment_threshold: float = 1.01  # an NLI entailment at least this probable clears it (> 1: never)
    #: the contradiction detector's slot checks (numbers, units, dates, names, negation, roles, comparisons)
    lexical_conflicts: bool = True
    #: a sentence whose every number, date and name its closest document sentence holds, at least this similar
    #: to it, is a restatement: unsupported with at most 1 − this (> 1: never)
    slot_support_similarity: float = 0.8
    #: the kinds of conflict that call a sentence contradicted whatever the support model says (None: every kind);
    #: chosen by their precision on held-out real answers and faithful twins. A conflict of another kind is
    #: evidence: it names what contradicts a sentence the judge finds unsupported, and forces nothing.
    forcing_kinds: list[str] | None = None
    #: the kinds of conflict that call a sentence contradicted when the grounding model agrees: kind -> the
    #: P(contradicted) it must give the sentence's evidence (``SentenceNli.contradiction``), chosen like
    #: ``forcing_kinds`` (kind ``nli``: the model's reading alone). None with ``forcing_kinds`` None: every kind forces.
    forcing_contradiction: dict[str, float] | None = None
    #: whether the row model (``hallucination``) also reads the share of the answer's words no passage holds
    row_overlap: bool = False
    completeness: Linear | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    _MODELS: ClassVar[dict[str, type]] = {
        "relevance": Logistic,
        "relevance_share": Linear,
        "utilization": Logistic,
        "utilization_share": Linear,
        "support": Logistic,
        "hallucination": Logistic,
        "question_relevance": Logistic,
    }

    def to_json(self) -> str:
        """Serialise to JSON."""
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LocalParams:
        """Build from parsed JSON.

        Raises:
            ValueError: If a model is missing.
        """
        missing = [name for name in cls._MODELS if name not in data]
        if missing:
            msg = f"Local judge parameters lack {missing}."
            raise ValueError(msg)
        models = {name: kind(**data[name]) for name, kind in cls._MODELS.items()}
        if data.get("completeness") is not None:
            models["completeness"] = Linear(**data["completeness"])
        extra = {k: v for k, v in data.items() if k not in cls._MODELS and k != "completeness"}
        return cls(**models, **extra)

    @classmethod
    def load(cls, path: str | Path | None = None) -> LocalParams:
        """Load from a file, or the parameters shipped with the package."""
        return cls.from_dict(read_fitted(PARAMS_FILE, path))


def read_fitted(name: str, path: str | Path | None = None) -> dict[str, Any]:
    """The parsed JSON of a fitted file: ``path``, or the file ``name`` shipped beside this module."""
    if path is None:
        text = files("rageval_lc.judges.offline").joinpath(name).read_text(encoding="utf-8")
    else:
        text = Path(path).read_text(encoding="utf-8")
    return json.loads(text)
