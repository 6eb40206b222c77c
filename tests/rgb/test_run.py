"""Running RGB against systems under test: callables, LangChain chat models and chains, DSPy programs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import dspy
import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda

from rageval_lc.cli import main
from rageval_lc.rgb.records import RGB_SYSTEM_PROMPT, RgbRecord, build_documents, load_rgb, rgb_prompt
from rageval_lc.rgb.run import as_rgb_system, run_rgb
from tests import rgb_systems

RECORDS = [
    RgbRecord(
        id=0,
        query="Who won in 2022?",
        answer="Ann",
        positive=["Ann won in 2022.", "Ann, the winner."],
        negative=["It rained.", "Bob lost in 2019.", "The venue opened in 1990."],
    ),
    RgbRecord(
        id=1,
        query="Where is it?",
        answer=["Paris", "France"],
        positive=["It is in Paris, France."],
        negative=["Lyon is large."],
    ),
]


def test_a_callable_system_over_noise_ratios_and_rejection() -> None:
    seen = []

    def system(question: str, documents: list[str]) -> str:
        seen.append((question, documents))
        return "Ann" if question.startswith("Who") else "Paris"

    run = run_rgb(system, RECORDS, noise_ratios=[0.0, 0.4], progress=False)
    assert len(run.rows) == 6  # 2 records × (2 ratios + the ratio-1 rejection pass)
    assert seen[0] == ("Who won in 2022?", build_documents(RECORDS[0], 0.0))
    by = {r.task_type: r for r in run.results}
    assert by["noise_robustness_0%"].accuracy == 50.0  # record 1 needs Paris and France
    assert by["noise_robustness"].accuracy_by_noise == {0: 50.0, 40: 50.0}
    assert by["negative_rejection_100%"].rejection_rate == 0.0
    assert run.rows[0]["judgement"] == {
        "labels": [1],
        "rejected": False,
        "correct": True,
        "error_detected": False,
        "error_corrected": False,
    }
    assert "noise_robustness_0%" in run.report()


def test_a_failing_call_is_recorded_and_the_run_goes_on() -> None:
    def flaky(question: str, documents: list[str]) -> str:
        if question.startswith("Where"):
            raise TimeoutError("model timed out")
        return "Ann"

    run = run_rgb(flaky, RECORDS, noise_ratios=[0.0], include_rejection=False, progress=False)
    assert run.failures == 1
    assert run.rows[1]["error"] == "TimeoutError: model timed out" and run.rows[1]["prediction"] == ""
    assert run.results[0].accuracy == 50.0


class RecordingChat(FakeListChatModel):
    """A fake chat model that remembers the messages it was sent."""

    received: ClassVar[list] = []

    def _call(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[override]
        type(self).received.append(messages)
        return super()._call(messages, stop, run_manager, **kwargs)


def test_a_chat_model_gets_the_benchmark_prompts() -> None:
    RecordingChat.received = []
    model = RecordingChat(responses=["Ann won."])
    run = run_rgb(model, RECORDS[:1], noise_ratios=[0.2], include_rejection=False, progress=False)
    system, user = RecordingChat.received[0]
    assert system.content == RGB_SYSTEM_PROMPT
    assert user.content == rgb_prompt("Who won in 2022?", build_documents(RECORDS[0], 0.2))
    assert run.results[0].accuracy == 100.0


def test_a_chain_and_a_dspy_program() -> None:
    prompt = ChatPromptTemplate.from_messages([("system", "{system}"), ("human", "{prompt}")])
    chain = prompt | FakeListChatModel(responses=["It is Paris, France."])
    assert as_rgb_system(chain)("Where is it?", ["doc"]) == "It is Paris, France."
    dict_chain = RunnableLambda(lambda inputs: {"answer": f"{len(inputs['documents'])} docs: {inputs['context']}"})
    assert as_rgb_system(dict_chain)("Q?", ["a", "b"]) == "2 docs: a\nb"

    class Answer(dspy.Signature):
        """Answer from the documents."""

        question: str = dspy.InputField()
        documents: list[str] = dspy.InputField()
        answer: str = dspy.OutputField()

    program = dspy.Predict(Answer)
    with dspy.context(lm=dspy.utils.DummyLM([{"answer": "Ann"}])):
        run = run_rgb(program, RECORDS[:1], noise_ratios=[0.0], include_rejection=False, progress=False)
    assert run.rows[0]["prediction"] == "Ann" and run.results[0].accuracy == 100.0
    with pytest.raises(TypeError, match="must take \\(question, documents\\)"):
        as_rgb_system(lambda question: "x")
    with pytest.raises(TypeError, match="LangChain Runnable, a DSPy program or a callable"):
        as_rgb_system(42)


def test_the_counterfactual_set_with_an_oracle_and_a_naive_system(shared: Path) -> None:
    records = load_rgb(shared / "data" / "rgb" / "en_fact.json")[:10]
    oracle = run_rgb(rgb_systems.oracle, records, progress=False)
    result = oracle.results[0]
    assert result.task_type == "counterfactual_robustness_0%" and result.total_samples == 10
    assert (result.error_detection_rate, result.error_correction_rate, result.accuracy) == (100.0, 100.0, 100.0)
    naive = run_rgb(rgb_systems.echo_first_document, records, progress=False).results[0]
    assert naive.error_detection_rate == 0.0
    # echoing a counterfactual passage repeats the fake answer, never the true one
    assert naive.accuracy == 0.0


def test_cli_rgb_score(tmp_path: Path, capsys) -> None:
    rows = [
        {
            "id": "a",
            "prediction": "There are factual errors in the provided documents. Paris.",
            "answer": "Paris",
            "task": "counterfactual_robustness",
            "counterfactual_answer": "London",
        },
        {
            "id": "b",
            "prediction": "The capital is London.",
            "answer": "Paris",
            "task": "counterfactual_robustness",
            "counterfactual_answer": "London",
        },
        {
            "id": "c",
            "prediction": "insufficient information",
            "answer": "Paris",
            "task": "negative_rejection",
            "noise_ratio": 1,
        },
    ]
    source = tmp_path / "preds.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    out = tmp_path / "rows.jsonl"
    assert main(["rgb", "score", str(source), "--out", str(out)]) == 0
    summaries = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    fact = next(s for s in summaries if s["task_type"] == "counterfactual_robustness_0%")
    assert (fact["error_detection_rate"], fact["error_correction_rate"]) == (50.0, 100.0)
    judged = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [j["id"] for j in judged] == ["a", "b", "c"]
    assert judged[2] == {
        "id": "c",
        "labels": [-1],
        "rejected": True,
        "correct": False,
        "error_detected": False,
        "error_corrected": False,
    }
    assert main(["rgb", "score", str(source), "--mode", "lenient"]) == 0
    lenient = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert next(s for s in lenient if s["task_type"] == "counterfactual_robustness_0%")["error_correction_rate"] == 50.0
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prediction": 3, "answer": "x", "task": "noise_robustness"}\n', encoding="utf-8")
    assert main(["rgb", "score", str(bad)]) == 2
    assert "'prediction' must be a string" in capsys.readouterr().err


def test_cli_rgb_run(shared: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "run.jsonl"
    status = main(
        [
            "rgb",
            "run",
            str(shared / "data" / "rgb" / "en_fact.json"),
            "--system",
            "tests.rgb_systems:oracle",
            "--limit",
            "5",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert status == 0
    report = capsys.readouterr().out
    assert "counterfactual_robustness_0%" in report and "100.000" in report
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 5 and lines[0]["judgement"]["error_detected"] is True
    first = load_rgb(shared / "data" / "rgb" / "en_fact.json")[0]
    # the benchmark takes min(5, passages) counterfactual passages and, at noise 0, no negatives
    assert len(lines[0]["documents"]) == min(5, len(first.positive_wrong or [])) == 3
    assert main(["rgb", "run", str(shared / "data" / "rgb" / "en_fact.json"), "--system", "nowhere"]) == 2


def test_cli_rgb_run_imports_the_system_from_the_working_directory(tmp_path: Path) -> None:
    # A user's my_rag.py in the folder the command runs in, as `python -m` and uvicorn find it; the console
    # script's own sys.path holds only its bin folder and site-packages.
    import os
    import shutil
    import subprocess
    import sys

    script = shutil.which("rageval", path=str(Path(sys.executable).parent)) or shutil.which("rageval")
    assert script is not None, "the 'rageval' console script is not installed"
    (tmp_path / "my_rag.py").write_text(
        "def chain(question, documents):\n    return ' '.join(documents)\n", encoding="utf-8"
    )  # echoes the documents: at noise 0, the positive with the answer
    record = {"id": 0, "query": "Who won in 2022?", "answer": "Ann", "positive": ["Ann won in 2022."],
              "negative": ["It rained."]}  # fmt: skip
    (tmp_path / "rgb.json").write_text(json.dumps(record) + "\n", encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run(
        [script, "rgb", "run", "rgb.json", "--system", "my_rag:chain", "--noise-ratios", "0", "--no-rejection"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**env, "HF_HUB_OFFLINE": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert "noise_robustness_0%" in done.stdout and "100.000" in done.stdout  # the one answer is right
    help_text = subprocess.run([script, "rgb", "run", "--help"], capture_output=True, text=True, check=True).stdout
    assert "working directory" in " ".join(help_text.split())
