"""The first score in a fresh process: the README's sample, this checkout against an earlier revision.

Each run is a new interpreter that scores the README's sample once with the offline judge, which is what a script
or a ``rageval`` command pays every time, through one of three paths (``--path``): ``evaluator`` (the default; the
README's LangChain example: ``RagEvaluator("faithfulness").evaluate_strings(...)``), ``evaluate``
(``rageval_lc.evaluate([sample], "faithfulness")``) or ``cli`` (``rageval evaluate rows.jsonl --metrics
faithfulness``, in process, one row). The earlier revision is checked out with ``git worktree`` into a temporary
folder; the two alternate, run after run, in the same session (``--runs`` of each). Each process reports where its
time went, and which heavy modules it loaded (torch, transformers, langchain_core, dspy, litellm, ray, ...):

- **import**: importing the path's entry point (``RagEvaluator``: LangChain's Runnable, the package);
- **setup**: ``RagEvaluator(...)``, the judge without its models (0 on the other paths);
- **model load**: loading the sentence model and the NLI model (the libraries they import included);
- **first forward**: the encoder's and the NLI model's forward passes (tokenising included);
- **scoring**: the rest of the score (``evaluate_strings``, ``evaluate``, the CLI's command);
- **first score**: from launching the interpreter to the score, as the parent measures it.

Before the timed runs, one untimed run of each side fills the operating system's file cache, writes the bytecode
and saves that side's merged NLI model in the cache folder of the timed runs (``RAGEVAL_CACHE_DIR``: a temporary
folder unless ``--cache-dir``), which read it; then one run of this checkout with an empty cache folder shows the
first process ever, which merges the NLI adapter and saves it. Prints a table per process and the medians, with
the ratio to the baseline, and the heavy modules each side loaded; ``--json`` writes everything.

    python benchmarks/cold_start.py [--baseline 38b4f87] [--runs 5] [--path evaluator|evaluate|cli]
        [--metric faithfulness] [--json out.json]
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
PHASES = ("import", "setup", "model load", "first forward", "scoring")
PATHS = ("evaluator", "evaluate", "cli")
HEAVY = ("torch", "transformers", "sentence_transformers", "peft", "langchain_core", "dspy", "litellm", "ray")

CHILD = r"""
import functools, json, os, sys, tempfile, time
metric, launched, path = sys.argv[1], float(sys.argv[2]), sys.argv[3]
HEAVY = ("torch", "transformers", "sentence_transformers", "peft", "langchain_core", "dspy", "litellm", "ray")
question, response = "When was the Eiffel Tower finished?", "It was finished in 1889."
contexts = ["The Eiffel Tower is in Paris. It was finished in 1889.", "Bananas are yellow."]
t0 = time.perf_counter()
if path == "evaluator":
    from rageval_lc.adapters import RagEvaluator
elif path == "evaluate":
    import rageval_lc
else:
    from rageval_lc.cli import main
from rageval_lc.judges.offline.encoder import SentenceTransformerEncoder
from rageval_lc.judges.offline.nli import NliModel
t1 = time.perf_counter()
t2 = t1

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
SentenceTransformerEncoder.encode = timed("first forward", SentenceTransformerEncoder.encode)
NliModel._score = timed("first forward", NliModel._score)

if path == "evaluator":
    evaluator = RagEvaluator(metric)
    t3 = time.perf_counter()
    out = evaluator.evaluate_strings(prediction=response, input=question, contexts=contexts)
    score, reason = out["score"], out["reasoning"]
elif path == "evaluate":
    t3 = time.perf_counter()
    sample = rageval_lc.RagSample(question=question, contexts=contexts, response=response)
    result = rageval_lc.evaluate([sample], metric).results[0].results[metric]
    score, reason = result.score, result.reason
else:
    folder = tempfile.mkdtemp(prefix="rageval-cold-cli-")
    rows, written = os.path.join(folder, "rows.jsonl"), os.path.join(folder, "out.jsonl")
    with open(rows, "w", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": "1", "question": question, "contexts": contexts, "response": response}) + "\n")
    t3 = time.perf_counter()
    assert main(["evaluate", rows, "--metrics", metric, "--out", written, "--no-progress"]) == 0
    row = json.loads(open(written, encoding="utf-8").read())
    score, reason = row["scores"][metric], row["reason"][metric]
t4 = time.perf_counter()
first_score = time.time() - launched
phases = {"import": t1 - t0, "setup": t3 - t2, **spent}
phases["scoring"] = (t4 - t3) - spent["model load"] - spent["first forward"]
print(json.dumps({"phases": phases, "first score": first_score, "score": score, "value": None, "reasoning": reason,
                  "loaded": sorted(m for m in HEAVY if m in sys.modules)}))
"""


def run_once(checkout: Path, metric: str, cache_dir: Path, path: str = "evaluator") -> dict[str, Any]:
    """One fresh interpreter on ``checkout``: its phases, its first score (seconds) and what it scored."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # bytecode as an install has it
    env.update(PYTHONPATH=str(checkout), HF_HUB_OFFLINE="1", LITELLM_LOCAL_MODEL_COST_MAP="True")
    env["RAGEVAL_CACHE_DIR"] = str(cache_dir)
    launched = time.time()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, metric, repr(launched), path],
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
    parser.add_argument("--path", choices=PATHS, default="evaluator", help="how the first score is asked for")
    parser.add_argument("--cache-dir", type=Path, help="RAGEVAL_CACHE_DIR of the timed runs (default: temporary)")
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
            for _, checkout in sides:  # the file cache, the bytecode and each side's merged NLI model, not timed
                run_once(checkout, args.metric, cache, args.path)
            first_ever = run_once(ROOT, args.metric, Path(tmp) / "empty", args.path)
            print(format_table(["process", *PHASES, "first score"], [row("ours, empty cache", first_ever)]))
            print(flush=True)
            table = []
            for i in range(args.runs):
                for name, checkout in sides:
                    result = run_once(checkout, args.metric, cache, args.path)
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
    for name, runs in results.items():  # the heavy modules a first score left loaded
        print(f"{name} loaded: {sorted({m for r in runs for m in r.get('loaded', [])}) or 'none'} of {list(HEAVY)}")
    if reasons["ours"] != reasons["baseline"]:  # a reason reworded since the baseline, the score the same
        print(f"reasons: ours {reasons['ours']}, {args.baseline} {reasons['baseline']}")
    if args.json:
        payload = {"baseline": args.baseline, "metric": args.metric, "path": args.path, "first_ever": first_ever}
        payload["runs"] = results
        payload["medians"] = medians
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
