"""compile_judge works with every optimizer DSPy ships that fits a judge (offline, scripted LMs).

Each optimizer gets only the arguments its ``compile`` accepts; the task LM answers each training
question with its gold labels, so every optimizer sees full agreement and keeps a working program.
"""

from __future__ import annotations

from collections.abc import Iterator

import dspy
import pytest
from dspy.utils import DummyLM

from rageval_lc.judges.llm.dspy_judge import DspyJudge
from rageval_lc.judges.llm.optimize import compile_judge, trace_agreement_metric, trace_examples
from rageval_lc.judges.llm.signatures import SIGNATURES
from rageval_lc.metrics.trace import trace_scores
from rageval_lc.schema import RagSample

GOLD = {
    "relevance_explanation": "0a answers the question.",
    "all_relevant_sentence_keys": ["0a"],
    "overall_supported_explanation": "b is not in the document.",
    "overall_supported": False,
    "sentence_support_information": [
        {
            "response_sentence_key": "a",
            "explanation": "0a",
            "supporting_sentence_keys": ["0a"],
            "fully_supported": True,
        },
        {"response_sentence_key": "b", "explanation": "none", "supporting_sentence_keys": [], "fully_supported": False},
    ],
    "all_utilized_sentence_keys": ["0a"],
}
QUESTIONS = [f"What do cats do on day {i}?" for i in range(4)]
SAMPLES = [
    RagSample(
        id=f"s{i}",
        question=question,
        contexts=["Cats sleep a lot. Dogs bark."],
        response="Cats sleep a lot. They fly.",
        labels=GOLD,
    )
    for i, question in enumerate(QUESTIONS)
]
#: What an optimizer's prompt model is asked for, by a phrase of its prompt (COPRO, SIMBA, GEPA, InferRules).
PROMPT_ANSWERS = {
    "attempted_instructions": {"proposed_instruction": "Label every key.", "proposed_prefix_for_output_field": "A:"},
    "basic_instruction": {"proposed_instruction": "Label every key.", "proposed_prefix_for_output_field": "A:"},
    "module_names": {"discussion": "Fine.", "module_advice": {"predict": "Keep labelling every key."}},
    "```": {"new_instruction": "```\nLabel every key.\n```"},
}
RULES_ANSWER = {
    "[[ ## examples_text ## ]]": {"reasoning": "Keys matter.", "natural_language_rules": "Label every key."}
}  # asked first


def task_lm() -> DummyLM:
    """Answers each training question with the gold labels; InferRules' rule prompt (which quotes the
    questions) first, as the first matching phrase wins."""
    return DummyLM({**RULES_ANSWER, **{q: GOLD for q in QUESTIONS}, **PROMPT_ANSWERS})


def prompt_lm() -> DummyLM:
    return DummyLM(PROMPT_ANSWERS)


def hashed_vectors(texts: list[str]) -> list[list[float]]:
    return [[float(sum(map(ord, text)) % 7), float(len(text) % 5), 1.0] for text in texts]


OPTIMIZERS = {
    "LabeledFewShot": lambda: dspy.LabeledFewShot(k=2),
    "BootstrapFewShot": lambda: dspy.BootstrapFewShot(
        metric=trace_agreement_metric, max_bootstrapped_demos=1, max_labeled_demos=1
    ),
    "BootstrapFewShotWithRandomSearch": lambda: dspy.BootstrapFewShotWithRandomSearch(
        metric=trace_agreement_metric,
        max_bootstrapped_demos=1,
        max_labeled_demos=1,
        num_candidate_programs=1,
        num_threads=1,
    ),
    "COPRO": lambda: dspy.COPRO(
        prompt_model=prompt_lm(),
        metric=trace_agreement_metric,
        breadth=2,
        depth=1,
        init_temperature=0.5,
    ),
    "SIMBA": lambda: dspy.SIMBA(
        metric=trace_agreement_metric,
        bsize=2,
        num_candidates=2,
        max_steps=1,
        max_demos=1,
        prompt_model=prompt_lm(),
        num_threads=1,
    ),
    "KNNFewShot": lambda: dspy.KNNFewShot(
        k=1,
        trainset=trace_examples(SAMPLES),
        vectorizer=dspy.Embedder(hashed_vectors),
        metric=trace_agreement_metric,
        max_bootstrapped_demos=1,
        max_labeled_demos=1,
    ),
    "GEPA": lambda: dspy.GEPA(
        metric=trace_agreement_metric,
        reflection_lm=prompt_lm(),
        max_metric_calls=8,
        num_threads=1,
        reflection_minibatch_size=1,
        use_merge=False,
    ),
    "InferRules": lambda: dspy.InferRules(
        metric=trace_agreement_metric,
        num_candidates=1,
        num_rules=1,
        num_threads=1,
        max_bootstrapped_demos=1,
        max_labeled_demos=1,
    ),
}


@pytest.fixture(autouse=True)
def packaged_instructions() -> Iterator[None]:
    """Put the packaged instructions back after each test: DSPy's InferRules writes its rules into the signature
    class itself (``predictor.signature.instructions = ...``), which every judge built later in the process shares."""
    kept = {name: signature.instructions for name, signature in SIGNATURES.items()}
    yield
    for name, signature in SIGNATURES.items():
        signature.instructions = kept[name]


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_compile_judge_with_each_optimizer(name: str) -> None:
    judge = DspyJudge(task_lm())
    before = judge.modules["trace_labels"]
    compiled = compile_judge(judge, SAMPLES, optimizer=OPTIMIZERS[name]())
    assert compiled is judge
    assert judge.modules["trace_labels"] is not before  # the compiled program replaced the default one
    outcome = judge.trace_labels(SAMPLES[0])
    assert outcome.ok, outcome.reason
    # hand-worked from GOLD: 1 of 2 document sentences relevant and used, b unsupported
    scores = trace_scores(outcome.value, SAMPLES[0].sentences)
    assert (scores.context_relevance, scores.adherence) == (0.5, 0.0)


def test_few_shot_optimizers_attach_training_demos() -> None:
    judge = compile_judge(DspyJudge(task_lm()), SAMPLES, optimizer=dspy.LabeledFewShot(k=2))
    demos = judge.modules["trace_labels"].predictors()[0].demos
    assert len(demos) == 2 and {d.question for d in demos} <= set(QUESTIONS)


def test_a_teacher_for_an_optimizer_that_takes_none_is_refused() -> None:
    with pytest.raises(ValueError, match=r"LabeledFewShot.*takes no teacher"):
        compile_judge(DspyJudge(task_lm()), SAMPLES, optimizer=dspy.LabeledFewShot(k=1), teacher_lm=task_lm())


def test_a_teacher_lm_bootstraps_the_demos() -> None:
    teacher = task_lm()
    student = DummyLM([])  # would answer "No more responses": every demo must come from the teacher
    optimizer = dspy.BootstrapFewShot(metric=trace_agreement_metric, max_bootstrapped_demos=2, max_labeled_demos=0)
    judge = compile_judge(DspyJudge(student), SAMPLES, optimizer=optimizer, teacher_lm=teacher)
    demos = judge.modules["trace_labels"].predictors()[0].demos
    assert len(demos) == 2 and all(d.all_relevant_sentence_keys == ["0a"] for d in demos)
