"""The frame every HTML report draws its page in: the page itself, its base CSS, and texts escaped and cut.

The run report (:mod:`~rageval_lc.reports.html`), the comparison of two runs
(:mod:`~rageval_lc.reports.compare_html`), the alignment report (:mod:`~rageval_lc.align.page`) and the RGB run's
page (:mod:`~rageval_lc.rgb.report`) share it, so their pages look alike and stay bounded: a name shows at most
:data:`NAME_CHARS` characters.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

__all__ = ["NAME_CHARS", "cut_html", "cut_text", "escape", "format_number", "render_page"]

NAME_CHARS = 80  # ids, score, judge and dataset names, the title

#: The page frame every report shares (header, sections, tables), and its text classes: ``muted``, ``cut`` (what
#: :func:`cut_html` writes), ``full`` and ``text`` (a whole text), ``details.list`` (a folded list).
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
.muted { color: #8395a7; } .cut { color: #8395a7; font-size: 11px; }
.full { white-space: pre-wrap; overflow-wrap: anywhere; } td.text { overflow-wrap: anywhere; }
details.list { border-top: 1px solid #eef0f4; padding: 6px 0; }
details.list > summary { cursor: pointer; font-weight: 600; font-size: 14px; padding: 4px 0; }
"""


def render_page(title: str, heading: str, facts: str, css: str, sections: Sequence[str]) -> str:
    """One self-contained page, as every report draws it: ``title`` (plain text, cut to :data:`NAME_CHARS` in the
    browser's tab), ``heading`` and ``facts`` (HTML: the ``h1`` and the line under it, which ends with when the
    page was generated), the ``css``, and the ``sections`` that are not empty, in order."""
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(cut_text(title, NAME_CHARS))}</title><style>{css}</style></head><body>",
        f"<header><h1>{heading}</h1><p>{facts} · generated {generated}</p></header><main>",
        *sections,
        "</main></body></html>",
    ]
    return "\n".join(p for p in parts if p)


def escape(value: Any) -> str:
    """The value as text, HTML-escaped (quotes too), to put in an element or an attribute."""
    return html.escape(str(value), quote=True)


def cut_text(value: Any, limit: int) -> str:
    """The text's first ``limit`` characters, an ellipsis after them when it is longer (plain text)."""
    text = str(value)
    return text if len(text) <= limit else text[:limit] + "…"


def cut_html(value: Any, limit: int) -> str:
    """Escaped HTML of the text, cut after ``limit`` characters with an ellipsis and how much was cut."""
    text = str(value)
    if len(text) <= limit:
        return escape(text)
    return f"{escape(text[:limit])}…<span class='cut'> ({len(text) - limit:,} characters cut)</span>"


def format_number(value: float | None, digits: int = 3) -> str:
    """The number with ``digits`` decimals, or a dash for None."""
    return "–" if value is None else f"{value:.{digits}f}"
