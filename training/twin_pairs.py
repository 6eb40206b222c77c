"""NLI pairs from the twins of real answers (``training/make_twins.py``), for ``train_nli.py --twins``.

Run:  python training/twin_pairs.py [--twins .cache/twins/twins.jsonl] [--out .cache/twins/nli]

Per twin, one pair:

- **premise**: the twin's evidence sentences (``evidence_keys``), in document order, each with up to one
  neighbouring sentence of its own document on each side, joined by spaces (overlapping windows merged, so no
  sentence is repeated). The neighbours bring trailing clauses and distractor sentences into the premise, as the
  offline judge's windows do. The premise is capped at ``MAX_WORDS`` (120) words: the evidence sentences are
  always kept whole; neighbours are added, nearest evidence first in document order (the one before, then the one
  after), while they fit.
- **hypothesis**: the edited sentence (``edited_sentence``).
- **label**: ``contradiction`` for a contradicting twin, ``entailment`` for a faithful one (the label strings of
  ``shared/data/nli``).

and, once per original sentence (by ``original_id`` and ``edited_key``), the original sentence against the same
premise as ``entailment`` (kind ``original``), so the model sees each premise both with the fact as stated and
with it changed.

Fields: ``premise``, ``hypothesis``, ``label``, ``source`` (``twins_fit`` for the ``fit`` and ``aux`` folds,
``twins_held`` for ``held``: a twin keeps its original's fold, so no original is on both sides) and ``kind``
(the twin's ``edit_kind``, or ``original``). Written as ``twins_fit.jsonl.gz`` and ``twins_held.jsonl.gz``
(gzip without a time stamp: the same twins write the same bytes). A twin whose evidence keys name no document
sentence is skipped.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_WORDS = 120
LABEL = {"contradicting": "contradiction", "faithful": "entailment"}
SOURCE = {"fit": "twins_fit", "aux": "twins_fit", "held": "twins_held"}
FILES = {"twins_fit": "twins_fit.jsonl.gz", "twins_held": "twins_held.jsonl.gz"}


def _words(text: str) -> int:
    return len(text.split())


def premise(
    documents_sentences: list[list[list[str]]], evidence_keys: Iterable[str], max_words: int = MAX_WORDS
) -> str:
    """The evidence sentences in document order with up to one neighbour of their document on each side, within
    ``max_words`` words (evidence sentences whole; neighbours, nearest evidence first, while they fit); "" when no
    key names a document sentence."""
    docs = [[(key, text) for key, text in doc if text.strip()] for doc in documents_sentences]
    place = {key: (i, j) for i, doc in enumerate(docs) for j, (key, _) in enumerate(doc)}
    evidence = sorted({place[k] for k in evidence_keys if k in place})
    chosen = set(evidence)
    words = sum(_words(docs[i][j][1]) for i, j in evidence)
    for i, j in evidence:
        for n in (j - 1, j + 1):
            if 0 <= n < len(docs[i]) and (i, n) not in chosen:
                size = _words(docs[i][n][1])
                if words + size <= max_words:
                    chosen.add((i, n))
                    words += size
    return " ".join(docs[i][j][1].strip() for i, j in sorted(chosen))


def twin_pairs(twins: Iterable[dict], max_words: int = MAX_WORDS) -> list[dict]:
    """The NLI pairs of ``twins`` (rows of ``make_twins.py``), in the twins' order, each original sentence's
    entailment pair right after its first twin."""
    out: list[dict] = []
    seen: set[tuple[str, str]] = set()
    for twin in twins:
        text = premise(twin["documents_sentences"], twin["evidence_keys"], max_words)
        if not text:
            continue
        source = SOURCE[twin["fold"]]
        out.append(
            {
                "premise": text,
                "hypothesis": twin["edited_sentence"],
                "label": LABEL[twin["twin"]],
                "source": source,
                "kind": twin["edit_kind"],
            }
        )
        original = (twin["original_id"], twin["edited_key"])
        if original not in seen:
            seen.add(original)
            row = {"premise": text, "hypothesis": twin["original_sentence"], "label": "entailment"}
            out.append(row | {"source": source, "kind": "original"})
    return out


def write(pairs: list[dict], out: Path) -> dict[str, Counter]:
    """``twins_fit.jsonl.gz`` and ``twins_held.jsonl.gz`` in ``out`` (both always written); labels per file."""
    out.mkdir(parents=True, exist_ok=True)
    counts: dict[str, Counter] = {}
    for source, name in FILES.items():
        rows = [p for p in pairs if p["source"] == source]
        counts[source] = Counter(p["label"] for p in rows)
        text = "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in rows)
        buffer = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as fh:
            fh.write(text.encode("utf-8"))
        (out / name).write_bytes(buffer.getvalue())
    return counts


def read_twins(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--twins", type=Path, default=ROOT / ".cache" / "twins" / "twins.jsonl")
    parser.add_argument("--out", type=Path, default=ROOT / ".cache" / "twins" / "nli")
    parser.add_argument("--max-words", type=int, default=MAX_WORDS, help="the premise's cap (evidence kept whole)")
    args = parser.parse_args(argv)
    if not args.twins.exists():
        print(f"no twins at {args.twins}: run training/make_twins.py first", file=sys.stderr)
        return 1
    counts = write(twin_pairs(read_twins(args.twins), args.max_words), args.out)
    for source, labels in counts.items():
        print(f"{source}: {sum(labels.values()):,} pairs {dict(sorted(labels.items()))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
