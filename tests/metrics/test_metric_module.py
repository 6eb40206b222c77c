"""A metric is one module: a new metric written as one file (``METRIC = MetricSpec(...)``, its score function,
its maths), with nothing else edited, is scored through the CLI (``--load``), the LangChain evaluator and the
DSPy metric; one that reads a built-in verdict shares its judgement with the built-in metrics.

The numbers, by hand: the response below has four sentences of 6, 32, 5 and 3 words, so three of four are
under 25 words: 0.75. The labelled sample's response has two sentences, the second unsupported: not every
claim is supported, 0.0 (faithfulness 0.5).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import dspy
import pytest

from rageval_lc.adapters import RagEvaluator, dspy_metric
from rageval_lc.judges.labels import LabelsJudge
from rageval_lc.schema import RagSample
from rageval_lc.scoring import plan
from rageval_lc.scoring.custom import load_metrics, temporary_metrics
from rageval_lc.scoring.dry_run import plan_calls
from rageval_lc.scoring.registry import REGISTRY
from rageval_lc.scoring.sample import evaluate_sample

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "What is the Eiffel Tower?"
CONTEXTS = ["The Eiffel Tower is an iron tower in Paris. It opened in 1889."]
RESPONSE = (
    "The Eiffel Tower is in Paris. It was built for the 1889 World Fair, which marked the centennial of the French "
    "Revolution, and it drew millions of visitors who came from every corner of Europe to see it. It is made of "
    "iron. It is tall."
)
REASON = "3 of 4 response sentences under 25 words."

#: The new metric, one module: nothing else is edited to add it.
SHORT_SENTENCES = '''
"""Short sentences: the share of the response's sentences under 25 words (no judge)."""

from rageval_lc.metrics.results import details_of, ok, undetermined
from rageval_lc.metrics.spec import MetricSpec

LIMIT = 25


def short_share(word_counts):
    """The share of sentences under LIMIT words."""
    return sum(count < LIMIT for count in word_counts) / len(word_counts)


def score_short_sentences(ctx):
    counts = [len(text.split()) for _, text in ctx.sample.sentences.response]
    if not counts:
        return undetermined(("short_sentences",), "The response has no sentence."), details_of(ctx, "short_sentences")
    short = sum(count < LIMIT for count in counts)
    reason = f"{short} of {len(counts)} response sentences under {LIMIT} words."
    result = ok("short_sentences", short_share(counts), reason, word_counts=counts)
    return {"short_sentences": result}, details_of(ctx, "short_sentences")


METRIC = MetricSpec(
    "short_sentences",
    ("short_sentences",),
    "Share of the response's sentences under 25 words.",
    score_short_sentences,
)
'''

#: A metric module reading a built-in verdict (the answer's claims): 1.0 when every claim is supported.
ALL_SUPPORTED = '''
"""All supported: 1.0 when the contexts support every claim of the answer, else 0.0."""

from rageval_lc.metrics.results import details_of, missing, ok
from rageval_lc.metrics.spec import MetricSpec


def score_all_supported(ctx):
    claims = ctx.claims()
    if not claims.ok:
        return missing(("all_supported",), claims), details_of(ctx, "all_supported", claims)
    unsupported = [c.claim for c in claims.value if not c.supported]
    reason = f"Unsupported: {unsupported}." if unsupported else "Every claim is supported."
    return {"all_supported": ok("all_supported", float(not unsupported), reason)}, details_of(
        ctx, "all_supported", claims
    )


METRIC = MetricSpec(
    "all_supported",
    ("all_supported",),
    "1.0 when every claim of the answer is supported by the contexts.",
    score_all_supported,
    needs_contexts=True,
    verdicts=("claims",),
)
'''


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    with temporary_metrics():
        yield


def write(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def test_a_new_metric_module_is_scored_through_the_cli_langchain_and_dspy(tmp_path: Path) -> None:
    module = write(tmp_path, "short_sentences", SHORT_SENTENCES)
    assert "short_sentences" not in REGISTRY

    # the CLI, in a subprocess, offline, with two workers (each loads the module again)
    rows = tmp_path / "rows.jsonl"
    row = {"question": QUESTION, "contexts": CONTEXTS, "response": RESPONSE}
    rows.write_text("".join(json.dumps({"id": f"r{i}", **row}) + "\n" for i in range(2)), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    argv = [sys.executable, "-m", "rageval_lc", "evaluate", str(rows), "--load", str(module)]
    argv += ["--metrics", "short_sentences", "--judge", "labels", "--workers", "2", "--no-progress"]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    scored = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["scores"] for r in scored] == [{"short_sentences": 0.75}] * 2
    assert [r["reason"]["short_sentences"] for r in scored] == [REASON] * 2

    assert load_metrics(str(module)) == ["short_sentences"]
    assert REGISTRY["short_sentences"].scores == ("short_sentences",)
    assert plan.METRIC_VERDICTS["short_sentences"] == ()

    # the LangChain evaluator (and Runnable)
    evaluator = RagEvaluator("short_sentences", judge="labels")
    out = evaluator.evaluate_strings(prediction=RESPONSE, input=QUESTION, contexts=CONTEXTS)
    assert (out["score"], out["status"], out["reasoning"]) == (0.75, "ok", REASON)
    assert evaluator.invoke({"question": QUESTION, "contexts": CONTEXTS, "response": RESPONSE})["score"] == 0.75

    # the DSPy metric
    metric = dspy_metric("short_sentences", judge="labels")
    example, prediction = dspy.Example(question=QUESTION), dspy.Prediction(answer=RESPONSE, contexts=CONTEXTS)
    assert metric(example, prediction) == 0.75
    assert metric(example, prediction, trace=[]) is True  # 0.75 >= the 0.5 pass mark while bootstrapping


def test_a_metric_module_reading_a_verdict_shares_its_judgement(tmp_path: Path) -> None:
    assert load_metrics(str(write(tmp_path, "all_supported", ALL_SUPPORTED))) == ["all_supported"]
    assert plan.METRIC_VERDICTS["all_supported"] == ("claims",)
    assert {m: plan.metric_judgements("all_supported", m) for m in plan.SCORING_MODES} == {
        "shared": ("trace_labels",),
        "fused": ("assess_all",),
        "separate": ("extract_claims", "verify_claims"),
    }
    labels = {"all_relevant_sentence_keys": ["0a"], "unsupported_response_sentence_keys": ["b"]}
    sample = RagSample(
        question=QUESTION, contexts=CONTEXTS, response="It is in Paris. It is made of gold.", labels=labels
    )
    result = evaluate_sample(sample, "faithfulness,all_supported", judge="labels")
    assert result.scores() == {"faithfulness": 0.5, "all_supported": 0.0}
    assert result.results["all_supported"].reason == "Unsupported: ['It is made of gold.']."
    # one labelling pass serves both metrics
    assert result.details["all_supported"]["judgements"] == result.details["faithfulness"]["judgements"]
    assert list(result.details["judge_usage"]["by_judgement"]) == ["trace_labels"]
    [call] = plan_calls([sample], "faithfulness,all_supported", LabelsJudge())
    assert (call.judgement, call.metrics) == ("trace_labels", ("faithfulness", "all_supported"))
    # without contexts it is undetermined, as the built-in context metrics are
    bare = evaluate_sample(sample.model_copy(update={"contexts": []}), "all_supported", judge="labels")
    assert bare.results["all_supported"].status == "undetermined"


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("METRIC = 3\n", "TypeError: its METRIC must be a MetricSpec. Got int instead."),
        (
            SHORT_SENTENCES.replace('"short_sentences",\n    ("short_sentences",)', '"faithfulness",\n    ("x",)'),
            "clashes",
        ),
        (ALL_SUPPORTED.replace('verdicts=("claims",)', 'verdicts=("gossip",)'), "reads the verdicts"),
    ],
)
def test_a_module_whose_metric_cannot_be_registered_is_refused(tmp_path: Path, source: str, said: str) -> None:
    before = dict(REGISTRY)
    with pytest.raises(ValueError, match="cannot load metrics from") as caught:
        load_metrics(str(write(tmp_path, "bad_metric", source)))
    assert said in str(caught.value)
    assert dict(REGISTRY) == before
