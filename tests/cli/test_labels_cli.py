"""``rageval report --labels``, ``rageval label-sample`` and ``rageval compare --labels``: what they print and write,
their figures worked out by hand (tests/reports/test_ppi.py::test_the_worked_example_by_hand), and their errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rageval_lc.cli import main

#: The worked example: 16 rows, the judge's verdicts; the first 8 labelled.
JUDGED = [1, 1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0]
TRUTH = [1, 1, 0, 0, 1, 0, 1, 0]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def results(path: Path, judged: list[int], prefix: str = "") -> Path:
    rows = [
        {"id": f"q{i}", "line": i + 1, "response": f"{prefix}answer {i}", "status": {"adherence": "ok"},
         "scores": {"adherence": float(v)}}
        for i, v in enumerate(judged)
    ]  # fmt: skip
    return write_jsonl(path, rows)


def test_report_with_labels_prints_the_worked_example(tmp_path: Path, capsys) -> None:
    scores = results(tmp_path / "scores.jsonl", JUDGED)
    labels = [{"id": f"q{i}", "labels": {"adherence": v}} for i, v in enumerate(TRUTH)]
    labels.append({"id": "q99", "labels": {"adherence": 1}})
    write_jsonl(tmp_path / "labelled.jsonl", labels)
    assert main(["report", str(scores), "--labels", str(tmp_path / "labelled.jsonl"), "--bootstrap", "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    start = out.index("Labels (labelled.jsonl): 8 labelled rows matched to scored rows; 8 scored rows without a label.")
    # by hand (tests/reports/test_ppi.py::test_the_worked_example_by_hand): Wilson's intervals, the judge's of 10 of
    # 16, the labels' of 4 of 8; PPI++ λ = 0.375, θ = 0.5, se² = (0.375²·0.234375 + 0.142333984375)/8, Wilson's at
    # 0.25/se² labels; worth 8·(0.25/8)/se² = 11.4
    assert out[start + 1 :] [:4] == [
        "  1 labelled but not scored (not in the run): q99",
        "score      labels  unlabelled  judge mean  judge 95% CI    labels mean  labels 95% CI   PPI++ mean  "
        "PPI++ 95% CI        λ  worth",
        "---------  ------  ----------  ----------  --------------  -----------  --------------  ----------  "
        "--------------  -----  -----",
        "adherence       8           8       0.625  [0.386, 0.815]        0.500  [0.215, 0.785]       0.500  "
        "[0.249, 0.751]  0.375     11",
    ]  # fmt: skip


def test_report_with_labels_writes_the_intervals_on_the_page(tmp_path: Path, capsys) -> None:
    scores = results(tmp_path / "scores.jsonl", JUDGED)
    rows = [{"id": f"q{i}", "labels": {"adherence": v}} for i, v in enumerate(TRUTH)]
    labels = write_jsonl(tmp_path / "l.jsonl", rows)
    page = tmp_path / "report.html"
    assert main(["report", str(scores), "--labels", str(labels), "--html", str(page), "--bootstrap", "0"]) == 0
    html = page.read_text(encoding="utf-8")
    assert "<b>0.500</b> <span class='ci'>[0.249, 0.751]</span>" in html
    assert "judge&#x27;s plain mean: 0.625 [0.386, 0.815]" in html


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"id": "q0", "labels": {"adherence": "maybe"}}\n', "labels.adherence must be a number"),
        ('{"id": "q0", "labels": {"relevance": 1}}\n', "the labels name no score of the run"),
    ],
)
def test_report_with_bad_labels_says_why_in_one_line(tmp_path: Path, capsys, content: str, message: str) -> None:
    scores = results(tmp_path / "scores.jsonl", JUDGED)
    (tmp_path / "l.jsonl").write_text(content, encoding="utf-8")
    assert main(["report", str(scores), "--labels", str(tmp_path / "l.jsonl")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rageval: error: ") and message in err[0]


def test_report_with_a_missing_labels_file(tmp_path: Path, capsys) -> None:
    scores = results(tmp_path / "scores.jsonl", JUDGED)
    assert main(["report", str(scores), "--labels", str(tmp_path / "none.jsonl")]) == 2
    assert "labels file not found" in capsys.readouterr().err


def test_label_sample_then_report(tmp_path: Path, capsys) -> None:
    scores = results(tmp_path / "scores.jsonl", JUDGED)
    out = tmp_path / "to_label.jsonl"
    assert main(["label-sample", str(scores), "--n", "8", "--seed", "2", "--out", str(out)]) == 0
    assert "rageval: 8 rows of 16 drawn (uniformly, seed 2)" in capsys.readouterr().err
    drawn = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [set(row) for row in drawn] == [{"id", "line", "response", "labels"}] * 8
    assert all(row["labels"] == {"adherence": None} for row in drawn)
    for row in drawn:  # the person labelling: here, the truth is the judge's verdict flipped on q3
        row["labels"]["adherence"] = JUDGED[row["line"] - 1] if row["id"] != "q3" else 0
    write_jsonl(out, drawn)
    assert main(["report", str(scores), "--labels", str(out), "--bootstrap", "0"]) == 0
    printed = capsys.readouterr().out
    assert "8 labelled rows matched to scored rows; 8 scored rows without a label." in printed


def test_label_sample_says_what_is_wrong(tmp_path: Path, capsys) -> None:
    scores = results(tmp_path / "scores.jsonl", JUDGED)
    assert main(["label-sample", str(scores), "--n", "17", "--out", str(tmp_path / "o.jsonl")]) == 2
    assert "--n 17 is more than the 16 rows with an ok score to label" in capsys.readouterr().err
    assert main(["label-sample", str(scores), "--n", "4", "--out", str(scores)]) == 2
    assert "is the results file" in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists()


def test_compare_with_labels_prints_the_difference(tmp_path: Path, capsys) -> None:
    run_a = results(tmp_path / "a.jsonl", [0] * 16, prefix="A ")
    run_b = results(tmp_path / "b.jsonl", JUDGED, prefix="B ")
    out = tmp_path / "to_label.jsonl"
    assert main(["label-sample", str(run_a), str(run_b), "--n", "16", "--out", str(out)]) == 0
    capsys.readouterr()
    drawn = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(row["id"], row["run"]) for row in drawn[:2]] == [("q0", "A"), ("q0", "B")]
    labelled = []
    for row in drawn:  # A is wrong everywhere (truth 0, judge 0); B's truth: TRUTH on the first 8 rows
        index = row["line"] - 1
        if index < 8:
            row["labels"]["adherence"] = 0 if row["run"] == "A" else TRUTH[index]
            labelled.append(row)
    write_jsonl(out, labelled)
    assert main(["compare", str(run_a), str(run_b), "--labels", str(out), "--bootstrap", "200"]) == 0
    printed = capsys.readouterr().out.splitlines()
    # B - A is B's own figures here (A is 0 everywhere, judged and true): the worked example's, with the normal
    # intervals a difference takes (test_ppi.py: θ ± 1.96·se)
    row = next(line for line in printed if line.startswith("adherence       8"))
    assert row.split() == [
        "adherence", "8", "8", "0.625", "[0.388,", "0.862]", "0.500", "[0.154,", "0.846]", "0.500", "[0.210,",
        "0.790]", "0.375", "11",
    ]  # fmt: skip
    assert main(["compare", str(run_a), str(run_b), "--labels", str(out), "--json", "--bootstrap", "200"]) == 0
    figures = json.loads(capsys.readouterr().out)["labelled"]["scores"]["adherence"]
    assert (figures["ci_low"], figures["ci_high"], figures["lam"]) == pytest.approx((0.2099, 0.7901, 0.375), abs=1e-4)


def test_the_command_is_listed() -> None:
    from rageval_lc.cli import build_parser

    assert "label-sample" in build_parser().format_help()


def test_label_sample_stratified_then_report(tmp_path: Path, capsys) -> None:
    rows = [
        {"id": f"{'covidqa' if i < 12 else 'hotpotqa'}_test:{i}:gpt-4", "line": i + 1, "status": {"adherence": "ok"},
         "scores": {"adherence": float(i % 3 != 0)}}
        for i in range(16)
    ]  # fmt: skip
    scores = write_jsonl(tmp_path / "scores.jsonl", rows)
    out = tmp_path / "to_label.jsonl"
    assert main(["label-sample", str(scores), "--n", "6", "--stratify-by", "dataset", "--out", str(out)]) == 0
    assert "6 rows of 16 drawn (stratified by dataset, seed 0)" in capsys.readouterr().err
    drawn = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(row["stratum"] for row in drawn) == ["covidqa"] * 3 + ["hotpotqa"] * 3
    for row in drawn:
        row["labels"]["adherence"] = 1
    write_jsonl(out, drawn)
    assert main(["report", str(scores), "--labels", str(out), "--bootstrap", "0"]) == 0
    printed = capsys.readouterr().out
    assert "Stratified by dataset: each stratum's estimate weighed by its share of the rows" in printed
