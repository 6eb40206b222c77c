"""The data model: samples, labels and their cleaning, metric results."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from rageval_lc.schema import MetricResult, RagSample, TraceLabels
from rageval_lc.text import KeyedSentences

GOOD = {"question": "Where is Paris?", "contexts": ["Paris is in France."], "response": "In France."}


@pytest.mark.parametrize(
    ("change", "error", "pattern"),
    [
        ({"question": ""}, ValueError, r"'question' field of RagSample must be a non-empty string"),
        ({"question": "   "}, ValueError, r"'question' field of RagSample must be a non-empty string"),
        ({"question": None}, ValueError, r"requires the 'question' field"),
        ({"question": 5}, TypeError, r"'question' field of RagSample must be a str. Got int"),
        ({"contexts": None}, ValueError, r"requires the 'contexts' field"),
        ({"contexts": "Paris is in France."}, TypeError, r"'contexts' field of RagSample must be a list"),
        ({"contexts": [3]}, TypeError, r"Item 0 is int"),
        ({"response": 42}, TypeError, r"'response' field of RagSample must be a str. Got int \(42\)"),
        ({"response": ["a"]}, TypeError, r"'response' field of RagSample must be a str. Got list"),
        ({"reference": 1.5}, TypeError, r"'reference' field of RagSample must be a str"),
        ({"labels": ["0a"]}, TypeError, r"'labels' field of TraceLabels.from_mapping must be a mapping"),
        ({"labels": "0a"}, TypeError, r"'labels' field .* must be a mapping"),
    ],
)
def test_bad_sample_input_names_the_field(change: dict, error: type, pattern: str) -> None:
    with pytest.raises(error, match=pattern):
        RagSample(**{**GOOD, **change})


def test_missing_field_is_named() -> None:
    with pytest.raises(ValueError, match=r"requires the 'response' field\. Got nothing"):
        RagSample(question="Q?", contexts=["A."])


def test_contexts_accept_documents_and_mappings() -> None:
    from langchain_core.documents import Document

    sample = RagSample(
        question="Q?",
        contexts=[Document(page_content="A.", metadata={"source": "s1"}), {"text": "B."}, "C."],
        response="A.",
    )
    assert sample.contexts == ["A.", "B.", "C."]
    assert sample.context_metadata == [{"source": "s1"}, {}, {}]


def test_empty_contexts_and_empty_response_are_representable() -> None:
    sample = RagSample(question="Q?", contexts=[], response="")
    assert sample.sentences.num_document_sentences == 0
    assert sample.sentences.response_keys == ()


def test_id_is_coerced_and_sentences_are_cached() -> None:
    sample = RagSample(**GOOD, id=17)
    assert sample.id == "17"
    assert sample.sentences is sample.sentences
    assert sample.sentences.document_keys == ("0a",)


def test_keyed_sentences_must_match_contexts() -> None:
    keyed = KeyedSentences.from_pairs([[["0a", "A."]], [["1a", "B."]]], [["a", "A."]])
    with pytest.raises(ValueError, match="one entry per context: got 2 for 1 context"):
        RagSample(**GOOD, keyed_sentences=keyed)


def test_labels_are_coerced_tolerantly() -> None:
    labels = TraceLabels.from_mapping(
        {
            "all_relevant_sentence_keys": "0a, 0b",
            "all_utilized_sentence_keys": None,
            "relevance_explanation": None,
            "sentence_support_information": [
                {
                    "response_sentence_key": "a.",
                    "supporting_sentence_keys": None,
                    "fully_supported": None,
                    "explanation": None,
                    "extra": 1,
                },
            ],
            "unknown_field": "ignored",
        }
    )
    assert labels.all_relevant_sentence_keys == ["0a", "0b"]
    assert labels.all_utilized_sentence_keys == []
    assert labels.unsupported_response_sentence_keys is None
    assert labels.sentence_support_information[0].supporting_sentence_keys == []
    assert labels.sentence_support_information[0].explanation == ""
    assert not labels.released


@pytest.mark.parametrize(
    ("data", "pattern"),
    [
        ([], r"'labels' field of TraceLabels.from_mapping must be a mapping"),
        ({"sentence_support_information": {"a": 1}}, r"must be a list of objects"),
        ({"all_relevant_sentence_keys": 5}, r"list of sentence keys was expected"),
    ],
)
def test_bad_labels_raise_type_error(data: object, pattern: str) -> None:
    with pytest.raises(TypeError, match=pattern):
        TraceLabels.from_mapping(data)


def test_cleaning_drops_and_reports_unknown_keys() -> None:
    keyed = KeyedSentences.from_texts(["A cat sat. It slept.", "Dogs bark."], "The cat slept. Dogs bark loudly.")
    labels = TraceLabels.from_mapping(
        {
            "all_relevant_sentence_keys": ["0a.", "0b", "0B", "2a", "x"],
            "all_utilized_sentence_keys": ["1a", "0z"],
            "sentence_support_information": [
                {
                    "response_sentence_key": "a.",
                    "supporting_sentence_keys": ["0b", "general", "9z"],
                    "fully_supported": True,
                },
                {"response_sentence_key": "a", "supporting_sentence_keys": [], "fully_supported": False},
                {"response_sentence_key": "q", "supporting_sentence_keys": [], "fully_supported": False},
            ],
            "unsupported_response_sentence_keys": ["b.", "z"],
        }
    )
    clean, report = labels.cleaned(keyed)
    assert clean.all_relevant_sentence_keys == ["0a", "0b"]
    assert clean.all_utilized_sentence_keys == ["1a"]
    assert [e.response_sentence_key for e in clean.sentence_support_information] == ["a"]
    assert clean.sentence_support_information[0].supporting_sentence_keys == ["0b", "general"]
    assert clean.unsupported_response_sentence_keys == ["b"]
    assert report.dropped == {
        "all_relevant_sentence_keys": ["2a", "x"],
        "all_utilized_sentence_keys": ["0z"],
        "supporting_sentence_keys": ["9z"],
        "sentence_support_information": ["q"],
        "unsupported_response_sentence_keys": ["z"],
    }
    assert report.duplicates == 2  # "0B" after "0b", and the second entry for "a"
    assert report.normalized == 4  # "0a.", "0B", "a.", "b."
    assert not report.clean


def test_metric_result_consistency() -> None:
    assert MetricResult(name="m", score=0.0).status == "ok"
    with pytest.raises(ValidationError, match="needs a score in \\[0, 1\\]"):
        MetricResult(name="m", score=1.5)
    with pytest.raises(ValidationError, match="needs a score"):
        MetricResult(name="m", score=math.nan)
    with pytest.raises(ValidationError, match="needs a score"):
        MetricResult(name="m")
    with pytest.raises(ValidationError, match="carries no score"):
        MetricResult(name="m", score=0.5, status="undetermined")
    with pytest.raises(ValidationError):
        MetricResult(name="m", score=0.5, status="maybe")


def test_metric_result_comment_and_feedback_views() -> None:
    ok = MetricResult(name="faithfulness", score=0.5, reason="1 of 2 claims supported.")
    assert ok.comment == "1 of 2 claims supported."
    assert ok.feedback() == {"key": "faithfulness", "score": 0.5, "comment": "1 of 2 claims supported."}
    assert ok.feedback("rageval_faithfulness")["key"] == "rageval_faithfulness"
    undetermined = MetricResult(name="context_recall", status="undetermined", reason="Needs a reference.")
    assert undetermined.comment == "undetermined: Needs a reference."
    assert undetermined.feedback() == {
        "key": "context_recall",
        "score": None,
        "comment": "undetermined: Needs a reference.",
    }
    failed = MetricResult(name="adherence", status="error", reason="ConnectionError: reset")
    assert failed.comment == "error: ConnectionError: reset"
    assert "comment" not in failed.model_dump()  # a view, not a field: rows and JSON stay as they were


def test_label_validators_coerce_alike_in_both_models() -> None:
    support = TraceLabels.from_mapping(
        {
            "relevance_explanation": None,
            "all_relevant_sentence_keys": "0a, 0b",
            "sentence_support_information": [
                {"response_sentence_key": 1, "explanation": None, "supporting_sentence_keys": "0a 0b"}
            ],
        }
    )
    entry = support.sentence_support_information[0]
    assert (entry.response_sentence_key, entry.explanation, entry.supporting_sentence_keys) == ("1", "", ["0a", "0b"])
    assert (support.relevance_explanation, support.all_relevant_sentence_keys) == ("", ["0a", "0b"])
