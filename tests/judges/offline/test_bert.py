"""The packaged models' forward pass (numpy on the CPU, rageval_lc/judges/offline/bert_numpy.py; plain torch,
rageval_lc/judges/offline/bert.py) against transformers and sentence-transformers: the same word pieces exactly,
the same vectors and NLI probabilities within ABS, and the first score of the README's example without importing
transformers, sentence-transformers or peft."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from rageval_lc.judges.offline.bert import BertForward, SentenceModel, read_config
from rageval_lc.judges.offline.bert_numpy import NumpyBert
from rageval_lc.judges.offline.encoder import SentenceTransformerEncoder, default_model_path
from rageval_lc.judges.offline.nli import NliModel
from tests.floats import ABS

TEXTS = [
    "When was the Eiffel Tower finished?",
    "The Eiffel Tower is in Paris. It was finished in 1889.",
    "Mount Everest is 8,849 metres tall; K2 is 8,611 m.",
    "Café naïve résumé — 東京 😀 ＡＢＣ ﬁne ÅNGSTRÖM",
    "",
    "   ",
    "  spaces \n\t around  ",
    "a [SEP] b [PAD] c",
    "word " * 600,  # past both limits: 256 word pieces for the vectors, 512 for BERTScore
    "Antidisestablishmentarianism and pneumonoultramicroscopicsilicovolcanoconiosis.",
]
PAIRS = [
    ("Mount Everest is 8,849 metres tall.", "Mount Everest is 6,120 metres tall."),
    ("A man is playing a guitar on stage.", "A person plays an instrument."),
    ("The Eiffel Tower is in Paris. It was finished in 1889.", "It was finished in 1999."),
    ("premise " * 200, "hypothesis " * 120),  # both cut, the longer first, to 160 word pieces
    ("", "Nothing to read."),
    ("Café 東京 😀", ""),
]


@pytest.fixture(scope="module")
def encoders() -> tuple[SentenceTransformerEncoder, SentenceTransformerEncoder]:
    """The packaged model in our forward pass (numpy here, on the CPU), and the same folder through
    sentence-transformers."""
    ours = SentenceTransformerEncoder(device="cpu")
    reference = SentenceTransformerEncoder(str(default_model_path()), device="cpu")
    assert isinstance(ours.model, SentenceModel) and type(reference.model).__name__ == "SentenceTransformer"
    return ours, reference


def test_the_packaged_encoder_gives_sentence_transformers_vectors(encoders) -> None:
    ours, reference = encoders
    got, expected = ours.encode(TEXTS), reference.encode(TEXTS)
    for a, b in zip(got, expected, strict=True):
        assert a.pieces == b.pieces
        np.testing.assert_allclose(a.sentence, b.sentence, atol=ABS)
        np.testing.assert_allclose(a.tokens, b.tokens, atol=ABS)
    assert ours.model.get_embedding_dimension() == reference.model.get_embedding_dimension() == 384


def test_word_pieces_and_bertscore_vectors_match(encoders) -> None:
    ours, reference = encoders
    for word in ["Antidisestablishmentarianism", "Paris", "8,849", "naïve", "東京"]:
        assert ours.model.tokenizer.tokenize(word) == reference.model.tokenizer.tokenize(word)
    got, expected = ours.wordpiece_embeddings(TEXTS), reference.wordpiece_embeddings(TEXTS)
    for (vectors, weights), (their_vectors, their_weights) in zip(got, expected, strict=True):
        assert weights.tolist() == their_weights.tolist()
        np.testing.assert_allclose(vectors, their_vectors, atol=ABS)


@pytest.mark.parametrize("runtime", ["numpy", "torch"])
def test_the_nli_model_gives_the_merged_peft_models_probabilities(runtime: str) -> None:
    ours = NliModel(device="cpu", precision="float32", runtime=runtime)
    reference = NliModel(device="cpu", precision="float32", runtime="torch")
    reference._loaded = reference._load_with_transformers()  # transformers' model, merged by peft on load
    forward = {"numpy": NumpyBert, "torch": BertForward}[runtime]
    assert isinstance(ours._load()[1], forward) and not isinstance(reference._loaded[1], (BertForward, NumpyBert))
    np.testing.assert_allclose(ours.predict(PAIRS), reference.predict(PAIRS), atol=ABS)


def test_weights_of_another_shape_are_refused() -> None:
    config = read_config(default_model_path())
    assert config is not None and config.num_hidden_layers == 6
    with pytest.raises(ValueError, match="Not the weights of this BERT"):
        BertForward({"embeddings.word_embeddings.weight": np.zeros(1)}, config)


FIRST_SCORE = """
import json, sys
from rageval_lc.adapters import RagEvaluator
out = RagEvaluator("faithfulness").evaluate_strings(
    prediction="It was finished in 1889.", input="When was the Eiffel Tower finished?",
    contexts=["The Eiffel Tower is in Paris. It was finished in 1889.", "Bananas are yellow."],
)
heavy = ("transformers", "sentence_transformers", "peft", "sklearn", "scipy", "dspy", "litellm", "pandas")
print(json.dumps({"score": out["score"], "heavy": sorted(m for m in heavy if m in sys.modules)}))
"""


def test_a_first_score_imports_no_model_library_once_the_merge_is_kept() -> None:
    NliModel(device="cpu").predict([("warm", "up")])  # the merged NLI model is in RAGEVAL_CACHE_DIR (conftest)
    done = subprocess.run([sys.executable, "-c", FIRST_SCORE], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.splitlines()[-1]) == {"score": 1.0, "heavy": []}


def test_threads_share_the_word_pieces(encoders) -> None:
    """One tokenizer per model and process, its truncation set per call under a lock: threads tokenising at
    several lengths at once get what one thread gets (unlocked, a tokenizer changed under a reader raises
    "Already borrowed")."""
    from concurrent.futures import ThreadPoolExecutor

    pieces = encoders[0].model.tokenizer
    assert pieces is NliModel(device="cpu")._load()[0]  # the sentence model's and the NLI model's
    jobs = [(TEXTS, length) for length in (8, 16, 256, 512) for _ in range(8)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda job: pieces.batch(job[0], max_length=job[1]), jobs))
        words = list(pool.map(pieces.tokenize, TEXTS * 4))
    assert got == [pieces.batch(texts, max_length=length) for texts, length in jobs]
    assert max(len(row) for row in got[0][0]) == 8
    assert words == [pieces.tokenize(text) for text in TEXTS * 4] and len(words[8]) == 600  # never truncated
