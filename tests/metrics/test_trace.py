"""TRACe maths: the reference documents' worked examples, edge cases and properties."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rageval_lc.metrics.trace import TRACE_METRICS, trace_scores
from rageval_lc.schema import TraceLabels
from rageval_lc.text import KeyedSentences, document_key, sentence_letters


def support(key: str, keys: list[str], full: bool | None) -> dict:
    return {"response_sentence_key": key, "supporting_sentence_keys": keys, "fully_supported": full}


# --- reference/trace_gpt_labeling_metrics.txt, "Complete Example: Full Calculation" -----------------
LABELING_DOCS = [
    "Machine learning is a subset of AI. It learns patterns from data. Algorithms improve through experience.",
    "Deep learning uses neural networks. It's popular in computer vision.",
    "Supervised learning needs labeled data. Unsupervised learning finds patterns.",
]
LABELING_RESPONSE = (
    "Machine learning is a field of AI that learns from data. Deep learning uses neural networks. "
    "It's powerful for image recognition."
)
LABELING_LABELS = {
    "all_relevant_sentence_keys": ["0a", "0b", "1a", "1b"],
    "all_utilized_sentence_keys": ["0a", "0b", "1a", "1b"],
    "sentence_support_information": [
        support("a", ["0a", "0b"], True),
        support("b", ["1a"], True),
        support("c", ["1b"], False),
    ],
}

# --- reference/trace_visual_guide.txt, "Complete Example Walkthrough" -------------------------------
GUIDE_DOCS = [
    "Machine learning is a subset of AI. It learns patterns from data. "
    "Traditional programming requires explicit instructions.",
    "ML algorithms improve through experience. They adapt to new data. "
    "Rule-based systems are rigid and hard to maintain.",
]
GUIDE_RESPONSE = (
    "Machine learning differs because it learns from data rather than requiring explicit instructions. "
    "ML algorithms improve over time. It's the future of all computing."
)
GUIDE_LABELS = {
    "all_relevant_sentence_keys": ["0b", "0c", "1a", "1b"],
    "all_utilized_sentence_keys": ["0b", "0c", "1a"],
    "sentence_support_information": [
        support("a", ["0b", "0c"], True),
        support("b", ["1a"], True),
        support("c", [], False),
    ],
}


def test_splitter_reproduces_the_references_sentencization() -> None:
    keyed = KeyedSentences.from_texts(LABELING_DOCS, LABELING_RESPONSE)
    assert keyed.documents[0] == (
        ("0a", "Machine learning is a subset of AI."),
        ("0b", "It learns patterns from data."),
        ("0c", "Algorithms improve through experience."),
    )
    assert keyed.document_keys == ("0a", "0b", "0c", "1a", "1b", "2a", "2b")
    assert keyed.response[2] == ("c", "It's powerful for image recognition.")
    guide = KeyedSentences.from_texts(GUIDE_DOCS, GUIDE_RESPONSE)
    assert guide.sentence("1c") == "Rule-based systems are rigid and hard to maintain."
    assert guide.response_keys == ("a", "b", "c")


def test_labeling_document_full_example_capstone() -> None:
    keyed = KeyedSentences.from_texts(LABELING_DOCS, LABELING_RESPONSE)
    s = trace_scores(TraceLabels.from_mapping(LABELING_LABELS), keyed, mode="capstone")
    # The document: R = 4/20 = 0.20, U = 4/4 = 1.0, C = 4/4 = 1.0, A = 0.0, average 0.55.
    assert (s.context_relevance, s.context_utilization, s.completeness, s.adherence) == (0.2, 1.0, 1.0, 0.0)
    assert s.average == pytest.approx(0.55)
    assert (s.fully_supported_sentences, s.partially_supported_sentences, s.unsupported_sentences) == (2, 1, 0)
    assert s.adherence_ratio == pytest.approx(2 / 3)


def test_labeling_document_full_example_ragbench() -> None:
    keyed = KeyedSentences.from_texts(LABELING_DOCS, LABELING_RESPONSE)
    s = trace_scores(TraceLabels.from_mapping(LABELING_LABELS), keyed)
    # Hand computation: N = 7 document sentences; 4 relevant, 4 utilized; c is not fully supported.
    assert s.context_relevance == 4 / 7
    assert s.context_utilization == 4 / 7
    assert s.completeness == 1.0
    assert s.adherence == 0.0
    assert s.details["unsupported_response_keys"] == ["c"]


def test_labeling_document_step3_example_capstone() -> None:
    keyed = KeyedSentences.from_texts(
        ["Machine learning is AI. It learns from data.", "Neural networks are models. They mimic brains."],
        "Machine learning uses neural networks. They learn patterns.",
    )
    labels = TraceLabels.from_mapping(
        {
            "all_relevant_sentence_keys": ["0a", "0b", "1a"],
            "all_utilized_sentence_keys": ["0a", "1a", "1b"],
            "overall_supported": True,
            "sentence_support_information": [support("a", ["0a", "1a"], True), support("b", ["1b"], False)],
        }
    )
    s = trace_scores(labels, keyed, mode="capstone")
    # The document: 3/20 = 0.15, 3/3 = 1.0, 2/3 = 0.67, 0.0.
    assert s.context_relevance == pytest.approx(0.15)
    assert s.context_utilization == 1.0
    assert s.completeness == pytest.approx(2 / 3)
    assert s.adherence == 0.0
    assert s.overall_supported is True  # as the judge stated, even though adherence is 0
    r = trace_scores(labels, keyed)
    assert (r.context_relevance, r.context_utilization, r.completeness) == (0.75, 0.75, pytest.approx(2 / 3))


def test_visual_guide_walkthrough_capstone() -> None:
    keyed = KeyedSentences.from_texts(GUIDE_DOCS, GUIDE_RESPONSE)
    s = trace_scores(TraceLabels.from_mapping(GUIDE_LABELS), keyed, mode="capstone")
    assert (s.context_relevance, s.context_utilization, s.completeness, s.adherence) == (0.2, 0.75, 0.75, 0.0)
    assert s.average == pytest.approx(0.425)
    # The guide prints 0.437, which its own formula does not give (SPEC §3.4): sqrt(0.110625) = 0.3326.
    assert s.rmse_aggregation == pytest.approx(math.sqrt(0.110625))
    assert s.rmse_aggregation == pytest.approx(0.333, abs=5e-4)  # the guide's three decimals


def test_visual_guide_simplified_example_capstone() -> None:
    keyed = KeyedSentences.from_texts(
        ["ML is AI. It learns from data. Algorithms improve through time."],
        "ML is AI. Deep learning uses networks. It is powerful.",
    )
    labels = TraceLabels.from_mapping(
        {
            "all_relevant_sentence_keys": ["0a", "0b"],
            "all_utilized_sentence_keys": ["0a", "0b"],
            "sentence_support_information": [support("a", [], True), support("b", [], True), support("c", [], False)],
        }
    )
    s = trace_scores(labels, keyed, mode="capstone")
    assert (s.context_relevance, s.context_utilization, s.completeness, s.adherence) == (0.1, 1.0, 1.0, 0.0)


def test_to_dict_has_the_reference_json_fields_plus_extras() -> None:
    keyed = KeyedSentences.from_texts(GUIDE_DOCS, GUIDE_RESPONSE)
    out = trace_scores(TraceLabels.from_mapping(GUIDE_LABELS), keyed, mode="capstone").to_dict()
    reference_fields = [
        "context_relevance",
        "context_utilization",
        "completeness",
        "adherence",
        "average",
        "rmse_aggregation",
        "overall_supported",
        "fully_supported_sentences",
        "partially_supported_sentences",
        "unsupported_sentences",
    ]
    assert list(out)[: len(reference_fields)] == reference_fields
    assert out["adherence_ratio"] == pytest.approx(2 / 3)
    assert out["overall_supported"] is False
    assert (out["fully_supported_sentences"], out["partially_supported_sentences"], out["unsupported_sentences"]) == (
        2,
        0,
        1,
    )


# --- edge cases -----------------------------------------------------------------------------------


def test_contexts_without_sentences_leave_relevance_undetermined() -> None:
    keyed = KeyedSentences.from_texts(["", "   "], "Yes.")
    s = trace_scores(TraceLabels.from_mapping({"unsupported_response_sentence_keys": []}), keyed)
    assert s.context_relevance is None and s.context_utilization is None
    assert s.reasons["context_relevance"] == "The contexts contain no sentences."
    assert s.completeness == 1.0
    assert s.adherence == 1.0
    assert s.average is None and s.rmse_aggregation is None
    assert "context_relevance, context_utilization" in s.reasons["average"]
    results = s.results()
    assert results["context_relevance"].status == "undetermined"
    assert results["adherence"].status == "ok"


def test_empty_relevant_list() -> None:
    keyed = KeyedSentences.from_texts(["Alpha is first. Beta is second."], "Alpha.")
    nothing = TraceLabels.from_mapping({"unsupported_response_sentence_keys": []})
    used = TraceLabels.from_mapping({"all_utilized_sentence_keys": ["0a"], "unsupported_response_sentence_keys": []})
    assert trace_scores(nothing, keyed).completeness == 1.0
    assert trace_scores(used, keyed).completeness == 1.0
    capstone = trace_scores(nothing, keyed, mode="capstone")
    assert (capstone.context_relevance, capstone.context_utilization, capstone.completeness) == (0.0, 0.0, 1.0)
    assert trace_scores(used, keyed, mode="capstone").completeness == 0.0


def test_response_without_sentences() -> None:
    keyed = KeyedSentences.from_texts(["Alpha is first. Beta is second."], "")
    s = trace_scores(TraceLabels.from_mapping({"all_relevant_sentence_keys": ["0a"]}), keyed)
    assert s.adherence == 1.0
    assert s.adherence_ratio is None
    assert s.reasons["adherence_ratio"] == "The response has no judged sentences."
    assert trace_scores(TraceLabels(), keyed, mode="capstone").adherence == 1.0


def test_missing_verdict_is_undetermined_in_ragbench_mode_unless_something_is_unsupported() -> None:
    keyed = KeyedSentences.from_texts(["Alpha is first. Beta is second."], "Alpha. Beta. Gamma.")
    partial = TraceLabels.from_mapping(
        {"sentence_support_information": [support("a", ["0a"], True), support("b", ["0b"], None)]}
    )
    s = trace_scores(partial, keyed)
    assert s.adherence is None
    assert s.reasons["adherence"] == "No support verdict for response sentences b, c."
    assert s.adherence_ratio is None
    assert s.details["sentences_without_verdict"] == ["b", "c"]
    with_failure = TraceLabels.from_mapping(
        {"sentence_support_information": [support("a", [], False), support("b", ["0b"], None)]}
    )
    assert trace_scores(with_failure, keyed).adherence == 0.0
    # capstone follows the reference's code: a missing verdict counts as not supported.
    assert trace_scores(partial, keyed, mode="capstone").adherence == 0.0


def test_capstone_resolves_missing_verdicts_with_the_unsupported_list() -> None:
    keyed = KeyedSentences.from_texts(["Alpha is first. Beta is second."], "Alpha. Beta.")
    labels = TraceLabels.from_mapping(
        {
            "sentence_support_information": [support("a", ["0a"], None), support("b", ["0b"], None)],
            "unsupported_response_sentence_keys": [],
        }
    )
    assert trace_scores(labels, keyed, mode="capstone").adherence == 1.0
    listed = labels.model_copy(update={"unsupported_response_sentence_keys": ["b"]})
    s = trace_scores(listed, keyed, mode="capstone")
    assert s.adherence == 0.0
    assert (s.fully_supported_sentences, s.partially_supported_sentences) == (1, 1)


def test_unsupported_list_naming_only_unknown_sentences_is_undetermined() -> None:
    keyed = KeyedSentences.from_texts(["A."], "A.")
    labels = TraceLabels.from_mapping({"unsupported_response_sentence_keys": ["q"]})
    s = trace_scores(labels, keyed)
    assert s.adherence is None
    assert "do not exist in the response: q" in s.reasons["adherence"]
    assert s.details["dropped_keys"] == {"unsupported_response_sentence_keys": ["q"]}


def test_released_labels_count_raw_lists_in_ragbench_mode_only() -> None:
    keyed = KeyedSentences.from_pairs([[["0a", "A."], ["0b", "B."], ["0c", "C."], ["0d", "D."]]], [["a", "A."]])
    data = {
        "all_relevant_sentence_keys": ["0a", "0a", "0b.", "0z"],
        "all_utilized_sentence_keys": ["0a", "0b"],
        "unsupported_response_sentence_keys": [],
    }
    released = TraceLabels.from_mapping(data, released=True)
    raw = trace_scores(released, keyed)
    assert raw.context_relevance == 4 / 4  # every raw entry counts, as in RAGBench's released scores
    assert raw.completeness == 1 / 4  # set(R) & set(U) = {"0a"}; "0b." is not "0b" in the raw lists
    assert raw.details["raw_key_lists"] is True
    assert raw.details["dropped_keys"] == {"all_relevant_sentence_keys": ["0z"]}  # counted, but still reported
    judged = trace_scores(TraceLabels.from_mapping(data), keyed)
    assert judged.context_relevance == 2 / 4  # cleaned: "0a", "0b"; the duplicate and the unknown "0z" dropped
    assert judged.completeness == 1.0
    assert trace_scores(released, keyed, mode="capstone").context_relevance == 2 / 20


def test_relevance_normalizer_and_bad_options() -> None:
    keyed = KeyedSentences.from_texts(["Alpha is first. Beta is second. Gamma is third."], "Alpha.")
    labels = TraceLabels.from_mapping({"all_relevant_sentence_keys": ["0a", "0b", "0c"]})
    assert trace_scores(labels, keyed, mode="capstone", relevance_normalizer=4).context_relevance == 0.75
    assert trace_scores(labels, keyed, mode="capstone", relevance_normalizer=2).context_relevance == 1.0
    with pytest.raises(ValueError, match="'mode' parameter of trace_scores must be one of"):
        trace_scores(labels, keyed, mode="ragas")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"'relevance_normalizer' .* must be a finite number > 0"):
        trace_scores(labels, keyed, mode="capstone", relevance_normalizer=0)


# --- properties -----------------------------------------------------------------------------------


@st.composite
def labelled_samples(draw: st.DrawFn) -> tuple[KeyedSentences, dict]:
    sizes = draw(st.lists(st.integers(0, 8), min_size=1, max_size=4))
    n_response = draw(st.integers(0, 5))
    documents = [[[document_key(i, j), f"Doc {i} sentence {j}."] for j in range(n)] for i, n in enumerate(sizes)]
    response = [[sentence_letters(j), f"Answer {j}."] for j in range(n_response)]
    keyed = KeyedSentences.from_pairs(documents, response)
    doc_keys = list(keyed.document_keys)
    keys = st.sampled_from(doc_keys) if doc_keys else st.nothing()
    most = 10 if doc_keys else 0
    relevant = draw(st.lists(keys, max_size=most))
    utilized = draw(st.lists(keys, max_size=most))
    entries = []
    for key in keyed.response_keys:
        if draw(st.booleans()):
            supporting = draw(st.lists(keys, max_size=min(most, 3)))
            entries.append(support(key, supporting, draw(st.sampled_from([True, False, None]))))
    listed = draw(st.none() | st.lists(st.sampled_from(keyed.response_keys), unique=True) if n_response else st.none())
    labels = {
        "all_relevant_sentence_keys": relevant,
        "all_utilized_sentence_keys": utilized,
        "sentence_support_information": entries,
        "unsupported_response_sentence_keys": listed,
    }
    return keyed, labels


MODES = st.sampled_from(["ragbench", "capstone"])


@settings(max_examples=300, deadline=None)
@given(labelled_samples(), MODES, st.booleans())
def test_scores_are_in_unit_interval_never_nan(case: tuple, mode: str, released: bool) -> None:
    keyed, data = case
    s = trace_scores(TraceLabels.from_mapping(data, released=released), keyed, mode=mode)  # type: ignore[arg-type]
    for name, value in s.to_dict().items():
        if isinstance(value, float):
            assert 0.0 <= value <= 1.0, name
    for name, result in s.results().items():
        assert (result.score is None) == (result.status == "undetermined"), name
        assert result.reason, name


@settings(max_examples=300, deadline=None)
@given(labelled_samples(), MODES)
def test_completeness_is_one_when_relevant_is_within_utilized(case: tuple, mode: str) -> None:
    keyed, data = case
    utilized = data["all_utilized_sentence_keys"] + data["all_relevant_sentence_keys"]
    data = {**data, "all_utilized_sentence_keys": utilized}
    s = trace_scores(TraceLabels.from_mapping(data), keyed, mode=mode)  # type: ignore[arg-type]
    if mode == "capstone" and not data["all_relevant_sentence_keys"] and data["all_utilized_sentence_keys"]:
        assert s.completeness == 0.0  # the reference: nothing relevant but something used scores 0
    else:
        assert s.completeness == 1.0


def expected_adherence(data: dict, keyed: KeyedSentences, mode: str) -> float | None:
    """An independent statement of SPEC §3.3's adherence rules."""
    listed = data["unsupported_response_sentence_keys"]
    entries = {e["response_sentence_key"]: e["fully_supported"] for e in data["sentence_support_information"]}
    if mode == "capstone":
        verdicts = [(v if v is not None else (listed is not None and k not in listed)) for k, v in entries.items()]
        return 1.0 if all(verdicts) else 0.0
    if listed is not None:
        return 0.0 if listed else 1.0
    verdicts = [entries.get(k) for k in keyed.response_keys]
    if False in verdicts:
        return 0.0
    return None if None in verdicts else 1.0


@settings(max_examples=400, deadline=None)
@given(labelled_samples(), MODES, st.booleans())
def test_adherence_is_one_iff_no_sentence_is_unsupported(case: tuple, mode: str, released: bool) -> None:
    keyed, data = case
    s = trace_scores(TraceLabels.from_mapping(data, released=released), keyed, mode=mode)  # type: ignore[arg-type]
    assert s.adherence == expected_adherence(data, keyed, mode)
    if s.adherence is not None:
        assert (s.adherence == 1.0) == (s.details["unsupported_response_keys"] == [])
        assert (s.adherence == 1.0) == (s.partially_supported_sentences + s.unsupported_sentences == 0)


@settings(max_examples=300, deadline=None)
@given(labelled_samples())
def test_ragbench_mode_matches_the_formulas(case: tuple) -> None:
    keyed, data = case
    s = trace_scores(TraceLabels.from_mapping(data, released=True), keyed)
    n = keyed.num_document_sentences
    relevant, utilized = data["all_relevant_sentence_keys"], data["all_utilized_sentence_keys"]
    if n == 0:
        assert s.context_relevance is None
    else:
        assert s.context_relevance == min(1.0, len(relevant) / n)
        assert s.context_utilization == min(1.0, len(utilized) / n)
    expected = len(set(relevant) & set(utilized)) / len(relevant) if relevant else 1.0
    assert s.completeness == expected


def test_raw_lists_longer_than_the_context_are_capped() -> None:
    keyed = KeyedSentences.from_pairs([[["0a", "A."], ["0b", "B."]]], [["a", "A."]])
    labels = TraceLabels.from_mapping({"all_utilized_sentence_keys": ["0a", "0a", "0a"]}, released=True)
    assert trace_scores(labels, keyed).context_utilization == 1.0


@settings(max_examples=300, deadline=None)
@given(labelled_samples(), MODES)
def test_rmse_aggregation_is_zero_iff_the_four_are_equal(case: tuple, mode: str) -> None:
    keyed, data = case
    s = trace_scores(TraceLabels.from_mapping(data), keyed, mode=mode)  # type: ignore[arg-type]
    four = [getattr(s, m) for m in TRACE_METRICS]
    if None in four:
        assert s.rmse_aggregation is None
    else:
        assert (s.rmse_aggregation == 0.0) == (len(set(four)) == 1)


@settings(max_examples=300, deadline=None)
@given(labelled_samples(), MODES, st.booleans(), st.randoms(use_true_random=False))
def test_scores_do_not_depend_on_key_order(case: tuple, mode: str, released: bool, rnd: random.Random) -> None:
    keyed, data = case

    def shuffled(items: list) -> list:
        items = list(items)
        rnd.shuffle(items)
        return items

    permuted = {
        "all_relevant_sentence_keys": shuffled(data["all_relevant_sentence_keys"]),
        "all_utilized_sentence_keys": shuffled(data["all_utilized_sentence_keys"]),
        "sentence_support_information": shuffled(
            [
                {**e, "supporting_sentence_keys": shuffled(e["supporting_sentence_keys"])}
                for e in data["sentence_support_information"]
            ]
        ),
        "unsupported_response_sentence_keys": (
            None
            if data["unsupported_response_sentence_keys"] is None
            else shuffled(data["unsupported_response_sentence_keys"])
        ),
    }
    a = trace_scores(TraceLabels.from_mapping(data, released=released), keyed, mode=mode)  # type: ignore[arg-type]
    b = trace_scores(TraceLabels.from_mapping(permuted, released=released), keyed, mode=mode)  # type: ignore[arg-type]
    assert a.to_dict() == pytest.approx(b.to_dict())
