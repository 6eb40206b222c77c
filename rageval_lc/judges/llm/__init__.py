"""The LLM judge: :class:`~rageval_lc.judges.llm.dspy_judge.DspyJudge` on any DSPy LM or LangChain chat model.

``dspy_judge`` (the judge), ``signatures`` and ``modules`` (one DSPy module per judgement), ``langchain_lm``
(a LangChain chat model as a DSPy LM) and ``optimize`` (compiling the TRACe module; every module is compiled on a
user's labelled rows by :mod:`rageval_lc.align.compile`). Importing this package imports none of them.
"""

from rageval_lc._lazy import local_litellm_cost_map

local_litellm_cost_map()  # before any module here imports DSPy (and DSPy, later, LiteLLM)
