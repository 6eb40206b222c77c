"""The ``rageval`` command: evaluate through the CLI, bad rows, exit statuses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rageval_lc.cli import main
from tests.fakes import ProbabilityLabelsJudge
from tests.floats import ABS, assert_close_structure

RELEASED = {
    "context_relevance": "relevance_score",
    "context_utilization": "utilization_score",
    "completeness": "completeness_score",
    "adherence": "adherence_score",
}
SCORE_KEYS = [
    "context_relevance",
    "context_utilization",
    "completeness",
    "adherence",
    "average",
    "rmse_aggregation",
    "adherence_ratio",
]


#: The fields of a result row `rageval evaluate` writes.
RESULT_FIELDS = {"id", "line", "input_sha256", "run", "question", "response", "scores", "status", "reason", "details"}


def generic_row(row_id: str, **extra: object) -> dict:
    return {
        "id": row_id,
        "question": "What do cats do?",
        "contexts": ["Cats sleep a lot. Cats hunt mice.", "Dogs bark at night."],
        "response": "Cats sleep a lot. They fly.",
        "labels": {
            "all_relevant_sentence_keys": ["0a", "0b"],
            "all_utilized_sentence_keys": ["0a"],
            "sentence_support_information": [
                {"response_sentence_key": "a", "supporting_sentence_keys": ["0a"], "fully_supported": True},
                {"response_sentence_key": "b", "supporting_sentence_keys": [], "fully_supported": False},
            ],
        },
        **extra,
    }


def write_jsonl(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_cli_reproduces_every_released_ragbench_score(ragbench_files: list[Path], tmp_path: Path, capsys) -> None:
    source = tmp_path / "ragbench_all.jsonl"
    source.write_text("".join(p.read_text(encoding="utf-8") for p in ragbench_files), encoding="utf-8")
    inputs = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    out = tmp_path / "out.jsonl"
    status = main(
        [
            "evaluate",
            str(source),
            "--metrics",
            "trace",
            "--judge",
            "labels",
            "--trace-mode",
            "ragbench",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert status == 0
    rows = read_jsonl(out)
    assert len(rows) == len(inputs) == 2981
    for row, original in zip(rows, inputs, strict=True):
        assert row["id"] == f"{original['dataset_name']}:{original['id']}:{original['generation_model_name']}"
        assert list(row["scores"]) == SCORE_KEYS
        for metric, column in RELEASED.items():
            assert row["scores"][metric] == float(original[column]), (row["id"], metric)
            assert row["status"][metric] == "ok"
        assert set(row) == RESULT_FIELDS | {"metadata"}  # a RAGBench row's: its dataset and models
        assert row["metadata"]["dataset_name"] == original["dataset_name"]
    summary = capsys.readouterr().err
    assert "2981 rows scored, 0 failed, 0 undetermined." in summary
    assert "judge labels, trace_labels: 0 model calls, 0 tokens (estimated)." in summary
    assert "context_relevance" in summary


def test_cli_capstone_mode_on_a_hand_checked_row(tmp_path: Path, capsys) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [json.dumps(generic_row("cats"))])
    assert main(["evaluate", str(source), "--judge", "labels", "--trace-mode", "capstone", "--no-progress"]) == 0
    row = json.loads(capsys.readouterr().out)
    # Two relevant keys over 20 = 0.1; 1 utilized / 2 relevant = 0.5; overlap 1 / 2 = 0.5; b unsupported.
    assert row["scores"]["context_relevance"] == pytest.approx(0.1)
    assert row["scores"]["context_utilization"] == 0.5
    assert row["scores"]["completeness"] == 0.5
    assert row["scores"]["adherence"] == 0.0
    assert row["scores"]["adherence_ratio"] == 0.5
    assert row["scores"]["average"] == pytest.approx(0.275)
    assert row["details"]["trace"]["unsupported_sentences"] == 1
    assert row["reason"]["adherence"] == "Unsupported response sentences: b."


def test_cli_scores_the_rest_when_one_line_is_broken(tmp_path: Path, capsys) -> None:
    lines = [
        json.dumps(generic_row("r1")),
        '{"id": "r2", "question": "broken json',
        json.dumps(generic_row("r3", question="")),
        json.dumps({k: v for k, v in generic_row("r4").items() if k != "labels"}),
        "",
        json.dumps(generic_row("r5", contexts=[])),
        json.dumps(generic_row("r6", response=7)),
        json.dumps(generic_row("r7")),
    ]
    source = write_jsonl(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    assert main(["evaluate", str(source), "--judge", "labels", "--out", str(out), "--no-progress"]) == 0
    rows = read_jsonl(out)
    assert [r["line"] for r in rows] == [1, 2, 3, 4, 6, 7, 8]
    assert [r["id"] for r in rows] == ["r1", None, "r3", "r4", "r5", "r6", "r7"]
    failed = {r["line"]: r["reason"]["adherence"] for r in rows if r["status"]["adherence"] == "error"}
    assert set(failed) == {2, 3, 4, 7}
    assert "line 2 is not valid JSON" in failed[2]
    assert "'question' field of RagSample must be a non-empty string" in failed[3]
    assert "carries no TRACe labels" in failed[4]
    assert "'response' field of RagSample must be a str. Got int" in failed[7]
    no_contexts = rows[4]  # scored, not failed: its TRACe scores cannot be determined without contexts
    assert set(no_contexts["status"].values()) == {"undetermined"} and set(no_contexts["scores"].values()) == {None}
    assert set(no_contexts["reason"].values()) == {"No retrieved contexts were given."}
    for row in rows:
        if row["line"] in failed:
            assert set(row["status"].values()) == {"error"} and set(row["scores"].values()) == {None}
    assert rows[0]["scores"] == rows[-1]["scores"]
    err = capsys.readouterr().err
    assert "line 2 failed: " in err and "line 7 (id 'r6') failed" in err
    assert "7 rows scored, 4 failed, 1 undetermined." in err  # r5, without contexts, has no score
    assert main(["evaluate", str(source), "--judge", "labels", "--out", str(out), "--strict", "--no-progress"]) == 1


def test_cli_strict_passes_a_clean_file(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [json.dumps(generic_row("a"))])
    assert (
        main(
            [
                "evaluate",
                str(source),
                "--judge",
                "labels",
                "--out",
                str(tmp_path / "o.jsonl"),
                "--strict",
                "--no-progress",
            ]
        )
        == 0
    )


def test_cli_usage_errors(tmp_path: Path, capsys) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [json.dumps(generic_row("a"))])
    assert main(["evaluate", str(tmp_path / "missing.jsonl")]) == 2
    assert "input file not found" in capsys.readouterr().err
    assert main(["evaluate", str(source), "--metrics", "nonsense"]) == 2
    known = "Unknown metric 'nonsense'. Known metrics: answer_classification, answer_relevance, bert_score"
    assert known in capsys.readouterr().err
    assert main(["evaluate", str(source), "--trace-mode", "capstone", "--relevance-normalizer", "0"]) == 2
    with pytest.raises(SystemExit) as exit_info:
        main(["evaluate", str(source), "--trace-mode", "other"])
    assert exit_info.value.code == 2


def test_console_script_runs_in_a_subprocess(tmp_path: Path) -> None:
    script = shutil.which("rageval", path=str(Path(sys.executable).parent)) or shutil.which("rageval")
    assert script is not None, "the 'rageval' console script is not installed"
    source = write_jsonl(tmp_path / "in.jsonl", [json.dumps(generic_row("a"))])
    done = subprocess.run(
        [script, "evaluate", str(source), "--metrics", "trace", "--judge", "labels"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert json.loads(done.stdout)["scores"]["context_relevance"] == pytest.approx(2 / 3)
    assert "1 row scored, 0 failed, 0 undetermined." in done.stderr


def test_quickstart_scores_offline_and_reproduces_the_bundled_rows(capsys) -> None:
    assert main(["quickstart"]) == 0
    out = capsys.readouterr().out
    assert "Released RAGBench scores reproduced on 8 of 8 rows (labels judge)." in out
    assert "from the offline judge (all-MiniLM-L6-v2" in out
    hagrid = next(line for line in out.splitlines() if line.startswith("hagrid:hagrid_1772_1"))
    # the released labels' columns of that row: relevance 0.667, utilization 0.333, completeness 0.5, not adherent
    cells = hagrid.split()
    assert (cells[2], cells[4], cells[6], cells[8]) == ("0.667", "0.333", "0.500", "no")
    assert "adherence_probability" in out


def test_dry_run_counts_calls_and_calls_nothing(tmp_path: Path, capsys) -> None:
    rows = [json.dumps(generic_row(f"r{i}")) for i in range(3)] + ["{broken"]
    source = write_jsonl(tmp_path / "in.jsonl", rows)
    # an LLM judge whose model cannot be reached from here: the dry run must not try
    assert main(["evaluate", str(source), "--judge", "dspy:openai/gpt-4o-mini", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "Dry run with judge dspy:openai/gpt-4o-mini, scoring mode shared: no model was called." in out
    line = next(x for x in out.splitlines() if x.startswith("trace_labels"))
    cells = line.split()
    assert cells[1:5] == ["trace", "1", "3", "3"]  # metrics, calls/sample, samples, calls
    assert int(cells[5]) > 100  # estimated prompt tokens of the three rendered prompts
    assert "3 model calls before retries (at most 3x that with retries)." in out
    assert "1 unreadable row would be written as errors." in out
    assert main(["evaluate", str(source), "--judge", "labels", "--dry-run"]) == 0
    assert "0 model calls" in capsys.readouterr().out


def test_a_dry_run_needs_no_api_key(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's `--api-key-env OPENAI_API_KEY --dry-run` plans with the variable unset; the run itself says
    the key is missing."""
    monkeypatch.delenv("RAGEVAL_TEST_UNSET_KEY", raising=False)
    source = write_jsonl(tmp_path / "in.jsonl", [json.dumps(generic_row("r0"))])
    args = ["evaluate", str(source), "--judge", "dspy:openai/gpt-4o-mini", "--api-key-env", "RAGEVAL_TEST_UNSET_KEY"]
    assert main([*args, "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert "Dry run with judge dspy:openai/gpt-4o-mini, scoring mode shared: no model was called." in captured.out
    assert "1 model call before retries (at most 3x that with retries)." in captured.out
    assert captured.err == (
        "rageval: note: the environment variable 'RAGEVAL_TEST_UNSET_KEY' (named by --api-key-env) is not set; "
        "the dry run needs no key, the run will.\n"
    )
    assert main(args) == 2
    assert capsys.readouterr().err == (
        "rageval: error: The environment variable 'RAGEVAL_TEST_UNSET_KEY' (named by --api-key-env) is not set.\n"
    )
    monkeypatch.setenv("RAGEVAL_TEST_UNSET_KEY", "sk-test")
    assert main([*args, "--dry-run"]) == 0
    assert capsys.readouterr().err == ""  # set: nothing to say


def test_dry_run_plans_the_suite_per_scoring_mode(tmp_path: Path, capsys) -> None:
    rows = [json.dumps(generic_row("r0", reference="Cats sleep.")), json.dumps(generic_row("r1"))]
    source = write_jsonl(tmp_path / "in.jsonl", rows)
    suite = "trace,faithfulness,context_precision,context_recall,answer_relevance,factual_accuracy"
    judge = ["--judge", "dspy:openai/gpt-4o-mini", "--dry-run", "--metrics", suite]
    assert main(["evaluate", str(source), *judge]) == 0
    out = capsys.readouterr().out
    planned = {line.split()[0]: line.split() for line in out.splitlines() if line.split()[:1] and "_" in line[:20]}
    assert planned["trace_labels"][-4:-1] == ["1", "2", "2"]  # calls/sample, samples, calls
    assert planned["assess_reference"][-4:-1] == ["1", "1", "1"]  # only the row with a reference
    assert planned["generate_questions"][-4:-1] == ["1", "2", "2"]
    assert "5 model calls before retries" in out
    assert main(["evaluate", str(source), *judge, "--scoring-mode", "fused"]) == 0
    out = capsys.readouterr().out
    assert "scoring mode fused" in out and "2 model calls before retries" in out


def test_cli_scores_a_row_without_contexts(tmp_path: Path, capsys) -> None:
    row = generic_row("r0", contexts=[], reference="Cats sleep a lot.")
    del row["labels"]
    source = write_jsonl(tmp_path / "in.jsonl", [json.dumps(row), json.dumps({**row, "id": "r1", "contexts": [" "]})])
    out = tmp_path / "out.jsonl"
    metrics = "trace,faithfulness,context_precision,context_recall,answer_relevance,ragas_score,factual_accuracy,"
    metrics += "answer_classification,semantic_similarity,bert_score"
    args = ["evaluate", str(source), "--metrics", metrics, "--judge", "offline", "--out", str(out), "--no-progress"]
    assert main(args) == 0
    for scored in read_jsonl(out):
        context_scores = [*SCORE_KEYS, "faithfulness", "context_precision", "context_precision_at_k", "context_recall"]
        for name in context_scores:
            assert scored["status"][name] == "undetermined", name
            assert scored["scores"][name] is None
            assert scored["reason"][name] == "No retrieved contexts were given."
        for name in ("answer_relevance", "factual_accuracy", "answer_classification", "semantic_similarity"):
            assert scored["status"][name] == "ok", (name, scored["reason"][name])
            assert isinstance(scored["scores"][name], float)
        assert scored["status"]["bert_score_f1"] == "ok"
        # the composite from answer relevance alone, its weight renormalised
        assert scored["scores"]["ragas_score"] == pytest.approx(scored["scores"]["answer_relevance"], abs=ABS)
    assert "2 rows scored, 0 failed, 0 undetermined." in capsys.readouterr().err
    # the dry run plans no TRACe labelling for such rows
    assert main(["evaluate", str(source), "--judge", "dspy:openai/gpt-4o-mini", "--dry-run"]) == 0
    planned = capsys.readouterr().out
    assert "0 model calls before retries" in planned


def test_cli_scores_the_ragas_family_offline(tmp_path: Path, capsys) -> None:
    row = generic_row("r0", reference="Cats sleep a lot.")
    del row["labels"]
    source = write_jsonl(tmp_path / "in.jsonl", [json.dumps(row), json.dumps({**row, "id": "r1", "reference": None})])
    out = tmp_path / "out.jsonl"
    metrics = "faithfulness,context_precision,context_recall,answer_relevance,ragas_score,factual_accuracy,"
    metrics += "answer_classification,semantic_similarity,bert_score"
    args = ["evaluate", str(source), "--metrics", metrics, "--judge", "offline", "--out", str(out), "--no-progress"]
    assert main(args) == 0
    first, second = read_jsonl(out)
    assert set(first) == RESULT_FIELDS
    assert all(status == "ok" for status in first["status"].values()), first["reason"]
    assert second["status"]["context_recall"] == "undetermined"
    assert second["reason"]["factual_accuracy"] == "Needs a reference answer; the sample has none."
    assert first["details"]["judge_usage"]["calls"] == 0
    err = capsys.readouterr().err
    for name in (
        "ragas_faithfulness",
        "ragas_score",
        "factual_accuracy_grade",
        "bert_score_f1",
        "correct_answers_count",
    ):
        assert name in err
    assert main([*args, "--scoring-mode", "separate"]) == 0
    assert_close_structure(
        [r["scores"]["faithfulness"] for r in read_jsonl(out)], [first["scores"]["faithfulness"]] * 2
    )


def six_rows(tmp_path: Path) -> Path:
    """Three ordinary rows (adherence probabilities 0.9, 0.6, 0.3), one without contexts (line 4) and two
    unreadable ones: line 3 not JSON (no id), line 5 without a question."""
    lines = [
        json.dumps(generic_row("r1", metadata={"probability": 0.9})),
        json.dumps(generic_row("r2", metadata={"probability": 0.6})),
        '{"question": "broken json',
        json.dumps(generic_row("r4", contexts=[], metadata={"probability": 0.5})),
        json.dumps({k: v for k, v in generic_row("r5").items() if k != "question"}),
        json.dumps(generic_row("r6", metadata={"probability": 0.3})),
    ]
    return write_jsonl(tmp_path / "six.jsonl", lines)


def summary_counts(text: str) -> dict[str, tuple[int, int, int]]:
    """score -> (ok, undetermined, error) read from a summary table printed without intervals."""
    counts = {}
    for line in text.splitlines():
        cells = line.split()
        if len(cells) == 5 and cells[2].isdigit():
            counts[cells[0]] = (int(cells[2]), int(cells[3]), int(cells[4]))
    return counts


def test_every_score_counts_every_row_in_the_evaluate_and_report_summaries(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a judge that gives adherence_probability beside adherence, as the offline judge does
    monkeypatch.setattr("rageval_lc.judges.factory.make_judge", lambda spec, **_: ProbabilityLabelsJudge())
    source, out, page = six_rows(tmp_path), tmp_path / "out.jsonl", tmp_path / "report.html"
    args = ["evaluate", str(source), "--judge", "labels", "--out", str(out), "--no-progress", "--bootstrap", "0"]
    assert main(args) == 0
    err = capsys.readouterr().err
    counts = summary_counts(err)
    assert set(counts) == {*SCORE_KEYS, "adherence_probability"}
    assert set(counts.values()) == {(3, 1, 2)}  # every score: rows 1, 2, 6 ok; 4 undetermined; 3, 5 error
    assert "adherence_probability  0.600" in err  # (0.9 + 0.6 + 0.3) / 3
    assert main(["report", str(out), "--html", str(page), "--bootstrap", "0"]) == 0
    assert summary_counts(capsys.readouterr().out) == counts
    html = page.read_text(encoding="utf-8")
    for name in counts:
        assert f"<td>{name}</td>" in html
        row = html.split(f"<td>{name}</td>", 1)[1].split("</tr>", 1)[0]
        assert "<td class='num'>3</td><td class='num'>1</td><td class=\"num bad\">2</td>" in row, name


def test_a_failed_row_without_an_id_is_named_by_its_line(tmp_path: Path, capsys) -> None:
    source = six_rows(tmp_path)
    assert main(["evaluate", str(source), "--judge", "labels", "--no-progress", "--bootstrap", "0"]) == 0
    err = capsys.readouterr().err
    assert "rageval: line 3 failed: ValueError: line 3 is not valid JSON" in err  # line 3 has no id
    assert "rageval: line 5 (id 'r5') failed: " in err
    assert "None" not in err


def test_quickstart_says_why_when_the_offline_judge_fails_a_row(monkeypatch, capsys) -> None:
    """A bundled row the offline judge cannot score ends the quickstart with its reason, not a KeyError."""
    from rageval_lc.judges.offline.judge import OfflineJudge

    def broken(self, sample):
        raise RuntimeError("the model file is unreadable")

    monkeypatch.setattr(OfflineJudge, "trace_labels", broken)
    assert main(["quickstart"]) == 1
    err = capsys.readouterr().err
    assert "the offline judge failed on covidqa" in err and "RuntimeError: the model file is unreadable" in err


def test_the_judge_help_lists_every_judge_name_the_factory_reads() -> None:
    import argparse

    from rageval_lc.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    forms = (
        "offline | offline:<aligned judge file> | offline:nli=<NLI model folder or id> | "
        "offline:nli=<NLI model folder or id>,judge=<aligned judge file> | dspy:<model id>"
    )
    old = "local is offline's old name"
    helps = {
        name: next(a.help for a in commands[name]._actions if "--judge" in a.option_strings)
        for name in ("evaluate", "agreement", "align")
    }
    cascade = "cascade:offline,dspy:<model id>"  # a judge to score with, not one to align
    assert helps == {
        "evaluate": f"labels | {forms} | {cascade} (default: $RAGEVAL_JUDGE, else offline; {old})",
        "agreement": f"labels | {forms} | {cascade} (default: $RAGEVAL_JUDGE, else offline; {old})",
        "align": f"{forms} (default: offline)",
    }


def test_the_ragas_composite_of_a_run_without_all_its_parts_says_what_it_lacks(tmp_path: Path, capsys) -> None:
    # faithfulness only (the labels: a supported, b not: 0.5 per row); the composite was 50.000, from one part
    source = write_jsonl(tmp_path / "in.jsonl", [json.dumps(generic_row(f"r{i}")) for i in range(2)])
    out, page = tmp_path / "out.jsonl", tmp_path / "report.html"
    args = ["evaluate", str(source), "--metrics", "faithfulness", "--judge", "labels", "--out", str(out)]
    assert main([*args, "--no-progress", "--bootstrap", "0"]) == 0
    lines = capsys.readouterr().err.splitlines()
    view = lines[lines.index("reference name      value") :][:4]
    assert view[2:] == [
        "ragas_faithfulness  50.000",
        "ragas_score         not shown: context_precision, context_recall, answer_relevance were not scored",
    ]
    assert main(["report", str(out), "--html", str(page), "--bootstrap", "0"]) == 0
    html = page.read_text(encoding="utf-8")
    lacks = "not shown: context_precision, context_recall, answer_relevance were not scored"
    assert f"<tr><td>ragas_score</td><td>{lacks}</td></tr>" in html
    assert "<tr><td>ragas_faithfulness</td><td class='num'>50.0</td></tr>" in html
