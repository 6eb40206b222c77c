"""The RGB run report: accuracy against noise ratio (with Wilson intervals), every task, the wrong answers; drawn
from the rows ``rgb run --out`` writes, by ``RgbRun.to_html``, ``rgb run --html`` and ``rgb score --html``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rageval_lc.cli import main
from rageval_lc.reports.stats import wilson_interval
from rageval_lc.rgb.records import RgbRecord, build_documents
from rageval_lc.rgb.report import LIST_BUDGET, MAX_DOCUMENTS, MAX_RATIOS, MAX_WRONG, accuracy_points, render_rgb_html
from rageval_lc.rgb.run import run_rgb

REJECT = "I can not answer the question because of the insufficient information in documents."


def _row(task: str, ratio: float, prediction: str, answer="Ann", **extra) -> dict:
    return {"task": task, "noise_ratio": ratio, "query": "Who won?", "answer": answer, "prediction": prediction,
            "documents": ["Ann won.", "Rain fell."], **extra}  # fmt: skip


def _rows() -> list[dict]:
    """Noise robustness: 4 of 4 right at 0, 3 of 4 at 0.4, 1 of 4 at 0.8; rejection: 1 rejected, 1 not;
    counterfactual: 1 detected of 2."""
    rows = []
    for ratio, right in ((0.0, 4), (0.4, 3), (0.8, 1)):
        rows += [_row("noise_robustness", ratio, "Ann won." if i < right else f"Bob <{i}> won.") for i in range(4)]
    rows += [_row("negative_rejection", 1.0, REJECT), _row("negative_rejection", 1.0, "Bob won.")]
    rows += [
        _row("counterfactual_robustness", 0.0, "There are factual errors in the provided documents. Ann won.",
             counterfactual_answer="Bob"),
        _row("counterfactual_robustness", 0.0, "Bob won.", counterfactual_answer="Bob"),
    ]  # fmt: skip
    return rows


def test_accuracy_points_count_the_right_answers_per_ratio_with_wilson_intervals() -> None:
    points = accuracy_points(_rows())
    assert list(points) == ["noise_robustness"]  # rejection (ratio 1) and counterfactual (one ratio) are no curve
    assert [p.ratio for p in points["noise_robustness"]] == pytest.approx([0.0, 0.4, 0.8], abs=1e-12)
    assert [(p.correct, p.total) for p in points["noise_robustness"]] == [(4, 4), (3, 4), (1, 4)]
    assert [(p.low, p.high) for p in points["noise_robustness"]] == [wilson_interval(c, 4) for c in (4, 3, 1)]
    assert points["noise_robustness"][1].accuracy == pytest.approx(0.75, abs=1e-12)


def test_the_page_draws_each_point_lists_every_task_and_the_wrong_answers() -> None:
    page = render_rgb_html(_rows(), title="demo", model_name="my chain")
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page and "http" not in page.split("</head>")[1]
    assert "Accuracy against noise ratio" in page and "my chain" in page
    low, high = wilson_interval(3, 4)
    assert f"noise robustness at 0.4: 3 of 4 (75.0%), 95 % interval {100 * low:.1f}–{100 * high:.1f}%" in page
    assert page.count("<circle") == 3
    # the wrong answers: 0 + 1 + 3 below ratio 1, the unrejected one at 1, the undetected counterfactual
    assert "noise robustness at noise ratio 0.8: 3 of 4 wrong" in page
    assert "negative rejection at noise ratio 1: 1 of 2 wrong" in page
    assert "counterfactual robustness at noise ratio 0: 1 of 2 wrong" in page and "planted: Bob" in page
    assert "noise robustness at noise ratio 0:" not in page  # nothing wrong there: no list
    assert "Bob &lt;3&gt; won." in page  # escaped
    # the table: the counterfactual rows' accuracy (1 of 2 name Ann), detection (1 of 2) and correction (1 of the 1
    # detected); the rejection figure (rejected or right: 1 of 2)
    assert re.search(r"counterfactual_robustness_0%</td><td class=num>2</td><td class=num>50\.0</td>"
                     r"<td class=num>0\.0</td><td class=num>50\.0</td><td class=num>100\.0</td>", page)  # fmt: skip
    assert re.search(r"negative_rejection_100%</td><td class=num>2</td><td class=num>50\.0</td>", page)


def test_the_wrong_answer_lists_are_bounded() -> None:
    rows = [_row("noise_robustness", 0.2, f"wrong {i}") for i in range(MAX_WRONG + 7)]
    page = render_rgb_html(rows)
    assert f"{MAX_WRONG + 7} of {MAX_WRONG + 7} wrong" in page and "7 more not listed" in page
    assert f"wrong {MAX_WRONG - 1}<" in page and f"wrong {MAX_WRONG}<" not in page


def test_a_row_that_is_no_rgb_row_is_refused() -> None:
    with pytest.raises(KeyError, match="lacks"):
        render_rgb_html([{"task": "noise_robustness", "prediction": "x"}])


def _records() -> list[RgbRecord]:
    """Eight questions, each with five positives and five negatives."""
    return [
        RgbRecord(id=i, query=f"Who won race {i}?", answer="Ann",
                  positive=[f"Ann won race {i} ({k})." for k in range(5)],
                  negative=[f"Rain fell on day {k} of race {i}." for k in range(5)])
        for i in range(8)
    ]  # fmt: skip


def _first_document(question: str, documents: list[str]) -> str:
    return documents[0]


def test_run_to_html_and_rgb_score_html_draw_the_same_page(tmp_path: Path, capsys) -> None:
    """A run's rows carry the answer, so ``rgb score`` reads a run's --out file and draws the page the run drew."""
    run = run_rgb(_first_document, _records(), noise_ratios=[0.0, 0.8], progress=False)
    assert run.rows[0]["answer"] == "Ann" and "counterfactual_answer" in run.rows[0]
    out = tmp_path / "run.jsonl"
    out.write_text("".join(json.dumps(row) + "\n" for row in run.rows), encoding="utf-8")
    html = tmp_path / "report.html"
    assert main(["rgb", "score", str(out), "--html", str(html)]) == 0
    scored = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert scored == [r.to_dict() for r in run.results]

    def body(page: str) -> str:
        return page.split("</header>")[1]  # all but the generated time

    assert body(html.read_text(encoding="utf-8")) == body(run.to_html(title="run.jsonl"))
    assert main(["rgb", "score", str(out), "--html", str(out)]) == 2  # would overwrite its input
    assert "is the input file" in capsys.readouterr().err


def test_cli_rgb_run_writes_the_html_report(tmp_path: Path, capsys) -> None:
    data = tmp_path / "testbed.json"
    data.write_text("".join(r.model_dump_json() + "\n" for r in _records()), encoding="utf-8")
    html = tmp_path / "report.html"
    argv = ["rgb", "run", str(data), "--system", "tests.rgb.test_report:_first_document", "--no-progress"]
    assert main([*argv, "--noise-ratios", "0,0.8", "--html", str(html), "--model-name", "first document"]) == 0
    captured = capsys.readouterr()
    assert f"HTML report: {html}" in captured.err
    page = html.read_text(encoding="utf-8")
    # worked out apart from the run: the system is right where the benchmark's documents put the positive first
    for ratio in (0.0, 0.8):
        right = sum("Ann" in build_documents(record, ratio)[0] for record in _records())
        assert f"noise robustness at {ratio:g}: {right} of 8" in page
    assert "first document" in page


def test_the_noise_given_is_shown_and_a_filled_ratio_is_called_noisier_than_it_says(tmp_path: Path, capsys) -> None:
    """One positive per question: RGB's filling gives 4 negatives in 5 documents at ratio 0 (80 % noise, the page
    warns); ``--no-fill`` gives the positive alone at 0 and 4 negatives beside it at 0.8 (4 of 5)."""
    records = [
        RgbRecord(id=i, query=f"Who won race {i}?", answer="Ann", positive=[f"Ann won race {i}."],
                  negative=[f"Rain fell on day {k} of race {i}." for k in range(6)])
        for i in range(2)
    ]  # fmt: skip
    filled = run_rgb(_first_document, records, noise_ratios=[0.0, 0.8], progress=False)
    shares = [row["noise_share"] for row in filled.rows if row["task"] == "noise_robustness"]
    assert shares == pytest.approx([0.8] * 4, abs=1e-12)  # 4 of 5 documents
    page = filled.to_html()
    assert "Noisier than the ratio says:</b> at ratio 0 the documents held 80% noise" in page
    data = tmp_path / "testbed.json"
    data.write_text("".join(r.model_dump_json() + "\n" for r in records), encoding="utf-8")
    html = tmp_path / "report.html"
    argv = ["rgb", "run", str(data), "--system", "tests.rgb.test_report:_first_document", "--no-progress"]
    assert main([*argv, "--noise-ratios", "0,0.8", "--no-fill", "--html", str(html)]) == 0
    capsys.readouterr()
    page = html.read_text(encoding="utf-8")
    assert "Noisier than the ratio says" not in page
    shares = re.findall(r"noise robustness</td><td class='num'>([\d.]+)</td><td class='num'>(\d+)%</td>", page)
    assert shares == [("0", "0"), ("0.8", "80")]


def test_a_run_without_filling_is_not_called_noisier_than_it_says() -> None:
    """Without filling, one positive and ceil(5 r) negatives: 1 of 2 documents is noise at ratio 0.2 (50 %), as
    ``--no-fill`` means; the warning is about RGB's filling only."""
    records = [
        RgbRecord(id=0, query="Who won race 0?", answer="Ann", positive=["Ann won race 0."],
                  negative=[f"Rain fell on day {k}." for k in range(6)])
    ]  # fmt: skip
    run = run_rgb(_first_document, records, noise_ratios=[0.0, 0.2], fill=False, progress=False)
    assert [row["noise_share"] for row in run.rows[:2]] == pytest.approx([0.0, 0.5], abs=1e-12)
    assert all(row["filled"] is False for row in run.rows)
    page = run.to_html()
    assert "Noisier than the ratio says" not in page and "<td class='num'>50%</td>" in page


def test_lenient_scoring_lists_an_unrejected_right_answer_at_ratio_1_as_wrong() -> None:
    """Lenient negative rejection counts rejections only: the row is wrong in the table and in the list alike."""
    rows = [_row("negative_rejection", 1.0, "Ann won.")]
    assert "1 of 1 wrong" in render_rgb_html(rows, mode="lenient")
    assert "None: every question was answered" in render_rgb_html(rows, mode="official")


def test_the_page_stays_bounded_whatever_the_rows_hold() -> None:
    many_documents = [_row("noise_robustness", 0.0, "Bob.", documents=[f"doc {i} " + "x" * 3000 for i in range(1000)])]
    page = render_rgb_html(many_documents)
    assert f"{1000 - MAX_DOCUMENTS} more not shown" in page and len(page) < 100_000
    long_rows = [
        _row("noise_robustness", ratio / 100, f"wrong {i}", documents=["y" * 3000] * 5)
        for ratio in range(0, 100, 2)
        for i in range(30)
    ]
    page = render_rgb_html(long_rows)
    assert len(page) < LIST_BUDGET + 100_000 and "Not listed, to keep the page small" in page
    assert f"{50 - MAX_RATIOS} more noise ratios not drawn" in page
    odd = render_rgb_html([_row("noise_robustness", 0.0, "Bob.", documents="one long string", query=None)])
    assert "<li class='full'>o</li>" not in odd and "None" not in odd.split("<main>")[1]


def test_the_report_and_the_results_are_never_one_file(tmp_path: Path, capsys) -> None:
    data = tmp_path / "testbed.json"
    data.write_text("".join(r.model_dump_json() + "\n" for r in _records()), encoding="utf-8")
    same = tmp_path / "run.out"
    argv = ["rgb", "run", str(data), "--system", "tests.rgb.test_report:_first_document", "--no-progress"]
    assert main([*argv, "--out", str(same), "--html", str(same)]) == 2
    assert "is the --out file" in capsys.readouterr().err
