"""Every core: score in N worker processes, each loading the judge's models once, results in input order.

Threads share one interpreter lock, so the offline judge's Python work (tokenising, features, NLI inputs)
runs on one core at a time; processes do not. The judge travels to each worker by pickle (without its
loaded models: :mod:`~rageval_lc.judges.portable`), rows go out in chunks (small first ones, so that the
first rows come back within seconds, then larger), and what comes back is yielded in input order. Each
worker runs :func:`~rageval_lc.engine.batch.score_in_threads`, so a row that fails is an ``error`` row there as
in-process; a worker that dies takes only its chunk's rows, which are scored again once in a fresh pool and
become ``error`` rows if that fails too. A rate limit is split evenly between the workers.

Example:
    >>> from rageval_lc.judges.labels import LabelsJudge
    >>> from rageval_lc.scoring.registry import parse_metrics
    >>> rows = [(i, RagSample(id=str(i), question="Q?", contexts=["A."], response="A.",
    ...                       labels={"all_relevant_sentence_keys": ["0a"]})) for i in range(5)]
    >>> [(tag, result.id) for tag, result in score_in_processes(rows, parse_metrics("trace"), LabelsJudge(),
    ...                                                          workers=2)]
    [(0, '0'), (1, '1'), (2, '2'), (3, '3'), (4, '4')]
"""

from __future__ import annotations

import copy
import multiprocessing
import os
import pickle
import sys
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from rageval_lc.engine.batch import Unreadable, metric_specs, score_in_threads
from rageval_lc.schema import RagSample
from rageval_lc.scoring.registry import MetricSpec
from rageval_lc.scoring.sample import SampleResult

__all__ = ["chunk_sizes", "pack_job", "score_in_processes", "unpack_job", "with_unreadable"]

T = TypeVar("T")

#: The largest chunk sent to a worker at once (as in-process: :func:`~rageval_lc.engine.batch.prepared`).
MAX_CHUNK = 256

_WORKER: dict[str, Any] = {}  # in a worker process: the judge, the specs and the options


def chunk_sizes(*, largest: int = MAX_CHUNK) -> Iterator[int]:
    """Chunk sizes: 1, then doubling up to ``largest`` — the chunks the in-process loop prepares, so that the
    judge batches the same texts together and the scores come out the same (another batch pads the offline
    judge's pairs differently: a probability moves by ~1e-6 in float32 on the CPU, up to ~1e-3 in half precision
    on a GPU; the thread count may still move the judge's notes by ~1e-4).

    Example:
        >>> import itertools
        >>> list(itertools.islice(chunk_sizes(largest=8), 6))
        [1, 2, 4, 8, 8, 8]
    """
    size = 1
    while True:
        yield size
        size = min(2 * size, largest)


def score_in_processes(
    items: Iterable[tuple[T, Any]],
    specs: Sequence[MetricSpec],
    judge: Any,
    *,
    workers: int,
    concurrency: int = 1,
    **options: Any,
) -> Iterator[tuple[T, SampleResult]]:
    """Score ``(tag, sample)`` items in ``workers`` processes; yield ``(tag, result)`` in input order.

    Args:
        items: as for :func:`~rageval_lc.engine.engine.score_items` (read lazily; a bounded window is in flight).
        specs: the metrics, parsed once.
        judge: a resolved judge; it must pickle (the built-in judges do) — its models load in each worker.
        workers: worker processes (each sets torch to its share of the cores).
        concurrency: samples scored at once in each worker (threads).
        **options: the scoring's options, as for :func:`~rageval_lc.engine.engine.score_items`.

    Raises:
        ValueError: If ``workers`` < 1, or the judge cannot be pickled (before any row is read).
    """
    if workers < 1:
        msg = f"workers must be >= 1. Got {workers}."
        raise ValueError(msg)
    pool = _Pool(workers, _payload(judge, workers, specs, concurrency, options), specs)
    sizes = chunk_sizes()
    pending: deque[tuple[list[tuple[T, Any]], Future[dict[int, SampleResult]]]] = deque()
    try:
        chunk: list[tuple[T, Any]] = []
        size = next(sizes)
        for item in items:
            chunk.append(item)
            if len(chunk) >= size:
                pending.append((chunk, pool.submit(chunk)))
                chunk, size = [], next(sizes)
                while len(pending) >= 2 * workers:
                    yield from pool.first_results(pending)
        if chunk:
            pending.append((chunk, pool.submit(chunk)))
        while pending:
            yield from pool.first_results(pending)
    except BaseException:  # stopped early (Ctrl-C, a write error, the caller let go): no waiting for chunks
        pool.close(abandon=True)
        raise
    pool.close()


class _Pool:
    """The worker processes, made again when one dies."""

    def __init__(self, workers: int, payload: bytes, specs: Sequence[MetricSpec]) -> None:
        self.workers, self.payload, self.specs = workers, payload, specs
        self.executor = self._start()

    def _start(self) -> ProcessPoolExecutor:
        context = multiprocessing.get_context("spawn")  # no fork of a process that holds threads or models
        return ProcessPoolExecutor(self.workers, mp_context=context, initializer=_start, initargs=(self.payload,))

    def restart(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.executor = self._start()

    def close(self, *, abandon: bool = False) -> None:
        """Shut the workers down: after their work, or (``abandon``) at once, their chunks dropped."""
        if not abandon:
            self.executor.shutdown(wait=True, cancel_futures=True)
            return
        processes = list((getattr(self.executor, "_processes", None) or {}).values())
        self.executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()

    def submit(self, chunk: list[tuple[Any, Any]]) -> Future[dict[int, SampleResult]]:
        """Send a chunk's samples (unreadable items stay here: their exceptions need not pickle). On workers
        broken already, the future carries that failure, for :meth:`first_results` to recover from."""
        samples = [(i, s) for i, (_, s) in enumerate(chunk) if isinstance(s, RagSample)]
        try:
            return self.executor.submit(_score_chunk, samples)
        except BrokenProcessPool as exc:
            failed: Future[dict[int, SampleResult]] = Future()
            failed.set_exception(exc)
            return failed

    def first_results(
        self, pending: deque[tuple[list[tuple[T, Any]], Future[dict[int, SampleResult]]]]
    ) -> Iterator[tuple[T, SampleResult]]:
        """Yield the oldest chunk's results, in order (waiting for them). When a worker dies, the chunk is
        scored again one row at a time in fresh workers, so that only a row that kills its worker again
        fails (an ``error`` row); the chunks in flight are sent again after."""
        chunk, future = pending.popleft()
        try:
            scored = future.result()
        except BrokenProcessPool:
            scored = {}
            self.restart()
            for position, item in enumerate(chunk):
                if isinstance(item[1], RagSample):
                    try:
                        scored[position] = self.submit([item]).result()[0]
                    except BrokenProcessPool as exc:
                        error = RuntimeError(f"the worker process scoring this row died, twice ({exc})")
                        scored[position] = SampleResult.failed(item[1].id, self.specs, error)
                        self.restart()
                    except RuntimeError as exc:  # the fresh worker could not start
                        scored[position] = SampleResult.failed(item[1].id, self.specs, exc)
            for index, (waiting, sent) in enumerate(pending):  # the chunks in flight died with the workers
                if not sent.done() or sent.cancelled() or sent.exception() is not None:
                    pending[index] = (waiting, self.submit(waiting))
        except RuntimeError as exc:  # the worker could not start (what it was sent cannot be loaded there)
            scored = {i: SampleResult.failed(s.id, self.specs, exc) for i, (_, s) in enumerate(chunk)
                      if isinstance(s, RagSample)}  # fmt: skip
        scored = with_unreadable(chunk, scored, self.specs)
        for position, (tag, _) in enumerate(chunk):
            yield tag, scored[position]


def with_unreadable(
    chunk: Sequence[tuple[Any, Any]], scored: dict[int, SampleResult], specs: Sequence[MetricSpec]
) -> dict[int, SampleResult]:
    """The results of a chunk by position: those scored away, and a failed result for each unreadable item
    (kept here: its exception need not pickle).

    Example:
        >>> from rageval_lc.scoring.registry import parse_metrics
        >>> chunk = [("a", Unreadable(ValueError("line 1 is not valid JSON")))]
        >>> with_unreadable(chunk, {}, parse_metrics("trace"))[0].results["adherence"].status
        'error'
    """
    unreadable = [(i, s) for i, (_, s) in enumerate(chunk) if isinstance(s, Unreadable)]
    return {**scored, **{i: SampleResult.failed(s.id, specs, s.error) for i, s in unreadable}}


def pack_job(
    judge: Any, specs: Sequence[MetricSpec], concurrency: int, options: Mapping[str, Any], *, where: str
) -> tuple[bytes, bytes]:
    """What another process needs to score as this one: the judge pickled (without its models), and the rest —
    the metrics by name, the options, and the metrics of one's own (the files and modules loaded, to load
    again there, and the other registrations). ``where`` names the other processes in messages.

    Raises:
        ValueError: If the judge or a metric of one's own cannot be pickled (saying which, and what to do).
    """
    from rageval_lc.scoring.custom import portable_metrics

    try:
        judge_bytes = pickle.dumps(judge)
    except Exception as exc:
        name = getattr(judge, "name", type(judge).__name__)
        msg = f"the judge {name!r} cannot be sent to {where} ({type(exc).__name__}: {exc}); pass it by name."
        raise ValueError(msg) from exc
    loads, registered = portable_metrics()
    for name, value in options.items():
        try:
            pickle.dumps(value)
        except Exception as exc:
            msg = f"the scoring option {name}={value!r} cannot be sent to {where} ({type(exc).__name__}: {exc})."
            raise ValueError(msg) from exc
    try:
        rest = pickle.dumps(([spec.name for spec in specs], concurrency, dict(options), registered))
    except Exception as exc:
        msg = (
            f"a metric of one's own cannot be sent to {where} ({type(exc).__name__}: {exc}); define it in a file "
            "and load it there too (rageval evaluate --load FILE, or rageval_lc.scoring.custom.load_metrics)."
        )
        raise ValueError(msg) from exc
    return judge_bytes, pickle.dumps((loads, rest))


def unpack_job(judge_bytes: bytes, rest: bytes) -> tuple[Any, list[MetricSpec], int, dict[str, Any]]:
    """In the other process: load the metrics of one's own, then the judge, the metrics and the options."""
    from rageval_lc.scoring.custom import load_portable_metrics, restore_metrics

    loads, rest = pickle.loads(rest)
    load_portable_metrics(loads)
    names, concurrency, options, registered = pickle.loads(rest)
    restore_metrics(registered)
    return pickle.loads(judge_bytes), metric_specs(names), concurrency, options


def _payload(judge: Any, workers: int, specs: Sequence[MetricSpec], concurrency: int, options: dict[str, Any]) -> bytes:
    shared = copy.copy(judge)  # a rate limit is shared out: each worker keeps its part
    limiter = getattr(shared, "limiter", None)
    if limiter is not None and workers > 1:
        shared.limiter = type(limiter)(limiter.per_minute / workers, window_s=limiter.window_s)
    threads = max(1, (os.cpu_count() or 1) // workers)
    return pickle.dumps((*pack_job(shared, specs, concurrency, options, where="worker processes"), threads))


def _start(payload: bytes) -> None:  # runs in each worker process once
    try:
        judge_bytes, rest, threads = pickle.loads(payload)
        judge, specs, concurrency, options = unpack_job(judge_bytes, rest)
        _WORKER.update(judge=judge, specs=specs, concurrency=concurrency, options=options)
        limit_threads(threads)
    except Exception as exc:  # reported on every row this worker is given
        _WORKER["error"] = exc


def limit_threads(threads: int) -> None:
    """Have this process's numerical libraries use ``threads`` threads: onnxruntime's (the offline judge's models on
    the CPU, through ``RAGEVAL_THREADS``, read when a model loads), numpy's BLAS and torch's, where torch is loaded
    (on a GPU), without importing it."""
    os.environ["RAGEVAL_THREADS"] = str(threads)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - scikit-learn (sentence-transformers) brings threadpoolctl
        pass
    else:
        threadpool_limits(threads)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)


def _score_chunk(chunk: list[tuple[int, Any]]) -> dict[int, SampleResult]:
    if "error" in _WORKER:  # the parent fails the chunk's rows with its metrics
        error = _WORKER["error"]
        raise RuntimeError(f"the worker process could not start: {type(error).__name__}: {error}")
    specs, judge, options = _WORKER["specs"], _WORKER["judge"], _WORKER["options"]
    first = max(1, len(chunk))  # the whole chunk prepared in one batched pass
    return dict(score_in_threads(chunk, specs, judge, concurrency=_WORKER["concurrency"], first_chunk=first, **options))
