"""A self-contained HTML report of a results file: what needs a look first, then the whole run.

The page opens on the summary (each mean with its bootstrap 95 % interval, drawn on its bar), the rows the judge
found contradicted by their documents, and the worst rows by each score (one folded table per score that adds a
row to the tables before it, the first open; ``worst_by`` picks the scores), each row with its question, answer
and the judge's reason; then the undetermined and failed scores by reason, the TRACe profile, the RAGAS /
GraphRAG view and the distributions.

Everything is inline (CSS and SVG; no script, no network), so the file can be mailed or archived. Charts
are drawn from the numbers (:mod:`~rageval_lc.reports.charts`); undetermined and failed rows are counted, never
drawn as zeros. The intervals are seeded, so the same results give the same page (but for its "generated" time);
the page's frame is the one every report shares (:mod:`~rageval_lc.reports.page`).

Long texts are cut at a word boundary with an ellipsis, the full text one click away (``<details>``). The page
is bounded whatever the rows hold: a full text shows at most :data:`FULL_CHARS` characters (names, as ids,
:data:`~rageval_lc.reports.page.NAME_CHARS`), saying how many are cut (the results file keeps them whole); at
most :data:`MAX_SCORES` scores, :data:`MAX_WORST` rows per list and 15 kinds of problems are shown, and the lists
stop at :data:`LIST_BUDGET` characters of HTML, naming the scores left out; so a page stays under 300 KB.

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

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rageval_lc.metrics.ragas_score import RAGAS_WEIGHTS
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
from rageval_lc.reports.charts import distributions_section, mean_bar, trace_profile_section
from rageval_lc.reports.page import BASE_CSS, NAME_CHARS, cut_html, cut_text, escape, format_number, render_page
from rageval_lc.reports.stats import DEFAULT_RESAMPLES
from rageval_lc.reports.summary import reference_view, summarize
from rageval_lc.text import plural

if TYPE_CHECKING:
    from rageval_lc.reports.labelled import LabelledSummary

__all__ = ["FULL_CHARS", "LIST_BUDGET", "MAX_SCORES", "MAX_WORST", "render_html"]

#: The parts of each aggregate score, whose reasons explain it.
_AGGREGATE_PARTS = {"average": TRACE_METRICS, "ragas_score": tuple(RAGAS_WEIGHTS)}
#: Scores whose own reason is a definition; the verdict they come from says why.
_REASON_FROM = {"adherence_probability": "adherence", "adherence_ratio": "adherence"}
_SKIP_DISTRIBUTION = {"rmse_aggregation"}  # a spread, not a quality score
MAX_SCORES = 40  # scores in the summary table, the distributions and the worst-row lists
MAX_WORST = 50  # rows per list, whatever ``worst`` asks
MAX_JUDGES = 5  # judge names in the header
FULL_CHARS = 3000  # a question, answer or reason shown whole (beyond: cut, with the count)
LIST_BUDGET = 120_000  # characters of HTML for the contradiction and worst-row lists together
_PREVIEW = {"question": 160, "answer": 260, "reason": 260}  # characters before "show all"
_NUM_CELL = " class='num'"

_CSS = (
    BASE_CSS
    + """
.bad { color: #c0392b; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 12px; }
.card { border: 1px solid #eef0f4; border-radius: 6px; padding: 8px 10px; }
.card h3 { font-size: 13px; margin: 0 0 4px 0; }
.card p { font-size: 12px; margin: 0 0 4px 0; color: #57606f; }
.reason { color: #2f3542; }
.pill { display: inline-block; padding: 1px 7px; border-radius: 9px; font-size: 11px; background: #eef0f4; }
.ci { color: #57606f; font-weight: normal; }
details.list > summary .muted { font-weight: normal; font-size: 12px; }
details.more > summary { cursor: pointer; list-style: none; }
details.more > summary::-webkit-details-marker { display: none; }
details.more > summary .toggle { color: #3867d6; font-size: 11px; white-space: nowrap; }
details.more[open] > summary .preview, details.more:not([open]) > summary .hide,
details.more[open] > summary .show { display: none; }
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
    labelled: LabelledSummary | None = None,
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
        labelled: the run's summary with labelled rows (:func:`~rageval_lc.reports.labelled.labelled_summary`):
            a section after the summary draws each labelled score's judge mean, labels-only and prediction-powered
            intervals.

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
    judge_names = ", ".join(cut_html(name, NAME_CHARS) for name in list(judges)[:MAX_JUDGES]) or "unknown"
    if len(judges) > MAX_JUDGES:
        judge_names += f" and {len(judges) - MAX_JUDGES} more"
    parts = [_summary_section(summaries, n_resamples, seed)]
    if labelled is not None:
        from rageval_lc.reports.labelled_html import labelled_section

        parts.append(labelled_section(labelled))
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
        parts.append(trace_profile_section(rows, summaries))
    view = reference_view(rows) if any(n in scores for n in ("faithfulness", "answer_relevance")) else {}
    if view:
        parts.append(_reference_section(view))
    parts.append(distributions_section(rows, [s for s in summaries if s.name not in _SKIP_DISTRIBUTION][:MAX_SCORES]))
    facts = f"{len(rows)} rows · {len(scores)} scores · judge {judge_names}"
    return render_page(title, cut_html(title, NAME_CHARS), facts, _CSS, parts)


def _chosen_scores(worst_by: str | Sequence[str] | None, scores: Sequence[str]) -> list[str]:
    """The scores to list worst rows by: those asked (checked), else the run's, aggregates first."""
    if worst_by is None:
        aggregates = [name for name in _AGGREGATE_PARTS if name in scores]
        return aggregates + [name for name in scores if name not in aggregates]
    asked = [worst_by] if isinstance(worst_by, str) else list(worst_by)
    unknown = [name for name in asked if name not in scores]
    if unknown or not asked:
        have = ", ".join(cut_text(name, 40) for name in scores[:MAX_SCORES]) or "none"
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
        return f"<span class='muted'>{escape(missing)}</span>" if missing else ""
    flat = re.sub(r"\s+", " ", value).strip()
    limit = _PREVIEW[kind]
    if len(flat) <= limit:
        return escape(flat)
    full = escape(value[:FULL_CHARS])
    if len(value) > FULL_CHARS:
        full += f"…<span class='cut'> ({len(value) - FULL_CHARS:,} characters cut; the results file keeps them)</span>"
    return (
        f"<details class='more'><summary><span class='preview'>{escape(_head_words(flat, limit))}</span> "
        f"<span class='toggle show'>show all ({len(value):,} characters)</span><span class='toggle hide'>hide</span>"
        f"</summary><div class='full'>{full}</div></details>"
    )


def _summary_section(summaries: Sequence[Any], n_resamples: int, seed: int) -> str:
    body = []
    for s in summaries[:MAX_SCORES]:
        total = s.ok + s.undetermined + s.error
        flags = ' class="num bad"' if s.error else ' class="num"'
        low, high = s.ci_low, s.ci_high
        interval = "" if low is None else f" <span class='ci'>[{low:.3f}, {high:.3f}]</span>"
        body.append(
            f"<tr><td>{cut_html(s.name, NAME_CHARS)}</td><td class='num'><b>{format_number(s.mean)}</b>{interval}</td>"
            f"<td>{mean_bar(s.mean, low, high)}</td><td class='num'>{s.ok}</td>"
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


def _reference_section(view: Mapping[str, Any]) -> str:
    body = "".join(
        f"<tr><td>{escape(k)}</td>"
        f"<td{_NUM_CELL if not isinstance(v, str) else ''}>{escape('–' if v is None else v)}</td></tr>"
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
    where = f"<br><span class='muted'>line {escape(line)}</span>" if isinstance(line, int) and named else ""
    return f"<td class='text'>{cut_html(label, NAME_CHARS)}{where}</td>"


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
    shown = "<span class='muted'>(empty answer)</span>" if answer is not None and not answer.strip() else None
    shown = shown or _text(answer, "answer", missing="not in the results row")
    return f"{question}<td class='text'>{note}{shown}</td>"


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
            left_out.append(f"{cut_html(name, NAME_CHARS)} (no ok rows)")
            continue
        if not asked and all(id(row) in listed for row in ranked):
            repeats.append(cut_html(name, NAME_CHARS))
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
            f"<details class='list'{opened}><summary>Worst rows by {cut_html(name, NAME_CHARS)} "
            f"<span class='muted'>{plural(len(ranked), 'row')}, {order}</span></summary>"
            f"{_list_table(escape(cut_text(name, 40)), 'the judge&#x27;s reason', body, questions=questions)}</details>"
        )
        if budget.take(table):
            tables.append(table)
            listed.update(id(row) for row in ranked)
        else:
            left_out.append(f"{cut_html(name, NAME_CHARS)} (the page's size bound; ask for it with --worst-by)")
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
            f"{'flagged' if c.flagged else 'in the reason'}</span> <b>{escape(cut_text(c.response_key, 20))}</b> "
            f"{_text(c.sentence, 'answer')}<br><span class='muted'>"
            + (
                f"contradicted by {escape(cut_text(', '.join(c.document_keys), 60)) or 'the documents'}"
                f"{': ' if c.conflict else ''}</span>{_text(c.conflict, 'reason')}"
                if c.flagged
                else f"the judge:</span> {_text(c.conflict, 'reason')}"
            )
            + "</div>"
            for c in listed[:10]
        )
        piece = (
            f"<tr>{_row_cell(row, index)}<td class='num'><b>{format_number(score)}</b></td>"
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
        f"<tr><td><span class='pill'>{cut_html(status, 20)}</span></td><td class='num'>{count}</td>"
        f"<td class='reason'>{cut_html(reason, 300)}</td></tr>"
        for (status, reason), count in reasons.most_common(15)
    )
    return (
        "<section><h2>Undetermined and failed scores</h2><table><tr><th>status</th><th>scores</th>"
        f"<th>reason</th></tr>{body}</table></section>"
    )
