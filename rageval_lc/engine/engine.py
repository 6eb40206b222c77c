"""The batch engine: score many samples with bounded concurrency, and never lose one.

:func:`evaluate` scores samples on worker threads (``concurrency`` at a time), through a
:class:`~rageval_lc.judges.resilient.ResilientJudge` (rate limit, per-call timeout, retries with backoff, disk
cache), with the judgements of each sample shared across its metrics. A sample that cannot be scored
becomes a result whose statuses are ``error`` with the reason; the run goes on. Threads, not an event
loop: it is safe to call from inside a running loop (a notebook, a web server), and :func:`aevaluate`
awaits it without blocking the loop.

Example:
    >>> from rageval_lc.schema import RagSample
    >>> samples = [RagSample(id=str(i), question="Q?", contexts=["A. B."], response="A.",
    ...                      labels={"all_relevant_sentence_keys": ["0a"], "unsupported_response_sentence_keys": []})
    ...            for i in range(3)]
    >>> run = evaluate(samples, "trace", judge="labels", concurrency=2)
    >>> [r.id for r in run.results], run.summary("adherence").mean
    (['0', '1', '2'], 1.0)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rageval_lc.datasets.inputs import read_samples
from rageval_lc.engine.batch import (
    RESILIENCE_OPTIONS,
    Unreadable,
    make_resilient,
    metric_specs,
    plan_escalation,
    prepared,
    resilient_judge,
    score_in_threads,
    scored_as_completed,
)
from rageval_lc.errors import MissingDependencyError
from rageval_lc.judges.base import Judge
from rageval_lc.reports.summary import ScoreSummary, row_outcome, summarize
from rageval_lc.scoring.registry import MetricSpec
from rageval_lc.scoring.sample import SampleResult

__all__ = [
    "ENGINES",
    "RESILIENCE_OPTIONS",
    "EvaluationRun",
    "Unreadable",
    "aevaluate",
    "evaluate",
    "make_resilient",
    "metric_specs",
    "prepared",
    "resilient_judge",
    "score_items",
    "scored_as_completed",
    "verdict_confidence",
]

T = TypeVar("T")

#: Where rows are scored: ``local`` (this process, or ``workers`` processes) or ``ray`` (a Ray cluster).
ENGINES: tuple[str, ...] = ("local", "ray")


def score_items(
    items: Iterable[tuple[T, Any]],
    specs: Sequence[MetricSpec],
    judge: Judge,
    *,
    concurrency: int = 1,
    workers: int = 1,
    engine: str = "local",
    engine_options: Mapping[str, Any] | None = None,
    first_chunk: int = 1,
    **options: Any,
) -> Iterator[tuple[T, SampleResult]]:
    """THE batch loop: score ``(tag, sample)`` items, yielding ``(tag, result)`` in completion order
    (in input order with ``workers`` > 1).

    The judge prepares each chunk of samples first (:func:`prepared`: 1 sample, then chunks doubling up to 256,
    so the first results come within seconds); each sample is scored with
    :func:`~rageval_lc.scoring.sample.score_sample` (options checked once). An :class:`Unreadable` item,
    or a sample that cannot be scored, becomes :meth:`SampleResult.failed` (every score ``error``): the run goes on.
    Items are read lazily; nothing is parsed here (callers parse each input once).

    Args:
        items: ``(tag, sample)`` pairs; the tag is the caller's (an index, a line number) and comes back
            with the result; the sample is a :class:`RagSample` or an :class:`Unreadable`.
        specs: the metrics, parsed once by the caller.
        judge: a judge (resolved: see :func:`~rageval_lc.judges.factory.resolve_judge`).
        concurrency: samples scored at once (threads; in each worker with ``workers`` > 1).
        workers: worker processes (:func:`~rageval_lc.engine.workers.score_in_processes`: every core for the
            offline judge); each runs this loop on the chunks it is sent. 1: this process.
        engine: ``local`` (this machine) or ``ray`` (a Ray cluster: :func:`~rageval_lc.engine.ray_engine.score_on_ray`,
            ``workers`` actors; results in input order).
        engine_options: the engine's own options (``ray``: ``address``, ``gpus_per_worker``).
        first_chunk: the first chunk the judge prepares (then doubling up to 256).
        **options: ``trace_mode``, ``relevance_normalizer``, ``scoring_mode``, ``embeddings``.

    Example:
        >>> from rageval_lc.judges.labels import LabelsJudge
        >>> from rageval_lc.schema import RagSample
        >>> from rageval_lc.scoring.registry import parse_metrics
        >>> good = RagSample(id="a", question="Q?", contexts=["A."], response="A.",
        ...                  labels={"all_relevant_sentence_keys": ["0a"]})
        >>> items = [(1, good), (2, Unreadable(ValueError("line 2 is not valid JSON"), id="b"))]
        >>> [(tag, r.id, r.results["context_relevance"].status)
        ...  for tag, r in score_items(items, parse_metrics("trace"), LabelsJudge())]
        [(1, 'a', 'ok'), (2, 'b', 'error')]
    """
    if engine not in ENGINES:
        msg = f"engine must be one of {', '.join(ENGINES)}. Got {engine!r}."
        raise ValueError(msg)
    if engine == "ray":
        from rageval_lc.engine.ray_engine import score_on_ray

        extra = dict(engine_options or {})
        yield from score_on_ray(items, specs, judge, workers=workers, concurrency=concurrency, options=options, **extra)
        return
    if workers != 1:
        from rageval_lc.engine.workers import score_in_processes

        yield from score_in_processes(items, specs, judge, workers=workers, concurrency=concurrency, **options)
        return
    yield from score_in_threads(items, specs, judge, concurrency=concurrency, first_chunk=first_chunk, **options)


@dataclass
class EvaluationRun:
    """What :func:`evaluate` returns: one result per sample, in input order, and the summaries.

    ``failed`` counts the samples with any ``error`` score (unreadable, or the judge failed);
    ``undetermined`` those without any ``ok`` score (see :func:`~rageval_lc.reports.summary.row_outcome`).
    """

    results: list[SampleResult] = field(default_factory=list)
    summaries: list[ScoreSummary] = field(default_factory=list)
    failed: int = 0
    undetermined: int = 0

    def summary(self, score: str) -> ScoreSummary:
        """The summary of one score (mean over ``ok`` rows; undetermined and error rows counted apart)."""
        for summary in self.summaries:
            if summary.name == score:
                return summary
        msg = f"No score {score!r} in this run. Scores: {', '.join(s.name for s in self.summaries)}."
        raise KeyError(msg)

    def rows(self) -> list[dict[str, Any]]:
        """The results as ``rageval evaluate`` writes them."""
        return [result.to_row() for result in self.results]

    def to_pandas(self, *, status: bool = False, reasons: bool = False, confidence: bool = False) -> Any:
        """The results as a pandas DataFrame, one row per sample in input order: ``id`` and each score (NaN where
        it is not ``ok``), then, on request, ``status.<score>`` and ``reason.<score>`` columns, and with
        ``confidence`` how sure the judge was (:func:`verdict_confidence`): ``confidence.adherence`` (the row
        verdict's probability of being right), ``confidence.least`` (its least sure verdict's) and
        ``decided_by_llm`` (the verdicts a cascade judge's LLM decided). NaN where the judge gave none.

        Raises:
            MissingDependencyError: If pandas is not installed.

        Example:
            >>> run = evaluate([{"question": "Q?", "contexts": ["A."], "response": "A.",
            ...                  "labels": {"all_relevant_sentence_keys": ["0a"]}}], "trace", judge="labels")
            >>> run.to_pandas(status=True)[["id", "context_relevance", "status.adherence"]].to_dict("records")
            [{'id': '0', 'context_relevance': 1.0, 'status.adherence': 'undetermined'}]
        """
        try:
            import pandas as pd
        except ImportError as exc:
            msg = "EvaluationRun.to_pandas needs pandas: `pip install pandas`."
            raise MissingDependencyError(msg) from exc
        names = list(dict.fromkeys(name for result in self.results for name in result.results))
        records = []
        for result in self.results:
            record: dict[str, Any] = {"id": result.id}
            record |= {name: _score(result, name) for name in names}
            if status:
                record |= {f"status.{name}": _field(result, name, "status") for name in names}
            if reasons:
                record |= {f"reason.{name}": _field(result, name, "reason") for name in names}
            if confidence:
                record |= verdict_confidence(result)
            records.append(record)
        columns = ["id", *names]
        columns += [f"status.{name}" for name in names] if status else []
        columns += [f"reason.{name}" for name in names] if reasons else []
        columns += list(CONFIDENCE_COLUMNS) if confidence else []
        return pd.DataFrame.from_records(records, columns=columns)


#: The columns :meth:`EvaluationRun.to_pandas` adds with ``confidence=True``.
CONFIDENCE_COLUMNS = ("confidence.adherence", "confidence.least", "decided_by_llm")
_CONFIDENCE_NOTES = ("sentence_confidence", "claim_confidence", "statement_confidence", "context_confidence")


def verdict_confidence(result: SampleResult) -> dict[str, float]:
    """How sure the judge was of a sample's verdicts, from its judgements' notes in ``result.details``: the
    adherence verdict's probability of being right, the least sure verdict's, and how many verdicts a cascade's
    LLM decided (NaN where the judge said nothing of it).

    Example:
        >>> notes = {"adherence_confidence": 0.8, "sentence_confidence": {"a": 0.9, "b": 0.6},
        ...          "decided_by": {"a": "offline", "b": "dspy:openai/gpt-4o-mini"},
        ...          "escalation": {"asked": 1, "status": "ok", "llm": "dspy:openai/gpt-4o-mini"}}
        >>> verdict_confidence(SampleResult(id="1", results={}, details={"trace": {"judge_notes": notes}}))
        {'confidence.adherence': 0.8, 'confidence.least': 0.6, 'decided_by_llm': 1.0}
    """
    adherence, confidences, llm = float("nan"), [], []
    for detail in result.details.values():
        notes = detail.get("judge_notes") if isinstance(detail, dict) else None
        if not isinstance(notes, dict):
            continue
        adherence = float(notes.get("adherence_confidence", adherence))
        for name in _CONFIDENCE_NOTES:
            values = notes.get(name) or []
            confidences += [float(v) for v in (values.values() if isinstance(values, dict) else values)]
        by, escalation = notes.get("decided_by"), notes.get("escalation") or {}
        if by is not None:
            judges = by.values() if isinstance(by, dict) else by
            llm.append(sum(1 for j in judges if j == escalation.get("llm")))
    least = min(confidences) if confidences else float("nan")
    llm_count = float(sum(llm)) if llm else float("nan")
    return {"confidence.adherence": adherence, "confidence.least": least, "decided_by_llm": llm_count}


def _score(result: SampleResult, name: str) -> float:
    metric = result.results.get(name)
    return float("nan") if metric is None or metric.score is None else float(metric.score)


def _field(result: SampleResult, name: str, field_name: str) -> str | None:
    metric = result.results.get(name)
    return None if metric is None else getattr(metric, field_name)


def evaluate(
    samples: Iterable[Any],
    metrics: str | Sequence[str] = ("trace",),
    *,
    judge: Any = None,
    concurrency: int = 4,
    workers: int = 1,
    engine: str = "local",
    engine_options: Mapping[str, Any] | None = None,
    progress: bool = False,
    on_result: Callable[[SampleResult], None] | None = None,
    **options: Any,
) -> EvaluationRun:
    """Score samples on metrics, concurrently and resiliently.

    Args:
        samples: the samples: :class:`RagSample` objects, rows in our, ragas' or deepeval's field names, ragas /
            deepeval sample objects, a pandas DataFrame or a ragas / deepeval dataset
            (:func:`~rageval_lc.datasets.inputs.read_samples`); all read before any is scored. A sample without
            an id is given its index.
        metrics: metric names or a comma-separated string.
        judge: a judge, a judge name (``"offline"``, ``"labels"``, ``"dspy:<model>"``), a ``dspy.LM`` or a
            LangChain chat model; None: the offline judge.
        concurrency: samples scored at once (threads; in each worker with ``workers`` > 1).
        workers: worker processes, each loading the judge's models once (every core for the offline judge;
            a rate limit is split between them); with ``engine="ray"``, Ray actors.
        engine: ``local`` or ``ray`` (see :func:`score_items`); ``engine_options`` its options.
        progress: show a progress bar on stderr.
        on_result: called with each result as it completes (in completion order; input order with workers).
        **options: the judge's resilience (:data:`RESILIENCE_OPTIONS`, see :func:`make_resilient`):
            ``requests_per_minute``, ``timeout_s``, ``retries`` (3), ``backoff_s`` (1.0), ``cache_dir``, and
            ``device`` (where an offline judge built here runs: ``auto`` = CUDA, else MPS, else the CPU;
            ``cpu``, ``cuda``, ``mps``); and the scoring's: ``scoring_mode``, ``trace_mode``,
            ``relevance_normalizer``, ``embeddings``.

    Raises:
        ValueError: If a row cannot be read (the message names its index and what it lacks), a metric is
            unknown, ``concurrency`` or ``workers`` < 1, the engine is unknown, or the
            device is unknown or not on this machine (before any sample is scored).
    """
    samples = read_samples(samples)  # every row read before anything is scored
    specs = metric_specs(metrics)
    resilient, options = resilient_judge(judge, options)
    plan_escalation(resilient, samples, specs, **options)  # a cascade's budget, chosen over every sample
    bar = _progress(progress, samples)
    by_index: dict[int, SampleResult] = {}
    try:
        scored = score_items(
            enumerate(samples),
            specs,
            resilient,
            concurrency=concurrency,
            workers=workers,
            engine=engine,
            engine_options=engine_options,
            **options,
        )
        for index, result in scored:
            by_index[index] = result
            if on_result is not None:
                on_result(result)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    results = [by_index[i] for i in sorted(by_index)]
    rows = [{"status": {name: m.status for name, m in r.results.items()}, "scores": r.scores()} for r in results]
    outcomes = [row_outcome(row["status"]) for row in rows]
    return EvaluationRun(
        results=results,
        summaries=summarize(rows),
        failed=outcomes.count("failed"),
        undetermined=outcomes.count("undetermined"),
    )


async def aevaluate(samples: Iterable[Any], metrics: str | Sequence[str] = ("trace",), **kwargs: Any) -> EvaluationRun:
    """:func:`evaluate` from async code: runs on a worker thread, so the event loop is never blocked."""
    samples = read_samples(samples)
    return await asyncio.to_thread(evaluate, samples, metrics, **kwargs)


def _progress(show: bool, samples: Iterable[Any]) -> Any:
    if not show:
        return None
    from tqdm import tqdm

    total = len(samples) if isinstance(samples, Sequence) else None
    return tqdm(total=total, unit="sample", desc="rageval")
