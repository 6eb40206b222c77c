"""The RAGAS / GraphRAG family end to end through fake judges: hand-worked values, every edge case of
SPEC §5, and the judge calls per sample in each scoring mode (a counting fake model)."""

from __future__ import annotations

import io
import json

import pytest

from rageval_lc.engine.jsonl import evaluate_lines
from rageval_lc.judges import LabelsJudge
from rageval_lc.judges.llm.dspy_judge import DspyJudge
from rageval_lc.schema import RagSample
from rageval_lc.scoring.judgements import planned_judgements
from rageval_lc.scoring.registry import RAGAS_FAMILY, parse_metrics
from rageval_lc.scoring.sample import evaluate_sample
from tests.fakes import JudgementChatModel, bag_of_words_embeddings, chat
from tests.judges.llm.test_dspy_judge import GUIDE_ANSWER
from tests.metrics.test_trace import GUIDE_DOCS, GUIDE_LABELS, GUIDE_RESPONSE

QUESTION = "What makes ML different?"
REFERENCE = "Machine learning learns from data. It was invented in 1959."
SUITE = ["trace", *RAGAS_FAMILY]
LLM_SUITE = [
    "trace",
    "faithfulness",
    "context_precision",
    "context_recall",
    "answer_relevance",
    "ragas_score",
    "factual_accuracy",
    "answer_classification",
]
STATEMENTS = [
    {"statement": "Machine learning learns from data.", "attributed": True, "supporting_context": 1, "reason": "0b"},
    {"statement": "It was invented in 1959.", "attributed": False, "supporting_context": None, "reason": "absent"},
]
GEVAL = {"correctness": 80, "completeness": 60, "consistency": 100}
TRACE_FIELDS = {
    "relevance_explanation": "0b, 0c, 1a and 1b bear on the question.",
    "all_relevant_sentence_keys": GUIDE_LABELS["all_relevant_sentence_keys"],
    "overall_supported_explanation": "Sentence c is not in the documents.",
    "overall_supported": "false",
    "sentence_support_information": [
        {**entry, "explanation": "see documents"} for entry in GUIDE_LABELS["sentence_support_information"]
    ],
    "all_utilized_sentence_keys": GUIDE_LABELS["all_utilized_sentence_keys"],
}
ANSWERS = {
    "trace_labels": GUIDE_ANSWER,
    "assess_reference": chat(
        statements=STATEMENTS,
        correctness_reasoning="right",
        correctness=GEVAL["correctness"],
        completeness_reasoning="misses the date",
        completeness=GEVAL["completeness"],
        consistency_reasoning="consistent",
        consistency=GEVAL["consistency"],
        classification="CORRECT",
        classification_reason="same core fact",
    ),
    "generate_questions": chat(questions=[QUESTION, QUESTION, QUESTION]),
    "assess_all": chat(
        **TRACE_FIELDS,
        statements=STATEMENTS,
        **GEVAL,
        classification="CORRECT",
        questions=[QUESTION, QUESTION, QUESTION],
    ),
    "extract_claims": chat(claims=["ML learns from data.", "ML improves over time.", "It is the future."]),
    "verify_claims": chat(
        verdicts=[
            {"claim_number": 1, "supported": True, "reason": "0b"},
            {"claim_number": 2, "supported": True, "reason": "1a"},
            {"claim_number": 3, "supported": False, "reason": "nowhere"},
        ]
    ),
    "context_relevance": chat(
        verdicts=[
            {"context_number": 1, "is_relevant": True, "relevance_score": 90, "reasoning": "ML"},
            {"context_number": 2, "is_relevant": True, "relevance_score": 80, "reasoning": "ML"},
        ]
    ),
    "attribute_reference": chat(statements=STATEMENTS),
    "factual_accuracy": chat(
        correctness_reasoning="right",
        correctness=80,
        completeness_reasoning="misses the date",
        completeness=60,
        consistency_reasoning="consistent",
        consistency=100,
        overall_reasoning="good",
    ),
    "classify_answer": chat(classification="CORRECT", reason="same core fact"),
    "rate_answer_relevance": chat(reasoning="on topic", score="0.7"),
}

# Hand-worked from the answers above:
#   faithfulness: response sentences a, b supported, c not → 2/3 (separate mode: claims 1, 2 of 3 → 2/3)
#   context precision: relevant keys 0b, 0c, 1a, 1b touch both contexts → 1.0; rank-aware 1.0
#   context recall: 1 of 2 reference statements attributed → 0.5
#   answer relevance: the generated questions equal the question → cosine 1.0
#   GEval: 0.5·80 + 0.3·60 + 0.2·100 = 78 → 0.78, grade B; classification CORRECT → 1.0
#   RAGAS composite: 0.3·2/3 + 0.2·1.0 + 0.2·0.5 + 0.3·1.0 = 0.8
EXPECTED = {
    "faithfulness": 2 / 3,
    "context_precision": 1.0,
    "context_precision_at_k": 1.0,
    "context_recall": 0.5,
    "answer_relevance": 1.0,
    "factual_accuracy": 0.78,
    "answer_classification": 1.0,
    "ragas_score": 0.8,
    # TRACe, ragbench mode (GUIDE example): 4/6 relevant, 3/6 utilized, 3/4 completeness, adherence 0
    "context_relevance": 4 / 6,
    "context_utilization": 3 / 6,
    "completeness": 0.75,
    "adherence": 0.0,
}


def sample(**changes: object) -> RagSample:
    fields = {
        "id": "guide",
        "question": QUESTION,
        "contexts": GUIDE_DOCS,
        "response": GUIDE_RESPONSE,
        "reference": REFERENCE,
    }
    return RagSample(**{**fields, **changes})


def fake_judge(**overrides: str) -> tuple[DspyJudge, JudgementChatModel]:
    model = JudgementChatModel(answers={**ANSWERS, **overrides})
    return DspyJudge(model, max_retries=0), model


def score(s: RagSample, metrics: list[str], judge: object, mode: str = "shared") -> dict:
    result = evaluate_sample(s, metrics, judge=judge, scoring_mode=mode, embeddings=bag_of_words_embeddings())
    return result


@pytest.mark.parametrize(
    ("mode", "expected_calls"),
    [
        ("shared", {"trace_labels": 1, "assess_reference": 1, "generate_questions": 1}),
        ("fused", {"assess_all": 1}),
        (
            "separate",
            {
                "trace_labels": 1,
                "extract_claims": 1,
                "verify_claims": 1,
                "context_relevance": 1,
                "attribute_reference": 1,
                "generate_questions": 1,
                "factual_accuracy": 1,
                "classify_answer": 1,
            },
        ),
    ],
)
def test_calls_per_sample_and_hand_worked_values(mode: str, expected_calls: dict[str, int]) -> None:
    judge, model = fake_judge()
    result = score(sample(), LLM_SUITE, judge, mode)
    assert dict(model.calls) == expected_calls
    usage = result.details["judge_usage"]
    assert usage["calls"] == sum(expected_calls.values())
    assert usage["estimated_tokens"] > 0
    assert set(usage["by_judgement"]) == set(expected_calls)
    for name, value in EXPECTED.items():
        assert result.results[name].status == "ok", (name, result.results[name].reason)
        assert result.results[name].score == pytest.approx(value), name
    assert result.results["factual_accuracy"].details["grade"] == "B"
    assert result.results["answer_classification"].details["label"] == "CORRECT"


def test_default_mode_is_at_most_three_calls_whatever_the_number_of_contexts() -> None:
    judge, model = fake_judge()
    many = sample(contexts=[*GUIDE_DOCS, *(f"Filler passage number {i}." for i in range(8))])
    score(many, LLM_SUITE, judge)
    assert sum(model.calls.values()) == 3


def test_shared_judgements_are_reported_once_per_sample_and_per_consumer() -> None:
    judge, _ = fake_judge()
    result = score(sample(), LLM_SUITE, judge)
    assert result.details["faithfulness"]["judgements"] == ["trace_labels"]
    assert result.details["trace"]["usage"]["calls"] == 1
    assert result.details["faithfulness"]["usage"]["calls"] == 1  # the same call, consumed by both
    assert result.details["ragas_score"]["judgements"] == ["trace_labels", "assess_reference", "generate_questions"]
    assert result.details["judge_usage"]["by_judgement"]["trace_labels"]["calls"] == 1


def test_runner_counts_each_judgement_once() -> None:
    judge, _ = fake_judge()
    row = {"question": QUESTION, "contexts": GUIDE_DOCS, "response": GUIDE_RESPONSE, "reference": REFERENCE}
    lines = [json.dumps({**row, "id": "a"}), json.dumps({**row, "id": "b"})]
    report = evaluate_lines(lines, io.StringIO(), metrics=LLM_SUITE, judge=judge, embeddings=bag_of_words_embeddings())
    assert {k: v["calls"] for k, v in report.usage.items()} == {
        "trace_labels": 2,
        "assess_reference": 2,
        "generate_questions": 2,
    }
    view = report.reference_view
    assert view["ragas_faithfulness"] == pytest.approx(66.67)
    assert view["ragas_score"] == pytest.approx(80.0)
    assert (view["factual_accuracy_percentage"], view["factual_accuracy_grade"]) == (78.0, "B")
    assert view["correct_answers_count"] == 2 and view["wrong_answers_count"] == 0


def test_dont_know_answers_are_classified_without_a_call() -> None:
    judge, model = fake_judge()
    result = score(sample(response="I don't have enough information to say."), ["answer_classification"], judge)
    assert sum(model.calls.values()) == 0
    outcome = result.results["answer_classification"]
    assert (outcome.score, outcome.details["label"]) == (0.0, "DON'T KNOW")


def test_wrong_label_scores_zero() -> None:
    judge, _ = fake_judge(classify_answer=chat(classification="WRONG", reason="different year"))
    result = score(sample(), ["answer_classification"], judge, "separate")
    assert result.results["answer_classification"].score == 0.0
    assert result.results["answer_classification"].details["label"] == "WRONG"


# --- edge cases (SPEC §5) -------------------------------------------------------------------------


CONTEXT_SCORES = (
    "context_relevance",
    "context_utilization",
    "completeness",
    "adherence",
    "faithfulness",
    "context_precision",
    "context_precision_at_k",
    "context_recall",
)


@pytest.mark.parametrize("contexts", [[], ["", "  \n"]])
@pytest.mark.parametrize(
    ("mode", "expected_calls"),
    [
        ("shared", {"assess_reference": 1, "generate_questions": 1}),
        ("fused", {"assess_all": 1}),
        ("separate", {"generate_questions": 1, "factual_accuracy": 1, "classify_answer": 1}),
    ],
)
def test_no_contexts_leaves_the_context_scores_undetermined_and_scores_the_rest(
    contexts: list[str], mode: str, expected_calls: dict[str, int]
) -> None:
    judge, model = fake_judge()
    result = score(sample(contexts=contexts), [*LLM_SUITE, "semantic_similarity"], judge, mode)
    for name in CONTEXT_SCORES:
        outcome = result.results[name]
        assert (outcome.status, outcome.score, outcome.reason) == (
            "undetermined",
            None,
            "No retrieved contexts were given.",
        ), name
    assert result.details["faithfulness"]["missing_evidence"] == "contexts"
    for name in ("answer_relevance", "factual_accuracy", "answer_classification", "semantic_similarity"):
        assert result.results[name].status == "ok", (name, result.results[name].reason)
    assert result.results["answer_relevance"].score == pytest.approx(1.0)
    assert result.results["factual_accuracy"].score == pytest.approx(0.78)
    # the composite from its one determinable part, the weights renormalised
    ragas = result.results["ragas_score"]
    assert ragas.score == pytest.approx(1.0)
    assert "left out (weights renormalised): faithfulness, context_precision, context_recall" in ragas.reason
    assert dict(model.calls) == expected_calls  # no judgement is made for a context metric


def test_no_contexts_calls_no_judge_for_the_context_metrics_alone() -> None:
    judge, model = fake_judge()
    result = score(sample(contexts=[]), ["trace", "faithfulness", "context_precision", "context_recall"], judge)
    assert set(result.scores().values()) == {None}
    assert sum(model.calls.values()) == 0 and result.details["judge_usage"]["calls"] == 0
    reason = "No contexts in the run."
    custom = evaluate_sample(sample(contexts=[]), ["faithfulness"], judge=judge, no_contexts_reason=reason)
    assert custom.results["faithfulness"].reason == reason
    with pytest.raises(ValueError, match="'no_contexts_reason' field of evaluate_sample"):
        evaluate_sample(sample(), ["faithfulness"], judge=judge, no_contexts_reason=" ")


def test_no_reference_statements_means_full_recall() -> None:
    judge, _ = fake_judge(attribute_reference=chat(statements=[]))
    result = score(sample(), ["context_recall"], judge, "separate")
    assert result.results["context_recall"].score == 1.0
    assert "no statements" in result.results["context_recall"].reason


def test_no_claims_means_full_faithfulness() -> None:
    judge, model = fake_judge(extract_claims=chat(claims=[]))
    result = score(sample(), ["faithfulness"], judge, "separate")
    assert result.results["faithfulness"].score == 1.0
    assert dict(model.calls) == {"extract_claims": 1}  # nothing to verify


def test_empty_answer() -> None:
    judge, model = fake_judge()
    metrics = ["faithfulness", "answer_relevance", "answer_classification", "semantic_similarity", "bert_score"]
    result = evaluate_sample(sample(response=""), metrics, judge=judge, scoring_mode="separate")
    scores = result.scores()
    # SPEC §6: an empty answer is undetermined for the metrics that judge it, never a perfect score
    for name in ("faithfulness", "answer_relevance"):
        assert result.results[name].status == "undetermined"
        assert result.results[name].reason == "The answer is empty: there is nothing to judge."
        assert scores[name] is None
    assert result.results["answer_classification"].details["label"] == "DON'T KNOW"
    assert scores["semantic_similarity"] == 0.0
    assert (scores["bert_score_precision"], scores["bert_score_recall"], scores["bert_score_f1"]) == (0.0, 0.0, 0.0)
    assert sum(model.calls.values()) == 0


def test_no_reference_leaves_reference_metrics_undetermined_and_renormalises_the_composite() -> None:
    judge, model = fake_judge()
    result = score(sample(reference=None), [*LLM_SUITE, "semantic_similarity", "bert_score"], judge)
    for name in ("context_recall", "factual_accuracy", "answer_classification", "semantic_similarity", "bert_score_f1"):
        assert result.results[name].status == "undetermined"
        assert result.results[name].reason == "Needs a reference answer; the sample has none."
    # (0.3·2/3 + 0.2·1.0 + 0.3·1.0) / 0.8 = 0.875
    assert result.results["ragas_score"].score == pytest.approx(0.875)
    assert "left out (weights renormalised): context_recall" in result.results["ragas_score"].reason
    assert dict(model.calls) == {"trace_labels": 1, "generate_questions": 1}


def test_answer_relevance_falls_back_to_the_rubric() -> None:
    judge, model = fake_judge(generate_questions=chat(questions=[]))
    result = score(sample(), ["answer_relevance"], judge)
    outcome = result.results["answer_relevance"]
    assert outcome.score == pytest.approx(0.7)
    assert outcome.details["method"] == "direct_rubric"
    assert dict(model.calls) == {"generate_questions": 1, "rate_answer_relevance": 1}


def test_unusable_judge_output_is_undetermined_with_the_raw_output() -> None:
    judge, _ = fake_judge(trace_labels="I think it is fine.")
    result = score(sample(), ["faithfulness", "context_precision", "ragas_score"], judge)
    assert result.results["faithfulness"].status == "undetermined"
    assert result.details["faithfulness"]["raw_output"] == "I think it is fine."
    assert result.results["context_precision"].status == "undetermined"
    # recall 0.5 and relevance 1.0 remain: (0.2·0.5 + 0.3·1.0) / 0.5 = 0.8
    assert result.results["ragas_score"].score == pytest.approx(0.8)


def test_everything_undetermined_leaves_the_composite_undetermined() -> None:
    judge, _ = fake_judge(trace_labels="x", generate_questions="x", rate_answer_relevance="x")
    result = score(sample(reference=None), ["ragas_score"], judge)
    assert result.results["ragas_score"].status == "undetermined"
    assert result.results["ragas_score"].score is None


# --- the released labels feed faithfulness and context precision ---------------------------------


def test_released_labels_feed_sentence_level_faithfulness_and_context_precision() -> None:
    labelled = sample(reference=None, labels=GUIDE_LABELS)
    result = evaluate_sample(labelled, ["trace", "faithfulness", "context_precision"], judge=LabelsJudge())
    assert result.results["faithfulness"].score == pytest.approx(2 / 3)
    assert result.results["faithfulness"].score == result.results["adherence_ratio"].score
    assert result.results["context_precision"].score == 1.0
    with pytest.raises(ValueError, match="cannot make the 'assess_reference' judgement"):
        evaluate_sample(labelled, ["context_recall"], judge=LabelsJudge())


def test_planned_judgements_per_mode() -> None:
    judge, _ = fake_judge()
    specs = parse_metrics(SUITE)
    assert set(planned_judgements(specs, "shared", judge)) == {"trace_labels", "assess_reference", "generate_questions"}
    assert set(planned_judgements(specs, "fused", judge)) == {"assess_all"}
    with pytest.raises(ValueError, match="scoring_mode"):
        planned_judgements(specs, "parallel", judge)


def test_sentences_that_only_state_uncertainty_are_not_claims() -> None:
    # GUIDE labels: a, b supported, c not; an added "I am not sure about the rest." (d) is no claim
    labels = {**GUIDE_LABELS, "sentence_support_information": GUIDE_LABELS["sentence_support_information"]}
    hedged = sample(response=GUIDE_RESPONSE + " I am not sure about the rest.", reference=None, labels=labels)
    result = evaluate_sample(hedged, ["faithfulness"], judge=LabelsJudge())
    assert result.results["faithfulness"].score == pytest.approx(2 / 3)
    assert len(result.results["faithfulness"].details["claims"]) == 3
    unsure = sample(response="I don't know.", reference=None, labels={"sentence_support_information": []})
    outcome = evaluate_sample(unsure, ["faithfulness"], judge=LabelsJudge()).results["faithfulness"]
    assert (outcome.score, outcome.reason) == (1.0, "The answer makes no claim, so nothing it says is unsupported.")


def test_reasons_count_one_claim_and_one_context_in_the_singular() -> None:
    def one(supported: bool) -> RagSample:
        support = {"response_sentence_key": "a", "supporting_sentence_keys": ["0a"], "fully_supported": supported}
        labels = {"all_relevant_sentence_keys": ["0a"], "sentence_support_information": [support]}
        return RagSample(question="Q?", contexts=["Cats sleep."], response="Cats sleep.", labels=labels)

    results = evaluate_sample(one(True), ["faithfulness", "context_precision"], judge=LabelsJudge()).results
    assert results["faithfulness"].reason == "The claim is supported by the contexts."
    assert results["context_precision"].reason == "1 of 1 context relevant (ranks 1)."
    reason = evaluate_sample(one(False), ["faithfulness"], judge=LabelsJudge()).results["faithfulness"].reason
    assert reason.startswith("0 of 1 claim supported; unsupported: 'Cats sleep.'")
