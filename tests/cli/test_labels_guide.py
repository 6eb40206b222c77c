"""The worked example of docs/guide/labels.md: its commands are run on the files it names (the offline judge's
verdicts on held-out RAGBench rows and RAGBench's labels of them, in tests/cli/data/, written by
``benchmarks/ppi_coverage.py --example-out``), and what they print is what the guide shows."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from rageval_lc.cli import main

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide" / "labels.md"
DATA = Path(__file__).resolve().parent / "data"
SCORES, LABELS = "ragbench_heldout_scores.jsonl", "ragbench_heldout_labels.jsonl"


def worked_example() -> list[tuple[str, list[str]]]:
    """The guide's ``$ rageval …`` commands, each with the lines shown under it (``#`` lines are the reader's
    steps, not output)."""
    text = GUIDE.read_text(encoding="utf-8")
    block = re.search(r"^```text\n(\$ rageval label-sample .*?)^```", text, re.S | re.M)
    assert block is not None, "the guide's worked example (a text block starting '$ rageval label-sample') is gone"
    steps: list[tuple[str, list[str]]] = []
    for line in block.group(1).splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif not line.startswith("#"):
            steps[-1][1].append(line)
    return steps


def fill_in_from_ragbench(path: Path) -> None:
    """The person labelling the drawn rows: here RAGBench's own label of each."""
    truth = {}
    for line in (DATA / LABELS).read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        truth[row["id"]] = row["labels"]["adherence"]
    drawn = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for row in drawn:
        row["labels"]["adherence"] = truth[row["id"]]
    path.write_text("".join(json.dumps(row) + "\n" for row in drawn), encoding="utf-8")


def test_the_worked_example_prints_what_the_guide_shows(tmp_path: Path, monkeypatch, capsys) -> None:
    steps = worked_example()
    assert [command.split()[1] for command, _ in steps] == ["label-sample", "report"]
    monkeypatch.chdir(tmp_path)
    shutil.copy(DATA / SCORES, tmp_path / SCORES)
    for command, shown in steps:
        assert main(shlex.split(command)[1:]) == 0
        printed = capsys.readouterr()
        assert (printed.out + printed.err).splitlines() == shown, command
        if command.split()[1] == "label-sample":
            fill_in_from_ragbench(tmp_path / shlex.split(command)[shlex.split(command).index("--out") + 1])


def test_the_true_rate_the_guide_names_is_ragbench_s() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    named = re.search(r"RAGBench's labels of all (\d[\d,]*) rows give a true rate of (0\.\d{3})", text)
    assert named is not None
    rows = [json.loads(line) for line in (DATA / LABELS).read_text(encoding="utf-8").splitlines()]
    assert int(named.group(1).replace(",", "")) == len(rows)
    rate = sum(row["labels"]["adherence"] for row in rows) / len(rows)
    assert rate == pytest.approx(float(named.group(2)), abs=0.0005)
    # and the prediction-powered interval the guide shows holds it; the judge's does not
    assert 0.764 <= rate <= 0.891 and not 0.612 <= rate <= 0.671
    assert "0.837  [0.764, 0.891]" in text and "0.642  [0.612, 0.671]" in text
