"""A run's scores with labelled rows: labels matched to rows, the prediction-powered mean per score (checked against
ppi-python on the rows split by hand), the difference of two runs, the rows drawn to label, and the page."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from rageval_lc.reports.label_sample import draw_rows, input_fields, label_scores
from rageval_lc.reports.labelled import (
    LabelRow,
    format_labelled_summary,
    labelled_difference,
    labelled_summary,
    match_labels,
    read_labels,
)
from rageval_lc.reports.ppi import ppi_mean

#: ppi-python and this module compute the same sums; only their order may differ.
PPI_PY_ABS = 1e-10
#: The normal quantile of a two-sided 95 % interval.
Z = 1.959963984540054

needs_ppi_py = pytest.mark.skipif(
    importlib.util.find_spec("ppi_py") is None, reason="ppi-python is not installed (a test extra)"
)


def result(row_id: str, score: float | None, *, name: str = "adherence", line: int | None = None, **extra) -> dict:
    status = "ok" if score is not None else "undetermined"
    row = {"id": row_id, "status": {name: status}, "scores": {name: score}, **extra}
    if line is not None:
        row["line"] = line
    return row


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def simulated_run(seed: int, size: int = 400, labelled: int = 90) -> tuple[list[dict], list[dict], dict]:
    """A run judged by a 0/1 judge right on ~75 % of the rows, a uniform sample of it labelled (the truth), and
    the truth of every row."""
    rng = np.random.default_rng(seed)
    truth = rng.random(size) < 0.65
    judged = np.where(rng.random(size) < 0.75, truth, ~truth)
    rows = [result(f"r{i}", float(judged[i]), line=i + 1, response=f"answer {i}") for i in range(size)]
    chosen = sorted(rng.choice(size, size=labelled, replace=False).tolist())
    labels = [{"id": f"r{i}", "response": f"answer {i}", "labels": {"adherence": bool(truth[i])}} for i in chosen]
    return rows, labels, {"truth": truth, "judged": judged, "chosen": chosen}


@needs_ppi_py
@pytest.mark.parametrize("seed", [0, 1])
def test_the_summary_is_ppi_python_s_estimate_on_the_rows_split_by_hand(seed: int, tmp_path: Path) -> None:
    from ppi_py import classical_mean_ci, ppi_mean_ci, ppi_mean_pointestimate

    rows, labels, data = simulated_run(seed)
    est = labelled_summary(write_jsonl(tmp_path / "scores.jsonl", rows), write_jsonl(tmp_path / "l.jsonl", labels))
    est = est.scores["adherence"]
    mask = np.zeros(len(rows), dtype=bool)
    mask[data["chosen"]] = True
    y, f, fu = data["truth"][mask].astype(float), data["judged"][mask].astype(float), data["judged"][~mask] * 1.0
    low, high = ppi_mean_ci(y, f, fu, alpha=0.05)
    assert (est.n, est.n_unlabelled) == (90, 310)
    assert est.mean == pytest.approx(float(ppi_mean_pointestimate(y, f, fu)[0]), abs=PPI_PY_ABS)
    normal = (est.mean - Z * est.se, est.mean + Z * est.se)  # ppi-python's interval; a rate's shown is Wilson's
    assert normal == pytest.approx((float(low[0]), float(high[0])), abs=PPI_PY_ABS)
    classical = tuple(map(float, classical_mean_ci(y, alpha=0.05)))
    normal = (est.classical_mean - Z * est.classical_se, est.classical_mean + Z * est.classical_se)
    assert normal == pytest.approx(classical, abs=PPI_PY_ABS)
    assert est.judge_mean == pytest.approx(float(data["judged"].mean()), abs=PPI_PY_ABS)


def test_matching_by_id_line_and_answer() -> None:
    rows = [
        result("x", 1.0, line=1, response="One."),
        result("x", 0.0, line=2, response="Two."),
        result("y", 1.0, line=3, response="Three."),
        result("w", 1.0, line=4),
    ]
    labels = [
        LabelRow("f:1", "x", 2, "Two.", {"adherence": 0.0}),  # the line picks the second "x"
        LabelRow("f:2", "z", None, None, {"adherence": 1.0}),  # no such row
        LabelRow("f:3", "y", None, "Something else.", {"adherence": 0.0}),  # another answer
        LabelRow("f:4", "x", None, None, {"adherence": 1.0}),  # "x" twice, no line
        LabelRow("f:5", "w", None, "Any.", {"adherence": 1.0}),  # the scored row keeps no answer: not checked
        LabelRow("f:6", "y", None, "Three.", {"adherence": 1.0}, run="B"),  # for run B only
    ]
    matching = match_labels(rows, labels, run="A")
    assert {index: label.where for index, label in matching.labels.items()} == {1: "f:1", 3: "f:5"}
    assert (matching.not_scored, matching.other_answer, matching.ambiguous) == (["z"], ["y"], ["x"])
    assert sorted(match_labels(rows, labels).labels) == [1, 2, 3]  # no run named: f:6 labels "y"


def test_two_labels_of_one_row_merge_when_they_agree_and_fail_when_not() -> None:
    rows = [result("x", 1.0)]
    agree = [LabelRow("f:1", "x", None, None, {"a": 1.0, "b": None}), LabelRow("f:2", "x", None, None, {"b": 0.0})]
    assert match_labels(rows, agree).labels[0].values == {"a": 1.0, "b": 0.0}
    clash = [LabelRow("f:1", "x", None, None, {"a": 1.0}), LabelRow("f:2", "x", None, None, {"a": 0.0})]
    with pytest.raises(ValueError, match=r"f:1 and f:2 label the same row \(x\) differently \(a\)"):
        match_labels(rows, clash)


def test_a_results_file_of_the_labels_judge_gives_labels(tmp_path: Path) -> None:
    truth = [result("a", 1.0, run={"judge": "labels"}), result("b", None), result("c", 0.0)]
    labels = read_labels(write_jsonl(tmp_path / "truth.jsonl", truth))
    assert [(label.id, label.values) for label in labels] == [
        ("a", {"adherence": 1.0}),
        ("b", {"adherence": None}),
        ("c", {"adherence": 0.0}),
    ]
    assert labels[0].run is None  # a result row's run is its settings, not A or B


def test_labels_the_judge_did_not_score_and_blanks_are_counted_apart() -> None:
    rows = [result("a", 1.0), result("b", None), result("c", 0.0), result("d", 1.0), result("e", 0.0)]
    labels = [
        {"id": "a", "labels": {"adherence": 1}},
        {"id": "b", "labels": {"adherence": 0}},  # the judge left it undetermined: left out, counted
        {"id": "c", "labels": {"adherence": None}},  # blank: an unlabelled row
        {"id": "d", "labels": {"adherence": True}},
    ]
    summary = labelled_summary(rows, labels)
    est = summary.scores["adherence"]
    assert (est.n, est.n_unlabelled, summary.judge_not_ok) == (2, 2, {"adherence": 1})
    assert est.classical_mean == pytest.approx(1.0, abs=1e-12)
    assert est.judge_mean == pytest.approx(0.5, abs=1e-12)  # the judge's 1, 0, 1, 0 on the four rows it scored


def test_a_score_with_too_few_labels_or_not_in_the_run_is_named() -> None:
    rows = [result("a", 1.0), result("b", 0.0), result("c", 1.0)]
    labels = [{"id": "a", "labels": {"adherence": 1, "faithfulnes": 1}}]
    summary = labelled_summary(rows, labels)
    assert summary.scores == {}
    assert summary.without == {
        "adherence": "1 labelled row with an ok judge score (needs 2)",
        "faithfulnes": "not a score of the run",
    }
    text = format_labelled_summary(summary)
    assert "adherence: no estimate (1 labelled row with an ok judge score (needs 2))." in text
    assert "faithfulnes: no estimate (not a score of the run)." in text


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "a", "labels": {"adherence": "yes"}}', r"l.jsonl:1: labels.adherence must be a number, true / false"),
        ('{"id": "a", "labels": {"adherence": ["0a"]}}', r"--judge labels"),
        ('{"id": "a", "adherence": 1}', r"l.jsonl:1: a labelled row needs a 'labels' object"),
        ('{"labels": {"adherence": 1}}', r"l.jsonl:1: a labelled row needs an 'id'"),
        ('{"id": "a", "run": "C", "labels": {"adherence": 1}}', r"'run' must be 'A' or 'B'"),
        ('{"id": "a", "line": "3", "labels": {"adherence": 1}}', r"'line' must be an integer"),
        ("[1, 2]", r"l.jsonl:1: a labelled row must be a JSON object"),
        ('{"id": "a", "labels": {"adherence": null}}', r"holds no label"),
        ("{not json", r"l.jsonl:1: not JSON"),
        ('{"id": "a", "labels": {"relevance": 1}}', r"the labels name no score of the run: they give relevance"),
    ],
)
def test_bad_labels_name_the_file_line_and_field(line: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        labelled_summary([result("a", 1.0), result("b", 0.0)], path)


@needs_ppi_py
def test_the_difference_of_two_runs_is_ppi_python_s_on_the_paired_differences() -> None:
    from ppi_py import ppi_mean_ci

    rng = np.random.default_rng(4)
    size = 300
    truth_a = rng.random(size) < 0.55
    truth_b = truth_a | (rng.random(size) < 0.3)
    judged_a = np.where(rng.random(size) < 0.8, truth_a, ~truth_a)
    judged_b = np.where(rng.random(size) < 0.8, truth_b, ~truth_b)
    run_a = [result(f"q{i}", float(judged_a[i]), response=f"A{i}") for i in range(size)]
    run_b = [result(f"q{i}", float(judged_b[i]), response=f"B{i}") for i in reversed(range(size))]  # another order
    chosen = rng.choice(size, size=80, replace=False)
    labels = [
        {"id": f"q{i}", "run": run, "response": f"{run}{i}", "labels": {"adherence": bool(truth[i])}}
        for i in chosen
        for run, truth in (("A", truth_a), ("B", truth_b))
    ]
    est = labelled_difference(run_a, run_b, labels).scores["adherence"]
    mask = np.zeros(size, dtype=bool)
    mask[chosen] = True
    y = truth_b[mask].astype(float) - truth_a[mask]
    f = judged_b[mask].astype(float) - judged_a[mask]
    fu = judged_b[~mask].astype(float) - judged_a[~mask]
    low, high = ppi_mean_ci(y, f, fu, alpha=0.05)
    assert (est.n, est.n_unlabelled) == (80, 220)
    assert (est.ci_low, est.ci_high) == pytest.approx((float(low[0]), float(high[0])), abs=PPI_PY_ABS)
    assert est.classical_mean == pytest.approx(float(y.mean()), abs=1e-12)
    assert est.judge_mean == pytest.approx(float(judged_b.mean() - judged_a.mean()), abs=1e-12)


def test_a_difference_needs_labels_of_both_answers() -> None:
    run_a = [result(f"q{i}", 0.0, response=f"A{i}") for i in range(5)]
    run_b = [result(f"q{i}", 1.0, response=f"B{i}") for i in range(5)]
    only_a = [{"id": f"q{i}", "run": "A", "labels": {"adherence": 0}} for i in range(5)]
    summary = labelled_difference(run_a, run_b, only_a)
    assert summary.scores == {}
    assert summary.without == {"adherence": "0 pairs labelled in both runs and ok (needs 2)"}
    unrouted = [{"id": f"q{i}", "response": f"A{i}", "labels": {"adherence": 0}} for i in range(5)]
    assert labelled_difference(run_a, run_b, unrouted).matching.other_answer == [f"q{i}" for i in range(5)]


def test_the_draw_is_uniform_seeded_and_in_file_order() -> None:
    rows = [result(f"q{i}", float(i % 2), line=i + 1, question="Q?", response=f"A{i}.") for i in range(50)]
    rows[7] = result("q7", None, line=8)  # nothing to label on it: not drawn from
    drawn = draw_rows([rows], 6, seed=3)
    eligible = [row for row in rows if row["status"]["adherence"] == "ok"]
    expected = sorted(np.random.default_rng(3).choice(len(eligible), size=6, replace=False).tolist())
    assert [row["id"] for row in drawn] == [eligible[i]["id"] for i in expected]
    first = eligible[expected[0]]
    assert drawn[0] == {
        "id": first["id"],
        "line": first["line"],
        "question": "Q?",
        "response": first["response"],
        "labels": {"adherence": None},
    }
    assert [row["id"] for row in draw_rows([rows], 6, seed=4)] != [row["id"] for row in drawn]


def test_two_runs_draw_pairs_one_line_per_answer() -> None:
    run_a = [result(f"q{i}", 1.0, line=i + 1, response="Same." if i % 2 else f"A{i}") for i in range(10)]
    run_b = [result(f"q{i}", 0.0, line=i + 1, response="Same." if i % 2 else f"B{i}") for i in range(10)]
    drawn = draw_rows([run_a, run_b], 10, seed=0)
    assert len(drawn) == 15  # 5 pairs with two answers, 5 with one
    assert [(row["id"], row.get("run")) for row in drawn[:3]] == [("q0", "A"), ("q0", "B"), ("q1", None)]


def test_the_scores_to_label_and_bad_draws() -> None:
    rows = [
        {"id": str(i), "status": {"adherence": "ok", "adherence_probability": "ok", "completeness": "ok"},
         "scores": {"adherence": 1.0, "adherence_probability": 0.9, "completeness": 0.5}}
        for i in range(4)
    ]  # fmt: skip
    assert label_scores([rows]) == ["adherence", "completeness"]  # not the companion adherence_probability
    assert label_scores([rows], ["completeness"]) == ["completeness"]
    with pytest.raises(ValueError, match=r"--score 'faith' is not a score of the run \(there are: adherence, "):
        draw_rows([rows], 2, scores=["faith"])
    with pytest.raises(ValueError, match=r"--n 5 is more than the 4 rows with an ok score to label"):
        draw_rows([rows], 5)
    with pytest.raises(ValueError, match=r"--n must be an integer >= 2"):
        draw_rows([rows], 1)


def test_the_input_file_gives_each_row_its_documents(tmp_path: Path) -> None:
    inputs = write_jsonl(
        tmp_path / "rows.jsonl",
        [{"id": "a", "question": "Q?", "contexts": ["Doc one.", "Doc two."], "response": "R.", "reference": "Ref."}],
    )
    rows = [result("a", 1.0, line=1), result("b", 1.0, line=7)]
    fields, missing = input_fields(inputs, rows)
    assert (fields, missing) == ({1: {"contexts": ["Doc one.", "Doc two."], "reference": "Ref."}}, 1)


def test_the_report_page_draws_the_three_intervals() -> None:
    from rageval_lc.reports.html import render_html

    rows = [result(f"q{i}", v) for i, v in enumerate([1, 1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0])]
    labels = [{"id": f"q{i}", "labels": {"adherence": v}} for i, v in enumerate([1, 1, 0, 0, 1, 0, 1, 0])]
    summary = labelled_summary(rows, labels)
    est = ppi_mean([1, 1, 0, 0, 1, 0, 1, 0], [1, 1, 0, 1, 1, 0, 1, 0], [1, 0, 1, 1, 0, 1, 1, 0])  # by hand: 0.5
    page = render_html(rows, labelled=summary, n_resamples=0)
    assert "How good, really: with labelled rows" in page
    assert f"<b>{est.mean:.3f}</b> <span class='ci'>[{est.ci_low:.3f}, {est.ci_high:.3f}]</span>" in page
    assert "<b>0.500</b> <span class='ci'>[0.249, 0.751]</span>" in page  # test_ppi's hand computation
    assert "labels only: 0.500 [0.215, 0.785]" in page  # the plot's hover tip: Wilson's 4 of 8
    assert "prediction-powered" in page and "uniform random sample" in page


def stratified_population(seed: int) -> list[dict]:
    """900 rows of a common sub-dataset (true rate 0.9) and 100 of a rare one (0.1), a judge right on ~80 %."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(1000):
        dataset, rate = ("common", 0.9) if i < 900 else ("rare", 0.1)
        truth = bool(rng.random() < rate)
        judged = truth if rng.random() < 0.8 else not truth
        rows.append({**result(f"r{i}", float(judged), line=i + 1), "metadata": {"dataset": dataset}, "truth": truth})
    return rows


def test_a_stratified_draw_is_weighed_by_each_stratum_s_share() -> None:
    rows = stratified_population(5)
    drawn = draw_rows([rows], 60, seed=1, stratify_by="dataset")
    assert [sum(row["stratum"] == name for row in drawn) for name in ("common", "rare")] == [30, 30]
    assert {(row["stratified_by"], row["stratum"]) for row in drawn} == {("dataset", "common"), ("dataset", "rare")}
    truth = {row["id"]: row["truth"] for row in rows}
    for row in drawn:
        row["labels"]["adherence"] = truth[row["id"]]
    summary = labelled_summary(rows, drawn)
    est = summary.scores["adherence"]
    # by hand: each stratum's labels' mean, weighed 0.9 and 0.1 (the unweighted mean of the 60 labels is near 0.5)
    mean_common = np.mean([truth[row["id"]] for row in drawn if row["stratum"] == "common"])
    mean_rare = np.mean([truth[row["id"]] for row in drawn if row["stratum"] == "rare"])
    assert est.classical_mean == pytest.approx(0.9 * mean_common + 0.1 * mean_rare, abs=1e-12)
    assert summary.stratified_by == "dataset"
    assert "Stratified by dataset: each stratum's estimate weighed by its share of the rows" in format_labelled_summary(
        summary
    )
    unweighted = labelled_summary(rows, [{**row, "stratum": None, "stratified_by": None} for row in drawn])
    assert unweighted.scores["adherence"].classical_mean == pytest.approx(
        np.mean([truth[row["id"]] for row in drawn]), abs=1e-12
    )


def test_the_stratified_interval_holds_the_true_rate_where_the_unweighted_one_misses() -> None:
    rows = stratified_population(6)
    true_rate = np.mean([row["truth"] for row in rows])
    truth = {row["id"]: row["truth"] for row in rows}
    held = {"stratified": 0, "unweighted": 0}
    for seed in range(200):
        drawn = draw_rows([rows], 60, seed=seed, stratify_by="dataset")
        for row in drawn:
            row["labels"]["adherence"] = truth[row["id"]]
        est = labelled_summary(rows, drawn).scores["adherence"]
        held["stratified"] += est.ci_low <= true_rate <= est.ci_high
        plain = labelled_summary(rows, [{**row, "stratum": None, "stratified_by": None} for row in drawn])
        est = plain.scores["adherence"]
        held["unweighted"] += est.ci_low <= true_rate <= est.ci_high
    assert held["stratified"] >= 180  # 95 % of 200, less the draws' noise
    assert held["unweighted"] <= 100  # the rare stratum counted as if half the rows


def test_stratified_draws_say_what_is_wrong() -> None:
    rows = stratified_population(7)
    with pytest.raises(ValueError, match=r"--stratify-by 'topic': no row has the field; the fields there are: "):
        draw_rows([rows], 10, stratify_by="topic")
    with pytest.raises(ValueError, match=r"--n 3 is below 2 rows for each of the 2 strata"):
        draw_rows([rows], 3, stratify_by="dataset")
    with pytest.raises(ValueError, match=r"the stratum 'rare' has fewer than 2 rows"):
        draw_rows([rows[:901]], 10, stratify_by="dataset")
    with pytest.raises(ValueError, match=r"--stratify-by draws for one run"):
        draw_rows([rows, rows], 10, stratify_by="dataset")
    drawn = draw_rows([rows], 10, stratify_by="dataset")
    with pytest.raises(ValueError, match=r"the labels mix draws"):
        labelled_summary(rows, [*drawn, {"id": "r0", "labels": {"adherence": 1}}])
    with pytest.raises(ValueError, match=r"labels\[0\]: stratum 'rare', but the scored row's dataset is 'common'"):
        labelled_summary(rows, [{**drawn[0], "stratum": "rare", "labels": {"adherence": 1}}])
    with pytest.raises(ValueError, match=r"rageval report reads; compare runs on a uniform draw"):
        labelled_difference(rows, rows, [{**drawn[0], "labels": {"adherence": 1}}])


def test_too_few_labels_or_labels_all_alike_are_called_out() -> None:
    from rageval_lc.reports.labelled import caution

    varied = ppi_mean([1, 0] * 20, [1, 0] * 20, [1, 0, 1])
    alike = ppi_mean([1] * 40, [1, 0] * 20, [1, 0, 1])
    few = ppi_mean([1, 0] * 4, [1, 0] * 4, [1, 0, 1])
    assert caution(varied) is None
    assert caution(alike) == "40 labels, all the same value: the intervals are too narrow to trust; label more rows"
    assert caution(few) == "only 8 labels: the intervals are too narrow to trust; label more rows"
    rows = [result(f"q{i}", float(i % 2)) for i in range(12)]
    text = format_labelled_summary(
        labelled_summary(rows, [{"id": f"q{i}", "labels": {"adherence": 1}} for i in range(4)])
    )
    assert (
        "adherence: only 4 labels, all the same value: the intervals are too narrow to trust; label more rows." in text
    )
