"""The ``rageval`` command, one module a command, e.g. ``rageval evaluate rows.jsonl --out results.jsonl``.

Judges: ``labels`` (labels already in the rows), ``offline`` (the offline judge, the default unless $RAGEVAL_JUDGE
names another; ``local`` is its old name) and ``dspy:<model id>`` (any LiteLLM model, e.g.
``dspy:openai/gpt-4o-mini``, or a local OpenAI-compatible server with ``--api-base``).

Exit status: 0 when the command did its work, 1 where a command says so (``evaluate --strict``, ``agreement``,
``gate``, ``align``), 2 for a usage error or a file that cannot be read or written (one line on stderr, never a
traceback), 141 (quietly) when the reader of standard output stops early (``rageval evaluate rows.jsonl | head -1``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib.metadata import version
from types import ModuleType

from rageval_lc.cli import agreement, align, compare, evaluate, gate, label_sample, quickstart, report, rgb
from rageval_lc.cli.common import error

COMMANDS = (evaluate, agreement, rgb, report, label_sample, gate, compare, align, quickstart)
"""The command modules, in the order ``rageval --help`` lists them, each named for its command: ``HELP`` (its line in
``rageval --help``), ``DESCRIPTION`` (what ``rageval COMMAND --help`` says first, its line breaks folded; None for
nothing), ``add_arguments(parser)`` adds its arguments to its parser, ``handle(args)`` runs it."""


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``rageval``."""
    parser = argparse.ArgumentParser(prog="rageval", description="Score retrieval-augmented generation.")
    parser.add_argument("--version", action="version", version=f"rageval_lc {version('rageval_lc')}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        description = command.DESCRIPTION and " ".join(command.DESCRIPTION.split())  # one line, as argparse shows it
        command.add_arguments(commands.add_parser(name(command), help=command.HELP, description=description))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rageval`` command; return its exit status."""
    args = build_parser().parse_args(argv)
    handlers = {name(command): command.handle for command in COMMANDS}
    try:
        return handlers[args.command](args)
    except BrokenPipeError:  # the reader of our output stopped early (`| head -1`): end quietly
        return _reader_gone()
    except OSError as exc:  # a file-system error not handled closer: one line, never a traceback
        return error(str(exc))


def name(command: ModuleType) -> str:
    """The command a module of :data:`COMMANDS` runs: its own name, ``_`` written ``-``, e.g. ``label-sample``."""
    return command.__name__.rpartition(".")[2].replace("_", "-")


def _reader_gone() -> int:
    """Point standard output at /dev/null (so that the final flush cannot fail again) and return 141,
    the status of a process ended by SIGPIPE, as ``yes | head -1`` gives."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # standard output is no real file (a test's capture)
        pass
    return 141
