"""A self-contained HTML page of an alignment report (``rageval align --html``): each held-out figure before and
after, the change with its paired-bootstrap 95% interval (a forest plot, better to the right), and what was refitted
or compiled.

Everything is inline (CSS and SVG; no script, nothing fetched).

Example:
    >>> from rageval_lc.align.offline import AlignReport, FigureChange
    >>> auroc = FigureChange("hallucination_auroc", 30, 0.61, 0.68, 0.01, 0.12, True)
    >>> report = AlignReport(fitted_rows=70, held_out_rows=30, strengths={"support": 30.0}, figures=[auroc],
    ...                      tolerance=0.01)
    >>> page = render_align_html(report, title="my rows")
    >>> page.startswith("<!DOCTYPE html>"), "<script" in page, "+0.070 [+0.010, +0.120]" in page
    (True, False, True)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from rageval_lc.reports.forest import ForestPoint, forest_svg
from rageval_lc.reports.page import BASE_CSS, cut_html, escape, format_number, render_page

if TYPE_CHECKING:
    from rageval_lc.align.offline import AlignReport

__all__ = ["render_align_html"]

_NAME_CHARS = 80
_MAX_SKIPPED = 50
_CSS = (
    BASE_CSS
    + """
.better { color: #1e8449; } .worse { color: #c0392b; } p.muted { font-size: 13px; }
.verdict { font-size: 15px; font-weight: 600; }
"""
)


def render_align_html(report: AlignReport, *, title: str = "rageval align") -> str:
    """Render an :class:`~rageval_lc.align.offline.AlignReport` as one HTML page."""
    facts = (
        f"fitted on {report.fitted_rows} rows · measured on {report.held_out_rows} held-out rows (split by question)"
    )
    sections = [
        _verdict(report),
        _figures(report),
        _changed(report),
        "" if report.kind == "llm" else _skipped(report.skipped),
    ]
    return render_page(title, f"Aligning the judge: {cut_html(title, _NAME_CHARS)}", facts, _CSS, sections)


def _verdict(report: AlignReport) -> str:
    from rageval_lc.align.report import MIN_HELD_OUT_PER_KIND

    if report.planned_calls is not None:
        text = f"Dry run: {report.planned_calls} model calls planned (compiling and the held-out check); none made."
        return f"<section><p class='verdict'>{escape(text)}</p></section>"
    if report.usable:
        css, text = "better", "Usable: not worse on the held-out rows."
    else:
        css, text = "worse", f"Refused: {report.refusal}."
    advice = f"<p>{escape(report.advice)}</p>" if report.advice else ""
    written = (
        f"<p>Written to <code>{cut_html(report.written, _NAME_CHARS)}</code>.</p>"
        if report.written is not None
        else "<p class='muted'>Not written (no output asked for, or refused; <code>--force</code> writes it).</p>"
    )
    rule = (
        "<p class='muted'>Refused when a figure is clearly worse (its whole interval on the worse side, beyond the "
        f"tolerance {report.tolerance:g}) or when the figures' changes add up to worse than −{report.tolerance:g}; "
        "and when the held-out rows cannot show it is not: no figure could move (at its ceiling or floor before, or "
        "an interval of zero width: no evidence), or a verdict figure's interval reaches below "
        f"−{report.tolerance:g}, or fewer than {MIN_HELD_OUT_PER_KIND} held-out rows of a kind (faithful or not) "
        "stand behind the row verdicts.</p>"
    )
    return f"<section><p class='verdict {css}'>{escape(text)}</p>{advice}{written}{rule}</section>"


def _figures(report: AlignReport) -> str:
    if not report.figures:
        return "<section><h2>Held-out figures</h2><p>None measured.</p></section>"
    worse = {f.name for f in report.worse}
    points, body = [], []
    for f in report.figures:
        arrow = "↑ higher is better" if f.higher_is_better else "↓ lower is better"
        verdict = ""
        if f.gain is not None:
            low, high = f.gain_interval  # type: ignore[misc]
            verdict = "worse" if f.name in worse else ("better" if low > 0 else "")
            points.append(ForestPoint(f.name, f.gain + 0.0, low, high, verdict, f"n={f.rows}"))
        change = "–" if f.gain is None else f"{f.after - f.before:+.3f}"
        interval = "–" if f.ci_low is None else f"[{f.ci_low:+.3f}, {f.ci_high:+.3f}]"
        stuck = f.stuck if f.gain is not None and f.name not in worse else None
        stuck = f" <span class='muted'>(no evidence: {escape(stuck)})</span>" if stuck else ""
        body.append(
            f"<tr><td>{escape(f.name)} <span class='muted'>{arrow}</span>{stuck}</td><td class='num'>{f.rows}</td>"
            f"<td class='num'>{format_number(f.before)}</td><td class='num'>{format_number(f.after)}</td>"
            f"<td class='num {verdict}'><b>{change}</b></td><td class='num {verdict}'>{interval}</td></tr>"
        )
    head = (
        "<tr><th>figure</th><th class='num'>held-out rows</th><th class='num'>before</th><th class='num'>after</th>"
        "<th class='num'>after − before</th><th class='num'>95% CI</th></tr>"
    )
    plot = forest_svg(points, left="← worse", right="better →", aria="change per figure, better to the right")
    note = (
        "<p class='muted'>The plot shows each change in the good direction (an RMSE that falls is drawn to the right); "
        "the table gives it as measured. 95% CI: paired bootstrap over the held-out rows. Green: the whole interval "
        "better; red: why the judge is refused.</p>"
    )
    return (
        f"<section><h2>Held-out figures before and after</h2>{plot}<table>{head}{''.join(body)}</table>{note}</section>"
    )


def _changed(report: AlignReport) -> str:
    if report.kind == "llm":
        rows = "".join(
            f"<tr><td>{escape(name)}</td><td class='num'>{n}</td>"
            f"<td>{'loaded from the checkpoint' if name in report.resumed else 'compiled'}</td></tr>"
            for name, n in report.compiled.items()
        )
        rows += "".join(
            f"<tr><td colspan='3' class='muted'>left as it was: {escape(why)}</td></tr>" for why in report.skipped
        )
        head = "<tr><th>module</th><th class='num'>training examples</th><th></th></tr>"
        return f"<section><h2>Compiled modules</h2><table>{head}{rows}</table></section>"
    rows = "".join(
        f"<tr><td>{escape(name)}</td><td class='num'>{'kept as shipped' if math.isinf(v) else f'{v:g}'}</td></tr>"
        for name, v in report.strengths.items()
    )
    note = (
        "<p class='muted'>Strength: how hard each refitted model is pulled back toward the judge it started from "
        "(chosen by cross-validation on the fitted rows; kept as shipped when the rows do not beat it).</p>"
    )
    head = "<tr><th>model</th><th class='num'>strength</th></tr>"
    return f"<section><h2>Refitted models</h2><table>{head}{rows}</table>{note}</section>"


def _skipped(skipped: list[str]) -> str:
    if not skipped:
        return ""
    items = "".join(f"<li>{cut_html(s, 300)}</li>" for s in skipped[:_MAX_SKIPPED])
    more = f"<p class='muted'>and {len(skipped) - _MAX_SKIPPED} more</p>" if len(skipped) > _MAX_SKIPPED else ""
    return f"<section><h2>Rows the judge could not read ({len(skipped)})</h2><ul>{items}</ul>{more}</section>"
