"""Throughput figures, each against a baseline measured in the same run.

1. Concurrency: 200 samples judged by a fake chat model that answers after 100 ms, at concurrency 16, over
   the ideal (judge calls × 0.1 s / 16). Target ≤ 1.2×.
2. Offline: TRACe with the local judge over 500 RAGBench rows, over the floor — one encode of every unique
   text the judge needs (question, response, every sentence) with the same model. Target ≤ 1.25×.
3. ``import rageval_lc`` in a fresh interpreter, over ``import pydantic`` (what it cannot avoid).

    python benchmarks/throughput.py [--samples 200] [--rows 500]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rageval_lc.reports.summary import format_table

SHARED = Path(os.environ.get("RAGEVAL_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))
LLM_METRICS = ["trace", "faithfulness", "context_precision", "context_recall", "factual_accuracy"]
LLM_METRICS += ["answer_classification"]


def concurrency_figure(n: int, concurrency: int = 16, latency: float = 0.1) -> list[Any]:
    from rageval_lc.engine.engine import evaluate
    from rageval_lc.judges.llm.dspy_judge import DspyJudge
    from rageval_lc.schema import RagSample
    from tests.fakes import JudgementChatModel
    from tests.scoring.test_ragas_family import ANSWERS, GUIDE_DOCS, GUIDE_RESPONSE, QUESTION, REFERENCE

    class SlowModel(JudgementChatModel):
        def _generate(self, *args: Any, **kwargs: Any) -> Any:
            time.sleep(latency)
            return super()._generate(*args, **kwargs)

    model = SlowModel(answers=ANSWERS)
    judge = DspyJudge(model, max_retries=0)
    samples = [
        RagSample(id=str(i), question=f"{QUESTION} ({i})", contexts=GUIDE_DOCS, response=GUIDE_RESPONSE,
                  reference=REFERENCE)
        for i in range(n)
    ]  # fmt: skip
    start = time.perf_counter()
    run = evaluate(samples, LLM_METRICS, judge=judge, concurrency=concurrency, retries=0)
    wall = time.perf_counter() - start
    calls = sum(model.calls.values())
    ideal = calls * latency / concurrency
    ok = run.summary("faithfulness").ok
    return [f"{n} samples, fake LLM {latency * 1000:.0f} ms, concurrency {concurrency} ({calls} calls, {ok} ok)",
            round(wall, 2), round(ideal, 2), round(wall / ideal, 2)]  # fmt: skip


def offline_figure(rows: int) -> list[Any]:
    from rageval_lc.datasets.ragbench import ragbench_record
    from rageval_lc.engine.engine import evaluate
    from rageval_lc.judges.offline.encoder import SentenceTransformerEncoder
    from rageval_lc.judges.offline.judge import OfflineJudge
    from rageval_lc.judges.offline.nli import NliModel

    files = sorted((SHARED / "data" / "ragbench").glob("*_validation.jsonl"))
    lines = [line for path in files for line in path.read_text(encoding="utf-8").splitlines()]
    samples = [ragbench_record(json.loads(line)).sample for line in lines[:: max(1, len(lines) // rows)][:rows]]
    texts: list[str] = []
    for s in samples:
        texts += [s.question, s.response]
        texts += [t for doc in s.sentences.documents for _, t in doc] + [t for _, t in s.sentences.response]
    unique = list(dict.fromkeys(texts))
    encoder = SentenceTransformerEncoder()
    encoder.encode(["warm up"])
    start = time.perf_counter()
    encoder.encode(unique)
    floor = time.perf_counter() - start
    judge = OfflineJudge(encoder=encoder)
    start = time.perf_counter()
    evaluate(samples, "trace", judge=judge, concurrency=1)
    wall = time.perf_counter() - start
    # the NLI model's share of the floor: every pair the run scored, in one batched call of a fresh model
    pairs = list(judge.nli._cache)
    nli = NliModel(device=judge.nli.device)
    nli.predict([("warm", "up")])
    start = time.perf_counter()
    nli.predict(pairs)
    nli_floor = time.perf_counter() - start
    what = f"TRACe, local judge, {len(samples)} RAGBench rows ({len(unique):,} unique texts, {len(pairs):,} NLI pairs)"
    return [what,
            round(wall, 2), f"encode {floor:.2f} + NLI {nli_floor:.2f}", round(wall / (floor + nli_floor), 2),
            round(wall / floor, 2)]  # fmt: skip


def import_figure() -> list[Any]:
    def best(statement: str) -> float:
        times = []
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", statement], check=True)
            times.append(time.perf_counter() - start)
        return min(times)

    ours, base = best("import rageval_lc"), best("import pydantic")
    return ["import rageval_lc (fresh interpreter, best of 5) vs import pydantic", round(ours, 3), round(base, 3),
            round(ours / base, 2)]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--rows", type=int, default=500)
    args = parser.parse_args()
    rows = [concurrency_figure(args.samples), offline_figure(args.rows), import_figure()]
    rows = [row + [""] * (5 - len(row)) for row in rows]
    print(format_table(["measurement", "ours (s)", "baseline (s)", "ratio", "ratio to the encode alone"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
