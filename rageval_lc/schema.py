"""The data model: a RAG sample, the TRACe labels a judge returns, and a metric result.

Example:
    >>> sample = RagSample(question="Where is Paris?", contexts=["Paris is in France."],
    ...                    response="Paris is in France.", id="q1")
    >>> sample.sentences.document_keys, sample.sentences.response_keys
    (('0a',), ('a',))
    >>> MetricResult(name="adherence", score=1.0).status
    'ok'
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from rageval_lc._validation import check_mapping, check_str, describe
from rageval_lc.text import SPECIAL_SUPPORT_KEYS, KeyedSentences, normalize_key, plural

__all__ = ["KeyReport", "MetricResult", "RagSample", "SentenceSupport", "Status", "TraceLabels"]

Status = Literal["ok", "undetermined", "error"]


def _context_text(item: object, index: int) -> tuple[str, dict[str, Any]]:
    """Return (text, metadata) of one context: a str, a LangChain-style document, or such a mapping."""
    if isinstance(item, str):
        return item, {}
    content = getattr(item, "page_content", None)
    if isinstance(content, str):
        metadata = getattr(item, "metadata", None)
        return content, dict(metadata) if isinstance(metadata, Mapping) else {}
    if isinstance(item, Mapping):
        for field in ("page_content", "text", "content"):
            if isinstance(item.get(field), str):
                metadata = item.get("metadata")
                return item[field], dict(metadata) if isinstance(metadata, Mapping) else {}
    msg = (
        f"The 'contexts' field of RagSample must hold strings or documents (objects with a 'page_content' str). "
        f"Item {index} is {type(item).__name__} ({describe(item)})."
    )
    raise TypeError(msg)


class RagSample(BaseModel):
    """One RAG interaction to score.

    Attributes:
        question: the user's question (non-empty).
        contexts: the retrieved passages, in rank order. Strings, LangChain ``Document``s or mappings
            with ``page_content``/``text`` are accepted; their text is kept here and their metadata in
            ``context_metadata``.
        response: the generated answer (may be empty: an empty answer is something to score).
        reference: an optional ground-truth answer.
        id: an optional identifier, carried into every result.
        metadata: free-form data carried along (dataset name, generator model, …).
        keyed_sentences: pre-keyed sentences (as RAGBench ships them); when absent the contexts and the
            response are split with :func:`rageval_lc.text.split_sentences`.
        labels: TRACe labels shipped with the sample (for example RAGBench's released annotations),
            read by the ``labels`` judge.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    question: str
    contexts: list[str]
    response: str
    reference: str | None = None
    id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    context_metadata: list[dict[str, Any]] = Field(default_factory=list)
    keyed_sentences: KeyedSentences | None = None
    labels: TraceLabels | None = None

    _sentences: KeyedSentences | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        data = dict(data)
        for field in ("question", "contexts", "response"):
            if field not in data or data[field] is None:
                msg = f"RagSample requires the {field!r} field. Got {'None' if field in data else 'nothing'}."
                raise ValueError(msg)
        check_str(data["question"], name="question", caller="RagSample", allow_empty=False)
        check_str(data["response"], name="response", caller="RagSample")
        if data.get("reference") is not None:
            check_str(data["reference"], name="reference", caller="RagSample")
        contexts = data["contexts"]
        if isinstance(contexts, (str, bytes)) or not isinstance(contexts, Sequence):
            msg = (
                "The 'contexts' field of RagSample must be a list of strings or documents. "
                f"Got {type(contexts).__name__} ({describe(contexts)}) instead."
            )
            raise TypeError(msg)
        pairs = [_context_text(item, i) for i, item in enumerate(contexts)]
        data["contexts"] = [text for text, _ in pairs]
        if "context_metadata" not in data:
            data["context_metadata"] = [meta for _, meta in pairs]
        if data.get("id") is not None and not isinstance(data["id"], str):
            data["id"] = str(data["id"])
        if data.get("labels") is not None and not isinstance(data["labels"], TraceLabels):
            data["labels"] = TraceLabels.from_mapping(data["labels"])
        return data

    @model_validator(mode="after")
    def _check_keyed_sentences(self) -> RagSample:
        if self.keyed_sentences is not None and len(self.keyed_sentences.documents) != len(self.contexts):
            msg = (
                f"The 'keyed_sentences' of RagSample must have one entry per context: "
                f"got {len(self.keyed_sentences.documents)} for {plural(len(self.contexts), 'context')}."
            )
            raise ValueError(msg)
        return self

    @property
    def has_contexts(self) -> bool:
        """True when a retrieved context is not blank (the context metrics are undetermined otherwise)."""
        return any(context.strip() for context in self.contexts)

    @property
    def sentences(self) -> KeyedSentences:
        """The keyed sentences: ``keyed_sentences`` when given, else split once and cached."""
        if self.keyed_sentences is not None:
            return self.keyed_sentences
        if self._sentences is None:
            self._sentences = KeyedSentences.from_texts(self.contexts, self.response)
        return self._sentences


def _as_key_list(value: Any) -> list[str]:
    """Coerce a judge's key list: None → [], "0a, 0b" → ["0a", "0b"], non-strings → str."""
    if value is None:
        return []
    if isinstance(value, str):
        return [part for part in re.split(r"[,\s]+", value) if part]
    if isinstance(value, Sequence):
        return [item if isinstance(item, str) else str(item) for item in value]
    msg = f"A list of sentence keys was expected. Got {type(value).__name__} ({describe(value)})."
    raise TypeError(msg)


def _as_optional_key_list(value: Any) -> list[str] | None:
    """None stays None (the field is absent); anything else as :func:`_as_key_list`."""
    return None if value is None else _as_key_list(value)


def _as_text(value: Any) -> str:
    """A judge's explanation: None → "", anything else as a string."""
    return "" if value is None else str(value)


def _as_str(value: Any) -> str:
    """A key given as a number (``1``) → ``"1"``; strings kept as they are."""
    return value if isinstance(value, str) else str(value)


class SentenceSupport(BaseModel):
    """The support verdict for one response sentence (one item of ``sentence_support_information``)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    response_sentence_key: str
    explanation: str = ""
    supporting_sentence_keys: list[str] = Field(default_factory=list)
    fully_supported: bool | None = None

    _keys = field_validator("supporting_sentence_keys", mode="before")(_as_key_list)
    _text = field_validator("explanation", mode="before")(_as_text)
    _key = field_validator("response_sentence_key", mode="before")(_as_str)


class KeyReport(BaseModel):
    """What cleaning did to a judge's keys: per label field, the raw keys dropped as unknown."""

    model_config = ConfigDict(frozen=True)

    dropped: dict[str, list[str]] = Field(default_factory=dict)
    normalized: int = 0
    duplicates: int = 0

    @property
    def clean(self) -> bool:
        """True when no key was dropped."""
        return not self.dropped


class TraceLabels(BaseModel):
    """The TRACe sentence labels, field names as in the GPT labelling output (docs/metrics/trace.md).

    Build from a judge's or a dataset's mapping with :meth:`from_mapping`, which is tolerant of messy
    values (null lists, comma-separated strings); keys are checked against a sample with :meth:`cleaned`.

    Attributes:
        released: True for labels released with a dataset (RAGBench), whose raw key lists define the
            released scores in ``ragbench`` mode; False for a judge's labels, which are always cleaned.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    relevance_explanation: str = ""
    all_relevant_sentence_keys: list[str] = Field(default_factory=list)
    overall_supported_explanation: str = ""
    overall_supported: bool | None = None
    sentence_support_information: list[SentenceSupport] = Field(default_factory=list)
    all_utilized_sentence_keys: list[str] = Field(default_factory=list)
    unsupported_response_sentence_keys: list[str] | None = None
    released: bool = False

    _keys = field_validator("all_relevant_sentence_keys", "all_utilized_sentence_keys", mode="before")(_as_key_list)
    _optional_keys = field_validator("unsupported_response_sentence_keys", mode="before")(_as_optional_key_list)
    _text = field_validator("relevance_explanation", "overall_supported_explanation", mode="before")(_as_text)

    @field_validator("sentence_support_information", mode="before")
    @classmethod
    def _support(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, (Mapping, str, bytes)) or not isinstance(value, Sequence):
            msg = (
                "The 'sentence_support_information' field of TraceLabels must be a list of objects. "
                f"Got {type(value).__name__} ({describe(value)}) instead."
            )
            raise TypeError(msg)
        return value

    @classmethod
    def from_mapping(cls, data: object, *, released: bool = False) -> TraceLabels:
        """Validate a mapping (a parsed JSON object) into labels.

        Raises:
            TypeError: If ``data`` is not a mapping or a field has the wrong type.
        """
        if isinstance(data, TraceLabels):
            return data
        mapping = dict(check_mapping(data, name="labels", caller="TraceLabels.from_mapping"))
        if released:
            mapping["released"] = True
        return cls.model_validate(mapping)

    def cleaned(self, sentences: KeyedSentences) -> tuple[TraceLabels, KeyReport]:
        """Return labels whose keys all exist in ``sentences``, and a report of what was dropped.

        Keys are normalised (``"a."`` → ``"a"``), de-duplicated in order, and checked against the
        inventory: document keys for relevant/utilized/supporting keys, response keys for the rest.
        Support entries for an unknown response sentence are dropped; special support values
        (``well_known_fact``, …) are kept.

        Example:
            >>> keyed = KeyedSentences.from_texts(["A cat sat. It slept."], "The cat slept.")
            >>> labels = TraceLabels.from_mapping({"all_relevant_sentence_keys": ["0a.", "0B", "0z"]})
            >>> clean, report = labels.cleaned(keyed)
            >>> clean.all_relevant_sentence_keys, report.dropped
            (['0a', '0b'], {'all_relevant_sentence_keys': ['0z']})
        """
        dropped: dict[str, list[str]] = {}
        stats = {"normalized": 0, "duplicates": 0}
        documents = set(sentences.document_keys)
        responses = set(sentences.response_keys)

        def clean(raw_keys: Sequence[str], allowed: set[str], field: str, special: bool = False) -> list[str]:
            out: list[str] = []
            for raw in raw_keys:
                if special and raw.strip().lower() in SPECIAL_SUPPORT_KEYS:
                    key: str | None = raw.strip().lower()
                else:
                    key = normalize_key(raw)
                    if key is None or key not in allowed:
                        dropped.setdefault(field, []).append(raw)
                        continue
                if key != raw:
                    stats["normalized"] += 1
                if key in out:
                    stats["duplicates"] += 1
                    continue
                out.append(key)
            return out

        support: list[SentenceSupport] = []
        seen: set[str] = set()
        for entry in self.sentence_support_information:
            key = normalize_key(entry.response_sentence_key)
            if key is None or key not in responses:
                dropped.setdefault("sentence_support_information", []).append(entry.response_sentence_key)
                continue
            if key in seen:
                stats["duplicates"] += 1
                continue
            seen.add(key)
            if key != entry.response_sentence_key:
                stats["normalized"] += 1
            keys = clean(entry.supporting_sentence_keys, documents, "supporting_sentence_keys", special=True)
            support.append(entry.model_copy(update={"response_sentence_key": key, "supporting_sentence_keys": keys}))

        unsupported = self.unsupported_response_sentence_keys
        labels = self.model_copy(
            update={
                "all_relevant_sentence_keys": clean(
                    self.all_relevant_sentence_keys, documents, "all_relevant_sentence_keys"
                ),
                "all_utilized_sentence_keys": clean(
                    self.all_utilized_sentence_keys, documents, "all_utilized_sentence_keys"
                ),
                "sentence_support_information": support,
                "unsupported_response_sentence_keys": (
                    None if unsupported is None else clean(unsupported, responses, "unsupported_response_sentence_keys")
                ),
            }
        )
        return labels, KeyReport(dropped=dropped, **stats)


class MetricResult(BaseModel):
    """One metric's outcome for one sample.

    ``score`` is a float in [0, 1] when ``status`` is ``ok`` and None otherwise; ``reason`` says why
    (the judge's explanation, or why the score is undetermined); ``details`` holds labels and verdicts.

    Example:
        >>> MetricResult(name="adherence", status="undetermined", reason="no verdict for sentence b").score is None
        True
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    score: float | None = None
    status: Status = "ok"
    reason: str = ""
    details: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> MetricResult:
        if self.status == "ok":
            if self.score is None or not math.isfinite(self.score) or not 0.0 <= self.score <= 1.0:
                msg = f"An 'ok' MetricResult needs a score in [0, 1]. Got {self.score!r} for {self.name!r}."
                raise ValueError(msg)
        elif self.score is not None:
            msg = f"A {self.status!r} MetricResult carries no score. Got {self.score!r} for {self.name!r}."
            raise ValueError(msg)
        return self

    @property
    def comment(self) -> str:
        """The reason as integrations show it: the reason when ``ok``, else ``"<status>: <reason>"``.

        Example:
            >>> MetricResult(name="context_recall", status="undetermined", reason="No reference.").comment
            'undetermined: No reference.'
        """
        return self.reason if self.status == "ok" else f"{self.status}: {self.reason}"

    def feedback(self, key: str | None = None) -> dict[str, Any]:
        """LangSmith's feedback shape: ``{"key", "score", "comment"}`` (``key`` defaults to the score's name).

        Example:
            >>> MetricResult(name="adherence", score=1.0, reason="All supported.").feedback("rageval_adherence")
            {'key': 'rageval_adherence', 'score': 1.0, 'comment': 'All supported.'}
        """
        return {"key": self.name if key is None else key, "score": self.score, "comment": self.comment}


RagSample.model_rebuild()
