"""RAGBench rows: the loader, and ragbench mode reproducing every released score exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rageval_lc.datasets.ragbench import is_ragbench_row, load_ragbench, ragbench_record
from rageval_lc.datasets.rows import sample_from_row
from rageval_lc.metrics.trace import TRACE_METRICS, trace_scores
from rageval_lc.scoring.sample import evaluate_sample
from rageval_lc.text import document_key, sentence_letters

RELEASED = {
    "context_relevance": "relevance_score",
    "context_utilization": "utilization_score",
    "completeness": "completeness_score",
    "adherence": "adherence_score",
}


@pytest.fixture(scope="module")
def rows(ragbench_files: list[Path]) -> list[dict]:
    return [json.loads(line) for path in ragbench_files for line in path.read_text(encoding="utf-8").splitlines()]


def test_all_rows_are_present(rows: list[dict]) -> None:
    assert len(rows) == 2981


def test_ragbench_mode_reproduces_every_released_score(rows: list[dict]) -> None:
    mismatches = []
    for row in rows:
        record = ragbench_record(row)
        scores = trace_scores(record.labels, record.sample.sentences, mode="ragbench")
        for metric, column in RELEASED.items():
            if getattr(scores, metric) != float(row[column]):  # exact equality, not approximate
                mismatches.append((record.sample.id, metric, getattr(scores, metric), row[column]))
    assert mismatches == []


def test_evaluate_sample_reproduces_released_scores(rows: list[dict]) -> None:
    for row in rows[::7]:
        result = evaluate_sample(sample_from_row(row), "trace", judge="labels")
        assert {m: result.scores()[m] for m in TRACE_METRICS} == {m: float(row[c]) for m, c in RELEASED.items()}


def test_the_key_scheme_holds_on_every_row(rows: list[dict]) -> None:
    for row in rows:
        for i, doc in enumerate(row["documents_sentences"]):
            assert [k for k, _ in doc] == [document_key(i, j) for j in range(len(doc))]
        response = row["response_sentences"]
        assert [k for k, _ in response] == [sentence_letters(j) for j in range(len(response))]


def test_record_fields_and_unique_ids(rows: list[dict]) -> None:
    records = [ragbench_record(row) for row in rows]
    ids = [r.sample.id for r in records]
    assert len(set(ids)) == len(ids)
    first = records[0]
    assert first.sample.id == "covidqa_validation:1033:gpt-3.5-turbo-1106"
    assert first.dataset == "covidqa"
    assert first.labels.released is True
    assert first.labels.overall_supported is True
    assert first.released_scores["context_relevance"] == rows[0]["relevance_score"]
    assert first.other_judges["gpt3_adherence"] == 0.0
    assert first.other_judges["ragas_faithfulness"] is None
    assert first.sample.keyed_sentences is not None
    assert first.sample.sentences.sentence("0f").startswith("Alpha-tubulin was highly abundant")
    assert {r.dataset for r in records} == {
        "covidqa",
        "delucionqa",
        "emanual",
        "expertqa",
        "hagrid",
        "hotpotqa",
        "msmarco",
    }


def test_capstone_mode_runs_on_every_row(rows: list[dict]) -> None:
    for row in rows[::5]:
        record = ragbench_record(row)
        scores = trace_scores(record.labels, record.sample.sentences, mode="capstone")
        relevant = record.labels.cleaned(record.sample.sentences)[0].all_relevant_sentence_keys
        assert scores.context_relevance == min(1.0, len(relevant) / 20)


def test_load_ragbench_reads_a_file_and_names_bad_lines(ragbench_files: list[Path], tmp_path: Path) -> None:
    records = list(load_ragbench(ragbench_files[0]))
    assert len(records) == sum(1 for _ in ragbench_files[0].open(encoding="utf-8"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text(ragbench_files[0].read_text(encoding="utf-8").splitlines()[0] + '\n{"id": 1}\n')
    loaded = load_ragbench(bad)
    next(loaded)
    with pytest.raises(ValueError, match=r"bad.jsonl:2: not a valid RAGBench row: .*lacks \['question'"):
        next(loaded)


def test_row_detection() -> None:
    assert is_ragbench_row({"documents": [], "documents_sentences": [], "response_sentences": []})
    assert not is_ragbench_row({"question": "Q?", "contexts": [], "response": ""})
    with pytest.raises(TypeError, match="'row' field of ragbench_record must be a mapping"):
        ragbench_record(["not", "a", "row"])  # type: ignore[arg-type]
