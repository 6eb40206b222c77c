"""Where the callback handler's results go: memory, a JSONL file, a function, LangSmith feedback.

A sink is anything with ``write(record)``; a plain function of the record works too. Sinks are
called from the handler's scoring worker; a sink that raises is logged (its first failure with the
traceback, then counted) and the others still run. ``JsonlSink`` appends only to a file of callback
records: a file that ``rageval evaluate`` (or anything else) wrote is refused, so the two never mix.

Example:
    >>> sink = MemorySink()
    >>> sink.write({"run_id": "r1", "scores": {"faithfulness": 1.0}})
    >>> sink.records[0]["run_id"]
    'r1'
"""

from __future__ import annotations

import fcntl
import json
import logging
import threading
import time
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from rageval_lc.files import OutputInUseError, jsonl_line
from rageval_lc.reports.producers import CALLBACK, producer_name, producer_of

logger = logging.getLogger(__name__)

__all__ = ["CallableSink", "JsonlSink", "LangSmithFeedbackSink", "MemorySink", "Sink"]


@runtime_checkable
class Sink(Protocol):
    """Receives one scored run (the record of :meth:`ScoredRun.to_row`)."""

    def write(self, record: dict[str, Any]) -> None:
        """Store or send the record."""
        ...


class MemorySink:
    """Keeps every record in a list (thread-safe)."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"MemorySink({len(self.records)} records)"

    def write(self, record: dict[str, Any]) -> None:
        """Append the record."""
        with self._lock:
            self.records.append(record)


class JsonlSink:
    """Appends one JSON line per record to a file, flushed at once (thread-safe).

    Lines are written as ``rageval evaluate`` writes them (U+2028, U+2029 and U+0085 escaped, so that no
    line splitter cuts a record), each under the same exclusive lock (``flock``) that ``rageval
    evaluate`` holds on its output: two processes appending never interleave.

    Args:
        path: the file (created when missing).
        lock_timeout: seconds to wait for another writer's lock before :meth:`write` raises.

    Raises:
        ValueError: If the file exists and its first line is not a callback record (a file written by
            ``rageval evaluate``, or not JSONL): appending would mix two kinds of rows in one file.
    """

    def __init__(self, path: str | Path, *, lock_timeout: float = 10.0) -> None:
        self.path = Path(path)
        self.lock_timeout = lock_timeout
        self._lock = threading.Lock()
        _check_own_file(self.path)

    def __repr__(self) -> str:
        return f"JsonlSink({str(self.path)!r})"

    def write(self, record: dict[str, Any]) -> None:
        """Append the record as one line, holding the file's lock.

        Raises:
            OutputInUseError: If another writer holds the lock for more than ``lock_timeout`` seconds
                (nothing is written).
        """
        line = jsonl_line(record, default=str).encode("utf-8")
        with self._lock, self.path.open("ab") as handle:
            _lock_file(handle.fileno(), self.path, self.lock_timeout)
            handle.write(line)
            handle.flush()


class CallableSink:
    """Calls a function with each record."""

    def __init__(self, function: Any) -> None:
        if not callable(function):
            msg = f"CallableSink needs a callable. Got {type(function).__name__}."
            raise TypeError(msg)
        self.function = function

    def __repr__(self) -> str:
        return f"CallableSink({getattr(self.function, '__qualname__', self.function)!r})"

    def write(self, record: dict[str, Any]) -> None:
        """Call the function."""
        self.function(record)


class LangSmithFeedbackSink:
    """Sends each headline score as LangSmith feedback on the run (``Client.create_feedback``).

    One feedback per score, keyed by the score's name, with the reason as comment; an undetermined or
    failed score is sent with no score and its status in the comment. Feedback names the run's session
    (tracing project), which LangSmith requires: the handler records the project each run is traced to
    (from LangSmith's run tree when LangChain traces the chain, else as LangChain's tracer would pick it:
    ``tracing_context(project_name=...)``, ``tracing_v2_enabled(project_name=...)``, ``LANGSMITH_PROJECT``)
    and the sink looks its id up once per project (``Client.read_project``). A project not found (its first
    runs may still be in the upload queue) is looked up once more after flushing the client's queue (LangSmith
    creates a project with its first run); still not found, no feedback is sent — LangSmith deprecates
    feedback without a session, and deployments that locate runs by session refuse it — and ``write`` raises
    :class:`LookupError` (the handler logs it and counts it in ``sink_failures``); the next record looks
    the project up again.

    Args:
        client: a ``langsmith.Client`` (None: the client LangChain's tracer uses, so that flushing it uploads
            the traced runs).
        prefix: prepended to each feedback key (e.g. ``"rageval_"``).
        session_id: the tracing project's id for every record (no look-up).
    """

    def __init__(self, client: Any = None, *, prefix: str = "", session_id: Any = None) -> None:
        if client is None:
            try:
                from langsmith.run_trees import get_cached_client
            except ImportError as exc:  # pragma: no cover - langsmith comes with langchain-core
                msg = "LangSmithFeedbackSink needs the langsmith package: `pip install langsmith`."
                raise ImportError(msg) from exc
            client = get_cached_client()
        self.client = client
        self.prefix = prefix
        self.session_id = session_id
        self._sessions: dict[str, Any] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LangSmithFeedbackSink(prefix={self.prefix!r})"

    def write(self, record: dict[str, Any]) -> None:
        """Create the run's feedback, one call per headline score.

        Raises:
            LookupError: If the run's project cannot be found, even after flushing the client (nothing sent).
        """
        feedback = record.get("feedback", [])
        if not feedback:
            return
        session = self.session_id if self.session_id is not None else self._session(record)
        for item in feedback:
            self.client.create_feedback(
                run_id=record["run_id"],
                key=self.prefix + item["key"],
                score=item["score"],
                comment=item["comment"],
                feedback_source_type="model",
                session_id=session,
            )

    def _session(self, record: dict[str, Any]) -> Any:
        """The id of the run's project, looked up once per project; not found, once more after a flush."""
        project = record.get("tracing_project") or _default_project()
        with self._lock:
            if project in self._sessions:
                return self._sessions[project]
        try:
            session = self.client.read_project(project_name=project).id
        except Exception:  # not created yet: its first runs may still be in this client's upload queue
            flush = getattr(self.client, "flush", None)
            if flush is not None:
                flush(timeout=FLUSH_TIMEOUT_S)
            try:
                session = self.client.read_project(project_name=project).id
            except Exception as exc:  # tried again with the next record
                msg = (
                    f"LangSmith has no project {project!r} (yet), the one run {record['run_id']} is traced to: its "
                    f"feedback was not sent. Trace the chain to LangSmith, or give the sink the project's id "
                    f"(LangSmithFeedbackSink(session_id=...)). ({type(exc).__name__}: {exc})"
                )
                raise LookupError(msg) from exc
        with self._lock:
            self._sessions[project] = session
        return session


#: The longest wait for the client's queued runs to upload before a project is looked up again (seconds).
FLUSH_TIMEOUT_S = 5.0


def _default_project() -> str:
    """The project LangSmith traces to when none is named (``LANGSMITH_PROJECT``, else ``default``)."""
    from langsmith.utils import get_tracer_project

    return get_tracer_project()


def _lock_file(fd: int, path: Path, timeout: float) -> None:
    """Take the exclusive lock on an open file, waiting at most ``timeout`` seconds (released on close)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                msg = f"another writer holds {path} (locked for over {timeout:g} s); the record was not written"
                raise OutputInUseError(msg) from None
            time.sleep(0.02)


def _check_own_file(path: Path) -> None:
    """Refuse a non-empty file whose first line is not a callback record."""
    try:
        with path.open(encoding="utf-8-sig", errors="replace") as handle:
            first = next((line for line in handle if line.strip()), None)
    except FileNotFoundError:
        return
    if first is None:
        return
    try:
        row = json.loads(first)
    except ValueError:
        row = None
    if not isinstance(row, dict):
        msg = f"{path} is not a JSONL file of callback records; JsonlSink appends only to its own files."
        raise ValueError(msg)
    if producer_of(row) != CALLBACK:
        msg = (
            f"{path} holds rows written by {producer_name(producer_of(row))}; JsonlSink appends only to files of "
            "callback records (pick another path, so that rageval report never reads the two mixed)."
        )
        raise ValueError(msg)
