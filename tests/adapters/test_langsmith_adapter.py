"""LangSmith evaluator functions, called through langsmith's own evaluator wrapper in both forms."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import pytest

from rageval_lc.adapters import FieldMap, langsmith_evaluator
from tests.test_ragas_family import GUIDE_DOCS, GUIDE_RESPONSE, QUESTION, REFERENCE, fake_judge

schemas = pytest.importorskip("langsmith.schemas", reason="langsmith is not installed")
evaluator_module = pytest.importorskip("langsmith.evaluation.evaluator")


def run_and_example() -> tuple[object, object]:
    run_id = uuid.uuid4()
    run = schemas.Run(
        id=run_id,
        name="rag",
        start_time=datetime.now(timezone.utc),
        run_type="chain",
        inputs={"question": QUESTION},
        outputs={"answer": GUIDE_RESPONSE, "documents": [{"page_content": d, "metadata": {}} for d in GUIDE_DOCS]},
        trace_id=run_id,
    )
    example = schemas.Example(
        id=uuid.uuid4(),
        dataset_id=uuid.uuid4(),
        inputs={"question": QUESTION},
        outputs={"answer": REFERENCE},
        created_at=datetime.now(timezone.utc),
    )
    return run, example


@pytest.mark.parametrize("form", ["outputs", "run"])
def test_single_score_through_langsmith(form: str) -> None:
    judge, _ = fake_judge()
    function = langsmith_evaluator("context_recall", judge=judge, form=form)
    assert function.__name__ == "rageval_context_recall"
    wrapped = evaluator_module.run_evaluator(function)
    run, example = run_and_example()
    result = wrapped.evaluate_run(run, example)
    assert (result.key, result.score) == ("context_recall", 0.5)  # 1 of 2 reference statements attributed
    assert "1 of 2 reference statements" in result.comment


def test_trace_returns_four_results() -> None:
    judge, _ = fake_judge()
    wrapped = evaluator_module.run_evaluator(langsmith_evaluator("trace", judge=judge))
    run, example = run_and_example()
    results = wrapped.evaluate_run(run, example)["results"]
    assert [r.key for r in results] == ["context_relevance", "context_utilization", "completeness", "adherence"]
    assert [r.score for r in results] == [pytest.approx(4 / 6), pytest.approx(3 / 6), 0.75, 0.0]


def test_undetermined_scores_are_none_with_the_reason() -> None:
    judge, _ = fake_judge()
    function = langsmith_evaluator("factual_accuracy", judge=judge)
    out = function({"question": QUESTION}, {"answer": GUIDE_RESPONSE, "contexts": GUIDE_DOCS}, {})
    assert out == {
        "key": "factual_accuracy",
        "score": None,
        "comment": "undetermined: Needs a reference answer; the sample has none.",
    }


def test_field_mapping_and_errors() -> None:
    judge, _ = fake_judge()
    fields = FieldMap(contexts=lambda outputs: [d["text"] for d in outputs.get("hits", [])], response="reply.text")
    function = langsmith_evaluator("faithfulness", judge=judge, fields=fields)
    outputs = {"reply": {"text": GUIDE_RESPONSE}, "hits": [{"text": d} for d in GUIDE_DOCS]}
    assert function({"question": QUESTION}, outputs)["score"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="No answer found"):
        function({"question": QUESTION}, {"something": "else"})
    with pytest.raises(ValueError, match="form must be"):
        langsmith_evaluator("faithfulness", judge=judge, form="pairwise")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Unknown metric"):
        langsmith_evaluator("bleu")
