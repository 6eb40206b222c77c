"""The Python entry points read what the CLI reads (issue 23, item 1): RagSamples, rows in our, ragas' and
deepeval's field names, a pandas DataFrame, ragas / deepeval sample and dataset objects (duck-typed), and
``EvaluationRun.to_pandas()``."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from pydantic import BaseModel

from rageval_lc import RagSample, evaluate, evaluate_sample
from rageval_lc.cli import main
from rageval_lc.datasets.inputs import read_samples
from rageval_lc.judges.labels import LabelsJudge
from rageval_lc.judges.offline.judge import OfflineJudge
from tests.floats import assert_close_structure

METRICS = "trace,faithfulness"
ROOT = Path(__file__).resolve().parents[2]


class SingleTurnSample(BaseModel):
    """ragas' sample, as far as its fields go (a pydantic model; unused fields None)."""

    user_input: str | None = None
    retrieved_contexts: list[str] | None = None
    reference_contexts: list[str] | None = None
    response: str | None = None
    multi_responses: list[str] | None = None
    reference: str | None = None
    rubrics: dict[str, str] | None = None


class EvaluationDataset:
    """ragas' dataset: its samples under ``samples``."""

    def __init__(self, samples: list[SingleTurnSample]) -> None:
        self.samples = samples


@dataclass
class LLMTestCase:
    """deepeval's test case, as far as its fields go."""

    input: str
    actual_output: str | None = None
    expected_output: str | None = None
    context: list[str] | None = None
    retrieval_context: list[str] | None = None
    tags: list[str] = field(default_factory=list)


class DeepevalDataset:
    """deepeval's dataset: its test cases under ``test_cases``."""

    def __init__(self, test_cases: list[LLMTestCase]) -> None:
        self.test_cases = test_cases


@pytest.fixture(scope="module")
def thirty() -> list[RagSample]:
    """30 short RAG cases of our contradiction benchmark (two or three passages each), as plain samples."""
    lines = (ROOT / "benchmarks" / "data" / "contradiction_rag_cases.jsonl").read_text(encoding="utf-8").splitlines()
    cases = [json.loads(line) for line in lines[:30]]
    return [RagSample(question=c["question"], contexts=c["contexts"], response=c["response"]) for c in cases]


@pytest.fixture(scope="module")
def judge() -> OfflineJudge:
    return OfflineJudge()


def ragas_rows(samples: list[RagSample]) -> list[dict[str, Any]]:
    return [{"user_input": s.question, "retrieved_contexts": s.contexts, "response": s.response} for s in samples]


def deepeval_rows(samples: list[RagSample]) -> list[dict[str, Any]]:
    return [{"input": s.question, "retrieval_context": s.contexts, "actual_output": s.response} for s in samples]


def outcome(run: Any) -> list[tuple[Any, ...]]:
    return [(r.id, r.scores(), {k: m.status for k, m in r.results.items()}) for r in run.results]


def test_every_form_of_the_same_rows_scores_alike(thirty: list[RagSample], judge: OfflineJudge, tmp_path: Path) -> None:
    """ragas dicts, deepeval dicts, a DataFrame, ragas / deepeval objects and datasets, and RagSamples: one result.
    The runs share a disk cache of judgements (keyed by the sample's text): a form read differently misses it."""
    expected = outcome(evaluate(thirty, METRICS, judge=judge, cache_dir=tmp_path))
    assert [e[0] for e in expected] == [str(i) for i in range(30)]  # a sample without an id gets its index
    assert all(e[2]["adherence"] == "ok" for e in expected)
    ragas_objects = [SingleTurnSample(**row) for row in ragas_rows(thirty)]
    deepeval_objects = [LLMTestCase(**row) for row in deepeval_rows(thirty)]
    forms = {
        "ragas dicts": ragas_rows(thirty),
        "deepeval dicts": deepeval_rows(thirty),
        "DataFrame": pd.DataFrame(ragas_rows(thirty)),
        "ragas samples": ragas_objects,
        "ragas dataset": EvaluationDataset(ragas_objects),
        "deepeval test cases": deepeval_objects,
        "deepeval dataset": DeepevalDataset(deepeval_objects),
    }
    for name, data in forms.items():
        assert read_samples(data) == read_samples(thirty), name
        assert_close_structure(outcome(evaluate(data, METRICS, judge=judge, cache_dir=tmp_path)), expected)


def test_the_cli_scores_the_rows_as_evaluate_does(
    thirty: list[RagSample], judge: OfflineJudge, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [{"id": str(i), **row} for i, row in enumerate(ragas_rows(thirty[:6]))]
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["evaluate", str(data), "--metrics", "faithfulness", "--out", str(out), "--no-progress"]) == 0
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    ours = evaluate(rows, "faithfulness", judge=judge).rows()
    assert_close_structure([(r["id"], r["scores"]) for r in written], [(r["id"], r["scores"]) for r in ours])


def test_to_pandas_round_trips_the_scores(thirty: list[RagSample], judge: OfflineJudge) -> None:
    run = evaluate([*thirty[:4], RagSample(question="Q?", contexts=[], response="A.")], METRICS, judge=judge)
    frame = run.to_pandas(status=True, reasons=True)
    assert list(frame["id"]) == ["0", "1", "2", "3", "4"]
    names = list(run.results[0].results)
    assert list(frame.columns) == ["id", *names, *(f"status.{n}" for n in names), *(f"reason.{n}" for n in names)]
    for row, result in zip(frame.to_dict("records"), run.results, strict=True):
        for name, metric in result.results.items():
            assert row[f"status.{name}"] == metric.status and row[f"reason.{name}"] == metric.reason
            if metric.score is None:
                assert math.isnan(row[name])
            else:
                assert row[name] == metric.score  # the same float, not a rounded one
    assert frame.loc[4, "status.faithfulness"] == "undetermined"  # no contexts
    assert list(run.to_pandas().columns) == ["id", *names]


def test_a_row_that_cannot_be_read_fails_before_any_scoring() -> None:
    class Counting(LabelsJudge):
        calls: int = 0

        def prepare(self, samples: list[RagSample]) -> None:
            type(self).calls += 1

    rows = [
        {"user_input": "Q?", "retrieved_contexts": ["A."], "response": "A."},
        {"user_input": "Q?", "retrieved_contexts": ["A."]},  # no response
    ]
    with pytest.raises(ValueError, match=r"Row 1 cannot be read: .*'response' field \(accepted names: response"):
        evaluate(rows, "trace", judge=Counting())
    assert Counting.calls == 0
    with pytest.raises(ValueError, match=r"Row 0 cannot be read: .*not a sample"):
        evaluate([object()], "trace", judge="labels")
    with pytest.raises(TypeError, match="Wrap it in a list"):
        evaluate(rows[0], "trace", judge="labels")


def test_evaluate_sample_reads_one_row_in_any_form() -> None:
    labels = {"all_relevant_sentence_keys": ["0a"], "all_utilized_sentence_keys": ["0a"]}
    row = {
        "input": "Q?",
        "retrieval_context": ["Cats sleep. Dogs bark."],
        "actual_output": "Cats sleep.",
        "labels": labels,
    }
    scores = evaluate_sample(row, "trace", judge="labels").scores()
    assert scores["context_relevance"] == 0.5 and scores["completeness"] == 1.0  # 1 of 2 sentences relevant
    with pytest.raises(ValueError, match="'question' field"):
        evaluate_sample({"response": "A.", "contexts": ["A."]}, "trace", judge="labels")
