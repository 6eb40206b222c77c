"""How often each kind of slot conflict is right when it speaks, on real answers and on twins of them.

The contradiction detector's slot checks (:func:`~rageval_lc.judges.offline.contradiction.find_conflict`: numbers,
units, dates, names, negations, roles, comparisons) are run on every response sentence of

* the RAGBench answers labelled fully supported (every conflict there is a false alarm),
* the faithful twins of ``training/make_twins.py`` (false alarms too),
* the contradicting twins (a conflict on the edited sentence is a catch; one elsewhere a false alarm),

split by the calibration's fold rule (``benchmarks/ragbench_folds.py``). A kind may force "contradicted" on its own
(``LocalParams.forcing_kinds``) only where its precision — catches / (catches + false alarms) — is at least 0.9 on
the fitted part; the held-out part is reported beside it. Text work only: no model is loaded.

    python training/make_twins.py            # writes .cache/twins/twins.jsonl
    python benchmarks/conflict_precision.py [--shared ../shared] [--json PATH] [--examples KIND]
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from ragbench_folds import fold_of  # noqa: E402

from rageval_lc.datasets.ragbench import load_ragbench, ragbench_record  # noqa: E402
from rageval_lc.judges.offline.contradiction import evidence_units, find_conflict  # noqa: E402

MIN_PRECISION = 0.9


def sentence_conflicts(sample) -> dict[str, tuple[str, str]]:
    """Per response sentence key with a slot conflict: (kind, detail)."""
    units = evidence_units(sample.sentences.documents)
    response = sample.sentences.response
    out = {}
    for i, (key, text) in enumerate(response):
        conflict = find_conflict(text, units, response[i - 1][1] if i else None)
        if conflict is not None:
            out[key] = (conflict.kind, conflict.detail)
    return out


def tally(shared: Path, twins: Path) -> dict:
    """Catches and false alarms per fold and kind, with a few examples of each."""
    counts: dict = collections.defaultdict(lambda: collections.Counter())
    examples: dict = collections.defaultdict(list)
    sentences: collections.Counter = collections.Counter()
    for file in sorted((shared / "data" / "ragbench").glob("*.jsonl")):
        for record in load_ragbench(file):
            if not record.released_scores.get("adherence"):
                continue
            sample = record.sample
            fold = fold_of(sample.metadata["dataset_name"], record.dataset, sample.metadata["ragbench_id"])
            sentences[(fold, "ragbench_supported")] += len(sample.sentences.response)
            for key, (kind, detail) in sentence_conflicts(sample).items():
                counts[(fold, kind)]["false_alarm_ragbench"] += 1
                examples[(kind, "false_alarm")].append((record.dataset, sample.metadata["ragbench_id"], key, detail))
    for line in twins.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        record = ragbench_record(row)
        twin, fold, edited = row["twin"], row["fold"], row["edited_key"]
        if fold == "aux":
            fold = "fit"
        found = sentence_conflicts(record.sample)
        sentences[(fold, f"twin_{twin}")] += len(record.sample.sentences.response)
        for key, (kind, detail) in found.items():
            if twin == "contradicting" and key == edited:
                counts[(fold, kind)]["catch"] += 1
                examples[(kind, "catch")].append((record.sample.id, key, detail))
            else:
                counts[(fold, kind)]["false_alarm_twin"] += 1
                examples[(kind, "false_alarm")].append((record.sample.id, key, detail))
        if twin == "contradicting":
            counts[(fold, "any")]["edited"] += 1
            counts[(fold, "any")]["catch"] += edited in found
    return {"counts": counts, "examples": examples, "sentences": sentences}


def precision(c: collections.Counter) -> float | None:
    alarms = c["false_alarm_ragbench"] + c["false_alarm_twin"]
    return None if not c["catch"] + alarms else c["catch"] / (c["catch"] + alarms)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--twins", type=Path, default=ROOT / ".cache" / "twins" / "twins.jsonl")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--examples", help="print examples of these kinds' catches and false alarms (comma-separated)")
    args = parser.parse_args()
    if not args.twins.exists():
        sys.exit(f"No twins at {args.twins}: run `python training/make_twins.py` first.")
    result = tally(args.shared, args.twins)
    counts = result["counts"]
    kinds = sorted({kind for _, kind in counts if kind != "any"})
    print("kind          fold  catches  false alarms (RAGBench supported / faithful twins)  precision")
    report: dict = {"kinds": {}, "sentences": {f"{f}:{k}": n for (f, k), n in result["sentences"].items()}}
    for kind in kinds:
        for fold in ("fit", "held"):
            c = counts[(fold, kind)]
            p = precision(c)
            report["kinds"].setdefault(kind, {})[fold] = {**c, "precision": p}
            shown = "-" if p is None else f"{p:.3f}"
            alarms = f"{c['false_alarm_ragbench']} / {c['false_alarm_twin']}"
            print(f"{kind:<12}  {fold:<4}  {c['catch']:>7}  {alarms:>50}  {shown:>9}")
    forcing = [
        kind
        for kind in kinds
        if (p := precision(counts[("fit", kind)])) is not None and p >= MIN_PRECISION and counts[("fit", kind)]["catch"]
    ]
    report["forcing_kinds"] = forcing
    for fold in ("fit", "held"):
        c = counts[(fold, "any")]
        print(f"contradicting twins, {fold}: edited sentence caught by a slot check {c['catch']} of {c['edited']}")
        report[f"twins_caught_{fold}"] = [c["catch"], c["edited"]]
    print(f"kinds at precision >= {MIN_PRECISION} on the fitted part (may force): {forcing}")
    for (fold, name), n in sorted(result["sentences"].items()):
        print(f"  sentences read: {fold} {name} {n}")
    for kind in args.examples.split(",") if args.examples else []:
        for what in ("catch", "false_alarm"):
            print(f"\n{kind} — {what}:")
            for row in result["examples"][(kind, what)][:40]:
                print("  ", *row)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=dict))


if __name__ == "__main__":
    main()
