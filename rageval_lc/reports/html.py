"""A self-contained HTML report of a results file: what needs a look first, then the whole run.

The page opens on the summary (each mean with its bootstrap 95 % interval, drawn on its bar), the rows the judge
found contradicted by their documents, and the worst rows by each score (one folded table per score that adds a
row to the tables before it, the first open; ``worst_by`` picks the scores), each row with its question, answer
and the judge's reason; then the undetermined and failed scores by reason, the TRACe profile, the RAGAS /
GraphRAG view and the distributions.

Everything is inline (CSS and SVG; no script, no network), so the file can be mailed or archived. Charts
are drawn here from the numbers; undetermined and failed rows are counted, never drawn as zeros. The
intervals are seeded, so the same results give the same page (but for its "generated" time).

Long texts are cut at a word boundary with an ellipsis, the full text one click away (``<details>``). The page
is bounded whatever the rows hold: a full text shows at most :data:`FULL_CHARS` characters (names, as ids,
:data:`NAME_CHARS`), saying how many are cut (the results file keeps them whole); at most :data:`MAX_SCORES`
scores, :data:`MAX_WORST` rows per list and 15 kinds of problems are shown, and the lists stop at
:data:`LIST_BUDGET` characters of HTML, naming the scores left out; so a page stays under 300 KB.

Example:
    >>> rows = [{"id": "a", "scores": {"adherence": 1.0}, "status": {"adherence": "ok"}, "reason": {}},
    ...         {"id": "b", "scores": {"adherence": 0.0}, "status": {"adherence": "ok"}, "reason": {}}]
    >>> html = render_html(rows, title="demo")
    >>> html.startswith("<!DOCTYPE html>") and "adherence" in html and "<script" not in html
    True
    >>> "<b>0.500</b> <span class='ci'>[0.000, 1.000]</span>" in html  # the mean and its 95 % interval
    True
"""

from __future__ import annotations

import html
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from rageval_lc.metrics.ragas import RAGAS_WEIGHTS
from rageval_lc.metrics.trace import TRACE_METRICS
from rageval_lc.reports.attention import (
    HIGHER_IS_WORSE,
    contradictions,
    row_answer,
    row_label,
    row_question,
    score_value,
    worst_rows,
)
from rageval_lc.reports.stats import DEFAULT_RESAMPLES
from rageval_lc.reports.summary import reference_view, summarize
from rageval_lc.text import plural

__all__ = ["FULL_CHARS", "LIST_BUDGET", "MAX_SCORES", "MAX_WORST", "NAME_CHARS", "render_html"]

#: The parts of each aggregate score, whose reasons explain it.
_AGGREGATE_PARTS = {"average": TRACE_METRICS, "ragas_score": tuple(RAGAS_WEIGHTS)}
#: Scores whose own reason is a definition; the verdict they come from says why.
_REASON_FROM = {"adherence_probability": "adherence", "adherence_ratio": "adherence"}
_COLOURS = ("#3867d6", "#20bf6b", "#f7b731", "#eb3b5a", "#8854d0", "#0fb9b1", "#fa8231", "#4b6584")
_SKIP_DISTRIBUTION = {"rmse_aggregation"}  # a spread, not a quality score
MAX_SCORES = 40  # scores in the summary table, the distributions and the worst-row lists
MAX_WORST = 50  # rows per list, whatever ``worst`` asks
MAX_JUDGES = 5  # judge names in the header
NAME_CHARS = 80  # ids, score, judge and dataset names, the title
FULL_CHARS = 3000  # a question, answer or reason shown whole (beyond: cut, with the count)
LIST_BUDGET = 120_000  # characters of HTML for the contradiction and worst-row lists together
_PREVIEW = {"question": 160, "answer": 260, "reason": 260}  # characters before "show all"
_NUM_CELL = " class='num'"

#: The page frame the report and the comparison page share (header, sections, tables).
BASE_CSS = """
body { font-family: -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; margin: 0; color: #1e272e;
       background: #f5f6fa; }
header { background: #1e272e; color: #fff; padding: 20px 32px; }
header h1 { margin: 0 0 6px 0; font-size: 22px; }
header p { margin: 0; color: #d2dae2; font-size: 13px; }
main { padding: 16px 32px 40px 32px; max-width: 1280px; }
section { background: #fff; border-radius: 8px; padding: 16px 20px; margin: 16px 0;
          box-shadow: 0 1px 3px rgba(0,0,0,.08); }
h2 { font-size: 17px; margin: 0 0 12px 0; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid #eef0f4; vertical-align: top; }
th { color: #57606f; font-weight: 600; background: #fafbfc; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
"""

_CSS = (
    BASE_CSS
    + """
.bad { color: #c0392b; } .muted { color: #8395a7; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 12px; }
.card { border: 1px solid #eef0f4; border-radius: 6px; padding: 8px 10px; }
.card h3 { font-size: 13px; margin: 0 0 4px 0; }
.card p { font-size: 12px; margin: 0 0 4px 0; color: #57606f; }
.reason { color: #2f3542; }
.pill { display: inline-block; padding: 1px 7px; border-radius: 9px; font-size: 11px; background: #eef0f4; }
.cut { color: #8395a7; font-size: 11px; }
.ci { color: #57606f; font-weight: normal; }
details.list { border-top: 1px solid #eef0f4; padding: 6px 0; }
details.list > summary { cursor: pointer; font-weight: 600; font-size: 14px; padding: 4px 0; }
details.list > summary .muted { font-weight: normal; font-size: 12px; }
details.more > summary { cursor: pointer; list-style: none; }
details.more > summary::-webkit-details-marker { display: none; }
details.more > summary .toggle { color: #3867d6; font-size: 11px; white-space: nowrap; }
details.more[open] > summary .preview, details.more:not([open]) > summary .hide,
details.more[open] > summary .show { display: none; }
.full { white-space: pre-wrap; overflow-wrap: anywhere; }
td.text { overflow-wrap: anywhere; }
.conflict { margin: 2px 0; }
"""
)


def render_html(
    rows: Sequence[Mapping[str, Any]],
    *,
    title: str = "rageval report",
    worst: int = 10,
    worst_by: str | Sequence[str] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> str:
    """Render result rows (as ``rageval evaluate`` writes them) as one HTML page (bounded: see the module).

    Args:
        rows: the result rows; a row's ``question`` and ``response`` are shown when it carries them (see
            :func:`~rageval_lc.reports.attention.attach_inputs`), else the answer is pieced together from
            the judge's response sentences.
        title: the page's title.
        worst: rows per worst-row list (at most :data:`MAX_WORST`).
        worst_by: the scores to list worst rows by, each in its own table, all open; default: every score
            of the run with ``ok`` values (aggregates first), folded but the first, and only where the list adds a
            row: a score whose worst rows are all in the lists before it gets none (the page names it). Lowest
            values are worst, but for the scores in :data:`~rageval_lc.reports.attention.HIGHER_IS_WORSE`
            (``rmse_aggregation``: highest first).
        n_resamples, seed: the bootstrap of each mean's 95 % interval (0 resamples: no intervals).

    Raises:
        ValueError: If ``worst`` is not an int >= 1, or ``worst_by`` names a score the rows do not have.
    """
    if isinstance(worst, bool) or not isinstance(worst, int) or worst < 1:
        msg = f"The 'worst' parameter of render_html must be an int >= 1. Got {worst!r} instead."
        raise ValueError(msg)
    summaries = summarize(rows, n_resamples=n_resamples, seed=seed)
    scores = [s.name for s in summaries]
    chosen = _chosen_scores(worst_by, scores)
    judges = Counter(
        str(info.get("judge")) for row in rows for info in (row.get("details") or {}).values()
        if isinstance(info, Mapping) and info.get("judge")
    )  # fmt: skip
    judge_names = ", ".join(_cut(name, NAME_CHARS) for name in list(judges)[:MAX_JUDGES]) or "unknown"
    if len(judges) > MAX_JUDGES:
        judge_names += f" and {len(judges) - MAX_JUDGES} more"
    parts = [_summary_section(summaries, n_resamples, seed)]
    lists = _Budget(LIST_BUDGET)
    questions = any(row_question(row) is not None for row in rows)
    note = [] if questions else [_NO_QUESTIONS]  # said once, by the first list shown
    parts.append(_contradiction_section(rows, min(worst, MAX_WORST), lists, note, questions=questions))
    parts.append(
        _worst_section(
            rows, chosen, min(worst, MAX_WORST), lists, note, questions=questions, asked=worst_by is not None
        )
    )
    parts.append(_problems(rows))
    if all(name in scores for name in TRACE_METRICS):
        parts.append(_trace_profile(rows, summaries))
    view = reference_view(rows) if any(n in scores for n in ("faithfulness", "answer_relevance")) else {}
    if view:
        parts.append(_reference_section(view))
    parts.append(_distributions(rows, [s for s in summaries if s.name not in _SKIP_DISTRIBUTION][:MAX_SCORES]))
    facts = f"{len(rows)} rows · {len(scores)} scores · judge {judge_names}"
    return _page(title, _cut(title, NAME_CHARS), facts, _CSS, parts)


def _chosen_scores(worst_by: str | Sequence[str] | None, scores: Sequence[str]) -> list[str]:
    """The scores to list worst rows by: those asked (checked), else the run's, aggregates first."""
    if worst_by is None:
        aggregates = [name for name in _AGGREGATE_PARTS if name in scores]
        return aggregates + [name for name in scores if name not in aggregates]
    asked = [worst_by] if isinstance(worst_by, str) else list(worst_by)
    unknown = [name for name in asked if name not in scores]
    if unknown or not asked:
        have = ", ".join(_head(name, 40) for name in scores[:MAX_SCORES]) or "none"
        msg = f"The 'worst_by' parameter of render_html must name scores of the rows ({have}). Got {worst_by!r}."
        raise ValueError(msg)
    return list(dict.fromkeys(asked))


class _Budget:
    """How many characters of HTML the lists may still take."""

    def __init__(self, chars: int) -> None:
        self.left = chars

    def take(self, piece: str) -> bool:
        """Spend ``piece``'s length when it fits; False (nothing spent) when it does not."""
        if len(piece) > self.left:
            return False
        self.left -= len(piece)
        return True


def _page(title: str, heading: str, facts: str, css: str, sections: Sequence[str]) -> str:
    """One self-contained page, as every report draws it: ``title`` (plain text, cut to :data:`NAME_CHARS` in the
    browser's tab), ``heading`` and ``facts`` (HTML: the ``h1`` and the line under it, which ends with when the
    page was generated), the ``css``, and the ``sections`` that are not empty, in order."""
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(_head(title, NAME_CHARS))}</title><style>{css}</style></head><body>",
        f"<header><h1>{heading}</h1><p>{facts} · generated {generated}</p></header><main>",
        *sections,
        "</main></body></html>",
    ]
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


def _head_words(text: str, limit: int) -> str:
    """The text's first ``limit`` characters or fewer, cut at the last space within them (mid-word only when
    the first 60 % of them hold no space), with an ellipsis; the text itself when it is not longer.

    Example:
        >>> _head_words("The quick brown fox jumps", 12)
        'The quick…'
        >>> _head_words("short", 12)
        'short'
    """
    if len(text) <= limit:
        return text
    space = text.rfind(" ", 0, limit + 1)
    head = text[:space] if space >= 0.6 * limit else text[:limit]
    return head.rstrip(" ,;:-") + "…"


def _text(value: str | None, kind: str, *, missing: str = "") -> str:
    """Escaped HTML of a question, answer or reason: whole when short, else its head cut at a word boundary
    and the full text (at most :data:`FULL_CHARS`) in a ``<details>`` one click away."""
    if value is None or not value.strip():
        return f"<span class='muted'>{_e(missing)}</span>" if missing else ""
    flat = re.sub(r"\s+", " ", value).strip()
    limit = _PREVIEW[kind]
    if len(flat) <= limit:
        return _e(flat)
    full = _e(value[:FULL_CHARS])
    if len(value) > FULL_CHARS:
        full += f"…<span class='cut'> ({len(value) - FULL_CHARS:,} characters cut; the results file keeps them)</span>"
    return (
        f"<details class='more'><summary><span class='preview'>{_e(_head_words(flat, limit))}</span> "
        f"<span class='toggle show'>show all ({len(value):,} characters)</span><span class='toggle hide'>hide</span>"
        f"</summary><div class='full'>{full}</div></details>"
    )


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _summary_section(summaries: Sequence[Any], n_resamples: int, seed: int) -> str:
    body = []
    for s in summaries[:MAX_SCORES]:
        total = s.ok + s.undetermined + s.error
        flags = ' class="num bad"' if s.error else ' class="num"'
        low, high = s.ci_low, s.ci_high
        interval = "" if low is None else f" <span class='ci'>[{low:.3f}, {high:.3f}]</span>"
        body.append(
            f"<tr><td>{_cut(s.name, NAME_CHARS)}</td><td class='num'><b>{_fmt(s.mean)}</b>{interval}</td>"
            f"<td>{_bar(s.mean, low, high)}</td><td class='num'>{s.ok}</td>"
            f"<td class='num'>{s.undetermined}</td><td{flags}>{s.error}</td>"
            f"<td class='num muted'>{total}</td></tr>"
        )
    head = (
        "<tr><th>score</th><th>mean [95 % interval] (ok rows)</th><th></th><th>ok</th><th>undetermined</th>"
        "<th>error</th><th>rows</th></tr>"
    )
    interval = (
        f"The interval is the percentile bootstrap's ({n_resamples:,} resamples of the ok rows, seed {seed}): "
        "where the mean of another sample of rows like these would likely fall. The bar draws it (dark band) "
        "around the mean (tick)."
        if n_resamples
        else "No intervals (0 bootstrap resamples asked for)."
    )
    note = f"<p class='muted'>Means leave undetermined and error rows out; they are counted beside. {interval}</p>"
    few = [s.name for s in summaries[:MAX_SCORES] if 0 < s.ok < 10]
    if few:
        note += f"<p class='muted'>Under 10 ok rows ({len(few)} of these scores) an interval is rough.</p>"
    if len(summaries) > MAX_SCORES:
        note += f"<p class='muted'>{len(summaries) - MAX_SCORES} more scores not shown.</p>"
    return f"<section><h2>Summary</h2><table>{head}{''.join(body)}</table>{note}</section>"


def _bar(value: float | None, low: float | None = None, high: float | None = None, width: int = 160) -> str:
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


def _distributions(rows: Sequence[Mapping[str, Any]], summaries: Sequence[Any]) -> str:
    cards = []
    for i, s in enumerate(summaries):
        values = _values(rows, s.name)
        if not values:
            continue
        median = sorted(values)[len(values) // 2]
        cards.append(
            f"<div class='card'><h3>{_cut(s.name, NAME_CHARS)}</h3><p>mean {_fmt(s.mean)} · median {median:.3f} · "
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
        f"<tr><td>{_e(k)}</td><td{_NUM_CELL if not isinstance(v, str) else ''}>{_e('–' if v is None else v)}</td></tr>"
        for k, v in view.items()
    )  # a word (a grade, what a composite lacks) is text, not a number
    return (
        "<section><h2>RAGAS / GraphRAG view</h2><p class='muted'>The reference document's names, 0–100.</p>"
        f"<table><tr><th>name</th><th>value</th></tr>{body}</table></section>"
    )


def _row_cell(row: Mapping[str, Any], index: int) -> str:
    """The row's name (:func:`~rageval_lc.reports.attention.row_label`; ``index``: its place in the run) and,
    under an id, its input line."""
    line, label = row.get("line"), row_label(row, index)
    named = label != f"line {line}"
    where = f"<br><span class='muted'>line {_e(line)}</span>" if isinstance(line, int) and named else ""
    return f"<td class='text'>{_cut(label, NAME_CHARS)}{where}</td>"


def _list_table(score_header: str, reason_header: str, body: Sequence[str], *, questions: bool) -> str:
    """A list of rows: row, score, (question), answer, reason; the column widths fixed so lists align."""
    widths = (13, 6, 22, 30, 29) if questions else (14, 7, 0, 42, 37)
    cols = "".join(f"<col style='width:{w}%'>" for w in widths if w)
    question = "<th>question</th>" if questions else ""
    return (
        f"<table><colgroup>{cols}</colgroup><tr><th>row</th><th>{score_header}</th>{question}<th>answer</th>"
        f"<th>{reason_header}</th></tr>{''.join(body)}</table>"
    )


def _texts_cells(row: Mapping[str, Any], *, questions: bool) -> str:
    answer, pieced = row_answer(row)
    note = "<div class='cut'>(pieced from the judge's response sentences)</div>" if pieced else ""
    question = ""
    if questions:
        question = f"<td class='text'>{_text(row_question(row), 'question', missing='not in the results row')}</td>"
    return f"{question}<td class='text'>{note}{_text(answer, 'answer', missing='not in the results row')}</td>"


_NO_QUESTIONS = (
    "<p class='muted'>The results rows do not carry the questions: <code>rageval report RESULTS.jsonl --input "
    "INPUT.jsonl --html report.html</code> reads them (and the answers) from the input file the rows were "
    "scored from.</p>"
)


def _worst_section(
    rows: Sequence[Mapping[str, Any]],
    names: Sequence[str],
    limit: int,
    budget: _Budget,
    note: list[str],
    *,
    questions: bool,
    asked: bool,
) -> str:
    """One folded table per score (the first open) while the budget lasts, but none for a score whose worst rows
    are all in the tables before it (named instead); with ``asked`` (the scores were asked for), a table for every
    score, all open. ``note`` (said once in the page) is taken when a table is shown."""
    tables, left_out, repeats = [], [], []
    place = {id(row): index for index, row in enumerate(rows, start=1)}
    listed: set[int] = set()  # the rows in the tables so far
    for name in names[:MAX_SCORES]:
        ranked = worst_rows(rows, name, limit)
        if not ranked:
            left_out.append(f"{_cut(name, NAME_CHARS)} (no ok rows)")
            continue
        if not asked and all(id(row) in listed for row in ranked):
            repeats.append(_cut(name, NAME_CHARS))
            continue
        order = "highest first: higher is worse" if name in HIGHER_IS_WORSE else "lowest first"
        body = [
            f"<tr>{_row_cell(row, place[id(row)])}<td class='num'><b>{score_value(row, name):.3f}</b></td>"
            f"{_texts_cells(row, questions=questions)}<td class='text reason'>{_text(_why(row, name), 'reason')}</td>"
            "</tr>"
            for row in ranked
        ]
        opened = " open" if asked or not tables else ""
        table = (
            f"<details class='list'{opened}><summary>Worst rows by {_cut(name, NAME_CHARS)} "
            f"<span class='muted'>{plural(len(ranked), 'row')}, {order}</span></summary>"
            f"{_list_table(_e(_head(name, 40)), 'the judge&#x27;s reason', body, questions=questions)}</details>"
        )
        if budget.take(table):
            tables.append(table)
            listed.update(id(row) for row in ranked)
        else:
            left_out.append(f"{_cut(name, NAME_CHARS)} (the page's size bound; ask for it with --worst-by)")
    if len(names) > MAX_SCORES:
        left_out.append(f"{len(names) - MAX_SCORES} more scores")
    if not tables and not left_out:
        return ""
    missing = (
        f"<p class='muted'>Same rows as the lists above, so not listed again: {', '.join(repeats)} (ask for a "
        "score's list with --worst-by).</p>"
        if repeats
        else ""
    )
    missing += f"<p class='muted'>Not listed: {'; '.join(left_out)}.</p>" if left_out else ""
    intro = (
        "<p class='muted'>Per score, the rows that scored worst (ok rows only), with the judge's reason for that "
        "score; a score whose worst rows are all in the lists above it has no list of its own. Click a list to "
        "fold or unfold it, and a cut text to read it whole.</p>"
    )
    shown_note = note.pop() if note and tables else ""
    return f"<section><h2>Worst rows</h2>{intro}{shown_note}{''.join(tables)}{missing}</section>"


def _contradiction_section(
    rows: Sequence[Mapping[str, Any]], limit: int, budget: _Budget, note: list[str], *, questions: bool
) -> str:
    """The rows with contradicted sentences, flagged ones first; ``note`` is taken when a row is listed."""
    found = [(index, row, listed) for index, row in enumerate(rows, start=1) if (listed := contradictions(row))]
    found.sort(key=lambda item: not item[2][0].flagged)  # rows with a flagged contradiction first, else file order
    if not found:
        return (
            "<section><h2>Contradictions</h2><p>None found. <span class='muted'>(The offline judge records the "
            "response sentences the documents contradict; other judges record none.)</span></p></section>"
        )
    body = []
    for index, row, listed in found[:limit]:
        score = next((v for n in ("adherence", "faithfulness") if (v := score_value(row, n)) is not None), None)
        items = "".join(
            f"<div class='conflict'><span class='pill{' bad' if c.flagged else ''}'>"
            f"{'flagged' if c.flagged else 'in the reason'}</span> <b>{_e(_head(c.response_key, 20))}</b> "
            f"{_text(c.sentence, 'answer')}<br><span class='muted'>"
            + (
                f"contradicted by {_e(_head(', '.join(c.document_keys), 60)) or 'the documents'}"
                f"{': ' if c.conflict else ''}</span>{_text(c.conflict, 'reason')}"
                if c.flagged
                else f"the judge:</span> {_text(c.conflict, 'reason')}"
            )
            + "</div>"
            for c in listed[:10]
        )
        piece = (
            f"<tr>{_row_cell(row, index)}<td class='num'><b>{_fmt(score)}</b></td>"
            f"{_texts_cells(row, questions=questions)}"
            f"<td class='text reason'>{items}</td></tr>"
        )
        if not budget.take(piece):
            break
        body.append(piece)
    flagged = sum(any(c.flagged for c in listed) for _, _, listed in found)
    shown = f"{len(body)} of {len(found)}" if len(body) < len(found) else f"{len(found)}"
    intro = (
        f"<p class='muted'>{shown} row{'s' if len(found) != 1 else ''} with a response sentence the judge found "
        f"contradicted by the documents. <i>flagged</i> ({flagged} row{'s' if flagged != 1 else ''}): its "
        "verdict, the row is unsupported whatever the rest; <i>in the reason</i>: an NLI contradiction on a "
        "sentence it found unsupported, below its threshold for a verdict.</p>"
    )
    table = _list_table("adherence", "contradicted sentences", body, questions=questions)
    shown_note = note.pop() if note and body else ""
    return f"<section><h2>Contradictions</h2>{intro}{shown_note}{table}</section>"


def _why(row: Mapping[str, Any], name: str) -> str:
    """The row's reason for ``name``; for an aggregate, the reasons of its two lowest parts."""
    reasons = row.get("reason") or {}
    if name in _REASON_FROM:  # a bare probability or ratio: the adherence verdict says which sentences
        return str(reasons.get(_REASON_FROM[name], "") or reasons.get(name, ""))
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
