"""DSPy metric functions: float, bool while bootstrapping, Prediction with feedback; inside dspy.Evaluate."""

from __future__ import annotations

import warnings

import dspy
import pytest
from dspy.utils import DummyLM

from rageval_lc.adapters import RagEvaluator, dspy_metric
from tests.fakes import bag_of_words_embeddings
from tests.floats import ABS
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
    with pytest.raises(ValueError, match="found no contexts"):  # none found at the first call: an error
        metric(bare, PREDICTION)
    retrieved_nothing = dspy.Prediction(answer=GUIDE_RESPONSE, contexts=[])  # contexts found, and empty
    with pytest.warns(RuntimeWarning, match=why):
        assert metric(bare, retrieved_nothing) == 0.0
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
    retrieved_nothing = dspy.Prediction(answer=GUIDE_RESPONSE, contexts=[])
    with pytest.warns(RuntimeWarning, match="average undetermined: No retrieved contexts were given."):
        assert metric(dspy.Example(question=QUESTION), retrieved_nothing) == 0.0
    out = dspy_metric("context_precision")(dspy.Example(question=QUESTION), retrieved_nothing, None, "generate", None)
    assert out.feedback == "context_precision undetermined: No retrieved contexts were given."


# --- issue 44, item 1: the program shape of DSPy's RAG tutorial ----------------------------------------------

#: The tutorial's ``search(question).passages``: each question's passages, told apart by what they hold.
PASSAGES = {
    "When was the Eiffel Tower finished?": ["The Eiffel Tower is in Paris. It was finished in 1889."],
    "In which city is the Eiffel Tower?": ["The Eiffel Tower is in Paris.", "Bananas are yellow."],
}
#: What the program's LM answers (DummyLM keys: the questions, neither a substring of the other).
ANSWERS = {
    "When was the Eiffel Tower finished?": "It was finished in 1889.",
    "In which city is the Eiffel Tower?": "The Eiffel Tower is in Rome.",
}


class TutorialRAG(dspy.Module):
    """DSPy's RAG tutorial program: it retrieves ``context`` and returns only its predictor's Prediction
    (``reasoning``, ``response``): the contexts are in neither the Prediction nor the Example."""

    def __init__(self) -> None:
        super().__init__()
        self.respond = dspy.ChainOfThought("context, question -> response")

    def forward(self, question: str) -> dspy.Prediction:
        context = PASSAGES[question]
        return self.respond(context=context, question=question)


def tutorial_lm() -> DummyLM:
    return DummyLM({q: {"reasoning": "From the context.", "response": a} for q, a in ANSWERS.items()})


def tutorial_examples() -> list[dspy.Example]:
    return [dspy.Example(question=q, response="(a gold answer)").with_inputs("question") for q in PASSAGES]


def faithfulness_with_the_passages_given() -> list[float]:
    """The offline judge's faithfulness of each answer with its passages passed explicitly (another adapter)."""
    evaluator = RagEvaluator("faithfulness")
    scores = [
        evaluator.evaluate_strings(prediction=ANSWERS[q], input=q, contexts=PASSAGES[q])["score"] for q in PASSAGES
    ]
    assert scores[0] >= 0.5 > scores[1]  # the answers were chosen so: 1889 is said, Rome is not
    return scores


def test_the_tutorial_program_through_dspy_evaluate_is_scored_on_the_contexts_it_used() -> None:
    expected = faithfulness_with_the_passages_given()
    metric = dspy_metric("faithfulness")  # the offline judge
    with dspy.context(lm=tutorial_lm()), warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no "undetermined" stand-in score
        result = dspy.Evaluate(devset=tutorial_examples(), metric=metric, num_threads=2)(TutorialRAG())
    scores = [score for _, _, score in result.results]
    assert scores == pytest.approx(expected, abs=ABS)
    assert result.score == pytest.approx(100 * sum(expected) / len(expected), abs=0.01)  # DSPy rounds to 2 places


def test_the_tutorial_program_compiles_with_bootstrap_few_shot() -> None:
    faithfulness_with_the_passages_given()  # the first answer passes the threshold, the second does not
    optimizer = dspy.BootstrapFewShot(
        metric=dspy_metric("faithfulness", threshold=0.5), max_bootstrapped_demos=2, max_labeled_demos=0
    )
    with dspy.context(lm=tutorial_lm()):
        compiled = optimizer.compile(TutorialRAG(), trainset=tutorial_examples())
    (demo,) = compiled.respond.predict.demos  # the faithful answer's trace, kept as a demonstration
    question = "When was the Eiffel Tower finished?"
    assert (demo.question, demo.context, demo.response) == (question, PASSAGES[question], ANSWERS[question])


def test_a_program_whose_contexts_cannot_be_found_fails_at_the_first_call(caplog: pytest.LogCaptureFixture) -> None:
    class Rewrapped(TutorialRAG):  # a new Prediction: neither it nor the example holds the contexts
        def forward(self, question: str) -> dspy.Prediction:
            return dspy.Prediction(response=super().forward(question).response)

    judge, model = fake_judge()
    metric = dspy_metric("faithfulness", judge=judge)
    with dspy.context(lm=tutorial_lm()):
        prediction = Rewrapped()(question="When was the Eiffel Tower finished?")
    with pytest.raises(ValueError, match=r"found no contexts.*Return them in the prediction") as raised:
        metric(tutorial_examples()[0], prediction)
    assert "prediction (keys ['response'])" in str(raised.value) and "FieldMap(contexts=" in str(raised.value)
    with dspy.context(lm=tutorial_lm()), caplog.at_level("ERROR"):
        result = dspy.Evaluate(devset=tutorial_examples(), metric=metric, num_threads=1)(Rewrapped())
    assert result.score == 0.0 and sum("found no contexts" in r.getMessage() for r in caplog.records) == 2
    assert sum(model.calls.values()) == 0
    # once contexts were found, an example without any is undetermined (the program may retrieve nothing for it)
    assert metric(EXAMPLE, PREDICTION) == pytest.approx(2 / 3, abs=ABS)
    with pytest.warns(RuntimeWarning, match="faithfulness undetermined: No retrieved contexts were given."):
        assert metric(tutorial_examples()[0], prediction) == 0.0
