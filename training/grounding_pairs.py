"""Training and held-out pairs for the grounding model, built as the offline judge builds them at run time.

Run:  python training/grounding_pairs.py [--shared ../shared] [--twins .cache/twins/twins_all.jsonl]

Every pair is (evidence, claim, label) from :func:`rageval_lc.judges.offline.grounding.grounding_pairs` over the
packaged MiniLM's sentence embeddings (the judge's own), with labels in the NLI model's columns: ``entailment``
(supported), ``neutral`` (not found in the documents), ``contradiction`` (contradicted). Sources:

- ``ragbench``: every response sentence of RAGBench's rows, labelled by the annotator (not found when the sentence
  is in ``unsupported_response_sentence_keys``, or ``fully_supported`` is false where that list is absent).
- ``twins``: the edited sentence of each twin of a real answer (``training/make_twins.py``): a contradicting twin's
  is contradicted, a faithful twin's supported.
- ``twins_short``: the same sentence read against only the document sentences its edit rests on (the twin's
  ``evidence_keys``, at most three), so the model also learns to read a one- or two-sentence context.
- ``additions``: a supported answer with one sentence added that its documents do not hold: a document sentence of
  another row of the same sub-dataset, the closest to the answer among those the row's documents share few words
  with (as a list item when the answer is a list): not found.
- ``copies``: a document sentence copied as a claim (with a list mark half the time): supported.
- ``wice``: WiCE's claims against their cited pages (supported; partially or not supported: not found).
- ``nli``: a replay of the NLI model's own training pairs (``training/train_nli.py``'s split), so it keeps
  reading short sentence pairs.

Folds: a RAGBench row (and its twins and additions) by ``benchmarks/ragbench_folds.py``; WiCE and NLI pairs fit
only. Writes ``fit.jsonl.gz`` (shuffled, capped per source by ``--cap``) and ``held.jsonl.gz`` (every held-out
RAGBench sentence and twin, with ``subset`` and ``row`` so row scores can be rebuilt). Sentence embeddings are
cached in ``<out>/embeddings.npz`` (about 10 minutes on 2 cores the first time).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "training"))

from ragbench_folds import fold_of  # noqa: E402

from rageval_lc.judges.offline.grounding import claim_text, content_words, grounding_pairs  # noqa: E402
from rageval_lc.text import KeyedSentences  # noqa: E402

LABEL = {"supported": "entailment", "not_found": "neutral", "contradicted": "contradiction"}
DEFAULT_CAP = {"ragbench_supported": 5000, "ragbench_unsupported": 5000, "twins_contradicting": 3500,
               "twins_faithful": 1500, "twins_short_contradicting": 1000, "twins_short_faithful": 800,
               "additions": 1500, "copies": 500, "wice": 900, "nli": 2500}  # fmt: skip


def ragbench_rows(shared: Path) -> list[dict]:
    rows = []
    for path in sorted((shared / "data" / "ragbench").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            subset = path.stem.rsplit("_", 1)[0]
            row["_subset"], row["_fold"] = subset, fold_of(path.stem, subset, row["id"])
            row["_row"] = f"{path.stem}:{row['id']}:{row.get('generation_model_name')}"
            rows.append(row)
    return rows


def sentence_labels(row: dict) -> dict[str, str]:
    """Response key -> supported / not_found, as RAGBench's annotator labelled it."""
    keys = [k for k, _ in row["response_sentences"]]
    listed = row.get("unsupported_response_sentence_keys")
    if listed is not None:
        bad = set(listed)
    else:
        bad = {s["response_sentence_key"] for s in row.get("sentence_support_information") or []
               if s.get("fully_supported") is False}  # fmt: skip
    return {k: "not_found" if k in bad else "supported" for k in keys}


class Embeddings:
    """Sentence vectors of the packaged MiniLM (normalised), computed once per text and cached on disk."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.vectors: dict[str, np.ndarray] = {}
        if path.exists():
            data = np.load(path, allow_pickle=False)
            self.vectors = dict(zip(data["texts"].tolist(), data["vectors"], strict=True))

    def add(self, texts: list[str]) -> None:
        todo = sorted({t for t in texts if t not in self.vectors})
        if not todo:
            return
        from sentence_transformers import SentenceTransformer

        from rageval_lc.judges.offline.encoder import default_model_path

        model = SentenceTransformer(str(default_model_path()), device="cpu")
        started = time.time()
        for start in range(0, len(todo), 2048):
            chunk = todo[start : start + 2048]
            vecs = model.encode(chunk, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
            self.vectors.update(zip(chunk, vecs.astype(np.float32), strict=True))
            print(f"embedded {start + len(chunk):,}/{len(todo):,} ({time.time() - started:.0f}s)", flush=True)
        texts_all = list(self.vectors)
        np.savez(self.path, texts=np.array(texts_all), vectors=np.stack([self.vectors[t] for t in texts_all]))

    def matrix(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.vectors[t] for t in texts]) if texts else np.zeros((0, 384), dtype=np.float32)


def keyed(row: dict) -> KeyedSentences:
    return KeyedSentences.from_pairs(row["documents_sentences"], row["response_sentences"])


def pairs_of(row: dict, emb: Embeddings, only: set[str] | None = None) -> list[tuple[str, str, str]]:
    """(response key, evidence, claim) per response sentence (or per key in ``only``)."""
    ks = keyed(row)
    docs = emb.matrix([t for d in ks.documents for _, t in d])
    resp = emb.matrix([t for _, t in ks.response])
    sims = resp @ docs.T if len(docs) else np.zeros((len(resp), 0))
    out = []
    for (key, _), (_, evidence, claim) in zip(ks.response, grounding_pairs(ks, sims, row.get("question") or ""),
                                              strict=True):  # fmt: skip
        if only is None or key in only:
            out.append((key, evidence, claim))
    return out


def additions(rows: list[dict], emb: Embeddings, rng: random.Random) -> list[dict]:
    """Supported answers with one foreign sentence appended (see the module's docstring)."""
    by_subset: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_subset[row["_subset"]].append(row)
    out = []
    for row in rows:
        labels = sentence_labels(row)
        if not labels or "not_found" in labels.values() or rng.random() > 0.5:
            continue
        own_words = set().union(*(content_words(t) for d in row["documents_sentences"] for _, t in d))
        others = rng.sample(by_subset[row["_subset"]], min(6, len(by_subset[row["_subset"]])))
        candidates = [
            t
            for o in others
            if o["id"] != row["id"]
            for d in o["documents_sentences"]
            for _, t in d
            if 8 <= len(t.split()) <= 40 and len(content_words(t) - own_words) >= 0.5 * len(content_words(t))
        ]
        if not candidates:
            continue
        answer = emb.matrix([row["response"]])[0] if row["response"] in emb.vectors else None
        if answer is None:
            continue
        best = candidates[int(np.argmax(emb.matrix(candidates) @ answer))]
        listed = any(t.lstrip().startswith(("-", "*", "•", "1.", "2.")) for _, t in row["response_sentences"])
        added = f"- {best}" if listed else best
        twin = dict(row)
        key = f"z{len(row['response_sentences'])}"
        twin["response_sentences"] = [*row["response_sentences"], [key, added]]
        twin["response"] = f"{row['response']} {added}"
        out.append({"row": twin, "key": key})
    return out


def write(path: Path, pairs: list[dict]) -> None:
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as fh:
        for p in pairs:
            fh.write((json.dumps(p, ensure_ascii=False) + "\n").encode())
    path.write_bytes(buffer.getvalue())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--twins", type=Path, default=ROOT / ".cache" / "twins" / "twins.jsonl")
    parser.add_argument("--out", type=Path, default=ROOT / ".cache" / "grounding")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every source's cap (a quick run: 0.01)")
    args = parser.parse_args(argv)
    started = time.time()
    rng = random.Random(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = ragbench_rows(args.shared)
    twins = [json.loads(x) for x in args.twins.read_text(encoding="utf-8").splitlines()] if args.twins.exists() else []
    with gzip.open(args.shared / "data" / "aux" / "wice.jsonl.gz", "rt", encoding="utf-8") as fh:
        wice = [json.loads(x) for x in fh]
    wice = [w for w in wice if sum(len(d) for d in w["documents_sentences"]) <= 60]
    rng.shuffle(wice)
    wice = wice[: round(DEFAULT_CAP["wice"] * args.scale * 1.3)]
    for w in wice:  # one claim: its sentences read together
        w["response_sentences"] = [["a", " ".join(t for _, t in w["response_sentences"])]]
        w["response"] = w["response_sentences"][0][1]
    emb = Embeddings(args.out / "embeddings.npz")
    texts = [t for r in [*rows, *wice] for d in r["documents_sentences"] for _, t in d]
    texts += [t for r in [*rows, *twins, *wice] for _, t in r["response_sentences"]] + [r["response"] for r in rows]
    texts += [t for r in twins for d in r["documents_sentences"] for _, t in d]
    emb.add(texts)

    fit: dict[str, list[dict]] = defaultdict(list)
    held: list[dict] = []
    for row in rows:
        labels = sentence_labels(row)
        for key, evidence, claim in pairs_of(row, emb):
            label = labels[key]
            pair = {"premise": evidence, "hypothesis": claim, "label": LABEL[label]}
            if row["_fold"] == "held":
                held.append({**pair, "source": "ragbench", "subset": row["_subset"], "row": row["_row"], "key": key})
            else:
                fit[f"ragbench_{'supported' if label == 'supported' else 'unsupported'}"].append(
                    {**pair, "source": "ragbench"}
                )
    for twin in twins:
        kind = "contradicted" if twin["twin"] == "contradicting" else "supported"
        for _, evidence, claim in pairs_of(twin, emb, {twin["edited_key"]}):
            pair = {"premise": evidence, "hypothesis": claim, "label": LABEL[kind], "source": "twins",
                    "kind": twin["edit_kind"]}  # fmt: skip
            if twin["fold"] == "held":
                held.append({**pair, "subset": "twin_" + twin["twin"], "row": twin.get("original_id", "")})
            else:
                fit[f"twins_{twin['twin']}"].append(pair)
        if twin["fold"] != "held" and 0 < len(twin["evidence_keys"]) <= 3:
            texts_of = dict(pair for doc in twin["documents_sentences"] for pair in doc)
            evidence = " ".join(texts_of[k] for k in twin["evidence_keys"] if k in texts_of)
            if evidence:
                claim = claim_text(twin.get("question") or "", twin["edited_sentence"])
                fit[f"twins_short_{twin['twin']}"].append({"premise": evidence, "hypothesis": claim,
                                                           "label": LABEL[kind], "source": "twins_short",
                                                           "kind": twin["edit_kind"]})  # fmt: skip
    fit_rows = [r for r in rows if r["_fold"] == "fit"]
    added_rows = additions(fit_rows, emb, rng)
    copies = []
    for row in rng.sample(fit_rows, min(len(fit_rows), 1200)):
        sentences = [t for d in row["documents_sentences"] for _, t in d if 6 <= len(t.split()) <= 40]
        if sentences:
            copied = rng.choice(sentences)
            copied = f"- {copied}" if rng.random() < 0.5 else copied
            copies.append(dict(row, response_sentences=[["a", copied]], response=copied))
    emb.add([t for a in added_rows for _, t in a["row"]["response_sentences"]] + [c["response"] for c in copies])
    for added in added_rows:
        for _, evidence, claim in pairs_of(added["row"], emb, {added["key"]}):
            fit["additions"].append({"premise": evidence, "hypothesis": claim, "label": "neutral",
                                     "source": "additions"})  # fmt: skip
    for copy in copies:
        for _, evidence, claim in pairs_of(copy, emb):
            fit["copies"].append({"premise": evidence, "hypothesis": claim, "label": "entailment",
                                  "source": "copies"})  # fmt: skip
    for w in wice:
        label = "supported" if w.get("adherence_score") else "not_found"
        for _, evidence, claim in pairs_of(w, emb):
            fit["wice"].append({"premise": evidence, "hypothesis": claim, "label": LABEL[label], "source": "wice"})
    from train_nli import load_splits

    nli_train, _ = load_splits(args.shared / "data" / "nli")
    fit["nli"] = [{"premise": r["premise"], "hypothesis": r["hypothesis"], "label": r["label"], "source": "nli"}
                  for r in rng.sample(nli_train, min(len(nli_train), 20000))]  # fmt: skip

    held_claims = {p["hypothesis"] for p in held}
    chosen: list[dict] = []
    counts = {}
    for name, pairs in sorted(fit.items()):
        pairs = [p for p in pairs if p["hypothesis"] not in held_claims and p["premise"].strip()]
        rng.shuffle(pairs)
        cap = round(DEFAULT_CAP.get(name, 1000) * args.scale)
        chosen += pairs[:cap]
        counts[name] = f"{min(cap, len(pairs))} of {len(pairs)}"
    rng.shuffle(chosen)
    write(args.out / "fit.jsonl.gz", chosen)
    write(args.out / "held.jsonl.gz", held)
    digest = hashlib.sha256((args.out / "fit.jsonl.gz").read_bytes()).hexdigest()[:12]
    info = {"fit": counts, "fit_pairs": len(chosen), "labels": Counter(p["label"] for p in chosen),
            "held_pairs": len(held), "held_by_subset": Counter(p["subset"] for p in held), "fit_sha256": digest,
            "seconds": round(time.time() - started)}  # fmt: skip
    (args.out / "pairs.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(info, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
