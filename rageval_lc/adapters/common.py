"""What every integration shares: finding a sample's fields in foreign data, and scoring one metric.

Integrations never compute a score: they build a :class:`~rageval_lc.schema.RagSample`, call
:func:`~rageval_lc.scoring.sample.evaluate_sample` through a :class:`MetricScorer`, and reshape its results.

Example:
    >>> fields = FieldMap()
    >>> sample = fields.sample({"question": "Where is Paris?"},
    ...                        {"answer": "In France.", "documents": [{"page_content": "Paris is in France."}]},
    ...                        {"answer": "France."})
    >>> sample.response, sample.contexts, sample.reference
    ('In France.', ['Paris is in France.'], 'France.')
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rageval_lc.engine.engine import RESILIENCE_OPTIONS, resilient_judge
from rageval_lc.judges.factory import is_packaged_offline, resolve_judge
from rageval_lc.judges.offline.devices import check_device
from rageval_lc.schema import MetricResult, RagSample
from rageval_lc.scoring.registry import MetricSpec, get_metric
from rageval_lc.scoring.sample import SampleResult, evaluate_sample

__all__ = [
    "NO_CONTEXTS_IN_RUN",
    "RESILIENCE_OPTIONS",
    "FieldMap",
    "JudgeWhenNeeded",
    "MetricScorer",
    "as_mapping",
    "contexts_in",
    "find_field",
    "resilient_judge",
    "resolve_judge",
    "retrieved_documents",
]

#: Why the context metrics are undetermined when the run being scored retrieved nothing.
NO_CONTEXTS_IN_RUN = "No retrieved contexts were found in the run."

#: Where a field is found: a key, candidate keys tried in order, or a function of the mapping.
Source = str | Sequence[str] | Callable[[Mapping[str, Any]], Any]


@dataclass(frozen=True)
class FieldMap:
    """Where the question, contexts, answer and reference sit in inputs / outputs / reference outputs.

    Each field is a key, candidate keys (the first present wins; ``"a.b"`` looks inside ``a``), or a
    function of the whole mapping. The question is read from the inputs (then the outputs), the
    contexts from the outputs (then the inputs), the answer from the outputs (a bare string output is
    the answer), and the reference from the reference outputs.
    """

    question: Source = ("question", "input", "query", "user_input")
    contexts: Source = ("contexts", "context", "documents", "source_documents", "retrieved_contexts", "docs")
    response: Source = ("answer", "response", "output", "result", "prediction", "text", "content")
    reference: Source = ("reference", "ground_truth", "answer", "expected", "expected_answer", "output", "label")

    def sample(
        self,
        inputs: Any,
        outputs: Any,
        reference_outputs: Any = None,
        *,
        sample_id: str | None = None,
        contexts: Any = None,
    ) -> RagSample:
        """Build the sample; a missing question or answer raises ``ValueError`` naming the keys tried.

        ``contexts``, when given, are used instead of looking them up (the callback handler passes the
        documents its retrievers returned).
        """
        inputs_map, outputs_map = as_mapping(inputs, "question"), as_mapping(outputs, "answer")
        question = find_field(self.question, inputs_map, outputs_map)
        if question is None:
            raise ValueError(_missing("question", self.question, inputs_map))
        response = find_field(self.response, outputs_map)
        if response is None:
            raise ValueError(_missing("answer", self.response, outputs_map))
        if contexts is None:
            contexts = find_field(self.contexts, outputs_map, inputs_map)
        reference = None
        if reference_outputs is not None:
            reference = find_field(self.reference, as_mapping(reference_outputs, "reference"))
        return RagSample(
            id=sample_id,
            question=_text(question),
            contexts=_contexts(contexts),
            response=_text(response),
            reference=None if reference is None else _text(reference),
        )


def as_mapping(value: Any, key: str) -> Mapping[str, Any]:
    """The value as a mapping: a mapping as is, a DSPy example's dict, ``{}`` for None, else ``{key: value}``."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return value
    if hasattr(value, "toDict"):  # dspy.Example / dspy.Prediction
        return value.toDict()
    return {key: value}  # a bare string (or message) stands for the field itself


def find_field(source: Source, *mappings: Mapping[str, Any]) -> Any:
    """The first value ``source`` finds (a key or dotted path, candidates in order, or a function) in the
    mappings, in order; None when none has it."""
    for mapping in mappings:
        if callable(source):
            value = source(mapping)
            if value is not None:
                return value
            continue
        for key in [source] if isinstance(source, str) else source:
            value: Any = mapping
            for part in key.split("."):
                value = value.get(part) if isinstance(value, Mapping) else None
            if value is not None:
                return value
    return None


def _missing(field: str, source: Source, mapping: Mapping[str, Any]) -> str:
    tried = "a function" if callable(source) else repr([source] if isinstance(source, str) else list(source))
    keys = sorted(mapping)
    return f"No {field} found: tried {tried} in a mapping with keys {keys!r}. Pass a FieldMap to say where it is."


def _text(value: Any) -> str:
    """A string from a string, a LangChain message, or a mapping with text content."""
    if isinstance(value, str):
        return str(value)  # str subclasses (e.g. LangChain's) become plain strings
    content = getattr(value, "content", None)
    if isinstance(content, str):
        return content
    if isinstance(value, Mapping):
        for key in ("content", "text", "answer", "output"):
            if isinstance(value.get(key), str):
                return value[key]
    msg = f"Expected text (a string or a message). Got {type(value).__name__}: {str(value)[:80]!r}."
    raise TypeError(msg)


def retrieved_documents(run: Any) -> list[Any]:
    """The documents returned by the retriever runs inside ``run`` (a LangSmith ``Run`` or ``RunTree``).

    Walks ``child_runs`` depth first, in order, and takes ``outputs["documents"]`` of every run whose
    ``run_type`` is ``"retriever"`` (documents, mappings with ``page_content``, or LangChain's serialised
    form), as the callback handler takes the documents of ``on_retriever_end``.
    """
    found: list[Any] = []
    stack = list(reversed(getattr(run, "child_runs", None) or []))
    while stack:
        child = stack.pop()
        if getattr(child, "run_type", None) == "retriever":
            outputs = getattr(child, "outputs", None)
            documents = outputs.get("documents") if isinstance(outputs, Mapping) else None
            if isinstance(documents, Sequence) and not isinstance(documents, (str, bytes)):
                found.extend(_document(d) for d in documents)
        stack.extend(reversed(getattr(child, "child_runs", None) or []))
    return found


def contexts_in(value: Any, *, strings: bool = False) -> list[Any]:
    """The contexts a value holds (what a run returned, or what it was called with): a document, a list of
    documents, or documents or strings under one of :class:`FieldMap`'s context keys (``contexts``, ``context``,
    ``documents``, ``source_documents``, ``retrieved_contexts``, ``docs``) of a mapping. With ``strings=True`` a
    bare string or list of strings counts too. Anything else holds none: ``[]``.

    Example:
        >>> contexts_in({"question": "Where is Paris?", "docs": ["Paris is in France."]})
        ['Paris is in France.']
        >>> contexts_in(["query one", "query two"]), contexts_in(["Paris is in France."], strings=True)
        ([], ['Paris is in France.'])
    """
    if isinstance(value, Mapping):
        value, strings = find_field(FieldMap.contexts, value), True
    items = [value] if isinstance(value, str) or hasattr(value, "page_content") else value
    if isinstance(items, (list, tuple)) and items and all(_is_context(item, strings) for item in items):
        return list(items)
    return []


def _is_context(item: Any, strings: bool) -> bool:
    return hasattr(item, "page_content") or (strings and isinstance(item, str))


def _document(value: Any) -> Any:
    """A document as the sample takes it; LangChain's serialised form (``{"lc": 1, "kwargs": {...}}``) unwrapped."""
    if isinstance(value, Mapping) and "page_content" not in value and isinstance(value.get("kwargs"), Mapping):
        return value["kwargs"]
    return value


def _contexts(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (str, bytes, Mapping)) or hasattr(value, "page_content"):
        return [value]
    return list(value)


#: Held while a deferred judge is built (the first scores of several threads may come together).
_BUILDING = threading.Lock()


class JudgeWhenNeeded:
    """An integration's judge, wrapped as :func:`rageval_lc.evaluate` wraps it (:func:`resilient_judge`), and
    built when first needed if it is the offline judge on ``auto`` or ``cpu`` (``None`` or ``"offline"``, or its old
    name ``"local"``): building it imports torch to find the device, nearly all of the time an evaluator took to
    construct, which a first score then pays instead. Any other judge is built at once; bad options are refused at
    once either way.

    Example:
        >>> judge = JudgeWhenNeeded(None, {"retries": 1, "trace_mode": "capstone"})
        >>> judge.deferred, judge.options
        (True, {'trace_mode': 'capstone'})
    """

    def __init__(self, judge: Any, options: Mapping[str, Any]) -> None:
        device = options.get("device", "auto")
        self.deferred = is_packaged_offline(judge) and check_device(device) in ("auto", "cpu")
        if self.deferred:  # the same checks of the options, on a judge that costs nothing to build
            checked = {k: v for k, v in options.items() if k != "cache_dir"}  # its directory: made when built
            _, self.options = resilient_judge("labels", checked)
            self._judge: Any = None
            self._given = (judge, dict(options))
        else:
            self._judge, self.options = resilient_judge(judge, options)

    def get(self) -> Any:
        """The judge (built now if it was deferred)."""
        if self._judge is None:
            with _BUILDING:
                if self._judge is None:
                    self._judge, _ = resilient_judge(*self._given)
        return self._judge


class MetricScorer:
    """One metric, its judge and options: scores samples and picks out the results integrations report.

    The judge is wrapped as :func:`rageval_lc.evaluate` wraps it
    (:func:`~rageval_lc.engine.engine.make_resilient`): a judgement that fails for a transient reason
    (a timeout, HTTP 429 or 5xx, a dropped connection) is retried, and when it keeps failing its scores
    are ``error`` results with the reason. Wrapping calls no model and loads none; the offline judge is built at
    the first score (:class:`JudgeWhenNeeded`).

    Args:
        metric: a metric name of :data:`~rageval_lc.scoring.registry.REGISTRY`.
        judge: see :func:`resolve_judge` (None: the offline judge).
        **options: the judge's :data:`RESILIENCE_OPTIONS` (``requests_per_minute``, ``timeout_s``, ``retries``,
            ``backoff_s``, ``cache_dir``: as :func:`rageval_lc.evaluate`); the others are passed to
            :func:`~rageval_lc.scoring.sample.evaluate_sample` (``scoring_mode``, ``trace_mode``,
            ``relevance_normalizer``, ``embeddings``).

    Example:
        >>> scorer = MetricScorer("answer_classification", judge="labels", retries=1)
        >>> scorer.judge.name, scorer.judge.retries
        ('labels', 1)
    """

    def __init__(self, metric: str, *, judge: Any = None, **options: Any) -> None:
        self.spec: MetricSpec = get_metric(metric)
        self._judge = JudgeWhenNeeded(judge, options)
        self.options = self._judge.options

    @property
    def judge(self) -> Any:
        """The judge, wrapped (built at first use when it is the offline judge)."""
        return self._judge.get()

    @property
    def name(self) -> str:
        """The metric's name."""
        return self.spec.name

    def score(self, sample: RagSample, *, no_contexts_reason: str | None = None) -> SampleResult:
        """Score the sample on this metric (judge failures come back as ``error`` results, not exceptions).

        Without contexts a metric that needs them is ``undetermined``: ``no_contexts_reason`` says why
        (default: none were given).
        """
        options = dict(self.options)
        if no_contexts_reason is not None:
            options["no_contexts_reason"] = no_contexts_reason
        return evaluate_sample(sample, [self.spec.name], judge=self.judge, **options)

    def single(self, result: SampleResult) -> MetricResult:
        """The result that stands for the metric."""
        return result.results[self.spec.single]

    def headlines(self, result: SampleResult) -> list[MetricResult]:
        """The results reported as the metric's own."""
        return [result.results[name] for name in self.spec.headlines]
