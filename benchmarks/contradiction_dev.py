"""Set the contradiction detector's NLI threshold for precision, on a development set of our own (not RAGBench).

The development set (fixed seed) never overlaps the contradiction benchmark (``benchmarks/contradictions.py``):

* minimal edits (``training/minimal_edits.py``) of *training-side* FEVER / Climate-FEVER evidence sentences: a
  number, year, name, unit or negation changed, or two names swapped (contradictions); the sentence itself, a
  parenthesis dropped, a number written another way (faithful);
* the even half (by a hash of the claim) of the held-out FEVER pairs: claims supported or refuted by their
  evidence. ``contradictions.py --nli-pairs`` draws its FEVER pairs from the odd half only.

Every pair goes through the offline judge's own path: its features (closest document sentences), the slot
checks (:func:`~rageval_lc.judges.offline.contradiction.find_conflict`) and the NLI pairs it scores. The NLI
threshold is then swept: the chosen one is the lowest whose faithful pairs are called contradicted at most
``--max-false`` of the time (slot checks included), so the detector is tuned for precision.

    python benchmarks/contradiction_dev.py [--pairs 400] [--max-false 0.03] [--write]

``--write`` stores the threshold as ``contradiction_threshold`` in ``rageval_lc/judges/offline/params.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "training"))

from rageval_lc import RagSample  # noqa: E402
from rageval_lc.judges.offline.contradiction import evidence_units, find_conflict, nli_conflict  # noqa: E402
from rageval_lc.judges.offline.nli_pass import nli_inputs  # noqa: E402

SHARED = Path(os.environ.get("RAGEVAL_SHARED_DIR", ROOT.parent / "shared"))
PARAMS = ROOT / "rageval_lc" / "judges" / "offline" / "params.json"
THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.94, 0.95, 0.955, 0.96, 0.962, 0.964, 0.966, 0.97, 1.01)
SEED = 13


def fever_half(claim: str) -> str:
    """'dev' or 'report': which half of the held-out FEVER pairs a claim belongs to (by a hash of the claim)."""
    return "dev" if int(hashlib.sha1(claim.strip().lower().encode()).hexdigest()[:8], 16) % 2 == 0 else "report"


def development_pairs(data: Path, n: int, seed: int = SEED) -> list[dict[str, Any]]:
    """``n`` minimal-edit pairs and ``n`` dev-half FEVER pairs (half refuted, half supported)."""
    from minimal_edits import minimal_edit_pairs
    from train_nli import load_splits

    train, held = load_splits(data)
    sentences = [r["premise"] for r in train if r["source"] in ("fever_nli_dev", "climate_fever_all")]
    edits = [r for r in minimal_edit_pairs(sentences, 2 * n, seed=seed) if r["label"] != "neutral"][:n]
    rng = random.Random(seed)
    fever = [r for r in held if r["source"] == "fever_nli_dev" and fever_half(r["hypothesis"]) == "dev"]
    rows = []
    for label in ("contradiction", "entailment"):
        pool = [r for r in fever if r["label"] == label]
        rows += [{**r, "kind": f"fever_{label}"} for r in rng.sample(pool, min(len(pool), n // 2))]
    return [{**r, "faithful": r["label"] == "entailment"} for r in edits + rows]


def collect(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per pair and response sentence: the slot conflict, the NLI candidates and their probabilities."""
    from rageval_lc.judges import OfflineJudge

    judge = OfflineJudge()
    samples = [
        RagSample(id=str(i), question="What does the passage say?", contexts=[r["premise"]], response=r["hypothesis"])
        for i, r in enumerate(rows)
    ]
    judge.prepare(samples)
    out = []
    for row, sample in zip(rows, samples, strict=True):
        keyed = sample.sentences
        features = judge._base_features(sample.question, keyed, sample.response)
        candidates, flat = nli_inputs(keyed, features.evidence)
        probabilities = judge.nli.predict(flat) if flat else []
        units = evidence_units(keyed.documents)
        hypotheses = [t for _, t in keyed.response]
        sentences, start = [], 0
        for k, cands in enumerate(candidates):
            p = probabilities[start : start + len(cands)]
            start += len(cands)
            slot = find_conflict(hypotheses[k], units, hypotheses[k - 1] if k else None)
            sentences.append({"text": hypotheses[k], "slot": slot, "candidates": cands, "p": p})
        out.append({**row, "sentences": sentences})
    return out


def contradicted(item: dict[str, Any], threshold: float) -> bool:
    return any(
        s["slot"] is not None or (len(s["p"]) and nli_conflict(s["text"], s["candidates"], s["p"], threshold))
        for s in item["sentences"]
    )


def sweep(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Catch rate and false "contradicted" rate per threshold (slot checks always on)."""
    table = []
    for threshold in THRESHOLDS:
        flags = [contradicted(it, threshold) for it in items]
        caught = [f for f, it in zip(flags, items, strict=True) if not it["faithful"]]
        false = [f for f, it in zip(flags, items, strict=True) if it["faithful"]]
        table.append(
            {
                "threshold": threshold,
                "catch_rate": round(sum(caught) / max(1, len(caught)), 4),
                "false_rate": round(sum(false) / max(1, len(false)), 4),
                "contradictions": len(caught),
                "faithful": len(false),
            }
        )
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SHARED / "data" / "nli")
    parser.add_argument("--pairs", type=int, default=400, help="minimal-edit pairs, and as many FEVER pairs")
    parser.add_argument("--max-false", type=float, default=0.03, help="faithful pairs called contradicted, at most")
    parser.add_argument("--write", action="store_true", help="store the threshold in offline/params.json")
    parser.add_argument("--json", type=Path, help="write the sweep here")
    args = parser.parse_args(argv)
    rows = development_pairs(args.data, args.pairs)
    items = collect(rows)
    table = sweep(items)
    slots_only = sum(any(s["slot"] is not None for s in it["sentences"]) for it in items if it["faithful"])
    print(f"development pairs: {len(items)} ({sum(not it['faithful'] for it in items)} contradictions)")
    print(f"slot checks alone call {slots_only} faithful pairs contradicted")
    print("threshold  catch  false")
    for row in table:
        print(f"{row['threshold']:>9}  {row['catch_rate']:.3f}  {row['false_rate']:.3f}")
    allowed = [row for row in table if row["false_rate"] <= args.max_false]
    chosen = min(allowed, key=lambda row: row["threshold"]) if allowed else table[-1]
    print(
        f"chosen threshold: {chosen['threshold']} (catch {chosen['catch_rate']:.3f}, false {chosen['false_rate']:.3f})"
    )
    if args.json:
        args.json.write_text(json.dumps({"sweep": table, "chosen": chosen}, indent=1) + "\n", encoding="utf-8")
    if args.write:
        params = json.loads(PARAMS.read_text(encoding="utf-8"))
        params["contradiction_threshold"] = chosen["threshold"]
        params.setdefault("metadata", {})["contradiction_threshold_from"] = (
            f"benchmarks/contradiction_dev.py --pairs {args.pairs} --max-false {args.max_false}: "
            f"catch {chosen['catch_rate']}, false {chosen['false_rate']} on the development set"
        )
        PARAMS.write_text(json.dumps(params, indent=1) + "\n", encoding="utf-8")
        print(f"wrote contradiction_threshold={chosen['threshold']} to {PARAMS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
