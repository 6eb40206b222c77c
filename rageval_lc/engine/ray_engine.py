"""Many machines: score on a Ray cluster with Ray Data, one judge per actor, results in input order.

:func:`score_on_ray` is the ``ray`` engine of :func:`~rageval_lc.engine.engine.score_items` (``rageval evaluate
--engine ray``): it keeps the contract of :func:`~rageval_lc.engine.workers.score_in_processes` — the same
chunks (1, 2, 4 … 256 rows, so that the judge batches the same texts and the scores come out the same),
every row exactly once, in input order — with ``workers`` Ray actors instead of local processes. Each actor
unpickles the judge once (its models load once, on first use) and scores a chunk with
:func:`~rageval_lc.engine.batch.score_in_threads`, so a row that fails is an ``error`` row, never a failed job.
An actor that dies is restarted by Ray and its chunk scored again (Ray Data's defaults), at most
:data:`ACTOR_RESTARTS` times: a small actor counts each chunk's unfinished tries, and a chunk whose actor died
more often than that (a row that crashes the process) becomes ``error`` rows instead of hanging the job.
Items are read in windows (:data:`WINDOW_ROWS` rows, one Ray Data job each): a huge input is never held whole.

A rate limit (``--rpm``) stays ONE limit for the whole cluster: a small limiter actor holds its window and
every actor's judge asks it before each call (retries included).

:func:`evaluate_dataset` scores a :class:`ray.data.Dataset` of input rows into a Dataset of result rows.

Ray is imported when first used: ``import rageval_lc`` never loads it.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import logging
import pickle
import socket
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from rageval_lc.engine.batch import Unreadable, metric_specs, resilient_judge, score_in_threads
from rageval_lc.engine.workers import MAX_CHUNK, chunk_sizes, pack_job, unpack_job, with_unreadable
from rageval_lc.errors import MissingDependencyError
from rageval_lc.judges.resilient import RateLimiter
from rageval_lc.schema import RagSample
from rageval_lc.scoring.registry import MetricSpec
from rageval_lc.scoring.sample import SampleResult

__all__ = [
    "WINDOW_ROWS",
    "SharedRateLimiter",
    "check_address",
    "evaluate_dataset",
    "on_actor_device",
    "require_ray",
    "score_on_ray",
]

T = TypeVar("T")

logger = logging.getLogger(__name__)

#: Rows read ahead and scored as one Ray Data job (each job starts its actors, and their models, afresh).
WINDOW_ROWS = 8192

INSTALL_HINT = "pip install 'rageval_lc[ray]'"


def require_ray() -> Any:
    """The ``ray`` module, or :class:`~rageval_lc.errors.MissingDependencyError` saying how to install it."""
    try:
        import ray
        import ray.data  # the ray[data] part
    except ImportError as exc:
        msg = f"The ray engine (--engine ray) needs Ray Data: {INSTALL_HINT} ({exc})."
        raise MissingDependencyError(msg) from exc
    return ray


def check_address(address: str | None) -> None:
    """Fail fast when ``address`` names a head (``host:port`` or ``ray://host:port``) that takes no connection:
    Ray itself retries for minutes. ``auto`` and None pass.

    Raises:
        ConnectionError: If nothing listens there (the message names the address and why).

    Example:
        >>> check_address("auto")
        >>> check_address("127.0.0.1:1")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ConnectionError: Cannot reach a Ray cluster at 127.0.0.1:1 (ConnectionRefusedError: ...).
    """
    if address is None or ":" not in address:
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=10).close()
    except OSError as exc:
        msg = f"Cannot reach a Ray cluster at {address} ({type(exc).__name__}: {exc})."
        raise ConnectionError(msg) from exc


class SharedRateLimiter:
    """The limiter each actor's judge holds: :meth:`acquire` asks the cluster's one limiter actor (which holds
    a :class:`~rageval_lc.judges.resilient.RateLimiter`) and sleeps here, in the actor, while the window is full."""

    def __init__(self, actor: Any, per_minute: float, window_s: float) -> None:
        self.actor, self.per_minute, self.window_s = actor, per_minute, window_s

    def acquire(self) -> None:
        """Block until the cluster may make a request, then count it."""
        import ray

        while (wait := ray.get(self.actor.reserve.remote())) > 0:
            time.sleep(wait)


def score_on_ray(
    items: Iterable[tuple[T, Any]],
    specs: Sequence[MetricSpec],
    judge: Any,
    *,
    workers: int,
    concurrency: int = 1,
    options: Mapping[str, Any] | None = None,
    address: str | None = None,
    gpus_per_worker: float = 0.0,
    cpus_per_worker: float | None = None,
    window_rows: int = WINDOW_ROWS,
) -> Iterator[tuple[T, SampleResult]]:
    """Score ``(tag, sample)`` items on ``workers`` Ray actors; yield ``(tag, result)`` in input order.

    Tags stay here, on the driver, and so do :class:`~rageval_lc.engine.batch.Unreadable` items (their
    exceptions need not pickle): they become failed results here.

    Args:
        items: as for :func:`~rageval_lc.engine.engine.score_items` (read lazily, ``window_rows`` at a time).
        specs: the metrics, parsed once.
        judge: a resolved judge; it must pickle (the built-in judges do) — its models load in each actor.
        workers: Ray actors, each with its own judge.
        concurrency: samples scored at once in each actor (threads).
        options: the scoring's options, as for :func:`~rageval_lc.engine.engine.score_items`.
        address: the cluster to join (``auto``, ``head:6379``, ``ray://head:10001``) unless Ray already runs in
            this process (then that one); None: Ray's default (``RAY_ADDRESS``, a cluster started with
            ``ray start`` here), else a local Ray started for the run. A cluster joined is only left at the end.
        gpus_per_worker: GPUs each actor reserves (a fraction shares a GPU); an actor given one runs the
            offline judge on it, the others on their CPUs (:func:`on_actor_device`).
        cpus_per_worker: CPUs each actor reserves; None: 1, or less where the cluster has fewer CPUs than
            ``workers`` + 1 (so that every actor starts and Ray Data's own tasks still run).
        window_rows: rows read ahead and scored as one Ray Data job.

    Raises:
        ValueError: If ``workers`` < 1, a resource is negative, ``window_rows`` < 1, or the judge cannot be
            pickled (before any row is read).
        MissingDependencyError: If Ray Data is not installed.
    """
    _check_counts(workers=workers, concurrency=concurrency, window_rows=window_rows)
    _check_resources(gpus_per_worker, cpus_per_worker)
    ray = require_ray()
    specs = list(specs)
    with _connected(ray, address), _shared_limit(ray, judge) as shared, _tries_actor(ray) as tries:
        scorer = (*_scorer_args(shared, specs, concurrency, dict(options or {})), tries)
        for window in _windows(items, window_rows):
            size = min(workers, len(window))  # no idle actors for a short input
            remote = _actor_resources(ray, workers, gpus_per_worker, cpus_per_worker, size=size)
            yield from _score_window(ray, window, scorer, specs, remote)


def evaluate_dataset(
    ds: Any,
    metrics: str | Sequence[str] = ("trace",),
    *,
    judge: Any = None,
    workers: int = 1,
    gpus_per_worker: float = 0.0,
    cpus_per_worker: float | None = None,
    concurrency: int = 1,
    **options: Any,
) -> Any:
    """Score a :class:`ray.data.Dataset` of input rows (the JSON objects ``rageval evaluate`` reads) into a
    Dataset of result rows, one per input row, on ``workers`` actors (lazy, as every Dataset transform).

    A result row holds ``id``, ``scores``, ``status`` and ``reason`` (as ``rageval evaluate`` writes them:
    the keys are the metrics' scores, the same in every row) and ``details`` as a JSON **string**
    (``json.loads(row["details"])``): its keys vary from row to row, which Arrow blocks cannot hold as one
    struct type. A row that cannot be read becomes an ``error`` row, with why in ``reason``. A null field
    counts as absent (Arrow fills a field that some rows lack with nulls).

    Args:
        ds: the input rows.
        metrics: metric names or a comma-separated string.
        judge: as for :func:`~rageval_lc.engine.engine.evaluate` (None: the offline judge); a rate limit
            (``requests_per_minute``) is one limit for every actor, held by a limiter actor that lives as long
            as this Ray session.
        workers: actors, each with its own judge (its models loaded once).
        gpus_per_worker, cpus_per_worker: what each actor reserves (as for :func:`score_on_ray`).
        concurrency: samples scored at once in each actor (threads).
        **options: as for :func:`~rageval_lc.engine.engine.evaluate` (resilience and scoring options).

    Raises:
        ValueError: If a metric is unknown, a count is < 1 or a resource negative, or the judge cannot be
            pickled.

    Example (starts Ray, so it is not run as a doctest):
        >>> import ray  # doctest: +SKIP
        >>> rows = ray.data.from_items([{"id": "a", "question": "Q?", "contexts": ["A."], "response": "A.",
        ...                              "labels": {"all_relevant_sentence_keys": ["0a"]}}])  # doctest: +SKIP
        >>> evaluate_dataset(rows, "trace", judge="labels").take_all()[0]["status"]  # doctest: +SKIP
        {'context_relevance': 'ok', 'context_utilization': 'ok', 'completeness': 'ok', 'adherence': 'undetermined'}
    """
    _check_counts(workers=workers, concurrency=concurrency)
    _check_resources(gpus_per_worker, cpus_per_worker)
    specs = metric_specs(metrics)
    resilient, options = resilient_judge(judge, options)
    ray = require_ray()
    if not ray.is_initialized():
        ray.init()
    shared = _with_limiter(resilient, _limiter_actor(ray, resilient))
    scorer = (*_scorer_args(shared, specs, concurrency, options), _new_tries(ray))  # both live with the session
    remote = _actor_resources(ray, workers, gpus_per_worker, cpus_per_worker)
    return ds.map_batches(
        _RowScorer,
        fn_constructor_args=scorer,
        batch_size=MAX_CHUNK,
        batch_format="pyarrow",
        **remote,
    )


# --- checks -------------------------------------------------------------------------------------------


def _check_counts(**counts: int) -> None:
    for name, value in counts.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            msg = f"{name} must be an int >= 1. Got {value!r}."
            raise ValueError(msg)


def _check_resources(gpus_per_worker: float, cpus_per_worker: float | None) -> None:
    if not gpus_per_worker >= 0:
        msg = f"gpus_per_worker must be >= 0. Got {gpus_per_worker!r}."
        raise ValueError(msg)
    if cpus_per_worker is not None and not cpus_per_worker > 0:
        msg = f"cpus_per_worker must be > 0. Got {cpus_per_worker!r}."
        raise ValueError(msg)


# --- the cluster, the limiter, the actors' arguments ----------------------------------------------------


@contextlib.contextmanager
def _connected(ray: Any, address: str | None) -> Iterator[None]:
    """Ray, running: the Ray already running in this process, else ``ray.init(address)`` — a cluster joined
    (left at the end: ``ray.shutdown`` only disconnects) or a local Ray started for the run (shut down)."""
    if ray.is_initialized():
        yield
        return
    check_address(address)
    ray.init(address=address) if address else ray.init()
    try:
        yield
    finally:
        ray.shutdown()  # a joined cluster is only left: its processes belong to whoever started them


def _limiter_actor(ray: Any, judge: Any) -> Any:
    """The cluster's one limiter actor for the judge's rate limit, or None when it has none."""
    limiter = getattr(judge, "limiter", None)
    if limiter is None:
        return None
    window_s = getattr(limiter, "window_s", 60.0)
    actor = ray.remote(num_cpus=0, max_restarts=-1, max_task_retries=-1)(RateLimiter)
    return actor.remote(limiter.per_minute, window_s=window_s)


class _ChunkTries:
    """Per chunk (a key of its content), the tries begun and not finished: a try whose actor died never
    finishes. One per run, as a Ray actor that every scoring actor asks before and after each chunk."""

    def __init__(self) -> None:
        self.open: dict[str, int] = {}

    def begin(self, key: str) -> int:
        """Count a try of ``key``; return the tries of it not finished, this one included."""
        self.open[key] = self.open.get(key, 0) + 1
        return self.open[key]

    def end(self, key: str) -> None:
        """A try of ``key`` finished."""
        left = self.open.pop(key, 0) - 1
        if left > 0:
            self.open[key] = left


def _new_tries(ray: Any) -> Any:
    return ray.remote(num_cpus=0, max_restarts=-1, max_task_retries=-1)(_ChunkTries).remote()


@contextlib.contextmanager
def _tries_actor(ray: Any) -> Iterator[Any]:
    actor = _new_tries(ray)
    try:
        yield actor
    finally:
        ray.kill(actor)


def _with_limiter(judge: Any, actor: Any) -> Any:
    """The judge to send to the actors: its limiter swapped for one that asks the limiter actor."""
    if actor is None:
        return judge
    limiter = judge.limiter
    shared = copy.copy(judge)
    shared.limiter = SharedRateLimiter(actor, limiter.per_minute, getattr(limiter, "window_s", 60.0))
    return shared


@contextlib.contextmanager
def _shared_limit(ray: Any, judge: Any) -> Iterator[Any]:
    actor = _limiter_actor(ray, judge)
    try:
        yield _with_limiter(judge, actor)
    finally:
        if actor is not None:
            ray.kill(actor)


def _scorer_args(judge: Any, specs: Sequence[MetricSpec], concurrency: int, options: Mapping[str, Any]) -> tuple:
    """What each actor is built from (:func:`~rageval_lc.engine.workers.pack_job`): the judge pickled apart from
    the rest, so that an actor whose judge cannot be unpickled still knows the metrics of its error rows."""
    try:
        return (*pack_job(judge, specs, concurrency, options, where="Ray actors"), [spec.name for spec in specs])
    except ValueError as exc:
        raise ValueError(f"workers: {exc}") from exc


def _actor_resources(ray: Any, workers: int, gpus: float, cpus: float | None, *, size: int = 0) -> dict[str, Any]:
    """Ray Data's arguments for a pool of ``size`` (default ``workers``) actors, each with its share."""
    size = size or workers
    cluster = ray.cluster_resources()
    if cpus is None:
        cpus = min(1.0, float(cluster.get("CPU", 1.0)) / (workers + 1))  # Ray Data's tasks keep a share
    for name, each in (("GPU", gpus), ("CPU", cpus)):
        if each and each * size > float(cluster.get(name, 0.0)) + 1e-9:
            logger.warning(
                "rageval: warning: %d Ray actors of %g %s each need %g %ss; the cluster has %g now. They wait "
                "until it has them (an autoscaling cluster adds nodes; a fixed one never will: use fewer workers).",
                size, each, name, each * size, name, float(cluster.get(name, 0.0)),
            )  # fmt: skip
    # An actor that dies is restarted and its task retried as often as it dies (Ray Data's defaults; Ray 2.60
    # deprecates the remote arguments that would cap them): the actors' _ChunkTries cap them instead.
    pool = ray.data.ActorPoolStrategy(size=size)
    return {"compute": pool, "num_cpus": cpus, "num_gpus": gpus or None}


# --- the driver's side: windows of chunks, in order ------------------------------------------------------

#: Retries of a chunk whose actor died scoring it, before its rows become error rows.
ACTOR_RESTARTS = 3


def _windows(items: Iterable[tuple[T, Any]], rows: int) -> Iterator[list[list[tuple[T, Any]]]]:
    """The items in chunks of :func:`~rageval_lc.engine.workers.chunk_sizes` (1, 2, 4 … 256, continuing
    across windows), grouped into windows of about ``rows`` rows.

    Example:
        >>> [[len(chunk) for chunk in window] for window in _windows(((i, i) for i in range(20)), 8)]
        [[1, 2, 4, 8], [5]]
    """
    sizes = chunk_sizes()
    window: list[list[tuple[T, Any]]] = []
    chunk: list[tuple[T, Any]] = []
    size, held = next(sizes), 0
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            window.append(chunk)
            held += len(chunk)
            chunk, size = [], next(sizes)
            if held >= rows:
                yield window
                window, held = [], 0
    if chunk:
        window.append(chunk)
    if window:
        yield window


def _score_window(
    ray: Any,
    window: list[list[tuple[T, Any]]],
    scorer: tuple,
    specs: Sequence[MetricSpec],
    remote: dict[str, Any],
) -> Iterator[tuple[T, SampleResult]]:
    """One Ray Data job over a window's chunks; each chunk's results yielded as soon as every earlier
    chunk's are."""
    blobs = [pickle.dumps([(i, s) for i, (_, s) in enumerate(chunk) if isinstance(s, RagSample)]) for chunk in window]
    ds = ray.data.from_items(
        [{"position": n, "chunk": blob} for n, blob in enumerate(blobs)], override_num_blocks=len(blobs)
    )
    ds.context.execution_options.preserve_order = True
    ds.context.enable_progress_bars = False
    scored = ds.map_batches(
        _ChunkScorer,
        fn_constructor_args=scorer,
        batch_size=1,
        batch_format="pyarrow",
        **remote,
    )
    ready: dict[int, dict[int, SampleResult]] = {}
    position = 0
    batches = iter(scored.iter_batches(batch_size=None, batch_format="pyarrow"))
    while True:
        try:
            batch = next(batches, None)
        except Exception as exc:  # the job failed (e.g. a node lost): the rows not returned fail, never a hang
            error = RuntimeError(f"the Ray job failed ({type(exc).__name__}); --resume scores the row again")
            for chunk in window[position:]:
                failed = {i: SampleResult.failed(s.id, specs, error) for i, (_, s) in enumerate(chunk)
                          if isinstance(s, RagSample)}  # fmt: skip
                results = with_unreadable(chunk, failed, specs)
                for index, (tag, _) in enumerate(chunk):
                    yield tag, results[index]
            return
        if batch is None:
            break
        for n, blob in zip(batch["position"].to_pylist(), batch["scored"].to_pylist(), strict=True):
            ready[n] = pickle.loads(blob)
        while position in ready:
            chunk = window[position]
            done = {
                i: r if isinstance(r, SampleResult) else SampleResult.failed(chunk[i][1].id, specs, r)
                for i, r in ready.pop(position).items()
            }
            results = with_unreadable(chunk, done, specs)
            for index, (tag, _) in enumerate(chunk):
                yield tag, results[index]
            position += 1
    if position != len(window):  # pragma: no cover - Ray Data returns every row or raises
        msg = f"the Ray job returned {position} of {len(window)} chunks"
        raise RuntimeError(msg)


# --- the actors' side ----------------------------------------------------------------------------------


class _Scorer:
    """One judge per actor, unpickled once; a judge that cannot be is reported on every row it is given."""

    def __init__(self, judge_bytes: bytes, rest: bytes, names: list[str], tries: Any = None) -> None:
        self.tries = tries  # a _ChunkTries actor (None: no cap on the tries of a chunk whose actor dies)
        self.specs: list[MetricSpec] = []
        self.concurrency, self.options = 1, {}
        self.error: Exception | None = None
        try:
            self.judge, self.specs, self.concurrency, self.options = unpack_job(judge_bytes, rest)
            on_actor_device(self.judge, _gpu_ids())
        except Exception as exc:
            self.error = RuntimeError(f"the Ray actor could not load the job: {type(exc).__name__}: {exc}")
            with contextlib.suppress(ValueError):  # the metrics of the error rows, where they are known here
                self.specs = self.specs or metric_specs(names)

    def score(self, chunk: list[tuple[int, Any]], key: str = "") -> dict[int, SampleResult]:
        """Every item's result (never raises: a chunk that cannot be scored is ``error`` rows); ``key`` names
        the chunk's content, for counting its tries."""
        with self._try(key) as died:
            return self._score(chunk, died)

    @contextlib.contextmanager
    def _try(self, key: str) -> Iterator[int]:
        """The times an actor died trying ``key`` before (its tries begun and never finished)."""
        if self.tries is None:
            yield 0
            return
        import ray

        try:
            died = ray.get(self.tries.begin.remote(key)) - 1
        except Exception:  # the counter is gone (its node lost): score, uncapped
            logger.warning("rageval: the Ray actor counting chunk tries is unreachable", exc_info=True)
            yield 0
            return
        try:
            yield died
        finally:
            with contextlib.suppress(Exception):
                ray.get(self.tries.end.remote(key))

    def _score(self, chunk: list[tuple[int, Any]], died: int) -> dict[int, SampleResult]:
        try:
            if self.error is not None:
                raise self.error
            if died > ACTOR_RESTARTS:
                msg = (
                    f"a Ray actor died {died} times scoring these rows (one of them may crash the process); "
                    "--resume scores them again"
                )
                raise RuntimeError(msg)
            first = max(1, len(chunk))  # the whole chunk prepared in one batched pass, as in-process
            scored = score_in_threads(
                chunk, self.specs, self.judge, concurrency=self.concurrency, first_chunk=first, **self.options
            )
            return dict(scored)
        except Exception as exc:
            if not self.specs:  # the driver makes the error rows, with its metrics
                return {i: exc for i, _ in chunk}  # type: ignore[misc]
            return {i: SampleResult.failed(getattr(s, "id", None), self.specs, exc) for i, s in chunk}


class _ChunkScorer(_Scorer):
    """Ray Data's callable class for :func:`score_on_ray`: pickled chunks in, pickled results out."""

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa

        positions = batch["position"].to_pylist()
        scored = [
            pickle.dumps(self.score(pickle.loads(blob), key=f"{n}:{hashlib.sha256(blob).hexdigest()}"))
            for n, blob in zip(positions, batch["chunk"].to_pylist(), strict=True)
        ]
        return pa.table({"position": pa.array(positions, pa.int64()), "scored": pa.array(scored, pa.binary())})


class _RowScorer(_Scorer):
    """Ray Data's callable class for :func:`evaluate_dataset`: input rows in, result rows out."""

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa

        rows = batch.to_pylist()
        key = hashlib.sha256(json.dumps(rows, sort_keys=True, default=str).encode()).hexdigest()
        chunk = [(i, _sample_of(row)) for i, row in enumerate(rows)]
        results = self.score(chunk, key=key)
        return pa.Table.from_pylist([_result_row(results[i]) for i in range(len(chunk))])


def on_actor_device(judge: Any, gpu_ids: Sequence[Any]) -> None:
    """Point the offline judge (bare or wrapped) at the actor's device before its models load: ``cuda`` when
    Ray gave the actor a GPU (``gpus_per_worker``), else ``cpu``. The device resolved on the driver may be
    missing here (a driver with a GPU, actors without one) or miss the GPU an actor was given (a CPU-only
    head, GPU workers). Other judges are left as they are.

    Example:
        >>> from rageval_lc.judges.offline.judge import OfflineJudge
        >>> judge = OfflineJudge(device="cpu")
        >>> on_actor_device(judge, gpu_ids=[0])
        >>> judge.device, judge.nli.device, judge.encoder.encoder.device
        ('cuda', 'cuda', 'cuda')
    """
    module = sys.modules.get("rageval_lc.judges.offline.judge")  # imported when an OfflineJudge was unpickled
    inner = getattr(judge, "offline", None) or getattr(judge, "judge", judge)  # a cascade's, or the wrapped one
    if module is None or not isinstance(inner, module.OfflineJudge):
        return
    device = "cuda" if gpu_ids else "cpu"
    for part in (inner, inner.nli, getattr(inner.encoder, "encoder", None)):
        if part is not None and hasattr(part, "device"):
            part.device = device
    if inner is not judge and hasattr(judge, "_identity"):  # the cache key follows the device it now runs on
        from rageval_lc.judges.resilient import judge_identity

        judge._identity = judge_identity(inner)


def _gpu_ids() -> list[Any]:
    import ray

    return list(ray.get_gpu_ids())


def _sample_of(row: dict[str, Any]) -> RagSample | Unreadable:
    from rageval_lc.datasets.rows import sample_from_row

    row = {k: v for k, v in row.items() if v is not None}  # Arrow fills absent fields with nulls
    try:
        return sample_from_row(row)
    except Exception as exc:  # a bad row becomes an error row; the job goes on
        return Unreadable(exc, str(row["id"]) if row.get("id") is not None else None)


def _result_row(result: SampleResult) -> dict[str, Any]:
    row = result.to_row()
    return {**row, "details": json.dumps(row["details"], ensure_ascii=False)}
