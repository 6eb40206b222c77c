"""A judge wrapper for long runs: rate limit, per-call timeout, retries with backoff, and a disk cache.

:class:`ResilientJudge` wraps any judge. Each judgement call waits for the requests-per-minute budget,
runs with a timeout, is retried with exponential backoff when it fails for a transient reason (a
timeout, HTTP 429 or 5xx, a dropped connection), and ends as an ``error`` Judgement — never an
exception — when it keeps failing. A call that times out is abandoned on a daemon thread: it never
keeps the process alive, and a DSPy judge's HTTP calls get the same transport timeout.

With a cache, a usable judgement is stored on disk under a key made of the judge's identity (its name
and, for DSPy judges, every setting that changes answers: model, server, temperature, max tokens, a
chat model's settings, compiled prompts and demos), the judgement and its inputs: the same call in a
later run is read back instead of being made again. A judgement read back is checked exactly as a
fresh answer is (:mod:`rageval_lc.judges.checks`); an entry that fails is ignored and replaced. A
cache that cannot be written is reported once (a warning on the ``rageval_lc`` logger) and scoring
goes on without it. Raw model output is kept cut to its head and tail (:func:`~rageval_lc.judges.checks.cap_raw`).

Example:
    >>> from rageval_lc.judges import LabelsJudge
    >>> judge = ResilientJudge(LabelsJudge(), retries=2)
    >>> judge.name, "trace_labels" in judge.supports
    ('labels', True)
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import logging
import math
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from pydantic import TypeAdapter

from rageval_lc.judges.base import BaseJudge, Judge, as_judge, wrapped_extras
from rageval_lc.judges.checks import cap_raw
from rageval_lc.judges.portable import Portable
from rageval_lc.schema import RagSample
from rageval_lc.verdicts import Judgement, JudgeUsage

if TYPE_CHECKING:
    from rageval_lc.judges.declarations import Declaration

__all__ = ["JudgeCache", "RateLimiter", "ResilientJudge", "is_transient", "judge_identity", "plain_json"]

logger = logging.getLogger(__name__)
T = TypeVar("T")

_TRANSIENT = re.compile(
    r"time(?:d)?[ -]?out|rate.?limit|\b429\b|too many requests|\b5\d\d\b|internal server error|service unavailable|"
    r"bad gateway|gateway time|overloaded|connection (?:error|reset|refused|aborted)|apiconnectionerror|"
    r"temporarily unavailable",
    re.I,
)


def is_transient(reason: str) -> bool:
    """True for failures worth retrying: timeouts, rate limits (429), server errors (5xx), dropped connections.

    Example:
        >>> is_transient("RateLimitError: 429 Too Many Requests"), is_transient("AuthenticationError: bad key")
        (True, False)
    """
    return bool(_TRANSIENT.search(reason))


class RateLimiter(Portable):
    """Never more than ``per_minute`` acquisitions in any window of ``window_s`` seconds (60: a minute;
    thread-safe): a fractional limit admits its whole part per window, and a limit under 1 one call per
    ``window_s / per_minute`` seconds (workers sharing out a limit get such parts). :meth:`acquire` sleeps
    while the window is full; :meth:`reserve` says how long instead (a limiter shared through a Ray actor).

    Example:
        >>> now = [0.0]
        >>> limit = RateLimiter(2, window_s=10.0, clock=lambda: now[0])
        >>> limit.reserve(), limit.reserve(), limit.reserve()
        (0.0, 0.0, 10.0)
        >>> now[0] = 10.0
        >>> limit.reserve()
        0.0
    """

    _fresh: ClassVar[Mapping[str, Callable[[], Any]]] = {"_lock": threading.Lock}

    def __init__(
        self, per_minute: float, *, window_s: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if per_minute <= 0:
            msg = f"requests per minute must be > 0. Got {per_minute}."
            raise ValueError(msg)
        if window_s <= 0:
            msg = f"window_s must be > 0. Got {window_s}."
            raise ValueError(msg)
        self.per_minute = per_minute
        self.window_s = window_s
        self._capacity = max(1, math.floor(per_minute))
        self._window = window_s if per_minute >= 1 else window_s / per_minute
        self._clock = clock
        self._times: deque[float] = deque()
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Count a request and return 0.0 when one may be made now; else the seconds to wait (nothing counted)."""
        with self._lock:
            now = self._clock()
            while self._times and now - self._times[0] >= self._window:
                self._times.popleft()
            if len(self._times) < self._capacity:
                self._times.append(now)
                return 0.0
            return max(self._window - (now - self._times[0]), 0.001)

    def acquire(self) -> None:
        """Block until a request may be made, then count it."""
        while (wait := self.reserve()) > 0:
            time.sleep(wait)


class JudgeCache(Portable):
    """Usable judgements on disk, one JSON file per key (safe across processes: written atomically).

    Reads never fail (an unreadable entry counts as absent); a write that fails (a read-only folder, a
    full disk, a file where the folder should be) is reported once and the run goes on without storing.
    """

    _fresh: ClassVar[Mapping[str, Callable[[], Any]]] = {"_lock": threading.Lock}

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.hits = 0
        self.misses = 0
        self.writable = True
        self._warned = False
        self._lock = threading.Lock()
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self.writable = False
            self._write_failed("it is not a folder" if self.directory.exists() else f"{type(exc).__name__}: {exc}")

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str, judgement: Declaration[Any] | str) -> Judgement[Any] | None:
        """The cached usable ``judgement`` (its declaration or name), or None (an unreadable or unusable entry
        counts as absent)."""
        path = self._path(key)
        if isinstance(judgement, str):
            from rageval_lc.judges.declarations import declaration_of

            judgement = declaration_of(judgement) or judgement
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            value = TypeAdapter(judgement.verdict).validate_python(data["value"])
            cached = Judgement[Any](**{**data, "value": value, "usage": JudgeUsage()})
            if cached.name != judgement.name or not cached.ok:
                raise ValueError("not a usable judgement of this kind")
        except (OSError, ValueError, KeyError, TypeError):
            self.misses += 1
            return None
        self.hits += 1
        return cached.model_copy(update={"notes": {**cached.notes, "cached": True}})

    def put(self, key: str, judgement: Judgement[Any]) -> None:
        """Store a usable judgement (others are not cached: they may succeed next time)."""
        if not judgement.ok or not self.writable:
            return
        path = self._path(key)
        temporary = path.with_suffix(f".{threading.get_ident()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(judgement.model_dump_json(), encoding="utf-8")
            temporary.replace(path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)
            self._write_failed(f"{type(exc).__name__}: {exc}")

    def _write_failed(self, why: str) -> None:
        with self._lock:
            if self._warned:
                return
            self._warned = True
        logger.warning(
            "rageval: warning: the judge cache %s cannot be written (%s); judgements are not stored, scoring goes on.",
            self.directory,
            why,
        )


class ResilientJudge(BaseJudge):
    """Wraps a judge with a rate limit, a per-call timeout, retries with backoff and a disk cache.

    Args:
        judge: the judge to wrap.
        requests_per_minute: the most judgement calls started per minute (None: no limit).
        timeout_s: give up on a call after this long (None: wait); the call is then retried if retries remain.
        retries: extra attempts after a transient failure.
        backoff_s: the first wait before a retry; doubled each time (with a little jitter).
        cache: a :class:`JudgeCache`, or a directory for one (None: no cache).

    With ``timeout_s``, a judge that can (a DSPy judge built from a model id) is given the same transport
    timeout for its HTTP calls (:meth:`~rageval_lc.judges.llm.dspy_judge.DspyJudge.set_transport_timeout`).
    """

    def __init__(
        self,
        judge: Judge,
        *,
        requests_per_minute: float | None = None,
        timeout_s: float | None = None,
        retries: int = 3,
        backoff_s: float = 1.0,
        cache: JudgeCache | str | Path | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        judge = as_judge(judge)
        self.judge = judge
        self.limiter = RateLimiter(requests_per_minute) if requests_per_minute else None
        self.timeout_s = timeout_s
        self.retries = max(0, retries)
        self.backoff_s = backoff_s
        self.cache = JudgeCache(cache) if isinstance(cache, (str, Path)) else cache
        self._sleep = sleep
        if timeout_s:
            judge.set_transport_timeout(timeout_s)
        self._identity = judge_identity(judge)

    @property
    def name(self) -> str:
        """The wrapped judge's name."""
        return self.judge.name

    @property
    def supports(self) -> frozenset[str]:
        """The wrapped judge's judgements."""
        return self.judge.supports

    __getattr__ = wrapped_extras  # the wrapped judge's own extras (``lm``, ``modules``)

    @property
    def encoder(self) -> Any:
        """The wrapped judge's encoder (None for most)."""
        return self.judge.encoder

    def prepare(self, samples: Sequence[RagSample]) -> None:
        """As the wrapped judge."""
        self.judge.prepare(samples)

    def estimate_prompt_tokens(self, judgement: str, sample: RagSample) -> int | None:
        """As the wrapped judge."""
        return self.judge.estimate_prompt_tokens(judgement, sample)

    def cache_identity(self) -> dict[str, Any]:
        """As the wrapped judge."""
        return self.judge.cache_identity()

    def set_transport_timeout(self, seconds: float) -> None:
        """As the wrapped judge."""
        self.judge.set_transport_timeout(seconds)

    def make(self, judgement: Declaration[T], inputs: Mapping[str, Any]) -> Judgement[T]:
        """Make ``judgement`` through the wrapped judge, with the rate limit, timeout, retries and cache."""
        name, cache = judgement.name, self.cache
        key = self._key(name, inputs) if cache is not None else None
        if cache is not None and key is not None:
            cached = cache.get(key, judgement)
            if cached is not None and _usable(judgement, cached, inputs):
                return cached
        usage = JudgeUsage()
        attempt = 0
        while True:
            attempt += 1
            if self.limiter is not None:
                self.limiter.acquire()
            made = self._attempt(name, lambda: self.judge.make(judgement, inputs))
            usage += made.usage
            transient = made.status == "error" and is_transient(made.reason)
            if not transient or attempt > self.retries:
                break
            delay = self.backoff_s * 2 ** (attempt - 1)
            self._sleep(delay * (1.0 + 0.1 * ((attempt * 7919) % 10) / 10))
        notes = {**made.notes, "calls_attempted": attempt} if attempt > 1 else made.notes
        result = made.model_copy(update={"usage": usage, "notes": notes, "raw": cap_raw(made.raw)})
        if cache is not None and key is not None:
            cache.put(key, result)
        return result

    def _attempt(self, name: str, call: Callable[[], Judgement[Any]]) -> Judgement[Any]:
        try:
            if not self.timeout_s:
                return call()
            future = _start_abandonable(call)
            try:
                return future.result(timeout=self.timeout_s)
            except FutureTimeout:
                if not future.done():  # ours, not a TimeoutError the judge raised
                    reason = f"TimeoutError: the {name!r} judgement timed out after {self.timeout_s:g} s"
                    return Judgement(name=name, status="error", reason=reason)
                raise
        except (TimeoutError, ConnectionError) as exc:  # transport failures: retried
            reason = f"{type(exc).__name__}: {exc}"
        except Exception as exc:
            reason = f"{type(exc).__name__}: {exc}"
            if not is_transient(reason):
                raise  # bad input or a broken judge: the caller reports it (a failed row), no retry
        return Judgement(name=name, status="error", reason=reason)

    def _key(self, name: str, inputs: Mapping[str, Any]) -> str:
        payload = json.dumps([self._identity, name, plain_json(dict(inputs))], sort_keys=True)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def planned_calls(self, judgement: str) -> int:
        """As the wrapped judge (before retries)."""
        return self.judge.planned_calls(judgement)


def _start_abandonable(call: Callable[[], Any]) -> Future[Any]:
    """Run ``call`` on a daemon thread (in the caller's context, so ``dspy.context`` settings hold).

    A call given up on is left to finish on its own; being a daemon, it never keeps the interpreter
    alive (a ThreadPoolExecutor's workers are joined at exit, which held a finished run for minutes).
    """
    future: Future[Any] = Future()
    context = contextvars.copy_context()

    def run() -> None:
        try:
            future.set_result(context.run(call))
        except BaseException as exc:  # handed to the waiting caller
            future.set_exception(exc)

    threading.Thread(target=run, name="rageval-judge-call", daemon=True).start()
    return future


def _usable(judgement: Declaration[Any], cached: Judgement[Any], inputs: Mapping[str, Any]) -> bool:
    """True when a cached judgement passes the checks a fresh answer to the same call must pass."""
    try:
        problem = judgement.problem(cached.value, inputs)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        problem = f"{type(exc).__name__}: {exc}"
    if problem:
        logger.debug("A cached %r judgement was refused: %s", judgement.name, problem)
    return problem is None


def judge_identity(judge: Any) -> str:
    """The judge's name plus whatever shapes its answers (a DSPy judge's LM settings and module state)."""
    parts: list[Any] = [judge.name, type(judge).__name__, judge.cache_identity()]
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def plain_json(value: Any) -> Any:
    """The value as plain JSON data (a sample without its id and metadata), as the cache key reads it."""
    if isinstance(value, RagSample):
        return value.model_dump(mode="json", exclude={"id", "metadata"})
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {str(k): plain_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_json(v) for v in value]
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)
