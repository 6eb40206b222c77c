"""Metrics of one's own (issue 16, part 5): a criteria metric judged by an LLM on a rubric, and a function
metric, scored through every entry point — evaluate_sample, the CLI (``--load``), the LangChain evaluator,
the LangSmith evaluator function, the DSPy metric, the callback handler and the dry run — with counting
fake LLMs (one call per sample); offline they are undetermined with the reason; the criteria module
compiles, saves and loads.

The numbers: the helpfulness rubric runs 1-5 and every fake answers level 4, so the score is
(4 - 1) / (5 - 1) = 0.75 (hand computation).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dspy
import pytest
from dspy.utils import DummyLM
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

import rageval_lc
from rageval_lc.adapters import RagEvalCallbackHandler, RagEvaluator, dspy_metric, langsmith_evaluator
from rageval_lc.adapters.sinks import MemorySink
from rageval_lc.cli import main
from rageval_lc.judges.llm.dspy_judge import DspyJudge
from rageval_lc.schema import MetricResult, RagSample
from rageval_lc.scoring import plan
from rageval_lc.scoring.custom import load_metrics, temporary_metrics, unregister_metric
from rageval_lc.scoring.dry_run import plan_calls
from rageval_lc.scoring.registry import REGISTRY
from rageval_lc.scoring.sample import evaluate_sample
from rageval_lc.verdicts import CRITERIA_DEFINITIONS
from tests.fakes import chat
from tests.judges.test_faults import FakeServer

ROOT = Path(__file__).resolve().parents[2]
HELPFULNESS = {
    "criteria": "Does the response help the user with the question, using the contexts?",
    "rubric": {1: "useless", 2: "barely helpful", 3: "somewhat helpful", 4: "helpful", 5: "fully helpful"},
    "uses": ("question", "contexts", "response"),
}
LEVEL_4 = chat(reason="It answers with the city the contexts name.", score="4")
QUESTIONS = ["Where is the Eiffel Tower?", "When did the Eiffel Tower open?", "What is the Eiffel Tower made of?"]
CONTEXTS = ["The Eiffel Tower is in Paris. It opened in 1889.", "It is made of iron."]


def samples() -> list[RagSample]:
    return [RagSample(id=f"q{i}", question=q, contexts=CONTEXTS, response="Paris.") for i, q in enumerate(QUESTIONS)]


class CountingChatModel(BaseChatModel):
    """A LangChain chat model answering ``reply`` to everything; keeps every system prompt (one per call)."""

    reply: str = LEVEL_4
    _prompts: list = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "counting-fake"

    @property
    def prompts(self) -> list[str]:
        return self._prompts

    def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self._prompts.append("\n".join(str(m.content) for m in messages))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.reply))])


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    """Every test registers its metrics inside temporary_metrics: nothing leaks into other tests."""
    with temporary_metrics():
        yield


@pytest.fixture
def helpfulness() -> Any:
    return rageval_lc.criteria_metric("helpfulness", **HELPFULNESS)


# --- the criteria judgement end to end -------------------------------------------------------------


def test_a_criteria_metric_is_one_call_with_the_rubric_level_rescaled(helpfulness: Any) -> None:
    lm = DummyLM({"Where is the Eiffel Tower?": {"reason": "Names the city.", "score": "4"}})
    result = evaluate_sample(samples()[0], "helpfulness", judge=DspyJudge(lm))
    r = result.results["helpfulness"]
    assert (r.status, r.score) == ("ok", 0.75)  # (4 - 1) / (5 - 1)
    assert r.reason == "Rubric level 4 of 1-5 (helpful): Names the city."
    assert r.details["level"] == 4.0
    assert len(lm.history) == 1
    details = result.details["helpfulness"]
    assert details["judgements"] == ["criteria:helpfulness"] and details["usage"]["calls"] == 1


def test_criteria_calls_go_through_the_resilient_wrapper_and_its_cache(helpfulness: Any, tmp_path: Path) -> None:
    from rageval_lc.engine.engine import make_resilient

    lm = DummyLM({"Where is the Eiffel Tower?": {"reason": "Names the city.", "score": "4"}})
    first = make_resilient(DspyJudge(lm), requests_per_minute=600, cache_dir=tmp_path)
    assert evaluate_sample(samples()[0], "helpfulness", judge=first).scores() == {"helpfulness": 0.75}
    assert len(lm.history) == 1 and first.cache.misses == 1 and first.limiter is not None
    again = make_resilient(DspyJudge(lm), cache_dir=tmp_path)  # a rerun: read back, no call
    assert evaluate_sample(samples()[0], "helpfulness", judge=again).scores() == {"helpfulness": 0.75}
    assert len(lm.history) == 1 and again.cache.hits == 1


def test_the_prompt_carries_the_criteria_the_rubric_and_only_the_fields_used(helpfulness: Any) -> None:
    model = CountingChatModel()
    sample = samples()[0].model_copy(update={"reference": "SECRET REFERENCE"})
    evaluate_sample(sample, "helpfulness", judge=model)
    (prompt,) = model.prompts
    assert HELPFULNESS["criteria"] in prompt
    assert "1: useless" in prompt and "5: fully helpful" in prompt
    assert "[Context 1] The Eiffel Tower is in Paris." in prompt and "Where is the Eiffel Tower?" in prompt
    assert "SECRET REFERENCE" not in prompt  # the metric does not use the reference


@pytest.mark.parametrize(
    ("rubric", "level", "expected"),
    [
        ({0: "no", 0.5: "partly", 1: "yes"}, "0.5", 0.5),
        ({1: "a", 2: "b", 3: "c", 4: "d", 5: "e"}, "2", 0.25),  # (2 - 1) / 4
        ({-1: "harmful", 0: "neutral", 1: "good"}, "0", 0.5),  # (0 + 1) / 2
    ],
)
def test_levels_are_rescaled_over_the_rubric_range(rubric: dict, level: str, expected: float) -> None:
    rageval_lc.criteria_metric("tone", criteria="Is the tone right?", rubric=rubric, uses=("response",))
    judge = DspyJudge(DummyLM([{"reason": "r", "score": level}]))
    assert evaluate_sample(samples()[0], "tone", judge=judge).scores()["tone"] == expected


def test_an_answer_off_the_rubric_is_retried_then_undetermined_with_the_raw_output(helpfulness: Any) -> None:
    lm = DummyLM([{"reason": "r", "score": "7"}, {"reason": "r", "score": "4.5"}])
    result = evaluate_sample(samples()[0], "helpfulness", judge=DspyJudge(lm, max_retries=1))
    r = result.results["helpfulness"]
    assert r.status == "undetermined" and r.score is None
    assert "not one of the rubric's (1, 2, 3, 4, 5)" in r.reason and "2 attempts" in r.reason
    assert "4.5" in result.details["helpfulness"]["raw_output"]
    assert len(lm.history) == 2


def test_a_json_answer_is_read_through_dspys_json_fallback(helpfulness: Any) -> None:
    model = CountingChatModel(reply=json.dumps({"reason": "Helpful.", "score": 4}))
    result = evaluate_sample(samples()[0], "helpfulness", judge=model)
    assert result.scores()["helpfulness"] == 0.75
    assert len(model.prompts) == 2  # the chat format failed to parse, DSPy's JSON adapter asked again


def test_a_failing_model_is_an_error_not_an_exception(helpfulness: Any) -> None:
    class Broken(CountingChatModel):
        def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
            raise ConnectionRefusedError("no server")

    r = evaluate_sample(samples()[0], "helpfulness", judge=Broken()).results["helpfulness"]
    assert r.status == "error" and "no server" in r.reason


def test_missing_fields_are_undetermined_without_a_call() -> None:
    rageval_lc.criteria_metric("correct", criteria="Does it agree with the reference?", uses=("response", "reference"))
    rageval_lc.criteria_metric("grounded", criteria="Is it grounded?", uses=("contexts", "response"))
    model = CountingChatModel()
    no_evidence = RagSample(question="Q?", contexts=[], response="A.")
    result = evaluate_sample(no_evidence, "correct,grounded", judge=model)
    assert result.results["correct"].status == "undetermined" and "reference" in result.results["correct"].reason
    assert result.results["grounded"].status == "undetermined" and "contexts" in result.results["grounded"].reason
    assert model.prompts == []
    assert REGISTRY["correct"].needs_reference and REGISTRY["grounded"].needs_contexts


@pytest.mark.parametrize("judge", ["labels", "offline", "local", None])
def test_offline_a_criteria_metric_is_undetermined_saying_it_needs_an_llm_judge(helpfulness: Any, judge: Any) -> None:
    result = evaluate_sample(samples()[0], "helpfulness", judge=judge)
    r = result.results["helpfulness"]
    assert (r.status, r.score) == ("undetermined", None)
    named = "labels" if judge == "labels" else "offline"  # the offline judge under its old name too
    assert "needs an LLM judge" in r.reason and r.reason.startswith(f"The {named!r}")
    assert result.details["judge_usage"]["calls"] == 0
    plans = plan_calls(samples(), ["helpfulness"], rageval_lc.LabelsJudge())
    assert plans == []  # no call planned: none is made


# --- every entry point, one call per sample -----------------------------------------------------------


def test_the_dry_run_counts_one_criteria_call_per_sample_as_made(helpfulness: Any) -> None:
    model = CountingChatModel()
    judge = DspyJudge(model)
    (planned,) = plan_calls(samples(), ["helpfulness"], judge)
    assert (planned.judgement, planned.metrics, planned.calls_per_sample) == (
        "criteria:helpfulness",
        ("helpfulness",),
        1,
    )
    assert (planned.samples, planned.calls) == (3, 3) and planned.prompt_tokens > 0
    for sample in samples():
        evaluate_sample(sample, "helpfulness", judge=judge)
    assert len(model.prompts) == planned.calls


def test_the_shared_suite_adds_one_call_per_criteria_metric(helpfulness: Any) -> None:
    rageval_lc.criteria_metric("concise", criteria="Is it concise?", uses=("response",))
    plans = plan_calls(samples(), ["trace", "helpfulness", "concise"], DspyJudge(CountingChatModel()))
    assert {p.judgement: p.calls for p in plans} == {
        "trace_labels": 3,
        "criteria:helpfulness": 3,
        "criteria:concise": 3,
    }


def test_the_langchain_evaluator(helpfulness: Any) -> None:
    model = CountingChatModel()
    evaluator = RagEvaluator("helpfulness", judge=model)
    for q in QUESTIONS:
        out = evaluator.evaluate_strings(prediction="Paris.", input=q, contexts=CONTEXTS)
        assert (out["score"], out["status"]) == (0.75, "ok")
        assert out["reasoning"].startswith("Rubric level 4 of 1-5 (helpful)")
    out = evaluator.invoke({"question": QUESTIONS[0], "contexts": CONTEXTS, "response": "Paris."})
    assert out["score"] == 0.75
    assert len(model.prompts) == len(QUESTIONS) + 1


def test_the_langsmith_evaluator_function(helpfulness: Any) -> None:
    model = CountingChatModel()
    evaluator = langsmith_evaluator("helpfulness", judge=model)
    out = evaluator({"question": QUESTIONS[0]}, {"answer": "Paris.", "contexts": CONTEXTS})
    assert out["key"] == "helpfulness" and out["score"] == 0.75
    assert out["comment"].startswith("Rubric level 4 of 1-5 (helpful)")
    assert len(model.prompts) == 1


def test_the_dspy_metric(helpfulness: Any) -> None:
    model = CountingChatModel()
    metric = dspy_metric("helpfulness", judge=model)
    example = dspy.Example(question=QUESTIONS[0])
    prediction = dspy.Prediction(answer="Paris.", contexts=CONTEXTS)
    assert metric(example, prediction) == 0.75
    assert metric(example, prediction, trace=[]) is True  # 0.75 >= the 0.5 pass mark while bootstrapping
    with_feedback = dspy_metric("helpfulness", judge=model, feedback=True)(example, prediction)
    assert with_feedback.score == 0.75 and with_feedback.feedback.startswith("Rubric level 4")
    assert len(model.prompts) == 3


def test_the_callback_handler(helpfulness: Any) -> None:
    from tests.adapters.test_callback_handler import rag_chain

    model = CountingChatModel()
    sink = MemorySink()
    handler = RagEvalCallbackHandler(["helpfulness"], judge=model, sinks=[sink], background=False)
    for q in QUESTIONS[:2]:
        rag_chain("Paris.").invoke(q, config={"callbacks": [handler]})
    assert handler.wait(timeout=60)
    assert [r["scores"]["helpfulness"] for r in sink.records] == [0.75, 0.75]
    assert [f["key"] for f in sink.records[0]["feedback"]] == ["helpfulness"]
    assert len(model.prompts) == 2
    assert "asked here" in model.prompts[0]  # the retrieved documents reached the judge


def test_the_cli_loads_metrics_and_scores_them_with_one_call_per_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    definitions = tmp_path / "my_metrics.py"
    definitions.write_text(
        textwrap.dedent(
            f"""
            from rageval_lc import criteria_metric, register_metric

            criteria_metric("helpfulness", **{HELPFULNESS!r})
            register_metric("brevity", score=lambda s: (1.0 if len(s.response) < 20 else 0.0, "short"),
                            uses=("response",))
            """
        )
    )
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(s.model_dump(exclude={"labels"})) + "\n" for s in samples()))
    out = tmp_path / "out.jsonl"
    server = FakeServer(LEVEL_4)
    try:
        judge = ["--judge", "dspy:openai/judge", "--api-base", server.url]
        common = ["evaluate", str(rows), "--load", str(definitions), "--metrics", "helpfulness,brevity", *judge]
        assert main([*common, "--out", str(out)]) == 0
        assert server.calls == 3  # one criteria call per row; the function metric calls none
        scored = [json.loads(line) for line in out.read_text().splitlines()]
        assert [row["scores"] for row in scored] == [{"helpfulness": 0.75, "brevity": 1.0}] * 3
        assert all(row["reason"]["brevity"] == "short" for row in scored)
        assert scored[0]["run"]["criteria"]["helpfulness"]["criteria"] == HELPFULNESS["criteria"]
        # the criteria changed since: --resume refuses to mix rows of the two definitions
        out.write_text(out.read_text().splitlines()[0] + "\n")
        changed = tmp_path / "changed.py"
        changed.write_text(definitions.read_text().replace(HELPFULNESS["criteria"], "Is it kind?"))
        assert "Is it kind?" in changed.read_text()
        again = ["evaluate", str(rows), "--load", str(changed), "--metrics", "helpfulness,brevity", *judge]
        with pytest.warns(UserWarning, match="was registered before"):  # the file loaded again: both replaced
            assert main([*again, "--out", str(out), "--resume"]) == 2
        assert server.calls == 3  # nothing scored
        assert "was scored with another definition of the criteria metric helpfulness" in capsys.readouterr().err
    finally:
        server.close()
    unregister_metric("helpfulness")
    unregister_metric("brevity")


def test_the_cli_dry_run_counts_the_criteria_calls(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    definitions = tmp_path / "metrics_a.py"
    definitions.write_text(
        f"from rageval_lc import criteria_metric\ncriteria_metric('helpfulness', **{HELPFULNESS!r})\n"
    )
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(s.model_dump(exclude={"labels"})) + "\n" for s in samples()))
    argv = ["evaluate", str(rows), "--load", str(definitions), "--metrics", "helpfulness", "--dry-run"]
    assert main([*argv, "--judge", "dspy:openai/judge", "--api-base", "http://127.0.0.1:9/v1"]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("criteria:helpfulness"))
    assert line.split()[1:5] == ["helpfulness", "1", "3", "3"]
    assert "3 model calls before retries" in out


def test_the_cli_refuses_a_load_that_fails_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(samples()[0].model_dump()) + "\n")
    bad = tmp_path / "bad_metrics.py"
    bad.write_text("raise RuntimeError('broken definitions')\n")
    for target, said in [(str(tmp_path / "missing.py"), "no such file"), (str(bad), "RuntimeError: broken")]:
        assert main(["evaluate", str(rows), "--load", target, "--metrics", "trace", "--judge", "labels"]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and said in err and err.startswith("rageval: error: cannot load metrics")
    assert main(["evaluate", str(rows), "--metrics", "helpfulness", "--judge", "labels"]) == 2
    assert "Unknown metric 'helpfulness'" in capsys.readouterr().err


def test_the_rageval_command_loads_a_module_by_name(tmp_path: Path) -> None:
    """A real subprocess: ``--load package.module`` (a module on the path), offline: undetermined rows."""
    (tmp_path / "team_metrics.py").write_text(
        "from rageval_lc import criteria_metric\ncriteria_metric('polite', criteria='Polite?', uses=('response',))\n"
    )
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(samples()[0].model_dump()) + "\n")
    env = {"PYTHONPATH": f"{tmp_path}:{ROOT}", "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
    argv = [sys.executable, "-m", "rageval_lc", "evaluate", str(rows), "--load", "team_metrics"]
    done = subprocess.run([*argv, "--metrics", "polite", "--judge", "labels"], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout)
    assert row["status"] == {"polite": "undetermined"} and "needs an LLM judge" in row["reason"]["polite"]


# --- compile, save, load ----------------------------------------------------------------------------------


def test_the_criteria_module_compiles_saves_and_loads(helpfulness: Any, tmp_path: Path) -> None:
    answers = {
        q: {"reason": f"Answers {q[:12]}", "score": str(level)} for q, level in zip(QUESTIONS, (5, 2, 4), strict=True)
    }
    judge = DspyJudge(DummyLM(answers))
    student = judge.criteria_module("helpfulness")
    gold = dict(zip(QUESTIONS, (5.0, 2.0, 3.0), strict=True))  # the third disagrees with the LM's 4
    trainset = [
        dspy.Example(question=q, contexts="[Context 1] x", response="Paris.", score=gold[q]).with_inputs(
            "question", "contexts", "response"
        )
        for q in QUESTIONS
    ]

    def agrees(example: Any, prediction: Any, trace: Any = None) -> bool:
        return float(prediction.score) == example.score

    optimizer = dspy.BootstrapFewShot(metric=agrees, max_bootstrapped_demos=3, max_labeled_demos=0)
    with dspy.context(lm=judge.lm):
        judge.modules["criteria:helpfulness"] = optimizer.compile(student, trainset=trainset)
    demos = judge.modules["criteria:helpfulness"].predict.demos
    assert sorted(d["question"] for d in demos) == sorted(QUESTIONS[:2])  # the LM agreed with gold on two

    saved = judge.save(tmp_path / "judge.json")
    assert "criteria:helpfulness" in json.loads(saved.read_text())["criteria"]
    reloaded = DspyJudge(DummyLM(answers)).load(saved)
    assert [d["question"] for d in reloaded.criteria_module("helpfulness").predict.demos] == [
        d["question"] for d in demos
    ]
    sample = samples()[2]
    assert evaluate_sample(sample, "helpfulness", judge=reloaded).scores() == {"helpfulness": 0.75}
    prompt = json.dumps(reloaded.lm.history[-1]["messages"])
    assert QUESTIONS[0] in prompt  # a demonstration went into the reloaded judge's prompt

    unregister_metric("helpfulness")
    with pytest.raises(ValueError, match="register it"):
        DspyJudge(DummyLM(answers)).load(saved)
    rageval_lc.criteria_metric("helpfulness", **{**HELPFULNESS, "criteria": "Something else?"})
    with pytest.raises(ValueError, match="another definition"):
        DspyJudge(DummyLM(answers)).load(saved)


def test_a_changed_definition_gets_a_fresh_module(helpfulness: Any) -> None:
    judge = DspyJudge(DummyLM([]))
    first = judge.criteria_module("helpfulness")
    assert judge.criteria_module("helpfulness") is first
    with pytest.warns(UserWarning, match="replaced"):
        rageval_lc.criteria_metric("helpfulness", **{**HELPFULNESS, "rubric": {0: "no", 1: "yes"}})
    second = judge.criteria_module("helpfulness")
    assert second is not first and "1: yes" in second.predict.signature.instructions
    with pytest.raises(ValueError, match="No criteria metric 'nothing'"):
        judge.criteria_module("nothing")


# --- function metrics ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "status", "score", "reason"),
    [
        (0.25, "ok", 0.25, "Scored by the 'fn' metric's function."),
        ((1, "because"), "ok", 1.0, "because"),
        (MetricResult(name="other", score=0.5, reason="mine"), "ok", 0.5, "mine"),
        (MetricResult(name="other", status="undetermined", reason="cannot say"), "undetermined", None, "cannot say"),
        (1.5, "error", None, "returned 1.5: not a score in [0, 1]"),
        (math.nan, "error", None, "returned nan"),
        (True, "error", None, "returned True"),
        ("0.5", "error", None, "returned '0.5'"),
        ((0.5, 3), "error", None, "returned (0.5, 3)"),
    ],
)
def test_a_function_metrics_value(value: Any, status: str, score: float | None, reason: str) -> None:
    rageval_lc.register_metric("fn", score=lambda sample: value)
    r = evaluate_sample(samples()[0], "fn", judge="labels").results["fn"]
    assert (r.name, r.status, r.score) == ("fn", status, score)
    assert reason in r.reason


def test_a_function_metric_that_raises_is_that_metrics_error_only() -> None:
    rageval_lc.register_metric("boom", score=lambda sample: 1 / 0)
    rageval_lc.register_metric("words", score=lambda s: min(1.0, len(s.response.split()) / 10), uses=("response",))
    result = evaluate_sample(samples()[0], "boom,words", judge="labels")
    assert result.results["boom"].status == "error"
    assert result.results["boom"].reason == "The 'boom' metric's function raised ZeroDivisionError: division by zero"
    assert result.scores()["words"] == 0.1  # "Paris." is one word: 1 / 10


def test_a_function_metric_lacking_a_field_is_undetermined_and_not_called() -> None:
    called: list[Any] = []
    rageval_lc.register_metric("vs_reference", score=lambda s: called.append(s) or 1.0, uses=("reference",))
    r = evaluate_sample(samples()[0], "vs_reference", judge="labels").results["vs_reference"]
    assert r.status == "undetermined" and "reference" in r.reason and called == []
    assert RagEvaluator("vs_reference", judge="labels").requires_reference


# --- bad definitions -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"name": "faithfulness"}, "clashes with the built-in metric 'faithfulness'"),
        ({"name": "adherence"}, "clashes with the built-in score 'adherence'"),
        ({"name": "my metric"}, "letters, digits and '_'.*Got 'my metric'"),
        ({"name": "1st"}, "Got '1st'"),
        ({"criteria": "  "}, "'criteria' parameter .* non-empty"),
        ({"rubric": {1: "only one"}}, "at least two levels"),
        ({"rubric": {"low": "a", "high": "b"}}, "the level 'low' is not a finite number"),
        ({"rubric": {False: "a", True: "b"}}, "the level False is not a finite number"),
        ({"rubric": {0: "a", math.inf: "b"}}, "the level inf"),
        ({"rubric": {0: "a", 1: ""}}, "the level 1 has no description"),
        ({"rubric": [0, 1]}, "not a mapping"),
        ({"uses": ("question", "answer")}, r"unknown fields \['answer'\]"),
        ({"uses": ()}, "no field"),
        ({"uses": ("response", "response")}, "a field named twice"),
    ],
)
def test_bad_definitions_are_refused_naming_the_problem(kwargs: dict, match: str) -> None:
    arguments = {"name": "helpfulness", **HELPFULNESS, **kwargs}
    with pytest.raises(ValueError, match=match):
        rageval_lc.criteria_metric(**arguments)
    assert "helpfulness" not in REGISTRY


def test_register_metric_refuses_bad_arguments() -> None:
    with pytest.raises(TypeError, match="must be a function of the sample"):
        rageval_lc.register_metric("fn", score=0.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="clashes with the built-in metric 'trace'"):
        rageval_lc.register_metric("trace", score=lambda s: 1.0)
    with pytest.raises(ValueError, match=r"unknown fields \['labels'\]"):
        rageval_lc.register_metric("fn", score=lambda s: 1.0, uses=("labels",))


def test_registering_a_name_again_replaces_it_with_a_warning() -> None:
    rageval_lc.register_metric("fn", score=lambda s: 0.0)
    with pytest.warns(UserWarning, match="'fn' was registered before; it is replaced"):
        rageval_lc.register_metric("fn", score=lambda s: 1.0)
    assert evaluate_sample(samples()[0], "fn", judge="labels").scores() == {"fn": 1.0}
    with pytest.warns(UserWarning, match="replaced"):
        rageval_lc.criteria_metric("fn", criteria="Now a criteria metric?", uses=("response",))
    assert plan.METRIC_VERDICTS["fn"] == ("criteria:fn",) and "fn" in CRITERIA_DEFINITIONS


def test_unregistering_and_temporary_metrics_leave_nothing_behind() -> None:
    tables = (dict(REGISTRY), dict(plan.METRIC_VERDICTS), dict(plan.ROUTES), dict(CRITERIA_DEFINITIONS))
    rageval_lc.register_metric("kept", score=lambda s: 1.0)
    with temporary_metrics():
        rageval_lc.criteria_metric("inner", criteria="Inner?", uses=("response",))
        with pytest.warns(UserWarning):
            rageval_lc.register_metric("kept", score=lambda s: 0.0)
    assert "inner" not in REGISTRY and "criteria:inner" not in plan.ROUTES and "inner" not in CRITERIA_DEFINITIONS
    assert evaluate_sample(samples()[0], "kept", judge="labels").scores() == {"kept": 1.0}  # the outer one is back
    unregister_metric("kept")
    assert (dict(REGISTRY), dict(plan.METRIC_VERDICTS), dict(plan.ROUTES), dict(CRITERIA_DEFINITIONS)) == tables
    with pytest.raises(ValueError, match="'trace' is a built-in metric"):
        unregister_metric("trace")
    with pytest.raises(ValueError, match="No metric of one's own is named 'kept'"):
        unregister_metric("kept")


def test_load_metrics_from_a_file_names_what_it_registered(tmp_path: Path) -> None:
    path = tmp_path / "two.py"
    path.write_text(
        "from rageval_lc import criteria_metric, register_metric\n"
        "criteria_metric('clear', criteria='Clear?', uses=('response',))\n"
        "register_metric('short', score=lambda s: 1.0)\n"
    )
    assert load_metrics(str(path)) == ["clear", "short"]
    with pytest.raises(ValueError, match=r"cannot load metrics from 'no_such_module_here': ModuleNotFoundError"):
        load_metrics("no_such_module_here")


# --- a judge of one's own ----------------------------------------------------------------------------------


class KeywordJudge:
    """A judge written without BaseJudge that judges criteria only: the top level when the response names
    Paris, else the lowest (no model)."""

    name, supports = "keyword", frozenset({"criteria"})

    def __init__(self) -> None:
        self.calls = Counter()

    def criteria(self, definition: Any, sample: RagSample) -> Any:
        from rageval_lc.verdicts import CriteriaScore, Judgement

        self.calls[definition.judgement] += 1
        level = definition.levels[-1] if "Paris" in sample.response else definition.levels[0]
        value = CriteriaScore(level=level, score=definition.score_of(level), reason="keyword")
        return Judgement(name=definition.judgement, value=value)


def test_a_judge_of_ones_own_can_judge_criteria_through_the_adapters(helpfulness: Any) -> None:
    judge = KeywordJudge()
    assert evaluate_sample(samples()[0], "helpfulness", judge=judge).scores() == {"helpfulness": 1.0}
    evaluator = RagEvaluator("helpfulness", judge=judge)  # adopted, then wrapped as every adapter wraps judges
    out = evaluator.evaluate_strings(prediction="Lyon.", input=QUESTIONS[0], contexts=CONTEXTS)
    assert (out["score"], out["reasoning"]) == (0.0, "Rubric level 1 of 1-5 (useless): keyword")
    assert judge.calls == Counter({"criteria:helpfulness": 2})


def test_a_judge_claiming_criteria_without_the_method_is_refused() -> None:
    from rageval_lc.judges.factory import resolve_judge

    class Claims:
        name, supports = "claims", frozenset({"criteria"})

    with pytest.raises(TypeError, match="lacks criteria"):
        resolve_judge(Claims())


def test_temporary_metrics_forgets_what_was_loaded_inside_it(tmp_path: Path) -> None:
    from rageval_lc.scoring.custom import portable_metrics

    definitions = tmp_path / "inside.py"
    definitions.write_text("from rageval_lc import register_metric\nregister_metric('inside', score=lambda s: 1.0)\n")
    before = portable_metrics()[0]
    with temporary_metrics():
        load_metrics(str(definitions))
        assert portable_metrics()[0] == [*before, str(definitions.resolve())]
    assert portable_metrics()[0] == before and "inside" not in REGISTRY


TONE_METRIC = """
from rageval_lc.metrics.results import details_of, missing, ok
from rageval_lc.metrics.spec import MetricSpec


def score_tone(ctx):
    tone = ctx.judgement("answer_tone")  # declared with declare(); made once per sample, shared
    if not tone.ok:
        return missing(("tone",), tone), details_of(ctx, "tone", tone)
    return {"tone": ok("tone", 1.0 if tone.value.polite else 0.0, tone.value.reason)}, details_of(ctx, "tone")


METRIC = MetricSpec("tone", ("tone",), "1 when the answer is polite.", score_tone, verdicts=("answer_tone",))
"""


@pytest.fixture
def answer_tone() -> Iterator[Any]:
    from pydantic import BaseModel

    from rageval_lc.judges import Declaration, Judgement, declare
    from rageval_lc.judges.declarations import undeclare

    class Tone(BaseModel):
        polite: bool
        reason: str = ""

    def rude_words(judge: Any, answer: str) -> Judgement[Any]:
        rude = "stupid" in answer.lower()
        return Judgement(name="answer_tone", value=Tone(polite=not rude, reason="a rude word" if rude else "none"))

    declare(
        Declaration(
            name="answer_tone",
            about="polite or not",
            inputs=("answer",),
            verdict=Tone,
            signature="unused:ToneCheck",
            module="AnswerToneJudge",
            prompt=lambda x: {"answer": x["answer"]},
            read=lambda prediction, x: (Tone(polite=prediction.polite), {}, None),
            needs=frozenset({"response"}),
            offline=rude_words,
        )
    )
    try:
        yield rude_words
    finally:
        undeclare("answer_tone")


def test_a_metric_reads_a_judgement_declared_with_declare(answer_tone: Any, tmp_path: Path) -> None:
    from rageval_lc.judges.base import BaseJudge
    from rageval_lc.judges.labels import LabelsJudge

    class ToneJudge(BaseJudge):
        name, supports = "tone", frozenset({"answer_tone"})
        calls = 0

        def answer_tone(self, answer: str) -> Any:
            ToneJudge.calls += 1
            return answer_tone(self, answer)

    (tmp_path / "tone.py").write_text(TONE_METRIC)
    rude = RagSample(question="Q?", contexts=["A."], response="What a stupid question.")
    with temporary_metrics():
        assert load_metrics(str(tmp_path / "tone.py")) == ["tone"]
        result = rageval_lc.evaluate_sample(rude, "tone", judge=ToneJudge())
        assert (result.scores()["tone"], result.results["tone"].reason) == (0.0, "a rude word")
        assert ToneJudge.calls == 1
        assert result.details["judge_usage"]["by_judgement"].keys() == {"answer_tone"}
        polite = rude.model_copy(update={"response": "Good question."})
        run = rageval_lc.evaluate([rude, polite], "tone", judge=ToneJudge())
        assert [r.scores()["tone"] for r in run.results] == [0.0, 1.0]
        plans = plan_calls([rude, polite], "tone", ToneJudge())
        assert [(p.judgement, p.metrics, p.samples) for p in plans] == [("answer_tone", ("tone",), 2)]
        with pytest.raises(ValueError, match="cannot make the 'answer_tone' judgement"):
            rageval_lc.evaluate_sample(rude, "tone", judge=LabelsJudge())
    assert "answer_tone" not in plan.ROUTES  # the metric gone, its route too


def test_a_metric_module_reading_an_undeclared_judgement_is_refused(tmp_path: Path) -> None:
    (tmp_path / "tone.py").write_text(TONE_METRIC)
    with temporary_metrics(), pytest.raises(ValueError, match="declared with declare"):
        load_metrics(str(tmp_path / "tone.py"))
