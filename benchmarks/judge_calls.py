"""Judge calls and estimated prompt tokens per sample for the whole metric suite, per scoring mode.

Plans (``rageval_lc.scoring.dry_run.plan_calls``; no model is called) the suite — TRACe, the four RAGAS metrics,
the composite, GEval and the classification — over RAGBench rows for an LLM judge, and prints calls and
estimated prompt tokens (characters ÷ 4 of the prompts DSPy's ChatAdapter would send) per sample, as
ratios to the ``separate`` mode (one judgement per metric, as peers work) measured in the same run.
RAGBench rows carry no reference answer, so each row's first response sentence stands in for one.

    python benchmarks/judge_calls.py [--rows 200]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from rageval_lc.datasets.ragbench import ragbench_record
from rageval_lc.judges.llm.dspy_judge import DspyJudge
from rageval_lc.reports.summary import format_table
from rageval_lc.scoring.dry_run import plan_calls

SUITE = "trace,faithfulness,context_precision,context_recall,answer_relevance,ragas_score,factual_accuracy,"
SUITE += "answer_classification"
SHARED = Path(os.environ.get("RAGEVAL_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200)
    args = parser.parse_args()
    files = sorted((SHARED / "data" / "ragbench").glob("*_validation.jsonl"))
    if not files:
        print(f"no RAGBench validation files under {SHARED}/data/ragbench", file=sys.stderr)
        return 2
    samples = []
    per_file = max(1, args.rows // len(files))
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines()[:per_file]:
            sample = ragbench_record(json.loads(line)).sample
            first = sample.sentences.response[0][1] if sample.sentences.response else sample.response
            samples.append(sample.model_copy(update={"reference": first}))
    judge = DspyJudge(FakeListChatModel(responses=["unused"]))
    figures = {}
    for mode in ("separate", "shared", "fused"):
        plans = plan_calls(samples, SUITE, judge, scoring_mode=mode)
        figures[mode] = (
            sum(p.calls for p in plans) / len(samples),
            sum(p.prompt_tokens or 0 for p in plans) / len(samples),
        )
    base_calls, base_tokens = figures["separate"]
    rows = [
        [mode, round(calls, 2), round(calls / base_calls, 2), round(tokens), round(tokens / base_tokens, 2)]
        for mode, (calls, tokens) in figures.items()
    ]
    contexts = sum(len(s.contexts) for s in samples) / len(samples)
    print(f"{len(samples)} RAGBench rows, {contexts:.1f} contexts per row on average; suite: {SUITE}\n")
    print(format_table(["mode", "calls/sample", "× separate", "est. prompt tokens/sample", "× separate"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
