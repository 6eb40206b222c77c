"""Peak memory of ``rageval evaluate --judge offline`` over N RAGBench rows, each run in a fresh process.

Each run writes N rows of ``shared/data/ragbench`` (all eight files, every k-th line so that each
sub-dataset is present; N = 2,981 is every row) to a temporary JSONL file, runs the CLI on it in a
subprocess and reads the child's peak resident set size from ``os.wait4`` (Linux: ``ru_maxrss`` in KiB).
Runs go one at a time. ``--code`` measures another checkout (a ``git worktree`` of an older commit, say):
the subprocess imports ``rageval_lc`` from there.

    python benchmarks/memory.py [--rows 200 800 2981] [--code PATH] [--json results.json] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RAGEVAL_SHARED_DIR", ROOT.parent / "shared"))
CLI = "import sys; from rageval_lc.cli import main; sys.exit(main(sys.argv[1:]))"


def ragbench_lines(rows: int) -> list[str]:
    """``rows`` RAGBench lines: every k-th line of the eight files (sorted by name), all of them at 2,981."""
    files = sorted((SHARED / "data" / "ragbench").glob("*.jsonl"))
    lines = [line for path in files for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if rows > len(lines):
        msg = f"Only {len(lines)} RAGBench rows are available; asked for {rows}."
        raise SystemExit(msg)
    return lines[:: max(1, len(lines) // rows)][:rows]


def measure(rows: int, code: Path, metrics: str, keep: Path | None = None) -> dict[str, Any]:
    """Run the CLI on ``rows`` rows with the code in ``code``; its peak RSS, wall time and output tally
    (the output is copied to ``keep``/scores_<rows>.jsonl when given, to compare two runs' scores)."""
    with tempfile.TemporaryDirectory(prefix="rageval-memory-") as tmp:
        source, out = Path(tmp) / "rows.jsonl", Path(tmp) / "scores.jsonl"
        source.write_text("\n".join(ragbench_lines(rows)) + "\n", encoding="utf-8")
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(code)}
        env["TOKENIZERS_PARALLELISM"] = "false"
        # "local": the offline judge's old name, which every revision reads (a baseline may predate "offline")
        argv = [sys.executable, "-c", CLI, "evaluate", str(source), "--judge", "local", "--metrics", metrics]
        argv += ["--out", str(out), "--no-progress"]
        start = time.perf_counter()
        child = subprocess.Popen(argv, cwd=code, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert child.stderr is not None
        stderr = child.stderr.read().decode(errors="replace")  # drained before waiting: a full pipe would block it
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] if out.exists() else []
        if keep is not None and out.exists():
            keep.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(out, keep / f"scores_{rows}.jsonl")
    errors = sum(1 for row in written if "error" in (row.get("status") or {}).values())
    return {
        "rows": rows,
        "peak_rss_mb": round(usage.ru_maxrss / 1024),
        "wall_s": round(wall, 1),
        "rows_written": len(written),
        "rows_with_error": errors,
        "exit_code": child.returncode,
        "stderr_tail": stderr.strip().splitlines()[-1:] if child.returncode else [],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[200, 800, 2981])
    parser.add_argument("--code", type=Path, default=ROOT, help="checkout whose rageval_lc is measured")
    parser.add_argument("--metrics", default="trace")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--keep", type=Path, help="keep each run's scores in this folder")
    args = parser.parse_args()
    results = []
    for rows in args.rows:
        result = measure(rows, args.code.resolve(), args.metrics, args.keep)
        print(json.dumps(result), flush=True)
        results.append(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
