"""ragas 0.4.3 wall time on N samples with a fake LLM that answers after 100 ms, 16 workers — run in the
peers' virtualenv (called by benchmarks/peers/wall_time.py). Prints JSON: seconds and LLM calls."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from typing import Any

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
sys.path.insert(0, os.path.dirname(__file__))

from count_calls import ANSWER, CONTEXTS, QUESTION, REFERENCE, instance, schema_from_prompt


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from ragas import EvaluationDataset, evaluate
    from ragas.llms import LangchainLLMWrapper
    from ragas.metrics import Faithfulness, LLMContextPrecisionWithReference, LLMContextRecall
    from ragas.run_config import RunConfig

    calls = [0]

    def reply(messages: list[Any]) -> ChatResult:
        calls[0] += 1
        schema = schema_from_prompt("\n".join(str(m.content) for m in messages))
        text = json.dumps(instance(schema)) if schema else "{}"
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    class Slow(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "slow-fake"

        def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
            time.sleep(0.1)
            return reply(messages)

        async def _agenerate(
            self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kw: Any
        ) -> ChatResult:
            await asyncio.sleep(0.1)
            return reply(messages)

    llm = LangchainLLMWrapper(Slow())
    rows = [
        {"user_input": f"{QUESTION} ({i})", "response": ANSWER, "retrieved_contexts": CONTEXTS, "reference": REFERENCE}
        for i in range(n)
    ]
    dataset = EvaluationDataset.from_list(rows)
    metrics = [Faithfulness(llm=llm), LLMContextPrecisionWithReference(llm=llm), LLMContextRecall(llm=llm)]
    start = time.perf_counter()
    evaluate(dataset, metrics=metrics, llm=llm, run_config=RunConfig(max_workers=16), show_progress=False)
    wall = time.perf_counter() - start
    print(json.dumps({"seconds": wall, "calls": calls[0], "samples": n}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
