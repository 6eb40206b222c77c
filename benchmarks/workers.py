"""Every core: `rageval evaluate --workers N` against `--workers 1` on RAGBench rows (offline judge).

Runs the CLI as a user would (a fresh process each, models loaded inside), on the first ``--rows`` rows taken
in turn from each RAGBench file of ../shared, and prints per run: wall time, rows/s, the time until the first
output row was on disk, and whether the output is byte-identical to the one-worker run; then the speed-up.
Runs alternate (1, N, 1, N, ...) so that a change in the machine's load falls on both alike.

    python benchmarks/workers.py --rows 200 --workers 2 --repeats 2
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from itertools import zip_longest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RAGEVAL_SHARED_DIR", ROOT.parent / "shared"))


def ragbench_rows(n: int) -> list[str]:
    """The first ``n`` rows taken in turn from each RAGBench file (all sub-datasets represented)."""
    files = sorted((SHARED / "data" / "ragbench").glob("*.jsonl"))
    if not files:
        sys.exit(f"no RAGBench files under {SHARED / 'data' / 'ragbench'}")
    per_file = [path.read_text(encoding="utf-8").splitlines() for path in files]
    rows = [row for group in zip_longest(*per_file) for row in group if row]
    return rows[:n]


def timed_run(
    source: Path, out: Path, workers: int, metrics: str, *, one_thread: bool = False
) -> dict[str, float | str]:
    """One CLI run: wall seconds, seconds until the first output row was written, the output's digest."""
    out.unlink(missing_ok=True)
    command = [sys.executable, "-m", "rageval_lc", "evaluate", str(source), "--judge", "offline", "--metrics", metrics]
    command += ["--workers", str(workers), "--out", str(out), "--no-progress"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env["TOKENIZERS_PARALLELISM"] = "false"
    if one_thread:  # every process runs torch on one core: how the workers scale, apart from torch's own threads
        env["OMP_NUM_THREADS"] = "1"
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first = None
    while process.poll() is None:
        if first is None and out.exists() and b"\n" in out.read_bytes()[:1_000_000]:
            first = time.perf_counter() - start
        time.sleep(0.05)
    wall = time.perf_counter() - start
    if process.returncode != 0:
        sys.exit(f"workers={workers} failed ({process.returncode}): {process.stderr.read()[-2000:]}")
    data = out.read_bytes()
    first = first if first is not None else wall
    scores = json.dumps([json.loads(line)["scores"] for line in data.splitlines()]).encode()
    digests = {"digest": hashlib.sha256(data).hexdigest(), "scores_digest": hashlib.sha256(scores).hexdigest()}
    return {"wall": wall, "first": first, **digests, "rows": data.count(b"\n")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--metrics", default="trace")
    parser.add_argument("--one-thread", action="store_true", help="torch on one core in every process (both runs)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="rageval-workers-"))
    source = folder / "rows.jsonl"
    source.write_text("\n".join(ragbench_rows(args.rows)) + "\n", encoding="utf-8")
    runs: dict[int, list[dict[str, float | str]]] = {1: [], args.workers: []}
    for _ in range(args.repeats):
        for workers in (1, args.workers):
            run = timed_run(source, folder / f"out-{workers}.jsonl", workers, args.metrics, one_thread=args.one_thread)
            run["load"] = os.getloadavg()[0]
            runs[workers].append(run)
            print(json.dumps({"workers": workers, **run}), flush=True)
    reference, scores = runs[1][0]["digest"], runs[1][0]["scores_digest"]
    threads = "torch on one core per process" if args.one_thread else "torch's default threads"
    print(f"\n{args.rows} RAGBench rows, --metrics {args.metrics}, {os.cpu_count()} cores, {threads}")
    print("workers  wall s (each)          rows/s (best)  first row s (each)   output against 1 worker's")
    for workers, done in runs.items():
        walls = ", ".join(f"{r['wall']:.1f}" for r in done)
        firsts = ", ".join(f"{r['first']:.1f}" for r in done)
        best = args.rows / min(float(r["wall"]) for r in done)
        same = "identical" if all(r["digest"] == reference for r in done) else "bytes differ"
        if same != "identical":
            same += ", scores " + ("identical" if all(r["scores_digest"] == scores for r in done) else "DIFFER")
        print(f"{workers:>7}  {walls:<22} {best:>13.2f}  {firsts:<20} {same}")
    one = min(float(r["wall"]) for r in runs[1])
    many = min(float(r["wall"]) for r in runs[args.workers])
    print(f"speed-up, best against best: {one / many:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
