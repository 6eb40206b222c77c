"""The offline judge on a device: TRACe rows/s over RAGBench rows and the share of the time spent in the models.

Loads both models first (not timed), then scores ``--rows`` RAGBench rows (taken in turn from each sub-dataset of
../shared) with the offline judge in-process, timing every forward pass of the sentence model and the NLI model
with hooks (CUDA synchronised). Prints rows/s, the model share, and, with ``--precision-check``, the largest
difference of each score between the NLI model in float32 and in the device's default precision (float16 on
CUDA, bfloat16 on CPUs that have it). Run it small on a CPU; on a GPU (issue 15: target >= 300 rows/s on one
H100, the GPU busy most of the time) with ``--rows 600 --device cuda``.

    python benchmarks/offline_judge_device.py --rows 48 --device cpu --precision-check
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workers import ragbench_rows


def ragbench_samples(n: int) -> list[Any]:
    from rageval_lc.datasets.rows import sample_from_row

    return [sample_from_row(json.loads(line)) for line in ragbench_rows(n)]


class ForwardTimer:
    """Seconds spent inside the forward passes of the given models (outermost calls only): torch modules through
    hooks, the packaged models' plain-torch forward (``rageval_lc.judges.offline.bert``) through their
    ``hidden_states``."""

    def __init__(self, modules: list[Any], device: str) -> None:
        import torch

        self.seconds, self._depth, self._start = 0.0, 0, 0.0
        self._sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
        for module in modules:
            if hasattr(module, "register_forward_pre_hook"):
                module.register_forward_pre_hook(self._enter)
                module.register_forward_hook(self._leave)
            else:
                forward = getattr(module, "bert", module)  # a SentenceModel runs a BertForward
                forward.hidden_states = self._timed(forward.hidden_states)

    def _timed(self, function: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            self._enter()
            try:
                return function(*args, **kwargs)
            finally:
                self._leave()

        return timed

    def _enter(self, *_: Any) -> None:
        if self._depth == 0:
            self._sync()
            self._start = time.perf_counter()
        self._depth += 1

    def _leave(self, *_: Any) -> None:
        self._depth -= 1
        if self._depth == 0:
            self._sync()
            self.seconds += time.perf_counter() - self._start


def run(samples: list[Any], device: str, precision: str) -> tuple[float, float, list[dict[str, float | None]]]:
    """(wall seconds, model seconds, scores per row) for one in-process run on a fresh judge."""
    from rageval_lc.engine.engine import evaluate
    from rageval_lc.judges.offline.judge import OfflineJudge
    from rageval_lc.judges.offline.nli import NliModel

    judge = OfflineJudge(device=device, nli=NliModel(device=device, precision=precision))
    encoder_model = judge.encoder.encoder.model  # loaded here, not timed
    _, nli_model = judge.nli._load()
    timer = ForwardTimer([encoder_model, nli_model], str(judge.device))
    start = time.perf_counter()
    result = evaluate(samples, "trace", judge=judge, concurrency=1)
    wall = time.perf_counter() - start
    return wall, timer.seconds, [r.scores() for r in result.results]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=48)
    parser.add_argument("--device", default="auto", help="auto | cpu | cuda | mps")
    parser.add_argument("--precision-check", action="store_true", help="also run the NLI model in float32")
    args = parser.parse_args()
    from rageval_lc.judges.offline.devices import resolve_device

    device = str(resolve_device(args.device))
    samples = ragbench_samples(args.rows)
    wall, model, scores = run(samples, device, "auto")
    print(f"{len(samples)} RAGBench rows, TRACe, offline judge on {device} (NLI precision auto)")
    print(f"wall {wall:.2f} s = {len(samples) / wall:.1f} rows/s; in the models' forward passes {model:.2f} s "
          f"({model / wall:.0%} of the wall time)")  # fmt: skip
    if args.precision_check:
        wall32, model32, scores32 = run(samples, device, "float32")
        print(f"NLI in float32: wall {wall32:.2f} s = {len(samples) / wall32:.1f} rows/s, models {model32:.2f} s")
        names = sorted({name for row in scores for name in row})
        for name in names:
            diffs = [abs(a[name] - b[name]) for a, b in zip(scores, scores32, strict=True)
                     if a.get(name) is not None and b.get(name) is not None]  # fmt: skip
            print(f"  {name:<22} max |auto - float32| = {max(diffs, default=0.0):.2e} over {len(diffs)} rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
