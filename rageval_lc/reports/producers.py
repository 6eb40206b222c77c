"""Which tool wrote a result row, so that a file holding rows of two tools is never read as one run.

The callback handler marks its records ``"producer": "callback"``; rows without a mark are
``rageval evaluate``'s (callback records written before the mark are still known by their ``run_id`` and
``feedback``). ``rageval report`` refuses a file that mixes them, and ``JsonlSink`` refuses to append to a
file that another producer wrote.

Example:
    >>> producer_of({"id": "1", "status": {}}), producer_of({"producer": "callback", "status": {}})
    ('evaluate', 'callback')
    >>> check_one_producer([{"status": {}}, {"producer": "callback", "status": {}}], "scores.jsonl")
    Traceback (most recent call last):
    ...
    rageval_lc.reports.producers.MixedResultsError: scores.jsonl mixes rows of 2 producers: 1 from rageval evaluate, \
1 from RagEvalCallbackHandler (JsonlSink). Report each from its own file (callback records carry "producer": \
"callback").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "CALLBACK",
    "EVALUATE",
    "PRODUCER_KEY",
    "MixedResultsError",
    "check_one_producer",
    "producer_name",
    "producer_of",
]

PRODUCER_KEY = "producer"
EVALUATE = "evaluate"
CALLBACK = "callback"
_NAMES = {EVALUATE: "rageval evaluate", CALLBACK: "RagEvalCallbackHandler (JsonlSink)"}


class MixedResultsError(ValueError):
    """A results file holds rows written by different producers."""


def producer_of(row: Mapping[str, Any]) -> str:
    """The producer of a result row: its ``producer`` mark, else ``callback`` or ``evaluate`` by shape."""
    mark = row.get(PRODUCER_KEY)
    if isinstance(mark, str) and mark:
        return mark
    return CALLBACK if "run_id" in row and "feedback" in row else EVALUATE


def producer_name(producer: str) -> str:
    """How messages name a producer."""
    return _NAMES.get(producer, repr(producer))


def check_one_producer(rows: Iterable[Mapping[str, Any]], source: str) -> None:
    """Raise :class:`MixedResultsError` when the rows come from more than one producer.

    Raises:
        MixedResultsError: naming each producer and its row count.
    """
    counts = Counter(producer_of(row) for row in rows)
    if len(counts) > 1:
        parts = ", ".join(f"{n} from {producer_name(p)}" for p, n in counts.items())
        msg = (
            f"{source} mixes rows of {len(counts)} producers: {parts}. Report each from its own file "
            f'(callback records carry "{PRODUCER_KEY}": "{CALLBACK}").'
        )
        raise MixedResultsError(msg)
