"""One batch loop: each row parsed once, metrics parsed once per run, the input read once, one judge default."""

from __future__ import annotations

import builtins
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from rageval_lc.cli import main
from rageval_lc.judges.base import BaseJudge
from rageval_lc.judges.labels import LabelsJudge
from rageval_lc.schema import RagSample

LABELS = {"all_relevant_sentence_keys": ["0a"], "unsupported_response_sentence_keys": []}


def row(i: int, **extra: Any) -> str:
    data = {"id": f"r{i}", "question": "Q?", "contexts": ["A. B."], "response": "A.", "labels": LABELS, **extra}
    return json.dumps(data)


class PreparingJudge(BaseJudge):
    """The labels judge with an active ``prepare`` that records the samples it was handed."""

    name = "preparing"
    supports = frozenset({"trace_labels"})

    def __init__(self) -> None:
        self.prepared: list[str | None] = []
        self.inner = LabelsJudge()

    def planned_calls(self, judgement: str) -> int:
        return 1

    def prepare(self, samples: Sequence[RagSample]) -> None:
        self.prepared += [s.id for s in samples]

    def trace_labels(self, sample: RagSample) -> Any:
        return self.inner.trace_labels(sample)


def counting(monkeypatch: pytest.MonkeyPatch, name: str, modules: Sequence[str]) -> list[int]:
    """Replace ``name`` in each module by a wrapper counting its calls."""
    import importlib

    calls = [0]
    original = getattr(importlib.import_module(modules[0]), name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    for module in modules:
        if hasattr(importlib.import_module(module), name):
            monkeypatch.setattr(f"{module}.{name}", wrapper)
    return calls


ROW_MODULES = (
    "rageval_lc.datasets.rows",
    "rageval_lc.engine.jsonl",
    "rageval_lc.engine.engine",
    "rageval_lc.cli.evaluate",
)
METRIC_MODULES = (
    "rageval_lc.scoring.registry",
    "rageval_lc.scoring.sample",
    "rageval_lc.engine.jsonl",
    "rageval_lc.engine.batch",
    "rageval_lc.engine.engine",
    "rageval_lc.cli.evaluate",
)


def test_each_row_becomes_a_sample_once_when_the_judge_prepares(monkeypatch: pytest.MonkeyPatch) -> None:
    from rageval_lc.engine.jsonl import evaluate_lines

    calls = counting(monkeypatch, "sample_from_row", ROW_MODULES)
    judge = PreparingJudge()
    out = io.StringIO()
    evaluate_lines([row(1) + "\n", row(2) + "\n", row(3) + "\n"], out, judge=judge)
    assert judge.prepared == ["r1", "r2", "r3"]  # the judge did prepare every row
    assert [json.loads(line)["status"]["adherence"] for line in out.getvalue().splitlines()] == ["ok"] * 3
    assert calls[0] == 3


def test_the_run_layers_parse_the_metrics_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``rageval evaluate`` parses ``--metrics`` once in the CLI, the JSONL layer and the engine together
    (per-sample scoring's own parse aside: see the next test)."""
    source = tmp_path / "in.jsonl"
    source.write_text("".join(row(i) + "\n" for i in range(4)))
    calls = counting(monkeypatch, "parse_metrics", [m for m in METRIC_MODULES if m != "rageval_lc.scoring.sample"])
    args = ["evaluate", str(source), "--judge", "labels", "--metrics", "trace,faithfulness", "--no-progress"]
    assert main([*args, "--out", str(tmp_path / "out.jsonl")]) == 0
    assert calls[0] == 1


def test_a_run_parses_the_metrics_once_in_all(monkeypatch: pytest.MonkeyPatch) -> None:
    from rageval_lc.engine.engine import evaluate

    calls = counting(monkeypatch, "parse_metrics", METRIC_MODULES)
    samples = [RagSample.model_validate(json.loads(row(i))) for i in range(4)]
    evaluate(samples, "trace", judge="labels", concurrency=1)
    assert calls[0] == 1


def test_evaluate_lines_without_a_judge_uses_the_offline_judge() -> None:
    from rageval_lc.engine.jsonl import evaluate_lines

    out = io.StringIO()
    evaluate_lines([row(1)], out, metrics="trace")
    written = json.loads(out.getvalue())
    assert written["run"]["judge"] == "offline"
    assert written["status"]["context_relevance"] == "ok"


def test_the_cli_reads_its_input_once_with_a_progress_bar(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import io as io_module

    source = tmp_path / "in.jsonl"
    source.write_text("".join(row(i) + "\n" for i in range(3)))
    opened: list[str] = []
    real_open = builtins.open

    def spy(file: Any, *args: Any, **kwargs: Any) -> Any:
        if str(file) == str(source):
            opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(io_module, "open", spy)
    out = tmp_path / "out.jsonl"
    assert main(["evaluate", str(source), "--judge", "labels", "--out", str(out), "--progress"]) == 0
    assert len(out.read_text().splitlines()) == 3
    assert len(opened) == 1


def test_agreement_reads_each_row_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from rageval_lc.align.agreement import agreement_run

    calls = counting(monkeypatch, "sample_from_row", (*ROW_MODULES, "rageval_lc.align.agreement"))
    judge = PreparingJudge()
    run = agreement_run([row(1), "", row(2), "{"], judge)
    assert (run.rows, [line for line, _ in run.skipped]) == (2, [4])
    assert judge.prepared == ["r1", "r2"]  # the agreement run goes through the one loop, which prepares
    assert calls[0] == 2


def test_agreement_lists_a_judge_that_cannot_label_as_failed_not_skipped() -> None:
    from rageval_lc.align.agreement import agreement_run

    class Mute(BaseJudge):
        name = "mute"

    run = agreement_run([row(1)], Mute())
    assert run.skipped == []
    assert [line for line, _ in run.failed] == [1]
    assert "cannot make the 'trace_labels' judgement" in run.failed[0][1]


RESOLVING = (
    "rageval_lc.judges.factory",
    "rageval_lc.scoring.sample",
    "rageval_lc.engine.jsonl",
    "rageval_lc.engine.batch",
    "rageval_lc.engine.engine",
)


def test_a_judge_name_is_resolved_once_along_a_row_s_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry point resolves a name (``resolve_judge``); scoring and the batch loop take the judge it gives."""
    from rageval_lc.engine.engine import evaluate
    from rageval_lc.engine.jsonl import evaluate_lines
    from rageval_lc.scoring.sample import evaluate_sample

    calls = counting(monkeypatch, "resolve_judge", RESOLVING)
    evaluate_lines([row(1) + "\n", row(2) + "\n"], io.StringIO(), judge="labels")
    assert calls[0] == 1
    evaluate([RagSample.model_validate(json.loads(row(i))) for i in range(3)], "trace", judge="labels")
    assert calls[0] == 2
    evaluate_sample(json.loads(row(1)), "trace", judge="labels")
    assert calls[0] == 3


def test_the_layers_below_the_entry_points_refuse_a_judge_name() -> None:
    from rageval_lc.scoring.judgements import ScoringOptions
    from rageval_lc.scoring.registry import parse_metrics
    from rageval_lc.scoring.sample import scoring_options

    with pytest.raises(TypeError, match="resolved by the run's entry point"):
        scoring_options(parse_metrics("trace"), ScoringOptions(judge="labels"))  # type: ignore[arg-type]


def test_the_cli_builds_its_judge_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import rageval_lc.judges.factory as factory

    source = tmp_path / "in.jsonl"
    source.write_text("".join(row(i) + "\n" for i in range(3)))
    built = counting(monkeypatch, "make_judge", ["rageval_lc.judges.factory"])
    resolving = [0]
    original = factory.resolve_judge

    def resolve(judge: Any = None, **kwargs: Any) -> Any:
        if not isinstance(judge, BaseJudge):  # a name or None: a judge made here
            resolving[0] += 1
        return original(judge, **kwargs)

    for module in RESOLVING:
        monkeypatch.setattr(f"{module}.resolve_judge", resolve, raising=False)
    assert main(["evaluate", str(source), "--judge", "labels", "--out", str(tmp_path / "out.jsonl")]) == 0
    assert (built[0], resolving[0]) == (1, 0)


def opened_count(monkeypatch: pytest.MonkeyPatch, source: Path) -> list[str]:
    import io as io_module

    opened: list[str] = []
    real_open = builtins.open

    def spy(file: Any, *args: Any, **kwargs: Any) -> Any:
        if str(file) == str(source):
            opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(io_module, "open", spy)
    return opened


def test_a_cascade_with_a_budget_reads_its_input_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The plan over every row and the scoring read the same lines, read once (the resume check too)."""
    from rageval_lc.cli import common
    from tests.judges.test_cascade import cascade, evaluate_argv, rows

    source = tmp_path / "rows.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows(4)))
    out = tmp_path / "out.jsonl"
    monkeypatch.setattr(common, "judge_from_args", lambda args: cascade(escalate=0.2))
    opened = opened_count(monkeypatch, source)
    assert main(evaluate_argv(source, out)) == 0
    assert len(opened) == 1
    out.write_text("\n".join(out.read_text().splitlines()[:2]) + "\n")  # stopped after two rows
    assert main([*evaluate_argv(source, out), "--resume"]) == 0
    assert len(opened) == 2  # once more, for the resumed run
    assert len(out.read_text().splitlines()) == 4


def test_a_resumed_run_reads_its_input_twice_as_the_guide_says(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """First the check of every kept row against its line (before anything is written), then the scoring."""
    source = tmp_path / "in.jsonl"
    source.write_text("".join(row(i) + "\n" for i in range(3)))
    out = tmp_path / "out.jsonl"
    argv = ["evaluate", str(source), "--judge", "labels", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    out.write_text(out.read_text().splitlines()[0] + "\n")
    opened = opened_count(monkeypatch, source)
    assert main([*argv, "--resume"]) == 0
    assert len(opened) == 2
    assert len(out.read_text().splitlines()) == 3
