"""How a judgement's inputs are written into a prompt and how a model's answer is read back — no DSPy import.

The built-in judgements' declarations (:mod:`rageval_lc.judges.declarations`) are made of these pieces: the
``render_*`` functions write texts the way the Signatures expect them, the ``read_*`` functions turn a
prediction's fields into verdicts (noting what they dropped or clamped, raising ``ValueError`` on values far
off their scale).

Example:
    >>> print(render_numbered(["Paris is in France.", "It rains."]))
    1. Paris is in France.
    2. It rains.
    >>> clamp(104.0, 0.0, 100.0), read_label(" correct ", "same").label
    ((100.0, True), 'CORRECT')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rageval_lc.judges.checks import trace_problem
from rageval_lc.schema import RagSample, TraceLabels
from rageval_lc.text import KeyedSentences
from rageval_lc.verdicts import AnswerLabel, CriteriaDefinition, FactualAccuracyVerdict, StatementVerdict

__all__ = [
    "clamp",
    "clean_strings",
    "criteria_inputs",
    "labels_from_prediction",
    "numbered",
    "read_geval",
    "read_label",
    "read_questions",
    "read_statements",
    "read_trace",
    "render_documents",
    "render_numbered",
    "render_response",
    "trace_inputs",
]


def render_documents(sentences: KeyedSentences) -> str:
    """The documents as keyed sentences, one per line, under a header per document."""
    blocks = []
    for i, doc in enumerate(sentences.documents):
        lines = [f"Document {i}:"] + [f"{key}. {text}" for key, text in doc]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def render_response(sentences: KeyedSentences) -> str:
    """The response as keyed sentences, one per line."""
    return "\n".join(f"{key}. {text}" for key, text in sentences.response)


def render_numbered(items: Sequence[str], *, label: str = "") -> str:
    """Items numbered from 1 (``[1] ...`` blocks for contexts, ``1. ...`` lines for claims)."""
    if label:
        return "\n\n".join(f"[{label} {i}] {text}" for i, text in enumerate(items, start=1))
    return "\n".join(f"{i}. {text}" for i, text in enumerate(items, start=1))


def trace_inputs(sample: RagSample) -> dict[str, str]:
    """The TRACe labelling Signature's inputs for a sample: the question, keyed documents and response."""
    return {
        "question": sample.question,
        "documents": render_documents(sample.sentences),
        "response": render_response(sample.sentences),
    }


def criteria_inputs(definition: CriteriaDefinition, sample: RagSample) -> dict[str, str]:
    """A criteria Signature's inputs for a sample: the fields the definition uses, the contexts numbered."""
    values = {
        "question": sample.question,
        "contexts": render_numbered(sample.contexts, label="Context"),
        "response": sample.response,
        "reference": sample.reference or "",
    }
    return {name: values[name] for name in definition.uses}


def labels_from_prediction(prediction: Any) -> TraceLabels:
    """The TRACe labels in a prediction of the TRACe labelling Signature."""
    support = [
        item.model_dump() if hasattr(item, "model_dump") else dict(item)
        for item in prediction.sentence_support_information
    ]
    return TraceLabels.from_mapping(
        {
            "relevance_explanation": prediction.relevance_explanation,
            "all_relevant_sentence_keys": prediction.all_relevant_sentence_keys,
            "overall_supported_explanation": prediction.overall_supported_explanation,
            "overall_supported": prediction.overall_supported,
            "sentence_support_information": support,
            "all_utilized_sentence_keys": prediction.all_utilized_sentence_keys,
        }
    )


def read_trace(prediction: Any, sentences: KeyedSentences, notes: dict[str, Any]) -> tuple[TraceLabels, str | None]:
    """TRACe labels from a prediction, and the problems that make them unusable (unknown keys, missing verdicts)."""
    labels = labels_from_prediction(prediction)
    return labels, trace_problem(labels, sentences, notes)


def read_statements(items: Any, n_contexts: int, notes: dict[str, Any]) -> list[StatementVerdict]:
    """Statement verdicts; a supporting-context number outside 1..n is noted and dropped."""
    verdicts = []
    for item in items or []:
        text = (item.statement or "").strip()
        if not text:
            continue
        index = item.supporting_context
        if index is not None and not 1 <= index <= n_contexts:
            notes.setdefault("unknown_context_numbers", []).append(index)
            index = None
        verdicts.append(
            StatementVerdict(
                statement=text,
                attributed=bool(item.attributed),
                context_index=None if index is None else index - 1,
                reason=item.reason or "",
            )
        )
    return verdicts


def read_geval(prediction: Any, notes: dict[str, Any], *, overall: str = "") -> FactualAccuracyVerdict:
    """GEval's criteria from a prediction: overshoots clamped (noted), values far off the scale invalid."""
    values = {}
    for criterion in ("correctness", "completeness", "consistency"):
        raw = float(getattr(prediction, criterion))
        values[criterion], clamped = clamp(raw, 0.0, 100.0)
        if clamped:
            notes.setdefault("clamped", {})[criterion] = raw
    return FactualAccuracyVerdict(
        **values,
        correctness_reason=getattr(prediction, "correctness_reasoning", "") or "",
        completeness_reason=getattr(prediction, "completeness_reasoning", "") or "",
        consistency_reason=getattr(prediction, "consistency_reasoning", "") or "",
        overall_reason=overall,
    )


def read_label(classification: Any, reason: Any) -> AnswerLabel:
    return AnswerLabel(label=str(classification).strip().upper(), reason=reason or "")  # type: ignore[arg-type]


def read_questions(items: Any, n: int, notes: dict[str, Any]) -> list[str]:
    questions = clean_strings(items)
    if len(questions) > n:
        notes["extra_questions_dropped"] = len(questions) - n
    return questions[:n]


def clean_strings(items: Any) -> list[str]:
    out: list[str] = []
    for item in items or []:
        text = str(item).strip()
        if text and text not in out:
            out.append(text)
    return out


def numbered(items: Any, field: str, count: int) -> tuple[dict[int, Any], dict[str, Any]]:
    """Index items by their 1-based ``field`` (0-based keys); note out-of-range and repeated numbers."""
    notes: dict[str, Any] = {}
    by_number: dict[int, Any] = {}
    for item in items or []:
        number = getattr(item, field, None)
        if not isinstance(number, int) or not 1 <= number <= count:
            notes.setdefault("unknown_numbers", []).append(number)
            continue
        if number - 1 in by_number:
            notes.setdefault("repeated_numbers", []).append(number)
            continue
        by_number[number - 1] = item
    return by_number, notes


def clamp(value: float, low: float, high: float) -> tuple[float, bool]:
    """Clamp a value overshooting its scale by at most 10 %; beyond that it is invalid (ValueError)."""
    value = float(value)
    slack = 0.1 * (high - low)
    if not math.isfinite(value) or not low - slack <= value <= high + slack:
        msg = f"{value!r} is outside the scale {low:g}-{high:g}"
        raise ValueError(msg)
    clamped = min(high, max(low, value))
    return clamped, clamped != value
