"""The DSPy Signature of :mod:`rageval_lc.rgb.questions` (imported when an LLM judge first writes a question)."""

from __future__ import annotations

import dspy

__all__ = ["PassageQuestion"]


class PassageQuestion(dspy.Signature):
    """Write one factual question that the passage answers, and its answer: a short span (a name, a number, a
    date, a place) copied word for word from the passage. The question must make sense without the passage."""

    passage: str = dspy.InputField()
    question: str = dspy.OutputField()
    answer: str = dspy.OutputField(desc="a short span copied exactly from the passage")
