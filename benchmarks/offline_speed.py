"""Offline rows per second and peak memory, this checkout against a baseline revision, and whether the verdicts moved.

Each run is ``rageval evaluate --judge offline`` over the same RAGBench rows in a fresh process
(``measure`` of ``benchmarks/memory.py``: wall time, peak RSS); this checkout and the baseline (checked out with
``git worktree`` into a temporary folder) alternate, ``--runs`` of each, after one untimed run of each that fills
the file cache and saves each side's merged NLI model. Prints rows/s and peak RSS per run, the medians and their
ratios, each side's milliseconds a row and per 1,000 tokens of (question + passages + answer), then compares the
two sides' outputs row by row: statuses exactly, scores within ``--tolerance``, listing
every score that differs by more.

    python benchmarks/offline_speed.py --baseline main --rows 500 --runs 3 [--metrics trace,faithfulness]
    python benchmarks/offline_speed.py --rows 5 --runs 1   # a check that it runs
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))  # beside this script (a site package may be called "benchmarks")

from memory import measure, ragbench_lines  # noqa: E402


def row_tokens(rows: int) -> int:
    """Word pieces (the packaged MiniLM's tokenizer, no special tokens, nothing truncated) of each row's question,
    passages and answer, summed over the ``rows`` rows the runs score: the unit of the per-1,000-token figure."""
    from rageval_lc.judges.offline.bert import WordPieces
    from rageval_lc.judges.offline.encoder import default_model_path

    pieces = WordPieces.of(default_model_path())
    total = 0
    for line in ragbench_lines(rows):
        row = json.loads(line)
        for text in (row.get("question") or "", *(row.get("documents") or []), row.get("response") or ""):
            total += len(pieces.tokenize(text))
    return total


def score_differences(ours: Path, theirs: Path, tolerance: float) -> tuple[int, list[str]]:
    """How many scores the two outputs hold, and a line for each status that differs or score that moved by more
    than ``tolerance``."""
    rows = [
        {row["id"]: row for row in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
        for path in (ours, theirs)
    ]
    compared, differences = 0, []
    for key, row in rows[0].items():
        other = rows[1].get(key, {})
        for metric, score in (row.get("scores") or {}).items():
            their_score = (other.get("scores") or {}).get(metric)
            status, their_status = row["status"].get(metric), (other.get("status") or {}).get(metric)
            compared += 1
            if status != their_status:
                differences.append(f"{key} {metric}: status {status} vs {their_status}")
            elif isinstance(score, float) and isinstance(their_score, float):
                if abs(score - their_score) > tolerance:
                    differences.append(f"{key} {metric}: {score:.6f} vs {their_score:.6f}")
            elif score != their_score:
                differences.append(f"{key} {metric}: {score} vs {their_score}")
    return compared, differences


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="main", help="the git revision to compare with")
    parser.add_argument("--rows", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each side")
    parser.add_argument("--metrics", default="trace,faithfulness")
    parser.add_argument("--tolerance", type=float, default=1e-4, help="largest score difference not listed")
    parser.add_argument("--json", type=Path, help="write every run's figures here")
    args = parser.parse_args()
    results: dict[str, list[dict[str, Any]]] = {"baseline": [], "ours": []}
    with tempfile.TemporaryDirectory(prefix="rageval-speed-") as tmp:
        before, scores = Path(tmp) / "checkout", Path(tmp) / "scores"
        os.environ["RAGEVAL_CACHE_DIR"] = str(Path(tmp) / "cache")  # each side's merged NLI model, kept
        worktree = ["git", "-C", str(ROOT), "worktree"]
        subprocess.run([*worktree, "add", "--detach", str(before), args.baseline], check=True, capture_output=True)
        try:
            sides = {"baseline": before, "ours": ROOT}
            for name, checkout in sides.items():  # untimed: the file cache, the bytecode, the merges; the scores
                measure(args.rows, checkout, args.metrics, scores / name)
            for i in range(args.runs):
                for name, checkout in sides.items():
                    result = measure(args.rows, checkout, args.metrics)
                    result["rows_per_s"] = round(args.rows / result["wall_s"], 2)
                    results[name].append(result)
                    print(f"{name} {i + 1}: {json.dumps(result)}", flush=True)
        finally:
            subprocess.run([*worktree, "remove", "--force", str(before)], check=False)
        name = f"scores_{args.rows}.jsonl"
        compared, differences = score_differences(scores / "ours" / name, scores / "baseline" / name, args.tolerance)
    medians = {
        side: {key: statistics.median(r[key] for r in runs) for key in ("rows_per_s", "peak_rss_mb", "wall_s")}
        for side, runs in results.items()
    }
    for side, figures in medians.items():
        print(f"{side} median: {figures}")
    tokens, threads = row_tokens(args.rows), os.cpu_count()
    for side, figures in medians.items():
        figures["ms_per_row"] = round(1000 * figures["wall_s"] / args.rows, 1)
        figures["ms_per_1000_tokens"] = round(1000 * figures["wall_s"] / (tokens / 1000), 1)
        print(
            f"{side}: {figures['ms_per_row']} ms a row, {figures['ms_per_1000_tokens']} ms per 1,000 tokens "
            f"(question + passages + answer: {tokens:,} word pieces in {args.rows} rows; {threads} CPU threads, "
            "the whole process: start, models, scoring, writing)"
        )
    ours, base = medians["ours"], medians["baseline"]
    print(
        f"rows/s ratio {ours['rows_per_s'] / base['rows_per_s']:.2f}x, peak RSS ratio "
        f"{ours['peak_rss_mb'] / base['peak_rss_mb']:.2f}x ({args.rows} rows, {args.metrics}, baseline {args.baseline})"
    )
    print(f"{len(differences)} of {compared} scores differ by more than {args.tolerance} (or in status):")
    for line in differences:
        print(f"  {line}")
    if args.json:
        payload = {"baseline": args.baseline, "rows": args.rows, "metrics": args.metrics, "runs": results}
        payload |= {"medians": medians, "differences": differences, "compared": compared}
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
