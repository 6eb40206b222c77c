"""Sinks never mix results: callback records carry their producer, JsonlSink refuses a file another tool
wrote, and ``rageval report`` refuses a file that mixes them; LangSmith feedback names the run's session."""

from __future__ import annotations

import json
import threading
import warnings
from http.server import ThreadingHTTPServer
from importlib.resources import files
from pathlib import Path
from typing import Any, ClassVar

import pytest

from rageval_lc.adapters import JsonlSink, LangSmithFeedbackSink, MemorySink, RagEvalCallbackHandler
from rageval_lc.cli import main
from tests.adapters.test_callback_handler import CopyJudge, _FeedbackServer, rag_chain

QUICKSTART = Path(str(files("rageval_lc.data").joinpath("quickstart_ragbench.jsonl")))


def evaluate_rows(out: Path) -> list[str]:
    assert main(["evaluate", str(QUICKSTART), "--judge", "labels", "--out", str(out), "--no-progress"]) == 0
    return out.read_text(encoding="utf-8").splitlines()


def callback_records(path: Path, questions: list[str]) -> list[str]:
    handler = RagEvalCallbackHandler(["faithfulness"], judge=CopyJudge(), sinks=[JsonlSink(path)], background=False)
    for question in questions:
        rag_chain().invoke(question, config={"callbacks": [handler]})
    return path.read_text(encoding="utf-8").splitlines()


def test_callback_records_are_marked_with_their_producer() -> None:
    sink = MemorySink()
    handler = RagEvalCallbackHandler(["faithfulness"], judge=CopyJudge(), sinks=[sink], background=False)
    rag_chain().invoke("Q0", config={"callbacks": [handler]})
    assert sink.records[0]["producer"] == "callback"


def test_jsonl_sink_refuses_a_file_that_rageval_evaluate_wrote(tmp_path: Path) -> None:
    out = tmp_path / "scores.jsonl"
    before = evaluate_rows(out)
    with pytest.raises(ValueError, match=r"scores\.jsonl holds rows written by rageval evaluate"):
        JsonlSink(out)
    assert out.read_text(encoding="utf-8").splitlines() == before  # nothing appended
    (tmp_path / "notes.txt").write_text("not JSON\n", encoding="utf-8")
    with pytest.raises(ValueError, match="is not a JSONL file of callback records"):
        JsonlSink(tmp_path / "notes.txt")


def test_jsonl_sink_appends_to_its_own_file(tmp_path: Path) -> None:
    path = tmp_path / "scores.jsonl"
    first = callback_records(path, ["Q1"])
    both = callback_records(path, ["Q2"])  # a new handler and sink on the same file: appended
    assert both[:1] == first and len(both) == 2
    assert [json.loads(line)["question"] for line in both] == ["Q1", "Q2"]


@pytest.mark.parametrize("marked", [True, False])
def test_report_refuses_a_file_that_mixes_evaluate_rows_and_callback_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], marked: bool
) -> None:
    evaluated = evaluate_rows(tmp_path / "evaluated.jsonl")
    recorded = callback_records(tmp_path / "callback.jsonl", ["Q1", "Q2"])
    if not marked:  # records written before the producer mark are known by their run_id and feedback
        recorded = [json.dumps({k: v for k, v in json.loads(line).items() if k != "producer"}) for line in recorded]
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("\n".join([*evaluated, *recorded]) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["report", str(mixed), "--html", str(tmp_path / "report.html")]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    message = (
        f"mixed.jsonl mixes rows of 2 producers: {len(evaluated)} from rageval evaluate, 2 from RagEvalCallbackHandler"
    )
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "report.html").exists()
    # each file alone is reported
    for name in ("evaluated.jsonl", "callback.jsonl"):
        assert main(["report", str(tmp_path / name)]) == 0


class _ProjectServer(_FeedbackServer):
    """Also answers LangSmith's project look-up (GET /sessions?name=...), as found or not yet (:attr:`known`)."""

    received: ClassVar[list[tuple[str, str, dict]]] = []
    project_id = "7f0b3c1e-8a52-4c1d-9a43-2f5e7d1c0b9a"
    project: ClassVar[dict[str, Any]] = {
        "id": project_id,
        "name": "rageval-tests",
        "tenant_id": "00000000-0000-0000-0000-000000000001",
        "reference_dataset_id": None,
        "start_time": "2025-01-01T00:00:00",
    }
    known: ClassVar[list[bool]] = []  # per look-up: is the project known yet (default: yes)

    def projects(self) -> list[dict[str, Any]]:
        known = type(self).known.pop(0) if type(self).known else True
        return [self.project] if known else []


def _feedback_through(
    monkeypatch: pytest.MonkeyPatch, *, session_id: str | None = None, tracer: bool = False
) -> tuple[list, list, list]:
    langsmith = pytest.importorskip("langsmith", reason="langsmith is not installed")
    from langchain_core.tracers.langchain import LangChainTracer

    for name in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGCHAIN_TRACING"):
        monkeypatch.delenv(name, raising=False)
    _ProjectServer.received = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ProjectServer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}"
        client = langsmith.Client(api_url=url, api_key="test", auto_batch_tracing=False)
        sink = LangSmithFeedbackSink(client, session_id=session_id)
        handler = RagEvalCallbackHandler(["faithfulness"], judge=CopyJudge(), sinks=[sink], background=False)
        callbacks: list[Any] = [handler]
        if tracer:  # the chain traced by a tracer of its own, to a project the environment does not name
            callbacks.append(LangChainTracer(project_name="rageval-tests", client=client))
        with (
            warnings.catch_warnings(record=True) as caught,
            langsmith.tracing_context(project_name=None if tracer else "rageval-tests"),
        ):
            warnings.simplefilter("always")
            for question in ("Q1", "Q2"):
                rag_chain().invoke(question, config={"callbacks": callbacks})
    finally:
        server.shutdown()
    feedback = [payload for _, path, payload in _ProjectServer.received if path.startswith("/feedback")]
    lookups = [path for _, path, _ in _ProjectServer.received if path.startswith("/sessions")]
    return feedback, lookups, [w for w in caught if "session_id" in str(w.message)]


@pytest.mark.parametrize("tracer", [False, True])
def test_langsmith_feedback_takes_the_session_from_the_run(monkeypatch: pytest.MonkeyPatch, tracer: bool) -> None:
    feedback, lookups, deprecations = _feedback_through(monkeypatch, tracer=tracer)
    assert [f["session_id"] for f in feedback] == [_ProjectServer.project_id] * 2
    assert len(lookups) == 1 and "name=rageval-tests" in lookups[0]  # looked up once, by the run's project
    assert deprecations == []


def test_langsmith_feedback_with_an_explicit_session_looks_nothing_up(monkeypatch: pytest.MonkeyPatch) -> None:
    session = "0b7e3f6a-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
    feedback, lookups, deprecations = _feedback_through(monkeypatch, session_id=session)
    assert [f["session_id"] for f in feedback] == [session] * 2
    assert lookups == [] and deprecations == []


def test_a_project_not_found_yet_is_looked_up_again(monkeypatch: pytest.MonkeyPatch) -> None:
    _ProjectServer.known = [False]  # the first look-up: LangSmith has not created the project yet
    try:
        feedback, lookups, deprecations = _feedback_through(monkeypatch)
    finally:
        _ProjectServer.known = []
    # the first record's look-up fails, the client is flushed and the project looked up again: found
    assert [f.get("session_id") for f in feedback] == [_ProjectServer.project_id] * 2
    assert len(lookups) == 2
    assert deprecations == []  # no feedback without a session (LangSmith deprecates it)


def test_no_feedback_is_sent_without_a_session(monkeypatch: pytest.MonkeyPatch) -> None:
    _ProjectServer.known = [False] * 4  # never created: each record looks it up twice, then gives up
    try:
        feedback, lookups, deprecations = _feedback_through(monkeypatch)
    finally:
        _ProjectServer.known = []
    assert feedback == [] and len(lookups) == 4 and deprecations == []


PROJECT_ID = "5d6c1a0e-3b2f-4c7d-8e9a-1b2c3d4e5f60"
RECORD = {"run_id": "r1", "tracing_project": "p", "feedback": [{"key": "faithfulness", "score": 0.5, "comment": "c"}]}


class _Client:
    """A LangSmith client stand-in whose project ``p`` exists once ``flush`` has uploaded the queued runs
    (``appears_on_flush``), or never."""

    def __init__(self, *, appears_on_flush: bool) -> None:
        self.appears_on_flush, self.exists = appears_on_flush, False
        self.calls: list[tuple[Any, ...]] = []

    def read_project(self, *, project_name: str) -> Any:
        self.calls.append(("read_project", project_name))
        if not self.exists:
            raise LookupError(f"Project {project_name} not found")
        return type("Project", (), {"id": PROJECT_ID})()

    def flush(self, timeout: float | None = None) -> None:
        self.calls.append(("flush",))
        self.exists = self.appears_on_flush

    def create_feedback(self, **kwargs: Any) -> None:
        self.calls.append(("create_feedback", kwargs["key"], kwargs.get("session_id")))


def test_a_project_not_found_is_looked_up_again_after_flushing_the_client() -> None:
    client = _Client(appears_on_flush=True)
    sink = LangSmithFeedbackSink(client)
    sink.write(RECORD)
    sink.write(RECORD)  # the project's id is kept: no second look-up
    assert client.calls == [
        ("read_project", "p"),
        ("flush",),
        ("read_project", "p"),
        ("create_feedback", "faithfulness", PROJECT_ID),
        ("create_feedback", "faithfulness", PROJECT_ID),
    ]


def test_a_project_never_found_sends_nothing_and_says_why() -> None:
    client = _Client(appears_on_flush=False)
    sink = LangSmithFeedbackSink(client)
    with pytest.raises(LookupError, match=r"LangSmith has no project 'p' .* run r1 .*\(session_id=\.\.\.\)"):
        sink.write(RECORD)
    assert client.calls == [("read_project", "p"), ("flush",), ("read_project", "p")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(LookupError):
            sink.write(RECORD)  # looked up again with the next record, still nothing sent
    assert [call[0] for call in client.calls].count("create_feedback") == 0
