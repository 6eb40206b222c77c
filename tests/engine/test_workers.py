"""--workers N: worker processes score as the in-process engine does, in input order, losing nothing."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from rageval_lc.cli import main
from rageval_lc.engine.engine import evaluate, make_resilient
from rageval_lc.engine.workers import _payload
from rageval_lc.judges.labels import LabelsJudge
from rageval_lc.schema import RagSample
from rageval_lc.scoring.registry import parse_metrics
from tests.fakes import WorkerKillingJudge
from tests.floats import WORKERS_ABS

LABELS = {"all_relevant_sentence_keys": ["0a"], "unsupported_response_sentence_keys": []}


def labelled_row(i: int) -> str:
    relevant = ["0a"] if i % 3 else ["0a", "0b"]
    row = {"id": f"r{i}", "question": f"Q{i}?", "contexts": [f"A{i}. B{i}."], "response": f"A{i}."}
    return json.dumps({**row, "labels": {**LABELS, "all_relevant_sentence_keys": relevant}})


def run_cli(source: Path, out: Path, *extra: str) -> list[dict]:
    assert main(["evaluate", str(source), "--judge", "labels", "--out", str(out), "--no-progress", *extra]) == 0
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_two_workers_write_the_rows_of_one_in_input_order_and_resume(tmp_path: Path) -> None:
    lines = [labelled_row(i) for i in range(40)]
    lines[7] = '{"id": "broken", "question": '  # not JSON: an error row at its place
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    one = run_cli(source, tmp_path / "one.jsonl")
    two = run_cli(source, tmp_path / "two.jsonl", "--workers", "2")
    assert (tmp_path / "two.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()
    assert [row["line"] for row in two] == list(range(1, 41))
    assert two[7]["status"]["adherence"] == "error" and two[8]["status"]["adherence"] == "ok"
    # a run stopped after 15 rows, resumed with two workers: the same rows (the failed line 8 is scored again:
    # the rows kept come first, then the rows scored now, in input order)
    kept = tmp_path / "resumed.jsonl"
    kept.write_text("".join(line + "\n" for line in (tmp_path / "one.jsonl").read_text().splitlines()[:15]))
    resumed = run_cli(source, kept, "--workers", "2", "--resume")
    assert sorted(resumed, key=lambda row: row["line"]) == one
    assert [row["line"] for row in resumed] == [*range(1, 8), *range(9, 16), 8, *range(16, 41)]


def test_a_row_that_kills_its_worker_fails_alone() -> None:
    samples = [
        RagSample(id="kill-me" if i == 5 else f"s{i}", question="Q?", contexts=["A."], response="A.", labels=LABELS)
        for i in range(12)
    ]
    run = evaluate(samples, "trace", judge=WorkerKillingJudge(), workers=2, concurrency=1)
    assert [r.id for r in run.results] == [s.id for s in samples]
    statuses = [r.results["adherence"].status for r in run.results]
    assert statuses == ["ok"] * 5 + ["error"] + ["ok"] * 6
    assert "worker process scoring this row died" in run.results[5].results["adherence"].reason


def test_a_rate_limit_is_shared_out_between_workers() -> None:
    judge = make_resilient(LabelsJudge(), requests_per_minute=90)
    judge_bytes, *_ = pickle.loads(_payload(judge, 3, parse_metrics("trace"), 1, {}))
    sent = pickle.loads(judge_bytes)
    assert sent.limiter.per_minute == pytest.approx(30.0) and judge.limiter.per_minute == 90


def test_a_judge_that_cannot_travel_is_refused_before_any_row(tmp_path: Path) -> None:
    class Local(LabelsJudge):  # defined in a function: pickle cannot find it again
        pass

    sample = RagSample(question="Q?", contexts=["A."], response="A.", labels=LABELS)
    with pytest.raises(ValueError, match="cannot be sent to worker processes"):
        evaluate([sample], "trace", judge=Local(), workers=2)


#: The scores that are a model's probability rather than made of verdicts (they may move by WORKERS_ABS).
PROBABILITIES = frozenset({"adherence_probability"})


def test_the_offline_judge_scores_alike_with_two_workers(tmp_path: Path) -> None:
    source = Path(__file__).resolve().parents[2] / "rageval_lc" / "data" / "quickstart_ragbench.jsonl"
    outs = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.jsonl"
        args = ["evaluate", str(source), "--metrics", "trace,faithfulness", "--out", str(out), "--no-progress"]
        assert main([*args, "--workers", workers]) == 0
        outs.append([json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()])
    # What "the scores of --workers 1" means (README, "Every core"): every status and every score made of verdicts
    # (adherence, ratios, averages) is equal; a model's probability (adherence_probability) agrees within
    # tests.floats.WORKERS_ABS, as torch on one core per worker sums in another order than on two.
    assert len(outs[0]) == len(outs[1]) == 8
    for one, two in zip(*outs, strict=True):
        assert (one["line"], one["status"]) == (two["line"], two["status"])
        assert set(one["scores"]) == set(two["scores"])
        for name, value in one["scores"].items():
            if name in PROBABILITIES:
                assert two["scores"][name] == pytest.approx(value, abs=WORKERS_ABS), (one["line"], name)
            else:
                assert two["scores"][name] == value, (one["line"], name)


METRICS_FILE = """
from rageval_lc import register_metric

register_metric(
    "answer_words",
    score=lambda sample: (min(1.0, len(sample.response.split()) / 10), "words over 10"),
    uses=("response",),
)
"""


def test_a_metric_of_ones_own_loaded_from_a_file_is_scored_in_the_workers(tmp_path: Path) -> None:
    from rageval_lc.scoring.custom import temporary_metrics

    metrics = tmp_path / "my_metrics.py"
    metrics.write_text(METRICS_FILE, encoding="utf-8")
    source = tmp_path / "in.jsonl"
    source.write_text("".join(labelled_row(i) + "\n" for i in range(6)), encoding="utf-8")
    outs = []
    # the second run loads the file again in this process: its metric replaces the first run's, with a warning
    with temporary_metrics(), pytest.warns(UserWarning, match="'answer_words' was registered before"):
        for workers in ("1", "2"):
            extra = ("--load", str(metrics), "--metrics", "trace,answer_words", "--workers", workers)
            outs.append(run_cli(source, tmp_path / f"w{workers}.jsonl", *extra))
    assert outs[0] == outs[1]
    assert [row["scores"]["answer_words"] for row in outs[1]] == [0.1] * 6  # "A0." is one word: 1 / 10


def test_a_fractional_rate_limit_is_never_exceeded() -> None:
    from rageval_lc.judges.resilient import RateLimiter

    def admitted(limit: float, seconds: float) -> int:
        """Calls admitted in ``seconds`` by a limiter asked every half second (nothing sleeps)."""
        now = [0.0]
        limiter, count = RateLimiter(limit, clock=lambda: now[0]), 0
        while now[0] < seconds:
            if limiter.reserve() == 0.0:
                count += 1
            else:
                now[0] += 0.5
        return count

    # --rpm 3 shared by 2 workers: 1.5 each, at most 1 a minute each (2 in all, never 4); under 1: a longer window
    assert admitted(1.5, 60) == 1 and admitted(90, 60) == 90 and admitted(0.5, 120) == 1 and admitted(0.5, 121) == 2


def test_stopping_early_does_not_wait_for_the_chunks_in_flight() -> None:
    import time

    from rageval_lc.engine.engine import score_items
    from tests.fakes import SlowLabelsJudge

    items = [
        (i, RagSample(id=f"s{i}", question="Q?", contexts=["A."], response="A.", labels=LABELS)) for i in range(80)
    ]
    scored = score_items(items, parse_metrics("trace"), SlowLabelsJudge(0.5), workers=2)
    assert next(scored)[0] == 0
    start = time.perf_counter()
    scored.close()  # the caller lets go (Ctrl-C, a write error): ~30 s of queued chunks are dropped, not awaited
    assert time.perf_counter() - start < 15.0  # waiting would take ~30 s


def test_a_worker_that_dies_while_chunks_are_being_sent_loses_no_row() -> None:
    # the kill row's chunk comes back broken while later chunks are still being submitted: those submissions
    # meet the broken workers and must be recovered, not raised
    def slow_items():
        import time

        for i in range(24):
            if i > 7:
                time.sleep(0.2)
            sample_id = "kill-me" if i == 1 else f"s{i}"
            yield i, RagSample(id=sample_id, question="Q?", contexts=["A."], response="A.", labels=LABELS)

    from rageval_lc.engine.engine import score_items

    scored = list(score_items(slow_items(), parse_metrics("trace"), WorkerKillingJudge(), workers=2))
    assert [tag for tag, _ in scored] == list(range(24))
    assert [r.results["adherence"].status for _, r in scored] == ["ok", "error"] + ["ok"] * 22
