"""Issue 44, item 7: a run whose judge cannot be called (no API key) stops at the first call with one line, a run
whose every row failed exits non-zero, and the dry run says that DSPy may call twice per judgement.

No provider is called: a fake LM raises the provider's own AuthenticationError, and DSPy's own LM without a key
fails before it sends anything."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.outputs import ChatResult
from pydantic import Field

from rageval_lc.cli import common, main


def rows(n: int) -> list[dict]:
    return [
        {"id": f"r{i}", "question": f"What do cats do? ({i})", "contexts": ["Cats sleep. Cats hunt."],
         "response": "Cats sleep."}
        for i in range(n)
    ]  # fmt: skip


def write_rows(path: Path, lines: list[dict | str]) -> Path:
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return path


class KeylessChat(BaseChatModel):
    """A chat model that raises what litellm raises when OPENAI_API_KEY is unset (the OpenAI client refuses before
    any request), recording the prompt of each call."""

    asked: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "keyless-fake"

    def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        import litellm

        self.asked.append(str(messages[-1].content))
        raise litellm.AuthenticationError(
            message="OpenAIException - The api_key client option must be set either by passing api_key to the "
            "client or by setting the OPENAI_API_KEY environment variable",
            llm_provider="openai",
            model="gpt-4o-mini",
        )


def keyless_judge(monkeypatch: pytest.MonkeyPatch) -> KeylessChat:
    """The CLI's judge made over a :class:`KeylessChat` (named dspy:openai/gpt-4o-mini); the chat model returned."""
    from rageval_lc.judges.llm.dspy_judge import DspyJudge

    chat = KeylessChat()
    judge = DspyJudge(chat)
    judge.name = "dspy:openai/gpt-4o-mini"
    monkeypatch.setattr(common, "judge_from_args", lambda args: judge)
    return chat


def test_a_keyless_run_stops_at_the_first_call_with_one_line(tmp_path: Path, capsys, monkeypatch) -> None:
    lm = keyless_judge(monkeypatch)
    source, out = write_rows(tmp_path / "in.jsonl", rows(12)), tmp_path / "out.jsonl"
    status = main(["evaluate", str(source), "--judge", "dspy:openai/gpt-4o-mini", "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1, err  # one line: no summary table, no usage line counting calls never made
    assert err.startswith("rageval: error: the judge dspy:openai/gpt-4o-mini cannot be called (line 1, id 'r0'): ")
    assert "AuthenticationError" in err and "OPENAI_API_KEY" in err  # the provider's own words
    assert "no row was written" in err and "--api-key-env" in err
    assert out.read_text(encoding="utf-8") == ""  # no error row for each of the 12 rows
    assert len(lm.asked) == 1 and "(0)" in lm.asked[0]  # the first row's one call, then nothing


def test_dspy_s_own_lm_without_a_key_stops_the_run_as_well(tmp_path: Path, capsys, monkeypatch) -> None:
    # DSPy's LM finds no key in the environment and refuses before sending anything (LMNotConfiguredError).
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    source = write_rows(tmp_path / "in.jsonl", rows(3))
    status = main(["evaluate", str(source), "--judge", "dspy:openai/gpt-4o-mini", "--no-progress"])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""  # no result line on standard output either
    assert captured.err.startswith("rageval: error: the judge dspy:openai/gpt-4o-mini cannot be called (line 1")
    assert captured.err.count("\n") == 1 and "OPENAI_API_KEY" in captured.err


def test_a_run_whose_every_row_failed_exits_1(tmp_path: Path, capsys) -> None:
    bad = [{"id": "a", "question": "Q?"}, "{broken"]  # no contexts nor response; not JSON
    source = write_rows(tmp_path / "in.jsonl", bad)
    assert main(["evaluate", str(source), "--judge", "labels", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "2 rows scored, 2 failed, 0 undetermined." in err
    assert err.rstrip().endswith("rageval: every row failed (2 of 2); exit status 1.")
    # one row scored: the run did something, exit 0 as before (--strict makes any failed row count)
    ok = {"id": "b", "question": "Q?", "contexts": ["A. B."], "response": "A.", "labels": {}}
    source = write_rows(tmp_path / "in.jsonl", [*bad, ok])
    assert main(["evaluate", str(source), "--judge", "labels", "--no-progress"]) == 0


def test_the_dry_run_counts_dspy_s_json_adapter_fallback(tmp_path: Path, capsys) -> None:
    # A small model made 2 calls per row where the estimate said 1: DSPy's chat adapter asks again through its
    # JSON adapter when the answer does not parse. 3 rows, one trace_labels call each: up to 6, 18 with 2 retries.
    source = write_rows(tmp_path / "in.jsonl", rows(3))
    assert main(["evaluate", str(source), "--judge", "dspy:openai/gpt-4o-mini", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "3 model calls before retries (at most 3x that with retries)." in out
    assert (
        "Up to 2 calls per judgement when the chat adapter's output does not parse (DSPy then asks again through its "
        "JSON adapter): at most 6 calls, 18 with retries." in " ".join(out.split())
    )
    assert main(["evaluate", str(source), "--judge", "labels", "--dry-run"]) == 0
    assert "JSON adapter" not in capsys.readouterr().out  # no model, no fallback


@pytest.mark.parametrize("concurrency", ["1", "4"])
def test_a_keyless_run_stops_whatever_the_concurrency(tmp_path: Path, capsys, monkeypatch, concurrency) -> None:
    lm = keyless_judge(monkeypatch)
    source, out = write_rows(tmp_path / "in.jsonl", rows(40)), tmp_path / "out.jsonl"
    args = ["evaluate", str(source), "--judge", "dspy:x/y", "--out", str(out), "--concurrency", concurrency]
    assert main([*args, "--no-progress"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert out.read_text(encoding="utf-8") == ""
    assert len(lm.asked) <= 2 * int(concurrency)  # the rows already in flight, never the whole file
