"""The Ray engine on a local cluster (``ray.init(num_cpus=2)``): the same rows as in-process, in order, every
row once even when an actor is killed mid-job, one rate limit for every actor, and Datasets in and out.

Every Ray job runs under :func:`within`: a starved actor pool fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

import rageval_lc
from rageval_lc.cli import main
from rageval_lc.datasets.rows import sample_from_row
from rageval_lc.engine.engine import Unreadable, score_items
from rageval_lc.engine.ray_engine import evaluate_dataset, on_actor_device, score_on_ray
from rageval_lc.judges.labels import LabelsJudge
from rageval_lc.judges.resilient import RateLimiter, ResilientJudge
from rageval_lc.schema import RagSample
from rageval_lc.scoring.registry import parse_metrics

ray = pytest.importorskip("ray")

R = TypeVar("R")

#: The most seconds one Ray job of these tests may take on a 2-core machine (they take a few).
LIMIT_S = 90


def within(seconds: float, job: Callable[[], R]) -> R:
    """``job()``, run on a thread; the test fails, rather than hangs, when it takes more than ``seconds``."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = job()
        except BaseException as exc:  # handed to the test
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"the Ray job did not finish within {seconds} s (a starved actor pool hangs)")
    if "error" in box:
        raise box["error"]
    return box["value"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """One local Ray for the module: 2 CPUs, no dashboard; shut down at the end."""
    if ray.is_initialized():  # pragma: no cover - another module's Ray
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=150 * 1024**2, log_to_driver=False)
    yield
    ray.shutdown()


def row(i: int) -> dict[str, Any]:
    """An input row with TRACe labels whose scores depend on ``i`` (so that rows out of place would show)."""
    relevant = ["0a", "0b"][: 1 + i % 2]
    return {
        "id": f"s{i}",
        "question": "Where is Paris?",
        "contexts": ["Paris is in France. It is large.", "Lyon is in France."],
        "response": "Paris is in France. It is old.",
        "labels": {
            "all_relevant_sentence_keys": relevant,
            "all_utilized_sentence_keys": relevant[:1],
            "unsupported_response_sentence_keys": ["b"] if i % 3 else [],
        },
    }


def sample(i: int) -> RagSample:
    return sample_from_row(row(i))


def in_process(items: list[tuple[Any, Any]], metrics: str = "trace") -> list[tuple[Any, dict]]:
    """The in-process engine's ``(tag, row)`` pairs, in input order: what the Ray engine must return."""
    done = dict(score_items(items, parse_metrics(metrics), ResilientJudge(LabelsJudge())))
    return [(tag, done[tag].to_row()) for tag, _ in items]


# --- the CLI: exactly the in-process rows --------------------------------------------------------------


@pytest.fixture(scope="module")
def ragbench_input(ragbench_files: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """162 lines: 40 RAGBench rows of each of 4 files, a line that is not JSON (line 100) and a row
    without contexts (line 150)."""
    lines: list[str] = []
    for path in ragbench_files[:4]:
        with path.open(encoding="utf-8") as handle:
            lines += [next(handle).rstrip("\n") for _ in range(40)]
    lines.insert(99, '{"id": "torn", "question": ')
    lines.insert(149, json.dumps({"id": "no-contexts", "question": "Q?", "response": "A."}))
    path = tmp_path_factory.mktemp("ray-cli") / "in.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def in_process_output(ragbench_input: Path) -> Path:
    out = ragbench_input.with_name("in-process.jsonl")
    assert main(["evaluate", str(ragbench_input), "--judge", "labels", "--workers", "1", "--out", str(out)]) == 0
    return out


def ray_run(source: Path, out: Path, *extra: str) -> int:
    argv = ["evaluate", str(source), "--judge", "labels", "--engine", "ray", "--workers", "2", "--out", str(out)]
    return within(LIMIT_S, lambda: main([*argv, *extra]))


def test_cli_ray_engine_returns_exactly_the_in_process_rows(
    cluster: None, ragbench_input: Path, in_process_output: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "ray.jsonl"
    assert ray_run(ragbench_input, out) == 0
    assert "162 rows scored, 2 failed" in capsys.readouterr().err
    expected = in_process_output.read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == expected  # every row, score, reason and detail, in input order
    rows = [json.loads(line) for line in expected.splitlines()]
    assert len(rows) == 162
    assert sum(row["status"]["adherence"] == "ok" for row in rows) >= 150
    failed = {row["line"]: row["reason"]["context_relevance"] for row in rows if row["status"]["adherence"] == "error"}
    assert sorted(failed) == [100, 150]
    assert "line 100 is not valid JSON" in failed[100]
    assert "contexts" in failed[150]


def test_cli_ray_engine_resumes_a_torn_output(
    cluster: None, ragbench_input: Path, in_process_output: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    expected = in_process_output.read_text(encoding="utf-8")
    out = tmp_path / "resumed.jsonl"
    kept = expected.splitlines(keepends=True)[:70]
    out.write_text("".join(kept) + '{"id": "cut sh', encoding="utf-8")  # a run killed mid-line
    assert ray_run(ragbench_input, out, "--resume") == 0
    assert "162 rows in resumed.jsonl: 92 scored now, 70 kept; 2 failed" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == expected


def test_cli_joins_a_running_cluster_by_address_and_leaves_it_running(cluster: None, tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(row(i)) + "\n" for i in range(5)), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    address = ray.get_runtime_context().gcs_address  # this module's cluster, joined from another process
    argv = [
        "evaluate",
        str(source),
        "--judge",
        "labels",
        "--engine",
        "ray",
        "--ray-address",
        address,
        "--out",
        str(out),
    ]
    done = within(LIMIT_S, lambda: subprocess.run([sys.executable, "-m", "rageval_lc", *argv], capture_output=True))
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    expected = in_process([(i + 1, sample(i)) for i in range(5)])
    assert [(r["line"], {k: r[k] for k in ("id", "scores", "status", "reason", "details")}) for r in rows] == expected
    assert ray.get(ray.remote(lambda: "alive").remote()) == "alive"  # the joined cluster was only left


def test_cli_an_unreachable_address_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(row(0)) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    argv = ["evaluate", str(source), "--engine", "ray", "--ray-address", "127.0.0.1:1", "--out", str(out)]
    assert within(30, lambda: main(argv)) == 2
    err = capsys.readouterr().err
    assert err.startswith("rageval: error: Cannot reach a Ray cluster at 127.0.0.1:1 (ConnectionRefusedError")
    assert err.count("\n") == 1
    assert not out.exists()


def test_cli_says_how_to_install_ray_when_it_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(row(0)) + "\n", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    out = tmp_path / "out.jsonl"
    assert main(["evaluate", str(source), "--judge", "labels", "--engine", "ray", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "rageval: error: The ray engine (--engine ray) needs Ray Data: pip install 'rageval_lc[ray]'" in err
    assert not out.exists()


# --- an actor killed mid-job -----------------------------------------------------------------------------


class DyingOnceJudge(LabelsJudge):
    """The labels judge, whose actor is killed while it scores ``victim`` — once (``marker`` records the
    killed process): by ``SIGKILL`` (a crash, the OOM killer) or by ``ray.kill`` of the actor."""

    def __init__(self, victim: str, marker: Path, how: str) -> None:
        super().__init__()
        self.victim, self.marker, self.how = victim, marker, how

    def trace_labels(self, sample: RagSample) -> Any:
        if sample.id == self.victim and not self.marker.exists():
            self.marker.write_text(str(os.getpid()), encoding="utf-8")
            if self.how == "sigkill":
                os.kill(os.getpid(), signal.SIGKILL)
            ray.kill(ray.get_runtime_context().current_actor, no_restart=False)
            time.sleep(30)  # pragma: no cover - killed before
        return super().trace_labels(sample)


@pytest.mark.parametrize("how", ["sigkill", "ray.kill"])
def test_an_actor_killed_mid_job_is_replaced_and_every_row_comes_back_once(
    cluster: None, tmp_path: Path, how: str
) -> None:
    items = [(f"tag{i}", sample(i)) for i in range(40)]
    marker = tmp_path / "killed.pid"
    judge = ResilientJudge(DyingOnceJudge("s20", marker, how))  # s20: in the chunk of rows 15-30
    scored = within(LIMIT_S, lambda: list(score_on_ray(items, parse_metrics("trace"), judge, workers=2, options={})))
    assert marker.exists()  # an actor did die mid-job ...
    assert [(tag, result.to_row()) for tag, result in scored] == in_process(items)  # ... and nothing was lost
    assert all(result.results["adherence"].status == "ok" for _, result in scored)


def test_a_row_that_kills_its_actor_every_time_fails_its_chunk_instead_of_hanging(cluster: None) -> None:
    from tests.fakes import WorkerKillingJudge

    items = [(f"tag{i}", sample(i)) for i in range(8)]  # chunks of rows 0 | 1-2 | 3-6 | 7
    items[5] = ("tag5", sample(5).model_copy(update={"id": "kill-me"}))  # its actor dies each time it is tried
    judge = ResilientJudge(WorkerKillingJudge())
    scored = within(LIMIT_S, lambda: list(score_on_ray(items, parse_metrics("trace"), judge, workers=2, options={})))
    assert [tag for tag, _ in scored] == [tag for tag, _ in items]  # every row once, in order
    # the chunk of rows 3-6 was tried 4 times (the first try and 3 retries): its rows fail, saying why
    # (--resume scores them again); the other chunks were scored
    expected = [(i, "ok") for i in (0, 1, 2, 7)] + [(i, "error") for i in (3, 4, 5, 6)]
    assert sorted((i, r.results["adherence"].status) for i, (_, r) in enumerate(scored)) == sorted(expected)
    for i in (3, 4, 5, 6):
        assert scored[i][1].results["adherence"].reason == (
            "RuntimeError: a Ray actor died 4 times scoring these rows (one of them may crash the process); "
            "--resume scores them again"
        )
    assert [(tag, r.to_row()) for tag, r in scored if tag in ("tag0", "tag7")] == in_process([items[0], items[7]])


def test_the_engine_raises_no_deprecation_warning(cluster: None) -> None:
    # Ray Data deprecates ``**ray_remote_args`` (Ray 2.60: "will be removed in Ray 2.64"); none comes from here
    items = [(f"tag{i}", sample(i)) for i in range(3)]
    ds = ray.data.from_items([row(i) for i in range(3)], override_num_blocks=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        within(LIMIT_S, lambda: list(score_on_ray(items, parse_metrics("trace"), LabelsJudge(), workers=1)))
        within(LIMIT_S, lambda: evaluate_dataset(ds, "trace", judge="labels", workers=1).take_all())
    package = str(Path(rageval_lc.__file__).parent)
    ours = [f"{w.filename}:{w.lineno}: {w.message}" for w in caught if w.filename.startswith(package)]
    assert ours == []


class LoadCountingJudge(LabelsJudge):
    """The labels judge, recording each time it is unpickled (once per actor, never per chunk)."""

    def __init__(self, loads: Path) -> None:
        super().__init__()
        self.loads = loads

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        with self.loads.open("a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")


def test_windows_keep_input_order_and_each_actor_loads_the_judge_once(cluster: None, tmp_path: Path) -> None:
    unpicklable = ValueError("line 7 is not valid JSON")
    unpicklable.lock = threading.Lock()  # type: ignore[attr-defined]  # stays on the driver, never pickled
    items: list[tuple[Any, Any]] = [(f"t{i}", sample(i)) for i in range(40)]
    items[7] = ("t7", Unreadable(unpicklable, id="u7"))
    loads = tmp_path / "loads.txt"
    judge = ResilientJudge(LoadCountingJudge(loads))
    # chunks 1, 2, 4, 8, 16 (31 rows: the first window, >= 16 rows), then 9 (one chunk): two Ray Data jobs
    scored = within(
        LIMIT_S,
        lambda: list(score_on_ray(items, parse_metrics("trace"), judge, workers=2, options={}, window_rows=16)),
    )
    assert [(tag, result.to_row()) for tag, result in scored] == in_process(items)
    assert scored[7][1].results["adherence"].reason == "ValueError: line 7 is not valid JSON"
    assert len(loads.read_text(encoding="utf-8").split()) == 3  # 2 actors for 5 chunks, then 1 for the last


def test_the_offline_judge_follows_the_actors_device() -> None:
    from rageval_lc.judges.offline.judge import OfflineJudge
    from rageval_lc.judges.resilient import judge_identity

    judge = ResilientJudge(OfflineJudge(device="cpu"))
    inner = judge.judge
    for part in (inner, inner.nli, inner.encoder.encoder):
        part.device = "cuda"  # as resolved on a driver with a GPU
    on_actor_device(judge, gpu_ids=[])  # an actor without one
    assert (inner.device, inner.nli.device, inner.encoder.encoder.device) == ("cpu", "cpu", "cpu")
    on_actor_device(judge, gpu_ids=[0])
    assert (inner.device, inner.nli.device, inner.encoder.encoder.device) == ("cuda", "cuda", "cuda")
    assert inner.nli.runtime == "torch"  # a model moved to a GPU runs there, not in onnxruntime on the CPU
    # the cache key follows the device: judgements made on the CPU are not served to the GPU actor, nor back
    on_gpu = judge._identity
    assert on_gpu == judge_identity(inner)
    on_actor_device(judge, gpu_ids=[])
    assert judge._identity == judge_identity(inner) != on_gpu and inner.nli.runtime == "onnx"
    labels = ResilientJudge(LabelsJudge())
    on_actor_device(labels, gpu_ids=[0])  # other judges are left alone
    assert not hasattr(labels.judge, "device")


# --- one rate limit for every actor ---------------------------------------------------------------------


class StampingJudge(LabelsJudge):
    """The labels judge, appending the time of each call to ``stamps`` (from any process)."""

    def __init__(self, stamps: Path) -> None:
        super().__init__()
        self.stamps = stamps

    def trace_labels(self, sample: RagSample) -> Any:
        with self.stamps.open("a", encoding="utf-8") as handle:
            handle.write(f"{time.time()!r}\n")
        return super().trace_labels(sample)


def test_actors_share_one_rate_limit(cluster: None, tmp_path: Path) -> None:
    stamps = tmp_path / "stamps.txt"
    judge = ResilientJudge(StampingJudge(stamps))
    judge.limiter = RateLimiter(2, window_s=1.0)  # 2 calls a second (a minute, shrunk)
    items = [(i, sample(i)) for i in range(8)]
    started = time.time()
    scored = within(LIMIT_S, lambda: list(score_on_ray(items, parse_metrics("trace"), judge, workers=2, options={})))
    assert [tag for tag, _ in scored] == list(range(8))
    times = sorted(float(line) for line in stamps.read_text(encoding="utf-8").split())
    assert len(times) == 8  # one trace_labels call per sample
    # In any 1-second window at most 2 calls: the 3rd call after any call comes >= 1 s later (less the time
    # a granted call takes to start in its actor: 0.15 s of slack). Two limiters of 2/s would allow 4.
    gaps = [later - earlier for earlier, later in zip(times, times[2:], strict=False)]
    assert min(gaps) >= 0.85, gaps
    assert times[-1] - started >= 3.0 - 0.15  # 8 calls at 2 a second: the last in the 4th second


def test_windowed_rate_limiter_counts_a_full_window() -> None:
    now = [100.0]
    limit = RateLimiter(3, window_s=60.0, clock=lambda: now[0])
    assert [limit.reserve() for _ in range(4)] == [0.0, 0.0, 0.0, 60.0]
    now[0] = 130.0
    assert limit.reserve() == 30.0  # the first call leaves the window at 160
    now[0] = 160.0
    assert limit.reserve() == 0.0


# --- Datasets in and out ---------------------------------------------------------------------------------


def test_evaluate_dataset_scores_rows_into_result_rows(cluster: None) -> None:
    rows = [row(i) for i in range(6)]
    rows.insert(3, {"id": "bad", "question": "Q?", "response": "A."})  # no contexts: an error row
    rows[5] = {**rows[5], "reference": "Paris is in France."}  # a field the other rows lack (Arrow: null)
    ds = ray.data.from_items(rows, override_num_blocks=3)
    out = within(LIMIT_S, lambda: evaluate_dataset(ds, "trace", judge="labels", workers=2).take_all())
    by_id = {row["id"]: row for row in out}
    assert sorted(by_id) == sorted(given["id"] for given in rows)
    for given in rows:
        got = by_id[given["id"]]
        if given["id"] == "bad":
            assert set(got["status"].values()) == {"error"}
            assert "contexts" in got["reason"]["adherence"]
            assert json.loads(got["details"])["error"]["type"] == "ValueError"
            continue
        [(_, expected)] = in_process([(0, sample_from_row(given))])
        assert {**got, "details": json.loads(got["details"])} == expected


def test_evaluate_dataset_fails_the_rows_of_a_batch_that_kills_its_actor_every_time(cluster: None) -> None:
    from tests.fakes import WorkerKillingJudge

    rows = [row(i) for i in range(4)]
    rows[2] = {**rows[2], "id": "kill-me"}
    ds = ray.data.from_items(rows, override_num_blocks=1)  # one block: one batch
    judge = ResilientJudge(WorkerKillingJudge())
    out = within(LIMIT_S, lambda: evaluate_dataset(ds, "trace", judge=judge, workers=1).take_all())
    assert sorted(r["id"] for r in out) == ["kill-me", "s0", "s1", "s3"]
    for got in out:
        assert got["status"]["adherence"] == "error"
        assert got["reason"]["adherence"] == (
            "RuntimeError: a Ray actor died 4 times scoring these rows (one of them may crash the process); "
            "--resume scores them again"
        )


def test_the_readme_example_runs_on_the_cluster(cluster: None, capsys: pytest.CaptureFixture) -> None:
    from tests.floats import assert_printed_lines
    from tests.test_docs import documented_output, python_blocks

    [code] = [p.values[0] for p in python_blocks() if "evaluate_dataset" in p.values[0]]
    assert code.startswith("# needs: Ray")  # left to this test by test_docs (no Ray there): run on the cluster
    within(LIMIT_S, lambda: exec(compile(code, "guide", "exec"), {"__name__": "__guide__"}))
    assert_printed_lines(documented_output(code), capsys.readouterr().out.splitlines())


def test_actor_resources_leave_room_and_warn_of_what_the_cluster_lacks(
    cluster: None, caplog: pytest.LogCaptureFixture
) -> None:
    from rageval_lc.engine.ray_engine import _actor_resources

    with caplog.at_level("WARNING", logger="rageval_lc.engine.ray_engine"):
        assert _actor_resources(ray, 2, 0.0, None)["num_cpus"] == pytest.approx(2 / 3)  # 2 CPUs over 2 + 1
    assert caplog.records == []
    with caplog.at_level("WARNING", logger="rageval_lc.engine.ray_engine"):
        remote = _actor_resources(ray, 2, 0.5, None)
    assert remote["num_gpus"] == 0.5
    [record] = caplog.records
    assert "2 Ray actors of 0.5 GPU each need 1 GPUs; the cluster has 0 now" in record.getMessage()


# --- checks before any Ray -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"workers": 0}, "workers must be an int >= 1. Got 0."),
        ({"workers": 2, "gpus_per_worker": -1.0}, "gpus_per_worker must be >= 0. Got -1.0."),
        ({"workers": 2, "window_rows": 0}, "window_rows must be an int >= 1. Got 0."),
    ],
)
def test_bad_arguments_are_refused_before_any_row_is_read(kwargs: dict[str, Any], message: str) -> None:
    items = iter([(0, Unreadable(ValueError("never read")))])
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        next(score_on_ray(items, parse_metrics("trace"), LabelsJudge(), **kwargs))
    assert next(items, None) is not None  # nothing was read


def test_import_rageval_lc_does_not_load_ray() -> None:
    code = "import sys, rageval_lc; rageval_lc.evaluate_dataset; print('ray' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_a_metric_of_ones_own_loaded_from_a_file_is_scored_on_the_actors(cluster: None, tmp_path: Path) -> None:
    from rageval_lc.scoring.custom import temporary_metrics
    from tests.engine.test_workers import METRICS_FILE, labelled_row

    metrics = tmp_path / "my_metrics.py"
    metrics.write_text(METRICS_FILE, encoding="utf-8")
    source = tmp_path / "in.jsonl"
    source.write_text("".join(labelled_row(i) + "\n" for i in range(6)), encoding="utf-8")
    extra = ("--load", str(metrics), "--metrics", "trace,answer_words")
    with temporary_metrics():
        assert main(["evaluate", str(source), "--judge", "labels", "--out", str(tmp_path / "one.jsonl"), *extra]) == 0
        with pytest.warns(UserWarning, match="'answer_words' was registered before"):  # the file loaded again
            assert ray_run(source, tmp_path / "ray.jsonl", *extra) == 0
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()
    assert json.loads((tmp_path / "ray.jsonl").read_text().splitlines()[0])["scores"]["answer_words"] == 0.1
