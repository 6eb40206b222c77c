"""TRACe from sentence labels, RMSE aggregation and judge agreement — offline, no model.

Run:  python examples/trace_from_labels.py [RAGBENCH.jsonl ...]

1. Score one sample whose labels you already have (from your own judge or annotators).
2. Load RAGBench rows (the bundled quickstart rows unless files are given), score them in both modes.
3. Measure how well the GPT-3.5 judge columns shipped in the rows agree with the released labels,
   in RAGBench's convention (RMSE for relevance / utilization, AUROC for hallucination).
"""

from __future__ import annotations

import json
import sys
from importlib.resources import files
from pathlib import Path

from rageval_lc import (
    AgreementRecord,
    RagSample,
    judge_agreement,
    ragbench_record,
    trace_rmse_aggregation,
    trace_scores,
)
from rageval_lc.reports.summary import format_table


def one_sample() -> None:
    sample = RagSample(
        id="cats",
        question="What do cats do all day?",
        contexts=["Cats sleep up to 16 hours a day. They also hunt mice.", "Dogs bark at strangers."],
        response="Cats sleep most of the day. They can fly short distances.",
        labels={
            "all_relevant_sentence_keys": ["0a", "0b"],
            "all_utilized_sentence_keys": ["0a"],
            "sentence_support_information": [
                {
                    "response_sentence_key": "a",
                    "supporting_sentence_keys": ["0a"],
                    "fully_supported": True,
                    "explanation": "0a says cats sleep up to 16 hours.",
                },
                {
                    "response_sentence_key": "b",
                    "supporting_sentence_keys": [],
                    "fully_supported": False,
                    "explanation": "No document mentions flying.",
                },
            ],
        },
    )
    for key, sentence in sample.sentences.documents[0]:
        print(f"  {key}: {sentence}")
    for mode in ("ragbench", "capstone"):
        scores = trace_scores(sample.labels, sample.sentences, mode=mode)  # type: ignore[arg-type]
        print(f"\n{mode}: {json.dumps(scores.to_dict())}")
        print(f"  adherence because: {scores.reasons['adherence']}")


def ragbench_rows(paths: list[str]) -> list[dict]:
    if paths:
        return [json.loads(line) for p in paths for line in Path(p).read_text(encoding="utf-8").splitlines()]
    text = files("rageval_lc.data").joinpath("quickstart_ragbench.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def main() -> None:
    print("1. One sample, both modes")
    one_sample()

    rows = ragbench_rows(sys.argv[1:])
    print(f"\n2. {len(rows)} RAGBench rows: ragbench mode against the released scores")
    results = []
    records = [ragbench_record(row) for row in rows]
    for record in records:
        scores = trace_scores(record.labels, record.sample.sentences, mode="ragbench")
        results.append({"metrics": scores.to_dict(), "ground_truth_scores": record.released_scores})
    aggregate = trace_rmse_aggregation(results)
    print(f"   aggregated RMSE {aggregate['aggregated_rmse']:.6f}, consistency {aggregate['consistency_score']:.3f}")

    print("\n3. Agreement of the GPT-3.5 judge columns with the released labels")
    agreement = judge_agreement(
        AgreementRecord(
            record.dataset,
            {
                "context_relevance": record.other_judges["gpt3_context_relevance"],
                "context_utilization": record.other_judges["gpt35_utilization"],
                "adherence": record.other_judges["gpt3_adherence"],
            },
            record.released_scores,
        )
        for record in records
    )
    table = [
        [
            group,
            figures.n,
            figures.rmse["context_relevance"],
            figures.rmse["context_utilization"],
            figures.hallucination_auroc,
        ]
        for group, figures in [*agreement.groups.items(), ("pooled", agreement.pooled)]
    ]
    print(format_table(["group", "rows", "relevance RMSE", "utilization RMSE", "halluc. AUROC"], table))


if __name__ == "__main__":
    main()
