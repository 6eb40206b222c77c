"""RAGBench rows (Friel et al., arXiv:2407.11005; HF ``rungalileo/ragbench``) as samples plus released labels.

A row carries the question, documents and response, the sentence keys the annotator saw
(``documents_sentences``, ``response_sentences``), the annotator's TRACe labels, the released scores, and
other judges' predictions (``ragas_faithfulness``, ``gpt3_adherence``, …) for comparison.

Example:
    >>> row = {"id": "7", "question": "Q?", "documents": ["A. B."], "response": "A.",
    ...        "dataset_name": "toy_test", "generation_model_name": "m",
    ...        "documents_sentences": [[["0a", "A."], ["0b", "B."]]], "response_sentences": [["a", "A."]],
    ...        "all_relevant_sentence_keys": ["0a"], "all_utilized_sentence_keys": ["0a"],
    ...        "sentence_support_information": [], "unsupported_response_sentence_keys": [],
    ...        "relevance_score": 0.5, "utilization_score": 0.5, "completeness_score": 1.0, "adherence_score": True}
    >>> record = ragbench_record(row)
    >>> record.sample.id, record.dataset, record.released_scores["adherence"]
    ('toy_test:7:m', 'toy', 1.0)
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from rageval_lc._validation import check_mapping
from rageval_lc.errors import one_line_message
from rageval_lc.files import decode_line, raw_lines
from rageval_lc.schema import RagSample, TraceLabels
from rageval_lc.text import KeyedSentences

__all__ = [
    "OTHER_JUDGES",
    "OTHER_JUDGE_COLUMNS",
    "RagbenchRecord",
    "is_ragbench_row",
    "load_ragbench",
    "ragbench_record",
]

#: Released score columns → TRACe metric names.
RELEASED_SCORE_COLUMNS = {
    "relevance_score": "context_relevance",
    "utilization_score": "context_utilization",
    "completeness_score": "completeness",
    "adherence_score": "adherence",
}
#: Other judges' predictions shipped in the rows.
OTHER_JUDGE_COLUMNS = (
    "trulens_groundedness",
    "trulens_context_relevance",
    "ragas_faithfulness",
    "ragas_context_relevance",
    "gpt3_adherence",
    "gpt3_context_relevance",
    "gpt35_utilization",
)
#: The other judges' columns as TRACe predictions, in RAGBench's own evaluation convention.
OTHER_JUDGES: dict[str, dict[str, str]] = {
    "gpt35": {
        "context_relevance": "gpt3_context_relevance",
        "context_utilization": "gpt35_utilization",
        "adherence": "gpt3_adherence",
    },
    "ragas": {"context_relevance": "ragas_context_relevance", "adherence": "ragas_faithfulness"},
    "trulens": {"context_relevance": "trulens_context_relevance", "adherence": "trulens_groundedness"},
}
_LABEL_FIELDS = (
    "relevance_explanation",
    "all_relevant_sentence_keys",
    "overall_supported_explanation",
    "sentence_support_information",
    "all_utilized_sentence_keys",
    "unsupported_response_sentence_keys",
)
_REQUIRED = ("question", "documents", "response", "documents_sentences", "response_sentences")
_SPLITS = ("_train", "_validation", "_test")


class RagbenchRecord(BaseModel):
    """A RAGBench row: the sample (with its released labels attached) and what else the row carries."""

    model_config = ConfigDict(frozen=True)

    sample: RagSample
    labels: TraceLabels
    released_scores: dict[str, float]
    other_judges: dict[str, float | None]
    dataset: str


def is_ragbench_row(row: Mapping[str, Any]) -> bool:
    """True when a mapping has RAGBench's fields (documents plus their keyed sentences)."""
    return all(field in row for field in ("documents", "documents_sentences", "response_sentences"))


def ragbench_record(row: Mapping[str, Any]) -> RagbenchRecord:
    """Turn one RAGBench row into a :class:`RagbenchRecord`.

    The sample's id is ``"{dataset_name}:{id}:{generation_model_name}"`` (RAGBench ids repeat across
    generators and splits); the parts a row lacks are left out, so a row without ``dataset_name`` keeps its
    own ``id``. The annotator's ``adherence_score`` becomes the labels' ``overall_supported``.

    Raises:
        TypeError: If ``row`` is not a mapping.
        ValueError: If a required field is missing.
    """
    check_mapping(row, name="row", caller="ragbench_record")
    missing = [f for f in _REQUIRED if f not in row]
    if missing:
        msg = f"A RAGBench row needs the fields {list(_REQUIRED)}; this one lacks {missing}."
        raise ValueError(msg)
    label_data: dict[str, Any] = {f: row.get(f) for f in _LABEL_FIELDS}
    if isinstance(row.get("adherence_score"), bool):
        label_data["overall_supported"] = row["adherence_score"]
    labels = TraceLabels.from_mapping(label_data, released=True)
    dataset_name = str(row.get("dataset_name") or "ragbench")
    sample = RagSample(
        id=_sample_id(row),
        question=row["question"],
        contexts=row["documents"],
        response=row["response"],
        keyed_sentences=KeyedSentences.from_pairs(row["documents_sentences"], row["response_sentences"]),
        labels=labels,
        metadata={
            "source": "ragbench",
            "ragbench_id": row.get("id"),
            "dataset_name": dataset_name,
            "generation_model_name": row.get("generation_model_name"),
            "annotating_model_name": row.get("annotating_model_name"),
        },
    )
    released = {
        name: float(row[column]) for column, name in RELEASED_SCORE_COLUMNS.items() if row.get(column) is not None
    }
    others = {column: (None if row.get(column) is None else float(row[column])) for column in OTHER_JUDGE_COLUMNS}
    return RagbenchRecord(
        sample=sample,
        labels=labels,
        released_scores=released,
        other_judges=others,
        dataset=_subset(dataset_name),
    )


def _sample_id(row: Mapping[str, Any]) -> str | None:
    """``dataset:id:generator`` for RAGBench's own rows; the row's own id when it names no dataset."""
    if not row.get("dataset_name"):
        return None if row.get("id") is None else str(row["id"])
    parts = (row.get("dataset_name"), row.get("id"), row.get("generation_model_name"))
    return ":".join(str(part) for part in parts if part is not None)


def load_ragbench(path: str | Path) -> Iterator[RagbenchRecord]:
    """Yield the records of a RAGBench JSONL file (one row per line, UTF-8; a byte-order mark is ignored).

    Raises:
        ValueError: On a line that is not UTF-8, not JSON or not a RAGBench row, naming the file and line.
    """
    path = Path(path)
    for line_no, line in raw_lines(path):  # decoded one by one, a byte-order mark dropped
        if not line.strip():
            continue
        try:
            record = ragbench_record(json.loads(decode_line(line, line_no)))
        except (ValueError, TypeError) as exc:
            msg = f"{path}:{line_no}: not a valid RAGBench row: {one_line_message(exc)}"
            raise ValueError(msg) from exc
        yield record


def _subset(dataset_name: str) -> str:
    """``"covidqa_validation"`` → ``"covidqa"``: the sub-dataset, the group for agreement figures."""
    for suffix in _SPLITS:
        if dataset_name.endswith(suffix):
            return dataset_name[: -len(suffix)]
    return dataset_name
