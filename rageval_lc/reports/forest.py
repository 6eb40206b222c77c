"""An inline SVG forest plot: one dot and 95% interval per row around a zero line, coloured by verdict.

Used by the comparison page (B − A per score) and the alignment report (the change per held-out figure).

Example:
    >>> svg = forest_svg([ForestPoint("f", 0.1, 0.02, 0.2, "better", "n=30")], left="← worse", right="better →")
    >>> svg.startswith("<svg"), "+0.100 [+0.020, +0.200]" in svg, "#1e8449" in svg
    (True, True, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from rageval_lc.reports.page import cut_text, escape

__all__ = ["MAX_PLOTTED", "ForestPoint", "forest_svg"]

MAX_PLOTTED = 60  # intervals in one forest plot
_COLOURS = {"better": "#1e8449", "worse": "#c0392b"}


@dataclass(frozen=True)
class ForestPoint:
    """One row of the plot: its label, value and interval, ``better`` / ``worse`` / ``""`` (the colour), and what
    the hover tip adds after the figures."""

    label: str
    value: float
    low: float
    high: float
    verdict: str = ""
    tip: str = ""


def _nice(limit: float) -> float:
    for step in (0.05, 0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0):
        if limit <= step:
            return step
    return math.ceil(limit)


def forest_svg(points: Sequence[ForestPoint], *, left: str, right: str, aria: str = "forest plot") -> str:
    """The plot of at most :data:`MAX_PLOTTED` points (a note counts the rest), symmetric around zero; ``left`` and
    ``right`` name the two sides."""
    drawn = list(points[:MAX_PLOTTED])
    if not drawn:
        return ""
    extent = max(abs(v) for p in drawn for v in (p.value, p.low, p.high))
    half = _nice(max(extent, 0.01) * 1.05)
    label_w, plot_w, value_w, row_h, top = 220, 560, 210, 24, 26
    width, height = label_w + plot_w + value_w, top + row_h * len(drawn) + 28

    def x(value: float) -> float:
        return label_w + (value + half) / (2 * half) * plot_w

    svg = [f"<svg width='{width}' height='{height}' role='img' aria-label='{escape(aria)}'>"]
    svg.append(
        f"<text x='{label_w}' y='14' font-size='11' fill='#8395a7'>{escape(left)}</text>"
        f"<text x='{label_w + plot_w}' y='14' font-size='11' fill='#8395a7' text-anchor='end'>{escape(right)}</text>"
    )
    for tick in (-half, -half / 2, 0.0, half / 2, half):
        tx = x(tick)
        colour, dash = ("#2f3542", "") if tick == 0 else ("#e1e5eb", " stroke-dasharray='3,3'")
        svg.append(
            f"<line x1='{tx:.1f}' y1='{top - 6}' x2='{tx:.1f}' y2='{height - 22}' stroke='{colour}'{dash}/>"
            f"<text x='{tx:.1f}' y='{height - 8}' font-size='10' fill='#8395a7' text-anchor='middle'>{tick:+g}</text>"
        )
    for i, p in enumerate(drawn):
        y = top + row_h * i + row_h / 2
        colour = _COLOURS.get(p.verdict, "#3867d6")
        figures = f"{p.value:+.3f} [{p.low:+.3f}, {p.high:+.3f}]"
        tip = f"{p.label}: {figures}" + (f", {p.tip}" if p.tip else "")
        svg.append(
            f"<g><title>{escape(tip)}</title>"
            f"<text x='{label_w - 10}' y='{y + 4:.1f}' font-size='12' text-anchor='end' fill='#2f3542'>"
            f"{escape(cut_text(p.label, 32))}</text>"
            f"<line x1='{x(p.low):.1f}' y1='{y:.1f}' x2='{x(p.high):.1f}' y2='{y:.1f}' stroke='{colour}' "
            "stroke-width='2'/>"
            f"<line x1='{x(p.low):.1f}' y1='{y - 5:.1f}' x2='{x(p.low):.1f}' y2='{y + 5:.1f}' stroke='{colour}'/>"
            f"<line x1='{x(p.high):.1f}' y1='{y - 5:.1f}' x2='{x(p.high):.1f}' y2='{y + 5:.1f}' stroke='{colour}'/>"
            f"<circle cx='{x(p.value):.1f}' cy='{y:.1f}' r='4.5' fill='{colour}'/>"
            f"<text x='{label_w + plot_w + 12}' y='{y + 4:.1f}' font-size='11' fill='#2f3542'>{figures}</text></g>"
        )
    svg.append("</svg>")
    more = len(points) - len(drawn)
    note = f"<p class='muted'>{more} more intervals in the table only.</p>" if more > 0 else ""
    return "".join(svg) + note
