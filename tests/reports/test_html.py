"""`rageval report`: the summary on stdout and a self-contained, escaped HTML page."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pytest

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


# --- what needs a look (issue 16): intervals, worst rows by any score, contradictions, cut text -------------


def _ok_rows(name: str, values: list[float | None], **extra_scores: list[float]) -> list[dict]:
    """Rows with one ``ok`` value of ``name`` each (None: undetermined), ids r00, r01, ... on lines 1, 2, ..."""
    rows = []
    for i, value in enumerate(values):
        scores = {name: value, **{k: v[i] for k, v in extra_scores.items()}}
        status = {k: "ok" if v is not None else "undetermined" for k, v in scores.items()}
        reason = {k: f"reason of {k} for r{i:02d}" for k in scores}
        rows.append({"id": f"r{i:02d}", "line": i + 1, "scores": scores, "status": status, "reason": reason})
    return rows


def _listed(page: str, heading: str) -> list[str]:
    """The row ids of the list whose summary starts with ``heading``, in page order."""
    start = page.index(f"<summary>{heading} ")
    block = page[start : page.index("</table>", start)]
    return re.findall(r"<td class='text'>(r\d\d)<br><span class='muted'>line \d+</span>", block)


def test_summary_shows_each_mean_with_the_bootstrap_interval_of_its_ok_values() -> None:
    from rageval_lc.reports.stats import bootstrap_ci

    values = [0.9, 0.8, 1.0, 0.7, 0.95, 0.6, 0.85, 0.75, 0.9, 1.0, 0.65, 0.8]
    rows = _ok_rows("faithfulness", [*values, None])
    rows.append({"id": "bad", "scores": {"faithfulness": 0.0}, "status": {"faithfulness": "error"}, "reason": {}})
    # mean by hand: the 12 ok values sum to 9.9, so 0.825; the undetermined and the error row are left out
    low, high = bootstrap_ci(values, seed=0)  # the numbers the page must show, from the same ok values
    assert low < 0.825 < high and high - low < 0.3
    page = render_html(rows)
    shown = f"<b>0.825</b> <span class='ci'>[{low:.3f}, {high:.3f}]</span>"
    assert shown in page
    assert f"aria-label='mean 0.825, 95 % interval {low:.3f} to {high:.3f}'" in page  # the bar draws it
    # the band spans low..high of the 160-pixel bar
    assert f"<rect x='{low * 160:.1f}' y='1' width='{(high - low) * 160:.1f}'" in page
    # seeded: the same rows give the same page (but for the time it was generated)
    again = render_html(rows)
    assert re.sub(r"generated [^<]*", "", again) == re.sub(r"generated [^<]*", "", page)


def test_worst_rows_for_a_chosen_score_are_the_k_lowest_ok_rows() -> None:
    rng = np.random.default_rng(7)
    faith = [round(float(v), 3) for v in rng.uniform(0, 1, 25)]
    faith[3] = faith[17]  # a tie: file order decides
    values: list[float | None] = list(faith)
    values[5] = values[11] = None  # undetermined rows are never ranked
    relevance = [round(float(v), 3) for v in rng.uniform(0, 1, 25)]
    rows = _ok_rows("faithfulness", values, answer_relevance=relevance)
    ok = [i for i, v in enumerate(values) if v is not None]
    expected = [f"r{ok[j]:02d}" for j in np.argsort([values[i] for i in ok], kind="stable")[:5]]
    page = render_html(rows, worst=5, worst_by=("faithfulness",))
    assert _listed(page, "Worst rows by faithfulness") == expected
    assert "Worst rows by answer_relevance" not in page  # only the score asked for
    page = render_html(rows, worst=5, worst_by=["answer_relevance", "faithfulness"])
    expected_relevance = [f"r{i:02d}" for i in np.argsort(relevance, kind="stable")[:5]]
    assert _listed(page, "Worst rows by answer_relevance") == expected_relevance
    assert _listed(page, "Worst rows by faithfulness") == expected
    assert page.count("<details class='list' open>") == 2  # the lists asked for are open


def test_worst_rows_default_to_every_score_and_rank_the_spread_highest_first() -> None:
    page = render_html(ROWS)
    # aggregates first and open, each other score folded; context_utilization, completeness and adherence rank
    # the rows the first two lists hold (both rows, or the one ok row): no list of their own
    lists = re.findall(r"<details class='list'( open)?><summary>Worst rows by (\w+)", page)
    assert lists == [(" open", "average"), ("", "context_relevance")]
    assert (
        "<p class='muted'>Same rows as the lists above, so not listed again: context_utilization, completeness, "
        "adherence (ask for a score's list with --worst-by).</p>"
    ) in page
    spread = [0.1, 0.4, 0.2, 0.4]
    rows = _ok_rows("rmse_aggregation", spread)  # higher is worse: 0.4 (r01, then r03 by file order), then 0.2
    page = render_html(rows)  # listed by default, as the guide says
    assert _listed(page, "Worst rows by rmse_aggregation") == ["r01", "r03", "r02", "r00"]
    assert "<span class='muted'>4 rows, highest first: higher is worse</span>" in page
    page = render_html(rows, worst=3, worst_by="rmse_aggregation")
    assert _listed(page, "Worst rows by rmse_aggregation") == ["r01", "r03", "r02"]


def test_a_worst_rows_list_is_shown_only_where_it_adds_a_row() -> None:
    rows = _ok_rows(
        "average",
        [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],  # worst three: r00, r01, r02
        faithfulness=[0.3, 0.2, 0.1, 0.9, 0.9, 0.9],  # r02, r01, r00: all listed above
        context_relevance=[0.1, 0.9, 0.9, 0.2, 0.3, 0.9],  # r00, r03, r04: adds r03, r04
        rmse_aggregation=[0.8, 0.7, 0.1, 0.1, 0.1, 0.9],  # highest first, r05, r00, r01: adds r05
        adherence=[0.0, 1.0, 1.0, 0.0, 0.0, 1.0],  # r00, r03, r04 (ties in file order): all listed above
    )
    page = render_html(rows, worst=3)
    assert re.findall(r"<summary>Worst rows by (\w+)", page) == ["average", "context_relevance", "rmse_aggregation"]
    assert _listed(page, "Worst rows by average") == ["r00", "r01", "r02"]
    assert _listed(page, "Worst rows by context_relevance") == ["r00", "r03", "r04"]
    assert _listed(page, "Worst rows by rmse_aggregation") == ["r05", "r00", "r01"]
    assert (
        "<p class='muted'>Same rows as the lists above, so not listed again: faithfulness, adherence (ask for a "
        "score's list with --worst-by).</p>"
    ) in page
    # asked for: every list, whatever it repeats
    asked = ["average", "faithfulness", "context_relevance", "rmse_aggregation", "adherence"]
    page = render_html(rows, worst=3, worst_by=asked)
    assert re.findall(r"<summary>Worst rows by (\w+)", page) == asked
    assert "not listed again" not in page


def test_worst_rows_show_question_answer_and_the_reason_for_that_score() -> None:
    rows = _ok_rows("faithfulness", [0.2, 0.9])
    rows[0]["question"], rows[0]["response"] = "Who won in 1998?", "France won."
    page = render_html(rows, worst=1, worst_by="faithfulness")
    row = page[page.index("<summary>Worst rows by faithfulness") :]
    assert "r00" in row and "line 1" in row and "0.200" in row
    assert "Who won in 1998?" in row and "France won." in row and "reason of faithfulness for r00" in row
    assert "r01" not in row


def test_a_row_without_an_id_is_shown_by_its_line_or_its_place_in_the_run() -> None:
    rows = _ok_rows("faithfulness", [0.2, 0.9, 0.5])
    rows[0]["id"] = None  # a results file's row: its input line
    del rows[2]["id"], rows[2]["line"]  # a Python run's row (EvaluationRun.rows()): its place, third
    page = render_html(rows, worst=3, worst_by="faithfulness")
    start = page.index("<summary>Worst rows by faithfulness ")
    block = page[start : page.index("</table>", start)]
    labels = re.findall(r"<tr><td class='text'>(.*?)</td>", block)  # worst first: 0.2, 0.5, 0.9
    assert labels == ["line 1", "#3", "r01<br><span class='muted'>line 2</span>"]
    assert "None" not in block


def test_answer_is_pieced_from_the_judge_sentences_and_missing_questions_are_explained_once() -> None:
    rows = _ok_rows("adherence", [0.0])
    rows[0]["details"] = {"trace": {"sentence_support": [{"key": "a", "sentence": "Paris is big."},
                                                         {"key": "b", "sentence": "It is in Spain."}]}}  # fmt: skip
    page = render_html(rows)
    assert "Paris is big. It is in Spain." in page and "pieced from the judge" in page
    assert page.count("--input INPUT.jsonl") == 1


def _contradiction_rows() -> list[dict]:
    """Rows as the offline judge writes them (see details.trace in a `rageval evaluate` row)."""

    def row(i: int, support: list[dict], flagged: list[dict] | None = None) -> dict:
        notes = {"sentence_verdicts": {}} | ({"contradictions": flagged} if flagged else {})
        return {
            "id": f"c{i}",
            "line": i,
            "scores": {"adherence": 0.0 if flagged or i == 2 else 1.0},
            "status": {"adherence": "ok"},
            "reason": {"adherence": f"adherence reason {i}"},
            "details": {"trace": {"judge_notes": notes, "sentence_support": support}},
        }

    return [
        row(1, [{"key": "a", "sentence": "Paris is in France.", "explanation": "Supported by 0a (entailment 0.99)."}]),
        row(2, [{"key": "a", "sentence": "Everest is 6,120 metres tall.",
                 "explanation": "Contradicted by 0a: says 6,120 metres; 0a says 8,849 metres (contradiction "
                                "probability 0.97); estimated probability unsupported 0.48."}]),
        row(3, [{"key": "a", "sentence": "It has 3 moons.", "explanation": "Not found in the documents."}]),
        row(4, [{"key": "a", "sentence": "The wall fell in 1991.", "explanation": "Contradicted by 0b."}],
            flagged=[{"response_sentence_key": "a", "document_sentence_keys": ["0b"], "conflict": "says 1991; "
                      "0b says 1989"}]),
    ]  # fmt: skip


def test_contradicted_rows_are_listed_flagged_first() -> None:
    page = render_html(_contradiction_rows())
    section = page[page.index("<h2>Contradictions</h2>") : page.index("<h2>Worst rows</h2>")]
    # c4 (the judge's verdict) before c2 (named in its reason only); c1 (supported) and c3 (not found) not listed
    assert re.findall(r"<td class='text'>(c\d)<br>", section) == ["c4", "c2"]
    assert "The wall fell in 1991." in section and "contradicted by 0b" in section and "0b says 1989" in section
    assert "Everest is 6,120 metres tall." in section and "0a says 8,849 metres" in section
    assert "2 rows with a response sentence" in section and "(1 row)" in section  # one flagged
    assert "Paris is in France." not in section and "It has 3 moons." not in section
    assert "None found" in render_html(_contradiction_rows()[:1])


def test_contradiction_reading_matches_the_offline_judge_wording() -> None:
    from types import SimpleNamespace

    from rageval_lc.judges.offline.labelling import sentence_explanation
    from rageval_lc.judges.offline.nli_pass import SentenceNli
    from rageval_lc.reports.attention import CONTRADICTED_BY

    verdict = SentenceNli("contradicted", 0.01, 0.97, (), ("0a",), "says 1991; 0a says 1989")
    features = SimpleNamespace(best_matches=[("0a",)], best_similarity=[0.8], missing_words=[["1991"]])
    assert sentence_explanation(features, [verdict], 0, 0.6, True).startswith(CONTRADICTED_BY + "0a: says 1991")
    assert not sentence_explanation(features, [verdict], 0, 0.1, False).startswith(CONTRADICTED_BY)  # not flagged


def test_long_text_is_cut_at_a_word_boundary_with_the_whole_text_one_click_away() -> None:
    words = [f"word{i}" for i in range(120)]
    answer = " ".join(words) + " <img src=x onerror=alert(1)> & more"
    rows = _ok_rows("faithfulness", [0.1])
    rows[0]["question"], rows[0]["response"] = "Why?", answer
    page = render_html(rows)
    head = ""  # by hand: whole words while the preview stays within 260 characters
    for word in words:
        if len(head) + 1 + len(word) > 260:
            break
        head = f"{head} {word}" if head else word
    assert f"<span class='preview'>{head}…</span>" in page
    assert answer[len(head)] == " "  # the cut falls between two words
    assert f"<div class='full'>{html.escape(answer)}</div>" in page  # the whole text, escaped, in <details>
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt; &amp; more" in page
    assert "show all (" in page and "<script" not in page


def test_a_very_long_text_shows_a_bounded_whole_and_says_how_much_is_cut() -> None:
    from rageval_lc.reports.html import FULL_CHARS

    rows = _ok_rows("faithfulness", [0.1])
    rows[0]["response"] = "x " * 10_000  # 20,000 characters
    page = render_html(rows)
    assert f"({20_000 - FULL_CHARS:,} characters cut; the results file keeps them)" in page
    assert "x " * 10_000 not in page


def test_render_html_refuses_bad_worst_and_unknown_scores() -> None:
    with pytest.raises(ValueError, match=r"'worst' parameter of render_html must be an int >= 1. Got 0"):
        render_html(ROWS, worst=0)
    with pytest.raises(ValueError, match=r"'worst_by' parameter .* \(context_relevance, .*\). Got 'faithfulness'"):
        render_html(ROWS, worst_by="faithfulness")


def test_report_command_reads_questions_from_the_input_and_lists_worst_rows_by_a_chosen_score(
    tmp_path: Path, capsys
) -> None:
    from rageval_lc.engine.jsonl import evaluate_lines

    def sample(i: int, unsupported: list[str]) -> dict:
        labels = {"all_relevant_sentence_keys": ["0a"], "unsupported_response_sentence_keys": unsupported}
        return {"id": f"q{i}", "question": f"Question <{i}>?", "contexts": ["Paris is in France. It is big."],
                "response": f"Answer {i}. Second sentence.", "labels": labels}  # fmt: skip

    inputs = tmp_path / "in.jsonl"
    inputs.write_text("".join(json.dumps(sample(i, ["a", "b"][: i % 3])) + "\n" for i in range(6)), encoding="utf-8")
    results = tmp_path / "scores.jsonl"
    with inputs.open(encoding="utf-8") as lines, results.open("w", encoding="utf-8") as out:
        evaluate_lines(lines, out, metrics="trace", judge="labels")
    questions = [json.loads(line)["question"] for line in results.read_text(encoding="utf-8").splitlines()]
    assert questions[:2] == ["Question <0>?", "Question <1>?"]
    # results written before rows carried their question and response: --input supplies them
    older = [{k: v for k, v in json.loads(line).items() if k not in ("question", "response")}
             for line in results.read_text(encoding="utf-8").splitlines()]  # fmt: skip
    results.write_text("".join(json.dumps(row) + "\n" for row in older), encoding="utf-8")
    page = tmp_path / "page.html"
    assert main(["report", str(results), "--input", str(inputs), "--html", str(page), "--worst-by",
                 "adherence_ratio", "--worst-by", "completeness", "--worst", "2"]) == 0  # fmt: skip
    text = page.read_text(encoding="utf-8")
    # adherence ratio by the labels, 1 - unsupported/2: q2, q5 (0.0), q1, q4 (0.5), q0, q3 (1.0); worst two: q2, q5
    start = text.index("<summary>Worst rows by adherence_ratio")
    block = text[start : text.index("</table>", start)]
    assert re.findall(r"<td class='text'>(q\d)<br>", block) == ["q2", "q5"]
    assert "Question &lt;2&gt;?" in block and "Answer 2. Second sentence." in block
    assert "Worst rows by context_relevance" not in text
    # an input line changed since it was scored: its question is not shown, and the command says so
    changed = inputs.read_text(encoding="utf-8").replace("Question <2>?", "Question <2> edited?")
    inputs.write_text(changed, encoding="utf-8")
    capsys.readouterr()
    assert main(["report", str(results), "--input", str(inputs), "--html", str(page), "--worst", "6"]) == 0
    assert "1 row without a matching line" in capsys.readouterr().err
    assert "Question &lt;2" not in page.read_text(encoding="utf-8")


def test_report_command_refuses_unknown_scores_and_html_options_without_html(tmp_path: Path, capsys) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n", encoding="utf-8")
    page = tmp_path / "page.html"
    assert main(["report", str(results), "--html", str(page), "--worst-by", "faithfulnes"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"rageval: error: --worst-by 'faithfulnes': no such score in {results} (it has context_relevance, "
                   "context_utilization, completeness, adherence, average)."]  # fmt: skip
    assert not page.exists()  # nothing written
    assert main(["report", str(results), "--worst-by", "adherence"]) == 2
    assert "give --html too" in capsys.readouterr().err
    assert main(["report", str(results), "--html", str(page), "--worst", "0"]) == 2
    assert main(["report", str(results), "--html", str(page), "--input", str(tmp_path / "none.jsonl")]) == 2
    assert "input file not found" in capsys.readouterr().err


def test_the_page_draws_the_intervals_it_is_asked_for() -> None:
    from rageval_lc.reports.stats import bootstrap_ci
    from rageval_lc.reports.summary import summarize

    assert "<span class='ci'>" not in render_html(ROWS, n_resamples=0)
    assert "No intervals (0 bootstrap resamples asked for)." in render_html(ROWS, n_resamples=0)
    page = render_html(ROWS, n_resamples=500, seed=7)
    first = summarize(ROWS, n_resamples=0)[0].name
    values = [r["scores"][first] for r in ROWS if r["status"][first] == "ok" and r["scores"][first] is not None]
    low, high = bootstrap_ci(values, n_resamples=500, seed=7)
    assert f"<span class='ci'>[{low:.3f}, {high:.3f}]</span>" in page and "500 resamples of the ok rows, seed 7" in page
