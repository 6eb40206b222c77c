"""Every integration wraps its judge as ``rageval_lc.evaluate`` does: a transient failure is retried."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import dspy
import pytest
from langchain_core.runnables import RunnableLambda

from rageval_lc.adapters import RagEvalCallbackHandler, RagEvaluator, dspy_metric, langsmith_evaluator
from rageval_lc.judges.base import BaseJudge
from rageval_lc.judges.factory import resolve_judge
from rageval_lc.judges.offline.devices import gpu_hardware_present
from rageval_lc.judges.offline.judge import OfflineJudge
from rageval_lc.judges.resilient import ResilientJudge
from rageval_lc.verdicts import AnswerLabel, Judgement


class FlakyJudge(BaseJudge):
    """Says CORRECT, after failing the first ``failures`` calls with a dropped connection."""

    name = "flaky"
    supports = frozenset({"classify_answer"})

    def __init__(self, failures: int = 1, *, raises: bool = False) -> None:
        self.failures = failures
        self.raises = raises
        self.calls = 0

    def classify_answer(self, question: str, answer: str, reference: str) -> Judgement[AnswerLabel]:
        self.calls += 1
        if self.calls <= self.failures:
            if self.raises:
                raise ConnectionError("connection reset by peer")
            return Judgement(name="classify_answer", status="error", reason="ConnectionError: connection reset")
        return Judgement(name="classify_answer", value=AnswerLabel(label="CORRECT", reason="Same city."))


ROOT = Path(__file__).resolve().parents[2]

FAST = {"retries": 1, "backoff_s": 0.0, "scoring_mode": "separate"}


@pytest.mark.parametrize("raises", [False, True])
def test_rag_evaluator_retries_a_transient_failure(raises: bool) -> None:
    judge = FlakyJudge(raises=raises)
    evaluator = RagEvaluator("answer_classification", judge=judge, **FAST)
    out = evaluator.evaluate_strings(prediction="Paris.", reference="Paris", input="Capital of France?")
    assert (out["score"], out["value"], out["status"], judge.calls) == (1.0, "CORRECT", "ok", 2)


def test_without_retries_the_transient_failure_is_an_error_result() -> None:
    judge = FlakyJudge()
    evaluator = RagEvaluator("answer_classification", judge=judge, retries=0, scoring_mode="separate")
    out = evaluator.evaluate_strings(prediction="Paris.", reference="Paris", input="Capital of France?")
    assert (out["score"], out["status"], judge.calls) == (None, "error", 1)
    assert "ConnectionError: connection reset" in out["reasoning"]


def test_callback_handler_retries_a_transient_failure() -> None:
    judge = FlakyJudge()
    handler = RagEvalCallbackHandler(["answer_classification"], judge=judge, background=False, **FAST)
    chain = RunnableLambda(lambda question: "Paris.")
    chain.invoke("Capital of France?", config={"callbacks": [handler], "metadata": {"reference": "Paris"}})
    (result,) = handler.results.values()
    assert (result.scores()["answer_classification"], judge.calls) == (1.0, 2)


def test_langsmith_evaluator_and_dspy_metric_retry_a_transient_failure() -> None:
    judge = FlakyJudge()
    evaluate = langsmith_evaluator("answer_classification", judge=judge, **FAST)
    out = evaluate({"question": "Capital of France?"}, {"answer": "Paris."}, {"answer": "Paris"})
    assert (out["score"], out["comment"], judge.calls) == (1.0, "Same city.", 2)
    judge = FlakyJudge()
    metric = dspy_metric("answer_classification", judge=judge, **FAST)
    assert metric(dspy.Example(question="Capital of France?", answer="Paris"), dspy.Prediction(answer="Paris.")) == 1.0
    assert judge.calls == 2


def test_default_judge_is_the_offline_judge_wrapped() -> None:
    evaluator = RagEvaluator("faithfulness", requests_per_minute=600, timeout_s=30)
    judge = evaluator.scorer.judge
    assert isinstance(judge, ResilientJudge) and isinstance(judge.judge, OfflineJudge)
    assert (judge.limiter.per_minute, judge.timeout_s, judge.retries) == (600, 30, 3)
    handler = RagEvalCallbackHandler(["faithfulness"], background=False, cache_dir=None)
    assert isinstance(handler.judge, ResilientJudge) and isinstance(handler.judge.judge, OfflineJudge)


# --- issue 44, item 12: constructing builds nothing a first score does not need at once --------------------------

#: In a fresh process: every integration built on the default judge, then one score.
CONSTRUCT_THEN_SCORE = """
import sys
from rageval_lc.adapters import RagEvalCallbackHandler, RagEvaluator, dspy_metric, langsmith_evaluator
evaluator = RagEvaluator("faithfulness")
dspy_metric("faithfulness"), langsmith_evaluator("faithfulness"), RagEvalCallbackHandler(["faithfulness"]).close()
print("built:", sorted(m for m in ("torch", "rageval_lc.judges.offline.judge") if m in sys.modules))
out = evaluator.evaluate_strings(
    prediction="It was finished in 1889.", input="When was the Eiffel Tower finished?",
    contexts=["The Eiffel Tower is in Paris. It was finished in 1889."],
)
print("scored:", out["score"], "torch" in sys.modules)
"""


def test_constructing_on_the_offline_judge_imports_no_torch() -> None:
    """The offline judge (torch imported to find the device, the judge's modules) is built at the first score, not
    when the evaluator, metric or handler is constructed: construction took 1.3-1.9 s, nearly all of it ``import
    torch``."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", CONSTRUCT_THEN_SCORE]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    built, scored = done.stdout.splitlines()[-2:]
    assert built == "built: []"
    # the README's example (the sentence is the passage's own), scored in numpy: torch only where a GPU may run it
    assert scored == f"scored: 1.0 {gpu_hardware_present()}"


def test_the_deferred_judge_is_the_offline_judge_and_bad_options_are_refused_at_once() -> None:
    evaluator = RagEvaluator("faithfulness", requests_per_minute=600)
    assert evaluator.scorer.judge.judge is resolve_judge(None)  # built on first use: the process's offline judge
    assert evaluator.scorer.judge is evaluator.scorer.judge  # once
    with pytest.raises(ValueError, match="Unknown device 'tpu'"):
        RagEvaluator("faithfulness", device="tpu")
    with pytest.raises(ValueError, match="requests per minute must be > 0"):
        dspy_metric("faithfulness", requests_per_minute=-1)
    with pytest.raises(ValueError, match="Unknown device 'tpu'"):
        RagEvalCallbackHandler(["faithfulness"], device="tpu")
