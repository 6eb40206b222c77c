"""Does the prediction-powered interval hold the true rate? Coverage and width over random draws of labelled rows.

Reads the offline judge's verdicts on the held-out RAGBench rows (``benchmarks/heldout_verdicts.py --json PATH``:
its ``row_scores``, one entry per row with RAGBench's label ``supported`` and the judge's ``verdict`` and
``probability``) and, for n = 50, 100 and 200, draws ``--draws`` uniform samples of n rows to "label" (their
RAGBench label revealed; the others keep only the judge's verdict). The true rate is the share of all the rows
RAGBench labels supported. Per n, how often each 95 % interval holds it and how wide it is:

* PPI++ on the judge's 0/1 verdict (what ``rageval report --labels`` does with ``adherence``), and on its
  ``adherence_probability`` (a finer predictor of the same label);
* the labels alone (classical);
* the judge's plain mean over all rows with its normal interval (the same every draw: it holds the true rate in
  every draw or in none), and, per RAGBench sub-dataset, whether it holds that sub-dataset's true rate.

Run::

    python benchmarks/ppi_coverage.py .cache/bench/heldout_base.json [--draws 1000] [--seed 0] [--json PATH]
        [--example-out tests/cli/data]

``--example-out DIR`` also writes the guide's worked example (docs/guide/labels.md): the judge's verdicts as a
results file (``ragbench_heldout_scores.jsonl``: ``adherence`` per row, as ``rageval evaluate`` writes it) and
RAGBench's labels of the same rows as a labels file (``ragbench_heldout_labels.jsonl``).

``--ragbench-judge COLUMN`` reads no file of ours but the held-out RAGBench rows themselves (``--shared``, the fold
of ``benchmarks/ragbench_folds.py``) with the verdicts RAGBench records of another judge, e.g. ``gpt3_adherence``
(GPT-3.5's row verdict; ``verdict`` is the value >= 0.5, ``probability`` the value), on the rows that carry one.

Pure arithmetic (numpy; no model): a few seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rageval_lc.reports.ppi import ppi_mean  # noqa: E402

SIZES = (50, 100, 200)
Z = 1.959963984540054  # the normal quantile of a two-sided 95 % interval


def from_ragbench(shared: Path, column: str) -> list[dict]:
    """The held-out RAGBench rows with a recorded verdict in ``column``, as ``row_scores`` entries."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from ragbench_folds import fold_of

    from rageval_lc.datasets.ragbench import load_ragbench

    rows = []
    for file in sorted((shared / "data" / "ragbench").glob("*.jsonl")):
        for record in load_ragbench(file):
            meta = record.sample.metadata
            value = record.other_judges.get(column)
            if value is None or fold_of(meta["dataset_name"], record.dataset, meta["ragbench_id"]) != "held":
                continue
            rows.append(
                {
                    "id": f"{record.dataset}:{meta['ragbench_id']}",
                    "supported": bool(record.released_scores["adherence"]),
                    "verdict": float(value) >= 0.5,
                    "probability": float(value),
                }
            )
    if not rows:
        raise SystemExit(f"no held-out row of {shared}/data/ragbench carries {column!r}")
    return rows


def load(path: Path) -> list[dict]:
    """The rows of a ``heldout_verdicts.py --json`` file, each checked to carry what the study reads."""
    rows = json.loads(path.read_text(encoding="utf-8"))["row_scores"]
    for i, row in enumerate(rows):
        for key in ("supported", "verdict", "probability"):
            if row.get(key) is None:
                raise SystemExit(f"{path}: row_scores[{i}] has no {key!r}")
    return rows


def study(rows: list[dict], *, draws: int, seed: int, sizes=SIZES) -> dict:
    """Coverage and mean width per n and interval, the judge's plain mean, and per sub-dataset its miss."""
    truth = np.array([float(r["supported"]) for r in rows])
    verdict = np.array([float(r["verdict"]) for r in rows])
    probability = np.array([float(r["probability"]) for r in rows])
    rate = float(truth.mean())
    rng = np.random.default_rng(seed)
    out: dict = {"rows": len(rows), "true_rate": rate, "draws": draws, "seed": seed, "by_n": {}}
    whole = ppi_mean(truth, verdict, [])  # the judge over every row (the labels part is unused here)
    out["judge"] = {
        "mean": whole.judge_mean,
        "low": whole.judge_low,
        "high": whole.judge_high,
        "holds": whole.judge_low <= rate <= whole.judge_high,
        "agreement": float(np.mean(verdict == truth)),
    }
    for n in sizes:
        if n >= len(rows):
            continue
        held = defaultdict(int)
        widths = defaultdict(list)
        lams = []
        for _ in range(draws):
            labelled = np.zeros(len(rows), dtype=bool)
            labelled[rng.choice(len(rows), size=n, replace=False)] = True
            y = truth[labelled]
            for name, predictor in (("ppi_verdict", verdict), ("ppi_probability", probability)):
                est = ppi_mean(y, predictor[labelled], predictor[~labelled])
                intervals = {name: (est.ci_low, est.ci_high)}
                if name == "ppi_verdict":
                    lams.append(est.lam)
                    intervals["classical"] = (est.classical_low, est.classical_high)
                    # the normal intervals, as ppi-python gives them: mean ± z·se
                    intervals["ppi_verdict_normal"] = (est.mean - Z * est.se, est.mean + Z * est.se)
                    intervals["classical_normal"] = (
                        est.classical_mean - Z * est.classical_se,
                        est.classical_mean + Z * est.classical_se,
                    )
                for key, (low, high) in intervals.items():
                    held[key] += low <= rate <= high
                    widths[key].append(high - low)
        out["by_n"][n] = {
            name: {"coverage": held[name] / draws, "mean_width": float(np.mean(widths[name]))}
            for name in ("ppi_verdict", "ppi_verdict_normal", "ppi_probability", "classical", "classical_normal")
        }
        out["by_n"][n]["mean_lambda_verdict"] = float(np.mean(lams))
    subsets = defaultdict(list)
    for row in rows:
        subsets[str(row.get("id", "")).split(":", 1)[0] or "(none)"].append(row)
    out["subsets"] = {}
    for name, group in sorted(subsets.items()):
        t = np.array([float(r["supported"]) for r in group])
        v = np.array([float(r["verdict"]) for r in group])
        est = ppi_mean(t, v, []) if len(group) >= 2 else None
        if est is not None:
            out["subsets"][name] = {
                "rows": len(group),
                "true_rate": float(t.mean()),
                "judge_mean": est.judge_mean,
                "judge_low": est.judge_low,
                "judge_high": est.judge_high,
                "judge_holds": bool(est.judge_low <= t.mean() <= est.judge_high),
            }
    return out


def table(result: dict) -> str:
    """The study as Markdown: coverage and mean width per n, then the judge's plain mean."""
    judge = result["judge"]
    lines = [
        f"{result['rows']} held-out RAGBench rows, true rate (supported) {result['true_rate']:.3f}; the judge's "
        f"verdict agrees with the label on {judge['agreement']:.3f} of them. {result['draws']} draws per n "
        f"(seed {result['seed']}).",
        "",
        "PPI++ and labels only: the intervals rageval prints (Wilson's at the effective number of labels, for a "
        "rate); normal: mean ± 1.96·se, as ppi-python gives them. Coverage: share of draws whose interval holds the "
        "true rate; width: mean width.",
        "",
        "| labels n | PPI++ holds | width | PPI++ normal holds | width | PPI++ on probability holds | width "
        "| labels only holds | width | labels only normal holds | width | width PPI++ / labels only | mean λ |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, f in result["by_n"].items():
        cells = [
            f"{f[key]['coverage']:.1%} | {f[key]['mean_width']:.3f}"
            for key in ("ppi_verdict", "ppi_verdict_normal", "ppi_probability", "classical", "classical_normal")
        ]
        ratio = f["ppi_verdict"]["mean_width"] / f["classical"]["mean_width"]
        lines.append(f"| {n} | {' | '.join(cells)} | {ratio:.2f} | {f['mean_lambda_verdict']:.2f} |")
    holds = "holds it in every draw" if judge["holds"] else "misses it in every draw"
    lines += [
        "",
        f"The judge's plain mean over all rows: {judge['mean']:.3f} [{judge['low']:.3f}, {judge['high']:.3f}] — "
        f"the true rate is {result['true_rate']:.3f}, so its interval {holds} (it does not depend on the draw).",
        "",
        "| sub-dataset | rows | true rate | judge's plain mean [95 % CI] | holds |",
        "|---|---:|---:|---|---|",
    ]
    for name, s in result["subsets"].items():
        lines.append(
            f"| {name} | {s['rows']} | {s['true_rate']:.3f} | {s['judge_mean']:.3f} "
            f"[{s['judge_low']:.3f}, {s['judge_high']:.3f}] | {'yes' if s['judge_holds'] else 'no'} |"
        )
    return "\n".join(lines)


def write_example(rows: list[dict], folder: Path) -> None:
    """The guide's worked example: the judge's verdicts as a results file, RAGBench's labels as a labels file."""
    folder.mkdir(parents=True, exist_ok=True)
    scores = [
        {"id": row["id"], "line": line, "scores": {"adherence": float(row["verdict"])}, "status": {"adherence": "ok"}}
        for line, row in enumerate(rows, start=1)
    ]
    labels = [{"id": row["id"], "labels": {"adherence": int(row["supported"])}} for row in rows]
    for name, items in (("ragbench_heldout_scores.jsonl", scores), ("ragbench_heldout_labels.jsonl", labels)):
        (folder / name).write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("verdicts", type=Path, nargs="?", help="a heldout_verdicts.py --json file (with row_scores)")
    parser.add_argument(
        "--ragbench-judge", metavar="COLUMN", help="RAGBench's recorded verdicts instead, e.g. gpt3_adherence"
    )
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--example-out", type=Path, help="also write the guide's worked example's files here")
    args = parser.parse_args()
    if (args.verdicts is None) == (args.ragbench_judge is None):
        parser.error("give a verdicts file or --ragbench-judge COLUMN (one of them)")
    rows = load(args.verdicts) if args.verdicts else from_ragbench(args.shared, args.ragbench_judge)
    result = study(rows, draws=args.draws, seed=args.seed)
    print(table(result))
    if args.example_out:
        write_example(rows, args.example_out)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
