"""Judges: what turns a sample into labels and verdicts.

``labels`` reads labels already in the data; :class:`OfflineJudge` (:mod:`rageval_lc.judges.offline`) runs
offline on the packaged sentence-transformers model; :class:`DspyJudge` (:mod:`rageval_lc.judges.llm`) uses
any DSPy LM or LangChain chat model; :class:`CascadeJudge` sends the offline judge's least confident verdicts
to an LLM judge. The heavy ones load their heavy dependencies when first used, so importing
this package stays light. The modules here are the contract every judge keeps: ``base``, ``labels``,
``factory``, ``checks``, ``resilient`` and ``portable``.
"""

from __future__ import annotations

from rageval_lc._lazy import lazy_exports
from rageval_lc.judges.base import JUDGEMENTS, BaseJudge, Judge
from rageval_lc.judges.labels import LabelsJudge
from rageval_lc.verdicts import Judgement, JudgeUsage

__all__ = [
    "JUDGEMENTS",
    "BaseJudge",
    "CascadeJudge",
    "Declaration",
    "DspyJudge",
    "Judge",
    "JudgeUsage",
    "Judgement",
    "LabelsJudge",
    "LocalJudge",
    "OfflineJudge",
    "declare",
    "make_judge",
    "undeclare",
]

_LAZY = {
    "CascadeJudge": "rageval_lc.judges.cascade",
    "Declaration": "rageval_lc.judges.declarations",
    "declare": "rageval_lc.judges.declarations",
    "undeclare": "rageval_lc.judges.declarations",
    "DspyJudge": "rageval_lc.judges.llm.dspy_judge",
    "LocalJudge": "rageval_lc.judges.offline.judge",  # OfflineJudge's old name
    "OfflineJudge": "rageval_lc.judges.offline.judge",
    "make_judge": "rageval_lc.judges.factory",
}


__getattr__ = lazy_exports(__name__, _LAZY)
