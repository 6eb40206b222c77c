"""Compile an LLM judge against labelled rows, save it, reload it, and check it scores identically — offline.

Run:  python examples/compile_judge.py

The "LLM" here is DSPy's DummyLM answering each question with the row's released GPT-4o labels, so the
whole loop runs without a network: BootstrapFewShot keeps the answers that agree with the labels as
demonstrations, the compiled TRACe labelling module is saved to JSON, loaded into a fresh judge, and
both judges score the rows held out of training. With a real model, pass ``DspyJudge("openai/gpt-4o-mini")``
(or any LangChain chat model) instead and the same code compiles it.
"""

from __future__ import annotations

import json
import tempfile
from importlib.resources import files
from pathlib import Path

from dspy.utils import DummyLM

from rageval_lc import evaluate_sample, load_ragbench
from rageval_lc.judges.llm.dspy_judge import DspyJudge
from rageval_lc.judges.llm.optimize import compile_judge, trace_examples

OUTPUTS = (
    "relevance_explanation",
    "all_relevant_sentence_keys",
    "overall_supported_explanation",
    "overall_supported",
    "sentence_support_information",
    "all_utilized_sentence_keys",
)


def labels_lm(samples: list) -> DummyLM:
    """A stand-in LLM that answers each question with that row's labels (DSPy's chat format)."""
    answers = {}
    for sample, example in zip(samples, trace_examples(samples), strict=True):
        answers[sample.question] = {
            k: v if isinstance(v, str) else json.dumps(v) for k, v in example.items() if k in OUTPUTS
        }
    return DummyLM(answers)


def main() -> None:
    path = files("rageval_lc.data").joinpath("quickstart_ragbench.jsonl")
    samples = [record.sample for record in load_ragbench(Path(str(path)))]
    train, held_out = samples[:5], samples[5:]

    judge = DspyJudge(labels_lm(samples))
    compile_judge(judge, train, max_bootstrapped_demos=2, max_labeled_demos=1)
    demos = judge.modules["trace_labels"].predictors()[0].demos
    print(f"Compiled on {len(train)} labelled rows: {len(demos)} demonstrations kept.")

    saved = judge.save(Path(tempfile.mkdtemp()) / "trace_judge.json")
    print(f"Saved to {saved} ({saved.stat().st_size:,} bytes).")
    reloaded = DspyJudge(labels_lm(samples)).load(saved)

    same = 0
    for sample in held_out:
        a = evaluate_sample(sample, "trace", judge=judge).scores()
        b = evaluate_sample(sample, "trace", judge=reloaded).scores()
        same += a == b
        print(
            f"  {sample.id[:40]:40s} relevance {a['context_relevance']:.3f} adherence {a['adherence']:.0f}"
            f"  reloaded: {'identical' if a == b else 'DIFFERENT'}"
        )
    print(f"The reloaded judge scored {same} of {len(held_out)} held-out rows identically.")


if __name__ == "__main__":
    main()
