"""README's set-up commands are what CI runs, and its examples stay true."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def setup_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- setup-commands.*?-->\s*```bash\n(.*?)```\s*<!-- /setup-commands -->", readme, re.S)
    assert block, "README lost its setup-commands block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_readme_has_two_setup_commands() -> None:
    commands = setup_commands()
    assert len(commands) == 2
    install, tests = commands
    assert "pip install torch==2.13.0" in install
    assert install.index("torch==2.13.0") < install.index("-e '.[test]'")  # torch before sentence-transformers
    assert "rageval quickstart" in install
    assert "pytest" in tests


def test_ci_runs_the_readme_commands_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    ci_lines = [line.strip() for line in ci.splitlines()]
    for command in setup_commands():
        assert command.strip() in ci_lines, command
    assert "set -euo pipefail" in ci
    assert "HF_HUB_OFFLINE=1" in ci and "LITELLM_LOCAL_MODEL_COST_MAP=True" in ci


def test_readme_python_example_is_true() -> None:
    from rageval_lc import RagSample, TraceLabels, trace_scores

    sample = RagSample(
        question="What do cats do?",
        contexts=["Cats sleep a lot. Cats hunt mice.", "Dogs bark."],
        response="Cats sleep a lot. They fly.",
    )
    assert sample.sentences.document_keys == ("0a", "0b", "1a")
    assert sample.sentences.response_keys == ("a", "b")
    labels = TraceLabels.from_mapping(
        {
            "all_relevant_sentence_keys": ["0a", "0b"],
            "all_utilized_sentence_keys": ["0a"],
            "sentence_support_information": [
                {"response_sentence_key": "a", "supporting_sentence_keys": ["0a"], "fully_supported": True},
                {"response_sentence_key": "b", "supporting_sentence_keys": [], "fully_supported": False},
            ],
        }
    )
    out = trace_scores(labels, sample.sentences, mode="ragbench").to_dict()
    assert (out["context_relevance"], out["context_utilization"], out["completeness"], out["adherence"]) == (
        2 / 3,
        1 / 3,
        0.5,
        0.0,
    )


def test_readme_ragas_example_prints_what_it_says() -> None:
    import contextlib
    import io

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "factual_accuracy" in b)
    expected = [line[2:] for line in block.splitlines() if line.startswith("# ")]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(block, "README.md", "exec"), {})
    assert printed.getvalue().splitlines() == expected
