"""README's set-up commands are what CI runs, and its examples stay true."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest

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


#: A block whose first line starts so needs an API key or a server: it is skipped, and says so.
NEEDS = "# needs:"


def python_blocks() -> list[Any]:
    """Every ```python block of README.md, as a test parameter named by its line."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return [
        pytest.param(m.group(1), id=f"README.md:{readme.count(chr(10), 0, m.start()) + 1}")
        for m in re.finditer(r"^```python\n(.*?)^```", readme, re.S | re.M)
    ]


def documented_output(code: str) -> list[str]:
    """The output a block promises: the ``# `` comment lines right after each ``print(`` line."""
    expected, after_print = [], False
    for line in code.splitlines():
        if after_print and line.startswith("# "):
            expected.append(line[2:])
            continue
        after_print = line.startswith("print(")
    return expected


def test_readme_has_python_blocks() -> None:
    assert len(python_blocks()) >= 5


#: Blocks that need a service this module does not start ("# needs: ..."), and the test that runs each.
RUN_ELSEWHERE = {"# needs: Ray": "tests/test_ray_engine.py::test_the_readme_example_runs_on_the_cluster"}


def test_blocks_that_need_a_service_are_run_where_it_is() -> None:
    needing = [p.values[0].splitlines()[0] for p in python_blocks() if p.values[0].startswith(NEEDS)]
    assert needing and all(any(line.startswith(key) for key in RUN_ELSEWHERE) for line in needing), needing
    for where in RUN_ELSEWHERE.values():
        path, name = where.split("::")
        assert f"def {name}(" in (ROOT / path).read_text(encoding="utf-8")


@pytest.mark.parametrize("code", [p for p in python_blocks() if not p.values[0].startswith(NEEDS)])
def test_readme_python_block_runs_as_pasted(code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each block runs on its own, offline, in an empty folder that sees the repository's ``examples/`` (as from
    the repository root), and prints what its comments say (a block that needs a service is run by the test
    :data:`RUN_ELSEWHERE` names)."""
    monkeypatch.chdir(tmp_path)  # files a block writes (scores.jsonl, trace_judge.json) land here
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    printed = io.StringIO()

    def block_print(*values: object, sep: str | None = " ", end: str | None = "\n", **_: object) -> None:
        printed.write((sep if sep is not None else " ").join(map(str, values)) + (end if end is not None else "\n"))

    exec(compile(code, "README.md", "exec"), {"__name__": "__readme__", "print": block_print})
    assert printed.getvalue().splitlines() == documented_output(code)


def test_readme_says_result_rows_keep_the_question_and_the_response() -> None:
    import json

    from rageval_lc.runs.jsonl import evaluate_lines

    row = {"id": "a", "question": "Q?", "contexts": ["A."], "response": "A.", "labels": {}}
    out = io.StringIO()
    evaluate_lines([json.dumps(row)], out, judge="labels", n_resamples=0)
    written = json.loads(out.getvalue())
    assert (written["question"], written["response"]) == ("Q?", "A.")
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "Result rows keep no question or answer" not in readme
    assert "Result rows keep the question and the response" in readme


def printed_blocks() -> dict[str, list[str]]:
    """README's blocks of printed output (plain ``` blocks), by their first line."""
    blocks: list[list[str]] = []
    fence: str | None = None  # the language of the open block, None outside one
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fence = line[3:].strip() if fence is None else None
            if fence == "":
                blocks.append([])
        elif fence == "":
            blocks[-1].append(line)
    return {lines[0]: lines for lines in blocks if lines and not lines[0].startswith("rageval_lc/")}


def shown_in_order(shown: list[str], printed: list[str]) -> None:
    """Every shown line (``...`` stands for lines left out) is a printed line, in the printed order."""
    rest = iter(printed)
    for line in shown:
        if line.strip() == "...":
            continue
        assert any(line.rstrip() == got.rstrip() for got in rest), f"README shows a line that is not printed: {line!r}"


def test_readme_printed_outputs_are_what_the_commands_print(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 10 of issue 23: the quickstart table and the gate's output in README are run and compared, so a drift
    fails here (the table was found printing 0.698 where README said 0.631)."""
    from rageval_lc.cli import main
    from rageval_lc.runs.quickstart import run_quickstart

    blocks = printed_blocks()
    quickstart = next(lines for first, lines in blocks.items() if first.startswith("sample "))
    printed = io.StringIO()
    run_quickstart(printed)
    shown_in_order(quickstart, printed.getvalue().splitlines())

    command, *gate_shown = next(lines for first, lines in blocks.items() if first.startswith("$ rageval gate "))
    monkeypatch.chdir(tmp_path)
    rows = ROOT / "rageval_lc" / "data" / "quickstart_ragbench.jsonl"
    out = ["evaluate", str(rows), "--judge", "labels", "--out", "scores.jsonl", "--no-progress"]
    assert main([*out, "--metrics", "trace,faithfulness"]) == 0
    stdout, stderr = io.StringIO(), io.StringIO()
    monkeypatch.setattr("sys.stdout", stdout)
    monkeypatch.setattr("sys.stderr", stderr)
    main(command.removeprefix("$ rageval ").split())
    shown_in_order(gate_shown, (stdout.getvalue() + stderr.getvalue()).splitlines())
