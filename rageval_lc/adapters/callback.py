"""Score chains inline: a LangChain callback handler that evaluates every root run when it ends.

Per root run the handler collects the question (the chain's input), the contexts (below), the answer (the
chain's output: a string, a message or a dict) and an optional reference (the run's metadata, ``reference`` by
default). When the root run ends it scores the sample — on a background worker by default, so the chain is not
slowed (the offline judge's models on one core there: :func:`~rageval_lc.judges.offline.bert_onnx.one_thread`), or
inline with ``background=False`` — stores the result under the run id and hands it to the sinks (the
record: question, contexts, response, reference, the result row, LangSmith-style ``feedback``, ``"producer":
"callback"`` and the LangSmith project the run is traced to, ``tracing_project``). Under asyncio (``ainvoke``,
``astream``) inline scoring runs on the loop's default executor, so ``ainvoke`` still returns after the score
but the event loop is never blocked. The worker waits for a quiet moment (no callback event for ``quiet_ms``, as
while a chain waits for its model; at most ``max_delay_s``) so that scoring does not compete with a chain's own
Python work. It never raises into the chain: a failure anywhere becomes an ``error`` result with the reason. A
sink that fails logs its first traceback, then only counts (:attr:`RagEvalCallbackHandler.sink_failures`, summed
up in one warning at :meth:`~RagEvalCallbackHandler.close`). A closed handler scores nothing: each run that ends
after ``close()`` becomes an ``error`` result ("the handler was closed …"), kept and sent to the sinks like any
other, with one warning.

The contexts are found in the runs inside the root run, in the order they ended:

1. the documents of every retriever run (``on_retriever_end``, a ``BaseRetriever``), if any returned some;
2. else the documents that chain runs (a ``RunnableLambda``, a sub-chain) returned: a document, a list of
   documents, or documents under a context key such as ``docs`` or ``context`` of a mapping
   (:func:`~rageval_lc.adapters.common.contexts_in`). Each text counts once, where it first appeared: documents
   also pass through the ``RunnableParallel`` that ran the retrieval and the steps that merge or carry them on.
   The prompt (documents in, a prompt out) and the model add none; the root run's own output is looked at in 4;
3. else the strings under a context key of a chain run's output, from runs whose input holds no contexts (so a
   step that formats the passages into one string does not add it again), each once;
4. else the contexts in the root run's own output, then its input (``{"answer": ..., "contexts": [...]}``).

``contexts_from=`` replaces 1 to 3: a run name, or a function of a :class:`ChildRun` that is true for the runs
holding the contexts (a string or a list of strings counts there too). A run in which nothing is found leaves the
context metrics ``undetermined`` ("No retrieved contexts were found in the run.") and, unless a retriever ran and
returned nothing, logs a warning that names ``contexts_from=`` — once per handler.

The handler keeps its own small record of each root run's children rather than subclassing langchain_core's
``BaseTracer``: a do-nothing ``BaseTracer`` alone (its ``Run`` objects, inputs and outputs copied) added 0.7–0.9 ms
of CPU and 3.5–4.9 % to a 20 ms chain's median latency, where a do-nothing handler added 0.2–0.8 % (``python
benchmarks/callback_overhead.py``): most of the 5 % this handler may cost, before any scoring.

Example:
    >>> from langchain_core.runnables import RunnableLambda
    >>> handler = RagEvalCallbackHandler(["answer_classification"], background=False)
    >>> chain = RunnableLambda(lambda q: "I don't know.")
    >>> _ = chain.invoke("Capital of France?", config={"callbacks": [handler], "metadata": {"reference": "Paris"}})
    >>> [r.details["answer_classification"]["label"] for r in handler.results.values()]
    ["DON'T KNOW"]
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.tracers.context import tracing_v2_callback_var
from langsmith.run_helpers import get_current_run_tree, get_tracing_context
from langsmith.utils import get_tracer_project

from rageval_lc.adapters.common import NO_CONTEXTS_IN_RUN, FieldMap, JudgeWhenNeeded, Source, contexts_in
from rageval_lc.adapters.sinks import CallableSink, Sink
from rageval_lc.judges.offline.bert_onnx import one_thread
from rageval_lc.reports.producers import CALLBACK, PRODUCER_KEY
from rageval_lc.scoring.registry import parse_metrics
from rageval_lc.scoring.sample import SampleResult, evaluate_sample

__all__ = ["CLOSED_REASON", "ChildRun", "RagEvalCallbackHandler", "RunResults"]

logger = logging.getLogger(__name__)

#: The reason given for a run that ended after the handler was closed.
CLOSED_REASON = "the handler was closed before this run ended; it was not scored"


@dataclass(frozen=True)
class ChildRun:
    """A chain or retriever run inside a root run, as ``contexts_from=`` sees it once it has ended.

    Attributes:
        name: the run's name: ``RunnableLambda(f, name=...)`` or ``.with_config(run_name=...)``, else the
            runnable's own (``"fetch"`` for ``RunnableLambda(fetch)``, a retriever's class name).
        tags: its tags, e.g. ``("map:key:docs",)`` for the ``docs`` branch of a ``RunnableParallel``.
        run_type: ``"chain"`` or ``"retriever"``.
        inputs: what it was called with (a retriever: the query).
        outputs: what it returned (a retriever: its documents).
        run_id: its id.
        parent_run_id: the id of the run it ran in.

    Example:
        >>> run = ChildRun("fetch", ("map:key:docs",), "chain", inputs="Where?", outputs=["Paris is in France."])
        >>> picks = lambda run: run.name == "fetch" and "map:key:docs" in run.tags  # contexts_from=picks
        >>> picks(run)
        True
    """

    name: str
    tags: tuple[str, ...]
    run_type: str
    inputs: Any
    outputs: Any = None
    run_id: UUID | None = None
    parent_run_id: UUID | None = None


class RunResults(dict[str, SampleResult]):
    """The handler's results by run id: the keys are strings, and a run's ``UUID`` finds its result too.

    Example:
        >>> from uuid import UUID
        >>> results = RunResults({"8c2f1b5e-0000-4000-8000-000000000000": "a result"})
        >>> run_id = UUID("8c2f1b5e-0000-4000-8000-000000000000")
        >>> results[run_id], run_id in results, results.get(UUID(int=0))
        ('a result', True, None)
    """

    def __getitem__(self, run_id: UUID | str) -> SampleResult:
        return super().__getitem__(_run_key(run_id))

    def __contains__(self, run_id: object) -> bool:
        return super().__contains__(_run_key(run_id))

    def get(self, run_id: UUID | str, default: Any = None) -> Any:
        """The result of the run, or ``default``."""
        return super().get(_run_key(run_id), default)


def _run_key(run_id: Any) -> Any:
    return str(run_id) if isinstance(run_id, UUID) else run_id


@dataclass
class _Collected:
    inputs: Any
    metadata: dict[str, Any]
    runs: list[ChildRun] = field(default_factory=list)  # the child runs that ended, in that order
    started: dict[UUID, ChildRun] = field(default_factory=dict)  # the child runs under way
    children: list[UUID] = field(default_factory=list)  # every child run's id
    project: str | None = None  # the LangSmith project the run is traced to


class RagEvalCallbackHandler(BaseCallbackHandler):
    """Scores each root run of the chains it is attached to.

    Args:
        metrics: metric names (or a comma-separated string).
        judge: see :func:`~rageval_lc.judges.factory.resolve_judge` (None: the offline judge). It is
            wrapped as :func:`rageval_lc.evaluate` wraps it: a transient failure (a timeout, HTTP 429 or
            5xx, a dropped connection) is retried, then becomes an ``error`` result with the reason.
        sinks: where results go besides :attr:`results` (sinks, or functions of the record).
        background: score on a worker thread (default) or inline, before the chain's call returns.
        max_workers: worker threads in background mode.
        question: where the question sits in the chain's input (a key, keys or a function; a bare
            string input is the question).
        answer: where the answer sits in the chain's output (a bare string or message is the answer).
        reference_key: the run-metadata key holding the reference answer.
        contexts_from: the run holding the contexts, when the default rule (module docstring) picks the wrong
            one or none: a run name, or a function of a :class:`ChildRun` that is true for it (each run it
            picks counts, in the order they ended). E.g. ``contexts_from="rerank"``, or
            ``contexts_from=lambda run: run.name == "fetch" and "map:key:docs" in run.tags``.
        quiet_ms: background mode: score once no callback event has come for this long (0: at once).
        max_delay_s: background mode: score anyway once a run has waited this long for a quiet moment.
        **options: ``requests_per_minute``, ``timeout_s``, ``retries``, ``backoff_s``, ``cache_dir`` (the judge's
            resilience, as :func:`rageval_lc.evaluate` takes them), and ``scoring_mode``, ``trace_mode``,
            ``embeddings``, ... (see ``evaluate_sample``).

    Attributes:
        results: ``SampleResult`` per run id, in completion order (:class:`RunResults`: keyed by the id as a
            string; ``results[run_id]`` takes the ``UUID`` passed in ``config={"run_id": ...}`` as well).
        sink_failures: per sink (by name), how many records it failed to take.
        closed: True once :meth:`close` was called; later runs become ``error`` results.
    """

    raise_error = False

    def __init__(
        self,
        metrics: str | Iterable[str] = ("faithfulness",),
        *,
        judge: Any = None,
        sinks: Sequence[Any] = (),
        background: bool = True,
        max_workers: int = 1,
        question: Source | None = None,
        answer: Source | None = None,
        reference_key: str = "reference",
        contexts_from: str | Callable[[ChildRun], bool] | None = None,
        quiet_ms: float = 2.0,
        max_delay_s: float = 1.0,
        **options: Any,
    ) -> None:
        self.specs = parse_metrics(metrics)
        self._judge = JudgeWhenNeeded(judge, options)  # the offline judge: built at the first score
        self.options = self._judge.options
        self.sinks: list[Sink] = [s if hasattr(s, "write") else CallableSink(s) for s in sinks]
        defaults = FieldMap()
        self.fields = FieldMap(question=question or defaults.question, response=answer or defaults.response)
        self.reference_key = reference_key
        if contexts_from is not None and not isinstance(contexts_from, str) and not callable(contexts_from):
            msg = (
                "The 'contexts_from' parameter of RagEvalCallbackHandler must be a run name (str) or a function "
                f"of a ChildRun. Got {contexts_from!r} instead."
            )
            raise TypeError(msg)
        self.contexts_from = contexts_from
        self.quiet_s = max(0.0, quiet_ms) / 1000.0
        self.max_delay_s = max_delay_s
        self._last_event = time.monotonic()
        self.results: RunResults = RunResults()
        self._lock = threading.RLock()
        self._root_of: dict[UUID, UUID] = {}
        self._pending: dict[UUID, _Collected] = {}
        self._futures: set[Future[None]] = set()
        self._executor = ThreadPoolExecutor(max_workers, thread_name_prefix="rageval") if background else None
        # Background: the callbacks only record, so LangChain may call them on the event loop. Inline: LangChain
        # runs a handler that is not run_inline in the loop's executor and awaits it (sync calls ignore this).
        self.run_inline = background
        self.closed = False
        self.sink_failures: dict[str, int] = {}
        self._records_sent = 0
        self._warned_closed = False
        self._warned_contexts = False

    @property
    def judge(self) -> Any:
        """The judge, wrapped (built at first use when it is the offline judge)."""
        return self._judge.get()

    # --- bookkeeping ------------------------------------------------------------------------------

    def _stamp(self, *args: Any, **kwargs: Any) -> None:
        self._last_event = time.monotonic()

    # model and tool events only mark activity (scoring waits for a quiet moment)
    on_llm_start = on_chat_model_start = on_llm_end = on_llm_error = _stamp
    on_tool_start = on_tool_end = on_tool_error = on_retriever_error = _stamp

    def _child(
        self, run_id: UUID, parent_run_id: UUID | None, run_type: str, inputs: Any, tags: Any, kwargs: dict[str, Any]
    ) -> None:
        self._last_event = time.monotonic()
        with self._lock:
            root = self._root_of.get(parent_run_id) if parent_run_id is not None else None
            if root is not None and root in self._pending:
                self._root_of[run_id] = root
                self._pending[root].children.append(run_id)
                name = kwargs.get("name") or ""  # LangChain names every run it starts
                run = ChildRun(name, tuple(tags or ()), run_type, inputs, None, run_id, parent_run_id)
                self._pending[root].started[run_id] = run
                tree = get_current_run_tree()  # inside a traced root run: LangSmith's own record of it
                if tree is not None and tree.id == root and tree.session_name:
                    self._pending[root].project = tree.session_name

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """A run without a known parent is a root: remember its input and metadata; a child: its name and input."""
        self._last_event = time.monotonic()
        with self._lock:
            if parent_run_id is None or parent_run_id not in self._root_of:
                self._root_of[run_id] = run_id
                self._pending[run_id] = _Collected(
                    inputs=inputs, metadata=dict(metadata or {}), project=_ambient_project()
                )
            else:
                self._child(run_id, parent_run_id, "chain", inputs, tags, kwargs)

    def on_retriever_start(
        self,
        serialized: Any,
        query: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        """Remember which root the retriever belongs to."""
        self._child(run_id, parent_run_id, "retriever", query, tags, kwargs)

    def on_retriever_end(
        self, documents: Sequence[Any], *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Keep the documents for the root run."""
        self._ended(run_id, list(documents), None)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        """The root run ended: score it. A child run ended: keep what it returned."""
        collected = self._finish(run_id)
        if collected is None:
            self._ended(run_id, outputs, kwargs.get("inputs"))
            return
        if kwargs.get("inputs") is not None:  # streamed runs start with a placeholder and end with the input
            collected.inputs = kwargs["inputs"]
        self._dispatch(run_id, collected, outputs, None)

    def _ended(self, run_id: UUID, outputs: Any, inputs: Any) -> None:
        self._last_event = time.monotonic()
        with self._lock:
            root = self._root_of.get(run_id)
            collected = self._pending.get(root) if root is not None else None
            run = collected.started.pop(run_id, None) if collected is not None else None
            if run is not None:
                inputs = run.inputs if inputs is None else inputs  # streamed: the input comes at the end
                collected.runs.append(replace(run, inputs=inputs, outputs=outputs))

    def on_chain_error(
        self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """The root run failed: record an error result (the chain's own exception still reaches its caller)."""
        collected = self._finish(run_id)
        if collected is not None:
            self._dispatch(run_id, collected, None, error)

    def _finish(self, run_id: UUID) -> _Collected | None:
        self._last_event = time.monotonic()
        with self._lock:
            if self._root_of.get(run_id) != run_id:
                return None
            collected = self._pending.pop(run_id, None)
            self._root_of.pop(run_id, None)
            for child in collected.children if collected else ():
                self._root_of.pop(child, None)
            return collected

    # --- scoring ----------------------------------------------------------------------------------

    def _dispatch(self, run_id: UUID, collected: _Collected, outputs: Any, error: BaseException | None) -> None:
        with self._lock:  # held while submitting, so neither close nor _forget can come in between
            closed = self.closed
            if not closed and self._executor is not None:
                future = self._executor.submit(self._score, run_id, collected, outputs, error)
                self._futures.add(future)
                future.add_done_callback(self._forget)
                return
        if closed:
            self._record_closed(run_id, collected, outputs)
        else:
            self._score(run_id, collected, outputs, error)

    def _forget(self, future: Future[None]) -> None:
        with self._lock:
            self._futures.discard(future)

    def _await_quiet(self) -> None:
        """Wait (sleeping, so the chains keep the interpreter) until callbacks go quiet, or max_delay_s."""
        if not self.quiet_s:
            return
        deadline = time.monotonic() + self.max_delay_s
        while True:
            now = time.monotonic()
            idle = now - self._last_event
            if idle >= self.quiet_s or now >= deadline:
                return
            time.sleep(min(self.quiet_s - idle, deadline - now) + 1e-4)

    def _sample(self, key: str, collected: _Collected, outputs: Any) -> Any:
        reference = collected.metadata.get(self.reference_key)
        return self.fields.sample(
            collected.inputs,
            outputs,
            None if reference is None else {"reference": reference},
            sample_id=key,
            contexts=self._contexts(collected) or None,
        )

    def _contexts(self, collected: _Collected) -> list[Any]:
        """The contexts the runs inside the root run hold (the rule is in the module docstring)."""
        runs = collected.runs
        if self.contexts_from is not None:
            chosen = self.contexts_from if callable(self.contexts_from) else _named(self.contexts_from)
            return [context for run in runs if chosen(run) for context in contexts_in(run.outputs, strings=True)]
        retrieved = [document for run in runs if run.run_type == "retriever" for document in run.outputs]
        if retrieved:
            return retrieved
        returned = [(run, contexts_in(run.outputs)) for run in runs if run.run_type == "chain"]
        documents = [context for _, found in returned for context in found if hasattr(context, "page_content")]
        if documents:
            return _once(documents)
        return _once(context for run, found in returned if not contexts_in(run.inputs) for context in found)

    def _warn_no_contexts(self, key: str, collected: _Collected, sample: Any) -> None:
        """Once per handler: a run whose context metrics are undetermined because no run held contexts."""
        if sample.contexts or not any(spec.needs_contexts for spec in self.specs):
            return
        if self.contexts_from is None and any(run.run_type == "retriever" for run in collected.runs):
            return  # a retriever ran and returned nothing: no option would change that
        with self._lock:
            if self._warned_contexts:
                return
            self._warned_contexts = True
        where = (
            f"no run that contexts_from={self.contexts_from!r} picks returned any"
            if self.contexts_from is not None
            else "no retriever ran and no run returned documents"
        )
        logger.warning(
            "RagEvalCallbackHandler found no contexts in run %s (%s), so its context metrics are undetermined. "
            "Pass contexts_from= (a run name, or a function of the run) to say which run holds them. "
            "Logged once per handler.",
            key,
            where,
        )

    def _score(self, run_id: UUID, collected: _Collected, outputs: Any, error: BaseException | None) -> None:
        if self._executor is not None:
            self._await_quiet()
        key = str(run_id)
        sample = None
        try:
            if error is not None:
                raise RuntimeError(f"the chain raised {type(error).__name__}: {error}")
            sample = self._sample(key, collected, outputs)
            self._warn_no_contexts(key, collected, sample)
            options = {"no_contexts_reason": NO_CONTEXTS_IN_RUN, **self.options}
            # in the background the offline judge's models run on one core: the chain keeps the others
            with one_thread() if self._executor is not None else nullcontext():
                result = evaluate_sample(sample, [s.name for s in self.specs], judge=self.judge, **options)
        except Exception as exc:  # never into the chain: an error result instead
            result = SampleResult.failed(key, self.specs, exc)
        self._deliver(key, sample, result, collected.project)

    def _record_closed(self, run_id: UUID, collected: _Collected, outputs: Any) -> None:
        """A run that ended after close(): an error result, kept and sent like any other."""
        key = str(run_id)
        if not self._warned_closed:
            self._warned_closed = True
            logger.warning("RagEvalCallbackHandler is closed: runs that end now are recorded as errors, not scored.")
        try:
            sample = self._sample(key, collected, outputs)
        except Exception:  # the record still says why it was not scored
            sample = None
        self._deliver(key, sample, SampleResult.failed(key, self.specs, RuntimeError(CLOSED_REASON)), collected.project)

    def _deliver(self, key: str, sample: Any, result: SampleResult, project: str | None) -> None:
        with self._lock:
            self.results[key] = result
            self._records_sent += 1
        record = self._record(key, sample, result, project)
        for sink in self.sinks:
            try:
                sink.write(record)
            except Exception:  # one sink failing must not stop the others
                self._sink_failed(sink, key)

    def _sink_failed(self, sink: Sink, key: str) -> None:
        """Log a sink's first failure with its traceback; count the others (summed up at close)."""
        name = _sink_name(sink)
        with self._lock:
            count = self.sink_failures[name] = self.sink_failures.get(name, 0) + 1
        if count == 1:
            logger.exception(
                "rageval sink %s failed for run %s; its further failures are only counted (see close())", name, key
            )

    def _record(self, key: str, sample: Any, result: SampleResult, project: str | None) -> dict[str, Any]:
        headlines = [result.results.get(name) for spec in self.specs for name in spec.headlines]
        feedback = [outcome.feedback() for outcome in headlines if outcome is not None]
        return {
            PRODUCER_KEY: CALLBACK,
            "run_id": key,
            "tracing_project": project,
            "question": getattr(sample, "question", None),
            "contexts": getattr(sample, "contexts", None),
            "response": getattr(sample, "response", None),
            "reference": getattr(sample, "reference", None),
            **result.to_row(),
            "feedback": feedback,
        }

    # --- control ----------------------------------------------------------------------------------

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until every ended run is scored; True when none is left pending."""
        with self._lock:
            futures = list(self._futures)
        _, not_done = wait(futures, timeout=timeout)
        return not not_done

    flush = wait

    def close(self) -> None:
        """Finish pending scoring and stop the worker; report sink failures. Runs that end later are not
        scored: each becomes an ``error`` result (see the module docstring)."""
        with self._lock:
            already, self.closed = self.closed, True
        self.wait()
        if self._executor is not None:
            self._executor.shutdown(wait=True)
        if already:
            return
        for name, count in self.sink_failures.items():
            logger.warning("rageval sink %s failed for %d of %d records.", name, count, self._records_sent)

    def __enter__(self) -> RagEvalCallbackHandler:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _named(name: str) -> Callable[[ChildRun], bool]:
    return lambda run: run.name == name


def _once(contexts: Iterable[Any]) -> list[Any]:
    """Each text once, where it first appeared (documents pass through several runs: the parallel step that ran
    the retrieval, the steps that merge or carry them on)."""
    seen: set[str] = set()
    kept = []
    for context in contexts:
        text = getattr(context, "page_content", context)
        if text not in seen:
            seen.add(text)
            kept.append(context)
    return kept


def _sink_name(sink: Sink) -> str:
    function = getattr(sink, "function", None)  # a CallableSink: name its function
    return getattr(function, "__qualname__", None) or repr(sink)


def _ambient_project() -> str | None:
    """The LangSmith project LangChain's tracer picks for a root run started now (its child runs may
    correct it: see ``_child``)."""
    tracer = tracing_v2_callback_var.get()
    if tracer is not None and getattr(tracer, "project_name", None):
        return tracer.project_name
    context = get_tracing_context()
    parent = context["parent"]
    if parent is not None:
        return parent.session_name
    return context["project_name"] or get_tracer_project()
