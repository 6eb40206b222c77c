"""``rageval quickstart``: score the bundled RAGBench rows offline and print a readable table.

It runs the engine behind ``rageval evaluate`` twice over ``rageval_lc/data/quickstart_ragbench.jsonl``:
with the offline judge (the packaged MiniLM model; no API key, no network) and with the ``labels``
judge, which must reproduce the scores RAGBench released for these rows.
"""

from __future__ import annotations

import io
import json
import math
import sys
from importlib.resources import files
from typing import TextIO

from rageval_lc.datasets.ragbench import ragbench_record
from rageval_lc.engine.jsonl import evaluate_lines
from rageval_lc.metrics.trace import TRACE_METRICS
from rageval_lc.reports.summary import format_summary, format_table

__all__ = ["QUICKSTART_FILE", "run_quickstart"]

QUICKSTART_FILE = "quickstart_ragbench.jsonl"


def _score(lines: list[str], judge: object) -> tuple[list[dict], object]:
    buffer = io.StringIO()
    report = evaluate_lines(lines, buffer, metrics="trace", judge=judge, trace_mode="ragbench")
    return [json.loads(line) for line in buffer.getvalue().splitlines()], report


def run_quickstart(stream: TextIO) -> int:
    """Score the bundled rows, print the tables to ``stream``; return 0 when the labels judge reproduces them."""
    from rageval_lc.judges import LabelsJudge
    from rageval_lc.judges.offline.judge import OfflineJudge

    lines = files("rageval_lc.data").joinpath(QUICKSTART_FILE).read_text(encoding="utf-8").splitlines()
    released = {}
    for line in lines:
        record = ragbench_record(json.loads(line))
        released[record.sample.id] = record.released_scores
    offline_rows, offline_report = _score(lines, OfflineJudge())
    label_rows, label_report = _score(lines, LabelsJudge())
    failed = [r for r in offline_rows if "error" in r["status"].values()]
    if failed:  # the offline judge could not score a bundled row: say why, not a table of holes
        for row in failed:
            reason = next(row["reason"][name] for name, status in row["status"].items() if status == "error")
            print(f"rageval quickstart: the offline judge failed on {row['id']}: {reason}", file=sys.stderr)
        return 1

    table = []
    for row in offline_rows:
        truth = released[row["id"]]
        scores = row["scores"]
        dataset, ragbench_id, _ = row["id"].split(":", 2)
        table.append(
            [
                f"{dataset.removesuffix('_validation')}:{ragbench_id[:14]}",
                scores["context_relevance"],
                truth["context_relevance"],
                scores["context_utilization"],
                truth["context_utilization"],
                scores["completeness"],
                truth["completeness"],
                scores["adherence_probability"],
                truth["adherence"] == 1.0,
            ]
        )
    print(
        "TRACe scores of 8 RAGBench samples from the offline judge (all-MiniLM-L6-v2, no API key, no network),",
        file=stream,
    )
    print("each beside the score from RAGBench's released GPT-4o labels:\n", file=stream)
    print(
        format_table(
            [
                "sample",
                "relevance",
                "(labels)",
                "utilization",
                "(labels)",
                "completeness",
                "(labels)",
                "P(adherent)",
                "(labels)",
            ],
            table,
        ),
        file=stream,
    )
    rmse = {
        m: math.sqrt(sum((r["scores"][m] - released[r["id"]][m]) ** 2 for r in offline_rows) / len(offline_rows))
        for m in ("context_relevance", "context_utilization", "completeness")
    }
    print(
        "\nOffline judge vs labels on these rows, RMSE: " + ", ".join(f"{m} {v:.3f}" for m, v in rmse.items()),
        file=stream,
    )
    print("\nSummary of the offline judge (mean over ok rows):\n", file=stream)
    print(format_summary(offline_report.summaries), file=stream)

    matches = sum(all(abs(r["scores"][m] - released[r["id"]][m]) < 1e-12 for m in TRACE_METRICS) for r in label_rows)
    print(f"\nReleased RAGBench scores reproduced on {matches} of {len(label_rows)} rows (labels judge).", file=stream)
    print(
        "Next: rageval evaluate YOUR_ROWS.jsonl --out scores.jsonl   (offline judge; "
        "--judge dspy:openai/gpt-4o-mini for an LLM)",
        file=stream,
    )
    ok = matches == len(label_rows) and not label_report.failed and not offline_report.failed
    return 0 if ok else 1
