"""The optimizer's metric follows DSPy's contract and measures agreement with the labels."""

from __future__ import annotations

import dspy
import pytest

from rageval_lc.judges.llm.optimize import agreement_score, trace_agreement_metric, trace_examples
from rageval_lc.schema import RagSample
from tests.metrics.test_trace import GUIDE_DOCS, GUIDE_LABELS, GUIDE_RESPONSE

SAMPLE = RagSample(
    id="guide",
    question="What makes ML different?",
    contexts=GUIDE_DOCS,
    response=GUIDE_RESPONSE,
    labels={**GUIDE_LABELS, "unsupported_response_sentence_keys": ["c"]},
)


def prediction(relevant: list[str]) -> dspy.Prediction:
    return dspy.Prediction(
        relevance_explanation="",
        all_relevant_sentence_keys=relevant,
        overall_supported_explanation="",
        overall_supported=False,
        sentence_support_information=GUIDE_LABELS["sentence_support_information"],
        all_utilized_sentence_keys=GUIDE_LABELS["all_utilized_sentence_keys"],
    )


def test_agreement_score_by_hand() -> None:
    gold = {"context_relevance": 0.5, "context_utilization": 0.5, "completeness": 1.0, "adherence": 0.0}
    assert agreement_score(gold, gold) == 1.0
    # differences 0.2, 0, 0.5, 1 -> mean 0.425
    off = {"context_relevance": 0.3, "context_utilization": 0.5, "completeness": 0.5, "adherence": 1.0}
    assert agreement_score(off, gold) == pytest.approx(0.575)
    assert agreement_score({}, gold) == 0.0


def test_metric_contract() -> None:
    example = trace_examples([SAMPLE])[0]
    assert set(example.inputs().keys()) == {"question", "documents", "response"}
    perfect = prediction(GUIDE_LABELS["all_relevant_sentence_keys"])
    assert trace_agreement_metric(example, perfect) == 1.0
    assert trace_agreement_metric(example, perfect, trace=[]) is True
    # one relevant key of four: relevance 1/6 instead of 4/6 (diff 0.5) and completeness 1.0 instead of 0.75
    partial = prediction(["0b"])
    assert trace_agreement_metric(example, partial) == pytest.approx(1 - (0.5 + 0.25) / 4)
    assert trace_agreement_metric(example, partial, trace=[]) is False
    graded = trace_agreement_metric(example, partial, None, "label", None)
    assert isinstance(graded, dspy.Prediction)
    assert graded.score == pytest.approx(0.8125)
    assert "context_relevance: predicted 0.166" in graded.feedback and "completeness" in graded.feedback
    assert trace_agreement_metric(example, dspy.Prediction(nothing=1)) == 0.0


def test_only_labelled_samples_train() -> None:
    with pytest.raises(ValueError, match="has no labels"):
        trace_examples([RagSample(id="x", question="Q?", contexts=["A."], response="A.")])
