"""The pytest plugin: RAG tests written with :func:`~rageval_lc.adapters.assertions.assert_scores`, the judge
chosen once for the session.

pytest loads it through the ``pytest11`` entry point once rageval_lc is installed (by hand:
``-p rageval_lc.adapters.pytest_plugin``; switched off with ``-p no:rageval_lc.adapters.pytest_plugin``). It adds:

- the option ``--rageval-judge labels|offline|dspy:<model id>`` and the ini key ``rageval_judge`` (the option
  wins, then the ini key, then ``$RAGEVAL_JUDGE``, then the offline judge, ``offline``; its old name ``local`` is
  read as ``offline``): the judge that ``assert_scores`` uses when given none;
- the session fixture ``rageval_judge``: that judge, built once, so the offline judge's model loads once.

Loading the plugin is light (it runs in every pytest session of whoever installs rageval_lc): it imports
neither torch, sentence-transformers nor DSPy; the judge is built when a test first asks for it.

Example (a test file)::

    from rageval_lc import RagSample, assert_scores

    def test_answer_is_grounded(rageval_judge):
        sample = RagSample(question="...", contexts=["..."], response="...")
        assert_scores(sample, judge=rageval_judge, faithfulness=">=0.8", context_relevance=">0.5")
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from rageval_lc.adapters.assertions import DEFAULT_JUDGE, assert_scores, configure_judge, configured_judge
from rageval_lc.judges.factory import canonical_judge_spec

__all__ = ["assert_scores", "judge_setting", "rageval_judge"]

_PREVIOUS = pytest.StashKey[tuple[Any, Any]]()
_SETTING = pytest.StashKey[tuple[str, str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("rageval", "rageval_lc: RAG tests with assert_scores")
    group.addoption(
        "--rageval-judge",
        dest="rageval_judge",
        default=None,
        metavar="JUDGE",
        help="the judge assert_scores and the rageval_judge fixture use: labels, offline (the default) "
        "or dspy:<model id> (default: the ini key rageval_judge, else $RAGEVAL_JUDGE, else offline)",
    )
    parser.addini("rageval_judge", help="the judge of assert_scores and rageval_judge (labels, offline, dspy:<model>)")


def judge_setting(config: pytest.Config) -> tuple[str, str]:
    """The judge name the session uses and where it comes from (option, ini key, environment or default).

    Raises:
        pytest.UsageError: If the option or the ini key is not ``labels``, ``offline`` or ``dspy:<model id>``
            (a bad ``$RAGEVAL_JUDGE`` fails only the tests that use the judge).
    """
    for value, source in (
        (config.getoption("rageval_judge", None), "--rageval-judge"),
        (config.getini("rageval_judge"), "ini rageval_judge"),
        (os.environ.get("RAGEVAL_JUDGE"), "$RAGEVAL_JUDGE"),
    ):
        if value and str(value).strip():
            spec = canonical_judge_spec(str(value))
            valid = spec in ("labels", "offline") or (spec.startswith("dspy:") and bool(spec[5:].strip()))
            if not valid and source != "$RAGEVAL_JUDGE":  # the environment's is shared with the CLI: a test
                # that uses the judge fails saying why, the other tests of the session run
                msg = (
                    f"{source} must be labels, offline or dspy:<model id> (e.g. dspy:openai/gpt-4o-mini). Got {spec!r}."
                )
                raise pytest.UsageError(msg)
            return spec, source
    return DEFAULT_JUDGE, "default"


def pytest_configure(config: pytest.Config) -> None:
    spec, source = judge_setting(config)
    config.stash[_SETTING] = (spec, source)
    config.stash[_PREVIOUS] = configure_judge(spec)


def pytest_unconfigure(config: pytest.Config) -> None:
    previous = config.stash.get(_PREVIOUS, None)
    if previous is not None:  # a session inside another one (pytester) gives the outer one its judge back
        configure_judge(*previous)


def pytest_report_header(config: pytest.Config) -> str | None:
    spec, source = config.stash.get(_SETTING, (DEFAULT_JUDGE, "default"))
    return None if source == "default" else f"rageval: judge {spec} (from {source})"


@pytest.fixture(scope="session")
def rageval_judge() -> Any:
    """The session's judge (``--rageval-judge``, ini ``rageval_judge``, ``$RAGEVAL_JUDGE``, else the offline
    judge), built once for the whole session."""
    return configured_judge()
