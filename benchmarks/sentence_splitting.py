"""Compare sentence splitters: accuracy on a hand-made gold set, agreement with RAGBench, and speed.

Run:  python benchmarks/sentence_splitting.py [--shared ../shared] [--docs 3000]

* gold: cases of ``benchmarks/data/sentence_gold.jsonl`` split exactly right (abbreviations, decimals,
  URLs, quotes, lists, line breaks — written by hand, not by any splitter).
* RAGBench: boundary F1 and exact-document rate against the sentences RAGBench's annotator saw
  (a noisy reference: it splits after "e.g." and attaches list numbers to the previous sentence).
* speed: wall time over the same documents, as a ratio to rageval_lc's splitter in this run.

Candidates that are not installed (``pip install -e '.[dev]'`` brings them) are skipped.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections.abc import Callable
from pathlib import Path

from rageval_lc.reports.summary import format_table
from rageval_lc.text import split_sentences

HERE = Path(__file__).resolve().parent
Splitter = Callable[[str], list[str]]


def candidates() -> dict[str, Splitter]:
    found: dict[str, Splitter] = {"rageval_lc (sentencex + lines)": split_sentences}
    try:
        from sentencex import segment

        found["sentencex alone"] = lambda t: list(segment("en", t))
    except ImportError:
        pass
    try:
        import pysbd

        seg = pysbd.Segmenter(language="en", clean=False)
        found["pysbd"] = seg.segment
    except ImportError:
        pass
    try:
        import blingfire

        found["blingfire"] = lambda t: blingfire.text_to_sentences(t).split("\n")
    except ImportError:
        pass
    try:
        from syntok import segmenter

        found["syntok"] = lambda t: [
            "".join(tok.spacing + tok.value for tok in sentence) for para in segmenter.process(t) for sentence in para
        ]
    except ImportError:
        pass
    found["regex [.!?] + capital"] = lambda t: re.split(r"(?<=[.!?])\s+(?=[A-Z\"'(])", t)
    return found


def boundaries(sentences: list[str]) -> set[int]:
    """Sentence ends as offsets in the text with all whitespace removed."""
    out, n = set(), 0
    for s in sentences[:-1]:
        n += len(re.sub(r"\s", "", s))
        out.add(n)
    return out


def load_ragbench_docs(shared: Path, limit: int) -> list[tuple[str, list[str]]]:
    docs = []
    for path in sorted((shared / "data" / "ragbench").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            for text, pairs in zip(row["documents"], row["documents_sentences"], strict=True):
                docs.append((text, [s for _, s in pairs]))
            docs.append((row["response"], [s for _, s in row["response_sentences"]]))
    random.Random(0).shuffle(docs)
    return docs[:limit]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=HERE.parent.parent / "shared")
    parser.add_argument("--docs", type=int, default=3000, help="RAGBench documents to sample")
    args = parser.parse_args()

    gold = [json.loads(line) for line in (HERE / "data" / "sentence_gold.jsonl").read_text().splitlines()]
    docs = load_ragbench_docs(args.shared, args.docs) if (args.shared / "data").is_dir() else []
    rows = []
    baseline = None
    throughput = ""
    for name, split in candidates().items():
        clean = lambda text, split=split: [s.strip() for s in split(text) if s.strip()]  # noqa: E731
        correct = sum(clean(c["separator"].join(c["sentences"])) == c["sentences"] for c in gold)
        tp = fp = fn = exact = 0
        start = time.perf_counter()
        predictions = [clean(text) for text, _ in docs]
        seconds = time.perf_counter() - start
        for (_, reference), predicted in zip(docs, predictions, strict=True):
            g, p = boundaries(reference), boundaries(predicted)
            tp, fp, fn, exact = tp + len(g & p), fp + len(p - g), fn + len(g - p), exact + (g == p)
        f1 = 2 * tp / (2 * tp + fp + fn) if docs else None
        if baseline is None:
            baseline = seconds
            count = sum(len(p) for p in predictions)
            throughput = f"rageval_lc splitter: {count / seconds:,.0f} sentences/s ({len(docs) / seconds:,.0f} docs/s)"
        rows.append(
            [
                name,
                f"{correct}/{len(gold)}",
                f1,
                exact / len(docs) if docs else None,
                seconds / baseline if docs else None,
            ]
        )
    print(f"Sentence splitters: {len(gold)} gold cases, {len(docs)} RAGBench documents\n")
    print(format_table(["splitter", "gold exact", "RAGBench F1", "RAGBench exact docs", "time / ours"], rows))
    if docs:
        print(f"\n{throughput}")


if __name__ == "__main__":
    main()
