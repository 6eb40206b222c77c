"""A self-contained HTML report of a results file: summary, distributions, TRACe profile, worst rows.

Everything is inline (CSS and SVG; no script, no network), so the file can be mailed or archived. Charts
are drawn here from the numbers; undetermined and failed rows are counted, never drawn as zeros.

The page is bounded whatever the rows hold: long texts (ids, reasons, score, judge and dataset names, the
title) are cut with a visible ellipsis and the count of characters cut (the results file keeps them whole),
and at most :data:`MAX_SCORES` scores, :data:`MAX_WORST` worst rows and 15 kinds of problems are shown, so a
page stays under 300 KB.

Example:
    >>> rows = [{"id": "a", "scores": {"adherence": 1.0}, "status": {"adherence": "ok"}, "reason": {}},
    ...         {"id": "b", "scores": {"adherence": 0.0}, "status": {"adherence": "ok"}, "reason": {}}]
    >>> html = render_html(rows, title="demo")
    >>> html.startswith("<!DOCTYPE html>") and "adherence" in html and "<script" not in html
    True
"""

from __future__ import annotations

import html
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from rageval_lc.metrics.ragas import RAGAS_WEIGHTS
from rageval_lc.metrics.trace import TRACE_METRICS
from rageval_lc.reports.summary import reference_view, summarize

__all__ = ["MAX_SCORES", "MAX_WORST", "render_html"]

#: The parts of each aggregate score, whose reasons explain it.
_AGGREGATE_PARTS = {"average": TRACE_METRICS, "ragas_score": tuple(RAGAS_WEIGHTS)}
_COLOURS = ("#3867d6", "#20bf6b", "#f7b731", "#eb3b5a", "#8854d0", "#0fb9b1", "#fa8231", "#4b6584")
_SKIP_DISTRIBUTION = {"rmse_aggregation"}  # a spread, not a quality score
MAX_SCORES = 40  # scores in the summary table and the distributions
MAX_WORST = 50  # worst rows listed, whatever ``worst`` asks
MAX_JUDGES = 5  # judge names in the header
_NAME_CHARS = 80  # ids, score, judge and dataset names, the title
_REASON_CHARS = 600  # a reason

_CSS = """
body { font-family: -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; margin: 0; color: #1e272e;
       background: #f5f6fa; }
header { background: #1e272e; color: #fff; padding: 20px 32px; }
header h1 { margin: 0 0 6px 0; font-size: 22px; }
header p { margin: 0; color: #d2dae2; font-size: 13px; }
main { padding: 16px 32px 40px 32px; max-width: 1200px; }
section { background: #fff; border-radius: 8px; padding: 16px 20px; margin: 16px 0;
          box-shadow: 0 1px 3px rgba(0,0,0,.08); }
h2 { font-size: 17px; margin: 0 0 12px 0; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid #eef0f4; vertical-align: top; }
th { color: #57606f; font-weight: 600; background: #fafbfc; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.bad { color: #c0392b; } .muted { color: #8395a7; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 12px; }
.card { border: 1px solid #eef0f4; border-radius: 6px; padding: 8px 10px; }
.card h3 { font-size: 13px; margin: 0 0 4px 0; }
.card p { font-size: 12px; margin: 0 0 4px 0; color: #57606f; }
.reason { max-width: 640px; color: #2f3542; }
.pill { display: inline-block; padding: 1px 7px; border-radius: 9px; font-size: 11px; background: #eef0f4; }
.cut { color: #8395a7; font-size: 11px; }
"""


def render_html(rows: Sequence[Mapping[str, Any]], *, title: str = "rageval report", worst: int = 10) -> str:
    """Render result rows (as ``rageval evaluate`` writes them) as one HTML page (bounded: see the module)."""
    summaries = summarize(rows)
    scores = [s.name for s in summaries]
    judges = Counter(
        str(info.get("judge")) for row in rows for info in (row.get("details") or {}).values()
        if isinstance(info, Mapping) and info.get("judge")
    )  # fmt: skip
    judge_names = ", ".join(_cut(name, _NAME_CHARS) for name in list(judges)[:MAX_JUDGES]) or "unknown"
    if len(judges) > MAX_JUDGES:
        judge_names += f" and {len(judges) - MAX_JUDGES} more"
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(_head(title, _NAME_CHARS))}</title><style>{_CSS}</style></head><body>",
        f"<header><h1>{_cut(title, _NAME_CHARS)}</h1><p>{len(rows)} rows · {len(scores)} scores · judge "
        f"{judge_names} · generated {generated}</p></header><main>",
        _summary_section(summaries),
    ]
    if all(name in scores for name in TRACE_METRICS):
        parts.append(_trace_profile(rows, summaries))
    view = reference_view(rows) if any(n in scores for n in ("faithfulness", "answer_relevance")) else {}
    if view:
        parts.append(_reference_section(view))
    parts.append(_distributions(rows, [s for s in summaries if s.name not in _SKIP_DISTRIBUTION][:MAX_SCORES]))
    parts.append(_worst_rows(rows, scores, min(worst, MAX_WORST)))
    parts.append(_problems(rows))
    parts.append("</main></body></html>")
    return "\n".join(p for p in parts if p)


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _head(value: Any, limit: int) -> str:
    """The text's first ``limit`` characters, an ellipsis after them when it is longer (plain text)."""
    text = str(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _cut(value: Any, limit: int) -> str:
    """Escaped HTML of the text, cut after ``limit`` characters with an ellipsis and how much was cut."""
    text = str(value)
    if len(text) <= limit:
        return _e(text)
    return f"{_e(text[:limit])}…<span class='cut'> ({len(text) - limit:,} characters cut)</span>"


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _summary_section(summaries: Sequence[Any]) -> str:
    body = []
    for s in summaries[:MAX_SCORES]:
        total = s.ok + s.undetermined + s.error
        flags = ' class="num bad"' if s.error else ' class="num"'
        body.append(
            f"<tr><td>{_cut(s.name, _NAME_CHARS)}</td><td class='num'><b>{_fmt(s.mean)}</b></td>"
            f"<td class='num'>{s.ok}</td>"
            f"<td class='num'>{s.undetermined}</td><td{flags}>{s.error}</td><td>{_bar(s.mean)}</td>"
            f"<td class='num muted'>{total}</td></tr>"
        )
    head = (
        "<tr><th>score</th><th>mean (ok rows)</th><th>ok</th><th>undetermined</th><th>error</th><th></th>"
        "<th>rows</th></tr>"
    )
    note = "<p class='muted'>Means leave undetermined and error rows out; they are counted beside.</p>"
    if len(summaries) > MAX_SCORES:
        note += f"<p class='muted'>{len(summaries) - MAX_SCORES} more scores not shown.</p>"
    return f"<section><h2>Summary</h2><table>{head}{''.join(body)}</table>{note}</section>"


def _bar(value: float | None, width: int = 160) -> str:
    if value is None or not math.isfinite(value):
        return "<span class='muted'>no ok rows</span>"
    filled = max(0.0, min(1.0, value)) * width
    return (
        f"<svg width='{width}' height='10' role='img' aria-label='{value:.3f}'>"
        f"<rect width='{width}' height='10' rx='3' fill='#eef0f4'/>"
        f"<rect width='{filled:.1f}' height='10' rx='3' fill='#3867d6'/></svg>"
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


def _distributions(rows: Sequence[Mapping[str, Any]], summaries: Sequence[Any]) -> str:
    cards = []
    for i, s in enumerate(summaries):
        values = _values(rows, s.name)
        if not values:
            continue
        median = sorted(values)[len(values) // 2]
        cards.append(
            f"<div class='card'><h3>{_cut(s.name, _NAME_CHARS)}</h3><p>mean {_fmt(s.mean)} · median {median:.3f} · "
            f"{len(values)} ok</p>{_histogram(values, _COLOURS[i % len(_COLOURS)])}</div>"
        )
    if not cards:
        return ""
    return f"<section><h2>Score distributions</h2><div class='grid'>{''.join(cards)}</div></section>"


def _trace_profile(rows: Sequence[Mapping[str, Any]], summaries: Sequence[Any]) -> str:
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
            (_head(group, 40), {n: (sum(v) / len(v) if (v := groups[group].get(n)) else None) for n in TRACE_METRICS})
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
            f"<text x='{legend_x + 14}' y='{legend_y + 9}' font-size='11' fill='#2f3542'>{_e(label)}</text>"
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
                f"fill='{_COLOURS[k % len(_COLOURS)]}'><title>{_e(label)} {name}: {value:.3f}</title></rect>"
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


def _reference_section(view: Mapping[str, Any]) -> str:
    body = "".join(
        f"<tr><td>{_e(k)}</td><td class='num'>{_e('–' if v is None else v)}</td></tr>" for k, v in view.items()
    )
    return (
        "<section><h2>RAGAS / GraphRAG view</h2><p class='muted'>The reference document's names, 0–100.</p>"
        f"<table><tr><th>name</th><th>value</th></tr>{body}</table></section>"
    )


def _worst_rows(rows: Sequence[Mapping[str, Any]], scores: Sequence[str], limit: int) -> str:
    focus = [n for n in ("adherence_probability", "faithfulness", "average", "factual_accuracy") if n in scores]
    focus = focus or [n for n in scores if n not in _SKIP_DISTRIBUTION][:1]
    if not focus:
        return ""
    name = focus[0]
    ranked = sorted(
        (row for row in rows if (row.get("status") or {}).get(name) == "ok"),
        key=lambda row: row["scores"][name],
    )[:limit]
    if not ranked:
        return ""
    body = []
    for row in ranked:
        reason = _why(row, name)
        others = _head(
            ", ".join(
                f"{_head(k, 40)} {_fmt(v, 2)}"
                for k, v in (row.get("scores") or {}).items()
                if k != name and v is not None
            ),
            220,
        )
        body.append(
            f"<tr><td>{_cut(row.get('id'), _NAME_CHARS)}</td><td class='num'><b>{row['scores'][name]:.3f}</b></td>"
            f"<td class='reason'>{_cut(reason, _REASON_CHARS)}<br><span class='muted'>{_e(others)}</span></td></tr>"
        )
    return (
        f"<section><h2>Worst rows by {_cut(name, _NAME_CHARS)}</h2><table><tr><th>id</th><th>{_e(_head(name, 40))}</th>"
        f"<th>the judge's reason · other scores</th></tr>{''.join(body)}</table></section>"
    )


def _why(row: Mapping[str, Any], name: str) -> str:
    """The row's reason for ``name``; for an aggregate, the reasons of its two lowest parts."""
    reasons = row.get("reason") or {}
    if name == "adherence_probability":  # a bare probability: the adherence verdict says which sentences
        return str(reasons.get("adherence", ""))
    parts = _AGGREGATE_PARTS.get(name)
    if parts is None:
        return str(reasons.get(name, ""))
    scored = sorted((row["scores"][p], p) for p in parts if isinstance((row.get("scores") or {}).get(p), (int, float)))
    return " · ".join(f"{p}: {reasons.get(p, '')}" for _, p in scored[:2])


def _problems(rows: Sequence[Mapping[str, Any]]) -> str:
    reasons: Counter[tuple[str, str]] = Counter()
    for row in rows:
        for name, status in (row.get("status") or {}).items():
            if status != "ok":
                reasons[(status, (row.get("reason") or {}).get(name, "") or "no reason given")] += 1
    if not reasons:
        return "<section><h2>Undetermined and failed scores</h2><p>None: every score was determined.</p></section>"
    body = "".join(
        f"<tr><td><span class='pill'>{_cut(status, 20)}</span></td><td class='num'>{count}</td>"
        f"<td class='reason'>{_cut(reason, 300)}</td></tr>"
        for (status, reason), count in reasons.most_common(15)
    )
    return (
        "<section><h2>Undetermined and failed scores</h2><table><tr><th>status</th><th>scores</th>"
        f"<th>reason</th></tr>{body}</table></section>"
    )
