"""Judges pickle without their locks, caches and loaded models (to reach worker processes and Ray actors)."""

from __future__ import annotations

import pickle

from rageval_lc.engine.engine import make_resilient
from rageval_lc.judges.resilient import RateLimiter
from rageval_lc.schema import RagSample
from rageval_lc.scoring.sample import evaluate_sample
from tests.floats import assert_close_structure

SAMPLE = RagSample(
    question="How tall is Mount Everest?",
    contexts=["Mount Everest is 8,849 metres tall. It stands in the Himalayas."],
    response="Mount Everest is 6,120 metres tall.",
)


def test_a_used_offline_judge_travels_small_and_scores_the_same_after():
    judge = make_resilient(None, requests_per_minute=600, device="cpu")
    before = evaluate_sample(SAMPLE, ["trace", "faithfulness"], judge=judge)
    assert judge.judge.nli._loaded is not None and judge.judge.encoder.encoder._model is not None
    data = pickle.dumps(judge)
    assert len(data) < 200_000  # no model inside: the NLI model alone is ~90 MB
    copy = pickle.loads(data)
    assert copy.judge.nli._loaded is None and len(copy.judge.encoder) == 0
    after = evaluate_sample(SAMPLE, ["trace", "faithfulness"], judge=copy)
    assert_close_structure(after.scores(), before.scores())  # the models loaded again: floats within 1e-5


def test_a_rate_limiter_still_limits_after_travelling():
    limiter = pickle.loads(pickle.dumps(RateLimiter(2)))
    limiter.acquire()
    limiter.acquire()
    assert len(limiter._times) == 2 and limiter._lock.acquire(blocking=False)
