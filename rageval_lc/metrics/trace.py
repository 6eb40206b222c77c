"""TRACe scores from sentence labels (definitions: docs/metrics/trace.md): pure maths, no model call.

Two modes:

* ``ragbench`` (default) reproduces RAGBench's released scores. With N document sentences and the
  relevant / utilized key lists R, U: relevance = len(R)/N, utilization = len(U)/N, completeness =
  |set(R) ∩ set(U)| / len(R) (1.0 when R is empty), adherence = 1.0 when no response sentence is
  unsupported (``unsupported_response_sentence_keys`` when present, otherwise ``fully_supported`` false).
* ``capstone`` follows the capstone's GPT-labelling formulas (docs/metrics/trace.md): relevance = min(1, len(R)/20),
  utilization = min(1, len(U)/len(R)), completeness = |R ∩ U| / |R|, adherence = every judged
  sentence fully supported.

Example (the visual guide's walkthrough, capstone mode):
    >>> keyed = KeyedSentences.from_texts(
    ...     ["ML is AI. It learns patterns from data. It needs instructions.",
    ...      "ML improves with experience. It adapts to new data. Rules are rigid."],
    ...     "ML learns from data. ML improves over time. It is the future.")
    >>> labels = TraceLabels.from_mapping({
    ...     "all_relevant_sentence_keys": ["0b", "0c", "1a", "1b"],
    ...     "all_utilized_sentence_keys": ["0b", "0c", "1a"],
    ...     "sentence_support_information": [
    ...         {"response_sentence_key": "a", "supporting_sentence_keys": ["0b", "0c"], "fully_supported": True},
    ...         {"response_sentence_key": "b", "supporting_sentence_keys": ["1a"], "fully_supported": True},
    ...         {"response_sentence_key": "c", "supporting_sentence_keys": [], "fully_supported": False}]})
    >>> s = trace_scores(labels, keyed, mode="capstone")
    >>> s.context_relevance, s.context_utilization, s.completeness, s.adherence
    (0.2, 0.75, 0.75, 0.0)
    >>> round(s.average, 3), round(s.rmse_aggregation, 3)
    (0.425, 0.333)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from rageval_lc._validation import check_choice, check_positive
from rageval_lc.metrics.aggregation import TRACE_METRIC_NAMES, rmse_aggregation
from rageval_lc.metrics.spec import Judgements, MetricSpec, Scored
from rageval_lc.schema import MetricResult, SentenceSupport, TraceLabels
from rageval_lc.text import KeyedSentences, is_claim, normalize_key, plural

__all__ = [
    "COMPANION_SCORES",
    "METRIC",
    "TRACE_METRICS",
    "TRACE_MODES",
    "TRACE_SCORE_NAMES",
    "TraceMode",
    "TraceScores",
    "completeness",
    "context_relevance",
    "context_utilization",
    "response_support",
    "score_trace",
    "trace_scores",
]

TraceMode = Literal["ragbench", "capstone"]
TRACE_MODES: tuple[str, ...] = get_args(TraceMode)
#: The four TRACe metrics, in the order of the RAGBench paper.
TRACE_METRICS: tuple[str, ...] = TRACE_METRIC_NAMES
#: Every score a TRACe evaluation reports.
TRACE_SCORE_NAMES: tuple[str, ...] = (*TRACE_METRICS, "average", "rmse_aggregation", "adherence_ratio")
#: Scores a judge may give beside a TRACe score, each with the score it belongs to: the offline judge's
#: calibrated ``adherence_probability``, given only where ``adherence`` is ``ok``. A row without one has the
#: status of the score it belongs to (``undetermined`` where that one is ``ok``: the judge gave none).
COMPANION_SCORES: dict[str, str] = {"adherence_probability": "adherence"}

_SentenceStatus = Literal["supported", "unsupported", "unknown"]


def context_relevance(
    relevant_keys: Sequence[str],
    num_document_sentences: int,
    *,
    mode: TraceMode = "ragbench",
    relevance_normalizer: float = 20.0,
) -> float | None:
    """Return the share of retrieved context that is relevant; None when undefined (no sentences).

    A raw released list may repeat keys; the ratio is capped at 1 (no released score exceeds it).

    Example:
        >>> context_relevance(["0a", "0c"], 8), context_relevance(["0a", "0c"], 8, mode="capstone")
        (0.25, 0.1)
    """
    if mode == "capstone":
        return min(1.0, len(relevant_keys) / relevance_normalizer)
    return min(1.0, len(relevant_keys) / num_document_sentences) if num_document_sentences else None


def context_utilization(
    utilized_keys: Sequence[str],
    relevant_keys: Sequence[str],
    num_document_sentences: int,
    *,
    mode: TraceMode = "ragbench",
) -> float | None:
    """Return the share of context the response used; None when undefined (no sentences).

    ``ragbench`` divides by all retrieved sentences, ``capstone`` by the relevant ones (0.0 when none);
    both cap at 1.

    Example:
        >>> context_utilization(["0a"], ["0a", "0c"], 8), context_utilization(["0a"], ["0a", "0c"], 8, mode="capstone")
        (0.125, 0.5)
    """
    if mode == "capstone":
        return min(1.0, len(utilized_keys) / len(relevant_keys)) if relevant_keys else 0.0
    return min(1.0, len(utilized_keys) / num_document_sentences) if num_document_sentences else None


def completeness(relevant_keys: Sequence[str], utilized_keys: Sequence[str], *, mode: TraceMode = "ragbench") -> float:
    """Return the share of relevant sentences that the response used.

    ``ragbench`` divides by the length of the relevant list as given (1.0 when it is empty);
    ``capstone`` by the number of distinct relevant keys (1.0 if nothing is relevant or used, else 0.0).

    Example:
        >>> completeness(["0a", "0b", "0c"], ["0b", "1a"])
        0.3333333333333333
    """
    overlap = len(set(relevant_keys) & set(utilized_keys))
    if mode == "capstone":
        distinct = set(relevant_keys)
        if not distinct:
            return 1.0 if not utilized_keys else 0.0
        return overlap / len(distinct)
    return overlap / len(relevant_keys) if relevant_keys else 1.0


#: What :meth:`TraceScores.to_dict` exports, in the order the RMSE aggregation reads
#: (:mod:`rageval_lc.metrics.aggregation`).
_EXPORTED = (
    "context_relevance",
    "context_utilization",
    "completeness",
    "adherence",
    "average",
    "rmse_aggregation",
    "overall_supported",
    "fully_supported_sentences",
    "partially_supported_sentences",
    "unsupported_sentences",
    "adherence_ratio",
    "mode",
)


class TraceScores(BaseModel):
    """The TRACe scores of one sample, with the counts and explanations behind them.

    A score is None when it cannot be determined; ``reasons`` then says why. ``average`` and
    ``rmse_aggregation`` need all four metrics.
    """

    model_config = ConfigDict(frozen=True)

    mode: TraceMode
    context_relevance: float | None
    context_utilization: float | None
    completeness: float | None
    adherence: float | None
    average: float | None
    rmse_aggregation: float | None
    adherence_ratio: float | None
    overall_supported: bool | None
    fully_supported_sentences: int
    partially_supported_sentences: int
    unsupported_sentences: int
    reasons: dict[str, str] = Field(default_factory=dict)
    details: dict[str, Any] = Field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON export the RMSE aggregation reads (:mod:`~rageval_lc.metrics.aggregation`), and more."""
        return {name: getattr(self, name) for name in _EXPORTED}

    def results(self) -> dict[str, MetricResult]:
        """Return one :class:`MetricResult` per score in :data:`TRACE_SCORE_NAMES`."""
        out = {}
        for name in TRACE_SCORE_NAMES:
            score = getattr(self, name)
            out[name] = MetricResult(
                name=name,
                score=score,
                status="ok" if score is not None else "undetermined",
                reason=self.reasons.get(name, ""),
            )
        return out


def trace_scores(
    labels: TraceLabels,
    sentences: KeyedSentences,
    *,
    mode: TraceMode = "ragbench",
    relevance_normalizer: float = 20.0,
) -> TraceScores:
    """Compute the TRACe scores of one sample from its sentence labels.

    Keys are checked against ``sentences``: unknown keys are dropped and reported in
    ``details["dropped_keys"]``. The exception is ``ragbench`` mode over released labels
    (``labels.released``), where the raw key lists define the scores, as they do RAGBench's.

    Args:
        labels: the sentence labels from a judge or a dataset.
        sentences: the sample's keyed sentences, which the labels refer to.
        mode: ``"ragbench"`` or ``"capstone"`` (see the module docstring).
        relevance_normalizer: capstone's relevance denominator (20 in the reference).

    Returns:
        TraceScores: every score in [0, 1] or None when undetermined, with reasons and counts.

    Raises:
        ValueError: If ``mode`` is unknown or ``relevance_normalizer`` is not > 0.
    """
    check_choice(mode, TRACE_MODES, name="mode", caller="trace_scores")
    check_positive(relevance_normalizer, name="relevance_normalizer", caller="trace_scores")
    clean, report = labels.cleaned(sentences)
    raw = labels.released and mode == "ragbench"
    relevant = labels.all_relevant_sentence_keys if raw else clean.all_relevant_sentence_keys
    utilized = labels.all_utilized_sentence_keys if raw else clean.all_utilized_sentence_keys
    n_docs = sentences.num_document_sentences

    statuses = _sentence_statuses(clean, sentences, mode)
    support = {entry.response_sentence_key: entry for entry in clean.sentence_support_information}
    unsupported_keys = [k for k, st in statuses.items() if st == "unsupported"]
    unknown_keys = [k for k, st in statuses.items() if st == "unknown"]
    supported_count = sum(st == "supported" for st in statuses.values())
    partial = sum(1 for k in unsupported_keys if k in support and _has_support_keys(support[k]))

    reasons: dict[str, str] = {}
    scores: dict[str, float | None] = {
        "context_relevance": context_relevance(relevant, n_docs, mode=mode, relevance_normalizer=relevance_normalizer),
        "context_utilization": context_utilization(utilized, relevant, n_docs, mode=mode),
        "completeness": completeness(relevant, utilized, mode=mode),
    }
    adherence, adherence_reason = _adherence(labels, clean, statuses, raw=raw, mode=mode, dropped=report.dropped)
    scores["adherence"] = adherence

    n_rel, n_used = len(relevant), len(utilized)
    if n_docs == 0 and mode == "ragbench":
        reasons["context_relevance"] = reasons["context_utilization"] = "The contexts contain no sentences."
    else:
        if mode == "capstone":
            relevance = f"{plural(n_rel, 'relevant sentence')} over the normalizer {relevance_normalizer:g}."
            utilization = f"{plural(n_used, 'utilized sentence')} over {plural(n_rel, 'relevant sentence')}."
        else:
            relevance = f"{plural(n_rel, 'relevant sentence')} over {plural(n_docs, 'document sentence')}."
            utilization = f"{plural(n_used, 'utilized sentence')} over {plural(n_docs, 'document sentence')}."
        reasons["context_relevance"] = _join(relevance, clean.relevance_explanation)
        reasons["context_utilization"] = utilization
    overlap = len(set(relevant) & set(utilized))
    reasons["completeness"] = (
        f"{overlap} of {plural(n_rel, 'relevant sentence')} used."
        if relevant
        else "No sentence is relevant, so nothing relevant was left out."
        if scores["completeness"] == 1.0
        else "No sentence is relevant but some were used."
    )
    reasons["adherence"] = _join(adherence_reason, clean.overall_supported_explanation)

    judged = len(statuses)
    if unknown_keys:
        ratio = None
        reasons["adherence_ratio"] = f"No support verdict for response sentences {', '.join(unknown_keys)}."
    elif judged == 0:
        ratio = None
        reasons["adherence_ratio"] = "The response has no judged sentences."
    else:
        ratio = supported_count / judged
        judged_text = plural(judged, "judged response sentence")
        reasons["adherence_ratio"] = f"{supported_count} of {judged_text} fully supported."

    four = [scores[m] for m in TRACE_METRICS]
    if all(v is not None for v in four):
        average: float | None = sum(four) / 4  # type: ignore[arg-type]
        spread: float | None = rmse_aggregation(four)  # type: ignore[arg-type]
        reasons["average"] = "Mean of the four TRACe metrics."
        reasons["rmse_aggregation"] = "Spread of the four TRACe metrics around their mean (0 = balanced)."
    else:
        missing = ", ".join(m for m in TRACE_METRICS if scores[m] is None)
        average = spread = None
        reasons["average"] = reasons["rmse_aggregation"] = f"Needs all four metrics; undetermined: {missing}."

    overall = (
        clean.overall_supported
        if clean.overall_supported is not None
        else (None if adherence is None else adherence == 1.0)
    )
    return TraceScores(
        mode=mode,
        **scores,
        average=average,
        rmse_aggregation=spread,
        adherence_ratio=ratio,
        overall_supported=overall,
        fully_supported_sentences=supported_count,
        partially_supported_sentences=partial,
        unsupported_sentences=len(unsupported_keys) - partial,
        reasons=reasons,
        details={
            "mode": mode,
            "raw_key_lists": raw,
            "num_document_sentences": n_docs,
            "num_response_sentences": len(sentences.response_keys),
            "relevant_keys": list(relevant),
            "utilized_keys": list(utilized),
            "unsupported_response_keys": unsupported_keys,
            "sentences_without_verdict": unknown_keys,
            "sentence_support": _sentence_details(clean, sentences, statuses),
            "dropped_keys": report.dropped,
            "normalized_keys": report.normalized,
            "duplicate_keys": report.duplicates,
        },
    )


def response_support(labels: TraceLabels, sentences: KeyedSentences) -> dict[str, bool | None]:
    """Whether each response sentence is fully supported (None: no verdict), under the ``ragbench`` rule.

    The unsupported list decides when present, else each sentence's ``fully_supported``. This is what
    sentence-level faithfulness counts: the TRACe labelling pass already verified every sentence.

    Example:
        >>> keyed = KeyedSentences.from_texts(["Paris is in France."], "Paris is in France. It has 9 moons.")
        >>> response_support(TraceLabels(unsupported_response_sentence_keys=["b."]), keyed)
        {'a': True, 'b': False}
    """
    clean, _ = labels.cleaned(sentences)
    statuses = _sentence_statuses(clean, sentences, "ragbench")
    return {key: None if status == "unknown" else status == "supported" for key, status in statuses.items()}


def _sentence_statuses(clean: TraceLabels, sentences: KeyedSentences, mode: TraceMode) -> dict[str, _SentenceStatus]:
    """Return the support status of each judged response sentence under the mode's rule.

    ``ragbench`` judges every response sentence: the unsupported list decides when present, else
    ``fully_supported`` (missing → unknown). ``capstone`` judges the sentences that have a support entry,
    as the reference's code does; a missing ``fully_supported`` is resolved by the unsupported list when
    there is one, else counts as not supported (the reference's ``get("fully_supported", False)``).
    """
    listed = clean.unsupported_response_sentence_keys
    support = {entry.response_sentence_key: entry for entry in clean.sentence_support_information}
    if mode == "capstone":
        statuses: dict[str, _SentenceStatus] = {}
        for key, entry in support.items():
            verdict = entry.fully_supported
            if verdict is None and listed is not None:
                verdict = key not in listed
            statuses[key] = "supported" if verdict else "unsupported"
        return statuses
    statuses = {}
    for key in sentences.response_keys:
        if listed is not None:
            statuses[key] = "unsupported" if key in listed else "supported"
        elif key not in support or support[key].fully_supported is None:
            statuses[key] = "unknown"
        else:
            statuses[key] = "supported" if support[key].fully_supported else "unsupported"
    return statuses


def _adherence(
    labels: TraceLabels,
    clean: TraceLabels,
    statuses: dict[str, _SentenceStatus],
    *,
    raw: bool,
    mode: TraceMode,
    dropped: dict[str, list[str]],
) -> tuple[float | None, str]:
    unsupported = [k for k, st in statuses.items() if st == "unsupported"]
    unknown = [k for k, st in statuses.items() if st == "unknown"]
    if raw and labels.unsupported_response_sentence_keys is not None:
        listed = labels.unsupported_response_sentence_keys
        if listed:
            return 0.0, f"Unsupported response sentences: {', '.join(listed)}.{_explain(clean, unsupported)}"
        return 1.0, "No response sentence is unsupported."
    if unsupported:
        return 0.0, f"Unsupported response sentences: {', '.join(unsupported)}.{_explain(clean, unsupported)}"
    if (
        mode == "ragbench"
        and clean.unsupported_response_sentence_keys == []
        and dropped.get("unsupported_response_sentence_keys")
    ):
        bad = ", ".join(dropped["unsupported_response_sentence_keys"])
        return None, f"The unsupported sentences listed do not exist in the response: {bad}."
    if unknown:
        return None, f"No support verdict for response sentences {', '.join(unknown)}."
    if not statuses:
        return 1.0, "The response has no sentences to check."
    return 1.0, "The response sentence is supported." if len(statuses) == 1 else (
        f"All {len(statuses)} response sentences are supported."
    )


def _explain(clean: TraceLabels, keys: list[str]) -> str:
    """The judge's explanations for the given response sentences, appended to a reason."""
    notes = {e.response_sentence_key: e.explanation for e in clean.sentence_support_information if e.explanation}
    return "".join(f" {k}: {notes[k]}" for k in keys if k in notes)


def _sentence_details(
    clean: TraceLabels, sentences: KeyedSentences, statuses: dict[str, _SentenceStatus]
) -> list[dict[str, Any]]:
    """Per response sentence: its text, the mode's verdict, supporting keys and the judge's explanation."""
    support = {entry.response_sentence_key: entry for entry in clean.sentence_support_information}
    out = []
    for key in sentences.response_keys:
        entry = support.get(key)
        out.append(
            {
                "key": key,
                "sentence": sentences.sentence(key),
                "status": statuses.get(key, "not judged"),
                "supporting_keys": entry.supporting_sentence_keys if entry else [],
                "explanation": entry.explanation if entry else "",
            }
        )
    return out


def _has_support_keys(entry: SentenceSupport) -> bool:
    return bool(entry.supporting_sentence_keys)


def _join(first: str, second: str) -> str:
    return f"{first} {second}".strip() if second else first


def claims_only(labels: TraceLabels, sentences: KeyedSentences) -> TraceLabels:
    """A judge's labels with every response sentence that makes no claim (:mod:`rageval_lc.text`: a heading,
    code, "I don't know.") taken out of the support verdicts: it is never unsupported, so adherence counts claims
    only, whichever judge labelled them. Released labels are kept as released.

    Example:
        >>> keyed = KeyedSentences.from_texts(["Paris is big."], "I don't know.")
        >>> labels = TraceLabels(relevance_explanation="", all_relevant_sentence_keys=[],
        ...     overall_supported_explanation="", overall_supported=False, sentence_support_information=[
        ...     {"response_sentence_key": "a", "explanation": "", "supporting_sentence_keys": [],
        ...      "fully_supported": False}], all_utilized_sentence_keys=[], unsupported_response_sentence_keys=["a"])
        >>> claims_only(labels, keyed).unsupported_response_sentence_keys
        []
    """
    if labels.released:
        return labels
    free = {key for key, text in sentences.response if not is_claim(text)}
    if not free:
        return labels
    support = [
        entry.model_copy(update={"fully_supported": True})
        if normalize_key(entry.response_sentence_key) in free
        else entry
        for entry in labels.sentence_support_information
    ]
    unsupported = labels.unsupported_response_sentence_keys
    if unsupported is not None:
        unsupported = [key for key in unsupported if normalize_key(key) not in free]
    claims_unsupported = bool(unsupported) or any(e.fully_supported is False for e in support)
    return labels.model_copy(
        update={
            "sentence_support_information": support,
            "unsupported_response_sentence_keys": unsupported,
            "overall_supported": labels.overall_supported or not claims_unsupported,
        }
    )


def score_trace(ctx: Judgements) -> Scored:
    """The TRACe scores of a sample from its ``trace`` verdict (the labelling pass), in the options' mode; the
    judge's calibrated adherence probability beside them when it gives one."""
    judgement = ctx.trace()
    options = ctx.options
    details: dict[str, Any] = {
        "judge": ctx.judge.name,
        "scoring_mode": ctx.mode,
        "judgements": ctx.consumed("trace"),
        "usage": ctx.usage_of("trace").to_dict(),
        "attempts": judgement.attempts,
    }
    if judgement.notes:
        details["judge_notes"] = judgement.notes
    if not judgement.ok:
        status = "error" if judgement.status == "error" else "undetermined"
        results = {name: MetricResult(name=name, status=status, reason=judgement.reason) for name in TRACE_SCORE_NAMES}
        return results, {**details, "raw_output": judgement.raw}
    scores = trace_scores(
        claims_only(judgement.value, ctx.sample.sentences),
        ctx.sample.sentences,
        mode=options.trace_mode,
        relevance_normalizer=options.relevance_normalizer,
    )
    results = scores.results()
    probability = judgement.notes.get("adherence_probability")
    if probability is not None:
        results["adherence_probability"] = MetricResult(
            name="adherence_probability",
            score=probability,
            reason="The judge's calibrated probability that every response sentence is supported.",
        )
    details.update(
        scores.details,
        overall_supported=scores.overall_supported,
        fully_supported_sentences=scores.fully_supported_sentences,
        partially_supported_sentences=scores.partially_supported_sentences,
        unsupported_sentences=scores.unsupported_sentences,
    )
    return results, details


METRIC = MetricSpec(
    "trace",
    TRACE_SCORE_NAMES,
    "TRACe (RAGBench): relevance, utilization, completeness, adherence from one labelling pass.",
    score_trace,
    requires=("question",),
    needs_contexts=True,
    answer_scores=tuple(name for name in TRACE_SCORE_NAMES if name != "context_relevance"),
    headline=TRACE_METRICS,
    verdicts=("trace",),
    lower_is_better=("rmse_aggregation",),
)
