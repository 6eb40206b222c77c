"""Every output of the code that finds, compares and rewrites facts in text, over real text, written down so that
two trees can be compared: the judge's slots and word slots, RGB's counterfactual builder and name kinds, the twin
and minimal-edit makers (issue 47, item 1: "the judge's, RGB's and the twins' figures before and after").

Run, once per tree (with ``PYTHONHASHSEED=0``) (each with its own ``PYTHONPATH``), then compare:

    PYTHONPATH=<old tree> python benchmarks/facts_outputs.py write --tree <old tree> --out old.tsv
    PYTHONPATH=. python benchmarks/facts_outputs.py write --tree . --out new.tsv
    python benchmarks/facts_outputs.py compare old.tsv new.tsv

Texts: the response and document sentences of the first ``--rows`` rows of each RAGBench file of
``shared/data/ragbench`` and every passage and answer of RGB's ``en_fact.json``. Outputs, one line each (a key and
the output's ``repr``): slots' ``quantities`` and ``dates`` of each text, ``same_quantity`` and ``Date.agrees_with``
of each pair within a text, ``stem`` of its words; the judge's ``names`` (alone and against the text before),
``negated_words``, ``comparisons``, ``same_name``; RGB's ``answer_kind``, ``date_parts``, ``number_parts`` and
``find_mentions`` of each answer and of each quantity and date the judge finds (against its own text), the
counterfactual records ``rageval rgb build`` makes for ``en_fact`` (seeds 0-4), ``name_kind`` of each name in
context, :class:`NameKinds` over the corpus, ``place_level``; training's ``name_type`` of each name against its
row's passages, the twins file ``make_twins.py`` writes (seed 13) line by line, and the minimal-edit pairs
(``minimal_edit_pairs``, seeds 0-2, plus each edit on each sentence with a fixed seed).

Functions are looked up where either tree keeps them (a module moved into ``rageval_lc/facts/`` is read there).
"""

from __future__ import annotations

import argparse
import collections
import importlib
import json
import random
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def find(*places: str) -> Any:
    """The first of ``module:name`` that imports."""
    for place in places:
        module, _, name = place.partition(":")
        try:
            return getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue
    raise ImportError(f"none of {places}")


def texts_of(shared: Path, rows: int) -> tuple[list[list[str]], list[dict[str, Any]]]:
    """The RAGBench rows' sentences (a list per row: response sentences, then document sentences) and RGB's
    records."""
    groups = []
    for path in sorted((shared / "data" / "ragbench").glob("*_validation.jsonl")):
        with path.open(encoding="utf-8") as fh:
            for i, line in enumerate(fh):
                if i >= rows:
                    break
                row = json.loads(line)
                sentences = [s for _, s in row["response_sentences"]]
                sentences += [s for doc in row["documents_sentences"] for _, s in doc]
                groups.append(sentences)
    records = [json.loads(line) for line in (shared / "data" / "rgb" / "en_fact.json").read_text().splitlines()]
    return groups, records


def outputs(shared: Path, rows: int, tree: Path) -> Iterator[tuple[str, str]]:
    """(key, output) for every output; see the module docstring."""
    sys.path[:0] = [str(tree / "training"), str(tree / "benchmarks")]
    quantities = find("rageval_lc.facts.numbers:quantities", "rageval_lc.judges.offline.slots:quantities")
    same_quantity = find("rageval_lc.facts.numbers:same_quantity", "rageval_lc.judges.offline.slots:same_quantity")
    dates = find("rageval_lc.facts.dates:dates", "rageval_lc.judges.offline.slots:dates")
    stem = find("rageval_lc.facts.words:stem", "rageval_lc.judges.offline.slots:stem")
    names = find("rageval_lc.facts.names:names", "rageval_lc.judges.offline.word_slots:names")
    same_name = find("rageval_lc.facts.names:same_name", "rageval_lc.judges.offline.word_slots:same_name")
    negated_words = find(
        "rageval_lc.facts.polarity:negated_words", "rageval_lc.judges.offline.word_slots:negated_words"
    )
    comparisons = find("rageval_lc.facts.polarity:comparisons", "rageval_lc.judges.offline.word_slots:comparisons")
    from rageval_lc.rgb.build import counterfactual_record, date_spellings, name_pool
    from rageval_lc.rgb.counterfactual import answer_kind, date_parts, find_mentions, number_parts
    from rageval_lc.rgb.names import NameKinds

    name_kind = find("rageval_lc.facts.names:name_kind", "rageval_lc.rgb.names:name_kind")
    place_level = find("rageval_lc.facts.names:place_level", "rageval_lc.rgb.names:place_level")
    name_type = find("rageval_lc.facts.names:name_type", "make_twins:name_type")

    groups, records = texts_of(shared, rows)
    rgb_texts = list(
        dict.fromkeys(p for r in records for k in ("positive", "negative", "positive_wrong") for p in r[k])
    )
    all_texts = list(dict.fromkeys([*(t for g in groups for t in g), *rgb_texts]))
    # --- the judge's slots
    for n, text in enumerate(all_texts):
        qs = quantities(text)
        ds = dates(text)
        yield f"quantities {n}", repr(qs)
        yield f"dates {n}", repr([(d, d.describe()) for d in ds])
        yield f"same_quantity {n}", repr([same_quantity(a, b) for a in qs for b in qs])
        yield f"agrees_with {n}", repr([a.agrees_with(b) for a in ds for b in ds])
        yield f"stem {n}", repr([stem(w) for w in text.split()])
        yield f"names {n}", repr(names(text))
        yield f"negated_words {n}", repr(sorted(negated_words(text)))
        yield (
            f"comparisons {n}",
            repr([(c.measure, c.direction, sorted(c.left), sorted(c.right), c.text) for c in comparisons(text)]),
        )
        # RGB's number and date finder on what the judge finds
        for q in qs[:6]:
            yield (
                f"rgb number {n} {q.span}",
                repr((answer_kind(q.text), number_parts(q.text), find_mentions(text, q.text))),
            )
        for d in ds[:4]:
            piece = text[d.span[0] : d.span[1]]
            yield f"rgb date {n} {d.span}", repr((answer_kind(piece), date_parts(piece), find_mentions(text, piece)))
    for g, group in enumerate(groups):
        for i in range(1, min(len(group), 40)):
            found = names(group[i], context=group[i - 1])
            yield f"names in context {g} {i}", repr(found)
            yield f"same_name {g} {i}", repr([same_name(x, names(group[i - 1]), group[i - 1]) for x in found])
    # --- RGB
    answers = [r["answer"] for r in records if isinstance(r["answer"], str) and answer_kind(r["answer"]) == "name"]
    corpus = list(dict.fromkeys(p for r in records for p in [*r["positive"], *r["negative"]]))
    kinds = NameKinds(corpus)
    for record in records:
        given = [record["answer"]] if isinstance(record["answer"], str) else list(record["answer"][0])
        forms = list(dict.fromkeys(f for g in given for f in date_spellings(g)))
        rid = record["id"]
        yield f"rgb answer {rid}", repr([(f, answer_kind(f), date_parts(f), number_parts(f)) for f in forms])
        yield f"rgb fake {rid}", repr((answer_kind(record["fakeanswer"]), kinds(record["fakeanswer"].strip())))
        for k, passage in enumerate([*record["positive"], *record["negative"], *record["positive_wrong"]]):
            yield f"rgb mentions {rid} {k}", repr([find_mentions(passage, f) for f in forms])
            for name in names(passage):
                yield f"rgb name_kind {rid} {k} {name}", repr((name_kind(name, [passage]), kinds(name)))
                if kinds(name) == "place":
                    yield f"rgb place_level {name}", place_level(name)
        pool = name_pool(corpus, record["positive"], forms[0], answers, kinds=kinds)
        yield f"rgb pool {rid}", repr(pool)
        for seed in range(5):
            made = counterfactual_record(
                rid, record["query"], forms, record["positive"], [], seed=seed, pool=pool, kinds=kinds
            )
            yield f"rgb record {rid} {seed}", json.dumps(made, sort_keys=True, ensure_ascii=False)
    # --- training
    import make_twins
    import minimal_edits

    for g, group in enumerate(groups):
        seen: set[str] = set()
        for text in group[:30]:
            for name in names(text):
                if name not in seen:
                    seen.add(name)
                    yield f"name_type {g} {name}", repr(name_type(name, group))
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "twins.jsonl"
        make_twins.main(["--shared", str(shared), "--out", str(out), "--seed", "13"])
        for line in out.read_text(encoding="utf-8").splitlines():
            twin = json.loads(line)  # one twin per kind per row at most: keyed by both
            yield f"twin {twin['original_id']} {twin['edit_kind']}", line
    sentences = [t for g in groups for t in g]
    for seed in range(3):
        for i, pair in enumerate(minimal_edits.minimal_edit_pairs(sentences, 3000, seed=seed)):
            yield f"minimal pair {seed} {i}", json.dumps(pair, sort_keys=True)
    makers: list[Callable[..., Any]] = [*minimal_edits.CONTRADICTIONS, *minimal_edits.ENTAILMENTS]
    for n, text in enumerate(sentences):
        for make in makers:
            yield f"minimal {make.__name__} {n}", repr(make(text, random.Random(n)))


def write(args: argparse.Namespace) -> None:
    counts: collections.Counter = collections.Counter()
    with args.out.open("w", encoding="utf-8") as fh:
        for key, value in outputs(args.shared, args.rows, args.tree.resolve()):
            counts[key.split()[0]] += 1
            fh.write(f"{key}\t{value.replace(chr(10), ' ').replace(chr(9), ' ')}\n")
    print(json.dumps(dict(sorted(counts.items())), indent=0))


def compare(args: argparse.Namespace) -> None:
    old, new = ({} for _ in range(2))
    for path, into in ((args.old, old), (args.new, new)):
        for line in path.read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("\t")
            into[key] = value
    by_kind: collections.Counter = collections.Counter()
    differ: collections.Counter = collections.Counter()
    shown: collections.Counter = collections.Counter()
    for key in sorted(set(old) | set(new)):
        kind = " ".join(key.split()[:2]) if key.startswith(("rgb", "minimal")) else key.split()[0]
        by_kind[kind] += 1
        if old.get(key) != new.get(key):
            differ[kind] += 1
            if shown[kind] < args.show:
                shown[kind] += 1
                print(f"{key}\n  old: {old.get(key, '(none)')[:400]}\n  new: {new.get(key, '(none)')[:400]}")
    print(f"{sum(by_kind.values())} outputs, {sum(differ.values())} differences")
    for kind in sorted(by_kind):
        print(f"  {kind}: {by_kind[kind]} outputs, {differ[kind]} differences")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write")
    w.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    w.add_argument("--rows", type=int, default=150)
    w.add_argument("--tree", type=Path, default=ROOT)
    w.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    c.add_argument("--show", type=int, default=3)
    args = parser.parse_args()
    write(args) if args.command == "write" else compare(args)


if __name__ == "__main__":
    main()
