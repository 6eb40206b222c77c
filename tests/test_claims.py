"""What is a claim (SPEC §6, issue 43 item 3, issue 44 items 2-3): claim-free sentences, empty answers, and the
metrics that read sentence support agreeing on them."""

from __future__ import annotations

import json

import pytest

from rageval_lc.text import claim_free_kind, is_claim, is_empty_answer

#: Sentences written the way RAG answers write them, each with the kind a careful reader gives it.
CLAIM_FREE = [
    ("## Installation", "heading"),
    ("### Step 2: connect the cable", "heading"),
    ("**Troubleshooting**", "heading"),
    ("**Note:**", "heading"),
    ("```python", "code"),
    ("```", "code"),
    ("pip install rageval-lc", None),  # a command in prose is kept as a claim: it says what to run
    ("print(model.predict(x))", "code"),
    ("1.", "empty"),
    ("-", "empty"),
    ("Hello!", "greeting"),
    ("Hope this helps!", "greeting"),
    ("Let me know if you have any other questions.", "greeting"),
    ("Thank you for your question.", "greeting"),
    ("Here is how:", "meta"),
    ("Here are the steps:", "meta"),
    ("The steps are as follows:", "meta"),
    ("Follow these steps to reset it:", "meta"),
    ("I don't know.", "refusal"),
    ("I do not know the answer to that.", "refusal"),
    ("I do not have specific information about the 2023 release.", "refusal"),
    ("The context does not mention the tower's height.", "refusal"),
    ("The provided documents do not contain information about pricing.", "refusal"),
    ("Unfortunately, the documents do not say when it opened.", "refusal"),
    ("There is no information about side effects in the passages.", "refusal"),
    ("I'm sorry, but I cannot answer that from the given context.", "refusal"),
]
CLAIMS = [
    "The Eiffel Tower was finished in 1889.",
    "- The tower is 330 m tall.",
    "1. Press Menu and choose Settings.",
    "To reset the TV, press Menu.",
    "It opened in 1990, but I don't know the month.",
    "Yes, the museum is open on Mondays.",
    "No.",
    "It may cause headaches in some patients.",
    "Based on the context, it was built in 1889.",
    "In summary, the tower is tall and old.",
]


@pytest.mark.parametrize(("sentence", "kind"), CLAIM_FREE)
def test_a_sentence_that_makes_no_claim_is_told_apart(sentence: str, kind: str | None) -> None:
    assert claim_free_kind(sentence) == kind


@pytest.mark.parametrize("sentence", CLAIMS)
def test_a_sentence_that_states_something_is_a_claim(sentence: str) -> None:
    assert is_claim(sentence), claim_free_kind(sentence)


@pytest.mark.parametrize(("answer", "empty"), [("", True), ("  \n\t ", True), (None, True), (".", False)])
def test_an_empty_answer_is_nothing_but_whitespace(answer: str | None, empty: bool) -> None:
    assert is_empty_answer(answer) is empty


@pytest.fixture(scope="module")
def offline_scores():
    from rageval_lc.adapters import RagEvaluator

    contexts = ["The Skyline Tower is 320 metres tall.", "It was completed in 2011 after four years of work."]

    def score(metric: str, answer: str) -> dict:
        return RagEvaluator(metric).evaluate_strings(
            prediction=answer, input="How tall is the Skyline Tower?", contexts=contexts
        )

    return score


@pytest.mark.parametrize("answer", ["", "   ", "\n\n"])
@pytest.mark.parametrize("metric", ["faithfulness", "trace"])
def test_an_empty_answer_is_undetermined_with_its_reason(offline_scores, metric: str, answer: str) -> None:
    out = offline_scores(metric, answer)
    assert out["score"] is None
    assert out["value"] == "undetermined"
    assert "The answer is empty" in out["reasoning"]


def test_i_don_t_know_is_scored_one_way_by_faithfulness_and_adherence(offline_scores) -> None:
    faithful = offline_scores("faithfulness", "I don't know.")
    trace = offline_scores("trace", "I don't know.")
    adherence = trace["results"]["adherence"]
    assert faithful["score"] == pytest.approx(1.0, abs=1e-9)
    assert adherence["score"] == pytest.approx(1.0, abs=1e-9)
    assert "makes no claim" in faithful["reasoning"]


def test_a_heading_above_a_supported_sentence_does_not_make_the_answer_unsupported(offline_scores) -> None:
    trace = offline_scores("trace", "## Height\nThe Skyline Tower is 320 metres tall.")
    adherence = trace["results"]["adherence"]
    assert adherence["score"] == pytest.approx(1.0, abs=1e-9)


def test_the_gate_fails_a_run_of_empty_answers(tmp_path) -> None:
    from rageval_lc.cli import main

    rows = [
        {"question": "How tall is it?", "contexts": ["The tower is 320 metres tall."], "response": answer}
        for answer in ("", " ", "The tower is 320 metres tall.")
    ]
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "scores.jsonl"
    assert main(["evaluate", str(data), "--metrics", "faithfulness", "--out", str(out)]) == 0
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["status"]["faithfulness"] for r in written] == ["undetermined", "undetermined", "ok"]
    assert main(["gate", str(out), "--min", "faithfulness=0.8"]) == 1


def test_the_report_page_shows_an_empty_answer_as_empty() -> None:
    from rageval_lc.metrics.spec import EMPTY_ANSWER
    from rageval_lc.reports.html import render_html

    rows = [
        {"id": "r1", "response": "", "scores": {"context_relevance": 0.1, "adherence": None},
         "status": {"context_relevance": "ok", "adherence": "undetermined"},
         "reason": {"context_relevance": "1 of 10 relevant.", "adherence": EMPTY_ANSWER}},
        {"id": "r2", "response": "Paris.", "scores": {"context_relevance": 0.2, "adherence": 0.0},
         "status": {"context_relevance": "ok", "adherence": "ok"},
         "reason": {"context_relevance": "2 of 10 relevant.", "adherence": "a is unsupported."}},
    ]  # fmt: skip
    page = render_html(rows, title="run")
    assert "(empty answer)" in page
    assert "not in the results row" not in page


def test_separate_mode_leaves_a_refusal_out_of_the_claims_too() -> None:
    """Issue 44 item 3 in the separate scoring mode: the offline judge extracts every sentence as a claim; the
    refusal among them is no claim, so faithfulness reads the one claim (supported)."""
    from rageval_lc import evaluate_sample

    sample = {"question": "How tall is it?", "contexts": ["The Skyline Tower is 320 metres tall."],
              "response": "The Skyline Tower is 320 metres tall. I don't know when it was built."}  # fmt: skip
    result = evaluate_sample(sample, ["faithfulness"], scoring_mode="separate")
    claims = result.results["faithfulness"].details["claims"]
    assert [c["claim"] for c in claims] == ["The Skyline Tower is 320 metres tall."]
