"""The pytest plugin run by pytest itself (pytester), and assert_scores on every kind of subject."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from rageval_lc import RagSample, assert_scores, evaluate, evaluate_sample
from rageval_lc.adapters.assertions import configure_judge, configured_judge, metrics_for
from rageval_lc.schema import MetricResult
from tests.fakes import CountingJudge

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = "rageval_lc.adapters.pytest_plugin"
HEAVY = ("torch", "sentence_transformers", "transformers", "dspy", "langchain_core", "litellm", "numpy")

#: Two document sentences, 0a relevant and used; response sentence a supported, b not.
#: By hand (ragbench mode): context_relevance 1/2 = 0.5, completeness 1/1 = 1, adherence 0 (b unsupported),
#: faithfulness 1 of 2 sentences supported = 0.5.
LABELLED = {
    "id": "q1",
    "question": "Where is Paris?",
    "contexts": ["Paris is in France. It is big."],
    "response": "Paris is in France. Paris has ten million cats.",
    "labels": {
        "all_relevant_sentence_keys": ["0a"],
        "all_utilized_sentence_keys": ["0a"],
        "sentence_support_information": [
            {"response_sentence_key": "a", "supporting_sentence_keys": ["0a"], "fully_supported": True},
            {
                "response_sentence_key": "b",
                "supporting_sentence_keys": [],
                "fully_supported": False,
                "explanation": "No document counts the cats.",
            },
        ],
    },
}

INNER_TESTS = f"""
from rageval_lc import RagSample, assert_scores

SAMPLE = RagSample(**{LABELLED!r})

def test_relevant_enough(rageval_judge):
    assert_scores(SAMPLE, judge=rageval_judge, context_relevance=">=0.5", completeness="==1")

def test_grounded(rageval_judge):
    assert_scores(SAMPLE, judge=rageval_judge, adherence=1)

def test_no_judge_given_uses_the_configured_one():
    assert_scores(SAMPLE, faithfulness=">0.4")
"""


@pytest.fixture(autouse=True)
def no_judge_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGEVAL_JUDGE", raising=False)


def test_an_inner_test_passes_and_one_fails_showing_the_reason(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_rag=INNER_TESTS)
    result = pytester.runpytest("-p", PLUGIN, "--rageval-judge", "labels")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "rageval: judge labels (from --rageval-judge)",
            "*AssertionError: rageval: 1 score fell short (judge labels):",
            "*adherence = 0.000, needs >= 1: *No document counts the cats.*",
            "FAILED test_rag.py::test_grounded - AssertionError: rageval: 1 score fell sho*",
        ]
    )
    assert "assertions.py" not in result.stdout.str()  # the traceback stops at the test's own line


def test_the_ini_key_chooses_the_judge_and_the_fixture_is_built_once(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nrageval_judge = labels\n")
    pytester.makepyfile(
        test_judge="""
        SEEN = []

        def test_first(rageval_judge):
            SEEN.append(rageval_judge)
            assert rageval_judge.name == "labels"

        def test_second(rageval_judge):
            assert rageval_judge is SEEN[0]
        """
    )
    result = pytester.runpytest("-p", PLUGIN)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["rageval: judge labels (from ini rageval_judge)"])


def test_the_option_wins_over_the_ini_key_and_the_environment(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAGEVAL_JUDGE", "dspy:openai/never-called")
    pytester.makeini("[pytest]\nrageval_judge = dspy:openai/never-called-either\n")
    pytester.makepyfile(test_judge="def test_it(rageval_judge):\n    assert rageval_judge.name == 'labels'\n")
    pytester.runpytest("-p", PLUGIN, "--rageval-judge", "labels").assert_outcomes(passed=1)


def test_the_default_judge_is_the_offline_one(pytester: pytest.Pytester) -> None:
    # the one test on the offline judge: its model is not loaded to check this (loading waits for a judgement).
    # In a child process: building it imports torch, which pytester's in-process run would take out of
    # sys.modules afterwards (it restores the module table), breaking a later import of torch here.
    pytester.makepyfile(
        test_judge="""
        from rageval_lc.judges.offline.judge import OfflineJudge

        def test_it(rageval_judge):
            assert isinstance(rageval_judge, OfflineJudge)
        """
    )
    result = pytester.runpytest_subprocess("-p", PLUGIN, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "rageval: judge" not in result.stdout.str()  # no header line when nothing was chosen


def test_a_bad_judge_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest("-p", PLUGIN, "--rageval-judge", "gpt4")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--rageval-judge must be labels, offline or dspy:<model id>*Got 'gpt4'."])


@pytest.mark.parametrize("name", ["offline", "local"])
def test_the_offline_judge_is_named_offline_its_old_name_too(pytester: pytest.Pytester, name: str) -> None:
    pytester.makepyfile(test_x="def test_x():\n    pass\n")  # the judge is not built: nothing asks for it
    result = pytester.runpytest("-p", PLUGIN, "--rageval-judge", name)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["rageval: judge offline (from --rageval-judge)"])


def test_a_nested_session_gives_the_outer_judge_back(pytester: pytest.Pytester) -> None:
    previous = configure_judge("labels")
    try:
        outer = configured_judge()
        pytester.makepyfile(test_x="def test_x(rageval_judge):\n    assert rageval_judge.name == 'labels'\n")
        pytester.runpytest("-p", PLUGIN, "--rageval-judge", "labels").assert_outcomes(passed=1)
        assert configured_judge() is outer
    finally:
        configure_judge(*previous)


def test_the_example_test_file_passes(pytester: pytest.Pytester) -> None:
    example = (ROOT / "examples" / "test_rag_with_rageval.py").read_text(encoding="utf-8")
    pytester.makepyfile(test_rag_with_rageval=example)
    result = pytester.runpytest_subprocess("-p", PLUGIN, "--rageval-judge", "labels", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)


def test_loading_the_plugin_imports_nothing_heavy(pytester: pytest.Pytester) -> None:
    # a fresh interpreter: the collected test sees what pytest start-up (with the plugin) imported
    pytester.makepyfile(
        test_light=f"""
        import sys

        def test_light(rageval_judge):  # the fixture is set up: the labels judge is built, nothing heavy
            assert sorted(m for m in {HEAVY!r} if m in sys.modules) == []
        """
    )
    result = pytester.runpytest_subprocess("-p", PLUGIN, "--rageval-judge", "labels", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_the_declared_entry_point_loads_the_plugin_and_tolerates_dash_p(tmp_path: Path) -> None:
    """The [project.entry-points.pytest11] entry of pyproject.toml, installed as a distribution's metadata in a
    folder put on the path: pytest loads the plugin by it alone, and beside ``-p`` (the entry's name is the
    module's, so pytest does not register the module twice)."""
    entries = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["pytest11"]
    assert entries == {PLUGIN: PLUGIN}
    info = tmp_path / "site" / "rageval_entry_check-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rageval-entry-check\nVersion: 0\n")
    (info / "entry_points.txt").write_text("[pytest11]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()))
    (tmp_path / "test_x.py").write_text("def test_x(rageval_judge):\n    assert rageval_judge.name == 'labels'\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(info.parent), str(ROOT)])}
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    for extra in ([], ["-p", PLUGIN]):
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rageval-judge", "labels", *extra],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "1 passed" in done.stdout


# --- assert_scores on every kind of subject (labels judge: no model) ---------------------------------


def readme_test_block() -> str:
    """The guide's pytest block (docs/integrations/pytest.md): the test file whose samples carry no labels."""
    from tests.test_docs import python_blocks

    blocks = [p.values[0] for p in python_blocks()]
    (block,) = [b for b in blocks if "def test_the_answer_is_grounded_in_the_contexts(" in b]
    return block


def test_a_judge_that_cannot_score_fails_a_sample_and_a_run_alike(pytester: pytest.Pytester) -> None:
    # The guide's block run with the labels judge on a sample without labels: the judge raises ValueError.
    # Scored in the assertion (a sample) or before it (a run), each test fails with an AssertionError
    # naming every score asked for as ``error`` and the judge's reason.
    pytester.makepyfile(test_readme_block=readme_test_block())
    result = pytester.runpytest("-p", PLUGIN, "--rageval-judge", "labels")
    result.assert_outcomes(failed=2)
    no_labels = "ValueError: Sample 'eiffel' carries no TRACe labels (the 'labels' field)*"
    result.stdout.fnmatch_lines(
        [
            "*AssertionError: rageval: 2 scores fell short (judge labels):",
            f"*  adherence error, needs >= 1: {no_labels}",
            f"*  faithfulness error, needs >= 0.8: {no_labels}",
            "*AssertionError: rageval: 2 scores fell short:",
            f"*  faithfulness error, needs >= 0.8: {no_labels}",
            f"*  completeness error, needs >= 0.5: {no_labels}",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "FAILED test_readme_block.py::test_the_answer_is_grounded_in_the_contexts - As*",
            "FAILED test_readme_block.py::test_a_batch_meets_the_bar_on_every_row - As*",
        ]
    )


def test_a_sample_the_judge_cannot_score_fails_the_assertion_with_the_reason() -> None:
    unlabelled = RagSample(**{**LABELLED, "labels": None, "id": None})
    with pytest.raises(AssertionError) as caught:
        assert_scores(unlabelled, judge="labels", context_relevance=0.5)
    lines = str(caught.value).splitlines()
    assert lines[0] == "rageval: 1 score fell short (judge labels):"
    assert lines[1].startswith("  context_relevance error, needs >= 0.5: ValueError: The sample carries no TRACe")
    assert len(lines) == 2
    # a judge without the judgement a metric needs fails the same way (a run makes it an error row too)
    with pytest.raises(AssertionError, match=r"context_recall error, needs >= 0: ValueError: The 'labels' judge"):
        assert_scores(RagSample(**LABELLED), judge="labels", context_recall=0)


def test_a_sample_is_scored_on_the_metrics_its_conditions_need() -> None:
    result = assert_scores(RagSample(**LABELLED), judge="labels", context_relevance=">=0.5", faithfulness="<0.6")
    assert set(result.results) >= {"context_relevance", "faithfulness"}  # trace and faithfulness were scored
    assert result.scores()["faithfulness"] == 0.5  # 1 of 2 sentences supported
    assert metrics_for(["completeness", "context_precision_at_k"]) == ["trace", "context_precision"]


def test_a_dict_sample_fails_with_the_value_the_condition_and_the_reason() -> None:
    with pytest.raises(AssertionError) as caught:
        assert_scores(LABELLED, judge="labels", adherence=1, context_relevance="> 0.5", completeness=0.9)
    message = str(caught.value)
    assert message.splitlines()[0] == "rageval: 2 scores fell short (judge labels):"
    assert "  adherence = 0.000, needs >= 1: " in message and "No document counts the cats." in message
    assert "  context_relevance = 0.500, needs > 0.5: 1 relevant sentence over 2 document sentences." in message
    assert "completeness" not in message  # 1.0 >= 0.9


def test_an_undetermined_score_fails_with_its_reason() -> None:
    no_reference = RagSample(**LABELLED)  # context_recall needs a reference: undetermined, and >= 0 fails
    judge = CountingJudge()
    with pytest.raises(AssertionError) as caught:
        assert_scores(no_reference, judge=judge, context_recall=0, adherence=">=0")
    reason = evaluate_sample(no_reference, "context_recall", judge=judge).results["context_recall"].reason
    assert str(caught.value).splitlines() == [
        "rageval: 1 score fell short (judge counting):",
        f"  context_recall undetermined, needs >= 0: {reason}",
    ]
    assert "reference" in reason


def test_results_a_metric_result_mapping_and_result_rows() -> None:
    result = evaluate_sample(RagSample(**LABELLED), "trace", judge="labels")
    assert assert_scores(result, completeness=1) is result
    assert_scores(dict(result.results), context_relevance="==0.5")
    assert_scores(MetricResult(name="adherence", score=1.0, reason="All supported."), adherence=">=0.9")
    rows = [{**result.to_row(), "id": "a"}, json.loads(json.dumps({**result.to_row(), "id": "b"}))]
    with pytest.raises(AssertionError) as caught:
        assert_scores(rows, adherence=">=0.5")
    lines = str(caught.value).splitlines()
    assert lines[0] == "rageval: 2 scores fell short:"
    assert lines[1].startswith("  row a: adherence = 0.000, needs >= 0.5: ")
    assert lines[2].startswith("  row b: adherence = 0.000, needs >= 0.5: ")


def test_a_run_names_the_rows_that_fell_short() -> None:
    good = {**LABELLED, "id": "good", "response": "Paris is in France."}
    good["labels"] = {
        **LABELLED["labels"],
        "sentence_support_information": LABELLED["labels"]["sentence_support_information"][:1],
    }
    run = evaluate([RagSample(**good), RagSample(**LABELLED)], "trace", judge="labels", concurrency=1)
    with pytest.raises(AssertionError) as caught:
        assert_scores(run, adherence=1, completeness=1)
    assert str(caught.value).splitlines()[1:] == [
        "  row q1: adherence = 0.000, needs >= 1: " + run.results[1].results["adherence"].reason
    ]
    assert_scores(run, completeness=1)


def test_misuse_is_a_clear_error() -> None:
    sample = RagSample(**LABELLED)
    with pytest.raises(ValueError, match="needs at least one condition"):
        assert_scores(sample, judge="labels")
    with pytest.raises(ValueError, match=r"The condition on 'faithfulness' must be .* Got 'high'\."):
        assert_scores(sample, judge="labels", faithfulness="high")
    with pytest.raises(ValueError, match=r"No metric reports 'faithfulnes'\. Known scores: .*faithfulness"):
        assert_scores(sample, judge="labels", faithfulnes=0.5)
    result = evaluate_sample(sample, "trace", judge="labels")
    with pytest.raises(ValueError, match=r"No result has the score 'faithfulness'\. Scores present: context_rel"):
        assert_scores(result, faithfulness=0.5)
    with pytest.raises(TypeError, match=r"Got int\."):
        assert_scores(3, faithfulness=0.5)


def test_a_bad_judge_in_the_environment_fails_only_the_tests_that_use_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAGEVAL_JUDGE", "gpt4")  # the CLI's variable too: it must not stop every pytest run
    pytester.makepyfile(
        test_x="""
        def test_uses_the_judge(rageval_judge):
            pass

        def test_does_not():
            pass
        """
    )
    result = pytester.runpytest("-p", PLUGIN)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*gpt4*"])
