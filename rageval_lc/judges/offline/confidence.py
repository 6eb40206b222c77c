"""How sure the offline judge is of each verdict: the probability that a verdict is right.

The offline judge's probabilities rank hallucinations, but they do not say which of its verdicts to trust: a
contradiction it forces at 0.96 is often a paraphrase, and a sentence marked unsupported only because its answer
as a whole fell under the threshold is a coin toss. A second, small model per kind of verdict reads what the
judge computed for a verdict (its probabilities before and after the NLI pass, whether the contradiction detector
fired and how, the row's probability, the sentence's similarity to its closest passage) and gives the probability
that the verdict agrees with a careful annotator. It is fitted on RAGBench rows the judge never saw while it was
fitted (the held-out fold of ``benchmarks/ragbench_folds.py``, by ``benchmarks/confidence.py``; its reliability
curve and calibration error are in BENCHMARKS.md) and stored in ``confidence.json`` beside this module.

Three kinds: ``sentence`` (a TRACe response sentence's verdict, which also reads its row), ``claim`` (a verdict on
a statement alone: faithfulness claims, reference statements) and ``row`` (the answer's adherence). A context
verdict's confidence is its probability's distance from the threshold, rescaled (no labels of context relevance
to fit on; :func:`context_confidence`).

Example:
    >>> model = ConfidenceModels.load()
    >>> x = sentence_inputs(np.array([0.9]), np.array([0.95]), [None], [True], 0.2, [0.5], [False])
    >>> p = model.probability("sentence", x)        # P(the sentence is unsupported)
    >>> bool(0.0 < p[0] < 1.0), float(verdict_confidence(p, [True])[0]) == float(p[0])
    (True, True)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from rageval_lc.judges.offline.model import Logistic, read_fitted

__all__ = [
    "CLAIM_FEATURES",
    "CONFIDENCE_FILE",
    "ROW_FEATURES",
    "SENTENCE_FEATURES",
    "ConfidenceModels",
    "claim_inputs",
    "context_confidence",
    "row_inputs",
    "sentence_inputs",
    "shipped_confidence",
    "verdict_confidence",
]

CONFIDENCE_FILE = "confidence.json"
_EPS = 1e-4

#: What a sentence's confidence reads: the judge's P(unsupported) after and before the NLI pass (logits), the
#: NLI pass's best entailment and contradiction, whether the contradiction detector fired (and forced the verdict),
#: whether a document sentence states every figure and name of it, whether the NLI model reads a passage against
#: it, its similarity to the closest document sentence, whether the judge marked it unsupported (and only as its
#: answer's most doubtful sentence), the answer's P(fully supported) (logit) and the answer's length (log
#: sentences); the last five repeat the first ones for a sentence marked unsupported, so either side has its own
#: slope.
SENTENCE_FEATURES: tuple[str, ...] = (
    "logit_unsupported",
    "logit_unsupported_before_nli",
    "entailment",
    "contradiction",
    "detector_fired",
    "forced",
    "stated_by_one_sentence",
    "opposed_by_nli",
    "best_similarity",
    "marked_unsupported",
    "marked_only_as_most_doubtful",
    "logit_answer_supported",
    "log_sentences",
    "marked_x_logit_unsupported",
    "marked_x_entailment",
    "marked_x_detector_fired",
    "marked_x_logit_answer_supported",
    "marked_x_best_similarity",
)
#: A claim's confidence reads the same but what belongs to an answer (it is judged alone).
CLAIM_FEATURES: tuple[str, ...] = tuple(
    name
    for name in SENTENCE_FEATURES
    if name not in {"marked_only_as_most_doubtful", "logit_answer_supported", "log_sentences"}
    and name != "marked_x_logit_answer_supported"
)
#: A row's confidence reads the answer's P(fully supported) (logit), whether it was judged supported, whether a
#: contradiction forced it, the sentence model's largest, noisy-or and mean P(unsupported) over the answer, how
#: many sentences are marked unsupported, and the answer's length.
ROW_FEATURES: tuple[str, ...] = (
    "logit_answer_supported",
    "judged_supported",
    "forced",
    "max_sentence_unsupported",
    "noisy_or_sentence_unsupported",
    "mean_sentence_unsupported",
    "marked_sentences",
    "log_sentences",
)


@lru_cache(maxsize=1)
def shipped_confidence() -> ConfidenceModels:
    """The confidence models shipped with the package (loaded once per process)."""
    return ConfidenceModels.load()


def _logit(p: Any) -> np.ndarray:
    p = np.clip(np.asarray(p, dtype=float), _EPS, 1.0 - _EPS)
    return np.log(p / (1.0 - p))


def sentence_inputs(
    p_unsupported: np.ndarray,
    p_before_nli: np.ndarray,
    verdicts: Sequence[Any],
    marked: Sequence[bool],
    answer_supported: float,
    best_similarity: Sequence[float],
    only_as_most_doubtful: Sequence[bool],
    forced: Sequence[bool] | None = None,
) -> np.ndarray:
    """The :data:`SENTENCE_FEATURES` of an answer's sentences (one row each).

    ``verdicts`` are the NLI pass's :class:`~rageval_lc.judges.offline.nli_pass.SentenceNli` (None: no NLI pass);
    ``forced`` says which contradictions forced the verdict (default: none)."""
    m = len(marked)
    forced = list(forced) if forced is not None else [False] * m
    entail = np.array([getattr(v, "entailment", 0.0) for v in verdicts], dtype=float)
    contra = np.array([getattr(v, "contradiction", 0.0) for v in verdicts], dtype=float)
    fired = np.array([getattr(v, "verdict", "") == "contradicted" for v in verdicts], dtype=float)
    stated = np.array([bool(getattr(v, "stated_by", ())) for v in verdicts], dtype=float)
    opposed = np.array([bool(getattr(v, "opposing_keys", ())) for v in verdicts], dtype=float)
    mark = np.asarray(marked, dtype=float)
    lp = _logit(p_unsupported)
    similarity = np.asarray(best_similarity, dtype=float)
    answer = np.full(m, float(_logit(answer_supported)))
    columns = [
        lp,
        _logit(p_before_nli),
        entail,
        contra,
        fired,
        np.asarray(forced, dtype=float),
        stated,
        opposed,
        similarity,
        mark,
        np.asarray(only_as_most_doubtful, dtype=float),
        answer,
        np.full(m, np.log(max(m, 1))),
        mark * lp,
        mark * entail,
        mark * fired,
        mark * answer,
        mark * similarity,
    ]
    return np.column_stack(columns) if m else np.zeros((0, len(SENTENCE_FEATURES)))


def claim_inputs(sentence_table: np.ndarray) -> np.ndarray:
    """The :data:`CLAIM_FEATURES` columns of a :func:`sentence_inputs` table."""
    return sentence_table[:, [SENTENCE_FEATURES.index(name) for name in CLAIM_FEATURES]]


def row_inputs(
    answer_supported: float, judged_supported: bool, forced: bool, sentence_unsupported: np.ndarray, marked: int
) -> np.ndarray:
    """The :data:`ROW_FEATURES` of one answer (a 1-row table), from the sentence model's P(unsupported)."""
    q = np.asarray(sentence_unsupported, dtype=float)
    m = q.size
    figures = [
        float(_logit(answer_supported)),
        float(judged_supported),
        float(forced),
        float(q.max()) if m else 0.0,
        float(1.0 - np.prod(1.0 - q)) if m else 0.0,
        float(q.mean()) if m else 0.0,
        float(marked),
        float(np.log(max(m, 1))),
    ]
    return np.array([figures])


def verdict_confidence(p_positive: np.ndarray, said_positive: Sequence[bool]) -> np.ndarray:
    """The probability that each verdict is right: ``p`` where the verdict said yes, ``1 - p`` where it said no.

    Example:
        >>> verdict_confidence(np.array([0.9, 0.9]), [True, False]).round(2).tolist()
        [0.9, 0.1]
    """
    p = np.asarray(p_positive, dtype=float)
    return np.where(np.asarray(said_positive, dtype=bool), p, 1.0 - p)


def context_confidence(score: float, threshold: float) -> float:
    """A context verdict's confidence: 0.5 at the threshold, rising linearly to 1.0 at 0 or 1 (not calibrated on
    labels: RAGBench labels sentences, not whole contexts, for the question's relevance).

    Example:
        >>> context_confidence(0.5, 0.5), context_confidence(1.0, 0.5), context_confidence(0.25, 0.5)
        (0.5, 1.0, 0.75)
    """
    if score >= threshold:
        return 0.5 + 0.5 * (score - threshold) / max(1.0 - threshold, _EPS)
    return 0.5 + 0.5 * (threshold - score) / max(threshold, _EPS)


@dataclass(frozen=True)
class ConfidenceModels:
    """The fitted models: each kind's P(positive) — P(unsupported) for ``sentence`` and ``claim``, P(the answer
    is fully supported) for ``row`` — from its input table; ``metadata`` holds how and on what they were fitted
    and their held-out calibration."""

    sentence: Logistic
    claim: Logistic
    row: Logistic
    metadata: dict[str, Any] = field(default_factory=dict)

    def probability(self, kind: str, x: np.ndarray) -> np.ndarray:
        """P(positive) of each row of ``x`` for ``kind`` (``sentence``, ``claim`` or ``row``)."""
        if x.shape[0] == 0:
            return np.zeros(0)
        return getattr(self, kind).predict(x)

    def to_json(self) -> str:
        """Serialise to JSON."""
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def load(cls, path: str | Path | None = None) -> ConfidenceModels:
        """Load from a file, or the models shipped with the package."""
        data = read_fitted(CONFIDENCE_FILE, path)
        return cls(
            sentence=Logistic(**data["sentence"]),
            claim=Logistic(**data["claim"]),
            row=Logistic(**data["row"]),
            metadata=data.get("metadata", {}),
        )
