"""A first offline score imports only what it uses (issue 45): through ``rageval_lc.evaluate``, the CLI's
``rageval evaluate`` and a ``RagEvaluator`` (a LangChain Runnable: langchain_core is its type), each in a fresh
interpreter, then the heavy modules left in ``sys.modules`` are listed. On a machine without a GPU the judge's
models run in numpy: no torch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rageval_lc.judges.offline.devices import gpu_hardware_present

HEAVY = ("torch", "transformers", "sentence_transformers", "peft", "dspy", "litellm", "ray", "langchain_core")
CONTEXTS = ["The Eiffel Tower is in Paris. It was finished in 1889.", "Bananas are yellow."]
QUESTION, ANSWER = "When was the Eiffel Tower finished?", "It was finished in 1889."

PATHS = {
    "evaluate": f"""
import rageval_lc
run = rageval_lc.evaluate([rageval_lc.RagSample(question={QUESTION!r}, contexts={CONTEXTS!r}, response={ANSWER!r})],
                          "faithfulness")
score = run.results[0].results["faithfulness"].score
""",
    "cli": """
import json, sys
from rageval_lc.cli import main
assert main(["evaluate", sys.argv[1], "--metrics", "faithfulness", "--out", sys.argv[2], "--no-progress"]) == 0
score = json.loads(open(sys.argv[2]).read())["scores"]["faithfulness"]
""",
    "RagEvaluator": f"""
from rageval_lc.adapters import RagEvaluator
score = RagEvaluator("faithfulness").evaluate_strings(prediction={ANSWER!r}, input={QUESTION!r}, contexts={CONTEXTS!r})[
    "score"
]
""",
}
#: What each path may load of HEAVY: a RagEvaluator is a LangChain Runnable.
ALLOWED = {"evaluate": set(), "cli": set(), "RagEvaluator": {"langchain_core"}}


def heavy_after_first_score(path: str, tmp_path: Path) -> tuple[float, list[str]]:
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "x", "question": QUESTION, "contexts": CONTEXTS, "response": ANSWER}) + "\n")
    shown = f"print(json.dumps([score, sorted(m for m in {HEAVY!r} if m in sys.modules)]))"
    code = f"{PATHS[path]}\nimport json, sys\n{shown}"
    done = subprocess.run(
        [sys.executable, "-c", code, str(rows), str(tmp_path / "out.jsonl")], capture_output=True, text=True, check=True
    )
    score, heavy = json.loads(done.stdout.splitlines()[-1])
    return score, heavy


@pytest.mark.parametrize("path", list(PATHS))
def test_a_first_offline_score_loads_no_heavy_module_it_does_not_use(path: str, tmp_path: Path) -> None:
    score, heavy = heavy_after_first_score(path, tmp_path)
    assert score == 1.0
    allowed = ALLOWED[path] | ({"torch"} if gpu_hardware_present() else set())  # a GPU runs in torch
    assert sorted(set(heavy) - allowed) == []
