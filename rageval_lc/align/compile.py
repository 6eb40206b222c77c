"""Compile every judgement module a set of metrics uses, from labelled rows (``align_judge`` for LLM judges).

:func:`~rageval_lc.judges.llm.optimize.compile_judge` compiles the TRACe labelling module alone. Here each module the
metrics' plan calls (:func:`~rageval_lc.scoring.plan.metric_judgements`) gets training examples from the labels
that map onto it, its inputs rendered as the judge renders them:

- ``trace_labels``: rows that carry TRACe labels (RAGBench's, or a generic row's ``labels``);
- ``verify_claims``: each response sentence as a claim, supported unless the labels say it is not (sentence
  labels, sentence verdicts, or a faithful row);
- ``context_relevance``: each context relevant when one of its sentences is labelled relevant, its score the
  share of them.

A module no label maps onto (claim extraction, the reference judgements, …) is left as it is and named in the
report. With a ``checkpoint`` folder each compiled module is saved there as soon as it is done, under a fingerprint of
what went into it (the model, the optimizer, the examples, the module as it was): a compile stopped half-way and run
again with the same folder loads the modules already done instead of compiling them again.

``LabeledFewShot`` (no model call) is the default optimizer; ``"bootstrap"`` runs ``BootstrapFewShot`` with
a metric per module (the share of verdicts that agree with the labels), or pass any optimizer factory.

Example:
    >>> from rageval_lc.datasets.labelled import read_labelled
    >>> rows = read_labelled([{"question": "Q?", "contexts": ["A b. C d."], "response": "A b.", "faithful": True}])
    >>> [example.verdicts[0].supported for example in module_examples("verify_claims", rows)]
    [True]
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dspy

from rageval_lc.datasets.labelled import LabelledSample, read_labelled
from rageval_lc.files import write_atomic
from rageval_lc.judges.declarations import DECLARATIONS
from rageval_lc.judges.llm.dspy_judge import DspyJudge, lm_identity
from rageval_lc.judges.llm.optimize import trace_agreement_metric, trace_examples
from rageval_lc.judges.llm.signatures import ClaimVerdictItem, ContextVerdictItem

__all__ = ["CompileReport", "compile_modules", "module_examples", "modules_for"]


@dataclass
class CompileReport:
    """What :func:`compile_modules` compiled (module → training examples), left alone (module → why), loaded from
    its checkpoint instead of compiling again, and the model calls it planned (an upper bound; 0 for
    ``LabeledFewShot`` and for the modules a checkpoint already holds)."""

    compiled: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    resumed: list[str] = field(default_factory=list)
    planned_calls: int = 0


def modules_for(metrics: str | Sequence[str], mode: str = "shared") -> list[str]:
    """The judgement modules the metrics' plan calls in scoring ``mode``, each once, in order.

    Example:
        >>> modules_for("faithfulness,context_precision")  # shared: one TRACe labelling serves both
        ['trace_labels']
        >>> modules_for("faithfulness,context_precision", mode="separate")
        ['extract_claims', 'verify_claims', 'context_relevance']
    """
    from rageval_lc.scoring.plan import metric_judgements
    from rageval_lc.scoring.registry import parse_metrics

    names: list[str] = []
    for spec in parse_metrics(metrics):
        for judgement in metric_judgements(spec.name, mode):
            if judgement not in names:
                names.append(judgement)
    return names


def _claims_example(x: LabelledSample) -> dspy.Example | None:
    unsupported = x.unsupported if x.unsupported is not None else (frozenset() if x.hallucinated is False else None)
    if unsupported is None:
        return None
    sentences = x.sample.sentences.response
    claims = [text for _, text in sentences]
    verdicts = [
        ClaimVerdictItem(claim_number=i + 1, supported=key not in unsupported, reason="as labelled")
        for i, (key, _) in enumerate(sentences)
    ]
    inputs = DECLARATIONS["verify_claims"].prompt({"claims": claims, "contexts": x.sample.contexts})
    return dspy.Example(**inputs, verdicts=verdicts).with_inputs(*inputs)


def _contexts_example(x: LabelledSample) -> dspy.Example | None:
    if x.relevant is None or not x.sample.contexts:
        return None
    verdicts = []
    for i, doc in enumerate(x.sample.sentences.documents):
        keys = [key for key, _ in doc]
        hits = sum(key in x.relevant for key in keys)
        share = hits / len(keys) if keys else 0.0
        verdicts.append(
            ContextVerdictItem(
                context_number=i + 1, is_relevant=hits > 0, relevance_score=round(100 * share), reasoning="as labelled"
            )
        )
    sample = x.sample
    inputs = DECLARATIONS["context_relevance"].prompt(
        {"question": sample.question, "contexts": sample.contexts, "reference": sample.reference}
    )
    return dspy.Example(**inputs, verdicts=verdicts).with_inputs(*inputs)


def _trace_example(x: LabelledSample) -> dspy.Example | None:
    return trace_examples([x.sample])[0] if x.sample.labels is not None else None


_EXAMPLES: dict[str, Callable[[LabelledSample], dspy.Example | None]] = {
    "trace_labels": _trace_example,
    "verify_claims": _claims_example,
    "context_relevance": _contexts_example,
}


def module_examples(judgement: str, labelled: Sequence[LabelledSample]) -> list[dspy.Example]:
    """Training examples for one judgement module from the rows whose labels map onto it (none: no mapping)."""
    build = _EXAMPLES.get(judgement)
    if build is None:
        return []
    return [example for x in labelled if (example := build(x)) is not None]


def _verdict_agreement(field_name: str, flag: str) -> Callable[..., float | bool]:
    """A DSPy metric: the share of the gold verdicts whose ``flag`` the prediction gives alike (by number)."""

    def metric(example: dspy.Example, prediction: Any, trace: Any = None, *_: Any) -> float | bool:
        gold = {getattr(v, field_name): getattr(v, flag) for v in example.verdicts}
        try:
            said = {getattr(v, field_name): getattr(v, flag) for v in prediction.verdicts}
        except (AttributeError, TypeError):
            said = {}
        score = sum(said.get(k) == v for k, v in gold.items()) / max(1, len(gold))
        return score if trace is None else score >= 1.0

    return metric


_METRICS: dict[str, Callable[..., Any]] = {
    "trace_labels": trace_agreement_metric,
    "verify_claims": _verdict_agreement("claim_number", "supported"),
    "context_relevance": _verdict_agreement("context_number", "is_relevant"),
}


def compile_modules(
    judge: DspyJudge,
    data: object,
    metrics: str | Sequence[str] = "trace",
    *,
    optimizer: str | Callable[[Callable[..., Any]], Any] = "labeled",
    max_demos: int = 4,
    mode: str = "shared",
    dry_run: bool = False,
    checkpoint: str | Path | None = None,
    progress: bool = False,
) -> CompileReport:
    """Compile every module ``metrics`` use on the judge, from labelled rows (see the module docstring).

    Args:
        judge: the LLM judge; its modules are replaced by the compiled ones (save it with ``judge.save``).
        data: labelled rows, in any form :func:`~rageval_lc.datasets.labelled.read_labelled` reads.
        optimizer: ``"labeled"`` (LabeledFewShot: demos straight from the labels, no model call),
            ``"bootstrap"`` (BootstrapFewShot with each module's agreement metric), or a factory taking the
            module's metric and returning a DSPy optimizer.
        max_demos: demonstrations per module.
        mode: the scoring mode the judge will run in (``shared``: one TRACe labelling feeds the context and
            faithfulness metrics; ``separate``: each metric's own judgements), which sets the modules compiled.
        dry_run: plan only: say which modules would be compiled, on how many examples, with how many calls.
        checkpoint: a folder where each compiled module is kept as soon as it is done; a module it already holds
            (compiled from the same model, optimizer, examples and starting module) is loaded, not compiled.
        progress: a progress bar over the modules on stderr.

    Raises:
        ValueError: On unreadable rows or an unknown optimizer name.
    """
    if isinstance(optimizer, str) and optimizer not in ("labeled", "bootstrap"):
        raise ValueError(f"Unknown optimizer {optimizer!r}: use 'labeled', 'bootstrap' or an optimizer factory.")
    if isinstance(data, list) and data and all(isinstance(x, LabelledSample) for x in data):
        labelled = data  # already read (align_judge's fitted part): 1-5 scores were read against the whole file
    else:
        labelled = read_labelled(data)
    report = CompileReport()
    todo = []
    for name in modules_for(metrics, mode):
        examples = module_examples(name, labelled)
        if not examples:
            report.skipped[name] = (
                "no label maps onto it" if name not in _EXAMPLES else "no row carries the labels it needs"
            )
            continue
        report.compiled[name] = len(examples)
        saved = None if checkpoint is None else Path(checkpoint) / f"{name}.json"
        stamp = _fingerprint(judge, name, examples, optimizer, max_demos)
        if saved is not None and _stamp_of(saved) == stamp:
            report.resumed.append(name)
            if not dry_run:
                judge.modules[name].load_state(json.loads(saved.read_text(encoding="utf-8"))["state"])
            continue
        report.planned_calls += 0 if optimizer == "labeled" else len(examples)
        todo.append((name, examples, saved, stamp))
    if dry_run or not todo:
        return report
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(todo), unit="module", file=sys.stderr, desc="compiling")
    try:
        for name, examples, saved, stamp in todo:
            if bar is not None:
                bar.set_postfix_str(f"{name} ({len(examples)} examples)")
            judge.modules[name] = _compiled(judge, name, examples, optimizer, max_demos)
            if saved is not None:
                saved.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(
                    saved, json.dumps({"fingerprint": stamp, "state": judge.modules[name].dump_state()}, default=str)
                )
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return report


def _compiled(judge: DspyJudge, name: str, examples: list[dspy.Example], optimizer: Any, max_demos: int) -> Any:
    metric = _METRICS[name]
    if optimizer == "labeled":
        chosen: Any = dspy.LabeledFewShot(k=max_demos)
    elif optimizer == "bootstrap":
        chosen = dspy.BootstrapFewShot(metric=metric, max_bootstrapped_demos=max_demos, max_labeled_demos=max_demos)
    else:
        chosen = optimizer(metric)
    with dspy.context(lm=judge.lm):
        return chosen.compile(judge.modules[name], trainset=examples)


def _fingerprint(judge: DspyJudge, name: str, examples: list[dspy.Example], optimizer: Any, max_demos: int) -> str:
    """What a compiled module depends on, hashed: the model, the optimizer, the examples, the module before."""
    what = {
        "lm": lm_identity(judge.lm),
        "module": name,
        "before": judge.modules[name].dump_state(),
        "optimizer": optimizer if isinstance(optimizer, str) else getattr(optimizer, "__qualname__", repr(optimizer)),
        "max_demos": max_demos,
        "examples": [example.toDict() for example in examples],
    }
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def _stamp_of(saved: Path) -> str | None:
    """The fingerprint a checkpointed module was saved under (None: absent or unreadable)."""
    try:
        data = json.loads(saved.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data.get("fingerprint") if isinstance(data, dict) and "state" in data else None
