"""The shipped offline judge's verdicts on the held-out RAGBench rows, as a reader sees them.

Judges every held-out row (the calibration's split, ``benchmarks/ragbench_folds.py``) with the judge as shipped —
no fitting, no feature cache — and reports what issue 32 asks of the verdicts:

* hallucination AUROC of 1 − ``adherence_probability``, pooled and per sub-dataset;
* the row verdict (adherence 0/1) right, balanced by label, beside GPT-3.5's recorded ``gpt3_adherence`` (at 0.5);
* of the answers labelled fully supported, how many have a sentence called contradicted (and by which kind);
* beside each figure, the word-overlap baseline on the same rows (SPEC §6, :mod:`rageval_lc.metrics.overlap`), and
  the mean of the per-subset AUROCs (pooled AUROC mixes subsets with different base rates).

Run it on another revision side by side (its package first on the path)::

    git worktree add /tmp/base e10a838 && cp rageval_lc/metrics/overlap.py /tmp/base/rageval_lc/metrics/
    PYTHONPATH=/tmp/base python benchmarks/heldout_verdicts.py --json /tmp/base.json

    python benchmarks/heldout_verdicts.py [--shared ../shared] [--rows N] [--json PATH] [--forcing-kinds K1,K2]
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from ragbench_folds import fold_of  # noqa: E402

from rageval_lc.datasets.ragbench import load_ragbench  # noqa: E402
from rageval_lc.judges.offline.judge import OfflineJudge  # noqa: E402
from rageval_lc.judges.offline.model import LocalParams  # noqa: E402
from rageval_lc.metrics.agreement import auroc, balanced_accuracy  # noqa: E402
from rageval_lc.metrics.overlap import overlap_hallucination  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--rows", type=int, default=0, help="at most this many held-out rows (0: all)")
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--forcing-kinds", help="comma-separated conflict kinds that force a verdict (default: the shipped parameters')"
    )
    args = parser.parse_args()
    records = []
    for file in sorted((args.shared / "data" / "ragbench").glob("*.jsonl")):
        for record in load_ragbench(file):
            meta = record.sample.metadata
            if fold_of(meta["dataset_name"], record.dataset, meta["ragbench_id"]) == "held":
                records.append(record)
    if args.rows:
        records = records[: args.rows]
    params = LocalParams.load()
    if args.forcing_kinds is not None:
        params = dataclasses.replace(params, forcing_kinds=[k for k in args.forcing_kinds.split(",") if k])
    judge = OfflineJudge(params=params)
    start = time.time()
    rows = []
    for chunk in range(0, len(records), 64):
        part = records[chunk : chunk + 64]
        judge.prepare([r.sample for r in part])
        for record in part:
            meta = record.sample.metadata
            result = judge.trace_labels(record.sample)
            notes = result.notes
            kinds = [c["kind"] for c in notes.get("contradictions", [])]
            rows.append(
                {
                    "subset": record.dataset,
                    "supported": bool(record.released_scores["adherence"]),
                    "probability": notes["adherence_probability"],
                    "verdict": result.value.overall_supported,
                    "contradicted_kinds": kinds,
                    "gpt3": record.other_judges.get("gpt3_adherence"),
                    "overlap": overlap_hallucination(record.sample.response, record.sample.contexts),
                    "id": f"{record.dataset}:{meta['ragbench_id']}:{meta.get('generation_model_name')}",
                }
            )
        print(f"  judged {len(rows)} of {len(records)} rows in {time.time() - start:.0f}s", flush=True)
    report: dict = {"rows": len(rows), "wall_s": round(time.time() - start, 1), "subsets": {}}
    groups = collections.defaultdict(list)
    for row in rows:
        groups[row["subset"]].append(row)
        groups["all"].append(row)
    for name, group in sorted(groups.items()):
        truth = [not r["supported"] for r in group]
        report["subsets"][name] = {
            "rows": len(group),
            "hallucination_auroc": auroc(truth, [1 - r["probability"] for r in group]),
            "overlap_auroc": auroc(truth, [r["overlap"] for r in group]),
            "row_balanced_accuracy": balanced_accuracy([r["verdict"] for r in group], [r["supported"] for r in group]),
        }
    own = [v for k, v in report["subsets"].items() if k != "all" and v["hallucination_auroc"] is not None]
    report["mean_subset_auroc"] = sum(v["hallucination_auroc"] for v in own) / max(1, len(own))
    report["mean_subset_overlap_auroc"] = sum(v["overlap_auroc"] for v in own) / max(1, len(own))
    report["row_scores"] = [{k: r[k] for k in ("id", "supported", "probability", "verdict", "overlap")} for r in rows]
    supported = [r for r in rows if r["supported"]]
    flagged = [r for r in supported if r["contradicted_kinds"]]
    gpt = [r for r in rows if r["gpt3"] is not None]
    report["supported_answers"] = len(supported)
    report["supported_with_a_contradicted_sentence"] = len(flagged)
    report["their_kinds"] = collections.Counter(k for r in flagged for k in r["contradicted_kinds"])
    report["gpt35_rows"] = len(gpt)
    report["gpt35_row_balanced_accuracy"] = balanced_accuracy(
        [r["gpt3"] >= 0.5 for r in gpt], [r["supported"] for r in gpt]
    )
    report["ours_on_gpt35_rows"] = balanced_accuracy([r["verdict"] for r in gpt], [r["supported"] for r in gpt])
    for name, figures in report["subsets"].items():
        print(f"{name:<12} {figures['rows']:>4} rows  AUROC {figures['hallucination_auroc']:.3f} "
              f"(overlap {figures['overlap_auroc']:.3f})  "
              f"row verdict balanced accuracy {figures['row_balanced_accuracy']:.3f}")  # fmt: skip
    print(f"mean of the subsets' AUROCs: {report['mean_subset_auroc']:.3f} "
          f"(overlap {report['mean_subset_overlap_auroc']:.3f}); wall {report['wall_s']} s")  # fmt: skip
    share = len(flagged) / max(1, len(supported))
    print(f"supported answers with a sentence called contradicted: {len(flagged)} of {len(supported)} ({share:.3f}); "
          f"kinds {dict(report['their_kinds'])}")  # fmt: skip
    ours, theirs = report["ours_on_gpt35_rows"], report["gpt35_row_balanced_accuracy"]
    print(f"row verdict balanced accuracy on the {len(gpt)} rows with GPT-3.5's: ours {ours:.3f}, GPT-3.5 {theirs:.3f}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
