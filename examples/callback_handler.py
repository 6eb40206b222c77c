"""Score a chain inline: the callback handler collects each run's question, retrieved documents and
answer, scores them in the background with the offline judge, and appends one JSON line per run.

    python examples/callback_handler.py [scores.jsonl]
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough

from rageval_lc.adapters import JsonlSink, RagEvalCallbackHandler


class Retriever(BaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return [
            Document(page_content="The Eiffel Tower is in Paris. It was finished in 1889."),
            Document(page_content="Bananas are a good source of potassium."),
        ]


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp()) / "scores.jsonl"
    model = FakeListChatModel(responses=["The Eiffel Tower was finished in 1889."])
    prompt = RunnableLambda(lambda p: f"{p['question']}\n" + "\n".join(d.page_content for d in p["docs"]))
    chain = RunnableParallel(question=RunnablePassthrough(), docs=Retriever()) | prompt | model | StrOutputParser()
    with RagEvalCallbackHandler(["faithfulness", "context_precision"], sinks=[JsonlSink(path)]) as handler:
        answers = chain.batch(["When was the Eiffel Tower finished?"] * 3, config={"callbacks": [handler]})
    print(f"{len(answers)} answers; {len(handler.results)} runs scored into {path.name}:")
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        print(f"  run …{row['run_id'][-8:]}: {len(row['contexts'])} documents, "
              f"context precision {row['scores']['context_precision']:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
