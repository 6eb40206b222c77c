"""A real LLM on the testbed the RGB guide builds from the shipped corpus, beside the guide's stand-in, in one run
(issue 36, item 4): accuracy against noise ratio, rejection, integration, error detection and correction.

Run:  python benchmarks/rgb_own_corpus_chain.py [--html gemma_report.html] [--out figures.json]

The guide's Python block (``docs/guide/rgb-own-corpus.md``) is run as it stands: it builds the testbed from
``examples/data/rgb_wiki`` and runs its chain with the word-overlap stand-in chat model, without filling. The same
records then go through the same prompt with Gemma 3 270M served by llama.cpp on 127.0.0.1 (the ``tiny-llm`` extra)
in the stand-in's place. Official scoring; each figure of Gemma's is printed beside the stand-in's.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path

from langchain_core.output_parsers import StrOutputParser

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from rgb_counterfactual_chain import ServerChat  # noqa: E402
from tiny_llm import gemma_server  # noqa: E402

from rageval_lc.reports.summary import format_table  # noqa: E402
from rageval_lc.rgb.run import run_rgb  # noqa: E402
from rageval_lc.rgb.scoring import result_rows  # noqa: E402


def guide_run() -> dict:
    """The guide's Python block, run in a scratch folder that sees ``examples/``: its names (``run``, ``records``,
    ``prompt``, ...)."""
    page = (ROOT / "docs" / "guide" / "rgb-own-corpus.md").read_text(encoding="utf-8")
    code = re.search(r"^```python\n(.*?)^```", page, re.S | re.M).group(1)
    here = Path.cwd()
    scratch = Path(tempfile.mkdtemp())
    (scratch / "examples").symlink_to(ROOT / "examples")
    names: dict = {"__name__": "__guide__", "print": lambda *a, **k: None}
    try:
        os.chdir(scratch)
        exec(compile(code, "rgb-own-corpus.md", "exec"), names)
    finally:
        os.chdir(here)
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, help="write Gemma's run report here")
    parser.add_argument("--out", type=Path, help="write both runs' figures here (JSON)")
    args = parser.parse_args()
    guide = guide_run()
    baseline, records = guide["run"], guide["records"]
    with gemma_server(Path(tempfile.mkdtemp())) as base:
        chain = guide["prompt"] | ServerChat(base=base) | StrOutputParser()
        gemma = run_rgb(chain, records, fill=False, model_name="gemma-3-270m", progress=True)
    print(f"{len(records)} records; official scoring; documents without filling\n")

    table = [
        [*ours[:3], theirs[2], *theirs[4:]]  # the task, its rows, both figures, Gemma's detection and correction
        for ours, theirs in zip(result_rows(baseline.results), result_rows(gemma.results), strict=True)
    ]
    headers = ["task", "rows", "stand-in %", "Gemma %", "Gemma detection %", "Gemma correction %"]
    print(format_table(headers, table))
    print(f"\nGemma: {gemma.failures} failed calls")
    if args.html:
        args.html.write_text(gemma.to_html(title="Gemma 3 270M on examples/data/rgb_wiki"), encoding="utf-8")
    if args.out:
        figures = {"stand-in": [r.to_dict() for r in baseline.results], "gemma": [r.to_dict() for r in gemma.results]}
        args.out.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
