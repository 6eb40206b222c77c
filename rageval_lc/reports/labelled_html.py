"""The report page's section on labelled rows: per score, the judge's plain mean, the labels alone and the
prediction-powered (PPI++) mean, each with its 95 % interval, drawn one above the other on one axis.

Example:
    >>> from rageval_lc.reports.labelled import labelled_summary
    >>> rows = [{"id": f"q{i}", "status": {"a": "ok"}, "scores": {"a": float(i % 2)}} for i in range(8)]
    >>> summary = labelled_summary(rows, [{"id": f"q{i}", "labels": {"a": v}} for i, v in enumerate([0, 1, 1, 1])])
    >>> html = labelled_section(summary)
    >>> html.startswith("<section>"), "<svg" in html, "prediction-powered" in html, "4 labelled rows" in html
    (True, True, True, True)
"""

from __future__ import annotations

import math

from rageval_lc.reports.labelled import LabelledSummary, caution
from rageval_lc.reports.page import NAME_CHARS, cut_html, escape, format_number

__all__ = ["intervals_svg", "labelled_section"]

#: The three intervals of a score, in the order drawn: (label, the estimate's fields, colour).
_KINDS = (
    ("judge's plain mean", ("judge_mean", "judge_low", "judge_high"), "#8395a7"),
    ("labels only", ("classical_mean", "classical_low", "classical_high"), "#e58e26"),
    ("prediction-powered", ("mean", "ci_low", "ci_high"), "#3867d6"),
)
_MAX_SCORES = 20


def labelled_section(summary: LabelledSummary) -> str:
    """The section: how the labels matched, one plot of three intervals per score, the table, and when to
    trust it; empty when no labelled row matched."""
    matching = summary.matching
    n = len(matching.labels)
    if not n and not matching.not_scored:
        return ""
    facts = [f"{n} labelled row{'s' if n != 1 else ''} matched to scored rows, {summary.unlabelled_rows} without"]
    for what, keys in (
        ("labelled but not in the run", matching.not_scored),
        ("labelled for another answer (left out)", matching.other_answer),
        ("ambiguous ids (left out)", matching.ambiguous),
    ):
        if keys:
            facts.append(f"{len(keys)} {what}: {cut_html(', '.join(keys[:10]), 300)}")
    plots, body = [], []
    for name, est in list(summary.scores.items())[:_MAX_SCORES]:
        plots.append(f"<h3>{cut_html(name, NAME_CHARS)}</h3>{intervals_svg(est, name)}")
        worth = "∞" if math.isinf(est.effective_labels) else f"{est.effective_labels:.0f}"
        body.append(
            f"<tr><td>{cut_html(name, NAME_CHARS)}</td><td class='num'>{est.n}</td>"
            f"<td class='num'>{est.n_unlabelled}</td>"
            + "".join(
                f"<td class='num'><b>{format_number(getattr(est, m))}</b> "
                f"<span class='ci'>[{format_number(getattr(est, lo))}, "
                f"{format_number(getattr(est, hi))}]</span></td>"
                for _, (m, lo, hi), _ in _KINDS
            )
            + f"<td class='num'>{est.lam:.2f}</td><td class='num'>{worth}</td></tr>"
        )
    notes = [
        f"<p class='bad'>{escape(name)}: {escape(why)}.</p>"
        for name, est in summary.scores.items()
        if (why := caution(est))
    ]
    notes += [
        f"<p class='muted'>{escape(name)}: no estimate ({escape(why)}).</p>" for name, why in summary.without.items()
    ]
    if summary.stratified_by is not None:
        notes.append(
            "<p class='muted'>The labels were drawn stratum by stratum of "
            f"{cut_html(summary.stratified_by, NAME_CHARS)}: "
            "each stratum's estimate is weighed by its share of the rows.</p>"
        )
    notes += [
        f"<p class='muted'>{escape(name)}: {k} labelled row{'s' if k != 1 else ''} left out "
        "(the judge's score not ok).</p>"
        for name, k in summary.judge_not_ok.items()
    ]
    table = (
        "<table><tr><th>score</th><th>labels</th><th>unlabelled</th><th>judge's plain mean [95 %]</th>"
        "<th>labels only [95 %]</th><th>prediction-powered [95 %]</th><th>λ</th><th>worth (labels)</th></tr>"
        f"{''.join(body)}</table>"
        if body
        else ""
    )
    explain = (
        "<p class='muted'>The judge's plain mean carries the judge's errors; the labels alone are unbiased but wide; "
        "the prediction-powered mean (PPI++) is the judge's mean corrected by its error measured on the labelled "
        "rows, with λ weighing the judge (0: the labels alone), so its standard error is never larger than the "
        "labels' own. <i>Worth</i>: how many labels alone would give as narrow an interval. For a rate (labels "
        "0/1) the intervals are Wilson's at the effective number of labels, else normal: large-sample intervals, valid "
        "only when the labelled rows are a uniform random sample of the scored rows (as "
        "<code>rageval label-sample</code> draws them) — not the rows someone chose, nor the ones that looked "
        "wrong.</p>"
    )
    return (
        f"<section><h2>How good, really: with labelled rows</h2><p>{' · '.join(facts)}</p>"
        f"{''.join(plots)}{table}{''.join(notes)}{explain}</section>"
    )


def intervals_svg(est, name: str = "") -> str:
    """One score's three intervals (:data:`_KINDS`) on a shared axis, from 0 to 1 or wider where an interval
    reaches beyond.

    Example:
        >>> from rageval_lc.reports.ppi import ppi_mean
        >>> svg = intervals_svg(ppi_mean([1, 0, 1, 1], [1, 0, 1, 0], [1, 1, 0]))
        >>> svg.count("<line"), "labels only" in svg  # 5 ticks, and 3 lines for each of 3 intervals
        (14, True)
    """
    values = [getattr(est, f) for _, fields, _ in _KINDS for f in fields]
    low, high = min(0.0, *values), max(1.0, *values)
    label_w, plot_w, value_w, row_h, top = 170, 520, 200, 22, 8
    width, height = label_w + plot_w + value_w, top + row_h * len(_KINDS) + 22

    def x(value: float) -> float:
        return label_w + (value - low) / (high - low) * plot_w

    svg = [
        f"<svg width='{width}' height='{height}' role='img' aria-label='{escape(name or 'score')}: three intervals'>"
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        tx = x(tick)
        svg.append(
            f"<line x1='{tx:.1f}' y1='{top}' x2='{tx:.1f}' y2='{height - 18}' stroke='#e1e5eb'/>"
            f"<text x='{tx:.1f}' y='{height - 5}' font-size='10' fill='#8395a7' text-anchor='middle'>{tick:g}</text>"
        )
    for i, (label, (m, lo, hi), colour) in enumerate(_KINDS):
        y = top + row_h * i + row_h / 2
        mean, a, b = (getattr(est, f) for f in (m, lo, hi))
        figures = f"{mean:.3f} [{a:.3f}, {b:.3f}]"
        svg.append(
            f"<g><title>{escape(label)}: {figures}</title>"
            f"<text x='{label_w - 10}' y='{y + 4:.1f}' font-size='12' text-anchor='end' fill='#2f3542'>{escape(label)}"
            f"</text><line x1='{x(a):.1f}' y1='{y:.1f}' x2='{x(b):.1f}' y2='{y:.1f}' stroke='{colour}' "
            f"stroke-width='3'/><line x1='{x(a):.1f}' y1='{y - 5:.1f}' x2='{x(a):.1f}' y2='{y + 5:.1f}' "
            f"stroke='{colour}'/><line x1='{x(b):.1f}' y1='{y - 5:.1f}' x2='{x(b):.1f}' y2='{y + 5:.1f}' "
            f"stroke='{colour}'/><circle cx='{x(mean):.1f}' cy='{y:.1f}' r='4.5' fill='{colour}'/>"
            f"<text x='{label_w + plot_w + 12}' y='{y + 4:.1f}' font-size='11' fill='#2f3542'>{figures}</text></g>"
        )
    svg.append("</svg>")
    return "".join(svg)
