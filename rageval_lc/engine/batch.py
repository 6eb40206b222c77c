"""What every engine shares: the batch loop in one process, the inputs it takes and the judge it scores with.

:func:`score_in_threads` scores ``(tag, sample)`` items here, on ``concurrency`` threads; it is what
:func:`~rageval_lc.engine.engine.score_items` runs in-process, and what each worker process
(:mod:`~rageval_lc.engine.workers`) and each Ray actor (:mod:`~rageval_lc.engine.ray_engine`) runs on the chunks it
is sent. The engine chooses among them; none of them imports the engine.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from rageval_lc.judges.base import Judge
from rageval_lc.schema import RagSample
from rageval_lc.scoring.judgements import ScoringOptions
from rageval_lc.scoring.registry import MetricSpec, parse_metrics
from rageval_lc.scoring.sample import SampleResult, score_sample, scoring_options

__all__ = [
    "RESILIENCE_OPTIONS",
    "Unreadable",
    "make_resilient",
    "metric_specs",
    "plan_escalation",
    "prepared",
    "resilient_judge",
    "score_in_threads",
    "scored_as_completed",
]

T = TypeVar("T")
R = TypeVar("R")


def scored_as_completed(items: Iterable[T], score: Callable[[T], R], *, concurrency: int = 1) -> Iterator[tuple[T, R]]:
    """Yield ``(item, score(item))`` as each finishes, at most ``concurrency`` at a time.

    Items are read lazily (a bounded window is in flight), so a huge input is never held whole.
    ``score`` must not raise (wrap failures into results); concurrency 1 runs in the caller's thread.
    """
    if concurrency < 1:
        msg = f"concurrency must be >= 1. Got {concurrency}."
        raise ValueError(msg)
    if concurrency == 1:
        for item in items:
            yield item, score(item)
        return
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="rageval-row") as pool:
        pending: dict[Future[R], T] = {}
        for item in items:
            pending[pool.submit(score, item)] = item
            if len(pending) >= 2 * concurrency:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield pending.pop(future), future.result()
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield pending.pop(future), future.result()


def prepared(
    items: Iterable[T], judge: Judge, sample_of: Callable[[T], Any], *, chunk: int = 256, first: int = 1
) -> Iterator[T]:
    """Yield ``items``, first letting the judge prepare each chunk (``judge.prepare(samples)``: the local
    judge encodes a chunk's texts in one batched pass). Preparation failures are ignored.

    The first chunk holds ``first`` items and each next one twice as many, up to ``chunk``: the first rows are
    scored (and written) within seconds whatever the input's size (the offline judge: ~9 s on a 2-core machine,
    most of it loading the models; a first chunk of 8 took ~15 s), and a long run still prepares full chunks.

    Example:
        >>> from rageval_lc.judges.labels import LabelsJudge
        >>> sizes = []
        >>> class Recording(LabelsJudge):
        ...     def prepare(self, samples):
        ...         sizes.append(len(samples))
        >>> items = [RagSample(question="Q?", contexts=["A."], response="A.") for _ in range(100)]
        >>> len(list(prepared(items, Recording(), lambda s: s, chunk=32))), sizes
        (100, [1, 2, 4, 8, 16, 32, 32, 5])
    """
    buffer: list[T] = []
    size = max(1, min(first, chunk))

    def flush() -> Iterator[T]:
        samples = [s for s in (sample_of(item) for item in buffer) if isinstance(s, RagSample)]
        try:
            if samples:
                judge.prepare(samples)
        except Exception:
            pass
        yield from buffer
        buffer.clear()

    for item in items:
        buffer.append(item)
        if len(buffer) >= size:
            yield from flush()
            size = min(2 * size, chunk)
    yield from flush()


def metric_specs(metrics: str | Iterable[str] | Sequence[MetricSpec]) -> list[MetricSpec]:
    """The specs of ``metrics``: parsed from names (:func:`~rageval_lc.scoring.registry.parse_metrics`),
    or passed through when already parsed, so that a run parses its metrics once.

    Example:
        >>> specs = metric_specs("trace, faithfulness")
        >>> metric_specs(specs) == specs, [spec.name for spec in specs]
        (True, ['trace', 'faithfulness'])
    """
    if not isinstance(metrics, str):
        metrics = list(metrics)
        specs = [spec for spec in metrics if isinstance(spec, MetricSpec)]
        if metrics and len(specs) == len(metrics):
            return specs
    return parse_metrics(metrics)


@dataclass(frozen=True)
class Unreadable:
    """An input that could not be made a sample: why (the exception raised), and its id when one was read."""

    error: BaseException
    id: str | None = None


def score_in_threads(
    items: Iterable[tuple[T, Any]],
    specs: Sequence[MetricSpec],
    judge: Judge,
    *,
    concurrency: int = 1,
    first_chunk: int = 1,
    **options: Any,
) -> Iterator[tuple[T, SampleResult]]:
    """The batch loop in this process: score ``(tag, sample)`` items on ``concurrency`` threads, yielding
    ``(tag, result)`` in completion order (see :func:`~rageval_lc.engine.engine.score_items`, which runs it
    in-process, and in each worker process or Ray actor on the chunks it is sent).

    The judge prepares each chunk of samples first (:func:`prepared`, ``first_chunk`` then doubling up to 256);
    each sample is scored with :func:`~rageval_lc.scoring.sample.score_sample` (options checked once). An
    :class:`Unreadable` item, or a sample that cannot be scored, becomes :meth:`SampleResult.failed`.
    """
    try:  # checked once for the run; options no sample can be scored with fail every row
        checked: ScoringOptions | Exception = scoring_options(specs, ScoringOptions(judge, **options))
    except Exception as exc:
        checked = exc

    def score(item: tuple[T, Any]) -> SampleResult:
        sample = item[1]
        if isinstance(sample, Unreadable):
            return SampleResult.failed(sample.id, specs, sample.error)
        try:
            if isinstance(checked, Exception):
                raise checked
            return score_sample(sample, specs, checked)
        except Exception as exc:  # one bad sample must not end the run
            return SampleResult.failed(getattr(sample, "id", None), specs, exc)

    ready = prepared(items, judge, _sample, first=first_chunk)
    for (tag, _), result in scored_as_completed(ready, score, concurrency=concurrency):
        yield tag, result


def plan_escalation(
    judge: Any, samples: Iterable[Any], specs: Sequence[MetricSpec], **options: Any
) -> dict[str, int] | None:
    """Let a cascade judge with a budget (``escalate``) choose the verdicts it sends to the LLM over every sample
    of a run, before any is scored (:meth:`~rageval_lc.judges.cascade.CascadeJudge.plan`: the offline judge
    scores each, and its judgements are kept for the scoring pass). None for any other judge. Samples that are
    not :class:`~rageval_lc.schema.RagSample` (unreadable rows) or cannot be scored are left out.

    Example:
        >>> from rageval_lc.judges.labels import LabelsJudge
        >>> plan_escalation(LabelsJudge(), [], metric_specs("trace")) is None
        True
    """
    from rageval_lc.judges.cascade import CascadeJudge

    if not isinstance(judge, CascadeJudge) or judge.escalate is None:
        return None
    checked: dict[int, ScoringOptions] = {}

    def score(recorder: Any, sample: Any) -> None:
        try:
            if id(recorder) not in checked:
                checked[id(recorder)] = scoring_options(specs, ScoringOptions(recorder, **options))
            score_sample(sample, specs, checked[id(recorder)])
        except Exception:  # a row that cannot be scored has no verdict to plan; the scoring pass reports it
            return

    return judge.plan([s for s in samples if isinstance(s, RagSample)], score)


def _sample(item: tuple[Any, Any]) -> Any:
    return item[1]


def make_resilient(
    judge: Any,
    *,
    requests_per_minute: float | None = None,
    timeout_s: float | None = None,
    retries: int = 3,
    backoff_s: float = 1.0,
    cache_dir: str | Path | None = None,
    device: str = "auto",
) -> Any:
    """The judge (a judge, a name, an LM or a chat model) wrapped in a :class:`ResilientJudge`; ``device``
    is where an offline judge built here runs (``auto``, ``cpu``, ``cuda`` or ``mps``)."""
    from rageval_lc.judges.cascade import CascadeJudge
    from rageval_lc.judges.factory import resolve_judge
    from rageval_lc.judges.resilient import ResilientJudge

    resolved = resolve_judge(judge, device=device)
    if isinstance(resolved, CascadeJudge):  # only the LLM's calls are limited, timed, retried and cached
        cascade = copy.copy(resolved)
        cascade.llm = make_resilient(
            resolved.llm,
            requests_per_minute=requests_per_minute,
            timeout_s=timeout_s,
            retries=retries,
            backoff_s=backoff_s,
            cache_dir=cache_dir,
        )
        return cascade
    if isinstance(resolved, ResilientJudge):
        given = {"requests_per_minute": requests_per_minute, "timeout_s": timeout_s, "retries": retries}
        given.update(backoff_s=backoff_s, cache_dir=cache_dir)
        defaults = {k: p.default for k, p in inspect.signature(make_resilient).parameters.items() if k in given}
        changed = sorted(k for k, v in given.items() if v != defaults[k])
        if changed:
            msg = (
                f"The judge is already a ResilientJudge; {', '.join(changed)} would be ignored. "
                "Pass the unwrapped judge with these options, or wrap it with them yourself."
            )
            raise ValueError(msg)
        return resolved
    return ResilientJudge(
        resolved,
        requests_per_minute=requests_per_minute,
        timeout_s=timeout_s,
        retries=retries,
        backoff_s=backoff_s,
        cache=cache_dir,
    )


#: The options of :func:`make_resilient` (every entry point that builds a judge takes them).
RESILIENCE_OPTIONS: tuple[str, ...] = tuple(p for p in inspect.signature(make_resilient).parameters if p != "judge")


def resilient_judge(judge: Any, options: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The judge wrapped with the :data:`RESILIENCE_OPTIONS` among ``options``, and the other options.

    Example:
        >>> judge, rest = resilient_judge("labels", {"retries": 1, "trace_mode": "capstone"})
        >>> type(judge).__name__, judge.retries, rest
        ('ResilientJudge', 1, {'trace_mode': 'capstone'})
    """
    resilience = {k: v for k, v in options.items() if k in RESILIENCE_OPTIONS}
    rest = {k: v for k, v in options.items() if k not in RESILIENCE_OPTIONS}
    return make_resilient(judge, **resilience), rest
