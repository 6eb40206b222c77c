"""Contradiction benchmark for the offline judge: does it flag answers that contradict their documents?

1. Hand-written pairs (``benchmarks/data/contradiction_pairs.jsonl``): answers that contradict their context
   — kinds ``number``, ``date``, ``name``, ``negation``, ``role_swap``, ``unit`` — and faithful answers:
   ``paraphrase`` (entailed, few words shared with the context) and ``faithful_copy`` (close to its wording).
2. ``--nli-pairs N``: N pairs drawn (fixed seed, an equal share per source, half entailment and half
   contradiction) from the held-out NLI split of ``training/train_nli.py`` — sources snli_test,
   mnli_dev_matched, cad_snli_test and fever_nli_dev; context = premise, response = hypothesis. The question
   is a fixed generic one, as ``RagSample`` needs a non-empty question.

Every pair is scored through the public API — ``evaluate_sample(sample, ["trace", "faithfulness"],
judge=LocalJudge())``. A pair is *flagged* when TRACe adherence is 0 (the judge marks a response sentence
unsupported): catch rate = contradictions flagged, false-alarm rate = faithful pairs flagged. AUROC ranks
the pairs by 1 − ``adherence_probability`` (the TRACe judgement's notes), contradiction = positive.

    python benchmarks/contradictions.py [--nli-pairs 600] [--nli-data ../shared/data/nli] [--json PATH] [--adapter DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rageval_lc import RagSample, evaluate_sample  # noqa: E402
from rageval_lc.metrics.agreement import auroc  # noqa: E402
from rageval_lc.reports.summary import format_table  # noqa: E402

PAIRS = ROOT / "benchmarks" / "data" / "contradiction_pairs.jsonl"
SHARED = Path(os.environ.get("RAGEVAL_SHARED_DIR", ROOT.parent / "shared"))
CONTRADICTION_KINDS = ("number", "date", "name", "negation", "role_swap", "unit")
FAITHFUL_KINDS = ("paraphrase", "faithful_copy")
NLI_SOURCES = ("snli_test", "mnli_dev_matched", "cad_snli_test", "fever_nli_dev")
NLI_QUESTION = "What does the passage say?"
SEED = 13


def load_pairs(path: Path = PAIRS) -> list[dict[str, Any]]:
    """The hand-written pairs, one JSON object a line."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_nli(data: Path, n: int, seed: int = SEED) -> list[dict[str, Any]]:
    """``n`` held-out NLI rows: an equal share per source in NLI_SOURCES, half of each share per label."""
    from training.train_nli import load_splits

    _, held_out = load_splits(data)
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    for s, source in enumerate(NLI_SOURCES):
        share = n // len(NLI_SOURCES) + (s < n % len(NLI_SOURCES))
        for i, label in enumerate(("contradiction", "entailment")):
            pool = [r for r in held_out if r["source"] == source and r["label"] == label]
            take = min(len(pool), share // 2 + (i < share % 2))
            rows += [{**r, "label": label} for r in rng.sample(pool, take)]
    return rows


def score(samples: list[RagSample], adapter: Path | None = None) -> list[dict[str, Any]]:
    """Adherence, adherence probability and faithfulness of each sample, by the offline judge (``adapter``: its
    NLI adapter folder, None for the shipped one)."""
    from rageval_lc.judges import LocalJudge

    judge = LocalJudge(nli=adapter)
    prepare = getattr(judge, "prepare", None)
    if callable(prepare):
        prepare(samples)
    out = []
    for sample in samples:
        try:
            result = evaluate_sample(sample, ["trace", "faithfulness"], judge=judge)
        except Exception as error:  # one failing pair is counted, not fatal
            print(f"{sample.id}: {type(error).__name__}: {error}", file=sys.stderr)
            out.append({"adherence": None, "adherence_probability": None, "faithfulness": None, "flagged": False})
            continue
        notes = result.details.get("trace", {}).get("judge_notes", {})
        probability = notes.get("adherence_probability", result.scores().get("adherence_probability"))
        adherence = result.scores().get("adherence")
        out.append(
            {
                "adherence": adherence,
                "adherence_probability": probability,
                "faithfulness": result.scores().get("faithfulness"),
                "flagged": adherence == 0,
            }
        )
    return out


def _rate(flags: Sequence[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def _ranking(scored: Sequence[dict[str, Any]]) -> list[float]:
    """1 − adherence_probability (a missing probability ranks as 0.5)."""
    return [1.0 - (s["adherence_probability"] if s["adherence_probability"] is not None else 0.5) for s in scored]


def summarise(rows: Sequence[dict[str, Any]], scored: Sequence[dict[str, Any]], group: str) -> dict[str, Any]:
    """Per-group and pooled figures; ``group`` is the row field to group by (``kind`` or ``source``)."""
    positive = [r["label"] == "contradiction" for r in rows]
    ranking = _ranking(scored)
    figures: dict[str, Any] = {"groups": {}}
    for name in dict.fromkeys(r[group] for r in rows):
        idx = [i for i, r in enumerate(rows) if r[group] == name]
        con = [i for i in idx if positive[i]]
        ent = [i for i in idx if not positive[i]]
        # AUROC of the group against the other class of the whole set, unless the group holds both classes
        others = idx if con and ent else idx + [i for i in range(len(rows)) if positive[i] != positive[idx[0]]]
        figures["groups"][name] = {
            "n": len(idx),
            "contradictions": len(con),
            "faithful": len(ent),
            "catch_rate": _rate([scored[i]["flagged"] for i in con]),
            "false_alarm_rate": _rate([scored[i]["flagged"] for i in ent]),
            "auroc": auroc([positive[i] for i in others], [ranking[i] for i in others]),
            "mean_adherence_probability": _mean([scored[i]["adherence_probability"] for i in idx]),
            "mean_faithfulness": _mean([scored[i]["faithfulness"] for i in idx]),
        }
    con = [i for i in range(len(rows)) if positive[i]]
    ent = [i for i in range(len(rows)) if not positive[i]]
    figures["pooled"] = {
        "n": len(rows),
        "contradictions": len(con),
        "faithful": len(ent),
        "catch_rate": _rate([scored[i]["flagged"] for i in con]),
        "false_alarm_rate": _rate([scored[i]["flagged"] for i in ent]),
        "auroc": auroc(positive, ranking),
        "mean_faithfulness_contradiction": _mean([scored[i]["faithfulness"] for i in con]),
        "mean_faithfulness_faithful": _mean([scored[i]["faithfulness"] for i in ent]),
        "errors": sum(s["adherence"] is None for s in scored),
    }
    return figures


def _table(figures: dict[str, Any], label: str) -> str:
    rows = [
        [name, g["n"], g["catch_rate"], g["false_alarm_rate"], g["auroc"], g["mean_adherence_probability"],
         g["mean_faithfulness"]]
        for name, g in figures["groups"].items()
    ]  # fmt: skip
    pooled = figures["pooled"]
    rows.append(["all", pooled["n"], pooled["catch_rate"], pooled["false_alarm_rate"], pooled["auroc"], None, None])
    headers = [label, "n", "catch rate", "false alarms", "AUROC", "mean P(adherent)", "mean faithfulness"]
    return format_table(headers, rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=Path, default=PAIRS, help="the hand-written pairs (JSONL)")
    parser.add_argument("--nli-pairs", type=int, default=600, help="held-out NLI pairs to score too (0: none)")
    parser.add_argument("--nli-data", type=Path, default=SHARED / "data" / "nli", help="the NLI data folder")
    parser.add_argument("--json", type=Path, help="write every figure to this JSON file")
    parser.add_argument("--adapter", type=Path, help="another NLI adapter folder (default: the shipped one)")
    args = parser.parse_args()
    if args.nli_pairs and not args.nli_data.is_dir():
        print(f"no NLI data folder at {args.nli_data} (pass --nli-data, or --nli-pairs 0)", file=sys.stderr)
        return 2

    pairs = load_pairs(args.pairs)
    nli = load_nli(args.nli_data, args.nli_pairs) if args.nli_pairs else []
    samples = [RagSample(id=p["id"], question=p["question"], contexts=[p["context"]], response=p["response"])
               for p in pairs]  # fmt: skip
    samples += [RagSample(id=f"nli-{i}", question=NLI_QUESTION, contexts=[r["premise"]], response=r["hypothesis"])
                for i, r in enumerate(nli)]  # fmt: skip
    start = time.perf_counter()
    scored = score(samples, args.adapter)
    wall = time.perf_counter() - start

    report: dict[str, Any] = {"pairs": summarise(pairs, scored[: len(pairs)], "kind")}
    kinds = report["pairs"]["groups"]
    report["pairs"]["groups"] = {k: kinds[k] for k in (*CONTRADICTION_KINDS, *FAITHFUL_KINDS) if k in kinds} | {
        k: v for k, v in kinds.items() if k not in CONTRADICTION_KINDS + FAITHFUL_KINDS
    }
    print(f"Offline judge (LocalJudge) on {len(pairs)} hand-written pairs ({args.pairs.name}); flagged = TRACe "
          f"adherence 0; AUROC ranks by 1 − adherence_probability, contradiction = positive (per kind: against "
          f"every pair of the other label).\n")  # fmt: skip
    print(_table(report["pairs"], "kind"))
    pooled = report["pairs"]["pooled"]
    print(
        f"\ncatch rate {_fmt(pooled['catch_rate'])}, false-alarm rate {_fmt(pooled['false_alarm_rate'])}, "
        f"AUROC {_fmt(pooled['auroc'])}; mean faithfulness: contradictions "
        f"{_fmt(pooled['mean_faithfulness_contradiction'])}, faithful {_fmt(pooled['mean_faithfulness_faithful'])}"
        f"; errors {pooled['errors']}"
    )
    if nli:
        report["nli"] = summarise(nli, scored[len(pairs) :], "source")
        report["nli"]["seed"] = SEED
        print(f"\nHeld-out NLI pairs ({len(nli)} drawn with seed {SEED} from {args.nli_data}; context = premise, "
              f"response = hypothesis; AUROC within each source).\n")  # fmt: skip
        print(_table(report["nli"], "source"))
    report["per_pair"] = [
        {"id": p["id"], "kind": p["kind"], "label": p["label"], **s} for p, s in zip(pairs, scored, strict=False)
    ]
    report["samples"] = len(samples)
    report["wall_s"] = round(wall, 2)
    print(f"\n{len(samples)} samples scored in {wall:.1f} s")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(f"figures written to {args.json}")
    return 0


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


if __name__ == "__main__":
    raise SystemExit(main())
