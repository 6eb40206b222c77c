"""Counterfactual passages built from RGB's own positives, beside the benchmark's ``positive_wrong`` (issue 36,
item 3, first part).

Run:  python benchmarks/rgb_counterfactuals.py [--shared ../shared] [--seed 13]

For each ``en_fact.json`` record, every positive passage is made counterfactual by
:func:`rageval_lc.rgb.counterfactual.make_counterfactual` (the pool of names: the other records' answers) and
compared with the benchmark's hand-made ``positive_wrong`` passage at the same index:

* built: passages a counterfactual was made for (else why not);
* no trace of the true answer: no mention of it in any of its forms (a date in any spelling of the day, a number
  with or without separators, a name, a surname or a city alone);
* same kind and form: the wrong value reads as the answer's kind (date, number, name), and each replaced mention
  keeps its own spelling (``find_mentions`` of the wrong value finds as many mentions as were replaced).
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

from rageval_lc.reports.summary import format_table
from rageval_lc.rgb.counterfactual import answer_kind, find_mentions, make_counterfactual

ROOT = Path(__file__).resolve().parents[1]


def traces(passage: str, forms: list[str]) -> bool:
    """Whether any form of the answer (or a name's surname / city alone) is in the passage."""
    if any(find_mentions(passage, form) for form in forms):
        return True
    first = forms[0]
    if answer_kind(first) != "name":
        return False
    short = first.split(",")[0].strip() if "," in first else (first.split()[-1] if len(first.split()) > 1 else None)
    return bool(short and re.search(rf"(?<!\w){re.escape(short)}(?!\w)", passage, re.I))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    records = [json.loads(line) for line in (args.shared / "data" / "rgb" / "en_fact.json").read_text().splitlines()]
    pool = [r["answer"] for r in records if isinstance(r["answer"], str)]
    ours: Counter = Counter()
    theirs: Counter = Counter()
    problems: Counter = Counter()
    for record in records:
        forms = [record["answer"]] if isinstance(record["answer"], str) else list(record["answer"][0])
        kind = answer_kind(forms[0])
        for passage, wrong_passage in zip(record["positive"], record["positive_wrong"], strict=False):
            ours[kind, "passages"] += 1
            theirs[kind, "passages"] += 1
            theirs[kind, "no trace"] += not traces(wrong_passage, forms)
            theirs[kind, "same kind"] += answer_kind(record["fakeanswer"]) == kind
            cf = make_counterfactual(passage, forms, seed=args.seed, pool=pool)
            if cf.problem:
                problems[cf.problem] += 1
                continue
            ours[kind, "built"] += 1
            ours[kind, "no trace"] += not traces(cf.passage, forms)
            ours[kind, "same kind"] += answer_kind(cf.wrong) == kind and len(find_mentions(cf.passage, cf.wrong)) >= 1
    rows = []
    for kind in ("date", "number", "name"):
        n, b = ours[kind, "passages"], ours[kind, "built"]
        rows.append(
            [
                kind,
                n,
                b,
                f"{ours[kind, 'no trace'] / max(b, 1):.3f}",
                f"{theirs[kind, 'no trace'] / n:.3f}",
                f"{ours[kind, 'same kind'] / max(b, 1):.3f}",
                f"{theirs[kind, 'same kind'] / n:.3f}",
            ]
        )
    print(
        format_table(
            ["kind", "passages", "built", "no trace: ours", "positive_wrong", "same kind: ours", "positive_wrong"], rows
        )
    )
    for problem, count in problems.items():
        print(f"not built: {count} ({problem})")


if __name__ == "__main__":
    main()
