"""Judges: what turns a sample into labels and verdicts (LLM, local model, or labels already present)."""

from rageval_lc.judges.labels import LabelsJudge, TraceJudge

__all__ = ["LabelsJudge", "TraceJudge"]
