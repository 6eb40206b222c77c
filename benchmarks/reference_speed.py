"""Reference metrics against faithfulness, per row, and the latency of the first score in a fresh process.

    python benchmarks/reference_speed.py [--rows 30] [--repeats 1] [--dump scores.json] [--compare scores.json]
    python benchmarks/reference_speed.py --cold [--repeats 1] [--metrics context_recall,semantic_similarity]

1. Per row: the offline judge scores the same N rows (default 30) with ``faithfulness``, ``context_recall``,
   ``factual_accuracy`` and ``answer_classification``, one metric per run as the CLI does (``evaluate``,
   concurrency 1), each run with fresh caches on models loaded beforehand (loading is not timed). It prints
   seconds per row (wall clock, and the process's CPU time: steadier on a busy machine) and the ratios to
   ``faithfulness``. The rows are RAGBench's DelucionQA and EManual
   validation rows whose question has two responses: each row's reference is the other response.
   ``--dump`` writes every score, ``--compare`` checks them against a dump (exit status 1 on a difference):
   run it on two commits to see that the scores are unchanged.
2. ``--cold``: in a fresh interpreter, the first score of one row split into the imports (rageval_lc and its
   engine), the encoder's load, the NLI model's load (each timed where the judge loads it) and the rest of
   the first ``evaluate`` call (the first batch and its scoring), for ``faithfulness`` and each of ``--metrics``
   (with ``--repeats``: the run of the shortest total), on one row (:func:`cold_sample`).

Timings are noisy on a busy machine: compare commits in the same session, by ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHARED = Path(os.environ.get("RAGEVAL_SHARED_DIR", ROOT.parent / "shared"))
if not (SHARED / "data").exists():
    SHARED = Path("/work/shared")
METRICS = ("faithfulness", "context_recall", "factual_accuracy", "answer_classification")
SUBSETS = ("delucionqa", "emanual")


def reference_rows(n: int) -> list[Any]:
    """N RAGBench rows with a reference: for each question answered twice, each response with the other as its
    reference; the subsets interleaved."""
    from rageval_lc.datasets.ragbench import ragbench_record

    per_subset = []
    for subset in SUBSETS:
        path = SHARED / "data" / "ragbench" / f"{subset}_validation.jsonl"
        by_question: dict[str, list[Any]] = defaultdict(list)
        for line in path.read_text(encoding="utf-8").splitlines():
            sample = ragbench_record(json.loads(line)).sample
            by_question[sample.question].append(sample)
        rows = []
        for answers in by_question.values():
            if len(answers) == 2 and answers[0].response.strip() and answers[1].response.strip():
                a, b = answers
                rows += [a.model_copy(update={"reference": b.response}), b.model_copy(update={"reference": a.response})]
        per_subset.append(rows)
    mixed = [row for pair in zip(*per_subset, strict=False) for row in pair]
    return mixed[:n]


def loaded_models() -> tuple[Any, Any]:
    """The encoder and the NLI model, loaded and run once."""
    from rageval_lc.judges.offline.encoder import SentenceTransformerEncoder
    from rageval_lc.judges.offline.nli import NliModel

    encoder = SentenceTransformerEncoder(device="cpu")
    encoder.encode(["warm up"])
    nli = NliModel(device="cpu")
    nli.predict([("warm", "up")])
    return encoder, nli


def fresh_judge(encoder: Any, nli: Any) -> Any:
    """An offline judge on the loaded models, every cache empty."""
    from rageval_lc.judges.offline.judge import OfflineJudge
    from rageval_lc.judges.offline.nli import NliModel

    fresh = NliModel(device="cpu", cache_size=20_000)
    fresh._loaded = nli._loaded
    return OfflineJudge(encoder=encoder, nli=fresh, device="cpu")


def cold_sample() -> Any:
    """The row of the first score: the first of the rows whose response and reference differ in length by at most
    half (the very first has a 35-character response and a 1,400-character reference)."""
    for row in reference_rows(30):
        lengths = len(row.response), len(row.reference)
        if max(lengths) <= 1.5 * min(lengths):
            return row
    msg = "No row with a response and a reference of similar length."
    raise LookupError(msg)


def per_row(rows: int, repeats: int) -> tuple[dict[str, tuple[float, float]], dict[str, list[Any]]]:
    """Wall and CPU seconds per row of each metric (each the best of ``repeats``) and the scores of the last repeat."""
    from rageval_lc.engine.engine import evaluate

    samples = reference_rows(rows)
    encoder, nli = loaded_models()
    best: dict[str, tuple[float, float]] = {}
    scores: dict[str, list[Any]] = {}
    for _ in range(repeats):
        for metric in METRICS:  # interleaved: a burst of load hits every metric alike
            judge = fresh_judge(encoder, nli)
            start, cpu = time.perf_counter(), time.process_time()
            run = evaluate(samples, metric, judge=judge, concurrency=1)
            wall = (time.perf_counter() - start) / len(samples)
            cpu = (time.process_time() - cpu) / len(samples)
            old = best.get(metric, (wall, cpu))
            best[metric] = (min(old[0], wall), min(old[1], cpu))
            scores[metric] = [{name: (m.status, m.score) for name, m in sorted(r.results.items())} for r in run.results]
    return best, scores


_COLD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[3])
from reference_speed import cold_sample  # the rows' module: not timed (it imports only the dataset reader)
start = time.perf_counter()
from rageval_lc.engine.engine import evaluate
from rageval_lc.judges.offline.encoder import SentenceTransformerEncoder
from rageval_lc.judges.offline.judge import OfflineJudge
from rageval_lc.judges.offline.nli import NliModel
imports = time.perf_counter() - start
loads = {}
def timed(name, fn):
    def wrapper(*args, **kwargs):
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            loads[name] = loads.get(name, 0.0) + time.perf_counter() - t
    return wrapper
fget = SentenceTransformerEncoder.model.fget
def model(self):
    return timed("encoder", fget)(self) if self._model is None else fget(self)
SentenceTransformerEncoder.model = property(model)
load = NliModel._load
def nli_load(self):
    return timed("nli", load)(self) if self._loaded is None else load(self)
NliModel._load = nli_load
samples = [cold_sample()]
t = time.perf_counter()
run = evaluate(samples, sys.argv[1], judge=OfflineJudge(device=sys.argv[2]), concurrency=1)
first = time.perf_counter() - t
status = run.results[0].results[sys.argv[1]].status
print(json.dumps({"imports": imports, "encoder": loads.get("encoder"), "nli": loads.get("nli"),
                  "first": first - sum(loads.values()), "total": imports + first, "status": status}))
"""


def cold(metric: str) -> dict[str, Any]:
    """The first score of ``metric`` on one row in a fresh interpreter, split."""
    out = subprocess.run(
        [sys.executable, "-c", _COLD, metric, "cpu", str(Path(__file__).resolve().parent)],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _seconds(value: float | None) -> str:
    return "not loaded" if value is None else f"{value:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--cold", action="store_true", help="the first-score latency split instead")
    parser.add_argument(
        "--metrics",
        default="context_recall,factual_accuracy,answer_classification,semantic_similarity",
        help="with --cold: the metrics besides faithfulness",
    )
    parser.add_argument("--dump", type=Path, help="write the scores to this JSON file")
    parser.add_argument("--compare", type=Path, help="check the scores against this JSON file")
    args = parser.parse_args()
    from rageval_lc.reports.summary import format_table

    if args.cold:
        table = []
        for metric in dict.fromkeys(("faithfulness", *args.metrics.split(","))):
            split = min((cold(metric) for _ in range(args.repeats)), key=lambda run: run["total"])
            table.append([metric, f"{split['imports']:.2f}", _seconds(split["encoder"]), _seconds(split["nli"]),
                          f"{split['first']:.2f}", f"{split['total']:.2f}", split["status"]])  # fmt: skip
        head = ["first score, fresh process", "imports", "encoder load", "NLI load", "first batch", "total", "status"]
        print(format_table(head, table))
        return 0
    seconds, scores = per_row(args.rows, args.repeats)
    wall, cpu = seconds["faithfulness"]
    table = [[m, f"{w:.3f}", f"{w / wall:.2f}", f"{c:.3f}", f"{c / cpu:.2f}"] for m, (w, c) in seconds.items()]
    head = [f"metric ({args.rows} rows)", "wall s / row", "× faithfulness", "CPU s / row", "× faithfulness (CPU)"]
    print(format_table(head, table))
    if args.dump:
        args.dump.write_text(json.dumps(scores, indent=1), encoding="utf-8")
    if args.compare:
        expected = json.loads(args.compare.read_text(encoding="utf-8"))
        now = json.loads(json.dumps(scores))
        differ = [m for m in METRICS if expected.get(m) != now.get(m)]
        print("scores: identical" if not differ else f"scores differ: {', '.join(differ)}")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
