"""``rageval quickstart``: score the bundled RAGBench rows offline and print a readable table.

It runs the same engine as ``rageval evaluate`` over ``rageval_lc/data/quickstart_ragbench.jsonl`` and
checks each row's TRACe scores against the scores RAGBench released for it.
"""

from __future__ import annotations

import io
import json
from importlib.resources import files
from typing import TextIO

from rageval_lc.datasets.ragbench import ragbench_record
from rageval_lc.metrics.trace import TRACE_METRICS
from rageval_lc.report import format_summary, format_table
from rageval_lc.runner import evaluate_lines

__all__ = ["QUICKSTART_FILE", "run_quickstart"]

QUICKSTART_FILE = "quickstart_ragbench.jsonl"


def run_quickstart(stream: TextIO) -> int:
    """Score the bundled rows, print the tables to ``stream``; return 0 when every row matches its labels."""
    lines = files("rageval_lc.data").joinpath(QUICKSTART_FILE).read_text(encoding="utf-8").splitlines()
    released = {}
    for line in lines:
        record = ragbench_record(json.loads(line))
        released[record.sample.id] = record.released_scores
    buffer = io.StringIO()
    report = evaluate_lines(lines, buffer, metrics="trace", trace_mode="ragbench")
    rows = [json.loads(line) for line in buffer.getvalue().splitlines()]

    table = []
    matches = 0
    for row in rows:
        scores, trace = row["scores"], row["details"]["trace"]
        same = all(abs(scores[m] - released[row["id"]][m]) < 1e-12 for m in TRACE_METRICS)
        matches += same
        dataset, ragbench_id, _ = row["id"].split(":", 2)
        table.append(
            [
                f"{dataset.removesuffix('_validation')}:{ragbench_id[:14]}",
                scores["context_relevance"],
                scores["context_utilization"],
                scores["completeness"],
                scores["adherence"],
                scores["average"],
                trace["unsupported_sentences"] + trace["partially_supported_sentences"],
                same,
            ]
        )
    print("TRACe scores of 8 RAGBench samples (judge: the released GPT-4o labels; no model, no network)\n", file=stream)
    print(
        format_table(
            ["sample", "relevance", "utilization", "completeness", "adherence", "average", "unsupported", "= released"],
            table,
        ),
        file=stream,
    )
    print("\nSummary (mean over ok rows):\n", file=stream)
    print(format_summary(report.summaries), file=stream)
    print(f"\nReleased RAGBench scores reproduced on {matches} of {len(rows)} rows.", file=stream)
    print("Next: rageval evaluate YOUR_ROWS.jsonl --metrics trace --judge labels --out scores.jsonl", file=stream)
    return 0 if matches == len(rows) and not report.failed else 1
