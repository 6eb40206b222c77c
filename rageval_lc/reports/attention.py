"""The result rows that need a look: the worst rows by a score, the rows with contradictions, and the texts
(question, answer) to show beside them.

Every score we report is better high, except ``rmse_aggregation`` (the spread of the four TRACe scores: 0 is
balanced), whose worst rows are its highest. Only ``ok`` rows are ranked; ties keep the file's order.

Example:
    >>> rows = [{"id": "a", "scores": {"faithfulness": 0.9}, "status": {"faithfulness": "ok"}},
    ...         {"id": "b", "scores": {"faithfulness": 0.2}, "status": {"faithfulness": "ok"}},
    ...         {"id": "c", "scores": {"faithfulness": None}, "status": {"faithfulness": "undetermined"}}]
    >>> [row["id"] for row in worst_rows(rows, "faithfulness", 2)]
    ['b', 'a']
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "CONTRADICTED_BY",
    "HIGHER_IS_WORSE",
    "Contradiction",
    "attach_inputs",
    "contradictions",
    "row_answer",
    "row_label",
    "row_question",
    "score_value",
    "worst_rows",
]

#: Scores whose high values are the ones to look at (a spread, not a quality).
HIGHER_IS_WORSE: frozenset[str] = frozenset({"rmse_aggregation"})


@dataclass(frozen=True)
class Contradiction:
    """One response sentence the judge found contradicted by the documents.

    ``flagged``: the judge's verdict (``judge_notes → contradictions``: the row is unsupported whatever the
    rest); else only its reason says so (``sentence_support → explanation`` starting "Contradicted by": an NLI
    contradiction on a sentence it found unsupported, below its threshold for a verdict).
    """

    response_key: str
    sentence: str  # the response sentence, "" when the row does not keep it
    flagged: bool
    document_keys: tuple[str, ...]  # the contradicting document sentences (flagged ones)
    conflict: str  # flagged: what conflicts, as far as words show it ("" when only the NLI model saw it);
    # else the judge's explanation of the sentence


#: How the offline judge's sentence explanation starts for a contradicted sentence (judges.offline.judge).
CONTRADICTED_BY = "Contradicted by "


def row_label(row: Mapping[str, Any], index: int | None = None) -> str:
    """How a result row is named to a reader: its id; else ``line N`` (its input line); else ``#N`` (its
    1-based ``index`` in the run, as for the rows of a Python run); never ``None``.

    Example:
        >>> row_label({"id": "a", "line": 4}), row_label({"id": None, "line": 4}), row_label({}, 3)
        ('a', 'line 4', '#3')
    """
    row_id = row.get("id")
    if row_id is not None and str(row_id) != "":
        return str(row_id)
    line = row.get("line")
    if isinstance(line, int) and not isinstance(line, bool):
        return f"line {line}"
    return f"#{index}" if index is not None else "(no id)"


def score_value(row: Mapping[str, Any], name: str) -> float | None:
    """The row's ``name`` score when it is ``ok`` and a finite number, else None.

    Example:
        >>> score_value({"scores": {"a": 0.5}, "status": {"a": "ok"}}, "a"), score_value({"scores": {"a": 0.5}}, "a")
        (0.5, None)
    """
    if (row.get("status") or {}).get(name) != "ok":
        return None
    value = (row.get("scores") or {}).get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def worst_rows(rows: Iterable[Mapping[str, Any]], name: str, k: int) -> list[Mapping[str, Any]]:
    """The ``k`` rows with the worst ``ok`` values of score ``name`` (lowest, or highest for
    :data:`HIGHER_IS_WORSE`), worst first; ties in file order.

    Raises:
        ValueError: If ``k`` is not an int >= 1.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        msg = f"The 'k' parameter of worst_rows must be an int >= 1. Got {k!r} instead."
        raise ValueError(msg)
    sign = -1.0 if name in HIGHER_IS_WORSE else 1.0
    scored = [(value, row) for row in rows if (value := score_value(row, name)) is not None]
    scored.sort(key=lambda pair: sign * pair[0])  # stable: ties stay in file order
    return [row for _, row in scored[:k]]


def contradictions(row: Mapping[str, Any]) -> list[Contradiction]:
    """The contradictions the judge recorded for the row, each sentence once, flagged ones first: those in
    ``details → <metric> → judge_notes → contradictions``, then the sentences whose explanation in
    ``sentence_support`` starts with :data:`CONTRADICTED_BY` (as the offline judge writes them).

    Example:
        >>> row = {"details": {"trace": {"judge_notes": {"contradictions": [
        ...     {"response_sentence_key": "a", "document_sentence_keys": ["0b"], "conflict": "says 1990"}]},
        ...     "sentence_support": [{"key": "a", "sentence": "It opened in 1990."},
        ...                          {"key": "b", "sentence": "It is red.", "explanation": "Contradicted by 1a."}]}}}
        >>> [(c.sentence, c.flagged, c.document_keys, c.conflict) for c in contradictions(row)]
        [('It opened in 1990.', True, ('0b',), 'says 1990'), ('It is red.', False, (), 'Contradicted by 1a.')]
    """
    found: dict[str, Contradiction] = {}
    sentences = _response_sentences(row)
    for info in _detail_blocks(row):
        notes = info.get("judge_notes")
        listed = notes.get("contradictions") if isinstance(notes, Mapping) else None
        for item in listed if isinstance(listed, list) else ():
            key = str(item.get("response_sentence_key")) if isinstance(item, Mapping) else None
            if key is None or key in found:
                continue
            keys = item.get("document_sentence_keys")
            found[key] = Contradiction(
                response_key=key,
                sentence=sentences.get(key, ""),
                flagged=True,
                document_keys=tuple(str(k) for k in keys) if isinstance(keys, list) else (),
                conflict=str(item.get("conflict") or ""),
            )
    for info in _detail_blocks(row):
        support = info.get("sentence_support")
        for item in support if isinstance(support, list) else ():
            if not isinstance(item, Mapping):
                continue
            key, explanation = str(item.get("key")), item.get("explanation")
            if key not in found and isinstance(explanation, str) and explanation.startswith(CONTRADICTED_BY):
                found[key] = Contradiction(key, sentences.get(key, ""), False, (), explanation)
    return list(found.values())


def row_question(row: Mapping[str, Any]) -> str | None:
    """The row's question when it carries one (callback records do; ``rageval evaluate`` rows do once
    :func:`attach_inputs` has read it from the input file)."""
    question = row.get("question")
    return question if isinstance(question, str) else None


def row_answer(row: Mapping[str, Any]) -> tuple[str | None, bool]:
    """The row's answer and whether it was pieced together from the judge's response sentences
    (``details → … → sentence_support``) because the row does not carry it.

    Example:
        >>> row_answer({"details": {"trace": {"sentence_support": [{"key": "a", "sentence": "A."},
        ...                                                         {"key": "b", "sentence": "B."}]}}})
        ('A. B.', True)
    """
    for field in ("response", "answer"):
        if isinstance(row.get(field), str):
            return row[field], False
    sentences = _response_sentences(row)
    return (" ".join(sentences.values()), True) if sentences else (None, False)


def attach_inputs(rows: Sequence[Mapping[str, Any]], path: str | Path) -> tuple[list[dict[str, Any]], int]:
    """Copies of ``rows`` with ``question`` and ``response`` read from the input file they were scored from,
    matched by ``line`` and checked by ``input_sha256``; and how many rows could not be matched (their input
    line is gone, changed, or not a readable row). Rows that already carry a question are left as they are.

    Raises:
        OSError: If ``path`` cannot be read.
    """
    from rageval_lc.datasets.rows import scored_samples

    texts = {line_no: (sample.question, sample.response) for line_no, sample in scored_samples(path, rows)}
    out, unmatched = [], 0
    for row in rows:
        copy = dict(row)
        if row_question(row) is None:
            text = texts.get(row.get("line"))  # type: ignore[arg-type]
            if text is None:
                unmatched += 1
            else:
                copy["question"], copy["response"] = text
        out.append(copy)
    return out, unmatched


def _detail_blocks(row: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    details = row.get("details")
    return [info for info in details.values() if isinstance(info, Mapping)] if isinstance(details, Mapping) else []


def _response_sentences(row: Mapping[str, Any]) -> dict[str, str]:
    """Response sentence key → text, from the first ``sentence_support`` list in the row's details."""
    for info in _detail_blocks(row):
        support = info.get("sentence_support")
        if isinstance(support, list) and support:
            return {
                str(item.get("key")): str(item.get("sentence"))
                for item in support
                if isinstance(item, Mapping) and isinstance(item.get("sentence"), str)
            }
    return {}
