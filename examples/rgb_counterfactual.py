"""Run RGB's counterfactual-robustness set against a LangChain chain, offline, and print the report.

Run:  python examples/rgb_counterfactual.py [path/to/en_fact.json]

The chain is an ordinary prompt | chat model pipeline; the chat model is LangChain's FakeListChatModel,
which cycles through three canned behaviours: flag the errors and refuse, flag them only, trust the documents.
Swap in a real chat model (ChatOpenAI, ChatOllama, ...) and the same code benchmarks it. The RGB data
(CC BY-NC-SA 4.0) is read from ../shared/data/rgb/, not shipped with the library.
"""

from __future__ import annotations

import sys
from pathlib import Path

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.prompts import ChatPromptTemplate

from rageval_lc.rgb.records import load_rgb
from rageval_lc.rgb.run import run_rgb

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "rgb" / "en_fact.json"


def main() -> int:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    if not path.is_file():
        print(f"RGB counterfactual data not found at {path}; pass the path to en_fact.json.", file=sys.stderr)
        return 1
    model = FakeListChatModel(
        responses=[
            "There are factual errors in the provided documents. I can not answer the question because of the "
            "insufficient information in documents.",
            "There are factual errors in the provided documents.",
            "According to the documents, the answer is as stated there.",
        ]
    )
    chain = ChatPromptTemplate.from_messages([("system", "{system}"), ("human", "{prompt}")]) | model
    records = load_rgb(path)
    run = run_rgb(chain, records, mode="official", model_name="FakeListChatModel", progress=False)
    print(f"RGB counterfactual robustness, {len(records)} questions, official scoring\n")
    print(run.report())
    result = next(r for r in run.results if r.noise_ratio is not None)
    print(
        f"\nerror detection {result.error_detection_rate:.1f}% ({result.errors_detected} of {result.total_samples}); "
        f"error correction {result.error_correction_rate:.1f}% of the detected (rejections count as corrections, "
        "as in the benchmark's script)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
