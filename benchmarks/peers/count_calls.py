"""LLM calls per sample for ragas and deepeval, driven by a counting fake model — run in the peers' own
virtualenv (they downgrade packages ours needs):

    python3 -m venv ../peers && ../peers/bin/pip install torch==2.13.0 \\
        && ../peers/bin/pip install ragas==0.4.3 langchain-community==0.4.1 deepeval
    RAGAS_DO_NOT_TRACK=true DEEPEVAL_TELEMETRY_OPT_OUT=1 ../peers/bin/python benchmarks/peers/count_calls.py

The fake answers every prompt with a minimal valid instance of the JSON schema the prompt asks for (ragas
puts the schema in the prompt; deepeval passes a pydantic class), so no call is wasted on a parse retry.
Prints calls and prompt characters per metric for a sample with 4 contexts, as JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from typing import Any

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
os.environ.setdefault("DEEPEVAL_UPDATE_WARNING_OPT_OUT", "1")

QUESTION = "Where does the Cornish heath grow?"
CONTEXTS = [
    "Erica vagans, the Cornish heath, is a low shrub.",
    "It grows on the Lizard peninsula in Cornwall.",
    "Bananas are a good source of potassium.",
    "The Lizard is the most southerly point of mainland Britain.",
]
ANSWER = "The Cornish heath grows on the Lizard peninsula. It is a shrub."
REFERENCE = "It grows on the Lizard peninsula in Cornwall."


def instance(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """A minimal valid value for a JSON schema (one item per list, the first enum value)."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return instance(defs[schema["$ref"].split("/")[-1]], defs)
    if "anyOf" in schema:
        return instance(next(s for s in schema["anyOf"] if s.get("type") != "null"), defs)
    if "allOf" in schema:
        return instance(schema["allOf"][0], defs)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type", "object")
    if kind == "object":
        props = schema.get("properties", {})
        return {name: instance(sub, defs) for name, sub in props.items()}
    if kind == "array":
        return [instance(schema.get("items", {"type": "string"}), defs)]
    return {"string": "yes", "integer": 1, "number": 1.0, "boolean": True}.get(kind, "yes")


class Counter:
    def __init__(self) -> None:
        self.calls = 0
        self.chars = 0

    def reset(self) -> None:
        self.calls, self.chars = 0, 0


COUNT = Counter()


def schema_from_prompt(prompt: str) -> dict[str, Any] | None:
    match = re.search(r"JSON Schema:\s*(\{.*?\})\s*\n\s*\n", prompt, re.S) or re.search(
        r"schema[^{]*(\{.*\})\s*\n", prompt, re.S
    )
    if not match:
        return None
    text = match.group(1)
    for end in range(len(text), 0, -1):  # the schema may be followed by more braces
        if text[end - 1] != "}":
            continue
        try:
            return json.loads(text[:end])
        except ValueError:
            continue
    return None


def ragas_counts() -> dict[str, Any]:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from ragas.dataset_schema import SingleTurnSample
    from ragas.embeddings import LangchainEmbeddingsWrapper
    from ragas.llms import LangchainLLMWrapper
    from ragas.metrics import AnswerRelevancy, Faithfulness, LLMContextPrecisionWithReference, LLMContextRecall

    class Fake(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "counting-fake"

        def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
            prompt = "\n".join(str(m.content) for m in messages)
            COUNT.calls += 1
            COUNT.chars += len(prompt)
            schema = schema_from_prompt(prompt)
            reply = json.dumps(instance(schema)) if schema else "{}"
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])

    class FakeEmbeddings:
        def embed_query(self, text: str) -> list[float]:
            return [1.0, float(len(text) % 7)]

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [self.embed_query(t) for t in texts]

        async def aembed_query(self, text: str) -> list[float]:
            return self.embed_query(text)

        async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
            return self.embed_documents(texts)

    llm = LangchainLLMWrapper(Fake())
    embeddings = LangchainEmbeddingsWrapper(FakeEmbeddings())
    sample = SingleTurnSample(user_input=QUESTION, response=ANSWER, retrieved_contexts=CONTEXTS, reference=REFERENCE)
    metrics = {
        "faithfulness": Faithfulness(llm=llm),
        "answer_relevance": AnswerRelevancy(llm=llm, embeddings=embeddings),
        "context_precision": LLMContextPrecisionWithReference(llm=llm),
        "context_recall": LLMContextRecall(llm=llm),
    }
    out = {}
    for name, metric in metrics.items():
        COUNT.reset()
        try:
            score = asyncio.run(metric.single_turn_ascore(sample))
            out[name] = {"calls": COUNT.calls, "prompt_chars": COUNT.chars, "score": score}
        except Exception as exc:
            out[name] = {"calls": COUNT.calls, "error": f"{type(exc).__name__}: {exc}"[:200]}
    return out


def deepeval_counts() -> dict[str, Any]:
    from deepeval.metrics import (
        AnswerRelevancyMetric,
        ContextualPrecisionMetric,
        ContextualRecallMetric,
        FaithfulnessMetric,
    )
    from deepeval.models import DeepEvalBaseLLM
    from deepeval.test_case import LLMTestCase

    class Fake(DeepEvalBaseLLM):
        def __init__(self) -> None:
            pass

        def load_model(self) -> Any:
            return self

        def generate(self, prompt: str, schema: Any = None) -> Any:
            COUNT.calls += 1
            COUNT.chars += len(prompt)
            if schema is not None:
                return schema.model_validate(instance(schema.model_json_schema()))
            return "{}"

        async def a_generate(self, prompt: str, schema: Any = None) -> Any:
            return self.generate(prompt, schema)

        def get_model_name(self) -> str:
            return "counting-fake"

    model = Fake()
    case = LLMTestCase(input=QUESTION, actual_output=ANSWER, expected_output=REFERENCE, retrieval_context=CONTEXTS)
    out = {}
    for include_reason in (False, True):
        metrics = {
            "faithfulness": FaithfulnessMetric(model=model, include_reason=include_reason, async_mode=False),
            "answer_relevance": AnswerRelevancyMetric(model=model, include_reason=include_reason, async_mode=False),
            "context_precision": ContextualPrecisionMetric(
                model=model, include_reason=include_reason, async_mode=False
            ),
            "context_recall": ContextualRecallMetric(model=model, include_reason=include_reason, async_mode=False),
        }
        for name, metric in metrics.items():
            COUNT.reset()
            key = name + (" (+reason)" if include_reason else "")
            try:
                metric.measure(case)
                out[key] = {"calls": COUNT.calls, "prompt_chars": COUNT.chars, "score": metric.score}
            except Exception as exc:
                out[key] = {"calls": COUNT.calls, "error": f"{type(exc).__name__}: {exc}"[:200]}
    return out


def main() -> int:
    which = sys.argv[1:] or ["ragas", "deepeval"]
    result = {}
    if "ragas" in which:
        result["ragas"] = ragas_counts()
    if "deepeval" in which:
        result["deepeval"] = deepeval_counts()
    print(json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
