"""training/rebuild.py: one driver rebuilds every fitted file, each step skipped when its inputs did not change."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "training"))

import rebuild


@pytest.fixture
def fake_steps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], dict[str, Path]]:
    """Three steps over files in tmp_path; each run is recorded."""
    ran: list[str] = []
    inputs = {name: tmp_path / f"{name}.txt" for name in ("a", "b", "c")}
    for path in inputs.values():
        path.write_text("v1", encoding="utf-8")
    monkeypatch.setattr(rebuild, "STATE", tmp_path / "state.json")
    monkeypatch.setattr(
        rebuild, "steps", lambda shared: [(name, [path], lambda n=name: ran.append(n)) for name, path in inputs.items()]
    )
    return ran, inputs


def test_every_step_runs_once_then_none_until_an_input_changes(fake_steps) -> None:
    ran, inputs = fake_steps
    assert rebuild.main([]) == 0
    assert ran == ["a", "b", "c"]
    ran.clear()
    assert rebuild.main([]) == 0
    assert ran == []  # nothing changed: every step skipped
    inputs["b"].write_text("v2", encoding="utf-8")
    assert rebuild.main([]) == 0
    assert ran == ["b", "c"]  # b's input changed: b runs, and c, which reads what b wrote


def test_dry_run_runs_nothing_and_from_forces_a_step(fake_steps, capsys) -> None:
    ran, inputs = fake_steps
    rebuild.main([])
    ran.clear()
    inputs["a"].write_text("v2", encoding="utf-8")
    rebuild.main(["--dry-run"])
    assert ran == []
    assert "a: would run" in capsys.readouterr().out
    rebuild.main([])
    assert ran == ["a", "b", "c"]  # a changed: it and every step after it
    ran.clear()
    rebuild.main(["--from", "c"])
    assert ran == ["c"]  # nothing changed; c forced
