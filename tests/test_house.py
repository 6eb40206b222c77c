"""The house keeps its shape: no import circle, no import from a lower room back up to a higher one, every module
small enough to read (the docs hook draws the same graph: docs/development.md, "The house")."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests.test_docs import hooks

PACKAGE = Path(__file__).resolve().parents[1] / "rageval_lc"
MOST_LINES = 600
MOST_COMMAND_LINES = 250


@pytest.fixture(scope="module")
def edges() -> dict[str, set[str]]:
    return hooks().import_edges()


def test_no_module_imports_itself_round_a_circle(edges: dict[str, set[str]]) -> None:
    assert hooks().import_cycles(edges) == []


def test_no_room_imports_from_a_room_above_it(edges: dict[str, set[str]]) -> None:
    assert hooks().upward_imports(edges) == []


def test_every_room_has_its_place_in_the_layers(edges: dict[str, set[str]]) -> None:
    docs = hooks()
    assert {docs.room_of(module) for module in edges} <= set(docs.LAYERS)


def test_facts_stand_on_the_ground_floor(edges: dict[str, set[str]]) -> None:
    """``facts/`` is the lowest room above ``core``: it imports the standard library, numpy and ``core`` only."""
    docs = hooks()
    assert docs.LAYERS[:2] == ("core", "facts")
    facts = list((PACKAGE / "facts").rglob("*.py"))
    imported = set()
    for path in facts:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    assert imported - set(sys.stdlib_module_names) - {"__future__", "numpy", "rageval_lc"} == set()
    rooms = {docs.room_of(t) for m, targets in edges.items() if docs.room_of(m) == "facts" for t in targets}
    assert rooms <= {"core", "facts"}


def test_the_checks_find_a_circle_and_an_upward_import() -> None:
    docs = hooks()
    circle = {"rageval_lc.metrics.a": {"rageval_lc.metrics.b"}, "rageval_lc.metrics.b": {"rageval_lc.metrics.a"}}
    assert docs.import_cycles(circle) == [["rageval_lc.metrics.a", "rageval_lc.metrics.b"]]
    upward = {"rageval_lc.metrics.trace": {"rageval_lc.judges.base"}, "rageval_lc.judges.base": {"rageval_lc.text"}}
    assert docs.upward_imports(upward) == ["rageval_lc.metrics.trace -> rageval_lc.judges.base"]


def test_every_module_is_at_most_600_lines_and_every_command_at_most_250() -> None:
    lengths = {p.relative_to(PACKAGE).as_posix(): len(p.read_text().splitlines()) for p in PACKAGE.rglob("*.py")}
    assert {path: n for path, n in lengths.items() if n > MOST_LINES} == {}
    commands = {path: n for path, n in lengths.items() if path.startswith("cli/") and path != "cli/common.py"}
    assert commands and {path: n for path, n in commands.items() if n > MOST_COMMAND_LINES} == {}


def test_the_house_shows_every_room() -> None:
    docs = hooks()
    drawn = docs.house()
    rooms = [room for room in docs.LAYERS if room not in ("core", "facade")]
    assert all(f"| `{room}/` |" in drawn for room in rooms if (PACKAGE / room).is_dir())


def _private_imports(source: str) -> list[str]:
    """The private names (one leading underscore) a module's source imports from another module of the package."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("rageval_lc")):
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_") and a.name[:2] != "__"]
    return found


def test_no_module_of_the_package_imports_a_private_name() -> None:
    """Each module of ``rageval_lc/`` hands on only names without a leading underscore: what another module reads
    is public, said in its ``__all__``."""
    found = {
        path.relative_to(PACKAGE).as_posix(): names
        for path in PACKAGE.rglob("*.py")
        if (names := _private_imports(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_private_import_check_sees_one() -> None:
    source = "from rageval_lc.judges.offline.evidence import _Slots, frame_words\nfrom os import _exit\n"
    assert _private_imports(source) == ["rageval_lc.judges.offline.evidence._Slots"]
    assert _private_imports("from .evidence import _slots\nfrom .x import __version__\n") == ["evidence._slots"]
