"""A self-contained HTML page of a comparison of two runs: the differences with their intervals (a forest plot),
per subset when asked, the unpaired rows, and the rows that changed most with both runs' reasons.

Everything is inline (CSS and SVG; no script, nothing fetched); ``<details>`` folds the per-score row lists.
Long texts are cut with a visible ellipsis, and at most :data:`MAX_PLOTTED` intervals, 50 rows per score and
50 unpaired ids per run are shown, so the page stays small whatever the runs hold.

Example:
    >>> from rageval_lc.reports.compare import compare
    >>> a = [{"id": str(i), "status": {"f": "ok"}, "scores": {"f": v}} for i, v in enumerate([0.2, 0.4, 0.5])]
    >>> b = [{"id": str(i), "status": {"f": "ok"}, "scores": {"f": v}} for i, v in enumerate([0.6, 0.4, 0.9])]
    >>> page = render_compare_html(compare(a, b), names=("old.jsonl", "new.jsonl"))
    >>> page.startswith("<!DOCTYPE html>"), "<script" in page, "+0.267" in page
    (True, False, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rageval_lc.reports.attention import HIGHER_IS_WORSE
from rageval_lc.reports.compare import Comparison, Pair, format_p
from rageval_lc.reports.forest import MAX_PLOTTED, ForestPoint, forest_svg
from rageval_lc.reports.page import BASE_CSS, cut_html, escape, render_page  # the report page's frame and text helpers

if TYPE_CHECKING:
    from rageval_lc.reports.stats import PairedComparison

__all__ = ["MAX_PLOTTED", "render_compare_html"]

_MAX_TOP = 50  # rows listed per score, whatever ``top`` asks
_MAX_IDS = 50  # unpaired ids listed per run
_NAME_CHARS = 80
_TEXT_CHARS = 500  # a reason, a question, an answer
_TEXT_FIELDS = ("question", "response", "answer")  # shown when a result row keeps them

_CSS = (
    BASE_CSS
    + """
.better { color: #1e8449; } .worse { color: #c0392b; } p.muted { font-size: 13px; }
.reason { max-width: 460px; color: #2f3542; font-size: 12px; }
details { margin: 8px 0; } summary { cursor: pointer; font-weight: 600; font-size: 14px; }
code { font-size: 12px; }
"""
)


def render_compare_html(
    result: Comparison, *, names: tuple[str, str] = ("run A", "run B"), top: int = 10, title: str | None = None
) -> str:
    """Render a :class:`~rageval_lc.reports.compare.Comparison` as one HTML page (bounded: see the module)."""
    a_name, b_name = names
    only_a, only_b = result.unpaired["only_in_a"], result.unpaired["only_in_b"]
    heading = title or f"{a_name} vs {b_name}"
    facts = (
        f"A = {cut_html(a_name, _NAME_CHARS)} · B = {cut_html(b_name, _NAME_CHARS)} · "
        f"{len(result.pairs)} rows paired by id · "
        f"{len(only_a)} only in A · {len(only_b)} only in B"
    )
    sections = [
        _differences(result.scores, result.one_sided),
        _by_section(result) if result.by_field is not None else "",
        _unpaired(only_a, only_b),
        _changed_most(result, max(0, min(top, _MAX_TOP)), names),
    ]
    return render_page(heading, cut_html(heading, _NAME_CHARS), facts, _CSS, sections)


def _num(value: float | None, digits: int = 3, *, sign: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def _direction(f: PairedComparison, name: str) -> str:
    """``better`` / ``worse`` (B against A) when the interval lies wholly on one side of zero and p < 0.05, else
    ``''`` (one row's zero-width interval says nothing: its p-value is 1). Above zero is better, but for the
    scores where lower is better (:data:`~rageval_lc.reports.attention.HIGHER_IS_WORSE`)."""
    if f.p_value is None or f.p_value >= 0.05:
        return ""
    if f.ci_low is not None and f.ci_low > 0:
        return _change(name, rise=True)
    if f.ci_high is not None and f.ci_high < 0:
        return _change(name, rise=False)
    return ""


def _change(name: str, *, rise: bool) -> str:
    """``better`` or ``worse``: what a rise (or a fall) of score ``name`` from A to B is."""
    return "better" if rise != (name in HIGHER_IS_WORSE) else "worse"


def _figures_table(rows: Sequence[tuple[str, str, PairedComparison]], first: str = "score") -> str:
    """One row per (label, score name, figures)."""
    body = []
    for label, name, f in rows:
        css = _direction(f, name)
        interval = "–" if f.ci_low is None else f"[{_num(f.ci_low, sign=True)}, {_num(f.ci_high, sign=True)}]"
        body.append(
            f"<tr><td>{cut_html(label, _NAME_CHARS)}</td><td class='num'>{f.n}</td>"
            f"<td class='num'>{_num(f.mean_a)}</td>"
            f"<td class='num'>{_num(f.mean_b)}</td><td class='num {css}'><b>{_num(f.diff, sign=True)}</b></td>"
            f"<td class='num {css}'>{interval}</td><td class='num'>{format_p(f.p_value).replace('-', '–')}</td>"
            f"<td class='num'>{f.wins} / {f.ties} / {f.losses}</td></tr>"
        )
    head = (
        f"<tr><th>{escape(first)}</th><th class='num'>rows ok in both</th><th class='num'>mean A</th>"
        "<th class='num'>mean B</th><th class='num'>B − A</th><th class='num'>95% CI</th><th class='num'>p</th>"
        "<th class='num'>B better / same / worse</th></tr>"
    )
    return f"<table>{head}{''.join(body)}</table>"


def _differences(scores: Mapping[str, PairedComparison], one_sided: Mapping[str, str]) -> str:
    rows = [(name, name, f) for name, f in scores.items()]
    lower = [name for name in scores if name in HIGHER_IS_WORSE]
    but = f" (below zero for {', '.join(cut_html(n, _NAME_CHARS) for n in lower)}: lower is better)" if lower else ""
    note = (
        "<p class='muted'>B − A: mean of the per-row differences over the rows where the score is ok in both runs. "
        "95% CI: paired bootstrap (the differences resampled). p: paired permutation (sign-flip) test of no "
        "difference. Green / red: B better / worse than A, the interval lying wholly on one side of zero and "
        f"p &lt; 0.05; better is above zero{but}. B better / same / worse: rows where B scored better than A (higher, "
        "or lower where lower is better), the same, or worse.</p>"
    )
    note += "".join(
        f"<p class='muted'>{cut_html(name, _NAME_CHARS)}: only in run {run}'s rows, nothing to compare.</p>"
        for name, run in one_sided.items()
    )
    return (
        f"<section><h2>Differences B − A with 95% intervals</h2>{_forest(rows)}{_figures_table(rows)}{note}</section>"
    )


def _by_section(result: Comparison) -> str:
    rows = [
        (f"{subset} · {name}", name, f) for subset, scores in result.by.items() for name, f in scores.items() if f.n
    ]
    field = escape(result.by_field)
    note = (
        f"<p class='muted'>Subsets of <code>{field}</code>, read from each row (else its details; for "
        "<code>dataset</code>, else the dataset a RAGBench id names); rows naming none are under (missing).</p>"
    )
    table = _figures_table(rows, first=result.by_field or "")
    return f"<section><h2>By {field}</h2>{_forest(rows)}{table}{note}</section>"


def _forest(rows: Sequence[tuple[str, str, PairedComparison]]) -> str:
    """An SVG forest plot: per (label, score name, figures) its difference (dot) and 95% interval (line), around a
    zero line; green / red where B is significantly better / worse (:func:`_direction`)."""
    points = [
        ForestPoint(
            label=label,
            value=f.diff,
            low=f.ci_low if f.ci_low is not None else f.diff,
            high=f.ci_high if f.ci_high is not None else f.diff,
            verdict=_direction(f, name),
            tip=f"n={f.n}, p={format_p(f.p_value)}",
        )
        for label, name, f in rows
        if f.diff is not None
    ]
    if not points:
        return "<p class='muted'>No score was ok in both runs on any paired row: nothing to plot.</p>"
    return forest_svg(points, left="← A higher", right="B higher →", aria="differences B minus A with 95% intervals")


def _unpaired(only_a: Sequence[str], only_b: Sequence[str]) -> str:
    if not only_a and not only_b:
        return (
            "<section><h2>Unpaired rows</h2><p>None: every row of each run has its partner in the other.</p></section>"
        )
    items = []
    for label, keys in (("Only in A", only_a), ("Only in B", only_b)):
        shown = ", ".join(cut_html(key, _NAME_CHARS) for key in keys[:_MAX_IDS]) or "none"
        more = f" <span class='muted'>and {len(keys) - _MAX_IDS} more</span>" if len(keys) > _MAX_IDS else ""
        items.append(f"<p><b>{label}</b> ({len(keys)}): {shown}{more}</p>")
    note = "<p class='muted'>Left out of every figure above: they have no partner to be compared with.</p>"
    return f"<section><h2>Unpaired rows</h2>{''.join(items)}{note}</section>"


def _changed_most(result: Comparison, top: int, names: tuple[str, str]) -> str:
    if top == 0:
        return ""
    has_text = any(field in row for pair in result.pairs for row in (pair.a, pair.b) for field in _TEXT_FIELDS)
    blocks = []
    for k, (name, f) in enumerate(result.scores.items()):
        pairs = [p for p in result.changed_most(name, top) if (v := p.scores(name)) and v[0] != v[1]]
        if not pairs:
            continue
        body = "".join(_pair_row(pair, name, has_text, names) for pair in pairs)
        head = (
            "<tr><th>row</th><th>A</th><th>B</th><th>B − A</th><th>A's reason</th><th>B's reason</th>"
            + ("<th>question · answer</th>" if has_text else "")
            + "</tr>"
        )
        opened = " open" if k == 0 else ""
        blocks.append(
            f"<details{opened}><summary>{cut_html(name, _NAME_CHARS)}: {len(pairs)} rows "
            f"(B − A {_num(f.diff, sign=True)})</summary><table>{head}{body}</table></details>"
        )
    if not blocks:
        return "<section><h2>Rows that changed most</h2><p>No paired row changed on any score.</p></section>"
    note = (
        ""
        if has_text
        else "<p class='muted'>These result rows keep no question or answer (written by an older rageval): "
        "each row is shown by its id and input line; the input files hold the texts.</p>"
    )
    return (
        f"<section><h2>Rows that changed most (largest |B − A|, at most {top} per score)</h2>{note}"
        f"{''.join(blocks)}</section>"
    )


def _pair_row(pair: Pair, name: str, has_text: bool, names: tuple[str, str]) -> str:
    a, b = pair.scores(name) or (0.0, 0.0)
    css = _change(name, rise=b > a)
    where = pair.key if pair.occurrence == 0 else f"{pair.key} (#{pair.occurrence + 1})"
    lines = [n if isinstance(n, int) else "–" for n in (pair.a.get("line"), pair.b.get("line"))]
    line = f"line {lines[0]}" if lines[0] == lines[1] else f"lines {lines[0]} / {lines[1]}"
    under = f"<br><span class='muted'>{escape(line)}</span>"
    if line in ("line –", pair.key):  # no input lines (a Python run's rows), or the key already says it
        under = ""
    text = ""
    if has_text:
        shown = [line for field in _TEXT_FIELDS for line in _text_lines(pair, field, names)]
        text = f"<td class='reason'>{'<br>'.join(shown) or '–'}</td>"
    return (
        f"<tr><td>{cut_html(where, _NAME_CHARS)}{under}</td>"
        f"<td class='num'>{a:.3f}</td><td class='num'>{b:.3f}</td><td class='num {css}'><b>{b - a:+.3f}</b></td>"
        f"<td class='reason'>{cut_html(_reason(pair.a, name), _TEXT_CHARS)}</td>"
        f"<td class='reason'>{cut_html(_reason(pair.b, name), _TEXT_CHARS)}</td>{text}</tr>"
    )


def _text_lines(pair: Pair, field: str, names: tuple[str, str]) -> list[str]:
    """A text field of the pair's rows: once when both rows hold the same, else each row's, named by its run
    (``response (A: old.jsonl)``)."""
    values = [row.get(field) if isinstance(row.get(field), str) else None for row in (pair.a, pair.b)]
    if values[0] == values[1]:
        return [] if values[0] is None else [f"<b>{field}</b>: {cut_html(values[0], _TEXT_CHARS)}"]
    return [
        f"<b>{field}</b> ({run}: {cut_html(run_name, _NAME_CHARS)}): {cut_html(value, _TEXT_CHARS)}"
        for run, run_name, value in zip("AB", names, values, strict=True)
        if value is not None
    ]


def _reason(row: Mapping[str, Any], name: str) -> str:
    reasons = row.get("reason") or {}
    return str(reasons.get(name) or "no reason given") if isinstance(reasons, Mapping) else "no reason given"
