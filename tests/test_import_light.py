"""`import rageval_lc` stays light: heavy parts load when first used."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HEAVY = ("torch", "sentence_transformers", "transformers", "dspy", "langchain_core", "litellm", "sentencex")


def imported_after(statement: str) -> set[str]:
    code = f"import sys, json; {statement}; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout))


def test_import_rageval_lc_loads_no_heavy_dependency() -> None:
    modules = imported_after("import rageval_lc")
    assert "rageval_lc" in modules
    assert sorted(m for m in HEAVY if m in modules) == []


def test_cli_parser_loads_no_heavy_dependency() -> None:
    modules = imported_after("from rageval_lc.cli import build_parser; build_parser()")
    assert sorted(m for m in HEAVY if m in modules) == []


LITELLM_ENV = "LITELLM_LOCAL_MODEL_COST_MAP"


def cost_map_setting_after(statement: str, value: str | None) -> list[str]:
    """In a fresh interpreter whose environment lacks LITELLM_LOCAL_MODEL_COST_MAP (or sets it to ``value``): the
    variable after ``statement``, and whether DSPy and LiteLLM are imported by then."""
    env = {k: v for k, v in os.environ.items() if k != LITELLM_ENV}
    if value is not None:
        env[LITELLM_ENV] = value
    shown = f"os.environ.get({LITELLM_ENV!r}), 'dspy' in sys.modules, 'litellm' in sys.modules"
    code = f"import os, sys; {statement}; print({shown})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return done.stdout.split()


@pytest.mark.parametrize(
    "statement",
    [
        "from rageval_lc.judges import make_judge; make_judge('dspy:openai/gpt-4o-mini')",  # judges.llm: the CLI's
        "from rageval_lc._lazy import import_dspy; import_dspy()",  # the DSPy metric's feedback, RGB's systems
    ],
)
def test_dspy_is_imported_with_litellm_kept_offline(statement: str) -> None:
    # set once DSPy is imported, and LiteLLM (imported by DSPy on its first model call) not yet: it will read its
    # bundled cost map, with no fetch and no warnings
    assert cost_map_setting_after(statement, None) == ["True", "True", "False"]


def test_a_cost_map_setting_of_ones_own_is_left_alone() -> None:
    assert cost_map_setting_after("import rageval_lc.judges.llm.dspy_judge", "0") == ["0", "True", "False"]
    assert cost_map_setting_after("import rageval_lc", None) == ["None", "False", "False"]  # no DSPy: not set
