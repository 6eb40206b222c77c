"""The offline judge's limits: unreadable contexts, oversized inputs, and memory bounded by bytes."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from rageval_lc.cli import main
from rageval_lc.judges.offline.encoder import CachedEncoder, Encoded, SentenceTransformerEncoder
from rageval_lc.judges.offline.judge import OfflineJudge
from rageval_lc.schema import RagSample
from rageval_lc.scoring.sample import evaluate_sample
from tests.judges.offline.test_judge import HashEncoder

TRACE = ("context_relevance", "context_utilization", "completeness", "adherence", "average", "adherence_ratio")
# a 300-character word (the tokenizer reads any word over 100 characters as [UNK]) and zero-width characters only
UNREADABLE = ["x" * 300, "\u200b\u200c\u200d\u2060\ufeff"]
QUESTION = "Where is the Eiffel Tower?"
RESPONSE = "The Eiffel Tower is in Paris."


@pytest.fixture(scope="module")
def judge() -> OfflineJudge:
    return OfflineJudge()


# --- item 14: a context with no word the model can read -------------------------------------------


@pytest.mark.parametrize("context", UNREADABLE, ids=["long-word", "zero-width"])
def test_context_without_a_readable_word_is_undetermined(judge: OfflineJudge, context: str) -> None:
    sample = RagSample(question=QUESTION, contexts=[context], response=RESPONSE)
    result = evaluate_sample(sample, "trace,faithfulness", judge=judge)
    for name in (*TRACE, "faithfulness"):
        assert result.results[name].status == "undetermined", name
        assert "no word the model can read" in result.results[name].reason
    # beside a readable context, the unreadable one is simply not evidence
    both = RagSample(question=QUESTION, contexts=[context, "The Eiffel Tower is in Paris, France."], response=RESPONSE)
    scored = evaluate_sample(both, "trace", judge=judge)
    assert scored.results["adherence"].status == "ok" and scored.results["adherence"].score == 1.0


def test_cli_scores_an_unreadable_context_as_undetermined(tmp_path: Path) -> None:
    rows = [
        {"id": "long-word", "question": QUESTION, "contexts": [UNREADABLE[0]], "response": RESPONSE},
        {"id": "zero-width", "question": QUESTION, "contexts": [UNREADABLE[1]], "response": RESPONSE},
        {"id": "fine", "question": QUESTION, "contexts": ["The Eiffel Tower is in Paris."], "response": RESPONSE},
    ]
    source, out = tmp_path / "rows.jsonl", tmp_path / "out.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    assert main(["evaluate", str(source), "--judge", "offline", "--out", str(out), "--no-progress"]) == 0
    written = {row["id"]: row for row in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    for name in ("long-word", "zero-width"):
        assert set(written[name]["status"].values()) == {"undetermined"}
        assert "no word the model can read" in written[name]["reason"]["adherence"]
    assert set(written["fine"]["status"].values()) == {"ok"}


# --- item 10: a size limit per judgement, caches bounded by bytes, streamed encoding -------------


def test_oversized_input_is_an_error_before_any_encoding() -> None:
    encoder = HashEncoder()
    judge = OfflineJudge(encoder=encoder)
    huge = "The tower is tall. " * 11_000  # 209,000 characters: over the 200,000 a judgement may read
    big = RagSample(id="big", question=QUESTION, contexts=[huge], response=RESPONSE)
    small = RagSample(id="small", question=QUESTION, contexts=["The Eiffel Tower is in Paris."], response=RESPONSE)
    judge.prepare([big, small])  # the batch pass leaves the oversized sample out
    assert huge not in judge.encoder and "The tower is tall." not in judge.encoder
    calls = encoder.calls
    result = evaluate_sample(big, "trace,faithfulness", judge=judge)
    assert encoder.calls == calls  # refused before any sentence is encoded
    for name in (*TRACE, "faithfulness"):
        assert result.results[name].status == "error", name
        reason = result.results[name].reason
        assert f"{len(QUESTION) + len(huge) + len(RESPONSE)} characters" in reason and "200000" in reason
    assert evaluate_sample(small, "trace", judge=judge).results["adherence"].status == "ok"
    judge.max_input_chars = 300_000  # the documented way to read longer inputs
    assert evaluate_sample(big, "trace", judge=judge).results["adherence"].status == "ok"


class _Pieces:
    """An encoder whose every text has ``tokens`` unit token vectors of DIM float32 (known sizes)."""

    def __init__(self, tokens: int, dim: int = 384) -> None:
        self.tokens, self.dim, self.calls = tokens, dim, 0

    def encode(self, texts: list[str]) -> list[Encoded]:
        self.calls += len(texts)
        vectors = np.full((self.tokens, self.dim), 1 / np.sqrt(self.dim), dtype=np.float32)
        return [Encoded(vectors[0].copy(), vectors.copy(), ("x",) * self.tokens) for _ in texts]


def test_cache_is_bounded_by_bytes_and_keeps_the_most_recent() -> None:
    base = _Pieces(tokens=100)  # 100 × 384 float32 = 153,600 bytes of token vectors per text
    cache = CachedEncoder(base, max_bytes=2_000_000)
    texts = [f"text {i}" for i in range(200)]  # 30 MB of token vectors in all
    for start in range(0, 200, 10):
        cache.encode(texts[start : start + 10])
    assert 0 < cache.nbytes <= 2_000_000
    assert len(cache) < 200
    base.calls = 0
    cache.encode(texts[-len(cache) :])  # the most recent are all still there
    assert base.calls == 0
    cache.encode(texts[:1])  # the oldest is gone
    assert base.calls == 1


def test_default_cache_bound_holds_a_run_of_any_length() -> None:
    base = _Pieces(tokens=1_000)  # 1.5 MB of token vectors per text
    cache = CachedEncoder(base)
    for start in range(0, 250, 10):  # 384 MB in all
        cache.encode([f"document {i}" for i in range(start, start + 10)])
    assert 0 < cache.nbytes <= cache.max_bytes <= 256 * 2**20


class _FakeTokenizer:
    all_special_ids: ClassVar[list[int]] = [0, 1]

    @staticmethod
    def convert_ids_to_tokens(ids: list[int]) -> list[str]:
        return [f"w{i}" for i in ids]


class _FakeSentenceTransformer:
    """Stands in for a loaded SentenceTransformer: records how many texts each forward pass gets."""

    tokenizer = _FakeTokenizer()
    device = "cpu"

    def __init__(self) -> None:
        self.call_sizes: list[int] = []

    def tokenize(self, texts: list[str]) -> dict[str, Any]:  # [CLS]=0, one id per word, [SEP]=1, padded with 0
        import torch

        ids = [[0, *(2 + len(w) for w in text.split()), 1] for text in texts]
        width = max(len(row) for row in ids)
        return {"input_ids": torch.tensor([row + [0] * (width - len(row)) for row in ids])}

    def __call__(self, features: dict[str, Any]) -> dict[str, Any]:
        import torch

        batch, width = features["input_ids"].shape
        self.call_sizes.append(batch)
        return {"token_embeddings": torch.ones(batch, width, 8), "sentence_embedding": torch.ones(batch, 8)}


def test_encoder_streams_long_lists_in_slices() -> None:
    model = _FakeSentenceTransformer()
    encoder = SentenceTransformerEncoder(model, batch_size=16)
    texts = [f"text number {i} " + "word " * (i % 7) for i in range(3_000)]
    encoded = encoder.encode(texts)
    assert len(encoded) == 3_000 and max(model.call_sizes) <= 16  # one batch at a time, never the whole list
    assert [len(e.pieces) for e in encoded] == [len(t.split()) for t in texts]  # in the caller's order
    model.call_sizes.clear()
    encoder.encode(["word " * 1_000] * 40)  # 1,000 word pieces each (512 after truncation): 8 per forward pass
    assert model.call_sizes == [8] * 5


HEAP_SCRIPT = """
import numpy as np
from rageval_lc.judges.offline.encoder import SentenceTransformerEncoder

SentenceTransformerEncoder(object()).model  # what the offline judge does when it loads its model

def rss_mb():
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS")) // 1024

big = np.ones(16 * 2**20 // 8)
del big  # a freed 16 MB block: glibc would raise its mmap threshold above it
base = rss_mb()
blocks, pins = [], []
for _ in range(60):
    blocks.append(np.ones(3 * 2**20 // 8))  # 3 MB, as one batch's activations
    pins.append(bytearray(20_000))  # small live data allocated after each
del blocks
print(rss_mb() - base)
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists() or platform.libc_ver()[0] != "glibc", reason="glibc")
def test_freed_model_activations_go_back_to_the_system() -> None:
    def retained_mb(**env: str) -> int:
        done = subprocess.run(
            [sys.executable, "-c", HEAP_SCRIPT], env={**os.environ, **env}, capture_output=True, text=True, check=True
        )
        return int(done.stdout.strip())

    assert retained_mb(RAGEVAL_KEEP_MALLOC="1") > 150  # glibc's default: 180 MB freed but kept (the bug)
    assert retained_mb() < 20  # after the judge loads its model: returned
