"""The ``labels`` judge: it returns the TRACe labels a sample already carries, with no model call.

Example:
    >>> from rageval_lc.schema import RagSample
    >>> sample = RagSample(question="Q?", contexts=["A."], response="A.",
    ...                    labels={"all_relevant_sentence_keys": ["0a"]})
    >>> LabelsJudge().trace_labels(sample).value.all_relevant_sentence_keys
    ['0a']
"""

from __future__ import annotations

from rageval_lc.judges.base import BaseJudge
from rageval_lc.schema import RagSample, TraceLabels
from rageval_lc.verdicts import Judgement

__all__ = ["LabelsJudge"]


class LabelsJudge(BaseJudge):
    """Reads the labels shipped in the sample (``sample.labels``), such as RAGBench's released ones."""

    name = "labels"
    supports = frozenset({"trace_labels"})

    def planned_calls(self, judgement: str) -> int:
        """No model is ever called."""
        return 0

    def trace_labels(self, sample: RagSample) -> Judgement[TraceLabels]:
        """Return ``sample.labels`` as an ``ok`` judgement.

        Raises:
            ValueError: If the sample carries no labels (a bad input row, not a judge failure).
        """
        if sample.labels is None:
            who = f"Sample {sample.id!r}" if sample.id is not None else "The sample"
            msg = (
                f"{who} carries no TRACe labels (the 'labels' field), and the 'labels' judge only reads "
                "labels. Give the row a 'labels' object, or score it with a judge that produces labels."
            )
            raise ValueError(msg)
        return Judgement(name="trace_labels", value=sample.labels, reason="Labels shipped with the sample.")
