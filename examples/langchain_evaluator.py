"""A rageval metric as a LangChain string evaluator, offline (the offline judge; no API key).

python examples/langchain_evaluator.py
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from rageval_lc.adapters import RagEvaluator

CONTEXTS = [
    "The Eiffel Tower is a wrought-iron lattice tower in Paris. It was finished in 1889.",
    "Bananas are a good source of potassium.",
]


def main() -> None:
    precision = RagEvaluator("context_precision")
    print(f"{precision.evaluation_name}: requires input {precision.requires_input}, "
          f"reference {precision.requires_reference}")  # fmt: skip
    out = precision.evaluate_strings(
        prediction="It was finished in 1889.", input="When was the Eiffel Tower finished?", contexts=CONTEXTS
    )
    print(f"score {out['score']:.2f}: {out['reasoning']}")
    similarity = RagEvaluator("semantic_similarity")
    same = similarity.evaluate_strings(prediction="In 1889.", reference="In 1889.", input="When?")
    print(f"semantic similarity of identical answers: {same['score']:.2f}")
    labels = RagEvaluator("answer_classification")
    out = labels.evaluate_strings(prediction="I do not know.", reference="1889", input="When was it finished?")
    print(f"classification: {out['value']} ({out['reasoning']})")


if __name__ == "__main__":
    main()
