"""`import rageval_lc` stays light: heavy parts load when first used."""

from __future__ import annotations

import json
import subprocess
import sys

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
