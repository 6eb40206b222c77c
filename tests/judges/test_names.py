"""One name for the offline judge: ``offline`` / ``OfflineJudge``; its old name, ``local`` / ``LocalJudge``, is read
as it wherever a user types it (issue 47). Nothing here loads a model: building the offline judge only chooses
its device."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from rageval_lc.judges import factory
from rageval_lc.judges.factory import JUDGE_FORMS, canonical_judge_spec, make_judge, offline_options, resolve_judge
from rageval_lc.judges.offline.judge import OfflineJudge


@pytest.mark.parametrize(
    ("old", "canonical"),
    [
        ("local", "offline"),
        (" local ", "offline"),
        ("local:my_judge.json", "offline:my_judge.json"),
        ("local:nli=models/my-nli", "offline:nli=models/my-nli"),
        ("local:nli=models/my-nli,judge=my_judge.json", "offline:nli=models/my-nli,judge=my_judge.json"),
        ("cascade:local,dspy:openai/gpt-4o-mini", "cascade:offline,dspy:openai/gpt-4o-mini"),
        ("cascade:local:nli=a,b,dspy:openai/x", "cascade:offline:nli=a,b,dspy:openai/x"),
        ("offline", "offline"),
        ("labels", "labels"),
        ("dspy:openai/local", "dspy:openai/local"),
        ("localhost", "localhost"),
    ],
)
def test_the_old_name_of_every_form_is_read_as_offline(old: str, canonical: str) -> None:
    assert canonical_judge_spec(old) == canonical
    assert canonical_judge_spec(canonical) == canonical


def test_the_canonical_names_are_offline_and_the_old_ones_aliases() -> None:
    import rageval_lc.judges as judges
    from rageval_lc.judges.offline import judge as module

    assert OfflineJudge.name == "offline"
    assert judges.OfflineJudge is OfflineJudge and judges.LocalJudge is OfflineJudge
    assert module.LocalJudge is OfflineJudge
    assert factory.local_options is offline_options
    assert not any(form.startswith("local") or ",local" in form or ":local" in form for form in JUDGE_FORMS)
    assert "offline" in JUDGE_FORMS and "cascade:offline,dspy:<model id>" in JUDGE_FORMS


@pytest.mark.parametrize("name", ["offline", "local"])
def test_both_names_build_the_offline_judge(name: str) -> None:
    judge = make_judge(name, device="cpu")
    assert type(judge) is OfflineJudge and judge.name == "offline"
    assert resolve_judge(name, device="cpu") is resolve_judge(None, device="cpu")  # one per process and device


@pytest.mark.parametrize(
    "options", ["nli=models/my-nli", "nli=models/my-nli,judge=my_judge.json", "my_judge.json", "judge=j.json"]
)
def test_the_old_and_the_new_name_give_the_same_options(monkeypatch: pytest.MonkeyPatch, options: str) -> None:
    built: list[tuple[Any, ...]] = []

    def aligned(path: str | None, *, nli: str | None = None, device: str, **kwargs: Any) -> Any:
        built.append((path, nli, device, kwargs))
        return object()

    monkeypatch.setattr(factory, "_aligned_offline_judge", aligned)
    make_judge(f"local:{options}", device="cpu")
    make_judge(f"offline:{options}", device="cpu")
    assert len(built) == 2 and built[0] == built[1]
    assert offline_options(options) == factory.local_options(options)


@pytest.mark.parametrize("spec", ["local:", "offline:"])
def test_the_messages_say_offline(spec: str) -> None:
    with pytest.raises(ValueError, match="An 'offline:' judge needs"):
        make_judge(spec)
    with pytest.raises(ValueError, match=r"Use 'labels', 'offline', 'offline:<aligned judge file>'"):
        make_judge("gpt-4")
    with pytest.raises(ValueError, match=r"'cascade:offline,dspy:<model id>'"):
        make_judge("offline", escalate=0.2)


def test_the_cli_help_lists_offline_and_names_local_as_its_old_name() -> None:
    from rageval_lc.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    for command in ("evaluate", "agreement", "align"):
        (judge,) = [a for a in commands[command]._actions if "--judge" in a.option_strings]
        assert judge.help.startswith(("labels | offline | offline:<aligned judge file>", "offline | offline:"))
    evaluate = next(a for a in commands["evaluate"]._actions if "--judge" in a.option_strings)
    assert "else offline; local is offline's old name" in evaluate.help
    engine = next(a for a in commands["evaluate"]._actions if "--engine" in a.option_strings)
    assert engine.choices == ("local", "ray")  # where rows are scored: another "local", kept
