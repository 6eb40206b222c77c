"""LangSmith evaluator functions, called through langsmith's own evaluator wrapper in both forms."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from datetime import datetime, timezone
from pathlib import Path

import pytest
from langchain_core.runnables import RunnableLambda
from langchain_core.tracers.run_collector import RunCollectorCallbackHandler

from rageval_lc.adapters import FieldMap, RagEvaluator, langsmith_evaluator
from rageval_lc.schema import RagSample, TraceLabels
from rageval_lc.verdicts import Judgement
from tests.adapters.test_callback_handler import ANSWER, CopyJudge, rag_chain
from tests.fakes import bag_of_words_embeddings
from tests.floats import ABS
from tests.scoring.test_ragas_family import GUIDE_DOCS, GUIDE_RESPONSE, QUESTION, REFERENCE, fake_judge

schemas = pytest.importorskip("langsmith.schemas", reason="langsmith is not installed")
evaluator_module = pytest.importorskip("langsmith.evaluation.evaluator")


def make_run(name: str, run_type: str, inputs: dict, outputs: dict, child_runs: list | None = None) -> object:
    run_id = uuid.uuid4()
    return schemas.Run(
        id=run_id,
        name=name,
        start_time=datetime.now(timezone.utc),
        run_type=run_type,
        inputs=inputs,
        outputs=outputs,
        child_runs=child_runs,
        trace_id=run_id,
    )


def run_and_example(outputs: dict | None = None, child_runs: list | None = None) -> tuple[object, object]:
    if outputs is None:
        outputs = {"answer": GUIDE_RESPONSE, "documents": [{"page_content": d, "metadata": {}} for d in GUIDE_DOCS]}
    run = make_run("rag", "chain", {"question": QUESTION}, outputs, child_runs)
    example = schemas.Example(
        id=uuid.uuid4(),
        dataset_id=uuid.uuid4(),
        inputs={"question": QUESTION},
        outputs={"answer": REFERENCE},
        created_at=datetime.now(timezone.utc),
    )
    return run, example


@pytest.mark.parametrize("form", ["outputs", "run"])
def test_single_score_through_langsmith(form: str) -> None:
    judge, _ = fake_judge()
    function = langsmith_evaluator("context_recall", judge=judge, form=form)
    assert function.__name__ == "rageval_context_recall"
    wrapped = evaluator_module.run_evaluator(function)
    run, example = run_and_example()
    result = wrapped.evaluate_run(run, example)
    assert (result.key, result.score) == ("context_recall", 0.5)  # 1 of 2 reference statements attributed
    assert "1 of 2 reference statements" in result.comment


def test_trace_returns_four_results() -> None:
    judge, _ = fake_judge()
    wrapped = evaluator_module.run_evaluator(langsmith_evaluator("trace", judge=judge))
    run, example = run_and_example()
    results = wrapped.evaluate_run(run, example)["results"]
    assert [r.key for r in results] == ["context_relevance", "context_utilization", "completeness", "adherence"]
    assert [r.score for r in results] == [pytest.approx(4 / 6), pytest.approx(3 / 6), 0.75, 0.0]


def test_undetermined_scores_are_none_with_the_reason() -> None:
    judge, _ = fake_judge()
    function = langsmith_evaluator("factual_accuracy", judge=judge)
    out = function({"question": QUESTION}, {"answer": GUIDE_RESPONSE, "contexts": GUIDE_DOCS}, {})
    assert out == {
        "key": "factual_accuracy",
        "score": None,
        "comment": "undetermined: Needs a reference answer; the sample has none.",
    }


def test_field_mapping_and_errors() -> None:
    judge, _ = fake_judge()
    fields = FieldMap(contexts=lambda outputs: [d["text"] for d in outputs.get("hits", [])], response="reply.text")
    function = langsmith_evaluator("faithfulness", judge=judge, fields=fields)
    outputs = {"reply": {"text": GUIDE_RESPONSE}, "hits": [{"text": d} for d in GUIDE_DOCS]}
    assert function({"question": QUESTION}, outputs)["score"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="No answer found"):
        function({"question": QUESTION}, {"something": "else"})
    with pytest.raises(ValueError, match="form must be"):
        langsmith_evaluator("faithfulness", judge=judge, form="pairwise")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Unknown metric"):
        langsmith_evaluator("bleu")


# --- the run form reads the documents of the run's retriever runs ---------------------------------


class RecordingJudge(CopyJudge):
    """CopyJudge that keeps the contexts of every sample it labels."""

    def __init__(self) -> None:
        super().__init__()
        self.contexts: list[list[str]] = []

    def trace_labels(self, sample: RagSample) -> Judgement[TraceLabels]:
        self.contexts.append(list(sample.contexts))
        return super().trace_labels(sample)


def test_run_form_scores_a_traced_chain_from_its_retriever_documents() -> None:
    collector = RunCollectorCallbackHandler()
    assert rag_chain().invoke("Q1", config={"callbacks": [collector]}) == ANSWER
    (run,) = collector.traced_runs  # outputs {"output": answer}: the documents are only in the retriever run
    judge = RecordingJudge()
    out = evaluator_module.run_evaluator(langsmith_evaluator("faithfulness", judge=judge, form="run")).evaluate_run(run)
    documents = ["Cats sleep a lot. Q1 is asked here.", "Dogs bark."]
    assert judge.contexts == [documents]  # what TopicRetriever returned reached the judge
    direct = RagEvaluator("faithfulness", judge=CopyJudge()).evaluate_strings(
        prediction=ANSWER, input="Q1", contexts=documents
    )
    assert (out.key, out.score) == ("faithfulness", direct["score"]) and out.score == 0.5


def test_run_form_walks_nested_retriever_runs_in_order() -> None:
    first = make_run("retriever", "retriever", {"query": QUESTION}, {"documents": [{"page_content": GUIDE_DOCS[0]}]})
    serialised = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "document", "Document"]}
    second = make_run(
        "retriever",
        "retriever",
        {"query": QUESTION},
        {"documents": [{**serialised, "kwargs": {"page_content": GUIDE_DOCS[1]}}]},
    )
    step = make_run("step", "chain", {}, {}, [second])
    run, example = run_and_example({"answer": GUIDE_RESPONSE}, [first, step])
    judge, _ = fake_judge()
    results = langsmith_evaluator("trace", judge=judge, form="run")(run, example)["results"]
    # the same values as with both documents in the outputs (test_trace_returns_four_results)
    assert [r["score"] for r in results] == [pytest.approx(4 / 6), pytest.approx(3 / 6), 0.75, 0.0]


def test_without_contexts_the_context_scores_are_undetermined() -> None:
    judge, model = fake_judge()
    run, example = run_and_example({"answer": GUIDE_RESPONSE})  # no retriever run, no documents
    out = langsmith_evaluator("faithfulness", judge=judge, form="run")(run, example)
    assert out == {
        "key": "faithfulness",
        "score": None,
        "comment": "undetermined: No retrieved contexts were found in the run.",
    }
    results = langsmith_evaluator("context_precision", judge=judge)({"question": QUESTION}, {"answer": GUIDE_RESPONSE})
    assert results["results"][0] == {
        "key": "context_precision",
        "score": None,
        "comment": "undetermined: No retrieved contexts were given.",
    }
    assert sum(model.calls.values()) == 0
    relevance = langsmith_evaluator("answer_relevance", judge=judge, form="run", embeddings=bag_of_words_embeddings())
    assert relevance(run, example)["score"] == pytest.approx(1.0)  # not a context metric: still scored


def test_without_contexts_the_default_judge_gives_undetermined() -> None:
    collector = RunCollectorCallbackHandler()
    RunnableLambda(lambda q: "Cats sleep a lot.", name="no_retriever").invoke("Q?", config={"callbacks": [collector]})
    out = langsmith_evaluator("faithfulness", form="run")(collector.traced_runs[0], None)
    assert (out["score"], out["comment"]) == (None, "undetermined: No retrieved contexts were found in the run.")


# --- issue 44, item 11: langsmith.evaluate offline --------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]

#: Run before the guide's block: every connection and name lookup fails, and is recorded.
NO_NETWORK = """
import json, os, socket, sys, time
attempts = []
def refuse(*args, **kwargs):
    attempts.append(repr(args[:2]))
    raise OSError("the network is blocked by the test")
socket.socket.connect = lambda self, address: refuse(address)
socket.socket.connect_ex = lambda self, address: refuse(address)
socket.create_connection = refuse
socket.getaddrinfo = refuse
"""

#: Run after it, with its client: a LangChain chain with a retriever as the target, scored from its run; then the
#: same evaluation with langsmith's default client (the control: it calls out).
CHAIN_TARGET = """
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough

class Passages(BaseRetriever):
    def _get_relevant_documents(self, query, *, run_manager=None):
        return [Document(page_content="The Eiffel Tower is in Paris. It was finished in 1889.")]

chain = (RunnableLambda(lambda inputs: inputs["question"])
         | RunnableParallel(question=RunnablePassthrough(), docs=Passages())
         | RunnableLambda(lambda parts: "It was finished in 1889."))
evaluator = langsmith_evaluator("faithfulness", form="run")
chain_results = langsmith.evaluate(chain, data=examples, evaluators=[evaluator], client=client, upload_results=False)
outcome = {"chain": [row["evaluation_results"]["results"][0].score for row in chain_results]}
outcome["recipe_attempts"] = list(attempts)
default = langsmith.evaluate(rag, data=examples, evaluators=[langsmith_evaluator("faithfulness")], upload_results=False)
outcome["default"] = [row["evaluation_results"]["results"][0].score for row in default]
deadline = time.monotonic() + 20  # its background thread's GET /info
while len(attempts) == len(outcome["recipe_attempts"]) and time.monotonic() < deadline:
    time.sleep(0.05)
outcome["default_attempts"] = attempts[len(outcome["recipe_attempts"]):]
print("OUTCOME " + json.dumps(outcome))
sys.stdout.flush()
os._exit(0)  # not waiting for the default client's retries
"""


def offline_block() -> str:
    """The Python block of the guide's section on ``langsmith.evaluate`` offline."""
    page = (ROOT / "docs" / "integrations" / "langsmith.md").read_text(encoding="utf-8")
    section = page.split("## `langsmith.evaluate` offline", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"^```python\n(.*?)^```", section, re.S | re.M)
    assert match is not None, "the section has a Python block"
    return match.group(1)


def test_the_guide_s_offline_langsmith_evaluate_makes_no_connection(tmp_path: Path) -> None:
    """Issue 44, item 11: the guide's recipe in a fresh process with tracing on and the network blocked scores, with
    a function and with a LangChain chain as the target, and nothing tries to connect; the same evaluation with
    langsmith's default client does try (what the recipe is for)."""
    script = tmp_path / "offline.py"
    script.write_text(NO_NETWORK + offline_block() + CHAIN_TARGET, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LANGSMITH_", "LANGCHAIN_"))}
    env |= {"LANGSMITH_TRACING": "true", "LANGCHAIN_TRACING_V2": "true", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, str(script)]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert "[0.0]" in lines  # the block's own output: 1999 contradicts the passage
    outcome = json.loads(next(line for line in lines if line.startswith("OUTCOME ")).removeprefix("OUTCOME "))
    assert outcome["chain"] == [pytest.approx(1.0, abs=ABS)]  # the retriever's passage says 1889
    assert outcome["recipe_attempts"] == []
    assert outcome["default"] == [pytest.approx(0.0, abs=ABS)]
    assert any("api.smith.langchain.com" in attempt for attempt in outcome["default_attempts"])
