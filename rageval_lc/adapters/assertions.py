"""``assert_scores``: RAG tests as plain asserts, in pytest or anywhere (as deepeval's ``assert_test``).

Give it a sample to score (a :class:`~rageval_lc.schema.RagSample` or a row as ``rageval evaluate`` reads them)
or results already made (a :class:`~rageval_lc.scoring.sample.SampleResult`, a mapping of
:class:`~rageval_lc.schema.MetricResult`, an :class:`~rageval_lc.engine.engine.EvaluationRun`, result rows), and a
condition per score; every row must meet every condition, and an undetermined or failed score never does.
This module imports no test framework: :mod:`rageval_lc.adapters.pytest_plugin` only adds the options and the
``rageval_judge`` fixture that choose the judge used when none is given.

Example:
    >>> from rageval_lc import RagSample
    >>> sample = RagSample(question="Where is Paris?", contexts=["Paris is in France. It is big."],
    ...                    response="Paris is in France.",
    ...                    labels={"all_relevant_sentence_keys": ["0a"], "all_utilized_sentence_keys": ["0a"],
    ...                            "unsupported_response_sentence_keys": []})
    >>> assert_scores(sample, judge="labels", adherence=1, context_relevance=">=0.5").scores()["adherence"]
    1.0
    >>> assert_scores(sample, judge="labels", context_relevance="> 0.5")
    Traceback (most recent call last):
    ...
    AssertionError: rageval: 1 score fell short (judge labels):
      context_relevance = 0.500, needs > 0.5: 1 relevant sentence over 2 document sentences.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rageval_lc.engine.engine import EvaluationRun, score_items
from rageval_lc.judges.base import Judge
from rageval_lc.judges.factory import resolve_judge
from rageval_lc.reports.gate import Threshold, parse_condition
from rageval_lc.schema import MetricResult, RagSample
from rageval_lc.scoring.registry import REGISTRY, MetricSpec, parse_metrics
from rageval_lc.scoring.sample import SampleResult

__all__ = ["DEFAULT_JUDGE", "assert_scores", "configure_judge", "configured_judge", "metrics_for"]

#: The judge used when none is given or configured: the offline one.
DEFAULT_JUDGE = "offline"
#: Failures listed in one message at most; the rest are counted.
SHOWN_FAILURES = 20

_configured: dict[str, Any] = {"spec": None, "judge": None}


def configure_judge(spec: str | None, judge: Any = None) -> tuple[str | None, Any]:
    """Set the judge :func:`assert_scores` uses when given none (``labels``, ``offline``, ``dspy:<model id>``;
    None: the offline judge), built on first use unless ``judge`` is the one already built for ``spec``.
    Returns the previous setting, so that a nested pytest session restores it: ``configure_judge(*previous)``
    takes ``(spec, judge)`` back. The pytest plugin calls this at start-up.

    Example:
        >>> previous = configure_judge("labels")
        >>> configured_judge().name
        'labels'
        >>> configure_judge(*previous)[0]
        'labels'
    """
    previous = (_configured["spec"], _configured["judge"])
    _configured.update(spec=spec, judge=judge)
    return previous


def configured_judge() -> Any:
    """The configured judge, built once (the offline judge's model loads on its first judgement)."""
    if _configured["judge"] is None:
        from rageval_lc.judges.factory import resolve_judge

        _configured["judge"] = resolve_judge(_configured["spec"] or DEFAULT_JUDGE)
    return _configured["judge"]


def metrics_for(scores: Iterable[str]) -> list[str]:
    """The registry metrics that report ``scores``, in order of first need.

    Raises:
        ValueError: If no metric reports one of them (the message lists the known scores).

    Example:
        >>> metrics_for(["adherence", "faithfulness", "context_relevance"])
        ['trace', 'faithfulness']
    """
    scores = list(scores)
    by_score: dict[str, str] = {}
    for spec in REGISTRY.values():
        for score in spec.scores:
            by_score.setdefault(score, spec.name)
    unknown = [score for score in scores if score not in by_score]
    if unknown:
        msg = f"No metric reports {', '.join(map(repr, unknown))}. Known scores: {', '.join(sorted(by_score))}."
        raise ValueError(msg)
    return list(dict.fromkeys(by_score[score] for score in scores))


@dataclass(frozen=True)
class _Row:
    """One sample's results: per score, ``(status, score, reason)``."""

    id: str | None
    scores: dict[str, tuple[str, float | None, str]]


def assert_scores(
    subject: Any,
    /,
    *,
    judge: Any = None,
    metrics: str | Iterable[str] | None = None,
    **conditions: object,
) -> Any:
    """Assert that scores meet conditions; raise :class:`AssertionError` saying which did not, and why.

    Args:
        subject: what to check: a :class:`RagSample` or a sample row (a dict as ``rageval evaluate`` reads it),
            scored here; or results: a :class:`SampleResult`, a mapping of score name to :class:`MetricResult`
            (or one :class:`MetricResult`), an :class:`EvaluationRun`, a result row (``status`` and ``scores``
            per score, as ``rageval evaluate --out`` writes it) or a list of result rows or SampleResults.
        judge: the judge scoring a sample (a name, a judge, a ``dspy.LM`` or a chat model); None: the judge
            configured by the pytest plugin (``--rageval-judge``), else the offline judge. Ignored for results.
        metrics: the metrics scoring a sample; None: those that report the scores named in ``conditions``.
        **conditions: per score name, ``">=0.8"``, ``"> 0.5"``, ``"<=0.2"``, ``"<0.2"``, ``"==1"`` or a bare number
            (meaning ``>=``), each number in [0, 1].

    Returns:
        The results checked: the :class:`SampleResult` of a scored sample, else ``subject``.

    Raises:
        AssertionError: If a score misses its condition or is not ``ok`` (undetermined or error); the message
            gives, per failure, the row id (for several rows), the value, the condition and the judge's reason.
            A sample the judge cannot score (the ``labels`` judge on a sample without labels, a judgement the
            judge cannot make) fails so too, each score ``error`` with the exception as its reason, as in a run.
        ValueError: If there is no condition, a condition is malformed, a metric or judge name is unknown, or
            no result carries a score named.
        TypeError: If ``subject`` is none of the above.
    """
    __tracebackhide__ = True  # pytest shows the caller's line and the message, not this function
    if not conditions:
        msg = "assert_scores needs at least one condition, e.g. faithfulness='>=0.8'."
        raise ValueError(msg)
    thresholds = [parse_condition(score, condition) for score, condition in conditions.items()]
    judge_name = None
    if isinstance(subject, Mapping) and not _is_results(subject):
        subject = _sample(subject)
    if isinstance(subject, RagSample):
        scored = resolve_judge(judge if judge is not None else configured_judge())
        specs = parse_metrics(metrics if metrics is not None else metrics_for(t.score for t in thresholds))
        subject = _scored(subject, specs, scored)
        judge_name = getattr(scored, "name", None)
    rows = _rows(subject)
    failures = _failures(rows, thresholds)
    if failures:
        count = f"{len(failures)} score{'s' if len(failures) != 1 else ''} fell short"
        by = f" (judge {judge_name})" if judge_name else ""
        shown = failures[:SHOWN_FAILURES]
        more = len(failures) - len(shown)
        lines = [f"rageval: {count}{by}:", *(f"  {line}" for line in shown)]
        if more:
            lines.append(f"  ... and {more} more")
        raise AssertionError("\n".join(lines))
    return subject


def _scored(sample: RagSample, specs: list[MetricSpec], judge: Judge) -> SampleResult:
    """``sample`` scored as a run scores it: a judge that cannot score it (no labels for the ``labels``
    judge, a judgement it cannot make, a failed call) makes every score ``error`` with the reason, so that
    the assertion fails saying why, as it does on a run's results."""
    return next(score_items([(0, sample)], specs, judge))[1]


def _is_results(subject: Mapping[str, Any]) -> bool:
    """A result row (``status`` per score) or a mapping of :class:`MetricResult`, rather than a sample row."""
    if isinstance(subject.get("status"), Mapping):
        return True
    return bool(subject) and all(isinstance(value, MetricResult) for value in subject.values())


def _sample(row: Mapping[str, Any]) -> RagSample:
    from rageval_lc.datasets import sample_from_row

    return sample_from_row(dict(row))


def _rows(subject: Any) -> list[_Row]:
    if isinstance(subject, EvaluationRun):
        return [_from_results(r.id, r.results) for r in subject.results]
    if isinstance(subject, SampleResult):
        return [_from_results(subject.id, subject.results)]
    if isinstance(subject, MetricResult):
        return [_from_results(None, {subject.name: subject})]
    if isinstance(subject, Mapping):
        if isinstance(subject.get("status"), Mapping):
            return [_from_row(subject)]
        return [_from_results(None, subject)]
    if isinstance(subject, Iterable) and not isinstance(subject, (str, bytes)):
        items = list(subject)
        if items and all(isinstance(item, (SampleResult, Mapping)) for item in items):
            return [row for item in items for row in _rows(item)]
    msg = (
        "assert_scores checks a RagSample, a sample row, a SampleResult, a mapping of MetricResult, an "
        f"EvaluationRun or result rows. Got {type(subject).__name__}."
    )
    raise TypeError(msg)


def _from_results(row_id: str | None, results: Mapping[str, MetricResult]) -> _Row:
    return _Row(row_id, {name: (r.status, r.score, r.reason) for name, r in results.items()})


def _from_row(row: Mapping[str, Any]) -> _Row:
    scores, reasons = row.get("scores") or {}, row.get("reason") or {}
    return _Row(
        None if row.get("id") is None else str(row["id"]),
        {name: (status, scores.get(name), reasons.get(name) or "") for name, status in row["status"].items()},
    )


def _failures(rows: list[_Row], thresholds: list[Threshold]) -> list[str]:
    present = list(dict.fromkeys(name for row in rows for name in row.scores))
    absent = [t.score for t in thresholds if t.score not in present]
    if absent:
        msg = f"No result has the score {', '.join(map(repr, absent))}. Scores present: {', '.join(present) or 'none'}."
        raise ValueError(msg)
    failures = []
    for index, row in enumerate(rows):
        where = f"row {row.id if row.id is not None else index + 1}: " if len(rows) > 1 else ""
        for threshold in thresholds:
            if threshold.score not in row.scores:
                failures.append(f"{where}{threshold.score} not scored, needs {threshold}")
                continue
            status, score, reason = row.scores[threshold.score]
            if status == "ok" and score is not None and threshold.holds(score):
                continue
            shown = f"= {score:.3f}" if status == "ok" and score is not None else status
            failures.append(f"{where}{threshold.score} {shown}, needs {threshold}: {reason or 'no reason given'}")
    return failures
