"""RAG tests in pytest: each test scores a sample of your RAG system and asserts the scores it must reach.

Run it with the offline judge (the default; no API key), with the labels in the samples, or with any LLM:

    pytest examples/test_rag_with_rageval.py                          # offline judge
    pytest examples/test_rag_with_rageval.py --rageval-judge labels   # the labels written below
    pytest examples/test_rag_with_rageval.py --rageval-judge dspy:openai/gpt-4o-mini

rageval_lc's pytest plugin (loaded when rageval_lc is installed; else add ``-p rageval_lc.adapters.pytest_plugin``)
gives the ``rageval_judge`` fixture (built once per session) and the ``--rageval-judge`` option. In your own
tests, ``contexts`` and ``response`` come from your retriever and your chain.
"""

from __future__ import annotations

from rageval_lc import RagSample, assert_scores, evaluate

#: Labels let ``--rageval-judge labels`` reproduce the scores without any model; other judges ignore them.
GROUNDED = RagSample(
    id="eiffel",
    question="Where is the Eiffel Tower?",
    contexts=["The Eiffel Tower is in Paris. It was finished in 1889.", "Paris is the capital of France."],
    response="The Eiffel Tower is in Paris.",
    labels={
        "all_relevant_sentence_keys": ["0a", "1a"],
        "all_utilized_sentence_keys": ["0a"],
        "sentence_support_information": [
            {"response_sentence_key": "a", "supporting_sentence_keys": ["0a"], "fully_supported": True}
        ],
    },
)

CATS = RagSample(
    id="cats",
    question="How much do cats sleep?",
    contexts=["Cats sleep for 12 to 16 hours a day. Kittens sleep even more."],
    response="Cats sleep for 12 to 16 hours a day.",
    labels={
        "all_relevant_sentence_keys": ["0a"],
        "all_utilized_sentence_keys": ["0a"],
        "sentence_support_information": [
            {"response_sentence_key": "a", "supporting_sentence_keys": ["0a"], "fully_supported": True}
        ],
    },
)


def test_the_answer_is_grounded_in_the_contexts(rageval_judge) -> None:
    # every response sentence supported (adherence 1), and the answer's claims backed by the contexts
    assert_scores(GROUNDED, judge=rageval_judge, adherence=1, faithfulness=">=0.8")


def test_the_retriever_brings_relevant_contexts(rageval_judge) -> None:
    assert_scores(CATS, judge=rageval_judge, context_relevance=">=0.5")


def test_a_batch_meets_the_bar_on_every_row(rageval_judge) -> None:
    # a failure names the row (its id), the score, the condition and the judge's reason
    run = evaluate([GROUNDED, CATS], "trace,faithfulness", judge=rageval_judge, concurrency=1)
    assert_scores(run, faithfulness=">=0.8", completeness=">=0.5")
