"""Compile (optimize) a judge against labelled rows, with agreement as the metric.

The TRACe labelling module of a :class:`~rageval_lc.judges.llm.dspy_judge.DspyJudge` is compiled like any
DSPy program: the training set is labelled samples (RAGBench rows carry labels), the metric is how
closely the judge's TRACe scores agree with the labels' scores. BootstrapFewShot is the default; any
DSPy optimizer (LabeledFewShot, BootstrapFewShotWithRandomSearch, KNNFewShot, COPRO, SIMBA, GEPA,
InferRules, MIPROv2 with optuna installed, ...) can be passed instead — its ``compile`` gets only the
arguments it accepts, and the metric follows DSPy's contract, including ``dspy.Prediction(score=,
feedback=)`` for GEPA.

Example:
    >>> agreement_score({"context_relevance": 0.5, "context_utilization": 0.2, "completeness": 1.0, "adherence": 1.0},
    ...                 {"context_relevance": 0.3, "context_utilization": 0.2, "completeness": 1.0, "adherence": 1.0})
    0.95
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from typing import Any

import dspy

from rageval_lc.judges.llm.dspy_judge import DspyJudge
from rageval_lc.judges.readings import labels_from_prediction, trace_inputs
from rageval_lc.metrics.trace import TRACE_METRICS, trace_scores
from rageval_lc.schema import RagSample

__all__ = ["agreement_score", "compile_judge", "trace_agreement_metric", "trace_examples"]


def trace_examples(samples: Iterable[RagSample]) -> list[dspy.Example]:
    """DSPy examples for the TRACe labelling module: rendered inputs, the labels as gold outputs.

    Raises:
        ValueError: If a sample carries no labels.
    """
    examples = []
    for sample in samples:
        if sample.labels is None:
            msg = f"Sample {sample.id!r} has no labels: only labelled samples can train a judge."
            raise ValueError(msg)
        labels = sample.labels
        gold = {
            "relevance_explanation": labels.relevance_explanation,
            "all_relevant_sentence_keys": labels.all_relevant_sentence_keys,
            "overall_supported_explanation": labels.overall_supported_explanation,
            "overall_supported": bool(labels.overall_supported),
            "sentence_support_information": [
                {**entry.model_dump(), "fully_supported": bool(entry.fully_supported)}
                for entry in labels.sentence_support_information
            ],
            "all_utilized_sentence_keys": labels.all_utilized_sentence_keys,
        }
        example = dspy.Example(**trace_inputs(sample), **gold, sample=sample)
        examples.append(example.with_inputs("question", "documents", "response"))
    return examples


def agreement_score(predicted: Mapping[str, Any], gold: Mapping[str, Any]) -> float:
    """1 − the mean absolute difference over the TRACe metrics both sides have (1.0 = full agreement)."""
    diffs = [
        abs(float(predicted[m]) - float(gold[m]))
        for m in TRACE_METRICS
        if predicted.get(m) is not None and gold.get(m) is not None
    ]
    return round(1.0 - sum(diffs) / len(diffs), 10) if diffs else 0.0


def trace_agreement_metric(
    example: dspy.Example,
    prediction: Any,
    trace: Any = None,
    pred_name: str | None = None,
    pred_trace: Any = None,
    *,
    threshold: float = 0.9,
) -> float | bool | dspy.Prediction:
    """DSPy metric: agreement of the predicted labels' TRACe scores with the gold labels' (ragbench mode).

    A float when ``trace`` is None, a bool (score ≥ ``threshold``) while bootstrapping, and
    ``dspy.Prediction(score=, feedback=)`` when ``pred_name`` asks for feedback (GEPA).
    """
    sample: RagSample = example.sample
    gold = trace_scores(sample.labels, sample.sentences).to_dict()  # type: ignore[arg-type]
    try:
        predicted = trace_scores(labels_from_prediction(prediction), sample.sentences).to_dict()
    except (TypeError, ValueError, AttributeError):
        predicted = {}
    score = agreement_score(predicted, gold)
    if pred_name is not None:
        off = [
            f"{m}: predicted {predicted.get(m)}, labels say {gold[m]:.2f}"
            for m in TRACE_METRICS
            if predicted.get(m) is None or abs(predicted[m] - gold[m]) > 0.1
        ]
        feedback = "Agrees with the labels." if not off else "Disagrees on " + "; ".join(off) + "."
        return dspy.Prediction(score=score, feedback=feedback)
    return score if trace is None else score >= threshold


def compile_judge(
    judge: DspyJudge,
    samples: Iterable[RagSample],
    *,
    optimizer: Any = None,
    teacher_lm: Any = None,
    max_bootstrapped_demos: int = 2,
    max_labeled_demos: int = 2,
) -> DspyJudge:
    """Compile the judge's TRACe labelling module on labelled samples; returns the same judge, updated.

    Args:
        judge: the judge to improve (its LM answers as the student).
        samples: labelled samples to learn from.
        optimizer: a DSPy optimizer built with :func:`trace_agreement_metric`; BootstrapFewShot by default.
            Its ``compile`` gets only what it accepts: the training set (``KNNFewShot`` takes it when built)
            and, with ``teacher_lm``, a teacher.
        teacher_lm: an LM to bootstrap demonstrations with (default: the judge's own LM).
        max_bootstrapped_demos, max_labeled_demos: BootstrapFewShot's demo budget.

    Raises:
        ValueError: If ``teacher_lm`` is given for an optimizer whose ``compile`` takes no teacher.
    """
    trainset = trace_examples(samples)
    if optimizer is None:
        optimizer = dspy.BootstrapFewShot(
            metric=trace_agreement_metric,
            max_bootstrapped_demos=max_bootstrapped_demos,
            max_labeled_demos=max_labeled_demos,
        )
    student = judge.modules["trace_labels"]
    accepted = _compile_parameters(optimizer)
    arguments: dict[str, Any] = {"trainset": trainset} if "trainset" in accepted else {}
    if teacher_lm is not None:
        if "teacher" not in accepted:
            msg = f"{type(optimizer).__name__} takes no teacher: leave out teacher_lm, or use an optimizer that does."
            raise ValueError(msg)
        teacher = student.deepcopy()
        teacher.set_lm(teacher_lm)
        arguments["teacher"] = teacher
    with dspy.context(lm=judge.lm):
        compiled = optimizer.compile(student, **arguments)
    judge.modules["trace_labels"] = compiled
    return judge


def _compile_parameters(optimizer: Any) -> set[str]:
    """The keyword arguments the optimizer's ``compile`` accepts (all of ours when it takes ``**kwargs``).

    DSPy's optimizers differ: ``LabeledFewShot``, ``COPRO`` and ``SIMBA`` take no teacher, ``KNNFewShot``
    gets its training set when built and takes none in ``compile``.
    """
    parameters = inspect.signature(optimizer.compile).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return {"trainset", "teacher"}
    return {p.name for p in parameters if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
