"""rageval_lc's judge calls and prompt characters on the same sample as benchmarks/peers/count_calls.py, with a
counting fake chat model that answers each judgement validly (our virtualenv):

    python benchmarks/peers/ours_calls.py
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks" / "peers"))

from count_calls import ANSWER, CONTEXTS, QUESTION, REFERENCE  # noqa: E402

from rageval_lc.judges.llm.dspy_judge import DspyJudge  # noqa: E402
from rageval_lc.schema import RagSample  # noqa: E402
from rageval_lc.scoring.sample import evaluate_sample  # noqa: E402
from tests.fakes import JudgementChatModel, bag_of_words_embeddings, chat  # noqa: E402
from tests.scoring.test_ragas_family import ANSWERS as GUIDE_ANSWERS  # noqa: E402

# valid answers for this sample's keys: documents 0a..3a, response sentences a, b
TRACE = {
    "relevance_explanation": "0a and 1a are about the heath.",
    "all_relevant_sentence_keys": ["0a", "1a"],
    "overall_supported_explanation": "Both sentences are in the documents.",
    "overall_supported": "true",
    "sentence_support_information": [
        {
            "response_sentence_key": "a",
            "explanation": "1a",
            "supporting_sentence_keys": ["1a"],
            "fully_supported": True,
        },
        {
            "response_sentence_key": "b",
            "explanation": "0a",
            "supporting_sentence_keys": ["0a"],
            "fully_supported": True,
        },
    ],
    "all_utilized_sentence_keys": ["0a", "1a"],
}
STATEMENTS = [{"statement": REFERENCE, "attributed": True, "supporting_context": 2, "reason": "1a"}]
ANSWERS = {
    **GUIDE_ANSWERS,
    "trace_labels": chat(**TRACE),
    "assess_all": chat(**TRACE, statements=STATEMENTS, correctness=90, completeness=80, consistency=100,
                       classification="CORRECT", questions=[QUESTION] * 3),
    "context_relevance": chat(verdicts=[
        {"context_number": i + 1, "is_relevant": i < 2, "relevance_score": 90 if i < 2 else 5, "reasoning": "-"}
        for i in range(4)
    ]),
    "attribute_reference": chat(statements=STATEMENTS),
}  # fmt: skip


class CharCountingModel(JudgementChatModel):
    chars: int = 0

    def _generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
        self.chars += sum(len(str(m.content)) for m in messages)
        return super()._generate(messages, *args, **kwargs)


def measure(metrics: list[str], mode: str = "shared") -> dict[str, Any]:
    model = CharCountingModel(answers=ANSWERS)
    sample = RagSample(question=QUESTION, contexts=CONTEXTS, response=ANSWER, reference=REFERENCE)
    evaluate_sample(sample, metrics, judge=DspyJudge(model, max_retries=0), scoring_mode=mode,
                    embeddings=bag_of_words_embeddings())  # fmt: skip
    return {"calls": sum(model.calls.values()), "prompt_chars": model.chars, "judgements": dict(model.calls)}


def main() -> int:
    four = ["faithfulness", "answer_relevance", "context_precision", "context_recall"]
    suite = ["trace", *four, "ragas_score", "factual_accuracy", "answer_classification"]
    out = {name: measure([name]) for name in four}
    out["the four together"] = measure(four)
    out["whole suite (shared)"] = measure(suite)
    out["whole suite (fused)"] = measure(suite, "fused")
    out["whole suite (separate)"] = measure(suite, "separate")
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
