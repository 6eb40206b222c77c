"""`rageval gate` and rageval_lc.reports.gate: thresholds checked against means worked out by hand."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from rageval_lc.cli import main
from rageval_lc.reports.gate import Threshold, check_gate, parse_condition, parse_threshold

NO_REFERENCE = "No reference answer was given."


def row(row_id: str, **scores: float | str) -> dict:
    """A result row as `rageval evaluate --out` writes it; a string score is an undetermined one's reason
    (an "error: ..." string an error one's)."""
    status, values, reasons = {}, {}, {}
    for name, value in scores.items():
        if isinstance(value, str):
            status[name] = "error" if value.startswith("error: ") else "undetermined"
            values[name], reasons[name] = None, value.removeprefix("error: ")
        else:
            status[name], values[name], reasons[name] = "ok", value, f"{name} judged."
    return {"id": row_id, "scores": values, "status": status, "reason": reasons, "details": {}}


#: faithfulness: 1, 1, 0.5, 0.5 ok and one undetermined → mean 3 / 4 = 0.75, 4 of 5 ok.
#: context_relevance: 0.2 + 0.4 + 0.6 + 0.8 + 1.0 = 3.0 over 5 → 0.6.
#: context_recall: undetermined on every row (no reference).
ROWS = [
    row("q1", faithfulness=1.0, context_relevance=0.2, context_recall=NO_REFERENCE),
    row("q2", faithfulness=1.0, context_relevance=0.4, context_recall=NO_REFERENCE),
    row("q3", faithfulness=0.5, context_relevance=0.6, context_recall=NO_REFERENCE),
    row("q4", faithfulness=0.5, context_relevance=0.8, context_recall=NO_REFERENCE),
    row("q5", faithfulness="No retrieved contexts were given.", context_relevance=1.0, context_recall=NO_REFERENCE),
]


def results_file(tmp_path: Path, rows: list[dict], *extra_lines: str) -> str:
    path = tmp_path / "scores.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + "".join(extra_lines), encoding="utf-8")
    return str(path)


def gate(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["gate", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def table_row(out: str, score: str) -> list[str]:
    """The cells of the table line for ``score`` (cells are separated by two spaces or more)."""
    line = next(line for line in out.splitlines() if line.startswith(score + " "))
    return [cell for cell in line.split("  ") if cell.strip()]


def test_a_gate_that_fails_exits_1_with_what_fell_short(tmp_path: Path, capsys) -> None:
    path = results_file(tmp_path, ROWS)
    status, out, err = gate(capsys, path, "--min", "faithfulness=0.8", "--min", "context_relevance=0.5")
    assert status == 1
    cells = [c.strip() for c in table_row(out, "faithfulness")]
    assert cells[:3] == ["faithfulness", ">= 0.8", "0.750"]  # 3 / 4
    assert cells[4:] == ["4/5", "mean 0.750 is not >= 0.8"]
    assert "context_relevance" not in out  # 0.6 >= 0.5 passed: only what fell short is listed
    assert "1 of 3 checks fell short; exit status 1" in err


def test_a_gate_that_passes_exits_0_with_the_table(tmp_path: Path, capsys) -> None:
    path = results_file(tmp_path, ROWS)
    status, out, err = gate(capsys, path, "--min", "faithfulness=0.7", "--min", "context_relevance=0.5")
    assert status == 0
    assert [c.strip() for c in table_row(out, "faithfulness")][:3] == ["faithfulness", ">= 0.7", "0.750"]
    relevance = [c.strip() for c in table_row(out, "context_relevance")]
    assert relevance[2] == "0.600" and relevance[4:] == ["5/5", "mean 0.600 is >= 0.5"]  # 3.0 / 5
    assert [c.strip() for c in table_row(out, "error rate")][1:3] == ["<= 0", "0.000"]
    assert "all 3 checks passed" in err


def test_a_max_threshold_bounds_a_lower_is_better_score(tmp_path: Path, capsys) -> None:
    path = results_file(tmp_path, ROWS)
    assert gate(capsys, path, "--max", "context_relevance=0.6")[0] == 0  # 0.6 <= 0.6
    status, out, _ = gate(capsys, path, "--max", "context_relevance=0.55")
    assert status == 1 and "mean 0.600 is not <= 0.55" in out


def expected_ci(values: list[float], *, resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """The percentile bootstrap worked out with numpy: resample rows with replacement, take the 2.5 % and
    97.5 % quantiles of the resampled means."""
    data = np.array(values)
    picks = np.random.default_rng(seed).integers(0, len(data), size=(resamples, len(data)))
    low, high = np.quantile(data[picks].mean(axis=1), [0.025, 0.975])
    return float(low), float(high)


def test_confident_turns_a_pass_into_a_fail_when_the_lower_bound_misses(tmp_path: Path, capsys) -> None:
    path = results_file(tmp_path, ROWS)
    low, high = expected_ci([1.0, 1.0, 0.5, 0.5])
    assert low < 0.7 <= 0.75  # four rows: the mean clears 0.7, the interval's lower end does not
    assert gate(capsys, path, "--min", "faithfulness=0.7")[0] == 0
    status, out, _ = gate(capsys, path, "--min", "faithfulness=0.7", "--confident")
    assert status == 1
    cells = [c.strip() for c in table_row(out, "faithfulness")]
    assert cells[3] == f"[{low:.3f}, {high:.3f}]"
    assert cells[5] == f"mean 0.750 is >= 0.7; the 95% CI's lower bound {low:.3f} does not"
    # a threshold under the lower bound passes confidently; another seed gives numpy's other interval
    assert gate(capsys, path, "--min", f"faithfulness={low - 0.01:.3f}", "--confident")[0] == 0
    low_7, high_7 = expected_ci([1.0, 1.0, 0.5, 0.5], resamples=500, seed=7)
    out = gate(capsys, path, "--min", "faithfulness=0.7", "--bootstrap", "500", "--seed", "7")[1]
    assert f"[{low_7:.3f}, {high_7:.3f}]" in out


def test_confident_needs_more_than_one_ok_value(tmp_path: Path, capsys) -> None:
    # one ok row (0.9) among undetermined ones: its interval [0.9, 0.9] has no width and proves nothing
    rows = [row("r0", faithfulness=0.9)] + [row(f"r{i}", faithfulness="no contexts") for i in range(1, 20)]
    path = results_file(tmp_path, rows)
    assert gate(capsys, path, "--min", "faithfulness=0.8")[0] == 0  # the mean alone clears it
    status, out, _ = gate(capsys, path, "--min", "faithfulness=0.8", "--confident")
    assert status == 1
    assert "1 ok value is too few for a 95% interval" in out


def test_confident_max_uses_the_upper_bound(tmp_path: Path, capsys) -> None:
    path = results_file(tmp_path, ROWS)
    _, high = expected_ci([0.2, 0.4, 0.6, 0.8, 1.0])
    assert 0.6 < 0.65 < high  # the mean is under 0.65, the upper end is not
    assert gate(capsys, path, "--max", "context_relevance=0.65")[0] == 0
    status, out, _ = gate(capsys, path, "--max", "context_relevance=0.65", "--confident")
    assert status == 1 and f"upper bound {high:.3f} does not" in out


def test_a_score_undetermined_on_every_row_fails_with_the_reason(tmp_path: Path, capsys) -> None:
    status, out, _ = gate(capsys, results_file(tmp_path, ROWS), "--min", "context_recall=0.1")
    assert status == 1
    cells = [c.strip() for c in table_row(out, "context_recall")]
    assert cells[2:] == ["-", "-", "0/5", f"no ok value: 5 undetermined ({NO_REFERENCE})"]


def test_the_error_rate_counts_rows_with_an_error_and_unreadable_lines(tmp_path: Path, capsys) -> None:
    rows = [*ROWS, row("q6", faithfulness="error: the judge timed out", context_relevance=0.5)]
    path = results_file(tmp_path, rows)
    status, out, _ = gate(capsys, path, "--min", "faithfulness=0.7")
    assert status == 1  # default: no row may fail; 1 of 6 did
    assert [c.strip() for c in table_row(out, "error rate")][1:] == [
        "<= 0",
        "0.167",
        "-",
        "5/6",
        "1 of 6 rows have an error score",
    ]
    assert gate(capsys, path, "--min", "faithfulness=0.7", "--max-error-rate", "0.2")[0] == 0  # 1/6 = 0.167
    torn = results_file(tmp_path, rows, '{"id": "q7", "sco')  # a run killed mid-line
    status, out, _ = gate(capsys, torn, "--max-error-rate", "0.2")
    assert status == 1  # 2 of 7 = 0.286 > 0.2
    assert "2 of 7 rows have an error score (1 unreadable line among them)" in out


def test_a_real_results_file_from_rageval_evaluate(tmp_path: Path, capsys) -> None:
    bundled = Path(__file__).resolve().parents[2] / "rageval_lc" / "data" / "quickstart_ragbench.jsonl"
    out_file = tmp_path / "scores.jsonl"
    assert (
        main(["evaluate", str(bundled), "--judge", "labels", "--metrics", "trace,faithfulness", "--out", str(out_file)])
        == 0
    )
    capsys.readouterr()
    written = [json.loads(line) for line in out_file.read_text().splitlines()]
    faithfulness = [r["scores"]["faithfulness"] for r in written if r["status"]["faithfulness"] == "ok"]
    mean = sum(faithfulness) / len(faithfulness)
    below, above = round(mean - 0.01, 2), round(mean + 0.01, 2)
    status, out, _ = gate(capsys, str(out_file), "--min", f"faithfulness={above}", "--min", "adherence=0")
    assert status == 1 and f"mean {mean:.3f} is not >= {above:g}" in out
    assert gate(capsys, str(out_file), "--min", f"faithfulness={below}")[0] == 0


def test_a_score_no_row_has_is_a_usage_error_naming_those_present(tmp_path: Path, capsys) -> None:
    status, out, err = gate(capsys, results_file(tmp_path, ROWS), "--min", "answer_relevance=0.5")
    assert status == 2 and out == ""
    assert err.count("\n") == 1
    assert (
        "No row has the score 'answer_relevance'. Scores present: faithfulness, context_relevance, context_recall."
        in err
    )


SCORE_VALUE = "must be SCORE=VALUE with VALUE a number in [0, 1] (e.g. faithfulness=0.8). Got"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--min", "faithfulness=abc"], f"--min {SCORE_VALUE} 'faithfulness=abc'."),
        (["--min", "faithfulness=1.5"], f"--min {SCORE_VALUE} 'faithfulness=1.5'."),
        (["--min", "faithfulness=-0.1"], f"--min {SCORE_VALUE} 'faithfulness=-0.1'."),
        (["--min", "faithfulness=nan"], f"--min {SCORE_VALUE} 'faithfulness=nan'."),
        (["--min", "faithfulness"], f"--min {SCORE_VALUE} 'faithfulness'."),
        (["--min", "=0.5"], f"--min {SCORE_VALUE} '=0.5'."),
        (["--max", "faithfulness:0.5"], f"--max {SCORE_VALUE} 'faithfulness:0.5'."),
        (["--max-error-rate", "2"], "--max-error-rate must be a number in [0, 1]. Got '2'."),
        (["--bootstrap", "0"], "--bootstrap must be >= 1. Got 0."),
        (
            ["--min", "faithfulness=0.5", "--min", "faithfulness=0.6"],
            "One threshold per score and side. Got more than one for: faithfulness >.",
        ),
    ],
)
def test_bad_thresholds_are_one_line_usage_errors(argv: list[str], message: str, tmp_path: Path, capsys) -> None:
    status, out, err = gate(capsys, results_file(tmp_path, ROWS), *argv)
    assert (status, out, err) == (2, "", f"rageval: error: {message}\n")


def test_a_missing_file_and_a_file_without_results_are_usage_errors(tmp_path: Path, capsys) -> None:
    assert (
        gate(capsys, str(tmp_path / "none.jsonl"))[2]
        == f"rageval: error: results file not found: {tmp_path / 'none.jsonl'}\n"
    )
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"question": "not a result"}\n')
    assert gate(capsys, str(empty))[:2] == (2, "")


def test_parse_condition_reads_operators_and_bare_numbers() -> None:
    assert parse_condition("f", ">=0.8") == Threshold("f", ">=", 0.8)
    assert parse_condition("f", " > 0.5 ") == Threshold("f", ">", 0.5)
    assert parse_condition("f", "<0.2") == Threshold("f", "<", 0.2)
    assert parse_condition("f", "<= 1") == Threshold("f", "<=", 1.0)
    assert parse_condition("f", "==1") == Threshold("f", "==", 1.0)
    assert parse_condition("f", "0.8") == parse_condition("f", 0.8) == Threshold("f", ">=", 0.8)
    assert parse_condition("f", 1) == Threshold("f", ">=", 1.0)
    assert parse_condition("f", "==0.3").holds(0.1 + 0.2)  # == forgives float rounding
    assert not parse_condition("f", ">0.5").holds(0.5)


@pytest.mark.parametrize("bad", ["abc", ">=", "=>0.5", "> 1.5", "<-0.1", True, None, 2, float("nan"), [0.5]])
def test_parse_condition_names_the_score_and_the_value(bad: object) -> None:
    with pytest.raises(ValueError, match=rf"condition on 'faithfulness' must be .*Got {re.escape(repr(bad))}\."):
        parse_condition("faithfulness", bad)


def test_check_gate_in_python_and_its_errors() -> None:
    report = check_gate(ROWS, [parse_threshold("faithfulness=0.75", "min")])
    assert report.passed and [c.score for c in report.checks] == ["faithfulness", "error rate"]
    assert (report.checks[0].ok, report.checks[0].rows) == (4, 5)
    with pytest.raises(ValueError, match="There are no result rows"):
        check_gate([], [])
    with pytest.raises(ValueError, match=r"max_error_rate must be a number in \[0, 1\]. Got 1.5"):
        check_gate(ROWS, [], max_error_rate=1.5)
    both = [parse_threshold("context_relevance=0.5", "min"), parse_threshold("context_relevance=0.7", "max")]
    assert check_gate(ROWS, both).passed  # a range: 0.5 <= 0.6 <= 0.7
