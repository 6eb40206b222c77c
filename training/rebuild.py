"""Rebuild every fitted file of the offline judge, each step skipped when its inputs did not change.

Run:  python training/rebuild.py [--shared ../shared] [--dry-run] [--from STEP]

Steps, in order (each reads what the one before wrote; ``.cache/rebuild/state.json`` keeps the hash of each step's
inputs, and a step whose inputs hash the same as last time is skipped):

1. ``twins``: twins of real answers, three seeds (``training/make_twins.py``) → ``.cache/twins/``.
2. ``pairs``: the grounding model's training and held-out pairs (``training/grounding_pairs.py``) →
   ``.cache/grounding/fit.jsonl.gz``, ``held.jsonl.gz``.
3. ``model``: the grounding model (``training/train_grounding.py --resume``: about an hour on 2 CPU cores;
   interrupted, the same command goes on from its checkpoint) → ``.cache/grounding/model``, then copied into the
   package's ``rageval_lc/judges/offline/nli/``.
4. ``params``: the offline judge's fitted models and thresholds on its outputs
   (``benchmarks/calibrate_local_judge.py --params-out``) → ``rageval_lc/judges/offline/params.json``.
5. ``confidence``: the confidence models (``benchmarks/confidence.py --confidence-out``) →
   ``rageval_lc/judges/offline/confidence.json``.

The benchmarks measure; only this driver names the shipped files they write.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OFFLINE = ROOT / "rageval_lc" / "judges" / "offline"
CACHE = ROOT / ".cache"
STATE = CACHE / "rebuild" / "state.json"
SEEDS = (13, 14, 15)
NLI_START = "e10a838"  # the revision whose shipped NLI adapter the grounding model is trained from
#: the code the fitted parameters depend on (besides the grounding model's weights)
FIT_CODE = (
    *(OFFLINE / name for name in ("features.py", "grounding.py", "nli_pass.py", "labelling.py", "decision.py")),
    *sorted((OFFLINE / "contradiction").glob("*.py")),  # the detector, whose verdicts the fit reads,
    ROOT / "rageval_lc" / "facts",  # and the facts it reads text by
    OFFLINE / "model.py",
    ROOT / "rageval_lc" / "text.py",
    ROOT / "benchmarks" / "calibrate_local_judge.py",
)
ADAPTER_FILES = ("adapter_model.safetensors", "adapter_config.json", "training.json", "metrics.json", "MODEL_CARD.md")


def _digest(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for path in paths:
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            if file.exists() and "__pycache__" not in file.parts:
                h.update(str(file.relative_to(ROOT) if file.is_relative_to(ROOT) else file).encode())
                h.update(file.read_bytes())
    return h.hexdigest()[:16]


def _run(*args: str) -> None:
    print("$", " ".join(args), flush=True)
    subprocess.run([sys.executable, *args], cwd=ROOT, check=True)


def merge_twins() -> None:
    """The three seeds' twins in one file, each (original, edited sentence) once."""
    seen: set[tuple[str, str]] = set()
    lines = []
    for seed in SEEDS:
        for line in (CACHE / "twins" / f"twins_{seed}.jsonl").read_text(encoding="utf-8").splitlines():
            twin = json.loads(line)
            key = (twin["original_id"], twin["edited_sentence"])
            if key not in seen:
                seen.add(key)
                lines.append(line + "\n")
    (CACHE / "twins" / "twins_all.jsonl").write_text("".join(lines), encoding="utf-8")


def steps(shared: Path) -> list[tuple[str, list[Path], Callable[[], None]]]:
    ragbench, aux = shared / "data" / "ragbench", shared / "data" / "aux" / "wice.jsonl.gz"
    twins_all = CACHE / "twins" / "twins_all.jsonl"
    grounding = CACHE / "grounding"

    def twins() -> None:
        for seed in SEEDS:
            _run("training/make_twins.py", "--shared", str(shared), "--seed", str(seed),
                 "--out", str(CACHE / "twins" / f"twins_{seed}.jsonl"))  # fmt: skip
        shutil.copyfile(CACHE / "twins" / "twins_13.jsonl", CACHE / "twins" / "twins.jsonl")
        merge_twins()

    def pairs() -> None:
        _run("training/grounding_pairs.py", "--shared", str(shared), "--twins", str(twins_all), "--out", str(grounding))

    def model() -> None:
        start = CACHE / "nli_stage1"  # the NLI model the grounding model starts from: shipped before it, in git
        if not (start / "adapter_config.json").exists():
            start.mkdir(parents=True, exist_ok=True)
            for name in ("adapter_model.safetensors", "adapter_config.json"):
                blob = subprocess.run(["git", "show", f"{NLI_START}:rageval_lc/judges/offline/nli/{name}"], cwd=ROOT,
                                      check=True, capture_output=True).stdout  # fmt: skip
                (start / name).write_bytes(blob)
        _run("training/train_grounding.py", "--pairs", str(grounding), "--out", str(grounding / "model"), "--resume")
        for name in ADAPTER_FILES:
            shutil.copyfile(grounding / "model" / name, OFFLINE / "nli" / name)

    def params() -> None:
        out = str(OFFLINE / "params.json")
        _run("benchmarks/calibrate_local_judge.py", "--shared", str(shared), "--params-out", out)

    def confidence() -> None:
        _run("benchmarks/confidence.py", "--shared", str(shared), "--confidence-out", str(OFFLINE / "confidence.json"))

    training, offline = ROOT / "training", OFFLINE
    return [
        ("twins", [ragbench, aux, training / "make_twins.py"], twins),
        ("pairs", [twins_all, offline / "grounding.py", training / "grounding_pairs.py"], pairs),
        ("model", [grounding / "fit.jsonl.gz", training / "train_grounding.py", training / "train_nli.py"], model),
        ("params", [offline / "nli" / "adapter_model.safetensors", *FIT_CODE], params),
        ("confidence", [offline / "params.json", ROOT / "benchmarks" / "confidence.py"], confidence),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--dry-run", action="store_true", help="say which steps would run, run none")
    parser.add_argument("--from", dest="start", help="run this step and every one after it, whatever the hashes")
    args = parser.parse_args(argv)
    state = json.loads(STATE.read_text(encoding="utf-8")) if STATE.exists() else {}
    forced = False
    for name, inputs, run in steps(args.shared):
        forced = forced or name == args.start
        digest = _digest(inputs)
        if state.get(name) == digest and not forced:
            print(f"{name}: inputs unchanged, skipped", flush=True)
            continue
        if args.dry_run:
            print(f"{name}: would run (inputs changed)", flush=True)
            forced = True  # what follows reads its output
            continue
        started = time.time()
        run()
        state[name] = _digest(inputs)
        STATE.parent.mkdir(parents=True, exist_ok=True)
        STATE.write_text(json.dumps(state, indent=1) + "\n", encoding="utf-8")
        print(f"{name}: done in {time.time() - started:.0f}s", flush=True)
        forced = True  # every later step reads what this one wrote
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
