"""Summaries of result rows: per score, the mean over ``ok`` rows and the count of each status.

Undetermined and failed rows are left out of the mean and counted, never averaged in as 0.

Example:
    >>> rows = [{"scores": {"adherence": 1.0}, "status": {"adherence": "ok"}},
    ...         {"scores": {"adherence": 0.0}, "status": {"adherence": "ok"}},
    ...         {"scores": {"adherence": None}, "status": {"adherence": "undetermined"}}]
    >>> summarize(rows)[0]
    ScoreSummary(name='adherence', mean=0.5, ok=2, undetermined=1, error=0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ScoreSummary", "format_summary", "format_table", "summarize"]


@dataclass(frozen=True)
class ScoreSummary:
    """One score over a run: mean of the ``ok`` values and the status counts."""

    name: str
    mean: float | None
    ok: int
    undetermined: int
    error: int


def summarize(rows: Iterable[Mapping[str, Any]]) -> list[ScoreSummary]:
    """Summarise result rows (as written by ``rageval evaluate``), scores in first-seen order."""
    values: dict[str, list[float]] = {}
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        for name, status in row.get("status", {}).items():
            tally = counts.setdefault(name, {"ok": 0, "undetermined": 0, "error": 0})
            values.setdefault(name, [])
            tally[status] = tally.get(status, 0) + 1
            score = row.get("scores", {}).get(name)
            if status == "ok" and score is not None:
                values[name].append(float(score))
    return [
        ScoreSummary(
            name=name,
            mean=math.fsum(values[name]) / len(values[name]) if values[name] else None,
            ok=tally["ok"],
            undetermined=tally["undetermined"],
            error=tally["error"],
        )
        for name, tally in counts.items()
    ]


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Render a plain-text table; numbers are right-aligned, floats shown with 3 decimals.

    Example:
        >>> print(format_table(["metric", "mean"], [["adherence", 0.5], ["average", None]]))
        metric      mean
        ---------  -----
        adherence  0.500
        average    -
    """
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    numeric = [all(isinstance(r[i], (int, float)) or r[i] is None for r in rows) for i in range(len(headers))]

    def line(values: Sequence[str]) -> str:
        columns = zip(values, widths, numeric, strict=True)
        parts = [v.rjust(w) if num and v != "-" else v.ljust(w) for v, w, num in columns]
        return "  ".join(parts).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in cells)])


def format_summary(summaries: Sequence[ScoreSummary]) -> str:
    """Render the per-score summary table."""
    return format_table(
        ["score", "mean", "ok", "undetermined", "error"],
        [[s.name, s.mean, s.ok, s.undetermined, s.error] for s in summaries],
    )


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)
