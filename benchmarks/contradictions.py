"""Contradiction benchmark for the offline judge: does it call contradicted answers "contradicted", and only those?

Three sets, every sample scored through the public API (``evaluate_sample(sample, ["trace", "faithfulness"],
judge=OfflineJudge())``); a response sentence's outcome is its verdict in the TRACe judgement's notes
(``sentence_verdicts``: supported / not_found / contradicted):

1. **Single-context pairs** (``benchmarks/data/contradiction_pairs.jsonl``, 157): answers that contradict their
   context — kinds ``number``, ``date``, ``name``, ``negation``, ``role_swap``, ``unit`` — and faithful answers,
   ``paraphrase`` (few words shared) and ``faithful_copy``. Caught = some sentence called contradicted.
2. **RAG-shaped cases** (``benchmarks/data/contradiction_rag_cases.jsonl``, 98): two or three passages (the fact
   in one, distractors in the others), an answer of two or three sentences of which exactly one contradicts;
   kinds as above plus ``comparison``, each beside a faithful twin. Caught = *that* sentence called contradicted.
3. ``--nli-pairs N``: held-out NLI pairs (SNLI test, MNLI dev-matched, CAD-SNLI test, and the FEVER half that
   ``contradiction_dev.py`` never reads), half entailment and half contradiction.

For every faithful answer: "false contradicted" (some sentence called contradicted) and, separately, "not all
supported" (some sentence called anything but supported). AUROC ranks by 1 − ``adherence_probability``.
**Bystanders**: each sample of sets 1 and 2 is scored again with an off-topic passage
(``benchmarks/data/off_topic_passages.jsonl``, drawn with a fixed seed) appended; "changed" counts samples
whose sentence outcomes differ.

    python benchmarks/contradictions.py [--nli-pairs 400] [--json PATH] [--adapter DIR]
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
sys.path.insert(0, str(ROOT / "benchmarks"))

from rageval_lc import RagSample, evaluate_sample  # noqa: E402
from rageval_lc.metrics.agreement import auroc  # noqa: E402
from rageval_lc.reports.summary import format_table  # noqa: E402

DATA = ROOT / "benchmarks" / "data"
PAIRS = DATA / "contradiction_pairs.jsonl"
RAG_CASES = DATA / "contradiction_rag_cases.jsonl"
OFF_TOPIC = DATA / "off_topic_passages.jsonl"
SHARED = Path(os.environ.get("RAGEVAL_SHARED_DIR", ROOT.parent / "shared"))
CONTRADICTION_KINDS = ("number", "date", "name", "negation", "role_swap", "unit", "comparison")
FAITHFUL_KINDS = ("paraphrase", "faithful_copy")
NLI_SOURCES = ("snli_test", "mnli_dev_matched", "cad_snli_test", "fever_nli_dev")
NLI_QUESTION = "What does the passage say?"
SEED = 13


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    """One JSON object a line."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_pairs(path: Path = PAIRS) -> list[dict[str, Any]]:
    """The single-context pairs, as cases (``contexts``: the one context)."""
    return [{**p, "contexts": [p["context"]], "contradicted_sentence": None} for p in load_jsonl(path)]


def load_nli(data: Path, n: int, seed: int = SEED) -> list[dict[str, Any]]:
    """``n`` held-out NLI rows: an equal share per source in NLI_SOURCES, half of each share per label (FEVER: only
    the half of its held-out claims that ``contradiction_dev.py`` leaves alone)."""
    from contradiction_dev import fever_half

    from training.train_nli import load_splits

    _, held_out = load_splits(data)
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    for s, source in enumerate(NLI_SOURCES):
        share = n // len(NLI_SOURCES) + (s < n % len(NLI_SOURCES))
        for i, label in enumerate(("contradiction", "entailment")):
            pool = [r for r in held_out if r["source"] == source and r["label"] == label]
            if source == "fever_nli_dev":
                pool = [r for r in pool if fever_half(r["hypothesis"]) == "report"]
            take = min(len(pool), share // 2 + (i < share % 2))
            rows += [
                {**r, "label": label, "kind": source, "contexts": [r["premise"]], "response": r["hypothesis"],
                 "question": NLI_QUESTION, "contradicted_sentence": None}
                for r in rng.sample(pool, take)
            ]  # fmt: skip
    return rows


def with_bystander(cases: Sequence[dict[str, Any]], passages: Sequence[str], seed: int = SEED) -> list[dict]:
    """Each case with one off-topic passage appended (drawn with a fixed seed)."""
    rng = random.Random(seed)
    return [{**c, "contexts": [*c["contexts"], rng.choice(list(passages))]} for c in cases]


def score(cases: Sequence[dict[str, Any]], judge: Any) -> list[dict[str, Any]]:
    """Per case: the sentence outcomes with the judge's reasons, adherence probability, faithfulness and the kinds
    of contradiction found, by ``judge``."""
    samples = [
        RagSample(id=str(c.get("id", i)), question=c["question"], contexts=c["contexts"], response=c["response"])
        for i, c in enumerate(cases)
    ]
    prepare = getattr(judge, "prepare", None)
    if callable(prepare):
        prepare(samples)
    out = []
    for sample in samples:
        try:
            result = evaluate_sample(sample, ["trace", "faithfulness"], judge=judge)
        except Exception as error:  # one failing case is counted, not fatal
            print(f"{sample.id}: {type(error).__name__}: {error}", file=sys.stderr)
            out.append(
                {"verdicts": None, "reasons": None, "adherence_probability": None, "faithfulness": None, "kinds": []}
            )
            continue
        trace = result.details.get("trace", {})
        notes = trace.get("judge_notes", {})
        reasons = {s.get("key"): s.get("explanation", "") for s in trace.get("sentence_support", [])}
        verdicts = notes.get("sentence_verdicts", {})
        out.append(
            {
                "verdicts": list(verdicts.values()),
                "reasons": [reasons.get(k, "") for k in verdicts],
                "adherence_probability": notes.get("adherence_probability"),
                "faithfulness": result.scores().get("faithfulness"),
                "kinds": [c.get("kind") for c in notes.get("contradictions", [])],
            }
        )
    return out


def caught(case: dict[str, Any], scored: dict[str, Any]) -> bool:
    """A contradiction is caught when its contradicting sentence (any sentence, for a single-context pair) is
    called contradicted."""
    verdicts = scored["verdicts"] or []
    index = case.get("contradicted_sentence")
    if index is None:
        return "contradicted" in verdicts
    return index < len(verdicts) and verdicts[index] == "contradicted"


def _rate(flags: Sequence[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def summarise(cases: Sequence[dict], scored: Sequence[dict], changed: Sequence[bool] | None = None) -> dict:
    """Figures per kind and pooled."""
    positive = [c["label"] == "contradiction" for c in cases]
    ranking = [1.0 - (s["adherence_probability"] if s["adherence_probability"] is not None else 0.5) for s in scored]
    figures: dict[str, Any] = {"groups": {}}

    def group(idx: list[int]) -> dict[str, Any]:
        con = [i for i in idx if positive[i]]
        ent = [i for i in idx if not positive[i]]
        located = [i for i in con if cases[i].get("contradicted_sentence") is not None]  # RAG cases
        return {
            "n": len(idx),
            "contradictions": len(con),
            "faithful": len(ent),
            "caught": _rate([caught(cases[i], scored[i]) for i in con]),
            "false_contradicted": _rate([("contradicted" in (scored[i]["verdicts"] or [])) for i in ent]),
            "not_all_supported": _rate([any(v != "supported" for v in scored[i]["verdicts"] or []) for i in ent]),
            "other_sentences_contradicted": _rate(
                [
                    any(
                        v == "contradicted" and j != cases[i]["contradicted_sentence"]
                        for j, v in enumerate(scored[i]["verdicts"] or [])
                    )
                    for i in located
                ]
            ),
            "changed_by_bystander": None if changed is None else sum(changed[i] for i in idx),
            "errors": sum(scored[i]["verdicts"] is None for i in idx),
        }

    for name in dict.fromkeys(c["kind"] for c in cases):
        idx = [i for i, c in enumerate(cases) if c["kind"] == name]
        figures["groups"][name] = group(idx)
    figures["pooled"] = group(list(range(len(cases)))) | {"auroc": auroc(positive, ranking)}
    return figures


def _table(figures: dict[str, Any], label: str) -> str:
    def fmt(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    rows = []
    for name, g in [*figures["groups"].items(), ("all", figures["pooled"])]:
        rows.append(
            [name, g["n"], fmt(g["caught"]), fmt(g["false_contradicted"]), fmt(g["not_all_supported"]),
             "-" if g["changed_by_bystander"] is None else g["changed_by_bystander"]]
        )  # fmt: skip
    headers = [label, "n", "caught", "faithful called contradicted", "faithful not all supported",
               "changed by a bystander"]  # fmt: skip
    return format_table(headers, rows)


def _ordered(figures: dict[str, Any]) -> dict[str, Any]:
    kinds = figures["groups"]
    order = [k for k in (*CONTRADICTION_KINDS, *FAITHFUL_KINDS) if k in kinds]
    figures["groups"] = {k: kinds[k] for k in order} | {k: v for k, v in kinds.items() if k not in order}
    return figures


def run_set(name: str, cases: list[dict], judge: Any, passages: list[str], report: dict) -> None:
    """Score one set (and, with ``passages``, again with a bystander); print and store its figures."""
    scored = score(cases, judge)
    changed = None
    if passages:
        again = score(with_bystander(cases, passages), judge)
        changed = [a["verdicts"] != b["verdicts"] for a, b in zip(scored, again, strict=True)]
    figures = _ordered(summarise(cases, scored, changed))
    report[name] = figures
    report[f"{name}_per_case"] = [
        {"id": c.get("id"), "kind": c["kind"], "label": c["label"], **s, "changed_by_bystander": None if changed
         is None else changed[i]} for i, (c, s) in enumerate(zip(cases, scored, strict=True))
    ]  # fmt: skip
    print(_table(figures, "kind"))
    pooled = figures["pooled"]
    print(f"AUROC (1 − adherence_probability) {pooled['auroc']:.3f}; errors {pooled['errors']}\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nli-pairs", type=int, default=400, help="held-out NLI pairs to score too (0: none)")
    parser.add_argument("--nli-data", type=Path, default=SHARED / "data" / "nli", help="the NLI data folder")
    parser.add_argument("--json", type=Path, help="write every figure to this JSON file")
    parser.add_argument("--adapter", type=Path, help="another NLI adapter folder (default: the shipped one)")
    args = parser.parse_args()
    if args.nli_pairs and not args.nli_data.is_dir():
        print(f"no NLI data folder at {args.nli_data} (pass --nli-data, or --nli-pairs 0)", file=sys.stderr)
        return 2
    from rageval_lc.judges import OfflineJudge

    judge = OfflineJudge(nli=args.adapter)
    passages = [p["text"] for p in load_jsonl(OFF_TOPIC)]
    report: dict[str, Any] = {"seed": SEED}
    start = time.perf_counter()
    print(f"Offline judge on {PAIRS.name} (single context; caught = some sentence called contradicted):\n")
    run_set("pairs", load_pairs(), judge, passages, report)
    print(f"Offline judge on {RAG_CASES.name} (2-3 passages; caught = the contradicting sentence called so):\n")
    run_set("rag", load_jsonl(RAG_CASES), judge, passages, report)
    if args.nli_pairs:
        print(f"Held-out NLI pairs ({args.nli_pairs}, seed {SEED}; context = premise, response = hypothesis):\n")
        run_set("nli", load_nli(args.nli_data, args.nli_pairs), judge, [], report)
    report["wall_s"] = round(time.perf_counter() - start, 1)
    print(f"scored in {report['wall_s']} s")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(f"figures written to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
