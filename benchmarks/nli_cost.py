"""What the NLI pass costs: offline TRACe over the same RAGBench rows, this checkout against an earlier revision.

Both run in fresh interpreters, alternately, on the same machine, in the same run (the earlier revision is
checked out with ``git worktree`` into a temporary folder and imported from there). Each run loads the judge,
scores one warm-up row (so model loading is not timed), then times ``rageval_lc.engine.engine.evaluate`` over the
rows with the offline judge. Prints each wall time and the ratio of the medians (target ≤ 1.5×).

    python benchmarks/nli_cost.py [--before 769d4d7] [--rows 500] [--repeats 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RAGEVAL_SHARED_DIR", ROOT.parent / "shared"))
BEFORE = "769d4d7"  # the last commit before the NLI pass

TIMED = r"""
import json, sys, time
from pathlib import Path
from rageval_lc.datasets.ragbench import ragbench_record
from rageval_lc import evaluate
from rageval_lc.judges.offline.judge import OfflineJudge

rows, shared = int(sys.argv[1]), Path(sys.argv[2])
files = sorted((shared / "data" / "ragbench").glob("*_validation.jsonl"))
lines = [line for path in files for line in path.read_text(encoding="utf-8").splitlines()]
samples = [ragbench_record(json.loads(line)).sample for line in lines[:: max(1, len(lines) // rows)][:rows]]
judge = OfflineJudge()
evaluate([samples[-1].model_copy(update={"id": "warm-up"})], "trace", judge=judge, concurrency=1)
start = time.perf_counter()
run = evaluate(samples, "trace", judge=judge, concurrency=1)
print(json.dumps({"wall": time.perf_counter() - start, "rows": len(samples)}))
"""


def timed(checkout: Path, rows: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(checkout), "HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env["TOKENIZERS_PARALLELISM"] = "false"
    out = subprocess.run(
        [sys.executable, "-c", TIMED, str(rows), str(SHARED)],
        cwd=tempfile.gettempdir(),
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1])["wall"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE, help="the git revision to compare with")
    parser.add_argument("--rows", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rageval-before-") as tmp:
        before = Path(tmp) / "checkout"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before), args.before], check=True)
        try:
            times: dict[str, list[float]] = {"before": [], "ours": []}
            for i in range(args.repeats):
                for name, checkout in (("before", before), ("ours", ROOT)):
                    times[name].append(timed(checkout, args.rows))
                    print(f"run {i + 1}: {name} {times[name][-1]:.1f} s", flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)], check=False)
    ours, base = statistics.median(times["ours"]), statistics.median(times["before"])
    print(
        f"offline TRACe over {args.rows} RAGBench rows: ours {ours:.1f} s, {args.before} {base:.1f} s "
        f"(medians of {args.repeats}), ratio {ours / base:.2f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
