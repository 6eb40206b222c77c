"""A run's scores with a few labelled rows: per labelled score, the prediction-powered (PPI++) mean and its 95 %
interval beside the judge's plain mean and the labels alone (:mod:`~rageval_lc.reports.ppi`).

A labels file is JSONL, one labelled row a line, in either form:

* ``{"id": "q7", "line": 7, "response": "...", "labels": {"adherence": 1, "faithfulness": null}}`` — what
  ``rageval label-sample`` writes, filled in: a value is a number or ``true`` / ``false`` (1 / 0), ``null`` is not
  labelled; ``line`` (the input line) tells rows with one id apart, ``response`` checks that the label is for the
  answer that was scored; ``run`` (``"A"`` or ``"B"``) says which run of ``rageval compare`` it labels;
  ``stratum`` and ``stratified_by`` mark a row of a stratified draw (the estimate is then made stratum by stratum);
* a result row (``rageval evaluate --judge labels`` on the labelled rows): its ``ok`` scores are the labels.

Labels are matched to scored rows by id (and ``line`` where an id names several); a label for another answer than
the one scored, a labelled row the run does not hold, and the scored rows without a label are reported, never
dropped silently. For each score, the rows labelled for it whose judge score is ``ok`` are the labelled rows; the
other rows where it is ``ok`` are the unlabelled ones. The labelled rows must be a uniform random sample of the
scored rows (``rageval label-sample`` draws one).

Example (4 rows labelled, the judge wrong on one; 4 rows unlabelled):
    >>> rows = [{"id": f"q{i}", "status": {"adherence": "ok"}, "scores": {"adherence": float(i % 2)}}
    ...         for i in range(8)]
    >>> labels = [{"id": f"q{i}", "labels": {"adherence": v}} for i, v in enumerate([0, 1, 1, 1])]
    >>> summary = labelled_summary(rows, labels)
    >>> est = summary.scores["adherence"]
    >>> est.n, est.n_unlabelled, est.classical_mean, est.judge_mean, summary.unlabelled_rows
    (4, 4, 0.75, 0.5, 4)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rageval_lc.reports.attention import score_value

if TYPE_CHECKING:  # numpy loads with the estimator
    from rageval_lc.reports.ppi import PPIEstimate

__all__ = [
    "FEW_LABELS",
    "LabelRow",
    "LabelledSummary",
    "Matching",
    "caution",
    "format_labelled_summary",
    "labelled_difference",
    "labelled_summary",
    "match_labels",
    "read_labels",
]

Row = Mapping[str, Any]
#: The runs a label row's ``run`` may name (``rageval compare``'s A and B).
RUNS = ("A", "B")


@dataclass(frozen=True)
class LabelRow:
    """One labelled row: where it is from (``where``: ``file:line``), what it names, and its values by score
    (None: left blank)."""

    where: str
    id: str | None
    line: int | None
    response: str | None
    values: dict[str, float | None]
    run: str | None = None
    stratum: str | None = None  # with ``stratified_by``: the field the draw was stratified by, and its value here
    stratified_by: str | None = None


@dataclass(frozen=True)
class Matching:
    """Labels matched to a run's rows: ``labels`` (the scored row's index → its label row), and what did not match:
    ``not_scored`` (label rows naming no scored row), ``other_answer`` (label rows for another answer than the
    one scored), ``ambiguous`` (label rows whose id names several scored rows and whose line tells none apart)."""

    labels: dict[int, LabelRow]
    not_scored: list[str] = field(default_factory=list)
    other_answer: list[str] = field(default_factory=list)
    ambiguous: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class LabelledSummary:
    """What :func:`labelled_summary` returns: per score the estimate (``scores``), how the labels matched
    (``matching``), how many scored rows carry no label (``unlabelled_rows``), per score the labelled rows left out
    because the judge's score is not ``ok`` (``judge_not_ok``), the labelled scores without an estimate and why
    (``without``), and the labels file (``source``)."""

    scores: dict[str, PPIEstimate]
    matching: Matching
    unlabelled_rows: int
    judge_not_ok: dict[str, int] = field(default_factory=dict)
    without: dict[str, str] = field(default_factory=dict)
    source: str | None = None
    stratified_by: str | None = None  # the labels were drawn stratum by stratum of this field

    def to_dict(self) -> dict[str, Any]:
        """The figures as JSON-ready values."""
        return {
            "scores": {name: est.to_dict() for name, est in self.scores.items()},
            "labelled_rows": len(self.matching.labels),
            "unlabelled_rows": self.unlabelled_rows,
            "not_scored": self.matching.not_scored,
            "other_answer": self.matching.other_answer,
            "ambiguous": self.matching.ambiguous,
            "judge_not_ok": self.judge_not_ok,
            "without": self.without,
        }


def read_labels(source: str | Path | Iterable[Mapping[str, Any]]) -> list[LabelRow]:
    """The label rows of a labels file (JSONL) or of a list of dicts (see the module for the two forms).

    Raises:
        ValueError: If a line is not a JSON object, has neither ``id`` nor ``line``, has no ``labels`` object
            (and is no result row), or a label is not a number, true / false or null; naming the file, line and
            field. If no row holds a label.
        OSError: If the file cannot be read.
    """
    if isinstance(source, (str, Path)):
        from rageval_lc.files import json_rows

        items: Iterable[tuple[str, Any]] = ((f"{source}:{n}", row) for n, row in json_rows(source))
    else:
        items = ((f"labels[{i}]", row) for i, row in enumerate(source))
    out = []
    for where, row in items:
        if isinstance(row, ValueError):
            raise ValueError(f"{where}: not JSON ({row})")
        out.append(_label_row(row, where))
    if not any(value is not None for row in out for value in row.values.values()):
        raise ValueError(f"{source if isinstance(source, (str, Path)) else 'labels'} holds no label (every value null)")
    return out


def _label_row(row: Any, where: str) -> LabelRow:
    if not isinstance(row, Mapping):
        raise ValueError(f"{where}: a labelled row must be a JSON object. Got {type(row).__name__}.")
    row_id, line = row.get("id"), row.get("line")
    if isinstance(line, bool) or not isinstance(line, (int, type(None))):
        raise ValueError(f"{where}: 'line' must be an integer (the input line). Got {line!r}.")
    if row_id is not None and not isinstance(row_id, (str, int)):
        raise ValueError(f"{where}: 'id' must be a string. Got {row_id!r}.")
    if row_id is None and line is None:
        raise ValueError(f"{where}: a labelled row needs an 'id' (or a 'line') to be matched to a scored row.")
    response, run = row.get("response"), None
    if isinstance(row.get("status"), Mapping) and "labels" not in row:  # a result row: its ok scores
        values: dict[str, float | None] = {name: score_value(row, name) for name in row["status"]}
    elif isinstance(row.get("labels"), Mapping):
        values = {str(name): _label_value(value, f"{where}: labels.{name}") for name, value in row["labels"].items()}
        run = row.get("run")
        if run is not None and run not in RUNS:
            raise ValueError(f"{where}: 'run' must be 'A' or 'B' (the run of rageval compare it labels). Got {run!r}.")
        for name in ("stratum", "stratified_by"):
            if row.get(name) is not None and not isinstance(row[name], str):
                raise ValueError(f"{where}: {name!r} must be a string. Got {row[name]!r}.")
        if (row.get("stratum") is None) != (row.get("stratified_by") is None):
            raise ValueError(f"{where}: a row of a stratified draw names both 'stratum' and 'stratified_by'.")
    else:
        got = f"keys {sorted(row)[:8]}"
        msg = (
            f'{where}: a labelled row needs a \'labels\' object, e.g. {{"id": "q1", "labels": {{"adherence": '
            f"1}}}} (or is a result row of rageval evaluate --judge labels). Got {got}."
        )
        raise ValueError(msg)
    return LabelRow(
        where=where,
        id=None if row_id is None else str(row_id),
        line=line,
        response=response if isinstance(response, str) else None,
        values=values,
        run=run,
        stratum=row.get("stratum") if "labels" in row else None,
        stratified_by=row.get("stratified_by") if "labels" in row else None,
    )


def _label_value(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    hint = (
        " (sentence keys: score them first, rageval evaluate FILE --judge labels, and give its output)"
        if isinstance(value, (list, Mapping))
        else ""
    )
    raise ValueError(f"{where} must be a number, true / false, or null (not labelled). Got {value!r:.60}{hint}.")


def match_labels(rows: Sequence[Row], labels: Sequence[LabelRow], *, run: str | None = None) -> Matching:
    """Match label rows to scored rows (see the module); with ``run`` (``"A"`` / ``"B"``), label rows naming the
    other run are skipped.

    Raises:
        ValueError: If two label rows label one scored row with different values (naming both).

    Example (two scored rows share id "x": the label's line picks one; "z" is not scored):
        >>> rows = [{"id": "x", "line": 1}, {"id": "x", "line": 2}, {"id": "y", "line": 3, "response": "Hi."}]
        >>> labels = [LabelRow("f:1", "x", 2, None, {"a": 1.0}), LabelRow("f:2", "z", None, None, {"a": 0.0}),
        ...           LabelRow("f:3", "y", None, "Bye.", {"a": 0.0})]
        >>> m = match_labels(rows, labels)
        >>> sorted(m.labels), m.not_scored, m.other_answer
        ([1], ['z'], ['y'])
    """
    by_id: dict[str, list[int]] = {}
    by_line: dict[int, list[int]] = {}
    for index, row in enumerate(rows):
        if row.get("id") is not None and str(row["id"]) != "":
            by_id.setdefault(str(row["id"]), []).append(index)
        if isinstance(row.get("line"), int) and not isinstance(row.get("line"), bool):
            by_line.setdefault(row["line"], []).append(index)
    matched: dict[int, LabelRow] = {}
    result = Matching(matched)
    for label in labels:
        if run is not None and label.run not in (None, run):
            continue
        name = label.id if label.id is not None else f"line {label.line}"
        candidates = by_id.get(label.id, []) if label.id is not None else by_line.get(label.line, [])  # type: ignore[arg-type]
        if len(candidates) > 1 and label.line is not None:
            candidates = [i for i in candidates if rows[i].get("line") == label.line] or candidates
        if not candidates:
            result.not_scored.append(name)
            continue
        if len(candidates) > 1:
            result.ambiguous.append(name)
            continue
        index = candidates[0]
        scored = rows[index].get("response")
        if label.response is not None and isinstance(scored, str) and _flat(scored) != _flat(label.response):
            result.other_answer.append(name)
            continue
        earlier = matched.get(index)
        if earlier is not None:  # labelled twice (one row for each run of a comparison, the same answer): agree?
            given = {k: v for k, v in label.values.items() if v is not None}
            clash = [k for k, v in given.items() if earlier.values.get(k) not in (None, v)]
            if clash:
                msg = f"{earlier.where} and {label.where} label the same row ({name}) differently ({clash[0]})."
                raise ValueError(msg)
            label = LabelRow(earlier.where, earlier.id, earlier.line, earlier.response, {**earlier.values, **given})
        matched[index] = label
    return result


def _flat(text: str) -> str:
    return " ".join(text.split())


def labelled_summary(
    run: str | Path | Iterable[Row],
    labels: str | Path | Iterable[Mapping[str, Any]],
    *,
    confidence: float = 0.95,
    run_name: str | None = None,
) -> LabelledSummary:
    """Per score the labels give, the prediction-powered mean of the run with its interval (see the module).

    Args:
        run: a results file (``rageval evaluate --out``), its rows, or an ``EvaluationRun``.
        labels: a labels file or its rows (dicts, as the file's lines).
        confidence: the intervals' coverage.
        run_name: ``"A"`` or ``"B"``: use only label rows for that run (or for none in particular).

    Raises:
        ValueError: If the labels are malformed (naming the file, line and field), name no score of the run, or
            two label rows disagree on one row.
    """
    from rageval_lc.reports.compare import run_rows
    from rageval_lc.reports.ppi import ppi_mean, stratified_ppi_mean

    rows = run_rows(run, "run")
    label_rows = read_labels(labels)
    matching = match_labels(rows, label_rows, run=run_name)
    names = _run_scores(rows)
    labelled_names = list(dict.fromkeys(n for label in matching.labels.values() for n, v in label.values.items()))
    common = [n for n in names if n in labelled_names]
    if matching.labels and not common:
        given = ", ".join(labelled_names[:10]) or "none"
        msg = f"the labels name no score of the run: they give {given}; the run has {', '.join(names[:20])}."
        raise ValueError(msg)
    scores: dict[str, PPIEstimate] = {}
    judge_not_ok: dict[str, int] = {}
    without: dict[str, str] = {}
    field_name = _stratified_by(label_rows)
    strata = _strata(rows, matching.labels, field_name) if field_name is not None else None
    for name in common:
        y, f, fu, not_ok = _split(rows, matching.labels, name)
        if not_ok:
            judge_not_ok[name] = not_ok
        if len(y) < 2:
            without[name] = f"{len(y)} labelled row{'s' if len(y) != 1 else ''} with an ok judge score (needs 2)"
            continue
        if strata is None:
            scores[name] = ppi_mean(y, f, fu, confidence=confidence)
            continue
        groups = {}
        for stratum, indices in strata.items():
            part = {k: matching.labels[i] for k, i in enumerate(indices) if i in matching.labels}
            y_h, f_h, fu_h, _ = _split([rows[i] for i in indices], part, name)
            if y_h or fu_h:  # a stratum where the judge scored no row is none of this score's
                groups[stratum] = (y_h, f_h, fu_h)
        try:
            scores[name] = stratified_ppi_mean(groups, confidence=confidence)
        except ValueError as exc:
            without[name] = f"stratified by {field_name}: {exc}"
    for name in labelled_names:
        if name not in names:
            without[name] = "not a score of the run"
    return LabelledSummary(
        scores=scores,
        matching=matching,
        unlabelled_rows=len(rows) - len(matching.labels),
        judge_not_ok=judge_not_ok,
        without=without,
        source=str(labels) if isinstance(labels, (str, Path)) else None,
        stratified_by=field_name,
    )


def _stratified_by(labels: Sequence[LabelRow]) -> str | None:
    """The field a stratified draw was stratified by (every label row names the same), else None (a uniform draw).

    Raises:
        ValueError: If some label rows name one and others none or another (two draws mixed).
    """
    fields = {label.stratified_by for label in labels}
    if fields == {None}:
        return None
    if len(fields) > 1:
        shown = ", ".join(sorted(repr(f) for f in fields))
        msg = f"the labels mix draws: 'stratified_by' is {shown} (one draw, uniform or stratified, at a time)."
        raise ValueError(msg)
    return fields.pop()


def _strata(rows: Sequence[Row], labels: Mapping[int, LabelRow], name: str) -> dict[str, list[int]]:
    """The rows' indices by their value of the field ``name`` (as ``compare --by`` reads it).

    Raises:
        ValueError: If a labelled row's ``stratum`` is not its scored row's value of the field.
    """
    from rageval_lc.reports.compare import Pair, subset_of

    strata: dict[str, list[int]] = {}
    for index, row in enumerate(rows):
        stratum = subset_of(Pair("", 0, row, row), name)
        label = labels.get(index)
        if label is not None and label.stratum != stratum:
            msg = f"{label.where}: stratum {label.stratum!r}, but the scored row's {name} is {stratum!r}."
            raise ValueError(msg)
        strata.setdefault(stratum, []).append(index)
    return strata


def labelled_difference(
    run_a: str | Path | Iterable[Row],
    run_b: str | Path | Iterable[Row],
    labels: str | Path | Iterable[Mapping[str, Any]],
    *,
    confidence: float = 0.95,
) -> LabelledSummary:
    """Per score, the prediction-powered mean difference B − A over the rows paired between two runs (as
    :func:`~rageval_lc.reports.compare.compare` pairs them), from the pairs labelled in both runs.

    A label row with ``"run": "A"`` (``"B"``) labels that run's answer; one without labels both (checked against
    each answer when it names one). On the pairs labelled in both runs the truth is label B − label A and the
    judge's figure score B − score A; the other pairs ok in both are the unlabelled ones. The estimate's fields
    read as for :func:`labelled_summary`, of differences: ``judge_mean`` is the judge's B − A, ``classical_mean``
    the labels' own B − A. ``matching`` holds run A's matching (with run B's unmatched labels added).

    Raises:
        ValueError: As :func:`labelled_summary`, and if no row of run B has the id of a row of run A.

    Example (B fixes two of four labelled rows; the judge saw one of them):
        >>> a = [{"id": f"q{i}", "status": {"s": "ok"}, "scores": {"s": 0.0}} for i in range(6)]
        >>> b = [{"id": f"q{i}", "status": {"s": "ok"}, "scores": {"s": float(i in (0, 4))}} for i in range(6)]
        >>> labels = [{"id": f"q{i}", "run": run, "labels": {"s": float(run == "B" and i < 2)}}
        ...           for i in range(4) for run in "AB"]
        >>> d = labelled_difference(a, b, labels).scores["s"]
        >>> d.n, d.n_unlabelled, d.classical_mean, round(d.judge_mean, 3)
        (4, 2, 0.5, 0.333)
    """
    from rageval_lc.reports.compare import pair_rows, run_rows
    from rageval_lc.reports.ppi import ppi_mean

    rows_a, rows_b = run_rows(run_a, "run_a"), run_rows(run_b, "run_b")
    pairs, _ = pair_rows(rows_a, rows_b)
    if not pairs:
        raise ValueError("no row of run B has the id of a row of run A: compare two runs over the same input rows.")
    label_rows = read_labels(labels)
    if _stratified_by(label_rows) is not None:
        msg = "the labels are of a stratified draw, which rageval report reads; compare runs on a uniform draw."
        raise ValueError(msg)
    match_a = match_labels(rows_a, label_rows, run="A")
    match_b = match_labels(rows_b, label_rows, run="B")
    at_a = {id(row): i for i, row in enumerate(rows_a)}
    at_b = {id(row): i for i, row in enumerate(rows_b)}
    names = [n for n in _run_scores(rows_a) if n in _run_scores(rows_b)]
    scores: dict[str, PPIEstimate] = {}
    without: dict[str, str] = {}
    labelled_pairs = 0
    for name in names:
        y, f, fu = [], [], []
        for pair in pairs:
            values = pair.scores(name)
            if values is None:
                continue
            la, lb = match_a.labels.get(at_a[id(pair.a)]), match_b.labels.get(at_b[id(pair.b)])
            truth = [None if lab is None else lab.values.get(name) for lab in (la, lb)]
            if None in truth:
                fu.append(values[1] - values[0])
            else:
                y.append(truth[1] - truth[0])  # type: ignore[operator]
                f.append(values[1] - values[0])
        labelled_pairs = max(labelled_pairs, len(y))
        if len(y) >= 2:  # differences run from -1 to 1: normal intervals, never a rate's
            scores[name] = ppi_mean(y, f, fu, confidence=confidence, normal=True)
        elif any(name in lab.values for lab in match_a.labels.values()):
            without[name] = f"{len(y)} pair{'s' if len(y) != 1 else ''} labelled in both runs and ok (needs 2)"
    if label_rows and not scores and not without:
        given = ", ".join(dict.fromkeys(n for lab in label_rows for n in lab.values)) or "none"
        raise ValueError(f"the labels give no score both runs hold, on rows of both: they give {given}.")
    matching = Matching(
        match_a.labels,
        not_scored=[k for k in match_a.not_scored if k in match_b.not_scored],
        other_answer=match_a.other_answer + match_b.other_answer,
        ambiguous=match_a.ambiguous + match_b.ambiguous,
    )
    return LabelledSummary(
        scores=scores,
        matching=matching,
        unlabelled_rows=len(pairs) - labelled_pairs,
        without=without,
        source=str(labels) if isinstance(labels, (str, Path)) else None,
    )


def _run_scores(rows: Sequence[Row]) -> list[str]:
    return list(dict.fromkeys(name for row in rows for name in (row.get("status") or {})))


def _split(
    rows: Sequence[Row], labels: Mapping[int, LabelRow], name: str
) -> tuple[list[float], list[float], list[float], int]:
    """For score ``name``: the labels and the judge's scores on the labelled rows, the judge's on the others, and
    how many labelled rows the judge did not score ``ok``."""
    y, f, fu, not_ok = [], [], [], 0
    for index, row in enumerate(rows):
        judged = score_value(row, name)
        label = labels.get(index)
        truth = None if label is None else label.values.get(name)
        if truth is not None and judged is None:
            not_ok += 1
        elif truth is not None:
            y.append(truth)
            f.append(judged)
        elif judged is not None:
            fu.append(judged)
    return y, f, fu, not_ok  # type: ignore[return-value]


#: Fewer labels than this: the normal intervals are rough, and the table says so.
FEW_LABELS = 30


def caution(est: PPIEstimate) -> str | None:
    """Why an estimate's interval is not to be trusted as it stands, or None: too few labels, or labels that do
    not vary (all 1, say), which give the labels alone a zero-width interval.

    Example:
        >>> from rageval_lc.reports.ppi import ppi_mean
        >>> caution(ppi_mean([1, 1, 1], [1, 0, 1], [1, 0]))
        'only 3 labels, all the same value: the intervals are too narrow to trust; label more rows'
    """
    same = est.classical_se <= 1e-12
    if est.n >= FEW_LABELS and not same:
        return None
    what = f"only {est.n} labels" if est.n < FEW_LABELS else f"{est.n} labels"
    what += ", all the same value" if same else ""
    return f"{what}: the intervals are too narrow to trust; label more rows"


def format_labelled_summary(summary: LabelledSummary, *, source: str | None = None, difference: bool = False) -> str:
    """Render a :class:`LabelledSummary` as text: how the labels matched, the table, and what it means;
    ``difference``: one of :func:`labelled_difference` (figures of B − A over pairs of rows).

    Example:
        >>> rows = [{"id": f"q{i}", "status": {"a": "ok"}, "scores": {"a": float(i % 2)}} for i in range(6)]
        >>> labels = [{"id": "q0", "labels": {"a": 0}}, {"id": "q1", "labels": {"a": 1}}]
        >>> lines = format_labelled_summary(labelled_summary(rows, labels)).splitlines()
        >>> print(lines[0])
        Labels: 2 labelled rows matched to scored rows; 4 scored rows without a label.
        >>> lines[1].split("  ")[:4], lines[3].split()[:5]
        (['score', 'labels', 'unlabelled', 'judge mean'], ['a', '2', '4', '0.500', '[0.188,'])
    """
    from rageval_lc.reports.summary import format_interval, format_table

    matching = summary.matching
    where = source or summary.source
    named = f"Labels{f' ({where})' if where else ''}: "
    if difference:
        lines = [
            named + "B - A over the rows paired between the runs: the pairs whose answers are labelled in both runs "
            "are the labelled ones, the other pairs ok in both the unlabelled ones."
        ]
    else:
        lines = [
            f"{named}{len(matching.labels)} labelled row{'s' if len(matching.labels) != 1 else ''} matched to scored "
            f"rows; {summary.unlabelled_rows} scored row{'s' if summary.unlabelled_rows != 1 else ''} without a label."
        ]
    for what, keys in (
        ("labelled but not scored (not in the run)", matching.not_scored),
        ("labelled for another answer than the one scored (left out)", matching.other_answer),
        ("ambiguous: the id names several scored rows and no line tells them apart (left out)", matching.ambiguous),
    ):
        if keys:
            more = f" and {len(keys) - 10} more" if len(keys) > 10 else ""
            lines.append(f"  {len(keys)} {what}: {', '.join(keys[:10])}{more}")
    if summary.scores:
        of = "B-A" if difference else "mean"
        headers = ["score", "labels", "unlabelled", f"judge {of}", "judge 95% CI", f"labels {of}", "labels 95% CI"]
        headers += [f"PPI++ {of}", "PPI++ 95% CI", "λ", "worth"]
        table = [
            [
                name,
                e.n,
                e.n_unlabelled,
                e.judge_mean,
                format_interval(e.judge_low, e.judge_high),
                e.classical_mean,
                format_interval(e.classical_low, e.classical_high),
                e.mean,
                format_interval(e.ci_low, e.ci_high),
                e.lam,
                "∞" if math.isinf(e.effective_labels) else round(e.effective_labels),
            ]
            for name, e in summary.scores.items()
        ]
        lines.append(format_table(headers, table))
    if summary.stratified_by is not None and summary.scores:
        lines.append(
            f"Stratified by {summary.stratified_by}: each stratum's estimate weighed by its share of the rows "
            "(λ: the strata's, so weighed)."
        )
    lines += [f"{name}: {why}." for name, est in summary.scores.items() if (why := caution(est))]
    for name, count in summary.judge_not_ok.items():
        lines.append(f"{name}: {count} labelled row{'s' if count != 1 else ''} left out (the judge's score not ok).")
    for name, why in summary.without.items():
        lines.append(f"{name}: no estimate ({why}).")
    if summary.scores:
        lines += [
            "PPI++: the judge's mean corrected by its error measured on the labelled rows (prediction-powered, "
            "power-tuned: λ weighs the judge, 0 = the labels alone); worth: how many labels alone would give as "
            "narrow an interval.",
            "95% CIs: for a rate (labels 0/1), Wilson's interval at the effective number of labels, else normal; "
            "large-sample intervals, valid when the labelled rows are a uniform random sample of the scored rows "
            "(rageval label-sample draws one) and a few dozen at least.",
        ]
    return "\n".join(lines)
