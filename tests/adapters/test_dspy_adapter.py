"""DSPy metric functions: float, bool while bootstrapping, Prediction with feedback; inside dspy.Evaluate."""

from __future__ import annotations

import warnings

import dspy
import pytest
from dspy.utils import DummyLM

from rageval_lc.adapters import dspy_metric
from tests.fakes import bag_of_words_embeddings
from tests.scoring.test_ragas_family import GUIDE_DOCS, GUIDE_RESPONSE, QUESTION, REFERENCE, fake_judge

EXAMPLE = dspy.Example(question=QUESTION, contexts=GUIDE_DOCS, answer=REFERENCE).with_inputs("question", "contexts")
PREDICTION = dspy.Prediction(answer=GUIDE_RESPONSE)


def test_the_three_return_shapes() -> None:
    judge, _ = fake_judge()
    metric = dspy_metric("faithfulness", judge=judge, threshold=0.6)
    assert metric(EXAMPLE, PREDICTION) == pytest.approx(2 / 3)  # contexts taken from the example
    assert metric(EXAMPLE, PREDICTION, trace=[]) is True  # 2/3 ≥ 0.6 while bootstrapping
    assert dspy_metric("faithfulness", judge=judge, threshold=0.7)(EXAMPLE, PREDICTION, trace=[]) is False
    with_feedback = metric(EXAMPLE, PREDICTION, None, "generate", None)
    assert isinstance(with_feedback, dspy.Prediction)
    assert with_feedback.score == pytest.approx(2 / 3) and "unsupported" in with_feedback.feedback


def test_score_choice_reference_and_undetermined() -> None:
    judge, _ = fake_judge()
    assert dspy_metric("trace", judge=judge, score="completeness")(EXAMPLE, PREDICTION) == 0.75
    assert dspy_metric("context_recall", judge=judge)(EXAMPLE, PREDICTION) == 0.5  # reference = example.answer
    no_reference = dspy.Example(question=QUESTION, contexts=GUIDE_DOCS)
    metric = dspy_metric("context_recall", judge=judge, feedback=True, undetermined_score=-1.0)
    out = metric(no_reference, PREDICTION)
    assert out.score == -1.0 and out.feedback.startswith("context_recall undetermined: Needs a reference")
    with pytest.raises(ValueError, match="has no score 'recall'"):
        dspy_metric("trace", judge=judge, score="recall")


def test_as_the_metric_of_dspy_evaluate() -> None:
    class Rag(dspy.Module):
        def __init__(self) -> None:
            super().__init__()
            self.answer = dspy.Predict("question, contexts -> answer")

        def forward(self, question: str, contexts: list[str]) -> dspy.Prediction:
            return self.answer(question=question, contexts=contexts)

    judge, model = fake_judge()
    program_lm = DummyLM([{"answer": GUIDE_RESPONSE}] * 3)
    with dspy.context(lm=program_lm):
        evaluate = dspy.Evaluate(devset=[EXAMPLE] * 3, metric=dspy_metric("faithfulness", judge=judge), num_threads=1)
        result = evaluate(Rag())
    assert result.score == pytest.approx(100 * 2 / 3, abs=0.01)
    assert model.calls["trace_labels"] == 3  # the judge's LM is its own, not the program's


def test_without_contexts_the_metric_is_undetermined_and_says_why() -> None:
    judge, model = fake_judge()
    bare = dspy.Example(question=QUESTION, answer=REFERENCE)  # no contexts in the example or the prediction
    metric = dspy_metric("faithfulness", judge=judge)
    why = "faithfulness undetermined: No retrieved contexts were given."
    with pytest.warns(RuntimeWarning, match=f"{why} The DSPy metric returns undetermined_score=0.0, which is not"):
        assert metric(bare, PREDICTION) == 0.0
    with pytest.warns(RuntimeWarning, match=why):
        assert metric(bare, PREDICTION, trace=[]) is False
    out = metric(bare, PREDICTION, None, "generate", None)
    assert (out.score, out.feedback) == (0.0, why)
    # the prediction's own empty contexts are what it retrieved: undetermined, not the example's
    chosen = dspy_metric("faithfulness", judge=judge, undetermined_score=-1.0, feedback=True)
    assert chosen(EXAMPLE, dspy.Prediction(answer=GUIDE_RESPONSE, contexts=[])).score == -1.0
    assert sum(model.calls.values()) == 0  # no judge call for a score that cannot be determined
    relevance = dspy_metric("answer_relevance", judge=judge, embeddings=bag_of_words_embeddings())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a determined score: no warning
        assert relevance(bare, PREDICTION) == pytest.approx(1.0)


def test_without_contexts_the_default_judge_gives_undetermined() -> None:
    metric = dspy_metric("trace")
    with pytest.warns(RuntimeWarning, match="average undetermined: No retrieved contexts were given."):
        assert metric(dspy.Example(question=QUESTION), PREDICTION) == 0.0
    out = dspy_metric("context_precision")(dspy.Example(question=QUESTION), PREDICTION, None, "generate", None)
    assert out.feedback == "context_precision undetermined: No retrieved contexts were given."
