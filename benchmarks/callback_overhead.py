"""Latency the callback handler adds to a chain of about 20 ms, measured in one run.

A retriever, a 20 ms "model" and an answer; p50 and p95 latency of ``invoke`` over N calls without the
handler, with a do-nothing LangChain handler (the cost of callbacks as such), with ours in background mode
(scoring on a worker thread with the offline judge), and inline (the score computed before ``invoke``
returns), as ratios to the run without; and with a do-nothing ``BaseTracer`` subclass (langchain_core's run tree
alone: the floor of a handler built on it). Target: background p50 ≤ 1.05×. The modes are interleaved in
rounds so that drifts in machine load hit them alike. Every call asks about a different structure, with its
own two documents and answer (no text is seen twice, so the judge's caches never answer for it). "CPU ms"
is the process's CPU time per call, all threads: machine load inflates it far less than wall time.

Then the event loop under ``asyncio``: K concurrent ``ainvoke`` calls per mode, the wall time and the
longest the loop waited for a 10 ms tick (inline scoring runs on the loop's executor, not on the loop).

    python benchmarks/callback_overhead.py [--runs 200] [--concurrent 20] [--metrics faithfulness,context_precision]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import statistics
import time
from dataclasses import dataclass

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from langchain_core.callbacks import BaseCallbackHandler, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough
from langchain_core.tracers.base import BaseTracer

from rageval_lc.adapters import RagEvalCallbackHandler
from rageval_lc.reports.summary import format_table

KINDS = ["bridge", "tower", "dam", "lighthouse", "stadium", "cathedral", "observatory", "canal", "viaduct", "museum"]
MATERIALS = ["wrought-iron", "granite", "reinforced concrete", "sandstone", "steel", "brick", "timber", "marble"]
TOWNS = ["Arlen", "Brisk", "Corvale", "Dunmore", "Elsby", "Falkirk", "Greyhaven", "Holm", "Istra", "Jorvik"]
PEOPLE = ["Ada Brennan", "Tomas Okafor", "Lena Varga", "Ravi Menon", "Ines Duarte", "Karl Jansen", "Mei Tanaka"]


@dataclass(frozen=True)
class Case:
    question: str
    documents: tuple[str, str]
    answer: str


def case(i: int) -> Case:
    """Call i's question, documents and answer; each sentence holds a number of its own, so no text recurs."""
    rng = random.Random(i)
    kind, material, person = rng.choice(KINDS), rng.choice(MATERIALS), rng.choice(PEOPLE)
    name = f"the {kind} of {rng.choice(TOWNS)} in district {i + 1}"
    begun = rng.randrange(1780, 1990)
    finished = begun + rng.randrange(2, 15)
    documents = (
        f"{name[0].upper()}{name[1:]} is a {material} {kind}. Work on it began in {begun}, {i + 3} days after "
        f"the plans were approved, and it was finished in {finished}.",
        f"It is named after {person}, whose firm of {i + 20} workers designed it. It is "
        f"{rng.randrange(12, 400)} metres long and draws {i + 5} hundred visitors a year.",
    )
    return Case(f"When was {name} finished?", documents, f"{name[0].upper()}{name[1:]} was finished in {finished}.")


CASES: dict[str, Case] = {}  # by question: what the retriever and the model answer
_CALL_NUMBERS = itertools.count()


def fresh_questions(n: int) -> list[str]:
    """N questions never asked before (their cases registered in CASES)."""
    batch = [case(next(_CALL_NUMBERS)) for _ in range(n)]
    CASES.update((c.question, c) for c in batch)
    return [c.question for c in batch]


class Retriever(BaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return [Document(page_content=d) for d in CASES[query].documents]


def slow_model(parts: dict) -> str:
    time.sleep(0.02)
    return CASES[parts["question"]].answer


async def aslow_model(parts: dict) -> str:
    await asyncio.sleep(0.02)
    return CASES[parts["question"]].answer


class DoNothingTracer(BaseTracer):
    """langchain_core's run tree and nothing else: what a handler built on ``BaseTracer`` pays before its own work
    (issue 47 asked whether ours should be one)."""

    def _persist_run(self, run) -> None:
        pass


def latencies(chain, questions: list[str], callbacks: list) -> list[tuple[float, float]]:
    """Per call: wall seconds and the process's CPU seconds (all threads; less sensitive to machine load)."""
    out = []
    for question in questions:
        start, cpu = time.perf_counter(), time.process_time()
        chain.invoke(question, config={"callbacks": callbacks})
        out.append((time.perf_counter() - start, time.process_time() - cpu))
    return out


async def concurrent_calls(chain, questions: list[str], callbacks: list) -> tuple[float, float]:
    """Wall time of the concurrent ainvokes and the loop's longest wait for a 10 ms tick."""
    lags: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        while not stop.is_set():
            start = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append(time.perf_counter() - start - 0.01)

    tick = asyncio.create_task(ticker())
    start = time.perf_counter()
    await asyncio.gather(*(chain.ainvoke(q, config={"callbacks": callbacks}) for q in questions))
    wall = time.perf_counter() - start
    stop.set()
    await tick
    return wall, max(lags)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--concurrent", type=int, default=20, help="concurrent ainvoke calls per mode")
    parser.add_argument("--metrics", default="faithfulness,context_precision")
    args = parser.parse_args()
    rounds = 10
    per_round = max(1, args.runs // rounds)
    chain = RunnableParallel(question=RunnablePassthrough(), docs=Retriever()) | RunnableLambda(
        slow_model, afunc=aslow_model
    )
    background = RagEvalCallbackHandler(args.metrics)
    inline = RagEvalCallbackHandler(args.metrics, judge=background.judge, background=False)
    latencies(chain, fresh_questions(5), [inline])  # load the model and warm every path before timing
    latencies(chain, fresh_questions(10), [])
    modes = {
        "no handler": [],
        "do-nothing handler": [BaseCallbackHandler()],
        "do-nothing BaseTracer": [DoNothingTracer()],
    }
    modes["background"] = [background]
    modes["inline"] = [inline]
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in modes}
    for _ in range(rounds):
        for name, callbacks in modes.items():
            results[name] += latencies(chain, fresh_questions(per_round), callbacks)
            if name == "background":
                background.wait()  # each round starts with an empty queue
    base = statistics.median(wall for wall, _ in results["no handler"])
    rows = []
    for name, values in results.items():
        walls = [wall for wall, _ in values]
        p50, p95 = statistics.median(walls), statistics.quantiles(walls, n=20)[18]
        cpu = statistics.median(cpu for _, cpu in values)
        rows.append([name, round(1000 * p50, 2), round(p50 / base, 3), round(1000 * p95, 2), round(1000 * cpu, 1)])
    print(f"{per_round * rounds} invokes per mode of a ~20 ms chain, each with its own documents; metrics")
    print(f"{args.metrics}; offline judge")
    print(f"load average at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs\n")
    print(format_table(["mode", "p50 ms", "p50 × no handler", "p95 ms", "CPU ms (p50)"], rows))

    rows = []
    for name in ("no handler", "background", "inline"):
        wall, lag = asyncio.run(concurrent_calls(chain, fresh_questions(args.concurrent), modes[name]))
        if name == "background":
            background.wait()
        rows.append([name, round(wall, 2), round(1000 * lag, 1)])
    print(f"\n{args.concurrent} concurrent ainvoke calls per mode (asyncio):\n")
    print(format_table(["mode", "wall s", "longest loop lag ms"], rows))
    background.close()
    print(f"\nbackground: {len(background.results)} runs scored, all in the background worker")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
