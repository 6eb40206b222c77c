"""Labelled rows for aligning a judge (``rageval align``): the sample, in any form ``evaluate`` reads, and what a
person (or a trusted judge) said about it.

Labels it reads (a row may carry several):

- RAGBench's (``all_relevant_sentence_keys``, ``all_utilized_sentence_keys``, ``sentence_support_information`` /
  ``unsupported_response_sentence_keys``, ``adherence_score``, ``relevance_score``, ``utilization_score``,
  ``completeness_score``), in a RAGBench row or under a generic row's ``labels``;
- per-sentence verdicts, ``"sentence_verdicts"``: ``supported`` / ``not_found`` / ``contradicted`` for each
  response sentence, as a list in order or a mapping by sentence key (``"a"``, ``"b"``, … or RAGBench's);
- per-row judgements: ``"faithful": true/false``, and ``"human_scores"`` (or ``"scores"``) by metric on 0–1 or
  1–5 (a metric whose scores in the file go above 1 is read as 1–5: 1 → 0, 5 → 1);
- LangSmith feedback exported from runs: ``{"inputs": {...}, "outputs": {...}, "feedback": [{"key", "score"}]}``
  (the inputs and outputs are read as one row; each feedback key as a per-row score).

A faithfulness or adherence score becomes the row's verdict: faithful from 0.5 up. A faithful row without
sentence labels trains the sentence models as all supported; only rows with sentence labels are measured per
sentence.

Example:
    >>> rows = [{"question": "Q?", "contexts": ["Paris is in France."], "response": "Paris is in Spain.",
    ...          "sentence_verdicts": ["contradicted"]}]
    >>> [(x.unsupported, x.contradicted, x.hallucinated) for x in read_labelled(rows)]
    [(frozenset({'a'}), frozenset({'a'}), True)]
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rageval_lc.datasets.inputs import dataset_items, row_of
from rageval_lc.datasets.ragbench import is_ragbench_row, ragbench_record
from rageval_lc.datasets.rows import sample_from_row
from rageval_lc.schema import RagSample
from rageval_lc.text import normalize_key, plural

__all__ = ["SENTENCE_VERDICTS", "LabelledSample", "read_jsonl_rows", "read_labelled"]

#: The labels a user gives a response sentence (the plan's verdict kinds are
#: :data:`rageval_lc.scoring.plan.VERDICTS`).
SENTENCE_VERDICTS = ("supported", "not_found", "contradicted")
#: Row-level score names as people write them → the score they label.
_SCORE_NAMES = {
    "faithfulness": "adherence",
    "faithful": "adherence",
    "adherence": "adherence",
    "groundedness": "adherence",
    "context_relevance": "context_relevance",
    "relevance": "context_relevance",
    "context_utilization": "context_utilization",
    "utilization": "context_utilization",
    "completeness": "completeness",
}
_RAGBENCH_SCORES = {
    "relevance_score": "context_relevance",
    "utilization_score": "context_utilization",
    "completeness_score": "completeness",
}


@dataclass(frozen=True)
class LabelledSample:
    """A sample and its labels; None where the row says nothing (see the module docstring)."""

    sample: RagSample
    relevant: frozenset[str] | None = None
    utilized: frozenset[str] | None = None
    unsupported: frozenset[str] | None = None
    contradicted: frozenset[str] | None = None
    hallucinated: bool | None = None
    scores: dict[str, float] = field(default_factory=dict)

    @property
    def has_labels(self) -> bool:
        return bool(self.scores) or any(
            v is not None for v in (self.relevant, self.utilized, self.unsupported, self.hallucinated)
        )


def read_jsonl_rows(path: str | Path) -> list[dict]:
    """The JSON objects of a JSONL file, one per non-empty line (a byte-order mark is ignored).

    Raises:
        ValueError: On a line that is not a JSON object (naming the file and line).
    """
    rows = []
    for line_no, line in enumerate(Path(path).read_text(encoding="utf-8-sig").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{line_no}: not JSON: {exc.msg}") from exc
        if not isinstance(row, dict):
            raise ValueError(f"{path}:{line_no}: a row must be a JSON object. Got {type(row).__name__}.")
        rows.append(row)
    return rows


def read_labelled(data: object) -> list[LabelledSample]:
    """Every labelled row of ``data`` (a list of rows, samples or objects, a DataFrame, or the path of a JSONL
    file), in order.

    Raises:
        ValueError: If a row cannot be read or carries no label: the message names its index.
    """
    if isinstance(data, str | Path):
        data = read_jsonl_rows(data)
    raw = []
    for index, item in enumerate(dataset_items(data)):
        row = _flatten_langsmith(row_of(item)) if not isinstance(item, RagSample) else {"sample": item}
        raw.append((index, row))
    five_point = _five_point_scores(row for _, row in raw)
    out = []
    for index, row in raw:
        try:
            labelled = _labelled(row, five_point)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"Row {index} cannot be read: {exc}") from exc
        if not labelled.has_labels:
            msg = (
                f"Row {index} carries no label: give RAGBench's labels, sentence_verdicts, faithful, "
                "human_scores or LangSmith feedback."
            )
            raise ValueError(msg)
        sample = labelled.sample
        if sample.id is None:
            labelled = LabelledSample(**{**labelled.__dict__, "sample": sample.model_copy(update={"id": str(index)})})
        out.append(labelled)
    return out


def _flatten_langsmith(row: dict[str, Any]) -> dict[str, Any]:
    """A LangSmith export row (inputs / outputs / feedback) as one row with ``human_scores``."""
    if not isinstance(row.get("inputs"), Mapping) or not isinstance(row.get("outputs"), Mapping):
        return row
    flat = {**row["inputs"], **row["outputs"]}
    for name in ("output", "answer"):
        if name in flat and "response" not in flat and "actual_output" not in flat:
            flat["response"] = flat.pop(name)
    if "query" in flat and "question" not in flat:
        flat["question"] = flat.pop("query")
    scores = {str(f["key"]): f["score"] for f in row.get("feedback") or [] if f.get("score") is not None}
    flat["human_scores"] = {**scores, **(flat.get("human_scores") or {})}
    if "id" in row:
        flat.setdefault("id", row["id"])
    return flat


def _raw_scores(row: Mapping[str, Any]) -> dict[str, float]:
    given = row.get("human_scores") or row.get("scores") or {}
    if not isinstance(given, Mapping):
        raise TypeError(f"human_scores must map a metric to a score. Got {type(given).__name__}.")
    out = {}
    for name, value in given.items():
        target = _SCORE_NAMES.get(str(name).lower())
        if target is not None and value is not None:
            out[target] = float(value)
    return out


def _five_point_scores(rows: Any) -> set[str]:
    """The scores some row gives above 1: read as 1–5 in every row."""
    return {name for row in rows if "sample" not in row for name, v in _raw_scores(row).items() if v > 1}


def _labelled(row: dict[str, Any], five_point: set[str]) -> LabelledSample:
    if "sample" in row:  # a RagSample: its labels are the TRACe labels it carries
        sample = row["sample"]
        row = dict(sample.metadata.get("row") or {})
    elif is_ragbench_row(row):
        record = ragbench_record(row)
        sample, row = record.sample, {**row, **{k: v for k, v in record.released_scores.items()}}
    else:
        sample = sample_from_row(row)
        row = {**row, **(sample.metadata.get("row") or {})}
    keys = sample.sentences.response_keys
    relevant = utilized = unsupported = contradicted = None
    hallucinated: bool | None = None
    labels = sample.labels
    if labels is not None:
        if labels.all_relevant_sentence_keys or labels.relevance_explanation or labels.released:
            relevant = _key_set(labels.all_relevant_sentence_keys)
            utilized = _key_set(labels.all_utilized_sentence_keys)
        if labels.unsupported_response_sentence_keys is not None:
            unsupported = _key_set(labels.unsupported_response_sentence_keys)
        if labels.overall_supported is not None:
            hallucinated = not labels.overall_supported
    verdicts = row.get("sentence_verdicts")
    if verdicts is not None:
        by_key = _verdicts_by_key(verdicts, keys)
        unsupported = frozenset(k for k, v in by_key.items() if v != "supported")
        contradicted = frozenset(k for k, v in by_key.items() if v == "contradicted")
    scores = {}
    for name, value in _raw_scores(row).items():
        scores[name] = (value - 1.0) / 4.0 if name in five_point else value
        if not 0.0 <= scores[name] <= 1.0:
            raise ValueError(f"the {name} score {value} is outside 0–1 and 1–5.")
    for column, name in _RAGBENCH_SCORES.items():
        if row.get(column) is not None and name not in scores:
            scores[name] = _unit_score(column, row[column])
    for name in ("context_relevance", "context_utilization", "completeness"):
        value = row.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool) and name not in scores:
            scores[name] = _unit_score(name, value)
    if isinstance(row.get("faithful"), bool):
        hallucinated = not row["faithful"]
    elif "adherence" in scores:
        hallucinated = scores["adherence"] < 0.5
    elif unsupported is not None and hallucinated is None:
        hallucinated = bool(unsupported)
    scores.pop("adherence", None)
    return LabelledSample(sample, relevant, utilized, unsupported, contradicted, hallucinated, scores)


def _key_set(keys: Any) -> frozenset[str]:
    """The sentence keys a label lists, canonical; what is not key-shaped (RAGBench's ``null``, ``"well_known_fact"``)
    names no sentence and is left out."""
    return frozenset(k for k in map(normalize_key, keys) if k is not None)


def _unit_score(column: str, value: object) -> float:
    """A 0–1 score a row gives in its own column (RAGBench's, or ``context_relevance`` at the top level)."""
    score = float(value)  # type: ignore[arg-type]
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"{column} is {value}: scores in this column are 0–1 (put 1–5 scores under human_scores).")
    return score


def _verdicts_by_key(verdicts: object, keys: list[str]) -> dict[str, str]:
    if isinstance(verdicts, Mapping):
        pairs = [(normalize_key(str(k)), str(v)) for k, v in verdicts.items()]
        unknown = [k for k, _ in pairs if k not in keys]
        if unknown:
            raise ValueError(f"sentence_verdicts names sentences the response lacks: {unknown} (it has {keys}).")
        missing = [k for k in keys if k not in dict(pairs)]
        if missing:
            raise ValueError(f"sentence_verdicts gives no verdict for the response sentences {missing}.")
    elif isinstance(verdicts, list):
        if len(verdicts) != len(keys):
            given, sentences = plural(len(verdicts), "verdict"), plural(len(keys), "sentence")
            msg = f"sentence_verdicts gives {given} for a response of {sentences}."
            raise ValueError(msg)
        pairs = list(zip(keys, (str(v) for v in verdicts), strict=True))
    else:
        raise TypeError(f"sentence_verdicts must be a list or a mapping. Got {type(verdicts).__name__}.")
    bad = sorted({v for _, v in pairs if v not in SENTENCE_VERDICTS})
    if bad:
        raise ValueError(f"unknown sentence verdicts {bad}; use {', '.join(SENTENCE_VERDICTS)}.")
    return dict(pairs)
