"""The first score in a fresh process: the README's LangChain example, this checkout against an earlier revision.

Each run is a new interpreter that imports ``RagEvaluator``, builds ``RagEvaluator("faithfulness")`` (the offline
judge) and scores the README's sample once, which is what a script or a ``rageval`` command pays every time. The
earlier revision is checked out with ``git worktree`` into a temporary folder; the two alternate, run after run, in
the same session (``--runs`` of each). Each process reports where its time went:

- **import**: ``from rageval_lc.adapters import RagEvaluator`` (LangChain's Runnable, the package);
- **torch**: ``import torch`` (the judge's constructor would import it; timed on its own);
- **setup**: ``RagEvaluator(...)``, the judge without its models;
- **model load**: loading the sentence model and the NLI model (the libraries they import included);
- **first forward**: the encoder's and the NLI model's forward passes (tokenising included);
- **scoring**: the rest of ``evaluate_strings``;
- **first score**: from launching the interpreter to the score, as the parent measures it.

Before the timed runs, one untimed run of each side fills the operating system's file cache and writes the
bytecode; then one run of this checkout with an empty cache folder (``RAGEVAL_CACHE_DIR``, a temporary folder
unless ``--cache-dir``) shows the first process ever, which merges the NLI adapter and saves it. The timed runs
of this checkout read that saved merge. Prints a table per process and the medians, with the ratio to the
baseline; ``--json`` writes everything.

    python benchmarks/cold_start.py [--baseline 38b4f87] [--runs 5] [--metric faithfulness] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rageval_lc.reports.summary import format_table  # noqa: E402

BASELINE = "38b4f87"  # the last commit before the first score was made fast (issue 33)
PHASES = ("import", "torch", "setup", "model load", "first forward", "scoring")

CHILD = r"""
import functools, json, sys, time
launched = float(sys.argv[2])
t0 = time.perf_counter()
from rageval_lc.adapters import RagEvaluator
from rageval_lc.judges.offline.encoder import SentenceTransformerEncoder
from rageval_lc.judges.offline.nli import NliModel
t1 = time.perf_counter()
import torch
t2 = time.perf_counter()

inner = []  # the time of calls nested in the running timed call, to leave out of its own
spent = {"model load": 0.0, "first forward": 0.0}

def timed(phase, function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        inner.append(0.0)
        try:
            return function(*args, **kwargs)
        finally:
            elapsed = time.perf_counter() - start
            spent[phase] += elapsed - inner.pop()
            if inner:
                inner[-1] += elapsed

    return wrapper

SentenceTransformerEncoder.model = property(timed("model load", SentenceTransformerEncoder.model.fget))
NliModel._load = timed("model load", NliModel._load)
SentenceTransformerEncoder._encode_slice = timed("first forward", SentenceTransformerEncoder._encode_slice)
NliModel._score = timed("first forward", NliModel._score)

evaluator = RagEvaluator(sys.argv[1])
t3 = time.perf_counter()
contexts = ["The Eiffel Tower is in Paris. It was finished in 1889.", "Bananas are yellow."]
out = evaluator.evaluate_strings(
    prediction="It was finished in 1889.", input="When was the Eiffel Tower finished?", contexts=contexts
)
t4 = time.perf_counter()
first_score = time.time() - launched
phases = {"import": t1 - t0, "torch": t2 - t1, "setup": t3 - t2, **spent}
phases["scoring"] = (t4 - t3) - spent["model load"] - spent["first forward"]
print(json.dumps({"phases": phases, "first score": first_score, "score": out["score"], "value": out["value"],
                  "reasoning": out["reasoning"]}))
"""


def run_once(checkout: Path, metric: str, cache_dir: Path) -> dict[str, Any]:
    """One fresh interpreter on ``checkout``: its phases, its first score (seconds) and what it scored."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # bytecode as an install has it
    env.update(PYTHONPATH=str(checkout), HF_HUB_OFFLINE="1", LITELLM_LOCAL_MODEL_COST_MAP="True")
    env["RAGEVAL_CACHE_DIR"] = str(cache_dir)
    launched = time.time()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, metric, repr(launched)],
        cwd=tempfile.gettempdir(),
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    wall = time.time() - launched
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["process"] = wall  # launch to exit, teardown included
    return result


def row(name: str, result: dict[str, Any]) -> list[Any]:
    return [name, *(round(result["phases"][p], 2) for p in PHASES), round(result["first score"], 2)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BASELINE, help="the git revision to compare with")
    parser.add_argument("--runs", type=int, default=5, help="fresh processes of each side")
    parser.add_argument("--metric", default="faithfulness")
    parser.add_argument("--cache-dir", type=Path, help="RAGEVAL_CACHE_DIR of this checkout's runs (default: temporary)")
    parser.add_argument("--json", type=Path, help="write every process's figures here")
    args = parser.parse_args()
    results: dict[str, list[dict[str, Any]]] = {"baseline": [], "ours": []}
    with tempfile.TemporaryDirectory(prefix="rageval-cold-") as tmp:
        before = Path(tmp) / "checkout"
        cache = args.cache_dir or Path(tmp) / "cache"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before), args.baseline],
            check=True,
            capture_output=True,
        )
        try:
            sides = (("baseline", before), ("ours", ROOT))
            for _, checkout in sides:  # the file cache and the bytecode, not timed
                run_once(checkout, args.metric, Path(tmp) / "warm-up")
            empty = Path(tmp) / "empty"
            first_ever = run_once(ROOT, args.metric, empty if args.cache_dir is None else cache)
            if args.cache_dir is None:
                empty.rename(cache)  # the merge the first process saved, for the timed runs
            print(format_table(["process", *PHASES, "first score"], [row("ours, empty cache", first_ever)]))
            print(flush=True)
            table = []
            for i in range(args.runs):
                for name, checkout in sides:
                    result = run_once(checkout, args.metric, cache)
                    results[name].append(result)
                    table.append(row(f"{name} {i + 1}", result))
                    print(f"{name} {i + 1}: first score {result['first score']:.2f} s", file=sys.stderr, flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)], check=False)
    medians = {
        name: {p: statistics.median(r["phases"][p] for r in runs) for p in PHASES}
        | {"first score": statistics.median(r["first score"] for r in runs)}
        for name, runs in results.items()
    }
    for name in results:
        table.append([f"{name} median", *(round(medians[name][p], 2) for p in (*PHASES, "first score"))])
    print(format_table(["process", *PHASES, "first score"], table))
    ours, base = medians["ours"]["first score"], medians["baseline"]["first score"]
    scores = {name: sorted({(r["score"], r["value"]) for r in runs}) for name, runs in results.items()}
    reasons = {name: sorted({r["reasoning"] for r in runs}) for name, runs in results.items()}
    print(
        f"\nfirst score, median of {args.runs} fresh processes: ours {ours:.2f} s, {args.baseline} {base:.2f} s, "
        f"ratio {ours / base:.2f}x; the same score on both sides: {scores['ours'] == scores['baseline']}"
    )
    if reasons["ours"] != reasons["baseline"]:  # a reason reworded since the baseline, the score the same
        print(f"reasons: ours {reasons['ours']}, {args.baseline} {reasons['baseline']}")
    if args.json:
        payload = {"baseline": args.baseline, "metric": args.metric, "first_ever": first_ever, "runs": results}
        payload["medians"] = medians
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
