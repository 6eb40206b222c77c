"""The batch engine: concurrency, transient failures, timeouts, rate limits, the disk cache, a fuzz of
malformed judge output, and kill -9 then --resume."""

from __future__ import annotations

import json
import math
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import PrivateAttr

from rageval_lc.cli import main
from rageval_lc.engine.engine import evaluate
from rageval_lc.judges.base import BaseJudge
from rageval_lc.judges.labels import LabelsJudge
from rageval_lc.judges.llm.dspy_judge import DspyJudge
from rageval_lc.judges.resilient import JudgeCache, RateLimiter, ResilientJudge
from rageval_lc.schema import RagSample
from rageval_lc.verdicts import Judgement
from tests.fakes import JudgementChatModel, ProbabilityLabelsJudge
from tests.scoring.test_ragas_family import LLM_SUITE

LABELS = {
    "all_relevant_sentence_keys": ["0a"],
    "all_utilized_sentence_keys": ["0a"],
    "sentence_support_information": [
        {"response_sentence_key": "a", "supporting_sentence_keys": ["0a"], "fully_supported": True},
        {"response_sentence_key": "b", "supporting_sentence_keys": [], "fully_supported": False},
    ],
}


def samples(n: int) -> list[RagSample]:
    return [
        RagSample(
            id=f"s{i}",
            question=f"What do cats do? ({i})",
            contexts=["Cats sleep a lot. Dogs bark."],
            response="Cats sleep a lot. They fly.",
            labels=LABELS,
        )
        for i in range(n)
    ]


class FlakyJudge(BaseJudge):
    """The labels judge behind a network that fails a share of calls with timeouts and 429s."""

    name = "flaky"
    supports = frozenset({"trace_labels"})

    def __init__(self, failure_rate: float, seed: int = 7) -> None:
        self.inner = LabelsJudge()
        self.random = random.Random(seed)
        self.failure_rate = failure_rate
        self.calls = 0
        self.lock = threading.Lock()

    def planned_calls(self, judgement: str) -> int:
        return 1

    def trace_labels(self, sample: RagSample) -> Judgement:
        with self.lock:
            self.calls += 1
            roll = self.random.random()
        if roll < self.failure_rate / 2:
            raise TimeoutError("read timed out")
        if roll < self.failure_rate:
            reason = "The judge model could not be called: RateLimitError: 429 Too Many Requests"
            return Judgement(name="trace_labels", status="error", reason=reason)
        return self.inner.trace_labels(sample)


def test_concurrent_results_come_back_in_input_order() -> None:
    sequential = evaluate(samples(20), "trace", judge="labels", concurrency=1)
    concurrent = evaluate(samples(20), "trace", judge="labels", concurrency=8)
    assert [r.id for r in concurrent.results] == [f"s{i}" for i in range(20)]
    assert [r.scores() for r in concurrent.results] == [r.scores() for r in sequential.results]
    # hand-worked: 1 of 2 document sentences relevant and used, b unsupported
    assert concurrent.summary("context_relevance").mean == 0.5
    assert concurrent.summary("adherence").mean == 0.0


def test_samples_without_contexts_are_undetermined_not_failed() -> None:
    rows = [*samples(2), RagSample(id="bare", question="What do cats do?", contexts=[], response="Cats sleep.")]
    run = evaluate(rows, "trace,faithfulness", judge=FlakyJudge(0.0), concurrency=2)
    assert run.failed == 0
    bare = run.results[2].results
    assert {(r.status, r.score, r.reason) for r in bare.values()} == {
        ("undetermined", None, "No retrieved contexts were given.")
    }
    summary = run.summary("faithfulness")
    assert (summary.mean, summary.ok, summary.undetermined, summary.error) == (0.5, 2, 1, 0)  # left out, counted


def test_a_score_given_beside_another_is_counted_on_every_row_as_that_score() -> None:
    # adherence_probability is given only where adherence is ok: elsewhere it takes adherence's status
    ordinary = samples(3)
    for sample, probability in zip(ordinary, (0.9, 0.6, 0.3), strict=True):
        sample.metadata["probability"] = probability
    bare = RagSample(id="bare", question="What do cats do?", contexts=[], response="Cats sleep.")
    unlabelled = [s.model_copy(update={"labels": None, "id": f"u{i}"}) for i, s in enumerate(samples(2))]
    run = evaluate([*ordinary, bare, *unlabelled], "trace", judge=ProbabilityLabelsJudge(), retries=0)
    assert (run.failed, run.undetermined) == (2, 1)
    counts = {s.name: (s.ok, s.undetermined, s.error) for s in run.summaries}
    assert counts["adherence_probability"] == counts["adherence"] == (3, 1, 2)
    assert set(counts.values()) == {(3, 1, 2)}
    assert run.summary("adherence_probability").mean == pytest.approx(0.6)  # (0.9 + 0.6 + 0.3) / 3


def test_thirty_percent_transient_failures_lose_nothing() -> None:
    flaky = FlakyJudge(0.3)
    judge = ResilientJudge(flaky, retries=4, backoff_s=0.0, sleep=lambda s: None)
    run = evaluate(samples(200), "trace", judge=judge, concurrency=8)
    assert len(run.results) == 200 and [r.id for r in run.results] == [f"s{i}" for i in range(200)]
    statuses = {r.results["adherence"].status for r in run.results}
    assert statuses <= {"ok", "error"}
    for result in run.results:
        if result.results["adherence"].status == "error":
            assert "429" in result.results["adherence"].reason or "timed out" in result.results["adherence"].reason
    assert run.summary("adherence").ok >= 195  # 0.3^5 ≈ 0.24% of rows fail all five attempts
    assert flaky.calls > 200  # the failures were retried
    # without retries about 30% end as errors, with the reason, and none is lost
    bare = evaluate(samples(200), "trace", judge=ResilientJudge(FlakyJudge(0.3, seed=3), retries=0), concurrency=8)
    errors = bare.summary("adherence").error
    assert len(bare.results) == 200 and 40 <= errors <= 80
    assert bare.summary("adherence").ok + errors == 200


def test_a_hung_call_times_out_and_is_retried() -> None:
    class Slow(FlakyJudge):
        def trace_labels(self, sample: RagSample) -> Judgement:
            with self.lock:
                self.calls += 1
            time.sleep(1.0)
            return self.inner.trace_labels(sample)

    slow = Slow(0.0)
    judge = ResilientJudge(slow, timeout_s=0.05, retries=1, backoff_s=0.0)
    run = evaluate(samples(1), "trace", judge=judge, concurrency=1)
    outcome = run.results[0].results["adherence"]
    assert outcome.status == "error" and "timed out after 0.05 s" in outcome.reason
    assert slow.calls == 2


def test_rate_limiter_keeps_to_the_budget() -> None:
    now = [0.0]
    slept: list[float] = []
    limiter = RateLimiter(3, clock=lambda: now[0])

    def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    import rageval_lc.judges.resilient as resilience

    original = resilience.time.sleep
    resilience.time.sleep = fake_sleep  # type: ignore[assignment]
    try:
        for _ in range(4):
            limiter.acquire()
    finally:
        resilience.time.sleep = original  # type: ignore[assignment]
    assert slept == [60.0]  # the 4th call waits until the 1st leaves the 60-second window
    with pytest.raises(ValueError, match="> 0"):
        RateLimiter(0)


def test_the_disk_cache_spares_the_second_run(tmp_path: Path) -> None:
    first = FlakyJudge(0.0)
    one = evaluate(samples(5), "trace", judge=ResilientJudge(first, cache=tmp_path), concurrency=2)
    second = FlakyJudge(0.0)
    two = evaluate(samples(5), "trace", judge=ResilientJudge(second, cache=JudgeCache(tmp_path)), concurrency=2)
    assert (first.calls, second.calls) == (5, 0)
    assert [r.scores() for r in two.results] == [r.scores() for r in one.results]
    changed = samples(1)[0].model_copy(update={"response": "Dogs bark."})
    third = FlakyJudge(0.0)
    ResilientJudge(third, cache=tmp_path).trace_labels(changed)
    assert third.calls == 1  # another sample is another key


GARBAGE_PIECES = [
    "",
    "null",
    "I cannot comply.",
    '{"all_relevant_sentence_keys": ["0a", ',
    "[[ ## all_relevant_sentence_keys ## ]]\n{'0a': NaN}",
    "[[ ## correctness ## ]]\nNaN\n\n[[ ## completeness ## ]]\ninf",
    "[[ ## questions ## ]]\n" + "?" * 5000,
    '[[ ## statements ## ]]\n[{"statement": 42, "attributed": "maybe"}]',
    '[[ ## sentence_support_information ## ]]\n[{"response_sentence_key": "zz"}]',
    "[[ ## classification ## ]]\nPERHAPS",
    "\x00\x01\x02 binary",
    "[[ ## completed ## ]]",
]


class GarbageModel(JudgementChatModel):
    """Every call answers a random mix of malformed pieces (seeded) and counts itself."""

    _rng: random.Random = PrivateAttr(default_factory=lambda: random.Random(11))
    _guard: Any = PrivateAttr(default_factory=threading.Lock)

    def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        from langchain_core.messages import AIMessage
        from langchain_core.outputs import ChatGeneration, ChatResult

        with self._guard:
            reply = "\n\n".join(self._rng.choice(GARBAGE_PIECES) for _ in range(self._rng.randint(1, 4)))
            self.calls["garbage"] += 1
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])


def test_fuzz_a_thousand_malformed_judge_outputs() -> None:
    model = GarbageModel(answers={})
    judge = DspyJudge(model, max_retries=1)
    batch = [s.model_copy(update={"reference": "Cats sleep."}) for s in samples(200)]
    run = evaluate(batch, LLM_SUITE, judge=judge, concurrency=4, retries=0)
    assert model.calls["garbage"] >= 1000
    assert len(run.results) == 200
    for result in run.results:
        for outcome in result.results.values():
            assert outcome.status in {"ok", "undetermined", "error"}
            assert outcome.score is None or (math.isfinite(outcome.score) and 0.0 <= outcome.score <= 1.0)
            assert outcome.status == "ok" or outcome.reason
    for summary in run.summaries:
        assert summary.mean is None or math.isfinite(summary.mean)
        assert summary.ok + summary.undetermined + summary.error == 200


def test_kill_dash_nine_then_resume_scores_every_row_exactly_once(ragbench_files: list[Path], tmp_path: Path) -> None:
    rows = [line for path in ragbench_files for line in path.read_text(encoding="utf-8").splitlines()][:1500]
    source = tmp_path / "rows.jsonl"
    source.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    command = [sys.executable, "-m", "rageval_lc.cli", "evaluate", str(source), "--judge", "labels"]
    command += ["--out", str(out), "--no-progress", "--concurrency", "4"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and (not out.exists() or out.read_text(encoding="utf-8").count("\n") < 100):
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    written = out.read_text(encoding="utf-8").count("\n")
    assert 100 <= written < 1500, written  # killed mid-run
    assert main(["evaluate", str(source), "--judge", "labels", "--out", str(out), "--resume", "--no-progress"]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    resumed = [json.loads(line) for line in lines]
    assert sorted(r["line"] for r in resumed) == list(range(1, 1501))  # every input row exactly once
    full = tmp_path / "full.jsonl"
    assert main(["evaluate", str(source), "--judge", "labels", "--out", str(full), "--no-progress"]) == 0
    expected = {r["line"]: r["scores"] for r in map(json.loads, full.read_text(encoding="utf-8").splitlines())}
    assert {r["line"]: r["scores"] for r in resumed} == expected
