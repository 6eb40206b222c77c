"""Did compiling a DSPy program help? Score it before and after on a devset with a rageval metric, then
compare the two runs row by row (mean difference, paired-bootstrap 95 % interval, permutation p-value) — offline.

    python examples/dspy_before_after.py

The program's "model" is a stand-in (a DSPy ``DummyLM``): without demonstrations it answers with the first
sentence of the first context; once ``LabeledFewShot`` has put demonstrations in the prompt it quotes the
context sentence sharing most words with the question. So the figures show the mechanics of the comparison,
not what compilation gains with a real model: swap in ``dspy.LM("openai/gpt-4o-mini")`` for that. The metric
is rageval's ``semantic_similarity`` to the reference answer (the offline embedding model).
"""

from __future__ import annotations

import os
import re

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import dspy
from dspy.utils import DummyLM

import rageval_lc
from rageval_lc.adapters import dspy_metric
from rageval_lc.reports.compare import format_comparison

# (question, contexts, reference answer): the answer sits in the second sentence of most contexts
ROWS = [
    ("Where is the Eiffel Tower?", "Paris hosts many monuments. The Eiffel Tower stands in Paris.",
     "The Eiffel Tower stands in Paris."),
    ("Where does the Cornish heath grow?", "Heaths are shrubs. The Cornish heath grows on the Lizard peninsula.",
     "The Cornish heath grows on the Lizard peninsula."),
    ("What is the capital of Japan?", "Japan is an island nation. Tokyo is the capital of Japan.",
     "Tokyo is the capital of Japan."),
    ("Which planet is the largest?", "The solar system has eight planets. Jupiter is the largest planet.",
     "Jupiter is the largest planet."),
    ("When did the Berlin Wall fall?", "Berlin was divided for decades. The Berlin Wall fell in 1989.",
     "The Berlin Wall fell in 1989."),
    ("Who wrote Hamlet?", "William Shakespeare wrote Hamlet. It is a tragedy in five acts.",
     "William Shakespeare wrote Hamlet."),
    ("What do pandas eat?", "Pandas live in the mountains of China. Pandas eat mostly bamboo.",
     "Pandas eat mostly bamboo."),
    ("How long is the Nile?", "Rivers shape many countries. The Nile is about 6,650 kilometres long.",
     "The Nile is about 6,650 kilometres long."),
    ("What is the boiling point of water at sea level?",
     "Water covers most of the planet. Water boils at 100 degrees Celsius at sea level.",
     "Water boils at 100 degrees Celsius at sea level."),
    ("Which gas do plants absorb?", "Plants absorb carbon dioxide from the air. They release oxygen.",
     "Plants absorb carbon dioxide."),
    ("Who painted the Mona Lisa?", "The Louvre holds many paintings. Leonardo da Vinci painted the Mona Lisa.",
     "Leonardo da Vinci painted the Mona Lisa."),
    ("What is the fastest land animal?", "Africa has many large animals. The cheetah is the fastest land animal.",
     "The cheetah is the fastest land animal."),
    ("What language is spoken in Brazil?", "Brazil is the largest country in South America. Brazilians speak "
     "Portuguese.", "Portuguese is spoken in Brazil."),
    ("Where is the Great Barrier Reef?", "Coral reefs are found in warm seas. The Great Barrier Reef lies off "
     "Queensland, Australia.", "The Great Barrier Reef is off the coast of Queensland, Australia."),
]  # fmt: skip
EXAMPLES = [
    dspy.Example(question=q, contexts=[context], answer=answer).with_inputs("question", "contexts")
    for q, context, answer in ROWS
]
TRAIN, DEV = EXAMPLES[:3], EXAMPLES[3:]


class Rag(dspy.Module):
    def __init__(self) -> None:
        super().__init__()
        self.respond = dspy.Predict("question, contexts -> answer")

    def forward(self, question: str, contexts: list[str]) -> dspy.Prediction:
        return self.respond(question=question, contexts=contexts)


class StandInLM(DummyLM):
    """Answers from the prompt's last message: the first context sentence, or — when the prompt carries
    demonstrations — the context sentence sharing most words with the question."""

    def __init__(self) -> None:
        super().__init__([], follow_examples=True)

    def _use_example(self, messages: list[dict]) -> str:
        prompt = messages[-1]["content"]
        question = prompt.split("[[ ## question ## ]]")[1].split("[[ ##")[0]
        contexts = prompt.split("[[ ## contexts ## ]]")[1].split("[[ ##")[0].strip().strip('[]"')
        sentences = re.split(r"(?<=\.)\s+", contexts)
        demonstrated = len(messages) > 2  # system, (demo question, demo answer)..., this question
        words = set(re.findall(r"\w+", question.lower()))
        best = max(sentences, key=lambda s: len(words & set(re.findall(r"\w+", s.lower())))) if demonstrated else None
        return self._format_answer_fields({"answer": best or sentences[0]})


def per_example_rows(program: dspy.Module, metric) -> list[dict]:
    """Score the devset with dspy.Evaluate and keep each example's score as a result row for rageval_lc.compare."""
    evaluation = dspy.Evaluate(devset=DEV, metric=metric, num_threads=1, display_progress=False)(program)
    return [
        {"id": example.question, "status": {"semantic_similarity": "ok"}, "scores": {"semantic_similarity": score}}
        for example, _prediction, score in evaluation.results
    ]


def main() -> None:
    metric = dspy_metric("semantic_similarity")  # rageval's metric, the offline embedding model
    with dspy.context(lm=StandInLM()):
        before = per_example_rows(Rag(), metric)
        compiled = dspy.LabeledFewShot(k=3).compile(Rag(), trainset=TRAIN)
        after = per_example_rows(compiled, metric)
    print(f"Compiled with LabeledFewShot: {len(compiled.respond.demos)} demonstrations; devset of {len(DEV)}.")
    result = rageval_lc.compare(before, after, seed=0)
    print(format_comparison(result, names=("before compilation", "after compilation")))
    figures = result.scores["semantic_similarity"]
    verdict = "helped" if figures.ci_low > 0 and figures.p_value < 0.05 else "is not shown to help"
    print(
        f"\nCompilation {verdict}: semantic similarity {figures.mean_a:.3f} -> {figures.mean_b:.3f}, "
        f"{figures.diff:+.3f} (95% CI {figures.ci_low:+.3f} to {figures.ci_high:+.3f}, p = {figures.p_value:.4f}); "
        f"better on {figures.wins}, same on {figures.ties}, worse on {figures.losses} of {figures.n} questions."
    )


if __name__ == "__main__":
    main()
