"""Long runs lose nothing and mix nothing: the input is never the output, a changed input is caught on
--resume, judge failures fail --strict, bad bytes and separators never drop a row, one writer per output,
file-system errors are one line with nothing half-written (issue 13)."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rageval_lc.cli import main
from rageval_lc.judges.base import BaseJudge
from rageval_lc.judges.labels import LabelsJudge
from rageval_lc.reports.summary import row_outcome
from rageval_lc.schema import RagSample
from rageval_lc.verdicts import Judgement
from tests.cli.test_cli import generic_row, write_jsonl

ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def labels_run(source: Path, out: Path, *extra: str) -> int:
    return main(["evaluate", str(source), "--judge", "labels", "--out", str(out), "--no-progress", *extra])


def read_rows(path: Path) -> list[dict]:
    """Result rows, split on '\\n' only."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


def rows_file(tmp_path: Path, n: int, name: str = "in.jsonl") -> Path:
    return write_jsonl(tmp_path / name, [json.dumps(generic_row(f"r{i}")) for i in range(n)])


def one_line_error(err: str) -> str:
    """The error output must be a single 'rageval: error:' line, no traceback."""
    lines = [line for line in err.strip().split("\n") if line]
    assert len(lines) == 1, err
    assert lines[0].startswith("rageval: error: "), err
    assert "Traceback" not in err
    return lines[0]


class ErrorJudge(BaseJudge):
    """Answers every judgement with an error, as a judge whose model the server refuses does (a missing or refused
    API key stops the run instead: tests/cli/test_keyless.py)."""

    name = "unauthorised"
    supports = frozenset({"trace_labels"})

    def planned_calls(self, judgement: str) -> int:
        return 1

    def trace_labels(self, sample: RagSample) -> Judgement:
        reason = "The judge model could not be called: BadRequestError: 400 the model does not exist"
        return Judgement(name="trace_labels", status="error", reason=reason)


# 1. the output is never the input


@pytest.mark.parametrize("link", ["same", "symlink", "hardlink"])
def test_out_equal_to_the_input_is_refused_and_the_input_kept(tmp_path: Path, capsys, link: str) -> None:
    source = rows_file(tmp_path, 3, "x.jsonl")
    before = source.read_bytes()
    out = source
    if link == "symlink":
        out = tmp_path / "alias.jsonl"
        out.symlink_to(source)
    elif link == "hardlink":
        out = tmp_path / "hard.jsonl"
        os.link(source, out)
    assert labels_run(source, out) == 2
    assert "is the input file" in one_line_error(capsys.readouterr().err)
    assert source.read_bytes() == before
    assert labels_run(source, out, "--resume") == 2  # used to read its own output back without end
    assert "is the input file" in one_line_error(capsys.readouterr().err)
    assert source.read_bytes() == before


# 2. --resume detects a changed input


def test_each_output_line_records_the_hash_of_its_input_line(tmp_path: Path) -> None:
    lines = [json.dumps(generic_row("a")), "", json.dumps(generic_row("b", response="Cats hunt mice."))]
    source = write_jsonl(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    assert labels_run(source, out) == 0
    rows = read_rows(out)
    assert [(r["line"], r["id"]) for r in rows] == [(1, "a"), (3, "b")]
    assert [r["input_sha256"] for r in rows] == [
        hashlib.sha256(lines[0].encode()).hexdigest(),
        hashlib.sha256(lines[2].encode()).hexdigest(),
    ]


@pytest.mark.parametrize("change", ["edited", "prepended", "deleted", "blanked"])
def test_resume_refuses_an_input_that_changed_since_the_output(tmp_path: Path, capsys, change: str) -> None:
    lines = [json.dumps(generic_row(f"r{i}")) for i in range(4)]
    source = write_jsonl(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    assert labels_run(source, out) == 0
    capsys.readouterr()
    kept = out.read_bytes()
    if change == "edited":
        lines[2] = json.dumps(generic_row("r2", response="Dogs bark at night."))
        expected = "input line 3 has changed"
    elif change == "prepended":
        lines.insert(0, json.dumps(generic_row("new")))
        expected = "input line 1 has changed"
    elif change == "deleted":
        lines = lines[:2]
        expected = "input line 3 is gone"
    else:
        lines[1] = ""
        expected = "input line 2 is gone"
    write_jsonl(source, lines if change == "deleted" else [*lines, json.dumps(generic_row("r9"))])
    assert labels_run(source, out, "--resume") == 2
    message = one_line_error(capsys.readouterr().err)
    assert expected in message and "--resume" in message
    assert out.read_bytes() == kept  # nothing added, nothing mixed


def test_resume_refuses_an_output_written_without_input_hashes(tmp_path: Path, capsys) -> None:
    source = rows_file(tmp_path, 2)
    out = tmp_path / "out.jsonl"
    out.write_text(json.dumps({"id": "r0", "line": 1, "scores": {}, "status": {}}) + "\n", encoding="utf-8")
    assert labels_run(source, out, "--resume") == 2
    assert "without an input hash" in one_line_error(capsys.readouterr().err)


def test_resume_scores_only_the_new_lines_of_an_unchanged_input(tmp_path: Path, capsys) -> None:
    lines = [json.dumps(generic_row(f"r{i}")) for i in range(3)]
    source = write_jsonl(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    assert labels_run(source, out) == 0
    first = out.read_text(encoding="utf-8")
    write_jsonl(source, [*lines, json.dumps(generic_row("r3")), json.dumps(generic_row("r4"))])
    assert labels_run(source, out, "--resume") == 0
    assert out.read_text(encoding="utf-8").startswith(first)
    assert [r["id"] for r in read_rows(out)] == ["r0", "r1", "r2", "r3", "r4"]
    assert "5 rows in out.jsonl: 2 scored now, 3 kept; 0 failed, 0 undetermined." in capsys.readouterr().err


# 3. judge failures fail the run


def test_judge_errors_count_as_failed_rows_and_fail_strict(tmp_path: Path, capsys, monkeypatch) -> None:
    from rageval_lc.cli import common

    monkeypatch.setattr(common, "judge_from_args", lambda args: ErrorJudge())
    source = rows_file(tmp_path, 3)
    out = tmp_path / "out.jsonl"
    assert labels_run(source, out) == 1  # every row failed: exit 1 without --strict too
    err = capsys.readouterr().err
    assert "3 rows scored, 3 failed, 0 undetermined." in err and "every row failed (3 of 3); exit status 1." in err
    assert labels_run(source, out, "--strict") == 1


def test_strict_fails_a_row_with_no_determined_score_but_not_a_partly_undetermined_one(tmp_path: Path, capsys) -> None:
    bare = generic_row("bare", contexts=[])  # no contexts: every TRACe score is undetermined
    source = write_jsonl(tmp_path / "in.jsonl", [json.dumps(generic_row("a")), json.dumps(bare)])
    out = tmp_path / "out.jsonl"
    assert labels_run(source, out, "--strict") == 1
    err = capsys.readouterr().err
    assert "2 rows scored, 0 failed, 1 undetermined." in err and "--strict: 1 undetermined row" in err
    # a row with some ok scores and some undetermined ones (no reference for context recall) passes
    partly = {k: v for k, v in generic_row("p").items() if k != "labels"}
    source = write_jsonl(tmp_path / "partly.jsonl", [json.dumps(partly)])
    args = ["evaluate", str(source), "--judge", "offline", "--metrics", "faithfulness,context_recall"]
    assert main([*args, "--out", str(out), "--no-progress", "--strict"]) == 0
    (row,) = read_rows(out)
    assert row["status"] == {"faithfulness": "ok", "context_recall": "undetermined"}


def test_engine_counts_rows_with_judge_errors_as_failed() -> None:
    from rageval_lc.engine.engine import evaluate

    sample = RagSample(id="s", question="Q?", contexts=["A. B."], response="A.")
    bare = RagSample(id="bare", question="Q?", contexts=[], response="A.")
    run = evaluate([sample, sample, bare], "trace", judge=ErrorJudge(), retries=0, concurrency=1)
    assert (run.failed, run.undetermined) == (2, 1)


# 4. and 16. bytes that are not UTF-8, and a byte-order mark


def test_a_line_that_is_not_utf8_becomes_an_error_row_and_the_run_goes_on(tmp_path: Path, capsys) -> None:
    good = [json.dumps(generic_row(f"r{i}")).encode() for i in range(3)]
    bad = json.dumps(generic_row("bad")).encode().replace(b"Cats sleep", b"Cats \xff sleep", 1)
    source = tmp_path / "in.jsonl"
    source.write_bytes(b"\n".join([good[0], bad, good[1], good[2]]) + b"\n")
    out = tmp_path / "out.jsonl"
    assert labels_run(source, out, "--progress") == 0
    rows = read_rows(out)
    assert [r["line"] for r in rows] == [1, 2, 3, 4]
    assert [r["id"] for r in rows] == ["r0", None, "r1", "r2"]
    assert set(rows[1]["status"].values()) == {"error"}
    assert "line 2 is not valid UTF-8" in rows[1]["reason"]["adherence"]
    assert rows[1]["input_sha256"] == hashlib.sha256(bad).hexdigest()
    assert rows[0]["scores"] == rows[2]["scores"] == rows[3]["scores"]
    assert "4 rows scored, 1 failed" in capsys.readouterr().err
    assert labels_run(source, out, "--resume") == 0  # resume reads the same file without crashing
    assert len(read_rows(out)) == 4
    assert main(["evaluate", str(source), "--judge", "labels", "--dry-run"]) == 0
    assert "1 unreadable row would be written as errors." in capsys.readouterr().out
    assert main(["agreement", str(source), "--judge", "labels", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "3 rows scored by labels, 1 skipped." in captured.out
    assert "line 2 skipped: ValueError: line 2 is not valid UTF-8" in captured.err


def test_a_byte_order_mark_is_not_part_of_the_first_row(tmp_path: Path, capsys) -> None:
    plain = rows_file(tmp_path, 2, "plain.jsonl")
    marked = tmp_path / "bom.jsonl"
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    assert labels_run(plain, tmp_path / "plain_out.jsonl") == 0
    assert labels_run(marked, tmp_path / "bom_out.jsonl", "--strict") == 0
    expected = read_rows(tmp_path / "plain_out.jsonl")
    assert read_rows(tmp_path / "bom_out.jsonl") == expected  # the same rows, the same input hashes
    assert main(["evaluate", str(marked), "--judge", "labels", "--dry-run"]) == 0
    assert "unreadable" not in capsys.readouterr().out
    results = tmp_path / "bom_results.jsonl"
    results.write_bytes(b"\xef\xbb\xbf" + (tmp_path / "plain_out.jsonl").read_bytes())
    assert main(["report", str(results)]) == 0
    assert "skipped" not in capsys.readouterr().err


def test_ragbench_loader_reads_a_file_with_a_byte_order_mark(ragbench_files: list[Path], tmp_path: Path) -> None:
    from rageval_lc.datasets.ragbench import load_ragbench

    lines = ragbench_files[0].read_bytes().split(b"\n")[:3]
    marked = tmp_path / "bom.jsonl"
    marked.write_bytes(b"\xef\xbb\xbf" + b"\n".join(lines) + b"\n")
    records = list(load_ragbench(marked))
    assert [r.sample.id.split(":")[1] for r in records] == [str(json.loads(line)["id"]) for line in lines]


# 5. one writer per output


def test_a_second_writer_of_the_same_output_is_refused(tmp_path: Path, capsys) -> None:
    source = rows_file(tmp_path, 2)
    out = tmp_path / "out.jsonl"
    out.write_text("an earlier run's rows\n", encoding="utf-8")
    with out.open("a") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another run holds the output
        assert labels_run(source, out) == 2
        assert "another run is writing" in one_line_error(capsys.readouterr().err)
        assert labels_run(source, out, "--resume") == 2
        capsys.readouterr()
    assert out.read_text(encoding="utf-8") == "an earlier run's rows\n"  # neither truncated nor appended to
    assert labels_run(source, out) == 0  # the lock went with its holder
    assert len(read_rows(out)) == 2


def test_the_output_is_locked_while_the_run_writes_it(tmp_path: Path, monkeypatch) -> None:
    from rageval_lc.cli import common

    out = tmp_path / "out.jsonl"
    seen: list[str] = []

    class Probe(LabelsJudge):
        def trace_labels(self, sample: RagSample) -> Judgement:
            with out.open("a") as other:
                try:
                    fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    seen.append("free")
                except BlockingIOError:
                    seen.append("locked")
            return super().trace_labels(sample)

    monkeypatch.setattr(common, "judge_from_args", lambda args: Probe())
    assert labels_run(rows_file(tmp_path, 3), out) == 0
    assert seen == ["locked"] * 3


# 8. separators that str.splitlines splits on


def test_report_keeps_rows_whose_text_holds_line_separators(tmp_path: Path, capsys) -> None:
    separators = ["\u2028", "\u2029", "\u0085"]
    ids = ["plain", *(f"sep{s}{i}" for i, s in enumerate(separators))]
    source = write_jsonl(tmp_path / "in.jsonl", [json.dumps(generic_row(row_id)) for row_id in ids])
    out = tmp_path / "out.jsonl"
    assert labels_run(source, out) == 0
    assert all(s.encode() not in out.read_bytes() for s in separators)  # written escaped: any splitter is safe
    rows = read_rows(out)
    assert [r["id"] for r in rows] == ids
    # a results file written raw (by another tool, or an older rageval) keeps every row too
    raw = tmp_path / "raw.jsonl"
    raw.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert all(s.encode() in raw.read_bytes() for s in separators)
    assert main(["report", str(raw), "--html", str(tmp_path / "report.html")]) == 0
    captured = capsys.readouterr()
    adherence = next(line.split() for line in captured.out.split("\n") if line.startswith("adherence "))
    assert adherence[-3:] == ["4", "0", "0"]  # ok, undetermined, error: all four rows
    assert "skipped" not in captured.err


# 12. file-system errors: one line, exit 2, nothing half-written


def test_out_in_a_missing_folder_or_on_a_directory_is_one_line(tmp_path: Path, capsys) -> None:
    source = rows_file(tmp_path, 1)
    assert labels_run(source, tmp_path / "missing" / "out.jsonl") == 2
    assert "cannot write" in one_line_error(capsys.readouterr().err)
    assert not (tmp_path / "missing").exists()
    (tmp_path / "folder").mkdir()
    assert labels_run(source, tmp_path / "folder") == 2
    one_line_error(capsys.readouterr().err)
    assert list((tmp_path / "folder").iterdir()) == []


def test_out_that_cannot_be_written_is_one_line(tmp_path: Path, capsys) -> None:
    source = rows_file(tmp_path, 1)
    if os.geteuid() == 0:  # root writes through file modes; /sys refuses new files even to root
        target = Path("/sys/rageval-test-out.jsonl")
        if not Path("/sys").is_dir():
            pytest.skip("no /sys to refuse a write")
    else:
        locked = tmp_path / "ro"
        locked.mkdir()
        locked.chmod(0o500)
        target = locked / "out.jsonl"
    assert labels_run(source, target) == 2
    assert "cannot write" in one_line_error(capsys.readouterr().err)
    assert not target.exists()


def test_a_full_disk_is_one_line(tmp_path: Path, capsys) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    assert labels_run(rows_file(tmp_path, 2), Path("/dev/full")) == 2
    assert "No space left on device" in one_line_error(capsys.readouterr().err)


def test_a_disk_that_fills_mid_run_leaves_whole_lines_and_resume_finishes(tmp_path: Path, capsys, monkeypatch) -> None:
    import rageval_lc.files as files

    source = rows_file(tmp_path, 5)
    out = tmp_path / "out.jsonl"
    real = files._write_all
    writes: list[int] = []

    def fill_up(fd: int, data: bytes) -> None:
        writes.append(len(data))
        if len(writes) > 2:  # the third line is torn, then the disk is full
            real(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd, data)

    monkeypatch.setattr(files, "_write_all", fill_up)
    assert labels_run(source, out) == 2
    message = one_line_error(capsys.readouterr().err)
    assert "No space left on device" in message and "2 rows kept" in message and "--resume" in message
    assert out.read_bytes().endswith(b"\n") and [r["id"] for r in read_rows(out)] == ["r0", "r1"]
    monkeypatch.setattr(files, "_write_all", real)
    assert labels_run(source, out, "--resume") == 0
    assert sorted(r["id"] for r in read_rows(out)) == [f"r{i}" for i in range(5)]


def test_a_fresh_run_that_writes_nothing_leaves_no_file(tmp_path: Path, capsys, monkeypatch) -> None:
    import rageval_lc.files as files

    def full(fd: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(files, "_write_all", full)
    out = tmp_path / "out.jsonl"
    assert labels_run(rows_file(tmp_path, 2), out) == 2
    one_line_error(capsys.readouterr().err)
    assert not out.exists()


def test_report_file_errors_are_one_line_and_the_old_page_survives(tmp_path: Path, capsys, monkeypatch) -> None:
    import rageval_lc.files as files

    source = rows_file(tmp_path, 2)
    results = tmp_path / "results.jsonl"
    assert labels_run(source, results) == 0
    capsys.readouterr()
    assert main(["report", str(results), "--html", str(tmp_path / "missing" / "r.html")]) == 2
    assert "cannot write" in one_line_error(capsys.readouterr().err)
    html = tmp_path / "r.html"
    html.write_text("the previous report", encoding="utf-8")

    def full(fd: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(files, "_write_all", full)
    assert main(["report", str(results), "--html", str(html)]) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert html.read_text(encoding="utf-8") == "the previous report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "r.html", "results.jsonl"]  # no temp left
    monkeypatch.undo()
    assert main(["report", str(results), "--html", str(html)]) == 0
    assert html.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert os.stat(html).st_mode & 0o777 == 0o666 & ~_umask()


def test_report_on_a_file_with_bad_bytes_keeps_the_good_rows(tmp_path: Path, capsys) -> None:
    source = rows_file(tmp_path, 2)
    results = tmp_path / "results.jsonl"
    assert labels_run(source, results) == 0
    capsys.readouterr()
    results.write_bytes(results.read_bytes() + b'{"id": "\xff"}\n')
    assert main(["report", str(results)]) == 0
    captured = capsys.readouterr()
    adherence = next(line.split() for line in captured.out.split("\n") if line.startswith("adherence "))
    assert adherence[-3] == "2"  # ok rows (then undetermined, error)
    assert "1 line skipped" in captured.err


def test_rgb_score_out_in_a_missing_folder_is_one_line(tmp_path: Path, capsys) -> None:
    row = {"prediction": "Paris", "answer": ["Paris"], "task": "noise_robustness"}
    source = write_jsonl(tmp_path / "rgb.jsonl", [json.dumps(row)])
    assert main(["rgb", "score", str(source), "--out", str(tmp_path / "missing" / "j.jsonl")]) == 2
    assert "cannot write" in one_line_error(capsys.readouterr().err)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Also found: python -m, ragas / deepeval names, output ids


def test_python_dash_m_runs_the_command(tmp_path: Path) -> None:
    source = rows_file(tmp_path, 1)
    command = [sys.executable, "-m", "rageval_lc", "evaluate", str(source), "--judge", "labels"]
    done = subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["id"] == "r0"
    version = subprocess.run([sys.executable, "-m", "rageval_lc", "--version"], capture_output=True, text=True, env=ENV)
    assert version.returncode == 0 and version.stdout.startswith("rageval_lc ")


def test_ragbench_row_without_dataset_name_keeps_the_users_id(tmp_path: Path) -> None:
    from rageval_lc.datasets.ragbench import ragbench_record

    row = {
        "id": "q-17",
        "question": "Q?",
        "documents": ["A. B."],
        "response": "A.",
        "documents_sentences": [[["0a", "A."], ["0b", "B."]]],
        "response_sentences": [["a", "A."]],
        "all_relevant_sentence_keys": ["0a"],
    }
    assert ragbench_record(row).sample.id == "q-17"
    assert ragbench_record({**row, "dataset_name": "covidqa_test"}).sample.id == "covidqa_test:q-17"
    full = {**row, "dataset_name": "covidqa_test", "generation_model_name": "gpt-3.5"}
    assert ragbench_record(full).sample.id == "covidqa_test:q-17:gpt-3.5"
    source = write_jsonl(tmp_path / "in.jsonl", [json.dumps(row)])
    out = tmp_path / "out.jsonl"
    assert labels_run(source, out) == 0
    assert read_rows(out)[0]["id"] == "q-17"


# Review of issue 13: --resume counts and rescores what it keeps, and never mixes settings


def test_resume_counts_the_kept_rows_and_scores_failed_ones_again(tmp_path: Path, capsys) -> None:
    bad = generic_row("bad", contexts=5)  # a bad-typed row: every score is error
    lines = [json.dumps(bad), json.dumps(generic_row("g1"))]
    source = write_jsonl(tmp_path / "s.jsonl", lines)
    out = tmp_path / "o.jsonl"
    assert labels_run(source, out, "--strict") == 1
    capsys.readouterr()
    lines += [json.dumps(generic_row("g2")), json.dumps(generic_row("g3"))]
    write_jsonl(source, lines)
    assert labels_run(source, out, "--resume", "--strict") == 1  # the failed row is still in the output
    err = capsys.readouterr().err
    assert "4 rows in o.jsonl: 3 scored now, 1 kept; 1 failed, 0 undetermined" in err, err
    assert "--strict: 1 failed row" in err
    rows = read_rows(out)
    assert sorted(r["line"] for r in rows) == [1, 2, 3, 4]  # the failed row was scored again, not added twice
    assert set(next(r for r in rows if r["line"] == 1)["status"].values()) == {"error"}
    adherence = next(line.split() for line in err.split("\n") if line.startswith("adherence "))
    assert adherence[-3:] == ["3", "0", "1"]  # the summary covers every row of the output (ok, undetermined, error)
    # the row fixed in the input is scored again on --resume: its line may change, it is not kept
    lines[0] = json.dumps(generic_row("fixed"))
    write_jsonl(source, lines)
    assert labels_run(source, out, "--resume", "--strict") == 0
    assert "4 rows in o.jsonl: 1 scored now, 3 kept; 0 failed, 0 undetermined" in capsys.readouterr().err
    rows = read_rows(out)
    assert sorted((r["line"], r["id"]) for r in rows) == [(1, "fixed"), (2, "g1"), (3, "g2"), (4, "g3")]
    assert all(row_outcome(r["status"]) == "ok" for r in rows)


def test_resume_strict_fails_on_a_kept_undetermined_row(tmp_path: Path, capsys) -> None:
    lines = [json.dumps(generic_row("bare", contexts=[])), json.dumps(generic_row("g1"))]
    source = write_jsonl(tmp_path / "s.jsonl", lines)
    out = tmp_path / "o.jsonl"
    assert labels_run(source, out, "--strict") == 1
    write_jsonl(source, [*lines, json.dumps(generic_row("g2"))])
    capsys.readouterr()
    assert labels_run(source, out, "--resume", "--strict") == 1
    err = capsys.readouterr().err
    assert "3 rows in o.jsonl: 1 scored now, 2 kept; 0 failed, 1 undetermined" in err
    assert len(read_rows(out)) == 3


def test_each_output_row_records_the_settings_it_was_scored_with(tmp_path: Path) -> None:
    out = tmp_path / "o.jsonl"
    assert labels_run(rows_file(tmp_path, 1), out, "--metrics", "trace,faithfulness") == 0
    (row,) = read_rows(out)
    assert row["run"] == {
        "judge": "labels",
        "api_base": None,
        "max_tokens": None,
        "metrics": ["faithfulness", "trace"],
        "trace_mode": "ragbench",
        "scoring_mode": "shared",
        "relevance_normalizer": 20.0,
    }


@pytest.mark.parametrize(
    ("changed", "option"),
    [
        (["--judge", "offline"], "--judge"),
        (["--metrics", "trace,faithfulness"], "--metrics"),
        (["--trace-mode", "capstone"], "--trace-mode"),
        (["--scoring-mode", "fused"], "--scoring-mode"),
        (["--relevance-normalizer", "10"], "--relevance-normalizer"),
    ],
)
def test_resume_refuses_other_settings_than_the_kept_rows(tmp_path: Path, capsys, changed, option) -> None:
    lines = [json.dumps(generic_row(f"r{i}")) for i in range(2)]
    source = write_jsonl(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    assert labels_run(source, out) == 0
    kept = out.read_bytes()
    write_jsonl(source, [*lines, json.dumps(generic_row("r2"))])
    capsys.readouterr()
    assert labels_run(source, out, "--resume", *changed) == 2
    message = one_line_error(capsys.readouterr().err)
    assert option in message and "--resume" in message, message
    assert out.read_bytes() == kept
    assert labels_run(source, out, "--resume", "--metrics", "trace") == 0  # the same settings resume


def test_resume_refuses_rows_written_without_run_settings(tmp_path: Path, capsys) -> None:
    source = rows_file(tmp_path, 2)
    out = tmp_path / "out.jsonl"
    assert labels_run(source, out) == 0
    rows = read_rows(out)
    out.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "run"}) + "\n" for r in rows))
    kept = out.read_bytes()
    capsys.readouterr()
    assert labels_run(source, out, "--resume") == 2
    assert "without its run settings" in one_line_error(capsys.readouterr().err)
    assert out.read_bytes() == kept


@pytest.mark.parametrize(("written", "given"), [("local", "offline"), ("offline", "local"), ("local", "local")])
def test_resume_reads_the_offline_judges_old_name_as_its_own(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch, written: str, given: str
) -> None:
    # an output an older rageval wrote says "judge": "local"; the offline judge is now "offline": the same judge.
    # The judge the options name is built (its name read; nothing loads until it judges); the labels score the rows.
    from rageval_lc.cli import common

    named = common.judge_from_args

    def labels_named(args) -> LabelsJudge:
        judge = LabelsJudge()
        judge.name = named(args).name
        return judge

    monkeypatch.setattr(common, "judge_from_args", labels_named)
    lines = [json.dumps(generic_row(f"r{i}")) for i in range(2)]
    source = write_jsonl(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    run = ["evaluate", str(source), "--out", str(out), "--no-progress"]
    assert main([*run, "--judge", "offline"]) == 0
    rows = read_rows(out)
    assert [row["run"]["judge"] for row in rows] == ["offline", "offline"]  # the canonical name is written
    out.write_text("".join(json.dumps({**r, "run": {**r["run"], "judge": written}}) + "\n" for r in rows))
    write_jsonl(source, [*lines, json.dumps(generic_row("r2"))])
    capsys.readouterr()
    assert main([*run, "--judge", given, "--resume"]) == 0, capsys.readouterr().err
    rows = read_rows(out)
    assert [row["line"] for row in rows] == [1, 2, 3] and rows[2]["run"]["judge"] == "offline"
    kept = out.read_bytes()
    capsys.readouterr()
    assert main([*run, "--judge", "labels", "--resume"]) == 2  # another judge is still refused
    message = one_line_error(capsys.readouterr().err)
    assert "was scored with --judge offline, not --judge labels" in message, message
    assert out.read_bytes() == kept


def test_a_run_opening_the_output_as_a_failed_run_removes_it_writes_a_file(tmp_path: Path, monkeypatch) -> None:
    import rageval_lc.files as files

    out = tmp_path / "out.jsonl"
    first = files.LockedOutput(out)  # created the file, will fail having written nothing
    real_flock = fcntl.flock
    calls: list[int] = []

    def flock_after_the_first_run_closes(fd: int, operation: int) -> None:
        if not calls:  # the second run opened the file; the first one removes it and lets go of the lock
            first.close(failed=True)
        calls.append(fd)
        real_flock(fd, operation)

    monkeypatch.setattr(files.fcntl, "flock", flock_after_the_first_run_closes)
    second = files.LockedOutput(out)
    monkeypatch.setattr(files.fcntl, "flock", real_flock)
    with second:
        second.write('{"line": 1}\n')
    assert out.read_text(encoding="utf-8") == '{"line": 1}\n'  # not written into a removed file


# Errors are one line, pydantic's too


def test_rgb_run_names_the_first_invalid_field_on_one_line(tmp_path: Path, capsys) -> None:
    data = tmp_path / "rgb.json"
    data.write_text(json.dumps({"answer": "a", "positive": ["p"], "negative": 3}) + "\n", encoding="utf-8")
    assert main(["rgb", "run", str(data), "--system", "os:getcwd"]) == 2
    message = one_line_error(capsys.readouterr().err)
    assert f"{data}:1: not a valid RGB record: field 'query': Field required (and 1 more error)" in message


def test_a_row_failing_pydantic_validation_is_reported_on_one_line(tmp_path: Path, capsys) -> None:
    row = generic_row("v", labels={"overall_supported": "perhaps"})
    source = write_jsonl(tmp_path / "in.jsonl", [json.dumps(row)])
    out = tmp_path / "out.jsonl"
    assert labels_run(source, out) == 1  # its one row failed: every row
    err = capsys.readouterr().err
    (failed,) = [line for line in err.split("\n") if "failed:" in line]
    assert "field 'overall_supported': Input should be a valid boolean" in failed, err
    assert "errors.pydantic.dev" not in err and "validation error for" not in err
    (result,) = read_rows(out)
    assert all("\n" not in reason for reason in result["reason"].values())
    assert main(["agreement", str(source), "--judge", "labels", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "line 1 skipped: " in err and "field 'overall_supported'" in err and "errors.pydantic.dev" not in err


# Dataset loaders decode line by line, as the command does


def test_rgb_loader_reads_a_byte_order_mark_and_names_a_bad_byte(tmp_path: Path, capsys) -> None:
    from rageval_lc.rgb.records import load_rgb

    record = {"id": 7, "query": "Where?", "answer": ["Paris"], "positive": ["Paris is in France."], "negative": []}
    marked = tmp_path / "bom.json"
    marked.write_bytes(b"\xef\xbb\xbf" + json.dumps(record).encode() + b"\n")
    (loaded,) = load_rgb(marked)
    assert (loaded.id, loaded.query, loaded.positive) == (7, "Where?", ["Paris is in France."])
    bad = tmp_path / "bad.json"
    bad.write_bytes(json.dumps(record).encode() + b"\n" + json.dumps(record).encode().replace(b"Where", b"Wh\xffre"))
    with pytest.raises(ValueError, match=r"bad\.json:2: not a valid RGB record: line 2 is not valid UTF-8"):
        load_rgb(bad)
    assert main(["rgb", "run", str(bad), "--system", "os:getcwd"]) == 2
    assert "bad.json:2:" in one_line_error(capsys.readouterr().err)


def test_ragbench_loader_names_a_bad_byte_and_an_invalid_field(ragbench_files: list[Path], tmp_path: Path) -> None:
    from rageval_lc.datasets.ragbench import load_ragbench

    lines = ragbench_files[0].read_bytes().split(b"\n")[:2]
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(lines[0] + b"\n" + lines[1].replace(b'"question": "', b'"question": "\xff', 1) + b"\n")
    assert b"\xff" in bad.read_bytes()
    with pytest.raises(ValueError, match=r"bad\.jsonl:2: not a valid RAGBench row: line 2 is not valid UTF-8"):
        list(load_ragbench(bad))
    row = json.loads(lines[0])
    row["sentence_support_information"] = [
        {"response_sentence_key": "a", "supporting_sentence_keys": [], "fully_supported": "perhaps"}
    ]
    invalid = write_jsonl(tmp_path / "invalid.jsonl", [json.dumps(row)])
    with pytest.raises(ValueError) as caught:
        list(load_ragbench(invalid))
    message = "invalid.jsonl:1: not a valid RAGBench row: field 'sentence_support_information.0.fully_supported': "
    assert "\n" not in str(caught.value) and message in str(caught.value)


# agreement: judge errors are failures


def test_agreement_reports_judge_errors_as_failed_rows(tmp_path: Path, capsys, monkeypatch) -> None:
    from rageval_lc.cli import common

    monkeypatch.setattr(common, "judge_from_args", lambda args: ErrorJudge())
    source = rows_file(tmp_path, 3)
    assert main(["agreement", str(source), "--no-progress"]) == 1
    captured = capsys.readouterr()
    assert "3 rows scored by unauthorised, 3 failed (judge errors, left out)." in captured.out
    assert "undetermined" not in captured.out
    assert f"rageval: line 1 failed: {ErrorJudge().trace_labels(None).reason}" in captured.err
    assert "3 rows failed; exit status 1" in captured.err
    assert main(["agreement", str(source), "--no-progress", "--json"]) == 1
    figures = json.loads(capsys.readouterr().out)
    assert (figures["failed_rows"], figures["undetermined_rows"]) == (3, 0)
    assert figures["failed"][0] == {"line": 1, "reason": ErrorJudge().trace_labels(None).reason}


# Minor: a read-only folder, odd OSErrors, the failed row's reason, a closed pipe, the callback sink


def test_write_atomic_writes_a_writable_file_in_a_folder_it_cannot_create_files_in(tmp_path: Path, monkeypatch) -> None:
    import rageval_lc.files as files

    page = tmp_path / "report.html"
    page.write_text("old", encoding="utf-8")

    def no_new_files(*args: object, **kwargs: object) -> tuple[int, str]:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))  # as in a folder without write access

    monkeypatch.setattr(files.tempfile, "mkstemp", no_new_files)
    files.write_atomic(page, "new page")
    assert page.read_text(encoding="utf-8") == "new page"
    with pytest.raises(PermissionError):  # a file that does not exist yet cannot be made there
        files.write_atomic(tmp_path / "other.html", "page")


def test_an_oserror_without_strerror_is_named(tmp_path: Path, capsys, monkeypatch) -> None:
    import rageval_lc.cli.rgb as command

    def refuse(path: Path, **kwargs: object) -> None:
        raise OSError("the output is on a detached volume")

    monkeypatch.setattr(command, "LockedOutput", refuse)
    record = {"query": "Where?", "answer": ["Paris"], "positive": ["Paris is in France."], "negative": []}
    data = write_jsonl(tmp_path / "rgb.json", [json.dumps(record)])
    out = tmp_path / "out.jsonl"
    assert main(["rgb", "run", str(data), "--system", "os:getcwd", "--out", str(out)]) == 2
    assert one_line_error(capsys.readouterr().err).endswith(f"cannot write {out}: the output is on a detached volume")


def test_the_failed_row_message_gives_the_reason_of_the_error(tmp_path: Path, capsys, monkeypatch) -> None:
    from rageval_lc.cli import common

    class RecallToo(ErrorJudge):
        supports = frozenset({"trace_labels", "assess_reference"})

    monkeypatch.setattr(common, "judge_from_args", lambda args: RecallToo())
    source = rows_file(tmp_path, 1)  # no reference: context_recall, first, is undetermined
    assert labels_run(source, tmp_path / "out.jsonl", "--metrics", "context_recall,trace") == 1  # its one row failed
    (failed,) = [line for line in capsys.readouterr().err.split("\n") if "failed:" in line]
    assert failed == f"rageval: line 1 (id 'r0') failed: {ErrorJudge().trace_labels(None).reason}"


def test_a_reader_that_stops_early_ends_the_run_quietly(tmp_path: Path) -> None:
    source = rows_file(tmp_path, 300)  # far more than a pipe buffer holds
    command = [sys.executable, "-m", "rageval_lc", "evaluate", str(source), "--judge", "labels"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV) as process:
        assert json.loads(process.stdout.readline())["id"] == "r0"
        process.stdout.close()  # as `| head -1` does
        err = process.stderr.read().decode()
        assert process.wait(timeout=300) == 141, err
    assert err == ""


def test_jsonl_sink_escapes_line_separators_and_takes_the_output_lock(tmp_path: Path) -> None:
    from rageval_lc.adapters.sinks import JsonlSink
    from rageval_lc.files import OutputInUseError

    path = tmp_path / "runs.jsonl"
    sink = JsonlSink(path, lock_timeout=0.2)
    sink.write({"producer": "callback", "run_id": "1", "question": "a\u2028b\u2029c\u0085d"})
    data = path.read_bytes()
    assert data.count(b"\n") == 1 and "\u2028".encode() not in data and "\u0085".encode() not in data
    assert json.loads(data)["question"] == "a\u2028b\u2029c\u0085d"
    with path.open("a") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a writer holds the file
        with pytest.raises(OutputInUseError):
            sink.write({"producer": "callback", "run_id": "2"})
    assert path.read_bytes() == data
    sink.write({"producer": "callback", "run_id": "3"})
    assert [json.loads(line)["run_id"] for line in path.read_text(encoding="utf-8").split("\n") if line] == ["1", "3"]
