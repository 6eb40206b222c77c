"""Domain adaptation of the offline judge, measured on RAGBench per subset (issue 24).

Run:  python benchmarks/align_ragbench.py [--sizes 50 100 200] [--json .cache/align_ragbench.json]

For each RAGBench subset: the rows the shipped judge was never fitted on (the calibration's held-out fold,
``benchmarks/calibrate_local_judge.py``) are cut into 4 folds by question. For each fold, N labelled rows are
drawn (seeded) from the subset's other rows (the rest of the held-out fold and the calibration's fitted fold),
the judge is aligned on them as ``rageval align`` does (:func:`rageval_lc.align.offline.align_items`: fitted on
70 % of them by question, shrunk toward the shipped parameters, checked on the other 30 %; the shipped judge
kept when the aligned one is worse there) and the judge so chosen judges the fold. Every held-out row is so
judged by a judge that never saw it, and the figures (hallucination AUROC, relevance / utilization RMSE) are
taken over all of them, before (the shipped judge) and after, with the paired-bootstrap 95 % interval of the
change (rows resampled).

Features and the NLI pass come from the calibration's cache (``.cache``; computed there on first use).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from calibrate_local_judge import add_nli, featurise  # noqa: E402

from rageval_lc.align.offline import align_items, figure_changes, predictions, split_by_question  # noqa: E402
from rageval_lc.align.refit import AlignItem  # noqa: E402
from rageval_lc.judges.offline.model import LocalParams  # noqa: E402

FOLDS = 4
SHOWN = ("hallucination_auroc", "context_relevance_rmse", "context_utilization_rmse")


def align_item(it: dict) -> AlignItem:
    """A calibration item (features and RAGBench's released labels) as the aligner reads it."""
    record = it["record"]
    scores = {k: v for k, v in record.released_scores.items() if k != "adherence"}
    return AlignItem(
        features=it["features"],
        verdicts=it["verdicts"],
        group=f"{record.dataset}:{record.sample.metadata['ragbench_id']}",
        sentences=record.sample.sentences,
        relevant=frozenset(it["relevant"]),
        utilized=frozenset(it["utilized"]),
        unsupported=None if it["unsupported"] is None else frozenset(it["unsupported"]),
        hallucinated=not record.released_scores["adherence"],
        scores=scores,
    )


def fold_of_group(group: str) -> int:
    return int(hashlib.sha256(group.encode()).hexdigest(), 16) % FOLDS


def adapt(subset: list[dict], size: int, shipped: LocalParams, seed: int) -> tuple[list, list, list, dict]:
    """Every held-out row of ``subset`` judged before and after alignment on ``size`` rows it never saw."""
    held = [it for it in subset if it["fold"] == "held"]
    judged, old, new, strengths = [], [], [], {}
    for k in range(FOLDS):
        items = [align_item(it) for it in held]
        test = [x for x in items if fold_of_group(x.group) == k]
        pool = [align_item(it) for it in subset if it["fold"] == "fit"]
        pool += [x for x in items if fold_of_group(x.group) != k]
        drawn = random.Random(seed * 100 + k).sample(pool, min(size, len(pool)))
        # as `rageval align` does: fit on 70 % of the labelled rows (by question), check on the other 30 %,
        # and keep the shipped judge when the aligned one is worse there
        fit_part, check_part = split_by_question([x.group for x in drawn], held_out=0.3, seed=seed)
        params, report = align_items([drawn[i] for i in fit_part], [drawn[i] for i in check_part], shipped)
        used = shipped if report.worse else params
        judged += test
        old += [predictions(x, shipped) for x in test]
        new += [predictions(x, used) for x in test]
        strengths[k] = {
            "refused": [f.name for f in report.worse],
            **{name: (None if math.isinf(v) else v) for name, v in report.strengths.items()},
        }
    return judged, old, new, strengths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--cache", type=Path, default=ROOT / ".cache")
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200])
    parser.add_argument("--subsets", nargs="*", help="only these subsets")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args()
    items = add_nli(featurise(args.shared, args.cache), args.cache, "ragbench")
    shipped = LocalParams.load()
    by_subset: dict[str, list[dict]] = {}
    for it in items:
        by_subset.setdefault(it["record"].dataset, []).append(it)
    out: dict = {}
    print(f"{'subset':<11} {'rows':>5} {'N':>4}  " + "  ".join(f"{name:>38}" for name in SHOWN))
    for subset in sorted(by_subset):
        if args.subsets and subset not in args.subsets:
            continue
        for size in args.sizes:
            judged, old, new, strengths = adapt(by_subset[subset], size, shipped, args.seed)
            figures = {f.name: f for f in figure_changes(judged, old, new, seed=args.seed)}
            cells = []
            for name in SHOWN:
                f = figures.get(name)
                if f is None or f.before is None:
                    cells.append(f"{'–':>38}")
                    continue
                interval = "" if f.ci_low is None else f"[{f.ci_low:+.3f}, {f.ci_high:+.3f}]"
                cells.append(f"{f.before:.3f} → {f.after:.3f} {f.after - f.before:+.3f} {interval:>18}")
            print(f"{subset:<11} {len(judged):>5} {size:>4}  " + "  ".join(cells), flush=True)
            out.setdefault(subset, {})[size] = {
                "rows": len(judged),
                "figures": {n: {**f.__dict__, "gain": f.gain} for n, f in figures.items()},
                "strengths": strengths,
            }
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
