"""Which rows to label: a uniform random sample of a run's scored rows, written with the fields to fill in.

The prediction-powered mean (:mod:`~rageval_lc.reports.ppi`) corrects the judge by its error on the labelled rows,
which stands for its error on all rows only when every row was as likely to be labelled: a uniform draw. Rows
chosen because the judge was unsure (an active draw), or more from one sub-dataset than its share (a stratified
draw), over-represent some rows, and the correction is weighted wrongly unless each labelled row carries the
inverse of its chance of being drawn and the estimator uses it. The stratified draw is offered with its weights
done: each row names its stratum, and the estimate is made stratum by stratum and weighed by each stratum's share
of the rows (:func:`~rageval_lc.reports.ppi.stratified_ppi_mean`). An active draw is not offered.

Each row written carries its ``id`` and input ``line`` (to be matched back), the question and the answer as scored
(and, from the input file, the documents), and ``labels``: each score to label, ``null`` until filled in (a number,
or true / false). The judge's own scores are left out, so that they do not sway the person labelling.

Example (8 scored rows, 3 drawn; the same seed draws the same rows):
    >>> rows = [{"id": f"q{i}", "line": i + 1, "question": "Q?", "response": f"A{i}.",
    ...          "status": {"adherence": "ok"}, "scores": {"adherence": 1.0}} for i in range(8)]
    >>> drawn = draw_rows([rows], 3, seed=0)
    >>> [row["id"] for row in drawn] == [row["id"] for row in draw_rows([rows], 3, seed=0)], drawn[0]["labels"]
    (True, {'adherence': None})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rageval_lc.reports.attention import score_value

__all__ = ["draw_rows", "input_fields", "label_scores"]

Row = Mapping[str, Any]


def label_scores(runs: Sequence[Sequence[Row]], scores: Sequence[str] | None = None) -> list[str]:
    """The scores to label: ``scores`` (each checked to be a score of every run), else every score the runs share
    but the companions (``adherence_probability``, ``adherence_ratio``: figures of another score's verdict).

    Raises:
        ValueError: If a score named is not one of a run's, naming the scores there are.
    """
    from rageval_lc.metrics.trace import COMPANION_SCORES

    have = [list(dict.fromkeys(name for row in run for name in (row.get("status") or {}))) for run in runs]
    shared = [name for name in have[0] if all(name in other for other in have[1:])]
    if scores is None:
        return [name for name in shared if name not in COMPANION_SCORES]
    unknown = [name for name in scores if name not in shared]
    if unknown:
        there = ", ".join(shared[:20]) or "none"
        which = "both runs" if len(runs) > 1 else "the run"
        raise ValueError(f"--score {unknown[0]!r} is not a score of {which} (there are: {there}).")
    return list(dict.fromkeys(scores))


def draw_rows(
    runs: Sequence[Sequence[Row]],
    n: int,
    *,
    seed: int = 0,
    scores: Sequence[str] | None = None,
    contexts: Mapping[int, Mapping[str, Any]] | None = None,
    stratify_by: str | None = None,
) -> list[dict[str, Any]]:
    """Draw ``n`` rows uniformly (without replacement, ``numpy.random.default_rng(seed)``) among the rows where the
    judge scored some score to label ``ok``, and return them, in the run's order, as rows to label.

    With two runs (``rageval compare``'s A and B, their rows paired by id), ``n`` pairs are drawn among the pairs ok
    in both; a pair whose answers differ gives two rows, ``"run": "A"`` and ``"run": "B"``, each with its answer;
    one whose answers are the same gives one row for both.

    Args:
        runs: one run's result rows, or two runs'.
        n: how many rows (pairs) to draw, at least 2.
        seed: the draw's seed.
        scores: the scores to label (default: :func:`label_scores`).
        contexts: per input line, fields read from the input file (``contexts``, ``reference``) to add.
        stratify_by: one run only: draw stratum by stratum of this field (as ``compare --by`` reads it, e.g.
            ``dataset``), ``n`` split evenly between the strata (a stratum with fewer rows gives them all, the rest
            going to the others), uniformly within each; each row written names its ``stratum`` and the
            ``stratified_by`` field, so that ``rageval report --labels`` weighs each stratum by its share of the rows.

    Raises:
        ValueError: If ``n`` is below 2 or above the rows there are to draw from, or a score is unknown; with
            ``stratify_by``, if no row has the field, a stratum has fewer than 2 rows, or ``n`` is below 2 a stratum.
    """
    import numpy as np

    from rageval_lc.reports.compare import pair_rows

    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        msg = f"--n must be an integer >= 2 (an interval needs 2 labels; a few dozen make it useful). Got {n!r}."
        raise ValueError(msg)
    names = label_scores(runs, scores)
    if not names:
        raise ValueError("the run has no score to label (only companion scores).")

    def scored(row: Row) -> bool:
        return any(score_value(row, name) is not None for name in names)

    if len(runs) == 1:
        units: list[tuple[Row, ...]] = [(row,) for row in runs[0] if scored(row)]
    else:
        pairs, _ = pair_rows(runs[0], runs[1])
        units = [(pair.a, pair.b) for pair in pairs if scored(pair.a) and scored(pair.b)]
    if n > len(units):
        what = "pairs scored ok in both runs" if len(runs) > 1 else "rows with an ok score to label"
        raise ValueError(f"--n {n} is more than the {len(units)} {what}.")
    rng = np.random.default_rng(seed)
    stratum_of: dict[int, str] = {}
    if stratify_by is None:
        chosen = sorted(rng.choice(len(units), size=n, replace=False).tolist())
    else:
        if len(runs) > 1:
            raise ValueError("--stratify-by draws for one run (rageval report); compare runs on a uniform draw.")
        strata = _strata(units, stratify_by)
        sizes = {name: len(indices) for name, indices in strata.items()}
        chosen = []
        for name, take in _even_split(sizes, n).items():
            picked = [strata[name][j] for j in rng.choice(sizes[name], size=take, replace=False).tolist()]
            chosen += picked
            stratum_of.update(dict.fromkeys(picked, name))
        chosen.sort()
    out: list[dict[str, Any]] = []
    for index in chosen:
        unit = units[index]
        same = len(unit) == 2 and _text(unit[0], "response") == _text(unit[1], "response")
        for side, row in zip(("A", "B"), unit[:1] if same else unit, strict=False):
            item: dict[str, Any] = {"id": row.get("id"), "line": row.get("line")}
            if len(unit) == 2 and not same:
                item["run"] = side
            for name in ("question", "response"):
                if _text(row, name) is not None:
                    item[name] = _text(row, name)
            extra = (contexts or {}).get(row.get("line"))  # type: ignore[arg-type]
            if extra:
                item.update(extra)
            if index in stratum_of:
                item["stratum"], item["stratified_by"] = stratum_of[index], stratify_by
            item["labels"] = dict.fromkeys(names)
            out.append(item)
    return out


def _strata(units: Sequence[tuple[Row, ...]], field: str) -> dict[str, list[int]]:
    """The units' indices by their value of ``field``, strata in sorted order.

    Raises:
        ValueError: If no row has the field (listing those there are), or a stratum has fewer than 2 rows.
    """
    from rageval_lc.reports.compare import MISSING, Pair, fields_of, subset_of

    strata: dict[str, list[int]] = {}
    for index, unit in enumerate(units):
        strata.setdefault(subset_of(Pair("", 0, unit[0], unit[0]), field), []).append(index)
    if list(strata) == [MISSING]:
        there = ", ".join(fields_of(unit[0] for unit in units)) or "none"
        raise ValueError(f"--stratify-by {field!r}: no row has the field; the fields there are: {there}.")
    small = [name for name, indices in strata.items() if len(indices) < 2]
    if small:
        raise ValueError(f"--stratify-by {field!r}: the stratum {small[0]!r} has fewer than 2 rows to label.")
    return dict(sorted(strata.items()))


def _even_split(sizes: Mapping[str, int], n: int) -> dict[str, int]:
    """``n`` split as evenly as the strata's sizes allow: each the same share (the first ones one more), a stratum
    too small gives all its rows and the rest goes to the others.

    Example:
        >>> _even_split({"a": 3, "b": 100, "c": 100}, 20)
        {'a': 3, 'b': 9, 'c': 8}

    Raises:
        ValueError: If ``n`` is below 2 per stratum.
    """
    if n < 2 * len(sizes):
        raise ValueError(f"--n {n} is below 2 rows for each of the {len(sizes)} strata.")
    take = dict.fromkeys(sizes, 0)
    left = n
    while left:
        open_ = [name for name in sizes if take[name] < sizes[name]]
        share, extra = divmod(left, len(open_))
        for i, name in enumerate(open_):
            more = min(share + (i < extra), sizes[name] - take[name])
            take[name] += more
            left -= more
    return take


def _text(row: Row, name: str) -> str | None:
    value = row.get(name)
    return value if isinstance(value, str) else None


def input_fields(path: str | Path, rows: Sequence[Row]) -> tuple[dict[int, dict[str, Any]], int]:
    """Per input line the ``rows`` name, the documents (``contexts``) and the ``reference`` of the input file's row
    there, checked by ``input_sha256``; and how many rows found none.

    Raises:
        OSError: If ``path`` cannot be read.
    """
    from rageval_lc.datasets.rows import scored_samples

    found: dict[int, dict[str, Any]] = {}
    for line_no, sample in scored_samples(path, rows):
        found[line_no] = {"contexts": sample.contexts}
        if sample.reference is not None:
            found[line_no]["reference"] = sample.reference
    return found, sum(1 for row in rows if row.get("line") not in found)
