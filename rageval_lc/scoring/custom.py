"""Metrics of one's own: a metric module, a criteria metric judged by an LLM on a rubric, or a function of the
sample.

All three join the registry (:data:`~rageval_lc.scoring.registry.REGISTRY`) and the call plan
(:mod:`~rageval_lc.scoring.plan`), so every entry point scores them by name: ``evaluate_sample``, the CLI
(``--metrics`` with ``--load``), the LangChain evaluator, the LangSmith evaluator function, the DSPy
metric, the callback handler and the dry run.

- a metric module: a Python file or module defining ``METRIC = MetricSpec(...)`` with its score function, as
  each built-in metric's module under :mod:`rageval_lc.metrics` does (the spec declares the verdicts the score
  function reads: the built-in ones, shared with the built-in metrics, or a judgement of one's own declared with
  :func:`~rageval_lc.judges.declarations.declare`, read with ``ctx.judgement(name)``); :func:`load_metrics`
  registers it.
- :func:`criteria_metric`: the judge reads the fields the metric ``uses`` and answers with one rubric
  level and a reason, in one call of its own (a DSPy Signature built from the criteria, run by a
  :class:`~rageval_lc.judges.llm.modules.CriteriaJudge` module: compiled, saved and loaded as the built-in
  judges' modules). The score is the level rescaled to [0, 1]: ``(level - lowest) / (highest - lowest)``.
  A judge that cannot judge criteria (the ``offline`` judge, ``labels``) leaves it ``undetermined``
  with a reason saying it needs an LLM judge.
- :func:`register_metric`: ``score(sample)`` returns a float in [0, 1], a ``(float, reason)`` pair or a
  :class:`~rageval_lc.schema.MetricResult`; an exception or another value is that metric's ``error``.

The last two are ``undetermined`` on a sample lacking a field they use (no contexts, no reference, an
empty response); a metric module as its spec and its score function say. Registering a name again replaces
the metric with a warning; a built-in metric's name, or a built-in score's, is refused.
:func:`unregister_metric` and :func:`temporary_metrics` take them out.

Example:
    >>> from rageval_lc.schema import RagSample
    >>> from rageval_lc.scoring.sample import evaluate_sample
    >>> sample = RagSample(question="Where is Paris?", contexts=[], response="In France.")
    >>> with temporary_metrics():
    ...     _ = register_metric("brevity", score=lambda s: 1.0 if len(s.response) < 20 else 0.0, uses=("response",))
    ...     _ = criteria_metric("politeness", criteria="Is the response polite?", rubric={0: "rude", 1: "polite"})
    ...     result = evaluate_sample(sample, "brevity,politeness", judge="labels")
    >>> result.scores()
    {'brevity': 1.0, 'politeness': None}
    >>> result.results["politeness"].reason[:55]
    "The 'labels' judge cannot judge criteria: a criteria me"
    >>> "brevity" in REGISTRY
    False
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import math
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from rageval_lc.scoring import plan
from rageval_lc.scoring.registry import BUILT_IN_METRICS, BUILT_IN_SCORES, REGISTRY, MetricSpec
from rageval_lc.scoring.scorers import score_criteria, score_function
from rageval_lc.verdicts import CRITERIA_DEFINITIONS, CRITERIA_FIELDS, CriteriaDefinition

__all__ = [
    "DEFAULT_RUBRIC",
    "criteria_metric",
    "custom_metrics",
    "load_metrics",
    "load_portable_metrics",
    "portable_metrics",
    "register_metric",
    "restore_metrics",
    "temporary_metrics",
    "unregister_metric",
]

#: The rubric of a criteria metric given none.
DEFAULT_RUBRIC: Mapping[float, str] = {
    0.0: "does not meet the criteria",
    0.5: "partly meets the criteria",
    1.0: "fully meets the criteria",
}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def criteria_metric(
    name: str,
    *,
    criteria: str,
    rubric: Mapping[float, str] | None = None,
    uses: Iterable[str] = ("question", "response"),
    description: str | None = None,
) -> MetricSpec:
    """Register a metric an LLM judge scores on ``criteria`` with ``rubric``; return its spec.

    Args:
        name: the metric's name (letters, digits and ``_``; not a built-in metric's or score's name).
        criteria: what the judge assesses, in plain words (the Signature's instructions carry it).
        rubric: level → what it means, at least two numeric levels (``{0: ..., 0.5: ..., 1: ...}``,
            ``{1: ..., 5: ...}``); the score is the chosen level rescaled to [0, 1]. Default:
            :data:`DEFAULT_RUBRIC` (0, 0.5, 1).
        uses: the sample fields the judge reads: ``question``, ``contexts``, ``response``, ``reference``.
        description: one line for help texts (default: the criteria's first line).

    Returns:
        The registered :class:`~rageval_lc.scoring.registry.MetricSpec` (one score, named ``name``).

    Raises:
        ValueError: If the name is malformed or a built-in's, the criteria are empty, the rubric is not
            at least two distinct finite numeric levels each with a description, or ``uses`` names an
            unknown field (or none).
    """
    caller = "criteria_metric"
    _check_name(name, caller)
    if not isinstance(criteria, str) or not criteria.strip():
        msg = f"The 'criteria' parameter of {caller} must be a non-empty string. Got {criteria!r} instead."
        raise ValueError(msg)
    fields = _check_uses(uses, caller)
    definition = CriteriaDefinition(
        name=name,
        criteria=criteria.strip(),
        rubric=_check_rubric(DEFAULT_RUBRIC if rubric is None else rubric),
        uses=fields,
    )
    spec = MetricSpec(
        name,
        (name,),
        description or f"Criteria (LLM judge): {criteria.strip().splitlines()[0]}",
        partial(score_criteria, definition),
        needs_reference="reference" in fields,
        needs_contexts="contexts" in fields,
        verdicts=(definition.judgement,),
    )
    _register(spec, spec.reads, definition)
    return spec


def register_metric(
    name: str,
    *,
    score: Callable[[Any], Any],
    uses: Iterable[str] = (),
    description: str | None = None,
) -> MetricSpec:
    """Register a metric computed by ``score(sample)`` (no judge); return its spec.

    Args:
        name: the metric's name (letters, digits and ``_``; not a built-in metric's or score's name).
        score: called with the :class:`~rageval_lc.schema.RagSample`; returns a float in [0, 1], a
            ``(float, reason)`` pair or a :class:`~rageval_lc.schema.MetricResult`.
        uses: the sample fields it needs (``question``, ``contexts``, ``response``, ``reference``): on a
            sample lacking one it is ``undetermined`` and ``score`` is not called.
        description: one line for help texts (default: the function's docstring's first line).

    Raises:
        ValueError: If the name is malformed or a built-in's, or ``uses`` names an unknown field.
        TypeError: If ``score`` is not callable.
    """
    caller = "register_metric"
    _check_name(name, caller)
    if not callable(score):
        msg = f"The 'score' parameter of {caller} must be a function of the sample. Got {type(score).__name__}."
        raise TypeError(msg)
    fields = _check_uses(uses, caller, allow_empty=True)
    doc = (getattr(score, "__doc__", None) or "").strip()
    spec = MetricSpec(
        name,
        (name,),
        description or (doc.splitlines()[0] if doc else f"{name}: a function of the sample (no judge)."),
        partial(score_function, name, score, fields),
        needs_reference="reference" in fields,
        needs_contexts="contexts" in fields,
    )
    _register(spec, spec.reads, None)
    return spec


def unregister_metric(name: str) -> None:
    """Take a metric of one's own out of the registry and the plan.

    Raises:
        ValueError: If ``name`` is a built-in metric or no metric of one's own has it.
    """
    if name in BUILT_IN_METRICS:
        msg = f"{name!r} is a built-in metric: it cannot be unregistered."
        raise ValueError(msg)
    if name not in REGISTRY:
        msg = f"No metric of one's own is named {name!r} (registered: {', '.join(custom_metrics()) or 'none'})."
        raise ValueError(msg)
    del REGISTRY[name]
    _FROM_LOADS.discard(name)
    plan.remove_metric(name)
    CRITERIA_DEFINITIONS.pop(name, None)


def custom_metrics() -> list[str]:
    """The names of the metrics of one's own registered now, in registration order."""
    return [name for name in REGISTRY if name not in BUILT_IN_METRICS]


@contextmanager
def temporary_metrics() -> Iterator[None]:
    """Inside the block, register metrics freely; on leaving it the metrics of one's own are those before
    it, as they were (tests use it so that no registration leaks into another test)."""
    saved = {
        name: (REGISTRY[name], plan.METRIC_VERDICTS[name], CRITERIA_DEFINITIONS.get(name)) for name in custom_metrics()
    }
    loaded, from_loads = list(_LOADED), set(_FROM_LOADS)
    try:
        yield
    finally:
        for name in custom_metrics():
            unregister_metric(name)
        for spec, verdicts, definition in saved.values():
            _register(spec, verdicts, definition, quiet=True)
        _LOADED[:] = loaded  # what workers load again, as before the block
        _FROM_LOADS.clear()
        _FROM_LOADS.update(from_loads)


#: What :func:`load_metrics` imported, in order: worker processes and Ray actors load them again.
_LOADED: list[str] = []
_FROM_LOADS: set[str] = set()  # the metrics those files and modules registered (they register them there too)


def portable_metrics() -> tuple[list[str], list[tuple[MetricSpec, tuple[str, ...], CriteriaDefinition | None]]]:
    """The metrics of one's own as another process needs them: the files and modules loaded (to load
    again there first: they register their metrics there too) and the other registrations (sent by pickle).

    Example:
        >>> with temporary_metrics():
        ...     _ = register_metric("has_answer", score=lambda sample: float(bool(sample.response)))
        ...     loads, registered = portable_metrics()
        >>> [spec.name for spec, _, _ in registered]
        ['has_answer']
    """
    names = [n for n in custom_metrics() if n not in _FROM_LOADS]
    return list(_LOADED), [(REGISTRY[n], plan.METRIC_VERDICTS[n], CRITERIA_DEFINITIONS.get(n)) for n in names]


def load_portable_metrics(loads: Iterable[str]) -> None:
    """In a worker process: load again what the parent loaded (before unpickling its metrics)."""
    for target in loads:
        if target not in _LOADED:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                load_metrics(target)


def restore_metrics(registered: Iterable[tuple[MetricSpec, tuple[str, ...], CriteriaDefinition | None]]) -> None:
    """In a worker process: register the parent's metrics of one's own (those not registered yet)."""
    for spec, verdicts, definition in registered:
        if REGISTRY.get(spec.name) is not spec:
            _register(spec, verdicts, definition, quiet=True)


def load_metrics(target: str) -> list[str]:
    """Import a Python file (``my_metrics.py``) or module (``package.metrics``) that defines a metric
    (``METRIC = MetricSpec(...)``) or registers metrics; return the names registered (or replaced) by it. The
    CLI's ``--load`` calls this before parsing ``--metrics``.

    Raises:
        ValueError: If the file does not exist, importing it fails, or its ``METRIC`` cannot be registered (not
            a :class:`~rageval_lc.metrics.spec.MetricSpec`, a name that is malformed or a built-in's, a verdict
            the plan does not know); the message names the error.
    """
    before = dict(REGISTRY)
    path = Path(target)
    is_file = target.endswith(".py") or path.is_file()
    if is_file and not path.is_file():
        msg = f"cannot load metrics from {target!r}: no such file."
        raise ValueError(msg)
    try:
        module = _import_file(path) if is_file else importlib.import_module(target)
        _register_module(module)
    except Exception as exc:  # the user's code: whatever it raises is reported in one line
        first = (str(exc).strip().splitlines() or [""])[0]
        msg = f"cannot load metrics from {target!r}: {type(exc).__name__}: {first}"
        raise ValueError(msg) from exc
    _LOADED.append(str(path.resolve()) if is_file else target)
    registered = [name for name in REGISTRY if before.get(name) is not REGISTRY[name]]
    _FROM_LOADS.update(registered)
    return registered


def _import_file(path: Path) -> ModuleType:
    """Run a Python file as a module of its own (under a name made from its path)."""
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    name = f"rageval_lc_user_metrics_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # as an import does: dataclasses and pickling look the module up
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _register_module(module: ModuleType) -> None:
    """Register the module's ``METRIC`` (a metric module), unless registered as it is."""
    spec = getattr(module, "METRIC", None)
    if spec is None or REGISTRY.get(getattr(spec, "name", None)) is spec:
        return
    if not isinstance(spec, MetricSpec):
        msg = f"its METRIC must be a MetricSpec. Got {type(spec).__name__} instead."
        raise TypeError(msg)
    _check_name(spec.name, "MetricSpec")
    for score in spec.scores:
        _check_name(score, "MetricSpec", parameter="scores")
    unknown = [verdict for verdict in spec.reads if verdict not in plan.VERDICTS and not plan.is_declared(verdict)]
    if unknown:
        msg = (
            f"its METRIC reads {unknown}: a metric module reads the verdicts {', '.join(plan.VERDICTS)} or a "
            "judgement of one's own declared with declare() before the metric is loaded."
        )
        raise ValueError(msg)
    _register(spec, spec.reads, None)


# --- checks and bookkeeping ---------------------------------------------------------------------------


def _register(
    spec: MetricSpec, verdicts: tuple[str, ...], definition: CriteriaDefinition | None, *, quiet: bool = False
) -> None:
    if spec.name in REGISTRY and not quiet:
        warnings.warn(f"The metric {spec.name!r} was registered before; it is replaced.", UserWarning, stacklevel=3)
    if spec.name in REGISTRY:
        unregister_metric(spec.name)
    plan.add_metric(spec.name, verdicts)
    if definition is not None:
        CRITERIA_DEFINITIONS[spec.name] = definition
    REGISTRY[spec.name] = spec


def _check_name(name: object, caller: str, *, parameter: str = "name") -> None:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        msg = (
            f"The {parameter!r} parameter of {caller} must be letters, digits and '_' (not starting with a digit), "
            f"usable in --metrics. Got {name!r} instead."
        )
        raise ValueError(msg)
    if name in BUILT_IN_METRICS or name in BUILT_IN_SCORES:
        what = "metric" if name in BUILT_IN_METRICS else "score"
        msg = f"The {parameter!r} parameter of {caller} clashes with the built-in {what} {name!r}. Choose another name."
        raise ValueError(msg)


def _check_uses(uses: Iterable[str], caller: str, *, allow_empty: bool = False) -> tuple[str, ...]:
    if isinstance(uses, str):
        uses = (uses,)
    fields = tuple(uses)
    unknown = [f for f in fields if f not in CRITERIA_FIELDS]
    if unknown or (not fields and not allow_empty) or len(set(fields)) != len(fields):
        problem = f"unknown fields {unknown}" if unknown else "no field" if not fields else "a field named twice"
        msg = (
            f"The 'uses' parameter of {caller} must name sample fields among {', '.join(CRITERIA_FIELDS)}, "
            f"each once ({problem}). Got {fields!r} instead."
        )
        raise ValueError(msg)
    return tuple(f for f in CRITERIA_FIELDS if f in fields)  # prompt order


def _check_rubric(rubric: object) -> dict[float, str]:
    """The rubric as float level → description, or ValueError saying what is wrong."""
    problem = None
    if not isinstance(rubric, Mapping):
        problem = "it is not a mapping of level to description"
    elif len(rubric) < 2:
        problem = "it needs at least two levels"
    else:
        for level, meaning in rubric.items():
            if isinstance(level, bool) or not isinstance(level, (int, float)) or not math.isfinite(level):
                problem = f"the level {level!r} is not a finite number"
            elif not isinstance(meaning, str) or not meaning.strip():
                problem = f"the level {level!r} has no description"
            if problem:
                break
    if problem:
        msg = (
            "The 'rubric' parameter of criteria_metric must map at least two distinct numeric levels to "
            f"descriptions, e.g. {{0: 'no', 1: 'yes'}} ({problem}). Got {rubric!r} instead."
        )
        raise ValueError(msg)
    assert isinstance(rubric, Mapping)
    return {float(level): meaning.strip() for level, meaning in sorted(rubric.items())}
