"""``rageval quickstart``: score the bundled RAGBench samples offline and print a table."""

from __future__ import annotations

import argparse
import sys

HELP = "score the bundled RAGBench samples offline and print a table"
DESCRIPTION = "Score a few bundled RAGBench rows (CC BY 4.0) with TRACe and print the results."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """None: the command takes no arguments."""


def handle(args: argparse.Namespace) -> int:
    """Score the bundled rows and print the table."""
    from rageval_lc.engine.quickstart import run_quickstart

    return run_quickstart(sys.stdout)
