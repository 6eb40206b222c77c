"""`rageval report`: the summary on stdout and a self-contained, escaped HTML page."""

from __future__ import annotations

import json
import re
from pathlib import Path

from rageval_lc.cli import main
from rageval_lc.reports.html import render_html

ROWS = [
    {
        "id": "covidqa_validation:1:gpt",
        "scores": {"context_relevance": 0.5, "context_utilization": 0.25, "completeness": 0.5, "adherence": 1.0,
                   "average": 0.5625},
        "status": {"context_relevance": "ok", "context_utilization": "ok", "completeness": "ok", "adherence": "ok",
                   "average": "ok"},
        "reason": {"context_utilization": "1 utilized sentence over 4.", "completeness": "1 of 2 used.",
                   "adherence": "All supported."},
    },
    {
        "id": "hotpotqa_validation:2:gpt",
        "scores": {"context_relevance": 0.1, "context_utilization": 0.0, "completeness": 0.0, "adherence": None,
                   "average": None},
        "status": {"context_relevance": "ok", "context_utilization": "ok", "completeness": "ok",
                   "adherence": "undetermined", "average": "undetermined"},
        "reason": {"adherence": "No verdict for b <script>alert(1)</script>", "average": "Needs all four."},
    },
]  # fmt: skip


def test_render_html_is_self_contained_and_escaped() -> None:
    page = render_html(ROWS, title="run <1>")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<script" not in page and "&lt;script&gt;" in page and "run &lt;1&gt;" in page
    assert not re.search(r"""(src|href)=["']https?://""", page)  # nothing fetched from the network
    for heading in ("Summary", "TRACe profile", "Score distributions", "Worst rows by average", "Undetermined"):
        assert heading in page
    # per-dataset bars of the TRACe profile, named without the split suffix
    assert "covidqa context_relevance: 0.500" in page and "hotpotqa context_relevance: 0.100" in page
    # the undetermined adherence is counted, not drawn as a zero
    assert "hotpotqa adherence" not in page


def test_report_command(tmp_path: Path, capsys) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text("\n".join(json.dumps(r) for r in ROWS) + "\nnot json\n", encoding="utf-8")
    page = tmp_path / "report.html"
    assert main(["report", str(results), "--html", str(page), "--title", "demo"]) == 0
    captured = capsys.readouterr()
    # mean of 0.5 and 0.1 over 2 ok rows; a resample's mean is 0.1, 0.3 or 0.5 (chances 1/4, 1/2, 1/4): 95% CI
    assert "context_relevance    0.300  [0.100, 0.500]   2" in captured.out
    assert "adherence            1.000  [1.000, 1.000]   1             1" in captured.out  # one ok row
    assert "1 line skipped" in captured.err
    assert "<title>demo</title>" in page.read_text(encoding="utf-8")
    assert main(["report", str(tmp_path / "missing.jsonl")]) == 2


def _crafted_rows(count: int, size: int) -> list[dict]:
    """Rows whose ids, reasons, score names and judge names are each ``size`` characters or more."""
    rows = []
    for i in range(count):
        extra = {f"{i}-{k}-" + "s" * size: 0.5 for k in range(40)}  # 40 score names of its own per row
        scores = {
            "context_relevance": 0.1 * (i % 10),
            "context_utilization": 0.2,
            "completeness": 0.3,
            "adherence": 0.0,
            "average": 0.01 * i,
            **extra,
        }
        rows.append({
            "id": f"{i:02d}" + "d" * size + f":{i}:" + "i" * size,
            "scores": scores,
            "status": {**dict.fromkeys(scores, "ok"), "adherence": "undetermined"},
            "reason": {name: f"{i:02d} " + "r" * size + " TAIL" for name in scores},
            "details": {"trace": {"judge": f"judge-{i}-" + "j" * size}},
        })  # fmt: skip
    return rows


def test_html_page_is_bounded_and_long_text_is_cut_visibly() -> None:
    rows = _crafted_rows(30, 100_000)
    page = render_html(rows, title="t" * 100_000)
    assert len(page.encode("utf-8")) < 300_000  # the bound stated in render_html's docstring
    assert "…" in page  # the cut shows
    assert "characters cut" in page
    assert rows[0]["id"][:80] in page and rows[0]["id"] not in page  # the id's head is kept, its bulk is not
    assert " TAIL" not in page  # no reason is shown whole
    assert page.rstrip().endswith("</html>")
    # many worst rows asked for: still bounded
    assert len(render_html(_crafted_rows(300, 20_000), worst=10_000).encode("utf-8")) < 300_000


def test_html_short_text_is_not_cut() -> None:
    page = render_html(ROWS, title="run")
    assert "…" not in page and "characters cut" not in page
    assert "covidqa_validation:1:gpt" in page


def test_worst_row_reason_of_an_aggregate_names_its_two_lowest_parts() -> None:
    from rageval_lc.reports.html import _why

    row = {
        "scores": {"faithfulness": 0.9, "context_precision": 0.8, "context_recall": 0.7, "answer_relevance": 0.1,
                   "ragas_score": 0.61, "context_relevance": 0.2, "context_utilization": 0.4, "completeness": 0.3,
                   "adherence": 1.0, "average": 0.475},
        "reason": {"faithfulness": "F", "context_precision": "P", "context_recall": "R",
                   "answer_relevance": "off-topic", "context_relevance": "CR", "context_utilization": "CU",
                   "completeness": "C", "adherence": "A"},
    }  # fmt: skip
    # the RAGAS composite's parts are the four it weighs (answer relevance 0.3 among them): 0.1 and 0.7 lowest
    assert _why(row, "ragas_score") == "answer_relevance: off-topic · context_recall: R"
    # TRACe's average: relevance 0.2 and completeness 0.3 lowest
    assert _why(row, "average") == "context_relevance: CR · completeness: C"
