"""Judge faults and the judge cache (issue 13, items 6, 7 and 9).

Servers here are tiny OpenAI chat-completions endpoints on 127.0.0.1 in a thread: one answers a fixed
verdict and counts its calls, one hangs until the client gives up (and notes when it did).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from rageval_lc.engine.engine import evaluate
from rageval_lc.judges.factory import make_judge
from rageval_lc.judges.labels import LabelsJudge
from rageval_lc.judges.llm.dspy_judge import DspyJudge
from rageval_lc.judges.resilient import ResilientJudge
from rageval_lc.verdicts import Judgement
from tests.engine.test_engine import samples
from tests.fakes import chat

ROOT = Path(__file__).resolve().parents[2]


# --- fake OpenAI-compatible servers ----------------------------------------------------------------


class FakeServer:
    """Answers every chat completion with ``reply`` (or hangs when ``hang``); counts requests."""

    def __init__(self, reply: str = "", *, hang: bool = False) -> None:
        self.reply, self.hang = reply, hang
        self.calls = 0
        self.client_gave_up: list[float] = []  # seconds from a hung request to the client closing it
        self.release = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                started = time.monotonic()
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                server.calls += 1
                if server.hang:
                    self.connection.settimeout(0.1)
                    while not server.release.is_set():
                        try:
                            if self.connection.recv(1) == b"":
                                server.client_gave_up.append(time.monotonic() - started)
                                return
                        except TimeoutError:
                            continue
                        except OSError:
                            server.client_gave_up.append(time.monotonic() - started)
                            return
                    return
                body = json.dumps(
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "created": 0,
                        "model": "judge",
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": server.reply},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def servers() -> Iterator[list[FakeServer]]:
    made: list[FakeServer] = []
    yield made
    for server in made:
        server.close()


def serve(servers: list[FakeServer], reply: str = "", *, hang: bool = False) -> FakeServer:
    server = FakeServer(reply, hang=hang)
    servers.append(server)
    return server


CORRECT = chat(classification="CORRECT", reason="Same answer.")
WRONG = chat(classification="WRONG", reason="Another answer.")


def classify(judge: Any, question: str) -> Judgement:
    return judge.classify_answer(question, "Paris.", "Paris")


# --- 6. the cache key: every setting that changes answers -------------------------------------------


def test_our_cache_never_answers_for_another_server(servers: list[FakeServer], tmp_path: Path) -> None:
    a, b = serve(servers, CORRECT), serve(servers, WRONG)
    question = f"Capital of France? {uuid.uuid4()}"
    on_a = ResilientJudge(make_judge("dspy:openai/judge", api_base=a.url), cache=tmp_path)
    assert classify(on_a, question).value.label == "CORRECT"
    on_b = ResilientJudge(make_judge("dspy:openai/judge", api_base=b.url), cache=tmp_path)
    assert classify(on_b, question).value.label == "WRONG"
    assert (a.calls, b.calls) == (1, 1)
    again = ResilientJudge(make_judge("dspy:openai/judge", api_base=a.url), cache=tmp_path)
    outcome = classify(again, question)
    assert outcome.value.label == "CORRECT" and outcome.notes.get("cached") is True
    assert a.calls == 1  # the same server and settings: read back


def test_dspys_own_cache_never_answers_for_another_server(servers: list[FakeServer]) -> None:
    a, b = serve(servers, CORRECT), serve(servers, WRONG)
    question = f"Capital of France? {uuid.uuid4()}"  # new to any cache on disk
    assert classify(make_judge("dspy:openai/judge", api_base=a.url), question).value.label == "CORRECT"
    assert classify(make_judge("dspy:openai/judge", api_base=b.url), question).value.label == "WRONG"
    assert (a.calls, b.calls) == (1, 1)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"temperature": 0.0}, {"temperature": 0.7}),
        ({"max_tokens": 100}, {"max_tokens": 2000}),
    ],
)
def test_lm_settings_are_part_of_the_cache_key(
    servers: list[FakeServer], tmp_path: Path, first: dict[str, Any], second: dict[str, Any]
) -> None:
    a = serve(servers, CORRECT)
    question = f"Capital of France? {uuid.uuid4()}"
    for settings in (first, second, first):
        judge = DspyJudge("openai/judge", api_base=a.url, api_key="not-needed", **settings)
        classify(ResilientJudge(judge, cache=tmp_path), question)
    assert a.calls == 2  # each setting asked once, the first read back the second time


def test_chat_models_with_other_settings_do_not_share_cache_entries(tmp_path: Path) -> None:
    question = "Capital of France?"
    first = ResilientJudge(DspyJudge(FakeListChatModel(responses=[CORRECT])), cache=tmp_path)
    assert classify(first, question).value.label == "CORRECT"
    second = ResilientJudge(DspyJudge(FakeListChatModel(responses=[WRONG])), cache=tmp_path)
    assert classify(second, question).value.label == "WRONG"


def test_compiled_prompts_are_part_of_the_cache_key(tmp_path: Path) -> None:
    plain = DspyJudge(FakeListChatModel(responses=[CORRECT]))
    compiled = DspyJudge(FakeListChatModel(responses=[CORRECT]))
    compiled.modules["classify_answer"].predictors()[0].signature = (
        compiled.modules["classify_answer"].predictors()[0].signature.with_instructions("Be strict.")
    )
    inputs = {"question": "q", "answer": "a", "reference": "r"}
    assert ResilientJudge(plain, cache=tmp_path)._key("classify_answer", inputs) != ResilientJudge(
        compiled, cache=tmp_path
    )._key("classify_answer", inputs)


def test_the_transport_timeout_is_not_part_of_the_cache_key(servers: list[FakeServer], tmp_path: Path) -> None:
    a = serve(servers, CORRECT)
    question = f"Capital of France? {uuid.uuid4()}"
    classify(ResilientJudge(make_judge("dspy:openai/judge", api_base=a.url), cache=tmp_path, timeout_s=30), question)
    classify(ResilientJudge(make_judge("dspy:openai/judge", api_base=a.url), cache=tmp_path, timeout_s=60), question)
    assert a.calls == 1


# --- 7. a cache that cannot be written --------------------------------------------------------------


def unwritable_cache(tmp_path: Path) -> Path:
    """A cache folder whose every entry folder name is taken by a file (any write fails, even as root)."""
    directory = tmp_path / "cache"
    directory.mkdir()
    for i in range(256):
        (directory / f"{i:02x}").write_text("not a folder")
    return directory


def test_an_unwritable_cache_warns_once_and_scoring_goes_on(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    judge = ResilientJudge(LabelsJudge(), cache=unwritable_cache(tmp_path))
    with caplog.at_level(logging.WARNING, logger="rageval_lc"):
        run = evaluate(samples(6), "trace", judge=judge, concurrency=3)
    assert [r.results["adherence"].status for r in run.results] == ["ok"] * 6
    assert run.summary("context_relevance").mean == 0.5  # hand-worked: 1 of 2 document sentences relevant
    warnings = [r for r in caplog.records if "cannot be written" in r.getMessage()]
    assert len(warnings) == 1, [r.getMessage() for r in caplog.records]


def test_a_cache_dir_that_is_a_file_warns_and_the_cli_scores(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(s.model_dump(mode="json")) + "\n" for s in samples(3)), encoding="utf-8")
    a_file = tmp_path / "cache"
    a_file.write_text("I am a file")
    out = tmp_path / "out.jsonl"
    command = [sys.executable, "-m", "rageval_lc.cli", "evaluate", str(rows), "--judge", "labels"]
    command += ["--cache-dir", str(a_file), "--out", str(out), "--no-progress"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("cannot be written") == 1, done.stderr
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [row["status"]["adherence"] for row in written] == ["ok"] * 3
    assert a_file.read_text() == "I am a file"


# --- 9. a hung judge neither keeps the process alive nor its connection open ------------------------

HANGING_CLI = textwrap.dedent(
    """
    import sys, time
    import rageval_lc.judges.factory as factory
    from rageval_lc.judges.labels import LabelsJudge

    class Hanging(LabelsJudge):
        name = "hanging"

        def trace_labels(self, sample):
            time.sleep(60)
            return super().trace_labels(sample)

    factory.make_judge = lambda *args, **kwargs: Hanging()
    from rageval_lc.cli import main

    code = main(sys.argv[1:])
    print(f"summary printed at {time.monotonic():.3f}", file=sys.stderr, flush=True)
    sys.exit(code)
    """
)


def test_the_cli_exits_right_after_the_timeout_with_a_hung_judge(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(s.model_dump(mode="json")) + "\n" for s in samples(2)), encoding="utf-8")
    script = tmp_path / "hanging_cli.py"
    script.write_text(HANGING_CLI, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    command = [sys.executable, str(script), "evaluate", str(rows), "--judge", "labels", "--timeout", "1"]
    command += ["--retries", "0", "--concurrency", "2", "--out", str(out), "--no-progress"]
    try:
        environment = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout, not another installed copy
        done = subprocess.run(command, capture_output=True, text=True, timeout=45, cwd=ROOT, env=environment)
    except subprocess.TimeoutExpired:
        pytest.fail("the CLI was still running 45 s after starting: hung judge calls kept it alive")
    ended = time.monotonic()
    assert done.returncode == 1, done.stderr  # every row failed: the run exits 1 (issue 44, item 7)
    printed = float(done.stderr.rsplit("summary printed at ", 1)[1].split()[0])
    assert ended - printed < 5.0, f"the process ended {ended - printed:.1f} s after its summary"
    statuses = [json.loads(line)["status"]["adherence"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert statuses == ["error", "error"]


def test_an_abandoned_call_gets_a_transport_timeout(servers: list[FakeServer]) -> None:
    hung = serve(servers, hang=True)
    judge = ResilientJudge(make_judge("dspy:openai/judge", api_base=hung.url), timeout_s=1.0, retries=0)
    started = time.monotonic()
    outcome = classify(judge, f"Capital of France? {uuid.uuid4()}")
    assert outcome.status == "error" and "timed out after 1 s" in outcome.reason
    assert time.monotonic() - started < 3.0
    deadline = time.monotonic() + 8.0
    while not hung.client_gave_up and time.monotonic() < deadline:
        time.sleep(0.1)
    assert hung.client_gave_up, "the abandoned call still held its connection 8 s later"
    assert hung.client_gave_up[0] < 4.0
