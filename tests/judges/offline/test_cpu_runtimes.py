"""The CPU runtimes (onnxruntime, rageval_lc/judges/offline/bert_onnx.py; numpy, bert_numpy.py) against the torch
forward pass they replace on the CPU, on every sentence and (evidence, claim) pair of the shipped benchmark sets: the
same word pieces, sentence and word-piece vectors within COSINE and VECTOR_ABS, NLI probabilities within
PROBABILITY_ABS; and the adapter merged in numpy (rageval_lc/judges/offline/lora.py) against peft's merge."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rageval_lc.judges.offline.bert_numpy import NumpyBert
from rageval_lc.judges.offline.bert_onnx import OnnxBert
from rageval_lc.judges.offline.encoder import SentenceTransformerEncoder
from rageval_lc.judges.offline.merged_nli import merge_adapter, merge_adapter_with_peft
from rageval_lc.judges.offline.nli import NliModel, shipped_adapter_path
from rageval_lc.text import split_sentences

DATA = Path(__file__).resolve().parents[3] / "benchmarks" / "data"
#: Stated tolerances. Every runtime computes in float32 and they differ only in the order of sums (and numpy's erf,
#: within 5e-7). Measured here (2,218 texts, 830 pairs, the adapter of 2026-11-28) against torch: vectors 4.6e-7
#: (onnx) and 5.3e-7 (numpy) apart at most (cosine >= 0.9999997), probabilities 3.2e-6 and 3.9e-6.
COSINE = 0.9999
VECTOR_ABS = 1e-4
PROBABILITY_ABS = 1e-4
EDGE_TEXTS = [
    "",
    "   ",
    "Café naïve résumé — 東京 😀 ＡＢＣ ﬁne ÅNGSTRÖM",
    "a [SEP] b [PAD] c",
    "word " * 600,  # past the 256 word pieces of the vectors and the 512 of BERTScore
]


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def shipped_texts() -> list[str]:
    """Every question, passage, answer and their sentences in the shipped benchmark sets."""
    texts: list[str] = []
    for name in ("contradiction_pairs.jsonl", "realistic_rag_answers.jsonl", "contradiction_rag_cases.jsonl"):
        for row in _rows(name):
            passages = row.get("contexts") or [row["context"]]
            for text in (row["question"], *passages, row["response"]):
                texts += [text, *split_sentences(text)]
    return list(dict.fromkeys(texts))


def shipped_pairs() -> list[tuple[str, str]]:
    """(evidence, claim) pairs: each passage with its answer, and with each of the answer's sentences."""
    pairs: list[tuple[str, str]] = []
    for name in ("contradiction_pairs.jsonl", "realistic_rag_answers.jsonl"):
        for row in _rows(name):
            for passage in row.get("contexts") or [row["context"]]:
                pairs += [(passage, row["response"]), *((passage, s) for s in split_sentences(row["response"]))]
    return list(dict.fromkeys(pairs))


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    return np.where(norms == 0, 1.0, (a * b).sum(axis=-1) / np.where(norms == 0, 1.0, norms))


FORWARD = {"onnx": OnnxBert, "numpy": NumpyBert}


@pytest.fixture(scope="module")
def torch_encoder() -> SentenceTransformerEncoder:
    return SentenceTransformerEncoder(device="cpu", runtime="torch")


@pytest.fixture(scope="module", params=["onnx", "numpy"])
def encoders(request, torch_encoder) -> tuple[SentenceTransformerEncoder, SentenceTransformerEncoder]:
    encoder = SentenceTransformerEncoder(device="cpu", runtime=request.param)
    assert isinstance(encoder.model.bert, FORWARD[request.param])
    assert not isinstance(torch_encoder.model.bert, (OnnxBert, NumpyBert))
    return encoder, torch_encoder


def test_sentence_and_word_piece_vectors_match_torch(encoders) -> None:
    texts = shipped_texts() + EDGE_TEXTS
    assert len(texts) > 1000
    got, expected = (encoder.encode(texts) for encoder in encoders)
    worst = {"sentence cosine": 1.0, "token cosine": 1.0, "abs": 0.0}
    for a, b in zip(got, expected, strict=True):
        assert a.pieces == b.pieces
        worst["sentence cosine"] = min(worst["sentence cosine"], float(_cosines(a.sentence, b.sentence)))
        if len(a.tokens):
            worst["token cosine"] = min(worst["token cosine"], float(_cosines(a.tokens, b.tokens).min()))
        worst["abs"] = max(
            worst["abs"],
            float(np.abs(a.sentence - b.sentence).max()),
            float(np.abs(a.tokens - b.tokens).max(initial=0)),
        )
    print(f"\n{len(texts)} texts: {worst}")
    assert worst["sentence cosine"] >= COSINE and worst["token cosine"] >= COSINE and worst["abs"] <= VECTOR_ABS


def test_bertscore_vectors_match_torch(encoders) -> None:
    texts = shipped_texts()[:100] + EDGE_TEXTS
    got, expected = (encoder.wordpiece_embeddings(texts) for encoder in encoders)
    for (vectors, weights), (their_vectors, their_weights) in zip(got, expected, strict=True):
        assert weights.tolist() == their_weights.tolist()
        assert np.abs(vectors - their_vectors).max() <= VECTOR_ABS


@pytest.mark.parametrize("runtime", ["onnx", "numpy"])
def test_nli_probabilities_match_torch(runtime) -> None:
    pairs = shipped_pairs()
    assert len(pairs) > 400
    model = NliModel(device="cpu", runtime=runtime)
    torch_model = NliModel(device="cpu", precision="float32", runtime="torch")
    assert model.runtime == runtime and torch_model.runtime == "torch"
    got, expected = model.predict(pairs), torch_model.predict(pairs)
    worst = float(np.abs(got - expected).max())
    print(f"\n{len(pairs)} pairs: max |{runtime} - torch| = {worst:.2e}")
    assert worst <= PROBABILITY_ABS
    assert got.dtype == np.float32 and np.allclose(got.sum(axis=1), 1.0, atol=1e-5)
    assert (got.argmax(axis=1) == expected.argmax(axis=1)).mean() > 0.99  # an argmax may flip only on a near tie


def test_the_numpy_merge_is_peft_merge() -> None:
    ours, peft = merge_adapter(shipped_adapter_path()), merge_adapter_with_peft(shipped_adapter_path())
    assert set(ours) == set(peft)
    worst = max(float(np.abs(ours[name] - peft[name]).max()) for name in ours)
    assert worst <= 1e-6, worst


def test_the_cpu_runtimes_run_only_on_the_cpu_in_float32(monkeypatch) -> None:
    monkeypatch.delenv("RAGEVAL_RUNTIME", raising=False)
    with pytest.raises(ValueError, match="numpy runtime runs on the CPU in float32"):
        NliModel(device="cpu", precision="bfloat16", runtime="numpy")
    with pytest.raises(ValueError, match="onnx runtime runs on the CPU in float32"):
        NliModel(device="cpu", precision="float16", runtime="onnx")
    assert NliModel(device="cpu").runtime == "onnx"  # onnxruntime is a dependency: auto's choice on the CPU
    assert SentenceTransformerEncoder(device="cpu").model.runtime == "onnx"
    with pytest.raises(ValueError, match="Unknown runtime 'jax'"):
        SentenceTransformerEncoder(device="cpu", runtime="jax")
    assert NliModel(device="cpu", precision="bfloat16").runtime == "torch"  # autocast is torch's


def test_one_thread_runs_a_second_session_with_the_same_outputs() -> None:
    from rageval_lc.judges.offline.bert_onnx import one_thread

    encoder = SentenceTransformerEncoder(device="cpu", runtime="onnx")
    texts = shipped_texts()[:40]
    usual = encoder.encode(texts)
    with one_thread():
        alone = encoder.encode(texts)
    assert set(encoder.model.bert._sessions) == {"default", "one"}  # the one-thread session, made on first use
    for a, b in zip(usual, alone, strict=True):
        assert a.pieces == b.pieces and np.abs(a.sentence - b.sentence).max() <= VECTOR_ABS
