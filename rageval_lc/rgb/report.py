"""A self-contained HTML report of an RGB run: accuracy against noise ratio, the four abilities, the wrong answers.

The page opens on the chart RGB's paper draws: accuracy at each noise ratio, each point with its Wilson 95 %
interval (a few dozen questions per ratio leave wide intervals, and the page says so by drawing them), one line
per task run at several ratios (noise robustness; information integration). Then the table of every task and
ratio (accuracy, rejection, error detection and correction, as :meth:`~rageval_lc.rgb.run.RgbRun.report` prints
it), and the wrong answers of each task and ratio, each with its question, expected answer, the planted wrong
value where there is one, the system's answer and the documents it was given (folded).

The rows are those ``rageval rgb run --out`` writes (and :attr:`~rageval_lc.rgb.run.RgbRun.rows` holds): each
carries ``prediction``, ``answer``, ``task``, ``noise_ratio`` and ``counterfactual_answer``, so the page is drawn
from the answers, scored again under ``mode``. Inline CSS and SVG only (no script, no network); bounded whatever the
rows hold: at most :data:`MAX_RATIOS` ratios drawn, :data:`MAX_WRONG` wrong answers per task and ratio with at most
:data:`MAX_DOCUMENTS` documents each, each text cut at :data:`~rageval_lc.reports.html.FULL_CHARS`, and the lists
stop at :data:`LIST_BUDGET` characters of HTML, saying what they leave out.

Example:
    >>> rows = [{"id": f"en:{i}@{r:g}", "task": "noise_robustness", "noise_ratio": r, "query": "Who won?",
    ...          "answer": "Ann", "prediction": "Ann won." if i < 4 - 4 * r else "Bob won.", "documents": []}
    ...         for r in (0.0, 0.5) for i in range(4)]
    >>> page = render_rgb_html(rows, title="demo")
    >>> page.startswith("<!DOCTYPE html>") and "<script" not in page
    True
    >>> [(point.ratio, point.correct, point.total) for point in accuracy_points(rows)["noise_robustness"]]
    [(0.0, 4, 4), (0.5, 2, 4)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rageval_lc.reports.html import FULL_CHARS
from rageval_lc.reports.page import BASE_CSS, NAME_CHARS, cut_html, escape, render_page
from rageval_lc.reports.stats import wilson_interval
from rageval_lc.rgb.scoring import (
    RESULT_HEADERS,
    RESULT_LEGEND,
    RgbJudgement,
    RgbMode,
    RgbRow,
    judge_row,
    result_rows,
    score_rgb,
)

__all__ = [
    "LIST_BUDGET",
    "MAX_DOCUMENTS",
    "MAX_RATIOS",
    "MAX_WRONG",
    "AccuracyPoint",
    "accuracy_points",
    "render_rgb_html",
]

MAX_WRONG = 20  # wrong answers listed per task and noise ratio
MAX_DOCUMENTS = 10  # documents shown per wrong answer
MAX_RATIOS = 21  # noise ratios drawn per task (RGB runs 5; 0 to 1 by 0.05 is 21)
LIST_BUDGET = 250_000  # characters of HTML for the wrong-answer lists together
_CURVES = {"noise_robustness": "#3867d6", "information_integration": "#20bf6b"}  # tasks run at several ratios
_CSS = (
    BASE_CSS
    + """
.num { text-align: right; font-variant-numeric: tabular-nums; }
details.docs > summary { cursor: pointer; color: #3867d6; font-size: 12px; }
"""
)


@dataclass(frozen=True)
class AccuracyPoint:
    """One point of the chart: ``correct`` of ``total`` questions right at ``ratio``, with the Wilson interval, the
    mean share of noise the documents actually held (``noise_given``; None when the rows do not say), and whether
    they were filled up with negatives (``filled``; rows without a ``filled`` mark count as filled, RGB's way)."""

    ratio: float
    correct: int
    total: int
    low: float | None
    high: float | None
    noise_given: float | None = None
    filled: bool = True  # the documents were filled up with negatives, as RGB does (False: ``--no-fill``)

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0


def accuracy_points(
    rows: Sequence[Mapping[str, Any]], *, mode: RgbMode = "official", judgements: Sequence[RgbJudgement] | None = None
) -> dict[str, list[AccuracyPoint]]:
    """Per task run below noise ratio 1, its accuracy at each ratio (ratio order), scored under ``mode`` (or read
    from ``judgements``, one per row, when the rows were scored already).

    Raises:
        ValueError, TypeError, KeyError: If a row is not an RGB row (:meth:`~rageval_lc.rgb.scoring.RgbRow.from_dict`).
    """
    counts: dict[str, dict[float, list[int]]] = {}
    shares: dict[tuple[str, float], list[float]] = {}
    unfilled: set[tuple[str, float]] = set()
    scored_rows = [RgbRow.from_dict(dict(row)) for row in rows]
    judged = judgements if judgements is not None else [judge_row(scored, mode=mode) for scored in scored_rows]
    for row, scored, judgement in zip(rows, scored_rows, judged, strict=True):
        if scored.task not in _CURVES or scored.noise_ratio >= 1.0:
            continue
        tally = counts.setdefault(scored.task, {}).setdefault(scored.noise_ratio, [0, 0])
        tally[0] += judgement.correct
        tally[1] += 1
        share = row.get("noise_share")
        if isinstance(share, (int, float)) and not isinstance(share, bool):
            shares.setdefault((scored.task, scored.noise_ratio), []).append(float(share))
        if row.get("filled") is False:
            unfilled.add((scored.task, scored.noise_ratio))

    def given(task: str, ratio: float, total: int) -> float | None:
        values = shares.get((task, ratio), [])
        return sum(values) / len(values) if len(values) == total else None

    return {
        task: [
            AccuracyPoint(r, c, n, *wilson_interval(c, n), given(task, r, n), (task, r) not in unfilled)
            for r, (c, n) in sorted(by_ratio.items())
        ]
        for task, by_ratio in counts.items()
    }


def render_rgb_html(
    rows: Sequence[Mapping[str, Any]], *, title: str = "RGB run", mode: RgbMode = "official", model_name: str = ""
) -> str:
    """Render an RGB run's rows as one HTML page (see the module).

    Raises:
        ValueError, TypeError, KeyError: If a row is not an RGB row, or a task or noise ratio is unknown.
    """
    scored = [RgbRow.from_dict(dict(row)) for row in rows]
    results, judgements = score_rgb(scored, mode=mode, model_name=model_name)
    failures = sum(1 for row in rows if row.get("error"))
    facts = f"{len(rows)} questions asked · {mode} scoring"
    if model_name:
        facts += f" · system {cut_html(model_name, NAME_CHARS)}"
    if failures:
        facts += f" · {failures} calls failed (scored as empty answers)"
    parts = [
        _chart_section(accuracy_points(rows, judgements=judgements)),
        _table_section(results),
        _wrong_section(rows, judgements, mode),
    ]
    return render_page(title, cut_html(title, NAME_CHARS), facts, _CSS, parts)


def _chart_section(curves: Mapping[str, Sequence[AccuracyPoint]]) -> str:
    if not curves:
        return ""
    left_out = sum(max(0, len(points) - MAX_RATIOS) for points in curves.values())
    curves = {task: list(points)[:MAX_RATIOS] for task, points in curves.items()}
    width, height, left, right, top, bottom = 560, 260, 48, 28, 12, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    ratios = sorted({p.ratio for points in curves.values() for p in points})
    span = max(ratios[-1], 0.8)

    def x(ratio: float) -> float:
        return left + plot_w * ratio / span

    def y(share: float) -> float:
        return top + plot_h * (1 - share)

    svg = [f"<svg width='{width}' height='{height + 20}' role='img' aria-label='accuracy against noise ratio'>"]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        svg.append(f"<line x1='{left}' y1='{y(tick):.1f}' x2='{width - right}' y2='{y(tick):.1f}' stroke='#eef0f4'/>")
        svg.append(
            f"<text x='{left - 6}' y='{y(tick) + 4:.1f}' font-size='10' text-anchor='end' fill='#8395a7'>"
            f"{100 * tick:.0f}%</text>"
        )
    for ratio in ratios:
        svg.append(
            f"<text x='{x(ratio):.1f}' y='{height - bottom + 16}' font-size='11' text-anchor='middle' "
            f"fill='#2f3542'>{ratio:g}</text>"
        )
    svg.append(
        f"<text x='{left + plot_w / 2:.1f}' y='{height - 6}' font-size='11' text-anchor='middle' fill='#57606f'>"
        "noise ratio (share of the documents that are noise)</text>"
    )
    legend_x = left
    for k, (task, points) in enumerate(curves.items()):
        colour = _CURVES[task]
        dx = 7 * (k - (len(curves) - 1) / 2)  # the intervals of two curves side by side, not on top
        line = " ".join(f"{x(p.ratio):.1f},{y(p.accuracy):.1f}" for p in points)
        svg.append(f"<polyline points='{line}' fill='none' stroke='{colour}' stroke-width='2'/>")
        for p in points:
            label = f"{task.replace('_', ' ')} at {p.ratio:g}: {p.correct} of {p.total} ({100 * p.accuracy:.1f}%)"
            if p.low is not None and p.high is not None:
                label += f", 95 % interval {100 * p.low:.1f}–{100 * p.high:.1f}%"
                svg.append(
                    f"<line x1='{x(p.ratio) + dx:.1f}' y1='{y(p.low):.1f}' x2='{x(p.ratio) + dx:.1f}' "
                    f"y2='{y(p.high):.1f}' "
                    f"stroke='{colour}' stroke-opacity='.45' stroke-width='6'/>"
                )
            svg.append(
                f"<circle cx='{x(p.ratio):.1f}' cy='{y(p.accuracy):.1f}' r='4' fill='{colour}'>"
                f"<title>{escape(label)}</title></circle>"
            )
        name = task.replace("_", " ")
        svg.append(
            f"<rect x='{legend_x}' y='{height + 6}' width='10' height='10' fill='{colour}'/>"
            f"<text x='{legend_x + 14}' y='{height + 15}' font-size='11' fill='#2f3542'>{escape(name)}</text>"
        )
        legend_x += 30 + 7 * len(name)
    svg.append("</svg>")
    rows = "".join(
        f"<tr><td>{escape(task.replace('_', ' '))}</td><td class='num'>{p.ratio:g}</td>"
        f"<td class='num'>{'–' if p.noise_given is None else f'{100 * p.noise_given:.0f}%'}</td>"
        f"<td class='num'>{p.correct} of {p.total}</td><td class='num'>{100 * p.accuracy:.1f}%</td>"
        f"<td class='num'>{_interval(p)}</td></tr>"
        for task, points in curves.items()
        for p in points
    )
    table = (
        "<table><tr><th>task</th><th class='num'>noise ratio</th><th class='num'>noise given</th>"
        "<th class='num'>right</th><th class='num'>accuracy</th><th class='num'>95 % interval</th></tr>"
        f"{rows}</table>"
    )
    filled = [
        p
        for points in curves.values()
        for p in points
        if p.filled and p.noise_given is not None and p.noise_given > p.ratio + 0.1
    ]
    warning = ""
    if filled:
        p = filled[0]
        warning = (
            f"<p><b>Noisier than the ratio says:</b> at ratio {p.ratio:g} the documents held "
            f'{100 * p.noise_given:.0f}% noise on average ("noise given"): questions with fewer positives than the '
            f"documents need. RGB fills their documents up with negatives (<code>rageval rgb run</code>'s default); "
            "<code>--no-fill</code> sends fewer documents instead, so that ratio 0 is the positives alone and each "
            "step adds near misses beside them. Read accuracy against the noise given.</p>"
        )
    if left_out:
        warning += f"<p class='muted'>{left_out} more noise ratios not drawn (at most {MAX_RATIOS} per task).</p>"
    return (
        "<section><h2>Accuracy against noise ratio</h2><p class='muted'>Share of questions answered right at each "
        'noise ratio; the bands are Wilson 95 % intervals. "Noise given" is the mean share of the documents '
        f"that were negatives.</p>{warning}{''.join(svg)}{table}</section>"
    )


def _interval(point: AccuracyPoint) -> str:
    if point.low is None or point.high is None:
        return "–"
    return f"{100 * point.low:.1f}–{100 * point.high:.1f}%"


def _table_section(results: Sequence[Any]) -> str:
    body = []
    for r, (task, rows, *figures) in zip(results, result_rows(results), strict=True):
        name = escape(task) if r.noise_ratio is not None else f"<b>{escape(task)}</b> (all ratios)"
        cells = [name, str(rows), *("–" if f is None else f"{f:.1f}" for f in figures)]
        body.append(
            "<tr>" + "".join(f"<td{'' if i == 0 else ' class=num'}>{c}</td>" for i, c in enumerate(cells)) + "</tr>"
        )
    head = "".join(f"<th{'' if i == 0 else ' class=num'}>{h}</th>" for i, h in enumerate(RESULT_HEADERS))
    note = escape(RESULT_LEGEND)
    table = f"<table><tr>{head}</tr>{''.join(body)}</table>"
    return f"<section><h2>Every task</h2><p class='muted'>{note}</p>{table}</section>"


def _wrong_section(rows: Sequence[Mapping[str, Any]], judgements: Sequence[Any], mode: RgbMode) -> str:
    groups: dict[tuple[str, float], list[tuple[Mapping[str, Any], Any]]] = {}
    totals: dict[tuple[str, float], int] = {}
    for row, judgement in zip(rows, judgements, strict=True):
        key = (str(row["task"]), float(row.get("noise_ratio", 0.0)))
        totals[key] = totals.get(key, 0) + 1
        if not _right(str(row["task"]), judgement, mode):
            groups.setdefault(key, []).append((row, judgement))
    if not groups:
        return "<section><h2>Wrong answers</h2><p>None: every question was answered as the task asks.</p></section>"
    lists, budget, left = [], LIST_BUDGET, []
    for (task, ratio), wrong in sorted(groups.items()):
        name = f"{task.replace('_', ' ')} at noise ratio {ratio:g}"
        body = "".join(_wrong_row(row) for row, _ in wrong[:MAX_WRONG])
        more = "" if len(wrong) <= MAX_WRONG else f"<p class='muted'>{len(wrong) - MAX_WRONG} more not listed.</p>"
        piece = (
            f"<details class='list'><summary>{escape(name)}: {len(wrong)} of {totals[(task, ratio)]} wrong</summary>"
            f"<table><tr><th>question</th><th>expected</th><th>system's answer</th></tr>{body}</table>{more}</details>"
        )
        if len(piece) > budget:
            left.append(f"{name} ({len(wrong)} wrong)")
            continue
        budget -= len(piece)
        lists.append(piece)
    if left:
        lists.append(f"<p class='muted'>Not listed, to keep the page small: {escape('; '.join(left[:20]))}.</p>")
    what = (
        "A wrong answer: not right below noise ratio 1; at ratio 1 neither rejected nor right (lenient scoring: not "
        "rejected); on counterfactual documents, the error not detected. Each list shows at most "
        f"{MAX_WRONG}, each with at most {MAX_DOCUMENTS} of its documents."
    )
    return f"<section><h2>Wrong answers</h2><p class='muted'>{what}</p>{''.join(lists)}</section>"


def _right(task: str, judgement: Any, mode: RgbMode) -> bool:
    """Right as the table counts it: at ratio 1, rejected (official scoring: or answered right anyway)."""
    if task == "negative_rejection":
        return bool(judgement.rejected or (judgement.correct and mode == "official"))
    if task == "counterfactual_robustness":
        return bool(judgement.error_detected)
    return bool(judgement.correct)


def _answer_text(answer: Any) -> str:
    if isinstance(answer, str):
        return answer
    return "; ".join(element if isinstance(element, str) else " / ".join(map(str, element)) for element in answer)


def _documents(row: Mapping[str, Any]) -> list[str]:
    """A row's documents as texts (a string or anything but a list: none)."""
    documents = row.get("documents")
    return [str(d) for d in documents] if isinstance(documents, list) else []


def _wrong_row(row: Mapping[str, Any]) -> str:
    expected = cut_html(_answer_text(row["answer"]), FULL_CHARS)
    if row.get("counterfactual_answer"):
        expected += f"<br><span class='muted'>planted: {cut_html(row['counterfactual_answer'], NAME_CHARS)}</span>"
    documents = _documents(row)
    docs = "".join(f"<li class='full'>{cut_html(d, FULL_CHARS)}</li>" for d in documents[:MAX_DOCUMENTS])
    if len(documents) > MAX_DOCUMENTS:
        docs += f"<li class='muted'>{len(documents) - MAX_DOCUMENTS} more not shown</li>"
    folded = f"<details class='docs'><summary>{len(documents)} documents</summary><ol>{docs}</ol></details>"
    error = f"<br><span class='muted'>failed: {cut_html(row['error'], NAME_CHARS)}</span>" if row.get("error") else ""
    question = row.get("query") or ""
    return (
        f"<tr><td class='text'>{cut_html(question, FULL_CHARS)}{folded if documents else ''}</td>"
        f"<td class='text'>{expected}</td>"
        f"<td class='text full'>{cut_html(row['prediction'], FULL_CHARS)}{error}</td></tr>"
    )
