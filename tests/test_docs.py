"""The guide stays true: every ```python block of README.md and of docs/ runs and prints what it says, the outputs
shown in plain blocks are what the commands print, every relative link resolves, and the site builds strictly."""

from __future__ import annotations

import doctest
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.floats import assert_printed_lines, same_printed_line

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def guide_files() -> list[Path]:
    """README.md and every page of the guide, in a fixed order."""
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def where(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def guide_text() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in guide_files())


#: A block whose first line starts so needs an API key or a server: it is skipped here, and says so.
NEEDS = "# needs:"


def python_blocks() -> list[Any]:
    """Every ```python block of the guide, as a test parameter named by its file and line."""
    blocks = []
    for path in guide_files():
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
            line = text.count("\n", 0, m.start()) + 1
            blocks.append(pytest.param(m.group(1), id=f"{where(path)}:{line}"))
    return blocks


def documented_output(code: str) -> list[str]:
    """The output a block promises: the ``# `` comment lines right after each ``print(`` line."""
    expected, after_print = [], False
    for line in code.splitlines():
        if after_print and line.startswith("# "):
            expected.append(line[2:])
            continue
        after_print = line.startswith("print(")
    return expected


def test_the_guide_has_python_blocks_in_readme_and_docs() -> None:
    ids = [p.id for p in python_blocks()]
    assert sum(i.startswith("README.md:") for i in ids) >= 3  # LangChain, DSPy, LangSmith
    assert sum(i.startswith("docs/") for i in ids) >= 10


#: Blocks that need a service this module does not start ("# needs: ..."), and the test that runs each.
RUN_ELSEWHERE = {
    "# needs: Ray": "tests/engine/test_ray_engine.py::test_the_readme_example_runs_on_the_cluster",
    "# needs: an LLM": "tests/judges/test_cascade.py::test_the_guide_s_python_example_runs_with_an_llm",
}


def test_blocks_that_need_a_service_are_run_where_it_is() -> None:
    needing = [p.values[0].splitlines()[0] for p in python_blocks() if p.values[0].startswith(NEEDS)]
    assert needing and all(any(line.startswith(key) for key in RUN_ELSEWHERE) for line in needing), needing
    for test in RUN_ELSEWHERE.values():
        path, name = test.split("::")
        assert f"def {name}(" in (ROOT / path).read_text(encoding="utf-8")


@pytest.mark.parametrize("code", [p for p in python_blocks() if not p.values[0].startswith(NEEDS)])
def test_python_block_runs_as_pasted(code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each block runs on its own, offline, in an empty folder that sees the repository's ``examples/`` (as from
    the repository root), and prints what its comments say (a block that needs a service is run by the test
    :data:`RUN_ELSEWHERE` names)."""
    monkeypatch.chdir(tmp_path)  # files a block writes (scores.jsonl, trace_judge.json) land here
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    printed = io.StringIO()

    def block_print(*values: object, sep: str | None = " ", end: str | None = "\n", **_: object) -> None:
        printed.write((sep if sep is not None else " ").join(map(str, values)) + (end if end is not None else "\n"))

    from rageval_lc.judges.declarations import DECLARATIONS
    from rageval_lc.scoring.custom import temporary_metrics

    declared = dict(DECLARATIONS)
    try:
        with temporary_metrics():  # a block's metrics and judgements of its own end with it
            exec(compile(code, "guide", "exec"), {"__name__": "__guide__", "print": block_print})
    finally:
        DECLARATIONS.clear()
        DECLARATIONS.update(declared)
    assert_printed_lines(documented_output(code), printed.getvalue().splitlines())


# --- printed outputs shown in plain blocks -------------------------------------------------------------------


def printed_blocks() -> dict[str, list[str]]:
    """The guide's blocks of printed output (plain ``` blocks), by their first line."""
    blocks: list[list[str]] = []
    for path in guide_files():
        fence: str | None = None  # the language of the open block, None outside one
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("```"):
                fence = line[3:].strip() if fence is None else None
                if fence == "":
                    blocks.append([])
            elif fence == "":
                blocks[-1].append(line)
    return {lines[0]: lines for lines in blocks if lines and not lines[0].startswith("rageval_lc/")}


def shown_in_order(shown: list[str], printed: list[str]) -> None:
    """Every shown line (``...`` stands for lines left out) is a printed line, in the printed order (a rounded
    figure within one unit of its last shown digit: :func:`tests.floats.same_printed_line`)."""
    rest = iter(printed)
    for line in shown:
        if line.strip() == "...":
            continue
        assert any(same_printed_line(line, got) for got in rest), f"the guide shows a line not printed: {line!r}"


def test_printed_outputs_are_what_the_commands_print(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 10 of issue 23: the quickstart table and the gate's output in the guide are run and compared, so a drift
    fails here (the table was found printing 0.698 where the README said 0.631)."""
    from rageval_lc.cli import main
    from rageval_lc.engine.quickstart import run_quickstart

    blocks = printed_blocks()
    quickstart = next(lines for first, lines in blocks.items() if first.startswith("sample   "))
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


def test_the_rgb_guide_s_build_command_prints_what_the_page_shows(tmp_path: Path, monkeypatch, capsys) -> None:
    """Issue 36, item 4: the page's `rageval rgb build` over the shipped corpus is run, and its printed report
    compared with the page's (the Python block on the same page is run and compared by the test above)."""
    from rageval_lc.cli import main

    page = (DOCS / "guide" / "rgb-own-corpus.md").read_text(encoding="utf-8")
    command = re.search(r"^rageval rgb build (.*?)--out (\S+)$", page, re.S | re.M)
    assert command is not None and command.group(2) == "wiki_testbed.json"  # the file the page's run reads
    assert "rageval rgb run wiki_testbed.json " in page
    shown = next(lines for first, lines in printed_blocks().items() if first.endswith("integration records"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    args = command.group(1).replace("\\\n", " ").split()
    assert main(["rgb", "build", *args, "--out", command.group(2)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed == shown
    assert len((tmp_path / command.group(2)).read_text(encoding="utf-8").splitlines()) == 93


def test_the_guide_says_result_rows_keep_the_question_and_the_response() -> None:
    import json

    from rageval_lc.engine.jsonl import evaluate_lines

    row = {"id": "a", "question": "Q?", "contexts": ["A."], "response": "A.", "labels": {}}
    out = io.StringIO()
    evaluate_lines([json.dumps(row)], out, judge="labels", n_resamples=0)
    written = json.loads(out.getvalue())
    assert (written["question"], written["response"]) == ("Q?", "A.")
    guide = " ".join(guide_text().split())
    assert "Result rows keep no question or answer" not in guide
    assert "Result rows keep the question and the response" in guide


# --- links ---------------------------------------------------------------------------------------------------

LINK = re.compile(r"\[[^\]]*\]\((?P<target>[^)\s]+)\)")


def relative_links(path: Path) -> list[str]:
    """The relative link targets of a Markdown file (code blocks and inline code left out), anchors dropped."""
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    targets = [m["target"] for m in LINK.finditer(text)]
    return [t.split("#")[0] for t in targets if not re.match(r"[a-z]+:|#", t) and t.split("#")[0]]


@pytest.mark.parametrize("path", guide_files(), ids=where)
def test_relative_links_point_to_files_that_exist(path: Path) -> None:
    missing = [t for t in relative_links(path) if not (path.parent / t).exists()]
    assert not missing, f"{where(path)} links to files that are not there: {missing}"
    if path.parent == DOCS or DOCS in path.parents:  # the site holds docs/ only: a page links within it
        outside = [t for t in relative_links(path) if DOCS not in (path.parent / t).resolve().parents]
        assert not outside, f"{where(path)} links outside docs/, which the site does not hold: {outside}"


def test_readme_links_to_the_guide_and_every_guide_page_is_reachable() -> None:
    readme = set(relative_links(ROOT / "README.md"))
    assert "docs/index.md" in readme and "docs/cli.md" in readme
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {where(p).removeprefix("docs/") for p in DOCS.rglob("*.md")}
    assert {page for page in pages if page not in nav} == set()


# --- generated tables and the site -------------------------------------------------------------------------


def docs_module(name: str) -> Any:
    """A Python file of docs/ (the MkDocs hook, the Griffe extension), imported as MkDocs imports it."""
    spec = importlib.util.spec_from_file_location(f"docs_{name}", DOCS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def hooks() -> Any:
    return docs_module("hooks")


@pytest.mark.parametrize("name", ["hooks", "griffe_docstrings"])
def test_the_site_tools_do_what_their_examples_say(name: str) -> None:
    if name == "griffe_docstrings":
        pytest.importorskip("griffe", reason="mkdocstrings is not installed: pip install -e '.[docs]'")
    module = docs_module(name)
    assert doctest.testmod(module).failed == 0


def test_generated_tables_follow_the_registry_the_plan_and_the_parser() -> None:
    from rageval_lc.cli import build_parser
    from rageval_lc.scoring.plan import metric_judgements
    from rageval_lc.scoring.registry import BUILT_IN_METRICS

    docs = hooks()
    every = docs.metrics_table("all")
    assert all(f"| `{name}` |" in every for name in BUILT_IN_METRICS)
    assert "| `faithfulness` | `faithfulness` |" in docs.metrics_table("ragas")
    calls = docs.judge_calls()
    assert f"2: {docs.code(metric_judgements('faithfulness', 'separate'))}" in calls
    assert "**3**:" in calls and "**1**:" in calls and "**8**:" in calls  # the whole suite: shared, fused, separate
    reference = docs.cli_reference()
    commands = [prog for prog, _ in docs.subcommands(build_parser())]
    assert "rageval rgb score" in commands and "rageval align" in commands
    assert all(f"`{prog}`" in reference for prog in commands)
    assert "`--checkpoint CHECKPOINT`" in reference and "95% interval" in reference  # %% expanded
    with pytest.raises(ValueError, match="unknown generated block 'nope'"):
        docs.render("<!-- generated: nope -->")


def test_every_marker_in_the_guide_is_one_the_hook_answers() -> None:
    docs = hooks()
    for path in sorted(DOCS.rglob("*.md")):
        for match in docs.MARKER.finditer(path.read_text(encoding="utf-8")):
            assert match["name"] in docs.GENERATORS, f"{where(path)}: {match.group(0)}"


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    """``mkdocs build --strict``: a broken link or anchor, a missing snippet, an unknown generated block or a
    docstring the API reference cannot read fails it."""
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings") is None:
        why = "mkdocs is not installed: pip install -e '.[docs]' (README's set-up installs it)"
        if os.environ.get("RAGEVAL_REQUIRE_SHARED") == "1":  # CI: what README installs must be there
            pytest.fail(why)
        pytest.skip(why)
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "HF_HUB_OFFLINE": "1"}
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    cli = (site / "cli.html").read_text(encoding="utf-8")
    assert "rageval evaluate" in cli and "generated:" not in cli
    assert "evaluate_strings" in (site / "integrations" / "langchain.html").read_text(encoding="utf-8")  # snippet
    shutil.rmtree(site)
