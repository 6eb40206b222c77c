"""Integrations: LangChain evaluators and Runnables, LangSmith evaluator functions, DSPy metric functions,
a callback handler that scores chains inline (with memory, JSONL, function and LangSmith sinks), and RAG tests
in pytest (``assert_scores``; the ``rageval_judge`` fixture of :mod:`rageval_lc.adapters.pytest_plugin`).

Each is a thin shape over :func:`rageval_lc.scoring.sample.evaluate_sample`; nothing here computes a score.
Names load lazily, so importing this package imports neither LangChain nor DSPy.

Example:
    >>> from rageval_lc.adapters import dspy_metric, langsmith_evaluator
    >>> langsmith_evaluator("faithfulness").__name__
    'rageval_faithfulness'
"""

from __future__ import annotations

from rageval_lc._lazy import lazy_exports

__all__ = [
    "CallableSink",
    "FieldMap",
    "JsonlSink",
    "LangSmithFeedbackSink",
    "MemorySink",
    "MetricScorer",
    "RagEvalCallbackHandler",
    "RagEvaluator",
    "assert_scores",
    "dspy_metric",
    "langsmith_evaluator",
    "resolve_judge",
]

_WHERE = {
    "assert_scores": "rageval_lc.adapters.assertions",
    "FieldMap": "rageval_lc.adapters.common",
    "MetricScorer": "rageval_lc.adapters.common",
    "resolve_judge": "rageval_lc.judges.factory",
    "RagEvaluator": "rageval_lc.adapters.langchain",
    "dspy_metric": "rageval_lc.adapters.dspy_metrics",
    "langsmith_evaluator": "rageval_lc.adapters.langsmith",
    "RagEvalCallbackHandler": "rageval_lc.adapters.callback",
    "CallableSink": "rageval_lc.adapters.sinks",
    "JsonlSink": "rageval_lc.adapters.sinks",
    "LangSmithFeedbackSink": "rageval_lc.adapters.sinks",
    "MemorySink": "rageval_lc.adapters.sinks",
}


__getattr__ = lazy_exports(__name__, _WHERE)
