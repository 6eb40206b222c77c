"""Every integration wraps its judge as ``rageval_lc.evaluate`` does: a transient failure is retried."""

from __future__ import annotations

import dspy
import pytest
from langchain_core.runnables import RunnableLambda

from rageval_lc.adapters import RagEvalCallbackHandler, RagEvaluator, dspy_metric, langsmith_evaluator
from rageval_lc.judges.base import BaseJudge
from rageval_lc.judges.offline.judge import LocalJudge
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
    assert isinstance(judge, ResilientJudge) and isinstance(judge.judge, LocalJudge)
    assert (judge.limiter.per_minute, judge.timeout_s, judge.retries) == (600, 30, 3)
    handler = RagEvalCallbackHandler(["faithfulness"], background=False, cache_dir=None)
    assert isinstance(handler.judge, ResilientJudge) and isinstance(handler.judge.judge, LocalJudge)
