"""A rageval metric driving DSPy: ``dspy.Evaluate`` and ``BootstrapFewShot`` over a small RAG program,
offline (``DummyLM`` plays the program's model; the metric's judge is the offline one).

    python examples/dspy_optimizer.py
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import dspy
from dspy.utils import DummyLM

from rageval_lc.adapters import dspy_metric

FACTS = {
    "Where is the Eiffel Tower?": "The Eiffel Tower is in Paris.",
    "Where does the Cornish heath grow?": "The Cornish heath grows on the Lizard peninsula.",
    "What is the capital of Japan?": "Tokyo is the capital of Japan.",
    "Which planet is largest?": "Jupiter is the largest planet.",
}
TRAIN = [
    dspy.Example(question=q, contexts=[fact], answer=fact).with_inputs("question", "contexts")
    for q, fact in FACTS.items()
]


class Rag(dspy.Module):
    def __init__(self) -> None:
        super().__init__()
        self.respond = dspy.Predict("question, contexts -> answer")

    def forward(self, question: str, contexts: list[str]) -> dspy.Prediction:
        return self.respond(question=question, contexts=contexts)


def main() -> None:
    # the program's "model" answers the first two questions from the facts and gives up on the others
    replies = [{"answer": fact} for fact in list(FACTS.values())[:2]] + [{"answer": "I don't know."}] * 2
    metric = dspy_metric("semantic_similarity", threshold=0.9)
    with dspy.context(lm=DummyLM(replies)):
        score = dspy.Evaluate(devset=TRAIN, metric=metric, num_threads=1)(Rag()).score
    print(f"dspy.Evaluate with rageval semantic_similarity: {score:.1f}")
    with dspy.context(lm=DummyLM(replies)):
        optimizer = dspy.BootstrapFewShot(metric=metric, max_bootstrapped_demos=4, max_labeled_demos=0)
        compiled = optimizer.compile(Rag(), trainset=TRAIN)
    demos = compiled.respond.demos
    print(f"BootstrapFewShot kept {len(demos)} demonstrations: {[d.question for d in demos]}")


if __name__ == "__main__":
    main()
