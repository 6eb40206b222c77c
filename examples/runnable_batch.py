"""A rageval metric as a LangChain Runnable: batch over rows, and piped after a RAG chain.

python examples/runnable_batch.py
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from langchain_core.runnables import RunnableLambda

from rageval_lc.adapters import RagEvaluator

DOCUMENT = "Erica vagans, the Cornish heath, grows on the Lizard peninsula in Cornwall."
ROWS = [
    {"question": "Where does the Cornish heath grow?", "contexts": [DOCUMENT],
     "response": "On the Lizard peninsula.", "reference": "On the Lizard peninsula in Cornwall."},
    {"question": "Where does the Cornish heath grow?", "contexts": [DOCUMENT],
     "response": "I don't know.", "reference": "On the Lizard peninsula in Cornwall."},
]  # fmt: skip


def main() -> None:
    classify = RagEvaluator("answer_classification")
    for row, out in zip(ROWS, classify.batch(ROWS), strict=True):
        print(f"{row['response']!r}: {out['value']}")
    rag = RunnableLambda(lambda q: {"question": q, "contexts": [DOCUMENT], "answer": "On the Lizard peninsula."})
    scored = (rag | RagEvaluator("faithfulness")).invoke("Where does the Cornish heath grow?")
    print(f"faithfulness of the chain's answer: {scored['score']:.2f} ({scored['status']})")


if __name__ == "__main__":
    main()
