"""The offline judge's answer-vs-reference verdicts on RGB's en_fact records, three answers each.

Each record's true answer is the reference; the answers are (1) its counterfactual short answer (``fakeanswer``,
wrong), (2) the sentence of a true passage that holds the true answer (right, worded as a RAG answer would word
it) and (3) the sentence of a counterfactual passage that holds the fake answer (wrong). For each, the label of
``classify_answer`` and whether factual accuracy was capped by the number-and-date rule (a figure the reference
gives otherwise). Released data, no model of ours picked the rows.

    python benchmarks/reference_figures.py [--json PATH]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
from pathlib import Path

from rageval_lc.judges.offline.judge import OfflineJudge
from rageval_lc.text import split_sentences

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RAGEVAL_SHARED_DIR", ROOT.parent / "shared"))
#: how the two rules name their cap in the reason (the word-match rule before, the detector's rule now)
CAPPED = ("gives otherwise", "contradict the reference")


def _first(value):
    while isinstance(value, list):
        value = value[0]
    return value


def _sentence_with(passages: list[str], answer: str) -> str | None:
    return next((s for p in passages for s in split_sentences(p) if answer.lower() in s.lower()), None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, help="write every verdict to this JSON file")
    args = parser.parse_args()
    records = [json.loads(line) for line in (SHARED / "data" / "rgb" / "en_fact.json").read_text().splitlines()]
    judge = OfflineJudge(device="cpu")
    counts: collections.Counter = collections.Counter()
    rows = []
    for record in records:
        question, true, fake = record["query"], _first(record["answer"]), _first(record["fakeanswer"])
        answers = {
            "fake answer": fake,
            "true passage sentence": _sentence_with(record["positive"], true),
            "fake passage sentence": _sentence_with(record["positive_wrong"], fake),
        }
        for kind, answer in answers.items():
            if not answer:
                continue
            accuracy = judge.factual_accuracy(question, answer, true).value
            label = judge.classify_answer(question, answer, true).value.label
            capped = any(words in accuracy.correctness_reason for words in CAPPED)
            counts[kind, "answers"] += 1
            counts[kind, label] += 1
            counts[kind, "capped"] += capped
            rows.append({"id": record["id"], "kind": kind, "answer": answer, "reference": true, "label": label,
                         "capped": capped, "reason": accuracy.correctness_reason})  # fmt: skip
    for kind in ("fake answer", "true passage sentence", "fake passage sentence"):
        n = counts[kind, "answers"]
        labels = ", ".join(f"{label} {counts[kind, label]}" for label in ("CORRECT", "WRONG"))
        print(f"{kind:22} {n:4} answers: {labels}; capped by a figure {counts[kind, 'capped']}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
