"""Compare two runs row by row: per score, the mean difference B − A over the rows paired between the runs,
its paired-bootstrap 95 % interval, the paired permutation p-value and win/tie/loss counts.

Rows are paired by id and occurrence: the k-th row with an id in run A goes with the k-th row with that id in
run B (RAGBench ids repeat), whatever the order of the rows in each file; a row without an id is paired by
its input ``line``, and a row without either (a Python run's) by its place in the run. Rows left over in either
run are listed as unpaired, never dropped silently. For each score, only the pairs in which the score is ``ok``
in both runs enter its figures (``n`` says how many). A win is a row where B scored better: higher, or lower for
the scores where lower is better (:data:`~rageval_lc.reports.attention.HIGHER_IS_WORSE`: ``rmse_aggregation``).

Example (B higher on 3 rows, equal on 1: diff 0.175; the exact sign-flip test gives p = 4/16):
    >>> a = [{"id": str(i), "status": {"f": "ok"}, "scores": {"f": v}} for i, v in enumerate([0.5, 0.6, 0.7, 0.2])]
    >>> b = [{"id": str(i), "status": {"f": "ok"}, "scores": {"f": v}} for i, v in enumerate([0.7, 0.6, 0.9, 0.5])]
    >>> result = compare(a, b + [{"id": "9", "status": {}, "scores": {}}])
    >>> f = result.scores["f"]
    >>> round(f.diff, 3), f.p_value, (f.wins, f.ties, f.losses), result.unpaired
    (0.175, 0.25, (3, 1, 0), {'only_in_a': [], 'only_in_b': ['9']})
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rageval_lc.reports.attention import HIGHER_IS_WORSE, row_label, score_value
from rageval_lc.reports.summary import DEFAULT_RESAMPLES

if TYPE_CHECKING:  # numpy loads with the statistics, on the first comparison
    from rageval_lc.reports.stats import PairedComparison

__all__ = [
    "MISSING",
    "Comparison",
    "Pair",
    "compare",
    "fields_of",
    "format_comparison",
    "format_p",
    "pair_rows",
    "read_results",
    "run_rows",
    "subset_of",
]

#: The subset of a pair whose rows name no value for the ``by`` field.
MISSING = "(missing)"

Row = Mapping[str, Any]


@dataclass(frozen=True)
class Pair:
    """One row of run A and its partner in run B."""

    key: str  # the id (or ``line N`` for a row without one, else ``#N``: its place in run A)
    occurrence: int  # 0 for the first row with that key, 1 for the second, ...
    a: Row
    b: Row

    def scores(self, name: str) -> tuple[float, float] | None:
        """The two values of score ``name``, or None unless it is ``ok`` (and a finite number) in both rows."""
        values = [score_value(row, name) for row in (self.a, self.b)]
        return None if None in values else (values[0], values[1])  # type: ignore[return-value]


@dataclass(frozen=True)
class Comparison:
    """What :func:`compare` returns: per-score figures (``scores``; ``by`` per subset when asked), the unpaired
    ids, and the pairs themselves (for the rows that changed most)."""

    scores: dict[str, PairedComparison]
    unpaired: dict[str, list[str]]
    pairs: list[Pair] = field(repr=False)
    by_field: str | None = None
    by: dict[str, dict[str, PairedComparison]] = field(default_factory=dict)
    one_sided: dict[str, str] = field(default_factory=dict)  # a score only one run holds -> "A" or "B"

    def to_dict(self) -> dict[str, Any]:
        """As ``rageval compare --json`` prints it: ``scores``, ``unpaired`` and, with ``by``, ``by``."""
        out: dict[str, Any] = {
            "scores": {name: figures.to_dict() for name, figures in self.scores.items()},
            "unpaired": self.unpaired,
        }
        if self.by_field is not None:
            out["by"] = {
                subset: {name: figures.to_dict() for name, figures in scores.items()}
                for subset, scores in self.by.items()
            }
        return out

    def changed_most(self, name: str, top: int = 10) -> list[Pair]:
        """The pairs where score ``name`` moved most (largest ``|B − A|``, ties in pairing order), at most ``top``."""
        moved = [(abs(v[1] - v[0]), i) for i, pair in enumerate(self.pairs) if (v := pair.scores(name)) is not None]
        moved.sort(key=lambda item: (-item[0], item[1]))
        return [self.pairs[i] for _, i in moved[:top]]


def compare(
    run_a: str | Path | Iterable[Row],
    run_b: str | Path | Iterable[Row],
    *,
    by: str | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
) -> Comparison:
    """Compare run B with run A on every score either holds (see the module for the pairing).

    Args:
        run_a, run_b: a results file (JSONL written by ``rageval evaluate --out``), or its rows (dicts with
            ``id``, ``status`` and ``scores``; an :class:`~rageval_lc.engine.engine.EvaluationRun` works too).
        by: also compare per subset of this field (see :func:`subset_of`; pairs naming none go under
            :data:`MISSING`; a field no paired row names is an error).
        n_resamples: paired-bootstrap resamples and Monte-Carlo permutations (the permutation test is exact
            while ``2**n`` ≤ this).
        confidence: the intervals' coverage.
        seed: the seed of both.

    Raises:
        ValueError: If a run is not result rows (naming the file and line), no row is paired, or no paired row
            has the field ``by`` (the message lists the fields there are).
        OSError: If a file cannot be read.
    """
    rows_a, rows_b = run_rows(run_a, "run_a"), run_rows(run_b, "run_b")
    pairs, unpaired = pair_rows(rows_a, rows_b)
    if not pairs:
        msg = (
            f"no row of run B has the id of a row of run A ({len(rows_a)} rows in A, {len(rows_b)} in B): "
            "compare two runs over the same input rows."
        )
        raise ValueError(msg)
    options = {"n_resamples": n_resamples, "confidence": confidence, "seed": seed}
    names = list(dict.fromkeys(name for row in (*rows_a, *rows_b) for name in row["status"]))
    in_a = {name for row in rows_a for name in row["status"]}
    in_b = {name for row in rows_b for name in row["status"]}
    one_sided = {name: "A" if name in in_a else "B" for name in names if (name in in_a) != (name in in_b)}
    scores = {name: _figures(pairs, name, options) for name in names}
    subsets: dict[str, dict[str, PairedComparison]] = {}
    if by is not None:
        groups: dict[str, list[Pair]] = {}
        for pair in pairs:
            groups.setdefault(subset_of(pair, by), []).append(pair)
        if list(groups) == [MISSING]:  # a misspelt or absent field: every row under (missing) says nothing
            there = ", ".join(fields_of(row for pair in pairs for row in (pair.a, pair.b))) or "none"
            raise ValueError(f"no row has the field {by!r} to compare by; the fields there are: {there}.")
        for subset in sorted(groups, key=lambda s: (s == MISSING, s)):
            subsets[subset] = {name: _figures(groups[subset], name, options) for name in names}
    return Comparison(scores=scores, unpaired=unpaired, pairs=pairs, by_field=by, by=subsets, one_sided=one_sided)


def pair_rows(rows_a: Sequence[Row], rows_b: Sequence[Row]) -> tuple[list[Pair], dict[str, list[str]]]:
    """Pair rows by (id, occurrence), in run A's order; return the pairs and the unpaired keys of each run.

    Occurrences are counted in input-line order (rows without a ``line`` after, in file order): a run written
    in completion order (``--concurrency``) or resumed (its retried rows at the end) pairs as one in order.

    Example (id "x" twice in A, once in B: its second row in A is unpaired):
        >>> pairs, unpaired = pair_rows([{"id": "x"}, {"id": "x"}, {"id": "y"}], [{"id": "y"}, {"id": "x"}])
        >>> [(p.key, p.occurrence) for p in pairs], unpaired
        ([('x', 0), ('y', 0)], {'only_in_a': ['x'], 'only_in_b': []})
    """
    keys_a, keys_b = _keys(rows_a), _keys(rows_b)
    in_b: dict[tuple[str, int], Row] = {}
    seen: dict[str, int] = {}
    for row in _in_line_order(rows_b):
        key = keys_b[id(row)]
        in_b[(key, seen.get(key, 0))] = row
        seen[key] = seen.get(key, 0) + 1
    pairs, only_a = [], []
    seen = {}
    occurrence_of: dict[int, int] = {}
    for row in _in_line_order(rows_a):
        key = keys_a[id(row)]
        occurrence_of[id(row)] = seen.get(key, 0)
        seen[key] = seen.get(key, 0) + 1
    for row in rows_a:
        key = keys_a[id(row)]
        occurrence = occurrence_of[id(row)]
        partner = in_b.pop((key, occurrence), None)
        if partner is None:
            only_a.append(key)
        else:
            pairs.append(Pair(key, occurrence, row, partner))
    return pairs, {"only_in_a": only_a, "only_in_b": [key for key, _ in in_b]}


def _in_line_order(rows: Sequence[Row]) -> list[Row]:
    """The rows by input line (stable: rows without an integer ``line`` keep their file order, after)."""
    return sorted(rows, key=lambda row: (0, row["line"]) if isinstance(row.get("line"), int) else (1, 0))


def subset_of(pair: Pair, name: str) -> str:
    """The subset of a pair for ``by=name``: the field on run A's row, else in its ``details``, its ``metadata``
    or the input row's other fields (``metadata.row``), else the same on run B's row; for ``dataset``, else the
    dataset a RAGBench id names (``covidqa_test:12:gpt-4`` → ``covidqa``); else :data:`MISSING`.

    Example:
        >>> row = {"id": "covidqa_validation:1058:gpt-3.5", "details": {"judge": "labels"},
        ...        "metadata": {"row": {"kind": "howto"}}}
        >>> [subset_of(Pair("k", 0, row, row), name) for name in ("dataset", "judge", "kind", "topic")]
        ['covidqa', 'labels', 'howto', '(missing)']
    """
    for row in (pair.a, pair.b):
        for source in _sources(row):
            value = source.get(name)
            if isinstance(value, (str, int, float, bool)) and str(value) != "":
                return str(value)
    if name == "dataset":
        dataset = _ragbench_dataset(pair.a.get("id"))
        if dataset is not None:
            return dataset
    return MISSING


#: Fields of a result row that differ on every row: no subsets to compare by.
_PER_ROW = frozenset({"id", "line", "input_sha256", "question", "response"})


def fields_of(rows: Iterable[Row]) -> list[str]:
    """The fields ``by`` could name in these rows (see :func:`subset_of`), sorted: those with a plain value, but
    the ones every row has its own of (``id``, ``line``, ``question`` ...).

    Example:
        >>> fields_of([{"id": "a", "line": 1, "details": {"judge": "labels"}, "metadata": {"row": {"kind": "x"}}}])
        ['judge', 'kind']
    """
    names: set[str] = set()
    for row in rows:
        for source in _sources(row):
            names.update(k for k, v in source.items() if isinstance(v, (str, int, float, bool)) and str(v) != "")
        if _ragbench_dataset(row.get("id")) is not None:
            names.add("dataset")
    return sorted(names - _PER_ROW)


def _sources(row: Row) -> list[Mapping[str, Any]]:
    """Where a row's fields are read, in order: the row, its ``details``, its ``metadata``, ``metadata.row``."""
    details, metadata = row.get("details"), row.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    kept = metadata.get("row")
    return [row, details if isinstance(details, Mapping) else {}, metadata, kept if isinstance(kept, Mapping) else {}]


def _ragbench_dataset(row_id: object) -> str | None:
    """The dataset a RAGBench id names (``dataset_split:id:generator``), else None."""
    if not isinstance(row_id, str) or row_id.count(":") < 2:
        return None
    dataset = row_id.split(":", 1)[0]
    for split in ("_validation", "_test", "_train"):
        dataset = dataset.removesuffix(split)
    return dataset


def format_comparison(result: Comparison, *, names: tuple[str, str] | None = None) -> str:
    """Render a comparison as text: how the rows paired, the per-score table, and per subset when asked.

    Example:
        >>> a = [{"id": "1", "status": {"f": "ok"}, "scores": {"f": 0.5}}]
        >>> print(format_comparison(compare(a, [{"id": "1", "status": {"f": "ok"}, "scores": {"f": 0.75}}])))
        1 row paired by id; 0 only in A, 0 only in B.
        score  n  mean A  mean B    B-A  95% CI          p      wins  ties  losses
        -----  -  ------  ------  -----  --------------  -----  ----  ----  ------
        f      1   0.500   0.750  0.250  [0.250, 0.250]  1.000     1     0       0
        B-A: mean difference over the rows ok in both runs; 95% CI: paired bootstrap; p: paired permutation test.
        wins / ties / losses: rows where B scored better / the same / worse than A.
    """
    from rageval_lc.reports.summary import format_table

    only_a, only_b = result.unpaired["only_in_a"], result.unpaired["only_in_b"]
    paired = f"{len(result.pairs)} row{'s' if len(result.pairs) != 1 else ''}"
    lines = [f"A: {names[0]}, B: {names[1]}."] if names else []
    lines.append(f"{paired} paired by id; {len(only_a)} only in A, {len(only_b)} only in B.")
    for label, keys in (("only in A", only_a), ("only in B", only_b)):
        if keys:
            more = f" and {len(keys) - 10} more" if len(keys) > 10 else ""
            lines.append(f"  {label}: {', '.join(keys[:10])}{more}")
    headers = ["score", "n", "mean A", "mean B", "B-A", "95% CI", "p", "wins", "ties", "losses"]
    lines.append(format_table(headers, [[name, *_cells(f)] for name, f in result.scores.items()]))
    if result.by_field is not None:
        lines.append(f"\nBy {result.by_field}:")
        table = [
            [subset, name, *_cells(f)] for subset, scores in result.by.items() for name, f in scores.items() if f.n
        ]
        lines.append(format_table([result.by_field, *headers], table))
    for name, run in result.one_sided.items():
        lines.append(f"{name}: only in run {run}'s rows, nothing to compare.")
    lines.append(
        "B-A: mean difference over the rows ok in both runs; 95% CI: paired bootstrap; p: paired permutation test."
    )
    lines.append("wins / ties / losses: rows where B scored better / the same / worse than A.")
    lines.extend(
        f"{name}: lower is better (there a negative B-A is a step forward, and a win a row where B is lower)."
        for name in result.scores
        if name in HIGHER_IS_WORSE
    )
    return "\n".join(lines)


def format_p(p_value: float | None) -> str:
    """A p-value with 3 decimals, ``<0.001`` below that; ``-`` when there is none.

    Example:
        >>> format_p(0.04321), format_p(0.0004), format_p(None)
        ('0.043', '<0.001', '-')
    """
    if p_value is None:
        return "-"
    return "<0.001" if p_value < 0.001 else f"{p_value:.3f}"


def _cells(f: PairedComparison) -> list[Any]:
    from rageval_lc.reports.summary import format_interval

    return [
        f.n,
        f.mean_a,
        f.mean_b,
        f.diff,
        format_interval(f.ci_low, f.ci_high),
        format_p(f.p_value),
        f.wins,
        f.ties,
        f.losses,
    ]


def read_results(path: str | Path) -> list[dict[str, Any]]:
    """The result rows of a JSONL file (blank lines skipped).

    Raises:
        ValueError: If a line is not JSON, or not a result row (an object with a ``status`` object), naming the file
            and the line; if the file holds no row, or rows of two producers (``rageval evaluate`` and the callback
            handler).
        OSError: If the file cannot be read.
    """
    from rageval_lc.files import json_rows
    from rageval_lc.reports.producers import check_one_producer

    rows = []
    for line_no, row in json_rows(path):
        if isinstance(row, ValueError):
            msg = f"{path}:{line_no}: not a result row ({row})"
            raise ValueError(msg)
        _check_row(row, f"{path}:{line_no}")
        rows.append(row)
    if not rows:
        msg = f"{path} holds no result rows"
        raise ValueError(msg)
    check_one_producer(rows, str(path))  # rows of rageval evaluate and of the callback handler are two runs
    return rows


def run_rows(run: str | Path | Iterable[Row], name: str) -> list[Row]:
    """The result rows of a run (a results file, an EvaluationRun, or rows), each checked; ``name`` says which
    argument in the errors."""
    if isinstance(run, (str, Path)):
        return read_results(run)
    if callable(getattr(run, "rows", None)):  # an EvaluationRun
        run = run.rows()  # type: ignore[union-attr]
    if isinstance(run, Mapping) or not isinstance(run, Iterable):
        msg = f"{name} must be a results file or a list of result rows. Got {type(run).__name__}."
        raise ValueError(msg)
    rows = list(run)
    for index, row in enumerate(rows):
        _check_row(row, f"{name}[{index}]")
    if not rows:
        msg = f"{name} holds no result rows"
        raise ValueError(msg)
    return rows


def _check_row(row: Any, where: str) -> None:
    if not isinstance(row, Mapping) or not isinstance(row.get("status"), Mapping):
        shown = f"keys {sorted(row)[:6]}" if isinstance(row, Mapping) else type(row).__name__
        msg = f"{where}: not a result row (one with a 'status' object, as rageval evaluate writes). Got {shown}."
        raise ValueError(msg)


def _keys(rows: Sequence[Row]) -> dict[int, str]:
    """Each row's key (by ``id()`` of the row): its id, else ``line N``, else ``#N``, its place in the run."""
    return {id(row): row_label(row, index) for index, row in enumerate(rows, start=1)}


def _figures(pairs: Sequence[Pair], name: str, options: Mapping[str, Any]) -> PairedComparison:
    from rageval_lc.reports.stats import paired_comparison  # numpy: loaded on the first comparison

    both = [values for pair in pairs if (values := pair.scores(name)) is not None]
    higher_is_better = name not in HIGHER_IS_WORSE  # a win is a row where B is better
    return paired_comparison([a for a, _ in both], [b for _, b in both], higher_is_better=higher_is_better, **options)
