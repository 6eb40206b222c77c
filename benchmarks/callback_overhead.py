"""Latency the callback handler adds to a chain of about 20 ms, measured in one run.

A retriever, a 20 ms "model" and an answer; p50 and p95 latency of ``invoke`` over N calls without the
handler, with a do-nothing LangChain handler (the cost of callbacks as such), with ours in background mode
(scoring on a worker thread with the offline judge), and inline (the score computed before ``invoke``
returns), as ratios to the run without. Target: background p50 ≤ 1.05×. The modes are interleaved in
rounds so that drifts in machine load hit them alike.

    python benchmarks/callback_overhead.py [--runs 200] [--metrics faithfulness,context_precision]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from langchain_core.callbacks import BaseCallbackHandler, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough

from rageval_lc.adapters import RagEvalCallbackHandler
from rageval_lc.report import format_table

DOCUMENTS = [
    "The Eiffel Tower is a wrought-iron lattice tower in Paris. It was finished in 1889.",
    "It is named after the engineer Gustave Eiffel, whose company designed and built it.",
]


class Retriever(BaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return [Document(page_content=d) for d in DOCUMENTS]


def slow_model(parts: dict) -> str:
    time.sleep(0.02)
    return f"The Eiffel Tower was finished in 1889. You asked: {parts['question']}"


def latencies(chain, runs: int, callbacks: list) -> list[float]:
    out = []
    for i in range(runs):
        start = time.perf_counter()
        chain.invoke(f"When was the Eiffel Tower finished? ({i})", config={"callbacks": callbacks})
        out.append(time.perf_counter() - start)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--metrics", default="faithfulness,context_precision")
    args = parser.parse_args()
    chain = RunnableParallel(question=RunnablePassthrough(), docs=Retriever()) | RunnableLambda(slow_model)
    background = RagEvalCallbackHandler(args.metrics)
    inline = RagEvalCallbackHandler(args.metrics, judge=background.judge, background=False)
    latencies(chain, 5, [inline])  # load the model and warm every path before timing
    latencies(chain, 10, [])
    modes = {"no handler": [], "do-nothing handler": [BaseCallbackHandler()], "background": [background]}
    modes["inline"] = [inline]
    results: dict[str, list[float]] = {name: [] for name in modes}
    rounds = 10
    for _ in range(rounds):
        for name, callbacks in modes.items():
            results[name] += latencies(chain, args.runs // rounds, callbacks)
            if name == "background":
                background.wait()  # each round starts with an empty queue
    background.close()
    base = statistics.median(results["no handler"])
    rows = []
    for name, values in results.items():
        p50, p95 = statistics.median(values), statistics.quantiles(values, n=20)[18]
        rows.append([name, round(1000 * p50, 2), round(p50 / base, 3), round(1000 * p95, 2)])
    print(f"{args.runs} invokes of a ~20 ms chain; metrics {args.metrics}; offline judge\n")
    print(format_table(["mode", "p50 ms", "p50 × no handler", "p95 ms"], rows))
    print(f"\nbackground: {len(background.results)} runs scored, all in the background worker")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
