"""Decide with evidence: bootstrap intervals on every summary mean, and `rageval compare` / `rageval_lc.compare`
(paired differences, their intervals and permutation p-values), checked against numpy and scipy."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

from rageval_lc.cli import main
from rageval_lc.reports import stats
from rageval_lc.reports.stats import mean_interval
from rageval_lc.reports.summary import DEFAULT_RESAMPLES, ScoreSummary, summarize
from tests.floats import SAME_DRAWS_ABS, assert_close_structure

DATA = Path(__file__).resolve().parents[2] / "rageval_lc" / "data" / "quickstart_ragbench.jsonl"


def result_row(row_id: str | None, scores: dict[str, float | None], **extra: object) -> dict:
    """A result row as `rageval evaluate` writes it (a None score is undetermined)."""
    return {
        "id": row_id,
        "scores": scores,
        "status": {name: "ok" if value is not None else "undetermined" for name, value in scores.items()},
        "reason": {name: f"{name} of {row_id} is {value}" for name, value in scores.items()},
        "details": {},
        **extra,
    }


def write_rows(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


# --- intervals on summary means ---------------------------------------------------------------------------


def test_summary_interval_is_the_percentile_bootstrap_of_the_ok_values() -> None:
    values = [0.9, 0.1, 0.4, 0.75, 1.0, 0.0, 0.6, 0.35, 0.8, 0.55, 0.2, 0.95]
    rows = [result_row(str(i), {"faithfulness": v}) for i, v in enumerate(values)]
    rows.append(result_row("u", {"faithfulness": None}))  # undetermined: neither in the mean nor resampled
    summary = summarize(rows, n_resamples=4000, seed=7)[0]
    # the same draws written out with numpy: resample indices, means, 2.5 % and 97.5 % quantiles
    rng = np.random.default_rng(7)
    means = np.asarray(values)[rng.integers(0, len(values), size=(4000, len(values)))].mean(axis=1)
    assert (summary.ci_low, summary.ci_high) == pytest.approx(np.quantile(means, [0.025, 0.975]), abs=SAME_DRAWS_ABS)
    # and scipy's percentile bootstrap (its own draws) lands within sampling noise of it
    scipy_ci = scipy_stats.bootstrap(
        (values,), np.mean, n_resamples=20000, method="percentile", random_state=np.random.default_rng(1)
    ).confidence_interval
    assert summary.ci_low == pytest.approx(scipy_ci.low, abs=0.02)
    assert summary.ci_high == pytest.approx(scipy_ci.high, abs=0.02)
    assert summary.mean == pytest.approx(np.mean(values)) and summary.ci_low < summary.mean < summary.ci_high
    assert (summary.ok, summary.undetermined) == (12, 1)


def test_summary_intervals_are_seeded_configurable_and_can_be_turned_off() -> None:
    rows = [result_row(str(i), {"adherence": (i * 7 % 30) / 29}) for i in range(30)]  # 0..1, each once
    first, again = summarize(rows, seed=3)[0], summarize(rows, seed=3)[0]
    assert first == again and first != summarize(rows, seed=4)[0]
    assert_close_structure(summarize(rows, n_resamples=0)[0], ScoreSummary("adherence", 0.5, 30, 0, 0))
    assert DEFAULT_RESAMPLES == stats.DEFAULT_RESAMPLES
    with pytest.raises(ValueError, match=r"n_resamples must be an integer >= 0 .*Got -1"):
        summarize(rows, n_resamples=-1)
    with pytest.raises(ValueError, match=r"confidence must be between 0 and 1\. Got 1\.5"):
        summarize(rows, confidence=1.5)


def test_a_large_run_is_bootstrapped_in_blocks_with_the_same_result(monkeypatch: pytest.MonkeyPatch) -> None:
    values = np.random.default_rng(0).random(301).tolist()
    whole = stats.bootstrap_ci(values, n_resamples=999, seed=5)
    monkeypatch.setattr(stats, "_CHUNK_VALUES", 1000)  # 3 resamples a block
    assert mean_interval(values, n_resamples=999, seed=5) == pytest.approx(whole, abs=SAME_DRAWS_ABS)


def test_the_evaluate_and_report_summaries_show_the_interval(tmp_path: Path, capsys) -> None:
    out = tmp_path / "scores.jsonl"
    assert main(["evaluate", str(DATA), "--judge", "labels", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    relevance = [r["scores"]["context_relevance"] for r in rows]
    low, high = stats.bootstrap_ci(relevance, n_resamples=2000, seed=0)
    assert f"context_relevance    {np.mean(relevance):.3f}  [{low:.3f}, {high:.3f}]   8" in printed
    assert main(["report", str(out), "--bootstrap", "500", "--seed", "9"]) == 0
    low, high = stats.bootstrap_ci(relevance, n_resamples=500, seed=9)
    assert f"context_relevance    {np.mean(relevance):.3f}  [{low:.3f}, {high:.3f}]   8" in capsys.readouterr().out
    assert main(["evaluate", str(DATA), "--judge", "labels", "--out", str(out), "--bootstrap", "0"]) == 0
    assert "95% CI" not in capsys.readouterr().err
    assert main(["report", str(out), "--bootstrap", "-5"]) == 2
    assert capsys.readouterr().err == "rageval: error: --bootstrap must be >= 0. Got -5.\n"


def test_a_resumed_run_with_its_own_bootstrap_covers_the_kept_rows(tmp_path: Path, capsys) -> None:
    lines = DATA.read_text(encoding="utf-8").splitlines(keepends=True)
    source, out = tmp_path / "rows.jsonl", tmp_path / "scores.jsonl"
    source.write_text("".join(lines[:3]), encoding="utf-8")
    assert main(["evaluate", str(source), "--judge", "labels", "--out", str(out)]) == 0
    source.write_text("".join(lines), encoding="utf-8")
    args = ["--judge", "labels", "--out", str(out), "--resume", "--bootstrap", "300", "--seed", "2"]
    capsys.readouterr()
    assert main(["evaluate", str(source), *args]) == 0
    relevance = [json.loads(line)["scores"]["context_relevance"] for line in out.read_text().splitlines()]
    low, high = stats.bootstrap_ci(relevance, n_resamples=300, seed=2)  # the 3 kept rows, then the 5 new
    assert len(relevance) == 8 and stats.bootstrap_ci(relevance) != (low, high)
    assert f"context_relevance    {np.mean(relevance):.3f}  [{low:.3f}, {high:.3f}]   8" in capsys.readouterr().err


# --- comparing two runs -----------------------------------------------------------------------------------

# (id, faithfulness in A, in B); q2 twice (paired by order of occurrence), q5 undetermined in A, one id per run
# unpaired. Run B's file lists its rows in another order: pairing is by id, not by position.
PAIRS = [("q1", 0.5, 0.8), ("q2", 0.2, 0.3), ("q3", 0.9, 0.85), ("q2", 0.4, 0.9), ("q4", 0.1, 0.35),
         ("q5", None, 0.9), ("q6", 0.7, 0.7), ("q7", 0.3, 0.6)]  # fmt: skip
DATASETS = {"q1": "x", "q2": "x", "q3": "y", "q4": "y", "q5": "y"}  # q7's only in B's details; q6 has none
B_ORDER = [7, 1, 6, 0, 5, 4, 3, 2]


def two_runs(tmp_path: Path) -> tuple[Path, Path]:
    rows_a, rows_b = [], []
    for line, (row_id, a, b) in enumerate(PAIRS, start=1):
        extra = {"dataset": DATASETS[row_id]} if row_id in DATASETS else {}
        rows_a.append(result_row(row_id, {"faithfulness": a, "context_recall": 1.0}, line=line, **extra))
        row_b = result_row(row_id, {"faithfulness": b, "context_recall": 0.5}, line=line)
        if row_id == "q1":
            row_b["status"]["context_recall"] = "error"  # out of context_recall's pairs, in faithfulness's
        if row_id == "q7":
            row_b["details"] = {"dataset": "y"}
        rows_b.append(row_b)
    rows_a.append(result_row("only_a", {"faithfulness": 1.0, "context_recall": 1.0}, line=9))
    rows_b = [rows_b[i] for i in B_ORDER] + [result_row("only_b", {"faithfulness": 0.0, "context_recall": 1.0})]
    return write_rows(tmp_path / "a.jsonl", rows_a), write_rows(tmp_path / "b.jsonl", rows_b)


def scipy_paired(a: list[float], b: list[float]) -> tuple[float, float]:
    """The mean difference and scipy's paired permutation p-value (exact: 2**n sign assignments)."""
    result = scipy_stats.permutation_test(
        (b, a), lambda x, y: np.mean(x - y), permutation_type="samples", n_resamples=np.inf, vectorized=False
    )
    return float(np.mean(np.subtract(b, a))), float(result.pvalue)


def test_compare_pairs_by_id_and_matches_numpy_and_scipy(tmp_path: Path) -> None:
    from rageval_lc import compare

    path_a, path_b = two_runs(tmp_path)
    result = compare(path_a, path_b, n_resamples=5000, seed=11)
    assert result.unpaired == {"only_in_a": ["only_a"], "only_in_b": ["only_b"]}
    # faithfulness: 7 pairs ok in both (q5 is undetermined in A); q2's first rows pair, then its second rows
    a = [0.5, 0.2, 0.9, 0.4, 0.1, 0.7, 0.3]
    b = [0.8, 0.3, 0.85, 0.9, 0.35, 0.7, 0.6]  # differences 0.3, 0.1, -0.05, 0.5, 0.25, 0, 0.3: mean 1.4 / 7
    f = result.scores["faithfulness"]
    diff, p_value = scipy_paired(a, b)
    assert (f.n, f.wins, f.ties, f.losses) == (7, 5, 1, 1)
    assert f.diff == pytest.approx(0.2) == pytest.approx(diff)
    assert (f.mean_a, f.mean_b) == (pytest.approx(np.mean(a)), pytest.approx(np.mean(b)))
    assert f.p_value == pytest.approx(p_value)  # 2**7 = 128 assignments: both exact
    rng = np.random.default_rng(11)  # the paired bootstrap: the 7 differences resampled, as numpy draws them
    differences = np.subtract(b, a)
    means = differences[rng.integers(0, 7, size=(5000, 7))].mean(axis=1)
    assert (f.ci_low, f.ci_high) == pytest.approx(np.quantile(means, [0.025, 0.975]), abs=SAME_DRAWS_ABS)
    scipy_ci = scipy_stats.bootstrap(
        (differences,), np.mean, n_resamples=20000, method="percentile", random_state=np.random.default_rng(2)
    ).confidence_interval
    assert (f.ci_low, f.ci_high) == (pytest.approx(scipy_ci.low, abs=0.02), pytest.approx(scipy_ci.high, abs=0.02))
    # context_recall: q1 failed in B, so 7 pairs (q5 included), each 0.5 lower in B: p = 2 / 2**7
    recall = result.scores["context_recall"]
    assert (recall.n, recall.diff, recall.losses, recall.p_value) == (7, pytest.approx(-0.5), 7, 2 / 128)


def test_compare_by_subset_reads_the_row_then_its_details(tmp_path: Path) -> None:
    from rageval_lc.reports.compare import compare

    result = compare(*two_runs(tmp_path), by="dataset")
    assert list(result.by) == ["x", "y", "(missing)"]
    x, y, missing = (result.by[s]["faithfulness"] for s in ("x", "y", "(missing)"))
    assert (x.n, x.diff) == (3, pytest.approx((0.3 + 0.1 + 0.5) / 3))  # q1, q2, q2
    assert (y.n, y.diff) == (3, pytest.approx((-0.05 + 0.25 + 0.3) / 3))  # q3, q4, q7 (B's details); q5 undetermined
    assert (missing.n, missing.diff, missing.ties) == (1, 0.0, 1)  # q6 names no dataset
    assert x.p_value == pytest.approx(scipy_paired([0.5, 0.2, 0.4], [0.8, 0.3, 0.9])[1])


def test_compare_with_many_rows_uses_monte_carlo_close_to_the_exact_test() -> None:
    from rageval_lc.reports.compare import compare

    rng = np.random.default_rng(3)
    a, b = rng.random(18), rng.random(18) + 0.15
    rows_a = [result_row(str(i), {"s": float(v)}) for i, v in enumerate(a)]
    rows_b = [result_row(str(i), {"s": float(v)}) for i, v in enumerate(b)]
    figures = compare(rows_a, rows_b, n_resamples=20000).scores["s"]
    exact = scipy_paired(a.tolist(), b.tolist())[1]  # 2**18 sign assignments
    assert figures.p_value == pytest.approx(exact, abs=0.01)


def test_compare_json_prints_exactly_the_documented_schema(tmp_path: Path, capsys) -> None:
    path_a, path_b = two_runs(tmp_path)
    assert main(["compare", str(path_a), str(path_b), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    figures = {"n", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "p_value", "wins", "ties", "losses"}
    assert set(printed) == {"scores", "unpaired"}
    assert list(printed["scores"]) == ["faithfulness", "context_recall"]
    assert all(set(v) == figures for v in printed["scores"].values())
    assert printed["unpaired"] == {"only_in_a": ["only_a"], "only_in_b": ["only_b"]}
    assert main(["compare", str(path_a), str(path_b), "--json", "--by", "dataset"]) == 0
    by = json.loads(capsys.readouterr().out)["by"]
    assert list(by) == ["x", "y", "(missing)"] and set(by["x"]["faithfulness"]) == figures


def test_compare_prints_a_table(tmp_path: Path, capsys) -> None:
    path_a, path_b = two_runs(tmp_path)
    assert main(["compare", str(path_a), str(path_b), "--by", "dataset", "--bootstrap", "500"]) == 0
    out = capsys.readouterr().out
    assert "8 rows paired by id; 1 only in A, 1 only in B." in out  # q5 paired, undetermined in A
    assert "only in A: only_a" in out and "only in B: only_b" in out
    line = next(x for x in out.splitlines() if x.startswith("faithfulness"))
    cells = line.split()
    # n, means 3.1 / 7 and 4.5 / 7, diff 1.4 / 7, then the interval's two cells, p, wins / ties / losses. p by hand:
    # |differences| 0.5 0.3 0.3 0.25 0.1 0.05 (and a 0) sum to 1.5 with all signs +; a sign assignment reaches
    # |mean| >= 1.4 / 7 only with all + or only 0.05 flipped, times 2 for the 0, times 2 for all - : 8 / 2**7
    assert cells[1:5] == ["7", "0.443", "0.643", "0.200"] and cells[7:] == ["0.062", "5", "1", "1"]
    by = out.split("By dataset:")[1].splitlines()
    subsets = [x.split()[:3] for x in by if "faithfulness" in x]
    assert subsets == [["x", "faithfulness", "3"], ["y", "faithfulness", "3"], ["(missing)", "faithfulness", "1"]]


def test_compare_html_page_shows_the_figures(tmp_path: Path, capsys) -> None:
    path_a, path_b = two_runs(tmp_path)
    page = tmp_path / "page.html"
    assert main(["compare", str(path_a), str(path_b), "--html", str(page), "--by", "dataset"]) == 0
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "<script" not in text and "http" not in text
    assert text.count("<svg") == 2  # the forest plots: all rows, per dataset
    figures = json.loads(json.dumps(__import__("rageval_lc").compare(path_a, path_b).to_dict()))["scores"]
    f = figures["faithfulness"]
    assert f"{f['diff']:+.3f} [{f['ci_low']:+.3f}, {f['ci_high']:+.3f}]" in text  # the plot's label
    # the rows that changed most: q2's second rows moved by 0.5, first in the list, with both reasons
    changed = text.split("Rows that changed most")[1]
    assert changed.index("q2 (#2)") < changed.index("q1") and "+0.500" in changed
    assert "faithfulness of q2 is 0.4" in changed and "faithfulness of q2 is 0.9" in changed
    assert "keep no question or answer (written by an older rageval)" in changed  # shown by id and input line
    assert "only_a" in text and "only_b" in text
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".page")] == []  # written through a rename


def directed_runs(tmp_path: Path) -> tuple[Path, Path]:
    """Six paired rows on which run B raises adherence by 0.3 and rmse_aggregation (lower is better) by 0.2."""
    rows_a = [result_row(f"q{i}", {"adherence": 0.1 * i, "rmse_aggregation": 0.1}, line=i) for i in range(6)]
    rows_b = [result_row(f"q{i}", {"adherence": 0.1 * i + 0.3, "rmse_aggregation": 0.3}, line=i) for i in range(6)]
    return write_rows(tmp_path / "a.jsonl", rows_a), write_rows(tmp_path / "b.jsonl", rows_b)


def test_compare_colours_a_difference_by_the_direction_of_its_score(tmp_path: Path, capsys) -> None:
    path_a, path_b = directed_runs(tmp_path)
    page = tmp_path / "page.html"
    assert main(["compare", str(path_a), str(path_b), "--html", str(page), "--bootstrap", "200"]) == 0
    text = page.read_text(encoding="utf-8")
    # both rise on every row: the exact sign-flip test gives p = 2 / 2**6 = 0.031 < 0.05, intervals [d, d]
    assert "<td class='num better'><b>+0.300</b></td><td class='num better'>[+0.300, +0.300]</td>" in text
    assert "<td class='num worse'><b>+0.200</b></td><td class='num worse'>[+0.200, +0.200]</td>" in text
    plotted = {g.split("</title>")[0].split(":")[0]: g for g in text.split("<g><title>")[1:]}
    assert "fill='#1e8449'" in plotted["adherence"] and "fill='#c0392b'" in plotted["rmse_aggregation"]
    changed = text.split("Rows that changed most")[1].split("rmse_aggregation: ")[1]
    assert "<td class='num worse'><b>+0.200</b></td>" in changed and "num better" not in changed
    out = capsys.readouterr().out
    assert "rmse_aggregation: lower is better" in out  # the text says it too


def test_compare_names_the_runs_in_the_order_given(tmp_path: Path, capsys) -> None:
    path_a, path_b = directed_runs(tmp_path)
    page = tmp_path / "page.html"
    assert main(["compare", str(path_a), str(path_b), "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert "<title>a.jsonl vs b.jsonl</title>" in text and "<h1>a.jsonl vs b.jsonl</h1>" in text
    assert capsys.readouterr().out.startswith("A: a.jsonl, B: b.jsonl.")


def test_a_win_is_a_row_where_b_is_better_by_the_direction_of_its_score(tmp_path: Path, capsys) -> None:
    # every row: adherence 0.3 higher in B (better), rmse_aggregation 0.1 -> 0.3 (worse: lower is better)
    path_a, path_b = directed_runs(tmp_path)
    page = tmp_path / "page.html"
    assert main(["compare", str(path_a), str(path_b), "--json", "--bootstrap", "200"]) == 0
    figures = json.loads(capsys.readouterr().out)["scores"]
    assert {name: (f["wins"], f["ties"], f["losses"]) for name, f in figures.items()} == {
        "adherence": (6, 0, 0),
        "rmse_aggregation": (0, 0, 6),
    }
    assert main(["compare", str(path_a), str(path_b), "--html", str(page), "--bootstrap", "200"]) == 0
    out = capsys.readouterr().out.splitlines()  # A: …, B: …; paired; the header, its rule, a line per score
    assert {line.split()[0]: line.split()[-3:] for line in out[4:6]} == {
        "adherence": ["6", "0", "0"],
        "rmse_aggregation": ["0", "0", "6"],
    }
    assert "wins / ties / losses: rows where B scored better / the same / worse than A." in out
    html = page.read_text(encoding="utf-8")
    assert "<th class='num'>B better / same / worse</th>" in html
    rmse = html.split("<td>rmse_aggregation</td>")[1].split("</tr>")[0]
    assert rmse.endswith("<td class='num'>0 / 0 / 6</td>")


def test_the_changed_rows_name_the_run_of_each_answer(tmp_path: Path) -> None:
    rows_a = [result_row("q1", {"faithfulness": 0.2}, question="Q?", response="Old answer.")]
    rows_b = [result_row("q1", {"faithfulness": 0.9}, question="Q?", response="New answer.")]
    path_a, path_b = write_rows(tmp_path / "old.jsonl", rows_a), write_rows(tmp_path / "new.jsonl", rows_b)
    page = tmp_path / "page.html"
    assert main(["compare", str(path_a), str(path_b), "--html", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    texts = (
        "<b>question</b>: Q?<br><b>response</b> (A: old.jsonl): Old answer.<br>"
        "<b>response</b> (B: new.jsonl): New answer."
    )
    assert f"<td class='reason'>{texts}</td>" in html


def test_compare_errors_are_one_line_with_exit_status_2(tmp_path: Path, capsys) -> None:
    path_a, path_b = two_runs(tmp_path)
    elsewhere = write_rows(tmp_path / "other.jsonl", [result_row("z", {"faithfulness": 1.0})])
    cases = {
        (str(tmp_path / "nope.jsonl"), str(path_b)): "run A file not found",
        (str(path_a), str(DATA)): "not a result row (one with a 'status' object",
        (str(path_a), str(elsewhere)): "no row of run B has the id of a row of run A (9 rows in A, 1 in B)",
        (str(path_a), str(path_b), "--bootstrap", "0"): "--bootstrap must be >= 1. Got 0.",
        (str(path_a), str(path_b), "--html", str(tmp_path / "no" / "p.html")): "cannot write",
        (str(path_a), str(path_b), "--html", str(path_b)): "is the run B file",
    }
    for args, message in cases.items():
        assert main(["compare", *args]) == 2, args
        err = capsys.readouterr().err
        assert err.startswith("rageval: error: ") and message in err and err.count("\n") == 1, err
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(ValueError, match="holds no result rows"):
        __import__("rageval_lc").compare(tmp_path / "empty.jsonl", path_b)
    with pytest.raises(ValueError, match=r"run_b\[0\]: not a result row"):
        __import__("rageval_lc").compare(path_a, [{"id": "q1"}])


def test_compare_takes_evaluation_runs() -> None:
    from rageval_lc import RagSample, compare, evaluate

    def sample(i: int, unsupported: list[str]) -> RagSample:
        labels = {"all_relevant_sentence_keys": ["0a"], "unsupported_response_sentence_keys": unsupported}
        return RagSample(id=f"s{i}", question="Q?", contexts=["A. B."], response="A.", labels=labels)

    before = evaluate([sample(i, ["a"]) for i in range(4)], "trace", judge="labels")
    after = evaluate([sample(i, ["a"] if i == 0 else []) for i in range(4)], "trace", judge="labels")
    adherence = compare(before, after).scores["adherence"]
    assert (adherence.n, adherence.diff, adherence.wins, adherence.ties) == (4, 0.75, 3, 1)


def test_rows_without_an_id_or_a_line_pair_by_their_place_and_are_named_by_it() -> None:
    from rageval_lc import compare
    from rageval_lc.reports.compare import format_comparison

    a = [result_row(None, {"f": v}) for v in (0.2, 0.4, 0.6)]  # as EvaluationRun.rows() of id-less samples
    b = [result_row(None, {"f": v}) for v in (0.3, 0.5)]
    result = compare(a, b)
    assert [p.key for p in result.pairs] == ["#1", "#2"]
    assert result.unpaired == {"only_in_a": ["#3"], "only_in_b": []}
    assert result.scores["f"].diff == pytest.approx(0.1)  # (0.1 + 0.1) / 2
    text = format_comparison(result)
    assert "only in A: #3" in text and "None" not in text
    from rageval_lc.reports.compare_html import render_compare_html

    page = render_compare_html(result)
    assert "<td>#1<" in page and "<b>Only in A</b> (1): #3" in page
    assert "line None" not in page and "lines None" not in page


def test_a_results_file_mixing_producers_is_refused(tmp_path: Path, capsys) -> None:
    path_a, _ = two_runs(tmp_path)
    mixed = write_rows(tmp_path / "mixed.jsonl", [result_row("q1", {"faithfulness": 1.0}, producer="callback"),
                                                  result_row("q2", {"faithfulness": 1.0})])  # fmt: skip
    assert main(["compare", str(path_a), str(mixed)]) == 2
    assert "mixed.jsonl mixes rows of 2 producers" in capsys.readouterr().err


def test_a_large_comparison_is_drawn_in_blocks_with_the_same_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(8)
    a, b = rng.random(150).tolist(), (rng.random(150) * 0.9 + 0.08).tolist()
    whole = stats.paired_comparison(a, b, n_resamples=700, seed=4)
    monkeypatch.setattr(stats, "_CHUNK_VALUES", 1000)  # 6 resamples (and sign flips) a block
    assert_close_structure(stats.paired_comparison(a, b, n_resamples=700, seed=4), whole, abs=SAME_DRAWS_ABS)


def test_repeated_ids_pair_by_input_line_whatever_the_order_of_the_file() -> None:
    # id "x" on input lines 1 and 2 in both runs, with the same scores; run B wrote line 2 first (completion
    # order, or a resumed run): paired by line, every pair ties
    from rageval_lc.reports.compare import compare

    a = [result_row("x", {"faithfulness": 0.2}, line=1), result_row("x", {"faithfulness": 0.9}, line=2)]
    b = [result_row("x", {"faithfulness": 0.9}, line=2), result_row("x", {"faithfulness": 0.2}, line=1)]
    figures = compare(a, b).scores["faithfulness"]
    assert (figures.n, figures.wins, figures.ties, figures.losses, figures.diff) == (2, 0, 2, 0, 0.0)


def test_an_ok_score_without_a_usable_number_counts_as_an_error_in_the_summary() -> None:
    rows = [
        {"status": {"a": "ok"}, "scores": {"a": float("nan")}},  # valid to Python's json, not a score
        {"status": {"a": "ok"}, "scores": {"a": 0.5}},
        {"status": {"a": "ok"}, "scores": None},
    ]
    (summary,) = summarize(rows)
    assert (summary.mean, summary.ok, summary.error) == (0.5, 1, 2)


def kinds_input(path: Path, unsupported: dict[str, list[str]]) -> Path:
    """Four generic rows with an extra field ``kind`` (two 'fact', two 'howto'), labelled; ``unsupported`` gives
    the unsupported response-sentence keys per id (none by default: adherence 1.0; ["a"]: 0.0)."""
    rows = []
    for row_id, kind in (("r1", "fact"), ("r2", "fact"), ("r3", "howto"), ("r4", "howto")):
        bad = unsupported.get(row_id, [])
        labels = {"all_relevant_sentence_keys": ["0a"], "unsupported_response_sentence_keys": bad}
        rows.append(
            {"id": row_id, "question": "What do cats do?", "contexts": ["Cats sleep. Cats hunt."],
             "response": "Cats sleep.", "labels": labels, "kind": kind}
        )  # fmt: skip
    return write_rows(path, rows)


def test_compare_by_a_field_of_the_input_rows_kept_under_metadata_row(tmp_path: Path, capsys) -> None:
    # The guide: a generic row's other fields are kept under metadata.row, so --by reads them.
    out_a, out_b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for source, out, unsupported in (("in_a.jsonl", out_a, {}), ("in_b.jsonl", out_b, {"r3": ["a"]})):
        path = kinds_input(tmp_path / source, unsupported)
        assert main(["evaluate", str(path), "--judge", "labels", "--out", str(out), "--no-progress"]) == 0
    rows = [json.loads(line) for line in out_a.read_text().splitlines()]
    assert [row["metadata"] for row in rows] == [{"row": {"kind": k}} for k in ("fact", "fact", "howto", "howto")]
    capsys.readouterr()
    assert main(["compare", str(out_a), str(out_b), "--by", "kind", "--json", "--bootstrap", "100"]) == 0
    by = json.loads(capsys.readouterr().out)["by"]
    assert list(by) == ["fact", "howto"]  # no "(missing)"
    # adherence: fact rows 1.0 in both runs; howto: r3 drops from 1.0 to 0.0, r4 stays: mean difference -0.5
    fact, howto = by["fact"]["adherence"], by["howto"]["adherence"]
    assert (fact["n"], fact["diff"], fact["ties"]) == (2, 0.0, 2)
    assert (howto["n"], howto["diff"], howto["losses"]) == (2, pytest.approx(-0.5, abs=1e-12), 1)


def test_compare_by_a_field_no_row_has_is_an_error_naming_the_fields_there_are(tmp_path: Path, capsys) -> None:
    out_a, out_b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for out in (out_a, out_b):
        path = kinds_input(tmp_path / "in.jsonl", {})
        assert main(["evaluate", str(path), "--judge", "labels", "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["compare", str(out_a), str(out_b), "--by", "knd"]) == 2
    err = capsys.readouterr().err
    # the rows' plain fields but those each row has its own of (id, line, question ...): only kind here
    assert err == "rageval: error: no row has the field 'knd' to compare by; the fields there are: kind.\n"
    from rageval_lc.reports.compare import compare

    with pytest.raises(ValueError, match="no row has the field 'knd'"):
        compare(out_a, out_b, by="knd")
