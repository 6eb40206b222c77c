"""The ``labels`` judge: it returns the TRACe labels a sample already carries, with no model call.

Example:
    >>> from rageval_lc.schema import RagSample
    >>> sample = RagSample(question="Q?", contexts=["A."], response="A.",
    ...                    labels={"all_relevant_sentence_keys": ["0a"]})
    >>> LabelsJudge().trace_labels(sample).all_relevant_sentence_keys
    ['0a']
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from rageval_lc.schema import RagSample, TraceLabels

__all__ = ["LabelsJudge", "TraceJudge"]


@runtime_checkable
class TraceJudge(Protocol):
    """Anything that labels a sample's sentences for TRACe."""

    name: str

    def trace_labels(self, sample: RagSample) -> TraceLabels:
        """Return the TRACe labels of ``sample``, keyed by ``sample.sentences``."""
        ...


class LabelsJudge:
    """Reads the labels shipped in the sample (``sample.labels``), such as RAGBench's released ones."""

    name = "labels"

    def trace_labels(self, sample: RagSample) -> TraceLabels:
        """Return ``sample.labels``.

        Raises:
            ValueError: If the sample carries no labels.
        """
        if sample.labels is None:
            who = f"Sample {sample.id!r}" if sample.id is not None else "The sample"
            msg = (
                f"{who} carries no TRACe labels (the 'labels' field), and the 'labels' judge only reads "
                "labels. Give the row a 'labels' object, or score it with a judge that produces labels."
            )
            raise ValueError(msg)
        return sample.labels
