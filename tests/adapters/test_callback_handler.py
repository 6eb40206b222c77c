"""The callback handler on real LangChain chains: a BaseRetriever subclass, fake chat models, batch,
concurrent ainvoke, astream, nested chains, failures, sinks — and LangSmith feedback through the real
client against a local HTTP server."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough

from rageval_lc.adapters import JsonlSink, LangSmithFeedbackSink, MemorySink, RagEvalCallbackHandler
from rageval_lc.judges.base import BaseJudge
from rageval_lc.schema import RagSample, TraceLabels
from rageval_lc.verdicts import Judgement
from tests.fakes import bag_of_words_embeddings
from tests.floats import ABS
from tests.scoring.test_ragas_family import GUIDE_RESPONSE, QUESTION, fake_judge

ANSWER = "Cats sleep a lot. Cats can fly."


class TopicRetriever(BaseRetriever):
    """Two documents that name the query, so each run's documents can be recognised."""

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return [
            Document(page_content=f"Cats sleep a lot. {query} is asked here."),
            Document(page_content="Dogs bark."),
        ]


class CopyJudge(BaseJudge):
    """Labels every document sentence relevant; a response sentence is supported iff a document has it
    word for word. With ANSWER, faithfulness is 1/2 (the second sentence is in no document)."""

    name = "copy"
    supports = frozenset({"trace_labels"})

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.calls = 0
        self._lock = threading.Lock()

    def planned_calls(self, judgement: str) -> int:
        return 0

    def trace_labels(self, sample: RagSample) -> Judgement[TraceLabels]:
        with self._lock:
            self.calls += 1
        if self.fail:
            raise RuntimeError("judge exploded")
        keyed = sample.sentences
        documents = {text for doc in keyed.documents for _, text in doc}
        support = [
            {"response_sentence_key": k, "supporting_sentence_keys": [], "fully_supported": text in documents}
            for k, text in keyed.response
        ]
        labels = TraceLabels.from_mapping(
            {"all_relevant_sentence_keys": list(keyed.document_keys), "sentence_support_information": support}
        )
        return Judgement(name="trace_labels", value=labels)


def rag_chain(answer: str = ANSWER) -> Any:
    def prompt(parts: dict) -> str:
        return parts["question"] + "\n" + "\n".join(d.page_content for d in parts["docs"])

    model = FakeListChatModel(responses=[answer])
    return (
        RunnableParallel(question=RunnablePassthrough(), docs=TopicRetriever())
        | RunnableLambda(prompt)
        | model
        | StrOutputParser()
    )


def check(handler: RagEvalCallbackHandler, sink: MemorySink, questions: list[str]) -> None:
    assert handler.wait(timeout=60)
    assert len(handler.results) == len(questions)
    by_question = {r["question"]: r for r in sink.records}
    assert sorted(by_question) == sorted(questions)
    for question, record in by_question.items():
        assert record["contexts"] == [f"Cats sleep a lot. {question} is asked here.", "Dogs bark."]
        assert record["response"] == ANSWER
        assert record["scores"]["faithfulness"] == 0.5
        assert record["scores"]["context_precision"] == 1.0
        assert record["run_id"] == record["id"]


def test_invoke_collects_documents_answer_and_reference(tmp_path: Path) -> None:
    sink = MemorySink()
    jsonl = tmp_path / "scores.jsonl"
    seen: list[dict] = []
    handler = RagEvalCallbackHandler(
        ["faithfulness", "context_precision"],
        judge=CopyJudge(),
        sinks=[sink, JsonlSink(jsonl), seen.append],
        background=False,
    )
    out = rag_chain().invoke("Q0", config={"callbacks": [handler], "metadata": {"reference": "Cats sleep."}})
    assert out == ANSWER
    check(handler, sink, ["Q0"])
    assert sink.records[0]["reference"] == "Cats sleep."
    assert [json.loads(line)["run_id"] for line in jsonl.read_text().splitlines()] == [sink.records[0]["run_id"]]
    assert seen == sink.records
    keys = [f["key"] for f in sink.records[0]["feedback"]]
    assert keys == ["faithfulness", "context_precision", "context_precision_at_k"]


def test_batch_of_50_is_scored_in_the_background() -> None:
    sink = MemorySink()
    judge = CopyJudge()
    with RagEvalCallbackHandler(["faithfulness", "context_precision"], judge=judge, sinks=[sink], max_workers=4) as h:
        questions = [f"Q{i}" for i in range(50)]
        outputs = rag_chain().batch(questions, config={"callbacks": [h], "max_concurrency": 8})
        assert outputs == [ANSWER] * 50
        check(h, sink, questions)
    assert judge.calls == 50  # faithfulness and context precision share one labelling per run


def test_50_concurrent_ainvokes_and_astream() -> None:
    sink = MemorySink()
    handler = RagEvalCallbackHandler(["faithfulness", "context_precision"], judge=CopyJudge(), sinks=[sink])
    chain = rag_chain()

    async def main() -> list[str]:
        answers = await asyncio.gather(*(chain.ainvoke(f"Q{i}", config={"callbacks": [handler]}) for i in range(50)))
        chunks = [c async for c in chain.astream("streamed", config={"callbacks": [handler]})]
        return [*answers, "".join(chunks)]

    assert asyncio.run(main()) == [ANSWER] * 51
    check(handler, sink, [*(f"Q{i}" for i in range(50)), "streamed"])


def test_nested_chains_give_one_result_per_root_run() -> None:
    sink = MemorySink()
    handler = RagEvalCallbackHandler(["faithfulness"], judge=CopyJudge(), sinks=[sink], background=False)
    inner = rag_chain()
    outer = RunnableLambda(lambda q, config: {"answer": inner.invoke(q, config=config), "note": "x"})
    out = outer.invoke("Q7", config={"callbacks": [handler]})
    assert out["answer"] == ANSWER
    assert len(sink.records) == 1 and sink.records[0]["question"] == "Q7"
    assert sink.records[0]["scores"]["faithfulness"] == 0.5  # documents from the nested retriever


def test_message_and_dict_outputs() -> None:
    sink = MemorySink()
    handler = RagEvalCallbackHandler(["faithfulness"], judge=CopyJudge(), sinks=[sink], background=False)
    message_chain = (
        RunnableParallel(question=RunnablePassthrough(), docs=TopicRetriever())
        | RunnableLambda(lambda p: p["question"])
        | FakeListChatModel(responses=[ANSWER])
    )
    assert message_chain.invoke("Qm", config={"callbacks": [handler]}).content == ANSWER
    dict_chain = RunnableLambda(lambda q: {"answer": ANSWER, "contexts": [f"Cats sleep a lot. {q} is asked here."]})
    dict_chain.invoke({"question": "Qd"}, config={"callbacks": [handler]})
    assert [r["scores"]["faithfulness"] for r in sink.records] == [0.5, 0.5]


def test_failures_never_reach_the_chain() -> None:
    sink = MemorySink()
    broken_sink_calls: list[int] = []

    def broken_sink(record: dict) -> None:
        broken_sink_calls.append(1)
        raise OSError("disk full")

    handler = RagEvalCallbackHandler(
        ["faithfulness"], judge=CopyJudge(fail=True), sinks=[broken_sink, sink], background=False
    )
    assert rag_chain().invoke("Qx", config={"callbacks": [handler]}) == ANSWER
    (record,) = sink.records
    assert record["status"]["faithfulness"] == "error"
    assert record["reason"]["faithfulness"] == "RuntimeError: judge exploded"
    assert broken_sink_calls == [1]
    # a chain that raises: its caller gets its exception, the handler records an error result
    failing = RunnableLambda(lambda q: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        failing.invoke("Qz", config={"callbacks": [handler]})
    assert sink.records[-1]["reason"]["faithfulness"].startswith("RuntimeError: the chain raised ZeroDivisionError")
    # an output without an answer is an error result too
    RunnableLambda(lambda q: {"unexpected": 1}).invoke("Qy", config={"callbacks": [handler]})
    assert "No answer found" in sink.records[-1]["reason"]["faithfulness"]


PROJECT_ID = "3c9a4f2e-6d1b-4e8a-9f70-5b2c1d0e4a87"


class _FeedbackServer(BaseHTTPRequestHandler):
    """A LangSmith stand-in: records every request, answers writes with an id and the project look-up with
    :meth:`projects`."""

    received: ClassVar[list[tuple[str, str, dict]]] = []
    project: ClassVar[dict[str, Any]] = {
        "id": PROJECT_ID,
        "name": "default",
        "tenant_id": PROJECT_ID,
        "reference_dataset_id": None,
    }

    def _send_json(self, value: object) -> None:
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _reply(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        try:
            payload = json.loads(body) if body else {}
        except ValueError:
            payload = {"raw": body[:200].decode("latin-1")}
        type(self).received.append((self.command, self.path, payload))
        self._send_json({"id": payload.get("id", "x")} if isinstance(payload, dict) else {})

    do_POST = do_PATCH = _reply

    def projects(self) -> list[dict[str, Any]]:
        """What the project look-up (GET /sessions?name=...) finds: the project, it exists."""
        return [self.project]

    def do_GET(self) -> None:
        if not self.path.startswith("/sessions"):
            return self._reply()
        type(self).received.append((self.command, self.path, {}))
        self._send_json(self.projects())
        return None

    def log_message(self, *args: Any) -> None:
        pass


def test_langsmith_feedback_through_the_real_client(monkeypatch: pytest.MonkeyPatch) -> None:
    langsmith = pytest.importorskip("langsmith", reason="langsmith is not installed")
    for name in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGCHAIN_TRACING"):
        monkeypatch.delenv(name, raising=False)
    _FeedbackServer.received = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FeedbackServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        client = langsmith.Client(api_url=f"http://127.0.0.1:{server.server_port}", api_key="test")
        handler = RagEvalCallbackHandler(
            ["faithfulness", "context_precision"], judge=CopyJudge(), sinks=[LangSmithFeedbackSink(client)]
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rag_chain().invoke("Q1", config={"callbacks": [handler]})
            assert handler.wait(timeout=30)
        (run_id,) = handler.results
    finally:
        server.shutdown()
    feedback = [payload for method, path, payload in _FeedbackServer.received if path.startswith("/feedback")]
    assert [(f["run_id"], f["key"], f["score"], f["session_id"]) for f in feedback] == [
        (run_id, "faithfulness", 0.5, PROJECT_ID),
        (run_id, "context_precision", 1.0, PROJECT_ID),
        (run_id, "context_precision_at_k", 1.0, PROJECT_ID),
    ]
    assert [str(w.message) for w in caught if isinstance(w.message, langsmith.utils.LangSmithWarning)] == []
    assert feedback[0]["comment"].startswith("1 of 2 claims supported; unsupported: 'Cats can fly.'")


def test_scoring_waits_for_quiet_at_most_max_delay() -> None:
    sink = MemorySink()
    # the chain never goes quiet for 10 s, so only the 50 ms cap lets the worker score
    handler = RagEvalCallbackHandler(
        ["faithfulness"], judge=CopyJudge(), sinks=[sink], quiet_ms=10_000, max_delay_s=0.05
    )
    rag_chain().invoke("Qq", config={"callbacks": [handler]})
    assert handler.wait(timeout=30)
    assert [r["scores"]["faithfulness"] for r in sink.records] == [0.5]
    handler.close()


class EmptyRetriever(BaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return []


def test_a_chain_that_retrieves_nothing_leaves_the_context_scores_undetermined() -> None:
    judge, model = fake_judge()
    sink = MemorySink()
    handler = RagEvalCallbackHandler(
        ["faithfulness", "context_precision", "answer_relevance"],
        judge=judge,
        sinks=[sink],
        background=False,
        embeddings=bag_of_words_embeddings(),
    )
    no_retriever = RunnableLambda(lambda q: GUIDE_RESPONSE)
    retrieve = RunnableParallel(question=RunnablePassthrough(), docs=EmptyRetriever())
    empty_retriever = retrieve | RunnableLambda(lambda parts: GUIDE_RESPONSE)
    for chain in (no_retriever, empty_retriever):
        assert chain.invoke(QUESTION, config={"callbacks": [handler]}) == GUIDE_RESPONSE
    why = "No retrieved contexts were found in the run."
    for record in sink.records:
        assert record["contexts"] == []
        for name in ("faithfulness", "context_precision", "context_precision_at_k"):
            outcome = (record["scores"][name], record["status"][name], record["reason"][name])
            assert outcome == (None, "undetermined", why)
        assert record["status"]["answer_relevance"] == "ok"  # not a context metric: still scored
        assert record["scores"]["answer_relevance"] == pytest.approx(1.0)
        feedback = {f["key"]: f for f in record["feedback"]}
        assert feedback["faithfulness"] == {"key": "faithfulness", "score": None, "comment": f"undetermined: {why}"}
    assert len(sink.records) == 2
    assert dict(model.calls) == {"generate_questions": 2}  # nothing judged for the context metrics


def test_a_chain_without_a_retriever_with_the_default_judge() -> None:
    sink = MemorySink()
    handler = RagEvalCallbackHandler(["faithfulness"], sinks=[sink], background=False)
    RunnableLambda(lambda q: ANSWER).invoke("What do cats do?", config={"callbacks": [handler]})
    (record,) = sink.records
    assert (record["scores"]["faithfulness"], record["status"]["faithfulness"]) == (None, "undetermined")
    assert record["reason"]["faithfulness"] == "No retrieved contexts were found in the run."


@pytest.mark.parametrize("background", [True, False])
def test_a_closed_handler_records_an_error_for_each_later_run(
    background: bool, caplog: pytest.LogCaptureFixture
) -> None:
    sink = MemorySink()
    judge = CopyJudge()
    handler = RagEvalCallbackHandler(["faithfulness"], judge=judge, sinks=[sink], background=background)
    rag_chain().invoke("Q0", config={"callbacks": [handler]})
    handler.close()
    with caplog.at_level("WARNING", logger="rageval_lc.adapters.callback"):
        for question in ("Q1", "Q2"):
            assert rag_chain().invoke(question, config={"callbacks": [handler]}) == ANSWER  # the chain still runs
    assert judge.calls == 1  # nothing scored after close
    assert len(handler.results) == 3
    first, *late = sink.records
    assert first["status"]["faithfulness"] == "ok"
    assert [r["question"] for r in late] == ["Q1", "Q2"]
    for record in late:
        assert record["status"]["faithfulness"] == "error"
        assert record["reason"]["faithfulness"].startswith("RuntimeError: the handler was closed")
    assert len([r for r in caplog.records if "closed" in r.getMessage()]) == 1  # warned once
    assert handler.closed


class SleepyJudge(CopyJudge):
    """CopyJudge that takes 0.5 s per labelling without using the CPU (as a remote judge would)."""

    def trace_labels(self, sample: RagSample) -> Judgement[TraceLabels]:
        import time

        time.sleep(0.5)
        return super().trace_labels(sample)


def test_inline_scoring_under_ainvoke_leaves_the_event_loop_free() -> None:
    import time
    import uuid

    sink = MemorySink()
    handler = RagEvalCallbackHandler(["faithfulness"], judge=SleepyJudge(), sinks=[sink], background=False)
    chain = rag_chain()
    lags: list[float] = []

    async def ticker(stop: asyncio.Event) -> None:
        while not stop.is_set():
            start = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append(time.perf_counter() - start - 0.01)

    async def one(question: str) -> bool:
        run_id = uuid.uuid4()
        await chain.ainvoke(question, config={"callbacks": [handler], "run_id": run_id})
        return str(run_id) in handler.results  # inline: scored before ainvoke returns

    async def main() -> list[bool]:
        stop = asyncio.Event()
        tick = asyncio.create_task(ticker(stop))
        done = await asyncio.gather(*(one(f"Q{i}") for i in range(8)))
        stop.set()
        await tick
        return done

    assert asyncio.run(main()) == [True] * 8
    assert max(lags) < 0.25  # 8 blocking labellings of 0.5 s on the loop would stall it 0.5 s at a time
    assert sorted(r["question"] for r in sink.records) == [f"Q{i}" for i in range(8)]
    assert {r["scores"]["faithfulness"] for r in sink.records} == {0.5}


def test_a_failing_sink_logs_one_traceback_then_counts(caplog: pytest.LogCaptureFixture) -> None:
    def broken_sink(record: dict) -> None:
        raise OSError("disk full")

    sink = MemorySink()
    handler = RagEvalCallbackHandler(["faithfulness"], judge=CopyJudge(), sinks=[broken_sink, sink], background=False)
    with caplog.at_level("WARNING", logger="rageval_lc.adapters.callback"):
        for i in range(5):
            rag_chain().invoke(f"Q{i}", config={"callbacks": [handler]})
        handler.close()
    assert len(sink.records) == 5  # the other sink got every record
    with_traceback = [r for r in caplog.records if r.exc_info]
    assert len(with_traceback) == 1 and "OSError: disk full" in caplog.text
    assert list(handler.sink_failures.values()) == [5]
    (summary,) = [r.getMessage() for r in caplog.records if not r.exc_info]
    assert "failed for 5 of 5 records" in summary


# --- contexts from runs that are not BaseRetrievers ----------------------------------------------------------------


def fetch(question: str) -> list[Document]:
    """A retrieval function, as LCEL chains often have instead of a BaseRetriever."""
    return [Document(page_content=f"Cats sleep a lot. {question} is asked here."), Document(page_content="Dogs bark.")]


def answer_from(prompt_keys: str = "{docs}") -> Any:
    """Prompt (its input holds the documents), fake chat model, parser: ANSWER whatever the documents."""
    template = ChatPromptTemplate.from_template(prompt_keys + "\nQuestion: {question}")
    return template | FakeListChatModel(responses=[ANSWER]) | StrOutputParser()


def scored(chain: Any, question: str, **options: Any) -> dict[str, Any]:
    """The record of one invoke with a fresh inline handler (CopyJudge: faithfulness is the share of ANSWER's two
    sentences found word for word in a context)."""
    sink = MemorySink()
    handler = RagEvalCallbackHandler(
        ["faithfulness", "context_precision"], judge=CopyJudge(), sinks=[sink], background=False, **options
    )
    assert chain.invoke(question, config={"callbacks": [handler]}) == ANSWER
    (record,) = sink.records
    return record


def test_a_runnable_lambda_retriever_is_found(caplog: pytest.LogCaptureFixture) -> None:
    chain = {"question": RunnablePassthrough(), "docs": RunnableLambda(fetch, name="fake_retriever")} | answer_from()
    sink = MemorySink()
    handler = RagEvalCallbackHandler(["faithfulness", "context_precision"], judge=CopyJudge(), sinks=[sink])
    with caplog.at_level("WARNING", logger="rageval_lc.adapters.callback"):
        assert chain.invoke("Q1", config={"callbacks": [handler]}) == ANSWER
        assert "".join(chain.stream("Q2", config={"callbacks": [handler]})) == ANSWER  # inputs come at the end
        assert handler.wait(timeout=60)
    check(handler, sink, ["Q1", "Q2"])  # each run's two documents, once; faithfulness 1/2, precision 1
    assert caplog.records == []


def test_contexts_passed_on_or_reshaped_are_counted_once() -> None:
    # the documents are also in the outputs of the assign step (and of the RunnableParallel inside it), in the
    # prompt's input and in the next assign step's input and output: only the function that fetched them counts
    retrieve = RunnableLambda(lambda p: fetch(p["question"]))
    assign = RunnablePassthrough.assign(docs=retrieve) | RunnablePassthrough.assign(answer=answer_from())
    record = scored({"question": RunnablePassthrough()} | assign | RunnableLambda(lambda p: p["answer"]), "Qa")
    assert record["contexts"] == ["Cats sleep a lot. Qa is asked here.", "Dogs bark."]
    assert (record["scores"]["faithfulness"], record["scores"]["context_precision"]) == (0.5, 1.0)
    # formatted into one string under "context" by the branch that fetched them: fetch's documents, not the string
    join = RunnableLambda(lambda docs: "\n\n".join(d.page_content for d in docs))
    chain = {"question": RunnablePassthrough(), "context": RunnableLambda(fetch) | join} | answer_from("{context}")
    assert scored(chain, "Qj")["contexts"] == ["Cats sleep a lot. Qj is asked here.", "Dogs bark."]
    # no documents anywhere: the strings under "context" where they first appear, not the step that joins them
    passages = RunnableLambda(lambda q: ["Cats sleep a lot.", "Dogs bark."])
    join_context = RunnablePassthrough.assign(context=lambda p: "\n\n".join(p["context"]))
    chain = {"question": RunnablePassthrough(), "context": passages} | join_context | answer_from("{context}")
    assert scored(chain, "Qs")["contexts"] == ["Cats sleep a lot.", "Dogs bark."]


def cats(question: str) -> list[Document]:
    return [Document(page_content="Cats sleep a lot.")]


def flying(question: str) -> list[Document]:
    return [Document(page_content="Cats can fly.")]


def two_retrievals() -> Any:
    retrieve = RunnableParallel(question=RunnablePassthrough(), cats=RunnableLambda(cats), fly=RunnableLambda(flying))
    to_docs = RunnableLambda(lambda p: {"question": p["question"], "docs": p["cats"] + p["fly"]})
    return retrieve | to_docs | answer_from()


def test_two_retrieval_functions_both_count() -> None:
    record = scored(two_retrievals(), "Q2")
    assert sorted(record["contexts"]) == ["Cats can fly.", "Cats sleep a lot."]  # parallel branches: any order
    assert record["scores"]["faithfulness"] == 1.0  # each sentence of ANSWER is in one of them
    # one after the other: in the order they ran
    chain = RunnablePassthrough.assign(a=RunnableLambda(lambda p: flying(p["question"]))) | RunnablePassthrough.assign(
        b=RunnableLambda(lambda p: cats(p["question"]))
    )
    chain |= RunnableLambda(lambda p: {"question": p["question"], "docs": p["a"] + p["b"]}) | answer_from()
    assert scored(RunnableLambda(lambda q: {"question": q}) | chain, "Q3")["contexts"] == [
        "Cats can fly.",
        "Cats sleep a lot.",
    ]


def test_a_retriever_run_takes_priority_over_functions() -> None:
    retrieve = RunnableParallel(question=RunnablePassthrough(), topic=TopicRetriever(), fly=RunnableLambda(flying))
    to_docs = RunnableLambda(lambda p: {"question": p["question"], "docs": p["topic"] + p["fly"]})
    record = scored(retrieve | to_docs | answer_from(), "Qp")
    assert record["contexts"] == ["Cats sleep a lot. Qp is asked here.", "Dogs bark."]
    assert record["scores"]["faithfulness"] == 0.5


@pytest.mark.parametrize(
    "contexts_from",
    ["cats", lambda run: "map:key:cats" in run.tags and run.run_type == "chain"],
    ids=["by-name", "by-function"],
)
def test_contexts_from_picks_one_of_two(contexts_from: Any) -> None:
    record = scored(two_retrievals(), "Qc", contexts_from=contexts_from)
    assert record["contexts"] == ["Cats sleep a lot."]
    assert record["scores"]["faithfulness"] == 0.5  # "Cats can fly." is no longer in the contexts


def test_contexts_from_takes_strings_the_default_rule_does_not() -> None:
    passages = RunnableLambda(lambda q: ["Cats sleep a lot.", "Cats can fly."], name="passages")
    chain = {"question": RunnablePassthrough(), "passages": passages} | answer_from("{passages}")
    assert scored(chain, "Qs")["contexts"] == []  # a list of strings could be anything (queries, keywords)
    record = scored(chain, "Qs", contexts_from="passages")
    assert (record["contexts"], record["scores"]["faithfulness"]) == (["Cats sleep a lot.", "Cats can fly."], 1.0)
    with pytest.raises(TypeError, match="'contexts_from' parameter of RagEvalCallbackHandler"):
        RagEvalCallbackHandler(contexts_from=3)


def test_a_failing_contexts_from_is_an_error_result() -> None:
    record = scored(two_retrievals(), "Qf", contexts_from=lambda run: 1 / 0)
    assert record["status"]["faithfulness"] == "error"
    assert record["reason"]["faithfulness"] == "ZeroDivisionError: division by zero"


def test_no_contexts_is_warned_once_per_handler(caplog: pytest.LogCaptureFixture) -> None:
    passages = RunnableLambda(lambda q: ["Cats sleep a lot."], name="passages")
    chain = {"question": RunnablePassthrough(), "passages": passages} | answer_from("{passages}")
    sink = MemorySink()
    handler = RagEvalCallbackHandler(["faithfulness"], judge=CopyJudge(), sinks=[sink])
    missing = RagEvalCallbackHandler(["faithfulness"], judge=CopyJudge(), sinks=[sink], contexts_from="retrieve")
    with caplog.at_level("WARNING", logger="rageval_lc.adapters.callback"):
        for question in ("Q1", "Q2"):
            chain.invoke(question, config={"callbacks": [handler]})
        assert handler.wait(timeout=60)
        assert len(caplog.records) == 1  # two runs, one warning
        for question in ("Q3", "Q4"):
            chain.invoke(question, config={"callbacks": [missing]})
        assert missing.wait(timeout=60)
    first, second = (r.getMessage() for r in caplog.records)
    assert "no retriever ran and no run returned documents" in first and "Pass contexts_from=" in first
    assert "no run that contexts_from='retrieve' picks returned any" in second and "Pass contexts_from=" in second
    assert [(r["status"]["faithfulness"], r["reason"]["faithfulness"]) for r in sink.records] == [
        ("undetermined", "No retrieved contexts were found in the run.")
    ] * 4


def test_results_are_found_by_the_run_id_given_as_a_uuid_or_a_string() -> None:
    """Issue 44, item 8: ``handler.results[run_id]`` with the UUID passed in ``config={"run_id": ...}``."""
    run_id = uuid.uuid4()
    handler = RagEvalCallbackHandler(["faithfulness"], judge=CopyJudge(), background=False)
    rag_chain().invoke("Q0", config={"callbacks": [handler], "run_id": run_id})
    result = handler.results[run_id]
    assert result is handler.results[str(run_id)] is handler.results.get(run_id)
    assert run_id in handler.results and str(run_id) in handler.results
    assert list(handler.results) == [str(run_id)]  # the keys stay strings, as in the records' run_id
    assert result.scores()["faithfulness"] == pytest.approx(1 / 2, abs=ABS)  # CopyJudge: 1 of 2 sentences copied
    assert uuid.uuid4() not in handler.results and handler.results.get(uuid.uuid4()) is None
    with pytest.raises(KeyError):
        handler.results[uuid.uuid4()]


def test_background_scoring_runs_the_models_on_one_core_and_inline_does_not() -> None:
    from rageval_lc.judges.offline.bert_onnx import _one_thread_here

    seen: list[bool] = []

    class RecordingJudge(CopyJudge):
        def trace_labels(self, sample: RagSample) -> Judgement[TraceLabels]:
            seen.append(_one_thread_here())
            return super().trace_labels(sample)

    for background in (True, False):
        with RagEvalCallbackHandler(["faithfulness"], judge=RecordingJudge(), background=background) as handler:
            rag_chain().invoke("Q1", config={"callbacks": [handler]})
            if background:
                handler.wait()
    assert seen == [True, False]
