"""Semantic similarity and BERTScore: hand-worked vectors, the packaged model, and parity with bert-score."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rageval_lc.metrics.bert_score import bert_score
from rageval_lc.metrics.semantic_similarity import cosine, semantic_similarity
from tests.floats import ABS


def test_cosine_and_semantic_similarity_by_hand() -> None:
    assert cosine(np.array([3.0, 4.0]), np.array([4.0, 3.0])) == pytest.approx(24 / 25)
    assert semantic_similarity(np.array([1.0, 0.0]), np.array([-1.0, 0.0])) == 0.0  # floored at 0
    assert semantic_similarity(np.zeros(2), np.array([1.0, 0.0])) == 0.0  # an empty side


def test_bert_score_by_hand() -> None:
    # candidate tokens [1,0] and [0,1]; reference token [1,0]:
    # precision = (1 + 0) / 2, recall = 1 / 1, F1 = 2·0.5·1 / 1.5
    p, r, f = bert_score(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 0.0]]))
    assert (p, r, f) == (0.5, 1.0, pytest.approx(2 / 3))
    # a weight-0 token (a special token) can still be matched but counts for nothing
    p, r, f = bert_score(
        np.array([[2.0, 0.0], [0.0, 5.0]]),
        np.array([[0.6, 0.8], [0.0, 1.0]]),
        candidate_weights=np.array([1.0, 0.0]),
        reference_weights=np.array([1.0, 1.0]),
    )
    assert p == pytest.approx(0.6)  # [1,0]'s best match is [0.6,0.8]
    assert r == pytest.approx((0.8 + 1.0) / 2)  # each reference token's best is the second candidate token
    assert bert_score(np.zeros((0, 2)), np.array([[1.0, 0.0]])) == (0.0, 0.0, 0.0)


@pytest.fixture(scope="module")
def scorer():
    from rageval_lc.judges.offline.embeddings import EmbeddingScorer

    return EmbeddingScorer()


def test_identical_strings_have_similarity_one(scorer) -> None:
    text = "The Cornish heath (Erica vagans) grows on the Lizard peninsula."
    assert scorer.semantic_similarity(text, text) == pytest.approx(1.0, abs=ABS)  # float32 norms: not exactly 1
    assert scorer.bert_score(text, text) == pytest.approx((1.0, 1.0, 1.0), abs=ABS)
    assert scorer.semantic_similarity("", text) == 0.0
    assert scorer.bert_score(text, "  ") == (0.0, 0.0, 0.0)


def _pairs(ragbench_files: list[Path], count: int) -> list[tuple[str, str]]:
    """Response vs. the first document's opening, over RAGBench rows of every sub-dataset."""
    pairs: list[tuple[str, str]] = []
    for path in ragbench_files:
        for line in path.read_text(encoding="utf-8").splitlines()[:30]:
            row = json.loads(line)
            pairs.append((row["response"], row["documents"][0][:400]))
    return pairs[:count]


def test_bert_score_agrees_with_the_bert_score_package(scorer, ragbench_files: list[Path]) -> None:
    bert_score_package = pytest.importorskip("bert_score", reason="bert-score is not installed (a test extra)")
    from rageval_lc.judges.offline.encoder import default_model_path

    pairs = _pairs(ragbench_files, 240)
    assert len(pairs) >= 200
    candidates, references = [c for c, _ in pairs], [r for _, r in pairs]
    p, r, f = bert_score_package.score(
        candidates, references, model_type=str(default_model_path()), num_layers=6, batch_size=32
    )
    ours = np.array(scorer.bert_scores(candidates, references))
    assert np.abs(ours[:, 2] - f.numpy()).max() < 1e-4
    assert np.abs(ours[:, 0] - p.numpy()).max() < 1e-4
    assert np.abs(ours[:, 1] - r.numpy()).max() < 1e-4
