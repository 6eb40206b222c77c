"""Where the callback handler's results go: memory, a JSONL file, a function, LangSmith feedback.

A sink is anything with ``write(record)``; a plain function of the record works too. Sinks are
called from the handler's scoring worker; a sink that raises is logged and the others still run.

Example:
    >>> sink = MemorySink()
    >>> sink.write({"run_id": "r1", "scores": {"faithfulness": 1.0}})
    >>> sink.records[0]["run_id"]
    'r1'
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

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

    def write(self, record: dict[str, Any]) -> None:
        """Append the record."""
        with self._lock:
            self.records.append(record)


class JsonlSink:
    """Appends one JSON line per record to a file, flushed at once (thread-safe)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def write(self, record: dict[str, Any]) -> None:
        """Append the record as one line."""
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()


class CallableSink:
    """Calls a function with each record."""

    def __init__(self, function: Any) -> None:
        if not callable(function):
            msg = f"CallableSink needs a callable. Got {type(function).__name__}."
            raise TypeError(msg)
        self.function = function

    def write(self, record: dict[str, Any]) -> None:
        """Call the function."""
        self.function(record)


class LangSmithFeedbackSink:
    """Sends each headline score as LangSmith feedback on the run (``Client.create_feedback``).

    One feedback per score, keyed by the score's name, with the reason as comment; an undetermined or
    failed score is sent with no score and its status in the comment.

    Args:
        client: a ``langsmith.Client`` (None: one built from the environment).
        prefix: prepended to each feedback key (e.g. ``"rageval_"``).
        session_id: the tracing project's id, passed on (newer LangSmith deployments want it).
    """

    def __init__(self, client: Any = None, *, prefix: str = "", session_id: Any = None) -> None:
        if client is None:
            try:
                from langsmith import Client
            except ImportError as exc:  # pragma: no cover - langsmith comes with langchain-core
                msg = "LangSmithFeedbackSink needs the langsmith package: `pip install langsmith`."
                raise ImportError(msg) from exc
            client = Client()
        self.client = client
        self.prefix = prefix
        self.session_id = session_id

    def write(self, record: dict[str, Any]) -> None:
        """Create the run's feedback, one call per headline score."""
        extra = {"session_id": self.session_id} if self.session_id is not None else {}
        for item in record.get("feedback", []):
            self.client.create_feedback(
                run_id=record["run_id"],
                key=self.prefix + item["key"],
                score=item["score"],
                comment=item["comment"],
                feedback_source_type="model",
                **extra,
            )
