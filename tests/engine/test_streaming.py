"""The first rows of a run come early (issue 15, item 3): the engine lets the judge prepare a small first chunk,
then chunks that double up to the full size, so a user sees rows within seconds whatever the file's size, and the
later chunks keep the batched throughput."""

from __future__ import annotations

from collections.abc import Sequence

from rageval_lc.engine.engine import evaluate, prepared, score_items
from rageval_lc.judges.base import BaseJudge
from rageval_lc.schema import RagSample, TraceLabels
from rageval_lc.scoring.registry import parse_metrics
from rageval_lc.verdicts import Judgement


class RecordingJudge(BaseJudge):
    """Records the size of every chunk it is asked to prepare; marks sentence 0a relevant."""

    name, supports = "recording", frozenset({"trace_labels"})

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def prepare(self, samples: Sequence[RagSample]) -> None:
        self.sizes.append(len(samples))

    def trace_labels(self, sample: RagSample) -> Judgement:
        return Judgement(name="trace_labels", value=TraceLabels(all_relevant_sentence_keys=["0a"]))


def samples(n: int) -> list[RagSample]:
    return [RagSample(id=str(i), question="Q?", contexts=["A. B."], response="A.") for i in range(n)]


def test_chunks_start_at_1_and_double_up_to_256() -> None:
    judge = RecordingJudge()
    batch = samples(1000)
    assert list(prepared(batch, judge, lambda s: s)) == batch
    # 1+2+4+8+16+32+64+128 = 255, then 256 (511), 256 (767), then the 233 left (1000)
    assert judge.sizes == [1, 2, 4, 8, 16, 32, 64, 128, 256, 256, 233]


def test_a_small_file() -> None:
    judge = RecordingJudge()
    list(prepared(samples(5), judge, lambda s: s))
    assert judge.sizes == [1, 2, 2]


def test_the_full_chunk_size_caps_the_growth() -> None:
    judge = RecordingJudge()
    list(prepared(samples(10), judge, lambda s: s, chunk=3))
    assert judge.sizes == [1, 2, 3, 3, 1]
    judge = RecordingJudge()
    list(prepared(samples(10), judge, lambda s: s, chunk=4, first=8))
    assert judge.sizes == [4, 4, 2]


def test_the_first_row_is_scored_after_only_the_first_chunk_is_prepared() -> None:
    judge = RecordingJudge()
    rows = score_items(enumerate(samples(200)), parse_metrics("trace"), judge)
    tag, result = next(rows)
    assert (tag, result.id, judge.sizes) == (0, "0", [1])
    rest = list(rows)
    assert len(rest) == 199
    assert judge.sizes == [1, 2, 4, 8, 16, 32, 64, 73]  # 1+2+...+64 = 127, then the 73 left


def test_evaluate_prepares_in_growing_chunks_and_keeps_every_row() -> None:
    judge = RecordingJudge()
    run = evaluate(samples(30), "trace", judge=judge, concurrency=2)
    assert [r.id for r in run.results] == [str(i) for i in range(30)]
    assert judge.sizes == [1, 2, 4, 8, 15]
