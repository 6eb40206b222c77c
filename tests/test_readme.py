"""README's set-up commands are what CI runs, and README stays a short front page that points to the guide.

Its examples run with the guide's in ``tests/test_docs.py``, which also checks its links.
"""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

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
    assert install.index("torch==2.13.0") < install.index("-e '.[test,docs]'")  # torch before sentence-transformers
    assert "rageval quickstart" in install
    assert "pytest" in tests


def test_ci_runs_the_readme_commands_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    ci_lines = [line.strip() for line in ci.splitlines()]
    for command in setup_commands():
        assert command.strip() in ci_lines, command
    assert "set -euo pipefail" in ci
    assert "HF_HUB_OFFLINE=1" in ci and "LITELLM_LOCAL_MODEL_COST_MAP=True" in ci


def test_the_guide_shows_the_same_setup_commands() -> None:
    guide = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8").splitlines()
    assert all(command in guide for command in setup_commands())


def test_the_install_brings_what_the_site_build_needs() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    names = {re.split(r"[\[<>=~ ]", requirement)[0] for requirement in extras["docs"]}
    assert {"mkdocs", "mkdocs-material", "mkdocstrings"} <= names


def test_readme_is_a_short_front_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    for where in ("In LangChain", "In DSPy", "In LangSmith"):
        assert f"## {where}\n" in readme
    assert "mkdocs serve" in readme and "(docs/index.md)" in readme
