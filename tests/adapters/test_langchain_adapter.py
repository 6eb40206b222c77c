"""RagEvaluator: LangChain's string-evaluator convention and a Runnable whose runs are traced."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.runnables import RunnableLambda

from rageval_lc.adapters import FieldMap, RagEvaluator
from rageval_lc.judges.base import BaseJudge
from tests.fakes import bag_of_words_embeddings
from tests.floats import assert_close_structure
from tests.scoring.test_ragas_family import GUIDE_DOCS, GUIDE_RESPONSE, QUESTION, REFERENCE, fake_judge


class RunNames(BaseCallbackHandler):
    def __init__(self) -> None:
        self.started: list[str] = []
        self.ended = 0

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self.started.append(kwargs.get("name") or (serialized or {}).get("name", ""))

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        self.ended += 1


def evaluator(metric: str = "faithfulness", **kwargs: Any) -> tuple[RagEvaluator, Any]:
    judge, model = fake_judge()
    return RagEvaluator(metric, judge=judge, **kwargs), model


def test_evaluate_strings_gives_the_hand_worked_score() -> None:
    faithfulness, model = evaluator()
    out = faithfulness.evaluate_strings(prediction=GUIDE_RESPONSE, input=QUESTION, contexts=GUIDE_DOCS)
    assert out["score"] == pytest.approx(2 / 3)  # sentences a, b supported, c not (tests/scoring/test_ragas_family.py)
    assert (out["value"], out["status"]) == ("medium", "ok") and "2 of 3 claims supported" in out["reasoning"]
    assert out["details"]["judge_usage"]["calls"] == 1 and dict(model.calls) == {"trace_labels": 1}
    assert (faithfulness.evaluation_name, faithfulness.requires_input, faithfulness.requires_reference) == (
        "faithfulness",
        True,
        False,
    )


@pytest.mark.parametrize(
    ("score", "status", "value"),
    [
        (1.0, "ok", "high"),
        (0.8, "ok", "high"),
        (0.7999, "ok", "medium"),
        (0.5, "ok", "medium"),
        (0.4999, "ok", "low"),
        (0.0, "ok", "low"),
        (None, "undetermined", "undetermined"),
        (None, "error", "error"),
    ],
)
def test_value_is_the_verdict_in_words_and_the_status_stays_apart(score: float | None, status: str, value: str) -> None:
    from rageval_lc.adapters.common import MetricScorer
    from rageval_lc.adapters.langchain import evaluation_dict
    from rageval_lc.schema import MetricResult
    from rageval_lc.scoring.sample import SampleResult

    result = SampleResult(
        id=None, results={"faithfulness": MetricResult(name="faithfulness", score=score, status=status, reason="r")}
    )
    out = evaluation_dict(MetricScorer("faithfulness", judge="labels"), result)
    assert (out["score"], out["value"], out["status"], out["reasoning"]) == (score, value, status, "r")


def test_reference_metrics_and_labels() -> None:
    geval, _ = evaluator("factual_accuracy")
    assert geval.requires_reference
    out = geval.evaluate_strings(prediction=GUIDE_RESPONSE, reference=REFERENCE, input=QUESTION, contexts=GUIDE_DOCS)
    assert (out["score"], out["value"]) == (pytest.approx(0.78), "B")  # 0.5·80 + 0.3·60 + 0.2·100
    with pytest.raises(ValueError, match="requires a reference answer"):
        geval.evaluate_strings(prediction="x", input=QUESTION)
    with pytest.raises(ValueError, match="requires input"):
        geval.evaluate_strings(prediction="x", reference="y")


def test_trace_reports_its_average_and_every_score() -> None:
    trace, _ = evaluator("trace")
    documents = [Document(page_content=d, metadata={"source": i}) for i, d in enumerate(GUIDE_DOCS)]
    out = trace.evaluate_strings(prediction=GUIDE_RESPONSE, input=QUESTION, contexts=documents)
    # ragbench mode on the guide labels: (4/6 + 3/6 + 3/4 + 0) / 4
    assert out["score"] == pytest.approx((4 / 6 + 3 / 6 + 0.75 + 0.0) / 4)
    assert out["value"] == "low"  # 0.479 < 0.5
    assert out["scores"]["completeness"] == 0.75


def test_async_evaluate_strings() -> None:
    faithfulness, _ = evaluator()
    out = asyncio.run(faithfulness.aevaluate_strings(prediction=GUIDE_RESPONSE, input=QUESTION, contexts=GUIDE_DOCS))
    assert out["score"] == pytest.approx(2 / 3)


def test_runnable_invoke_batch_and_async_are_traced() -> None:
    faithfulness, _ = evaluator()
    row = {"question": QUESTION, "contexts": GUIDE_DOCS, "response": GUIDE_RESPONSE}
    names = RunNames()
    out = faithfulness.invoke(row, config={"callbacks": [names]})
    assert out["score"] == pytest.approx(2 / 3)
    assert names.started == ["rageval:faithfulness"] and names.ended == 1
    assert [o["score"] for o in faithfulness.batch([row, row])] == [pytest.approx(2 / 3)] * 2
    assert asyncio.run(faithfulness.ainvoke(row))["score"] == pytest.approx(2 / 3)
    assert len(asyncio.run(faithfulness.abatch([row, row, row]))) == 3


def test_runnable_in_a_chain_propagates_callbacks() -> None:
    faithfulness, _ = evaluator()
    rag = RunnableLambda(lambda q: {"question": q, "contexts": GUIDE_DOCS, "answer": GUIDE_RESPONSE}, name="rag")
    names = RunNames()
    out = (rag | faithfulness).invoke(QUESTION, config={"callbacks": [names]})
    assert out["score"] == pytest.approx(2 / 3)
    assert "rag" in names.started and "rageval:faithfulness" in names.started


def test_runnable_reference_and_field_map() -> None:
    recall, _ = evaluator("context_recall")
    row = {"question": QUESTION, "contexts": GUIDE_DOCS, "answer": GUIDE_RESPONSE, "ground_truth": REFERENCE}
    assert recall.invoke(row)["score"] == 0.5  # 1 of 2 reference statements attributed
    assert recall.invoke({**row, "ground_truth": None})["status"] == "undetermined"
    mapped, _ = evaluator("faithfulness", fields=FieldMap(question="q", contexts="passages", response="a"))
    assert mapped.invoke({"q": QUESTION, "passages": GUIDE_DOCS, "a": GUIDE_RESPONSE})["score"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match=r"No question found: tried \['q'\]"):
        mapped.invoke({"question": QUESTION})
    with pytest.raises(TypeError, match="expects a dict"):
        mapped.invoke("just a string")  # type: ignore[arg-type]


def test_a_judge_failure_is_an_error_result_not_an_exception() -> None:
    class Broken(BaseJudge):
        name, supports = "broken", frozenset({"trace_labels"})

        def planned_calls(self, judgement: str) -> int:
            return 1

        def trace_labels(self, sample: Any) -> Any:
            from rageval_lc.verdicts import Judgement

            return Judgement(name="trace_labels", status="error", reason="ConnectionError: judge down")

    out = RagEvaluator("faithfulness", judge=Broken()).evaluate_strings(prediction="A.", input="Q?", contexts=["A."])
    assert (out["score"], out["status"], out["reasoning"]) == (None, "error", "ConnectionError: judge down")
    assert out["value"] == "error"


# --- missing evidence: undetermined, never a silent 0.0 --------------------------------------------


NO_CONTEXTS = "No retrieved contexts were given."


@pytest.mark.parametrize("contexts", [None, [], ["", "  "]])
def test_without_contexts_a_context_metric_is_undetermined(contexts: Any) -> None:
    faithfulness, model = evaluator()
    out = faithfulness.evaluate_strings(prediction=GUIDE_RESPONSE, input=QUESTION, contexts=contexts)
    assert (out["score"], out["status"], out["value"], out["reasoning"]) == (
        None,
        "undetermined",
        "undetermined",
        NO_CONTEXTS,
    )
    out = asyncio.run(faithfulness.aevaluate_strings(prediction=GUIDE_RESPONSE, input=QUESTION, contexts=contexts))
    assert (out["score"], out["status"]) == (None, "undetermined")
    row = {"question": QUESTION, "response": GUIDE_RESPONSE, **({} if contexts is None else {"contexts": contexts})}
    out = faithfulness.invoke(row)
    assert (out["score"], out["status"], out["reasoning"]) == (None, "undetermined", NO_CONTEXTS)
    assert sum(model.calls.values()) == 0  # no judge call for a score that cannot be determined


def test_without_contexts_the_other_scores_are_still_computed() -> None:
    trace, _ = evaluator("trace")
    out = trace.evaluate_strings(prediction=GUIDE_RESPONSE, input=QUESTION)
    assert set(out["scores"].values()) == {None}
    assert {r["status"] for r in out["results"].values()} == {"undetermined"}
    relevance, _ = evaluator("answer_relevance", embeddings=bag_of_words_embeddings())
    out = relevance.evaluate_strings(prediction=GUIDE_RESPONSE, input=QUESTION)
    assert (out["status"], out["score"]) == ("ok", pytest.approx(1.0))  # generated questions = the question
    assert out["value"] == "high"
    composite, _ = evaluator("ragas_score", embeddings=bag_of_words_embeddings())
    out = composite.invoke({"question": QUESTION, "contexts": [], "response": GUIDE_RESPONSE, "reference": REFERENCE})
    assert (out["status"], out["score"]) == ("ok", pytest.approx(1.0))  # answer relevance alone, renormalised
    assert "left out (weights renormalised): faithfulness, context_precision, context_recall" in out["reasoning"]


def test_without_contexts_the_default_judge_gives_undetermined() -> None:
    out = RagEvaluator("faithfulness").evaluate_strings(prediction="Paris is in France.", input="Where is Paris?")
    assert (out["score"], out["status"], out["reasoning"]) == (None, "undetermined", NO_CONTEXTS)
    out = RagEvaluator("context_precision").invoke({"question": "Where is Paris?", "response": "In France."})
    assert out["scores"] == {"context_precision": None, "context_precision_at_k": None}


def test_aevaluate_strings_takes_the_same_arguments_as_evaluate_strings() -> None:
    evaluator = RagEvaluator("answer_classification")
    args = {"prediction": "I don't know.", "reference": "Paris", "input": "Capital of France?", "contexts": None}
    assert_close_structure(asyncio.run(evaluator.aevaluate_strings(**args)), evaluator.evaluate_strings(**args))
    assert asyncio.run(evaluator.aevaluate_strings(**args))["value"] == "DON'T KNOW"
    with pytest.raises(ValueError, match="requires a reference answer"):
        asyncio.run(evaluator.aevaluate_strings(prediction="Paris.", input="Capital of France?"))
