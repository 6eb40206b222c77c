"""The run report's charts, drawn here as inline SVG from the numbers: each mean's bar with its interval, each
score's histogram, and the TRACe profile (per dataset where the rows' ids name one).

Only ok rows are drawn; undetermined and failed ones are counted elsewhere, never drawn as zeros.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from rageval_lc.metrics.trace import TRACE_METRICS
from rageval_lc.reports.page import NAME_CHARS, cut_html, cut_text, escape, format_number

__all__ = ["distributions_section", "mean_bar", "trace_profile_section"]  # helpers of the run report (html.py)

_COLOURS = ("#3867d6", "#20bf6b", "#f7b731", "#eb3b5a", "#8854d0", "#0fb9b1", "#fa8231", "#4b6584")


def mean_bar(value: float | None, low: float | None = None, high: float | None = None, width: int = 160) -> str:
    """A mean's bar on a 0 to 1 scale (SVG), its 95 % interval ``low`` to ``high`` drawn over it when given."""
    if value is None or not math.isfinite(value):
        return "<span class='muted'>no ok rows</span>"

    def x(v: float) -> float:
        return max(0.0, min(1.0, v)) * width

    label = f"mean {value:.3f}" + ("" if low is None or high is None else f", 95 % interval {low:.3f} to {high:.3f}")
    band = ""
    if low is not None and high is not None:
        band = (
            f"<rect x='{x(low):.1f}' y='1' width='{max(1.5, x(high) - x(low)):.1f}' height='10' rx='2' fill='#3867d6'/>"
        )
    return (
        f"<svg width='{width}' height='12' role='img' aria-label='{label}'><title>{label}</title>"
        f"<rect y='1' width='{width}' height='10' rx='3' fill='#eef0f4'/>"
        f"<rect y='1' width='{x(value):.1f}' height='10' rx='3' fill='#a5b8ec'/>{band}"
        f"<rect x='{max(0.0, x(value) - 1):.1f}' y='0' width='2' height='12' fill='#1e272e'/></svg>"
    )


def _values(rows: Sequence[Mapping[str, Any]], name: str) -> list[float]:
    out = []
    for row in rows:
        if (row.get("status") or {}).get(name) == "ok":
            value = (row.get("scores") or {}).get(name)
            if isinstance(value, (int, float)) and math.isfinite(value):
                out.append(float(value))
    return out


def _histogram(values: Sequence[float], colour: str, *, bins: int = 10, width: int = 240, height: int = 90) -> str:
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, max(0, int(v * bins)))] += 1
    top = max(counts) or 1
    bar_w = width / bins
    bars = []
    for i, c in enumerate(counts):
        h = (height - 18) * c / top
        x, y = i * bar_w + 1, height - 14 - h
        bars.append(
            f"<rect x='{x:.1f}' y='{y:.1f}' width='{bar_w - 2:.1f}' height='{h:.1f}' fill='{colour}' rx='2'>"
            f"<title>{i / bins:.1f}–{(i + 1) / bins:.1f}: {c}</title></rect>"
        )
    axis = (
        f"<line x1='0' y1='{height - 13}' x2='{width}' y2='{height - 13}' stroke='#ced6e0'/>"
        f"<text x='0' y='{height - 2}' font-size='10' fill='#8395a7'>0</text>"
        f"<text x='{width / 2 - 6:.0f}' y='{height - 2}' font-size='10' fill='#8395a7'>0.5</text>"
        f"<text x='{width - 8}' y='{height - 2}' font-size='10' fill='#8395a7'>1</text>"
    )
    return f"<svg width='{width}' height='{height}' role='img'>{''.join(bars)}{axis}</svg>"


def distributions_section(rows: Sequence[Mapping[str, Any]], summaries: Sequence[Any]) -> str:
    """The report's section of each score's histogram over its ok rows; empty when no score has one."""
    cards = []
    for i, s in enumerate(summaries):
        values = _values(rows, s.name)
        if not values:
            continue
        median = sorted(values)[len(values) // 2]
        cards.append(
            f"<div class='card'><h3>{cut_html(s.name, NAME_CHARS)}</h3>"
            f"<p>mean {format_number(s.mean)} · median {median:.3f} · "
            f"{len(values)} ok</p>{_histogram(values, _COLOURS[i % len(_COLOURS)])}</div>"
        )
    if not cards:
        return ""
    return f"<section><h2>Score distributions</h2><div class='grid'>{''.join(cards)}</div></section>"


def trace_profile_section(rows: Sequence[Mapping[str, Any]], summaries: Sequence[Any]) -> str:
    """The report's section of the TRACe scores' means, over all rows and per dataset the rows' ids name."""
    means = {s.name: s.mean for s in summaries}
    groups: dict[str, dict[str, list[float]]] = {}
    for row in rows:
        group = _group(row)
        if group is None:
            continue
        for name in TRACE_METRICS:
            if (row.get("status") or {}).get(name) == "ok":
                groups.setdefault(group, {}).setdefault(name, []).append(float(row["scores"][name]))
    series = [("all rows", {n: means.get(n) for n in TRACE_METRICS})]
    for group in sorted(groups)[:7]:
        series.append(
            (
                cut_text(group, 40),
                {n: (sum(v) / len(v) if (v := groups[group].get(n)) else None) for n in TRACE_METRICS},
            )
        )
    width, height, left, bottom = 900, 240, 40, 40
    slot = (width - left) / len(TRACE_METRICS)
    bar_w = min(28.0, (slot - 16) / len(series))
    legend, legend_x, legend_y = [], left, height + 4
    for k, (label, _) in enumerate(series):
        step = 30 + 7 * len(label)
        if legend_x + step > width:
            legend_x, legend_y = left, legend_y + 18
        legend.append(
            f"<rect x='{legend_x}' y='{legend_y}' width='10' height='10' fill='{_COLOURS[k % len(_COLOURS)]}'/>"
            f"<text x='{legend_x + 14}' y='{legend_y + 9}' font-size='11' fill='#2f3542'>{escape(label)}</text>"
        )
        legend_x += step
    svg = [f"<svg width='{width}' height='{legend_y + 20}' role='img' aria-label='TRACe profile'>"]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = height - bottom - tick * (height - bottom - 10)
        svg.append(f"<line x1='{left}' y1='{y:.1f}' x2='{width}' y2='{y:.1f}' stroke='#eef0f4'/>")
        svg.append(f"<text x='4' y='{y + 4:.1f}' font-size='10' fill='#8395a7'>{tick:.2f}</text>")
    for m, name in enumerate(TRACE_METRICS):
        x0 = left + m * slot + (slot - bar_w * len(series)) / 2
        for k, (label, values) in enumerate(series):
            value = values.get(name)
            if value is None:
                continue
            h = value * (height - bottom - 10)
            x, y = x0 + k * bar_w, height - bottom - h
            svg.append(
                f"<rect x='{x:.1f}' y='{y:.1f}' width='{bar_w - 3:.1f}' height='{h:.1f}' rx='2' "
                f"fill='{_COLOURS[k % len(_COLOURS)]}'><title>{escape(label)} {name}: {value:.3f}</title></rect>"
            )
        svg.append(
            f"<text x='{left + m * slot + slot / 2:.1f}' y='{height - bottom + 16}' font-size='12' "
            f"text-anchor='middle' fill='#2f3542'>{name.replace('_', ' ')}</text>"
        )
    svg.extend(legend)
    svg.append("</svg>")
    return (
        "<section><h2>TRACe profile</h2><p class='muted'>Mean of each TRACe score over ok rows"
        f"{', per dataset' if len(series) > 1 else ''}.</p>{''.join(svg)}</section>"
    )


def _group(row: Mapping[str, Any]) -> str | None:
    row_id = row.get("id")
    if isinstance(row_id, str) and ":" in row_id:  # RAGBench ids: dataset:id:generator
        dataset = row_id.split(":", 1)[0]
        for split in ("_validation", "_test", "_train"):
            dataset = dataset.removesuffix(split)
        return dataset
    return None
