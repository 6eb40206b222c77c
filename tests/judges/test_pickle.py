"""Judges pickle and load again, in this process and in a fresh one; importing the judges package stays light."""

from __future__ import annotations

import json
import pickle
import pickletools
import subprocess
import sys

import pytest


def run_python(code: str, stdin: bytes = b"") -> dict:
    """Run ``code`` in a fresh interpreter (nothing imported yet) and return the JSON it prints last."""
    done = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, check=True)
    return json.loads(done.stdout.decode().splitlines()[-1])


def test_importing_the_judges_package_imports_neither_half() -> None:
    loaded = run_python("import json, sys, rageval_lc.judges; print(json.dumps(sorted(sys.modules)))")
    halves = ("rageval_lc.judges.offline", "rageval_lc.judges.llm")
    assert [name for name in loaded if name.startswith(halves)] == []


def classes(data: bytes) -> list[str]:
    """The classes a pickle names (``module name``)."""
    return sorted({arg for op, arg, _ in pickletools.genops(data) if op.name == "GLOBAL"})


def judges() -> list:
    from rageval_lc.judges import DspyJudge, OfflineJudge

    return [OfflineJudge(device="cpu"), DspyJudge("openai/gpt-4o-mini", api_key="not-needed")]


@pytest.mark.parametrize("index", [0, 1], ids=["OfflineJudge", "DspyJudge"])
def test_a_judge_round_trips_through_pickle(index: int) -> None:
    judge = judges()[index]
    data = pickle.dumps(judge, protocol=2)
    copy = pickle.loads(data)
    assert type(copy) is type(judge) and sorted(vars(copy)) == sorted(vars(judge))
    assert classes(pickle.dumps(copy, protocol=2)) == classes(data)
    assert copy.cache_identity() == judge.cache_identity()  # the model, parameters, adapter or modules it judges by


@pytest.mark.parametrize("index", [0, 1], ids=["OfflineJudge", "DspyJudge"])
def test_a_pickled_judge_loads_in_a_fresh_process(index: int) -> None:
    judge = judges()[index]
    data = pickle.dumps(judge, protocol=2)
    loaded = run_python(  # in a fresh process: no module of the judges imported before pickle asks for one
        "import json, pickle, pickletools, sys\n"
        "judge = pickle.loads(sys.stdin.buffer.read())\n"
        "data = pickle.dumps(judge, protocol=2)\n"
        "names = sorted({a for op, a, _ in pickletools.genops(data) if op.name == 'GLOBAL'})\n"
        "print(json.dumps([type(judge).__module__, type(judge).__name__, judge.cache_identity(), names]))",
        stdin=data,
    )
    assert loaded[:2] == [type(judge).__module__, type(judge).__name__]
    assert loaded[2] == json.loads(json.dumps(judge.cache_identity()))  # the same judge
    assert loaded[3] == classes(data)  # pickled again, it names the same classes
