"""Wall time against ragas: 200 samples (4 contexts each), faithfulness + context precision + context recall,
a fake LLM answering after 100 ms, 16 at a time — ours in this process, ragas in its own virtualenv, in one run.

    python benchmarks/peers/wall_time.py [--peer-python ../peers/bin/python] [--samples 200]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

from count_calls import ANSWER, CONTEXTS, QUESTION, REFERENCE  # noqa: E402
from ours_calls import ANSWERS  # noqa: E402

from rageval_lc.engine.engine import evaluate  # noqa: E402
from rageval_lc.judges.llm.dspy_judge import DspyJudge  # noqa: E402
from rageval_lc.reports.summary import format_table  # noqa: E402
from rageval_lc.schema import RagSample  # noqa: E402
from tests.fakes import JudgementChatModel  # noqa: E402

METRICS = ["faithfulness", "context_precision", "context_recall"]


def ours(n: int) -> tuple[float, int]:
    class Slow(JudgementChatModel):
        def _generate(self, *args: Any, **kwargs: Any) -> Any:
            time.sleep(0.1)
            return super()._generate(*args, **kwargs)

    model = Slow(answers=ANSWERS)
    samples = [
        RagSample(question=f"{QUESTION} ({i})", contexts=CONTEXTS, response=ANSWER, reference=REFERENCE)
        for i in range(n)
    ]
    start = time.perf_counter()
    evaluate(samples, METRICS, judge=DspyJudge(model, max_retries=0), concurrency=16, retries=0)
    return time.perf_counter() - start, sum(model.calls.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer-python", default=str(HERE.parents[2] / "peers" / "bin" / "python"))
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    wall, calls = ours(args.samples)
    done = subprocess.run(
        [args.peer_python, str(HERE / "ragas_wall.py"), str(args.samples)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    peer = json.loads(done.stdout.strip().splitlines()[-1])
    ragas_wall, ragas_calls = peer["seconds"], peer["calls"]
    rows = [
        ["rageval_lc (shared mode)", calls, round(wall, 2), round(calls * 0.1 / 16, 2), round(wall / ragas_wall, 2)],
        ["ragas 0.4.3", ragas_calls, round(ragas_wall, 2), round(ragas_calls * 0.1 / 16, 2), 1.0],
    ]
    print(f"{args.samples} samples × {', '.join(METRICS)}; fake LLM 100 ms; 16 at a time\n")
    print(format_table(["library", "LLM calls", "wall (s)", "ideal (s)", "wall × ragas"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
