"""DSPy judges on fake models: worked-example numbers from valid answers; bounded, reported failures."""

from __future__ import annotations

import json

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from rageval_lc.judges.llm.dspy_judge import DspyJudge
from rageval_lc.schema import RagSample
from rageval_lc.scoring.sample import evaluate_sample
from tests.metrics.test_trace import GUIDE_DOCS, GUIDE_LABELS, GUIDE_RESPONSE


def chat(**fields: object) -> str:
    """An answer in DSPy's chat format; lists and dicts as JSON."""
    parts = [f"[[ ## {k} ## ]]\n{v if isinstance(v, str) else json.dumps(v)}" for k, v in fields.items()]
    return "\n\n".join([*parts, "[[ ## completed ## ]]"])


def judge(*responses: str, max_retries: int = 2) -> tuple[DspyJudge, FakeListChatModel]:
    model = FakeListChatModel(responses=list(responses))
    return DspyJudge(model, max_retries=max_retries), model


GUIDE_ANSWER = chat(
    relevance_explanation="0b, 0c, 1a and 1b bear on how ML differs from programming.",
    all_relevant_sentence_keys=GUIDE_LABELS["all_relevant_sentence_keys"],
    overall_supported_explanation="Sentence c is not in the documents.",
    overall_supported="false",
    sentence_support_information=[
        {**entry, "explanation": "see documents"} for entry in GUIDE_LABELS["sentence_support_information"]
    ],
    all_utilized_sentence_keys=GUIDE_LABELS["all_utilized_sentence_keys"],
)
GUIDE_SAMPLE = RagSample(id="guide", question="What makes ML different?", contexts=GUIDE_DOCS, response=GUIDE_RESPONSE)


def test_trace_labels_give_the_worked_example_numbers() -> None:
    dspy_judge, _ = judge(GUIDE_ANSWER)
    result = evaluate_sample(GUIDE_SAMPLE, "trace", judge=dspy_judge, trace_mode="capstone")
    scores = result.scores()
    assert (scores["context_relevance"], scores["context_utilization"]) == (0.2, 0.75)
    assert (scores["completeness"], scores["adherence"]) == (0.75, 0.0)
    details = result.details["trace"]
    assert details["judge"] == "dspy:langchain/FakeListChatModel"
    assert details["usage"]["calls"] == 1
    assert details["usage"]["estimated_tokens"] > 100
    assert details["attempts"] == 1


def test_trace_labels_rendering_shows_the_keys() -> None:
    dspy_judge, _ = judge(GUIDE_ANSWER)
    dspy_judge.trace_labels(GUIDE_SAMPLE)
    prompt = dspy_judge.lm.history[-1]["messages"][-1]["content"]
    assert "0c. Traditional programming requires explicit instructions." in prompt
    assert "c. It's the future of all computing." in prompt


MALFORMED_TRACE = {
    "truncated JSON": GUIDE_ANSWER[: GUIDE_ANSWER.index('"0c"')],
    "wrong type": GUIDE_ANSWER.replace(
        "[[ ## overall_supported ## ]]\nfalse", "[[ ## overall_supported ## ]]\nperhaps"
    ),
    "unknown keys": GUIDE_ANSWER.replace('"1b"', '"9z"'),
    "missing field": GUIDE_ANSWER[: GUIDE_ANSWER.index("[[ ## all_utilized_sentence_keys")] + "[[ ## completed ## ]]",
    "missing verdict": GUIDE_ANSWER.replace('"response_sentence_key": "c"', '"response_sentence_key": "q"'),
    "empty string": "",
}


@pytest.mark.parametrize("case", MALFORMED_TRACE, ids=list(MALFORMED_TRACE))
def test_malformed_trace_answers_are_undetermined_with_raw_output(case: str) -> None:
    bad = MALFORMED_TRACE[case]
    dspy_judge, _ = judge(bad, max_retries=2)
    result = evaluate_sample(GUIDE_SAMPLE, "trace", judge=dspy_judge)
    statuses = {r.status for r in result.results.values()}
    assert statuses == {"undetermined"}, case
    reason = result.results["adherence"].reason
    assert reason.startswith("No usable answer after 3 attempts"), reason
    details = result.details["trace"]
    assert details["attempts"] == 3
    assert details["raw_output"] == bad or bad == "" or bad in details["raw_output"] or details["raw_output"] in bad
    # bounded: at most two calls per attempt (DSPy's chat adapter, then its JSON fallback)
    assert 3 <= details["usage"]["calls"] <= 6


def test_unknown_keys_are_reported() -> None:
    dspy_judge, _ = judge(MALFORMED_TRACE["unknown keys"], max_retries=0)
    judgement = dspy_judge.trace_labels(GUIDE_SAMPLE)
    assert judgement.status == "undetermined"
    assert "do not exist: 9z" in judgement.reason
    assert judgement.notes["dropped_keys"]["all_relevant_sentence_keys"] == ["9z"]


def test_a_retry_recovers_and_is_counted() -> None:
    dspy_judge, _ = judge("nonsense", "still nonsense", GUIDE_ANSWER, max_retries=2)
    judgement = dspy_judge.trace_labels(GUIDE_SAMPLE)
    assert judgement.ok
    assert judgement.attempts == 2  # the first attempt used two calls (chat, then JSON fallback)
    assert judgement.usage.calls == 3


def test_no_retries_means_one_attempt() -> None:
    dspy_judge, _ = judge("nonsense", max_retries=0)
    judgement = dspy_judge.trace_labels(GUIDE_SAMPLE)
    assert (judgement.status, judgement.attempts) == ("undetermined", 1)
    with pytest.raises(ValueError, match="'max_retries' parameter of DspyJudge must be an int >= 0"):
        DspyJudge(FakeListChatModel(responses=["x"]), max_retries=-1)


def test_an_lm_failure_is_an_error_not_an_exception() -> None:
    class Broken(FakeListChatModel):
        def _call(self, *args: object, **kwargs: object) -> str:
            raise ConnectionError("connection refused")

    dspy_judge = DspyJudge(Broken(responses=["x"]))
    judgement = dspy_judge.trace_labels(GUIDE_SAMPLE)
    assert judgement.status == "error"
    assert "connection refused" in judgement.reason
    result = evaluate_sample(GUIDE_SAMPLE, "trace", judge=dspy_judge)
    assert {r.status for r in result.results.values()} == {"error"}


def test_a_call_that_raised_without_output_is_not_counted() -> None:
    import io

    import dspy
    from dspy.utils import DummyLM

    from rageval_lc.engine.jsonl import evaluate_lines

    class Refusing:  # a DSPy engine whose provider refuses every request (no network)
        def complete(self, request: object) -> object:
            raise ConnectionError("no API key")

    def refusing() -> DspyJudge:
        return DspyJudge(dspy.LM("openai/refusing", engine=Refusing(), cache=False, num_retries=0))

    failed = refusing().extract_claims("Q?", "Paris is in France.")
    assert failed.status == "error" and "no API key" in failed.reason
    assert (failed.usage.calls, failed.usage.estimated_tokens) == (0, 0)
    row = json.dumps({"id": "g", "question": GUIDE_SAMPLE.question, "contexts": GUIDE_DOCS, "response": GUIDE_RESPONSE})
    report = evaluate_lines([row], io.StringIO(), judge=refusing(), trace_mode="capstone")
    assert report.usage["trace_labels"]["calls"] == 0  # the run's usage line counts only calls made
    made = DspyJudge(DummyLM([{"claims": ["Paris is in France."]}])).extract_claims("Q?", "Paris is in France.")
    assert (made.value, made.usage.calls) == (["Paris is in France."], 1)
    assert made.usage.estimated_tokens > 50


# --- the other judgements --------------------------------------------------------------------------


def test_claims_extraction_and_verification() -> None:
    dspy_judge, _ = judge(
        chat(claims=["Paris is in France.", "Paris is in France.", " ", "Paris has 2 million people."])
    )
    claims = dspy_judge.extract_claims("Tell me about Paris.", "Paris is in France and has 2 million people.")
    assert claims.value == ["Paris is in France.", "Paris has 2 million people."]
    verdicts = [
        {"claim_number": 2, "supported": False, "reason": "no population given"},
        {"claim_number": 1, "supported": True, "reason": "stated"},
    ]
    dspy_judge, _ = judge(chat(verdicts=verdicts))
    judged = dspy_judge.verify_claims(claims.value, ["Paris is the capital of France."])
    assert [(v.claim, v.supported) for v in judged.value] == [
        ("Paris is in France.", True),
        ("Paris has 2 million people.", False),
    ]
    assert judged.usage.calls == 1
    empty = dspy_judge.extract_claims("Q?", "  ")
    assert (empty.value, empty.usage.calls) == ([], 0)
    assert dspy_judge.verify_claims([], ["ctx"]).value == []


def test_claim_verification_missing_a_verdict_is_undetermined() -> None:
    dspy_judge, _ = judge(chat(verdicts=[{"claim_number": 1, "supported": True, "reason": "x"}]), max_retries=1)
    judgement = dspy_judge.verify_claims(["A.", "B."], ["ctx"])
    assert judgement.status == "undetermined"
    assert "no verdict for claims [2]" in judgement.reason
    assert judgement.notes["unjudged_claims"] == [2]


def test_context_relevance_and_out_of_range_scores() -> None:
    verdicts = [
        {"context_number": 1, "is_relevant": True, "relevance_score": 105, "reasoning": "names it"},
        {"context_number": 2, "is_relevant": False, "relevance_score": 3, "reasoning": "ebook end"},
    ]
    dspy_judge, _ = judge(chat(verdicts=verdicts))
    judged = dspy_judge.context_relevance("Erica vagans?", ["the lovely Cornish heath", "THE END"], "Cornish heath")
    assert [(v.index, v.relevant, v.score) for v in judged.value] == [(0, True, 1.0), (1, False, 0.03)]
    assert judged.notes["clamped"] == ["context 1: 105"]
    far = [{**verdicts[0], "relevance_score": 900}, verdicts[1]]
    dspy_judge, _ = judge(chat(verdicts=far), max_retries=0)
    bad = dspy_judge.context_relevance("Q?", ["a", "b"])
    assert bad.status == "undetermined" and "outside the scale 0-100" in bad.reason


def test_reference_attribution() -> None:
    statements = [
        {
            "statement": "Cornish heath is the common name of Erica vagans.",
            "attributed": True,
            "supporting_context": 2,
            "reason": "context 2",
        },
        {"statement": "It grows in Cornwall.", "attributed": False, "supporting_context": 7, "reason": "nowhere"},
    ]
    dspy_judge, _ = judge(chat(statements=statements))
    judged = dspy_judge.attribute_reference("Q?", "Cornish heath; grows in Cornwall.", ["a", "b"])
    assert [(v.attributed, v.context_index) for v in judged.value] == [(True, 1), (False, None)]
    assert judged.notes["unknown_context_numbers"] == [7]


def test_question_generation_keeps_n() -> None:
    dspy_judge, _ = judge(chat(questions=["What is Cornish heath?", "Q2?", "Q3?", "Q4?"]))
    judged = dspy_judge.generate_questions("Cornish heath", n=3)
    assert judged.value == ["What is Cornish heath?", "Q2?", "Q3?"]
    assert judged.notes["extra_questions_dropped"] == 1


@pytest.mark.parametrize(
    ("raw_score", "expected", "note"),
    [("0.75", 0.75, None), ("1.05", 1.0, "clamped"), ("75", 0.75, "rescaled")],
)
def test_answer_relevance_rubric(raw_score: str, expected: float, note: str | None) -> None:
    dspy_judge, _ = judge(chat(score=raw_score, reasoning="mostly answers"))
    judged = dspy_judge.rate_answer_relevance("Q?", "A.")
    assert judged.value.score == pytest.approx(expected)
    assert (note in judged.notes) if note else judged.notes == {}


def test_answer_relevance_rubric_rejects_nonsense() -> None:
    dspy_judge, _ = judge(chat(score="-40", reasoning="?"), max_retries=0)
    assert dspy_judge.rate_answer_relevance("Q?", "A.").status == "undetermined"


def test_factual_accuracy_and_classification() -> None:
    dspy_judge, _ = judge(
        chat(
            correctness_reasoning="right",
            correctness=100,
            completeness_reasoning="all",
            completeness=90,
            consistency_reasoning="fine",
            consistency=104,
            overall_reasoning="good",
        )
    )
    verdict = dspy_judge.factual_accuracy("Q?", "Cornish heath", "Cornish heath").value
    assert (verdict.correctness, verdict.completeness, verdict.consistency) == (100.0, 90.0, 100.0)
    dspy_judge, _ = judge(chat(classification="CORRECT", reason="same"))
    assert dspy_judge.classify_answer("Q?", "Cornish heath", "Cornish heath").value.label == "CORRECT"
    dspy_judge, _ = judge(chat(classification="MAYBE", reason="?"), max_retries=0)
    assert dspy_judge.classify_answer("Q?", "x", "y").status == "undetermined"


def test_bad_judge_lm() -> None:
    with pytest.raises(TypeError, match=r"dspy\.LM, a LiteLLM model id string or a LangChain chat model"):
        DspyJudge(42)
    with pytest.raises(ValueError, match="Unknown judgement names"):
        DspyJudge(FakeListChatModel(responses=["x"]), modules={"nope": None})  # type: ignore[dict-item]


CALLS = {
    "trace_labels": lambda j: j.trace_labels(GUIDE_SAMPLE),
    "extract_claims": lambda j: j.extract_claims("Q?", "Paris is in France."),
    "verify_claims": lambda j: j.verify_claims(["Paris is in France."], ["Paris is the capital of France."]),
    "context_relevance": lambda j: j.context_relevance("Q?", ["ctx one", "ctx two"]),
    "attribute_reference": lambda j: j.attribute_reference("Q?", "Paris is in France.", ["ctx"]),
    "generate_questions": lambda j: j.generate_questions("Paris is in France."),
    "rate_answer_relevance": lambda j: j.rate_answer_relevance("Q?", "A."),
    "factual_accuracy": lambda j: j.factual_accuracy("Q?", "A.", "A."),
    "classify_answer": lambda j: j.classify_answer("Q?", "A.", "A."),
    "assess_reference": lambda j: j.assess_reference("Q?", "A.", "A.", ["ctx"]),
    "assess_all": lambda j: j.assess_all(GUIDE_SAMPLE.model_copy(update={"reference": "ML learns from data."})),
}
GARBAGE = {
    "empty string": "",
    "truncated JSON": '[[ ## claims ## ]]\n["Paris is',
    "fields of another judgement": chat(unrelated_field="x"),
}


@pytest.mark.parametrize("garbage", GARBAGE, ids=list(GARBAGE))
@pytest.mark.parametrize("name", CALLS, ids=list(CALLS))
def test_every_judgement_survives_garbage(name: str, garbage: str) -> None:
    dspy_judge, _ = judge(GARBAGE[garbage], max_retries=1)
    judgement = CALLS[name](dspy_judge)
    assert judgement.name == name
    assert judgement.status == "undetermined"
    assert judgement.value is None
    assert judgement.reason.startswith("No usable answer after 2 attempts")
    assert judgement.attempts == 2
    assert 2 <= judgement.usage.calls <= 4
    assert judgement.raw is not None


def test_runner_totals_the_judge_usage() -> None:
    import io

    from rageval_lc.engine.jsonl import evaluate_lines

    row = json.dumps({"id": "g", "question": GUIDE_SAMPLE.question, "contexts": GUIDE_DOCS, "response": GUIDE_RESPONSE})
    dspy_judge, _ = judge(GUIDE_ANSWER)
    report = evaluate_lines([row, row.replace('"g"', '"h"')], io.StringIO(), judge=dspy_judge, trace_mode="capstone")
    assert report.usage["trace_labels"]["calls"] == 2
    assert report.usage["trace_labels"]["estimated_tokens"] > 200
    assert report.summaries[0].name == "context_relevance" and report.summaries[0].mean == 0.2


def test_the_caching_adapter_sends_the_same_prompt_as_dspys() -> None:
    import dspy

    from rageval_lc.judges.llm.modules import CachingChatAdapter
    from rageval_lc.judges.llm.signatures import SIGNATURES

    caching = CachingChatAdapter()
    for signature in SIGNATURES.values():
        expected = dspy.ChatAdapter().format_system_message(signature)
        assert caching.format_system_message(signature) == expected
        assert caching.format_system_message(signature) == expected  # from the cache
    renamed = SIGNATURES["trace_labels"].with_instructions("Label the sentences.")
    assert "Label the sentences." in caching.format_system_message(renamed)  # a compiled signature: a new entry


# Fingerprints of every judgement's module state, Signature (instructions, fields and their types) and the
# system message DSPy's ChatAdapter renders from it, recorded before the modules were generated from a table:
# compiled judges and cache keys depend on them, so any change to the prompts must be deliberate.
PROMPT_FINGERPRINTS = {
    "trace_labels/False": "aba5cb596801cb2f",
    "trace_labels/True": "da0b541b937abe53",
    "extract_claims/False": "05667638d3c73b4f",
    "extract_claims/True": "6677ec2f71bbc64b",
    "verify_claims/False": "4f20d0ffbd353201",
    "verify_claims/True": "44e04383b09d65d6",
    "context_relevance/False": "9d99fffa0ad7aa7c",
    "context_relevance/True": "8eefee458862d402",
    "attribute_reference/False": "3e42e718261bc117",
    "attribute_reference/True": "2642f0386b9dcc0f",
    "generate_questions/False": "c0d224f661a6b5ad",
    "generate_questions/True": "ecdbd44a98b679f4",
    "rate_answer_relevance/False": "d333948a737d1388",
    "rate_answer_relevance/True": "0cef7e36c94bf56a",
    "factual_accuracy/False": "6e58cd40aa880c11",
    "factual_accuracy/True": "2dd83b3ae6159cd3",
    "classify_answer/False": "66e70ebfcd1ff7a6",
    "classify_answer/True": "dadea1a632ec738a",
    "assess_reference/False": "ecb2805014779421",
    "assess_reference/True": "654f08e5a26c46b3",
    "assess_all/False": "44be073d156c596f",
    "assess_all/True": "f1953671af656f59",
}


@pytest.mark.parametrize("key", sorted(PROMPT_FINGERPRINTS))
def test_prompts_and_module_state_are_unchanged(key: str) -> None:
    import hashlib

    import dspy
    from dspy.utils import DummyLM

    from rageval_lc.judges.llm.signatures import SIGNATURES

    name, cot = key.split("/")
    module = DspyJudge(DummyLM([]), chain_of_thought=cot == "True").modules[name]
    signature = SIGNATURES[name]
    # an item type's repr names its module: the fingerprints were recorded before signatures.py moved to llm/
    moved = ("judges.llm.signatures.", "judges.signatures.")
    payload = {
        "class": type(module).__name__,
        "state": module.dump_state(),
        "instructions": signature.instructions,
        "fields": {
            k: [repr(f.annotation).replace(*moved), f.json_schema_extra] for k, f in signature.model_fields.items()
        },
        "system": dspy.ChatAdapter().format_system_message(module.predictors()[0].signature),
    }
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:16]
    assert digest == PROMPT_FINGERPRINTS[key]
