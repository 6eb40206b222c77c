"""Counterfactual passages built from RGB's own positives, beside the benchmark's ``positive_wrong`` (issue 36,
item 3, first part).

Run:  python benchmarks/rgb_counterfactuals.py [--shared ../shared] [--seed 13] [--swaps]

For each ``en_fact.json`` record, its positive passages are made counterfactual as ``rageval rgb build`` makes them
(:func:`rageval_lc.rgb.build.counterfactual_record`: one wrong value for all of them; names from the records'
answers and from the names of the file's passages that stand where the answer stands) and compared with the
benchmark's hand-made ``positive_wrong`` passage at the same index:

* built: passages a counterfactual was made for (else why not);
* no trace of the true answer: no mention of it in any of its forms (a date in any spelling of the day, a number
  with or without separators, a name, a surname or a city alone);
* same kind and form: the wrong value reads as the answer's kind (date, number, name), and each replaced mention
  keeps its own spelling (``find_mentions`` of the wrong value finds as many mentions as were replaced);
* name swaps of the same kind: the name answers whose wrong value is a name of the same kind (person, place,
  organisation, other name: :class:`rageval_lc.rgb.names.NameKinds` over the file's passages), ours and
  the benchmark's; ``--swaps`` lists each swap with both kinds.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

from rageval_lc.reports.summary import format_table
from rageval_lc.rgb.build import counterfactual_record, date_spellings, name_pool
from rageval_lc.rgb.counterfactual import answer_kind, find_mentions
from rageval_lc.rgb.names import NameKinds

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
    parser.add_argument("--swaps", action="store_true", help="list every name swap with the kinds of both names")
    args = parser.parse_args()
    records = [json.loads(line) for line in (args.shared / "data" / "rgb" / "en_fact.json").read_text().splitlines()]
    answers = [r["answer"] for r in records if isinstance(r["answer"], str) and answer_kind(r["answer"]) == "name"]
    corpus = list(dict.fromkeys(p for r in records for p in [*r["positive"], *r["negative"]]))
    kinds = NameKinds(corpus)
    swaps = []
    ours: Counter = Counter()
    theirs: Counter = Counter()
    problems: Counter = Counter()
    for record in records:
        given = [record["answer"]] if isinstance(record["answer"], str) else list(record["answer"][0])
        forms = list(dict.fromkeys(f for g in given for f in date_spellings(g)))
        kind = answer_kind(forms[0])
        n = len(record["positive"])
        ours[kind, "passages"] += n
        theirs[kind, "passages"] += n
        for wrong_passage in record["positive_wrong"]:
            theirs[kind, "no trace"] += not traces(wrong_passage, forms)
            theirs[kind, "same kind"] += answer_kind(record["fakeanswer"]) == kind
        if kind == "name":
            theirs["name", "answers"] += 1
            theirs["name", "same-kind swaps"] += kinds(record["fakeanswer"].strip()) == kinds(forms[0])
        pool = name_pool(corpus, record["positive"], forms[0], answers, kinds=kinds)
        made = counterfactual_record(
            record["id"], record["query"], forms, record["positive"], [], seed=args.seed, pool=pool, kinds=kinds
        )
        if isinstance(made, str):
            problems[made] += n
            if kind == "name":
                swaps.append(f"{record['id']:>3} {forms[0]} ({kinds(forms[0])}) -> not built: {made}")
            continue
        if kind == "name":
            wrong = made["fakeanswer"]
            ours["name", "swaps"] += 1
            ours["name", "same-kind swaps"] += kinds(wrong) == kinds(forms[0])
            swaps.append(f"{record['id']:>3} {forms[0]} ({kinds(forms[0])}) -> {wrong} ({kinds(wrong)})")
        ours[kind, "built"] += n
        for passage in made["positive_wrong"]:
            ours[kind, "no trace"] += not traces(passage, forms)
            ours[kind, "same kind"] += answer_kind(made["fakeanswer"]) == kind and bool(
                find_mentions(passage, made["fakeanswer"])
            )
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
        print(f"not built: {count} passages ({problem})")
    print(
        f"name swaps of the same kind: ours {ours['name', 'same-kind swaps']} of {ours['name', 'swaps']} built; "
        f"positive_wrong {theirs['name', 'same-kind swaps']} of {theirs['name', 'answers']}"
    )
    if args.swaps:
        print("\n".join(swaps))


if __name__ == "__main__":
    main()
