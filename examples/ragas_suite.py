"""The RAGAS / GraphRAG suite offline: three answers scored with the offline judge, then the run under the
reference document's names (0-100), and the judge calls an LLM judge would make per scoring mode.

Mind what the offline judge can and cannot do: against the reference it catches the "Scottish Highlands"
answer (its names are not the reference's), but its faithfulness check — tuned on RAGBench, where most
answers are supported — still passes that sentence against the documents. Use an LLM judge
(``make_judge("dspy:<model>")``) where facts must be checked.

    python examples/ragas_suite.py
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from rageval_lc.judges import DspyJudge, make_judge
from rageval_lc.reports.summary import format_reference_view, format_table, reference_view
from rageval_lc.schema import RagSample
from rageval_lc.scoring.dry_run import plan_calls
from rageval_lc.scoring.sample import evaluate_sample

METRICS = [
    "faithfulness",
    "context_precision",
    "context_recall",
    "answer_relevance",
    "ragas_score",
    "factual_accuracy",
    "answer_classification",
    "semantic_similarity",
    "bert_score",
]
CONTEXTS = [
    "Erica vagans, the Cornish heath, is a low shrub. It grows on the Lizard peninsula in Cornwall.",
    "The Lizard is the most southerly point of mainland Britain.",
    "Bananas are a good source of potassium.",
]
REFERENCE = "The Cornish heath grows on the Lizard peninsula in Cornwall."
SAMPLES = [
    RagSample(id="same", question="Where does the Cornish heath grow?", contexts=CONTEXTS, response=REFERENCE,
              reference=REFERENCE),
    RagSample(id="wrong", question="Where does the Cornish heath grow?", contexts=CONTEXTS,
              response="The Cornish heath grows only in the Scottish Highlands.", reference=REFERENCE),
    RagSample(id="unsure", question="Where does the Cornish heath grow?", contexts=CONTEXTS,
              response="I don't know.", reference=REFERENCE),
]  # fmt: skip


def main() -> None:
    judge = make_judge("offline")
    rows = []
    for sample in SAMPLES:
        result = evaluate_sample(sample, METRICS, judge=judge)
        row = result.to_row()
        row["label"] = result.results["answer_classification"].details["label"]
        rows.append(row)
    table = [
        [r["id"], r["scores"]["faithfulness"], r["scores"]["semantic_similarity"], r["scores"]["bert_score_f1"],
         r["scores"]["ragas_score"], r["label"], r["details"]["judge_usage"]["calls"]]
        for r in rows
    ]  # fmt: skip
    headers = ["sample", "faithfulness", "semantic sim.", "BERTScore F1", "RAGAS", "class", "LLM calls"]
    print(format_table(headers, table))
    print("\nThe run under the reference's names:\n")
    print(format_reference_view(reference_view(rows)))
    llm_judge = DspyJudge(FakeListChatModel(responses=["unused"]))  # any LLM judge; nothing is called here
    print("\nAn LLM judge would make, for these 3 samples and the suite with TRACe:")
    for mode in ("separate", "shared", "fused"):
        plans = plan_calls(SAMPLES, ["trace", *METRICS], llm_judge, scoring_mode=mode)
        print(
            f"  {mode:<8} {sum(p.calls for p in plans)} calls ({', '.join(f'{p.judgement} {p.calls}' for p in plans)})"
        )


if __name__ == "__main__":
    main()
