"""Aligning an LLM judge (issue 24): every module the metrics use is compiled from labelled rows, saved, reloaded,
and asks the model the same (offline, DSPy's DummyLM)."""

from __future__ import annotations

import json
from pathlib import Path

import dspy
import pytest
from dspy.utils import DummyLM

from rageval_lc.align.compile import compile_modules, module_examples
from rageval_lc.datasets.labelled import read_labelled
from rageval_lc.judges.llm.dspy_judge import DspyJudge

RAGBENCH = Path(__file__).resolve().parents[3] / "shared" / "data" / "ragbench" / "covidqa_validation.jsonl"
METRICS = "trace,faithfulness,context_precision"


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    """20 RAGBench rows: TRACe labels, sentence support and relevant keys on each."""
    return [json.loads(line) for line in RAGBENCH.read_text(encoding="utf-8").splitlines()[:20]]


def test_every_module_the_metrics_use_is_compiled_saved_and_reloaded(rows: list[dict], tmp_path: Path) -> None:
    lm = DummyLM([{"verdicts": "[]"}] * 10)
    judge = DspyJudge(lm)
    report = compile_modules(judge, rows, METRICS, mode="separate", max_demos=3)
    # separate mode: TRACe labelling, then claims (extract, verify) and context relevance for the other two
    assert report.compiled == {"trace_labels": 20, "verify_claims": 20, "context_relevance": 20}
    assert report.skipped == {"extract_claims": "no label maps onto it"}
    assert report.planned_calls == 0 and lm.history == []  # LabeledFewShot: demos from the labels, no call
    for name in report.compiled:
        assert len(judge.modules[name].predictors()[0].demos) == 3
    path = judge.save(tmp_path / "judge.json")
    again = DspyJudge(DummyLM([{"verdicts": "[]"}] * 10)).load(path)
    for name in report.compiled:
        assert again.modules[name].dump_state() == judge.modules[name].dump_state()
    # the same prompt (demonstrations included) reaches the model from both
    sample = read_labelled(rows[:1])[0].sample
    claims = [text for _, text in sample.sentences.response]
    judge.verify_claims(claims, sample.contexts)
    again.verify_claims(claims, sample.contexts)
    first, second = judge.lm.history[-1]["messages"], again.lm.history[-1]["messages"]
    assert first == second
    demo = module_examples("verify_claims", read_labelled(rows))
    assert any(str(example.claims) in json.dumps(first) for example in demo)


def test_the_demonstrations_are_the_labels(rows: list[dict]) -> None:
    labelled = read_labelled(rows)
    x = labelled[2]  # covidqa_validation row 3: response sentence "a" unsupported
    (claims,) = module_examples("verify_claims", [x])
    assert [v.supported for v in claims.verdicts] == [k not in x.unsupported for k in x.sample.sentences.response_keys]
    (contexts,) = module_examples("context_relevance", [x])
    relevant_docs = sorted({int(k[:-1]) + 1 for k in x.relevant})
    assert [v.context_number for v in contexts.verdicts if v.is_relevant] == relevant_docs


def test_a_dry_run_plans_the_calls_and_changes_nothing(rows: list[dict]) -> None:
    judge = DspyJudge(DummyLM([]))
    before = {name: module.dump_state() for name, module in judge.modules.items()}
    report = compile_modules(judge, rows, "faithfulness", mode="separate", optimizer="bootstrap", dry_run=True)
    assert report.compiled == {"verify_claims": 20} and report.planned_calls == 20  # at most one call per example
    assert {name: module.dump_state() for name, module in judge.modules.items()} == before


def test_bootstrap_keeps_the_demonstrations_the_model_got_right(rows: list[dict]) -> None:
    """BootstrapFewShot with each module's agreement metric: the model below calls every claim supported, so only
    rows whose claims are all labelled supported become bootstrapped demonstrations."""
    labelled = read_labelled(rows)
    faithful = [x for x in labelled if not x.unsupported]
    verdicts = [{"claim_number": i + 1, "supported": True, "reason": "ok"} for i in range(40)]
    judge = DspyJudge(DummyLM([{"verdicts": json.dumps(verdicts)}] * 100))
    report = compile_modules(
        judge,
        [r for r, x in zip(rows, labelled, strict=True) if x in faithful][:4],
        "faithfulness",
        mode="separate",
        optimizer="bootstrap",
        max_demos=2,
    )
    assert report.compiled == {"verify_claims": min(4, len(faithful))}
    demos = judge.modules["verify_claims"].predictors()[0].demos
    assert demos and all(all(v.supported for v in d.verdicts) for d in demos)


def test_an_unknown_optimizer_is_named(rows: list[dict]) -> None:
    with pytest.raises(ValueError, match="Unknown optimizer 'mipro'"):
        compile_modules(DspyJudge(DummyLM([])), rows, optimizer="mipro")


def test_labeled_few_shot_is_what_dspy_gives(rows: list[dict]) -> None:
    """The default compile is DSPy's LabeledFewShot on the mapped examples, nothing of ours in between."""
    judge = DspyJudge(DummyLM([]))
    compile_modules(judge, rows, "trace", max_demos=2)
    expected = dspy.LabeledFewShot(k=2).compile(
        DspyJudge(DummyLM([])).modules["trace_labels"], trainset=module_examples("trace_labels", read_labelled(rows))
    )
    assert judge.modules["trace_labels"].dump_state() == expected.dump_state()


def test_align_judge_compiles_an_llm_judge_checks_it_held_out_and_writes_it(rows: list[dict], tmp_path: Path) -> None:
    """20 labelled rows, a scripted model that calls every claim supported: the held-out rows are scored before and
    after compiling (faithfulness 1.0 on each, so no figure moves), and the judge is written and reloads."""
    from rageval_lc.align.offline import align_judge

    verdicts = [{"claim_number": i + 1, "supported": True, "reason": "ok"} for i in range(40)]
    claims = {"claims": json.dumps(["Claim one."])}
    answers = {"Break the answer into atomic": claims, "Decide, for every claim": {"verdicts": json.dumps(verdicts)}}
    judge = DspyJudge(DummyLM(answers))
    out = tmp_path / "judge.json"
    report = align_judge(rows, judge, metrics="faithfulness", out=out, scoring_mode="separate", seed=0, force=True)
    assert report.compiled == {"verify_claims": report.fitted_rows} and report.fitted_rows + report.held_out_rows == 20
    assert report.skipped == ["extract_claims: no label maps onto it"]
    assert report.written == out and not report.worse
    again = DspyJudge(DummyLM(answers)).load(out)
    assert again.modules["verify_claims"].dump_state() == judge.modules["verify_claims"].dump_state()
    assert "Compiled: verify_claims" in report.table()


def test_a_dry_run_calls_no_model(rows: list[dict]) -> None:
    from rageval_lc.align.offline import align_judge

    lm = DummyLM([])
    report = align_judge(rows, DspyJudge(lm), metrics="trace", optimizer="bootstrap", dry_run=True, seed=0)
    # compiling: one call per fitted row at most; checking: one TRACe call per held-out row, before and after
    assert report.planned_calls == report.fitted_rows + 2 * report.held_out_rows
    assert lm.history == [] and report.written is None


def test_a_refused_llm_judge_is_left_as_it_was(rows: list[dict], tmp_path: Path) -> None:
    """The held-out rows of the first 20 are all faithful and the model calls every claim supported: no figure can
    be measured, so the compiled judge is refused (not written) and the caller's judge keeps its modules."""
    from rageval_lc.align.offline import align_judge

    verdicts = [{"claim_number": i + 1, "supported": True, "reason": "ok"} for i in range(40)]
    answers = {"Decide, for every claim": {"verdicts": json.dumps(verdicts)}}
    judge = DspyJudge(DummyLM(answers))
    fresh = judge.modules["verify_claims"].dump_state()
    report = align_judge(rows, judge, metrics="faithfulness", out=tmp_path / "j.json", scoring_mode="separate")
    assert report.refusal and "nothing could be measured" in report.refusal and report.written is None
    assert judge.modules["verify_claims"].dump_state() == fresh


class Interrupted(Exception):
    pass


def counting_optimizer(compiled: list[str], *, stop_after: int | None = None) -> type:
    """An optimizer factory that records each compile (LabeledFewShot with 2 demos) and, after ``stop_after``
    compiles, stops the run as an interrupt would."""

    class Counting:
        def __init__(self, metric: object) -> None:
            self.metric = metric

        def compile(self, student: dspy.Module, *, trainset: list) -> dspy.Module:
            if stop_after is not None and len(compiled) >= stop_after:
                raise Interrupted
            compiled.append(student.__class__.__name__)
            return dspy.LabeledFewShot(k=2).compile(student, trainset=trainset)

    return Counting


def test_a_stopped_compile_resumes_from_its_checkpoint(rows: list[dict], tmp_path: Path) -> None:
    """Three modules; the run stops after the first is compiled. Run again with the same checkpoint: the first is
    loaded (not compiled again) and equals the first run's, the other two are compiled; other rows recompile it."""
    folder = tmp_path / "partial"
    first: list[str] = []
    judge = DspyJudge(DummyLM([]))
    with pytest.raises(Interrupted):
        compile_modules(
            judge, rows, METRICS, mode="separate", optimizer=counting_optimizer(first, stop_after=1), checkpoint=folder
        )
    assert len(first) == 1 and (folder / "trace_labels.json").is_file()
    done = judge.modules["trace_labels"].dump_state()
    second: list[str] = []
    again = DspyJudge(DummyLM([]))
    plan = compile_modules(
        again, rows, METRICS, mode="separate", optimizer=counting_optimizer(second), checkpoint=folder, dry_run=True
    )
    assert plan.resumed == ["trace_labels"] and second == []
    report = compile_modules(
        again, rows, METRICS, mode="separate", optimizer=counting_optimizer(second), checkpoint=folder
    )
    assert report.resumed == ["trace_labels"] and len(second) == 2  # verify_claims, context_relevance
    assert again.modules["trace_labels"].dump_state() == done
    assert set(report.compiled) == {"trace_labels", "verify_claims", "context_relevance"}
    # other examples are another compile: nothing is taken from the checkpoint
    third: list[str] = []
    other = compile_modules(
        DspyJudge(DummyLM([])),
        rows[:10],
        METRICS,
        mode="separate",
        optimizer=counting_optimizer(third),
        checkpoint=folder,
    )
    assert other.resumed == [] and len(third) == 3


def test_align_resumes_the_held_out_check_from_its_checkpoint(rows: list[dict], tmp_path: Path) -> None:
    """An explicit checkpoint keeps the compiled module and the held-out answers: a second run loads the module and
    asks the model nothing; the default checkpoint (OUT.partial) is removed once a run ends."""
    from rageval_lc.align.offline import align_judge

    verdicts = [{"claim_number": 1, "supported": True, "reason": "ok"}]
    answers = {  # DummyLM matches the last message: extraction's holds the answer, verification's the context
        "[[ ## answer ## ]]": {"claims": json.dumps(["Claim one."])},
        "[[ ## context ## ]]": {"verdicts": json.dumps(verdicts)},
    }
    options = {"metrics": "faithfulness", "scoring_mode": "separate", "seed": 0, "force": True}
    lm = DummyLM(answers)
    first = align_judge(rows, DspyJudge(lm), checkpoint=tmp_path / "cp", **options)
    calls = len(lm.history)
    assert calls > 0 and first.resumed == [] and first.figures  # the held-out rows were scored
    lm_again = DummyLM(answers)
    second = align_judge(rows, DspyJudge(lm_again), checkpoint=tmp_path / "cp", **options)
    assert second.resumed == ["verify_claims"] and lm_again.history == []
    assert [f.__dict__ for f in second.figures] == [f.__dict__ for f in first.figures]
    assert "Resumed (loaded from the checkpoint, not compiled again): verify_claims" in second.table()
    out = tmp_path / "judge.json"
    align_judge(rows, DspyJudge(DummyLM(answers)), out=out, **options)
    assert out.is_file() and not Path(f"{out}.partial").exists()


def test_a_cli_dry_run_needs_no_api_key(
    rows: list[dict], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rageval_lc.cli import main

    monkeypatch.delenv("RAGEVAL_TEST_UNSET_KEY", raising=False)
    source = tmp_path / "rows.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    args = ["align", str(source), "--judge", "dspy:openai/gpt-4o-mini", "--api-key-env", "RAGEVAL_TEST_UNSET_KEY"]
    assert main([*args, "--dry-run", "--optimizer", "bootstrap"]) == 0
    captured = capsys.readouterr()
    # 14 fitted rows, 6 held out: 14 + 2 x 6 calls
    assert "Dry run: 26 model calls planned (compiling and the held-out check)." in captured.out
    assert "'RAGEVAL_TEST_UNSET_KEY' (named by --api-key-env) is not set; the dry run needs no key" in captured.err
    assert main(args) == 2
    assert "rageval: error: The environment variable 'RAGEVAL_TEST_UNSET_KEY'" in capsys.readouterr().err
