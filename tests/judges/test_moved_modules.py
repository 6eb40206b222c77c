"""The judges' old module paths still import, as the very modules at their new places, and old pickles load."""

from __future__ import annotations

import importlib
import json
import pickle
import pickletools
import subprocess
import sys

import pytest

from rageval_lc.judges._moved import MOVED


def run_python(code: str, stdin: bytes = b"") -> dict:
    """Run ``code`` in a fresh interpreter (nothing imported yet) and return the JSON it prints last."""
    done = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, check=True)
    return json.loads(done.stdout.decode().splitlines()[-1])


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_is_the_module_at_its_new_place(old: str) -> None:
    module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])
    assert sys.modules[old] is module
    assert module.__name__ == MOVED[old] and module.__spec__.name == MOVED[old]  # its own name is kept
    parent, _, child = old.rpartition(".")
    assert getattr(sys.modules[parent], child) is module  # `import rageval_lc.judges.local as x` gives it too


def test_names_import_from_an_old_path() -> None:
    from rageval_lc.judges.align_llm import compile_modules
    from rageval_lc.judges.dspy_judge import DspyJudge
    from rageval_lc.judges.local import LocalJudge

    from rageval_lc.judges.llm.align import compile_modules as compile_modules_now
    from rageval_lc.judges.llm.dspy_judge import DspyJudge as DspyJudgeNow

    assert LocalJudge is not None and DspyJudge is DspyJudgeNow and compile_modules is compile_modules_now


def test_a_name_that_never_existed_is_still_missing() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("rageval_lc.judges.local_params")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("rageval_lc.judges.offline.local")


def test_an_old_import_in_a_fresh_process_registers_both_names() -> None:
    found = run_python(
        "import json, sys\n"
        "from rageval_lc.judges.local import LocalJudge\n"
        "from rageval_lc.judges.offline.judge import LocalJudge as Now\n"
        "new = sys.modules['rageval_lc.judges.offline.judge']\n"
        "print(json.dumps([LocalJudge is Now, sys.modules['rageval_lc.judges.local'] is new]))"
    )
    assert found == [True, True]


def test_importing_the_judges_package_imports_no_moved_module() -> None:
    loaded = run_python("import json, sys, rageval_lc.judges; print(json.dumps(sorted(sys.modules)))")
    halves = {"rageval_lc.judges.offline", "rageval_lc.judges.llm"}
    assert [name for name in loaded if name in MOVED or name in MOVED.values() or name in halves] == []


def old_pickle(data: bytes) -> bytes:
    """``data`` (pickle protocol 2) as written before the move: every class named by its old module."""
    for old, new in MOVED.items():
        data = data.replace(b"c" + new.encode() + b"\n", b"c" + old.encode() + b"\n")
    return data


def classes(data: bytes) -> list[str]:
    """The classes a pickle names (``module name``)."""
    return sorted({arg for op, arg, _ in pickletools.genops(data) if op.name == "GLOBAL"})


def judges() -> list:
    from rageval_lc.judges import DspyJudge, LocalJudge

    return [LocalJudge(device="cpu"), DspyJudge("openai/gpt-4o-mini", api_key="not-needed")]


@pytest.mark.parametrize("index", [0, 1], ids=["LocalJudge", "DspyJudge"])
def test_a_judge_round_trips_through_pickle(index: int) -> None:
    judge = judges()[index]
    data = pickle.dumps(judge, protocol=2)
    copy = pickle.loads(data)
    assert type(copy) is type(judge) and sorted(vars(copy)) == sorted(vars(judge))
    assert classes(pickle.dumps(copy, protocol=2)) == classes(data)
    assert copy.cache_identity() == judge.cache_identity()  # the model, parameters, adapter or modules it judges by


@pytest.mark.parametrize("index", [0, 1], ids=["LocalJudge", "DspyJudge"])
def test_a_judge_pickled_before_the_move_loads(index: int) -> None:
    judge = judges()[index]
    data = pickle.dumps(judge, protocol=2)
    old = old_pickle(data)
    assert any(name.startswith(tuple(f"{module} " for module in MOVED)) for name in classes(old))
    assert not any(".offline." in name or ".llm." in name for name in classes(old))
    loaded = run_python(  # in a fresh process: no module of the judges imported before pickle asks for one
        "import json, pickle, pickletools, sys\n"
        "judge = pickle.loads(sys.stdin.buffer.read())\n"
        "data = pickle.dumps(judge, protocol=2)\n"
        "names = sorted({a for op, a, _ in pickletools.genops(data) if op.name == 'GLOBAL'})\n"
        "print(json.dumps([type(judge).__module__, type(judge).__name__, judge.cache_identity(), names]))",
        stdin=old,
    )
    assert loaded[:2] == [type(judge).__module__, type(judge).__name__]  # the class at its new place
    assert loaded[2] == json.loads(json.dumps(judge.cache_identity()))  # the same judge
    assert loaded[3] == classes(data)  # pickled again, it names the new modules
