"""MkDocs hook: the guide's tables that the code already knows are built from it, so they cannot drift.

A page asks for one with a marker line, replaced when the page is built:

* ``<!-- generated: metrics-table FAMILY -->`` (``trace``, ``ragas`` or ``all``): each metric of the registry with
  its scores, what it measures, what it needs and the judge calls it makes in every scoring mode;
* ``<!-- generated: judge-calls -->``: the calls per sample of each metric and of the whole suite, per mode;
* ``<!-- generated: verdict-routes -->``: which judge call makes each verdict, per mode;
* ``<!-- generated: rgb-tasks -->`` and ``<!-- generated: rgb-row -->``: RGB's tasks and its input row;
* ``<!-- generated: cli-reference -->``: every ``rageval`` command's usage, description and options.

An unknown marker fails the build. Every import is made when a table is built.

Example:
    >>> "| `faithfulness` |" in metrics_table("ragas")
    True
"""

from __future__ import annotations

import argparse
import dataclasses
import html
import re
from collections.abc import Callable, Iterator
from typing import Any

MARKER = re.compile(r"^<!-- generated: (?P<name>[\w-]+)(?: (?P<arg>[\w-]+))? -->$", re.M)


def cell(text: object) -> str:
    """Text made safe for a Markdown table cell: HTML escaped, pipes escaped, on one line."""
    return html.escape(" ".join(str(text).split()), quote=False).replace("|", "\\|")


def code(names: Iterator[str] | tuple[str, ...] | list[str]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# --- metrics -----------------------------------------------------------------------------------------------


def family(name: str) -> list[Any]:
    """The built-in metric specs of a family: ``trace``, ``ragas`` (the RAGAS / GraphRAG family) or ``all``."""
    from rageval_lc.scoring.registry import BUILT_IN_METRICS, RAGAS_FAMILY, REGISTRY

    names = {"trace": ("trace",), "ragas": RAGAS_FAMILY, "all": tuple(REGISTRY)}[name]
    return [REGISTRY[metric] for metric in names if metric in BUILT_IN_METRICS]


def calls(judgements: tuple[str, ...]) -> str:
    return f"{len(judgements)}: {code(judgements)}" if judgements else "0"


def metrics_table(name: str) -> str:
    """Each metric of the family: scores, what it measures, what it needs, judge calls per scoring mode."""
    from rageval_lc.scoring.plan import SCORING_MODES, metric_judgements

    rows = []
    for spec in family(name):
        needs = [*spec.requires, *(["contexts"] if spec.needs_contexts else [])]
        needs += ["reference"] if spec.needs_reference else []
        counts = " · ".join(str(len(metric_judgements(spec.name, mode))) for mode in SCORING_MODES)
        rows.append([f"`{spec.name}`", code(spec.scores), cell(spec.description), code(needs) or "–", counts])
    modes = " · ".join(SCORING_MODES)
    return table(["metric", "scores", "what it measures", "needs", f"judge calls ({modes})"], rows)


def judge_calls() -> str:
    """Judge calls per sample of each metric and of the whole suite (each judgement made once), per mode."""
    from rageval_lc.scoring.plan import FALLBACKS, SCORING_MODES, metric_judgements

    names = [spec.name for spec in family("all")]
    rows = [[f"`{name}`"] + [calls(metric_judgements(name, mode)) for mode in SCORING_MODES] for name in names]
    suite = {mode: tuple(dict.fromkeys(j for n in names for j in metric_judgements(n, mode))) for mode in SCORING_MODES}
    rows.append(["**whole suite**"] + [f"**{len(suite[mode])}**: {code(suite[mode])}" for mode in SCORING_MODES])
    fallbacks = "; ".join(f"`{a}` → `{b}`" for a, b in FALLBACKS.items())
    note = f"\n\nA judge that cannot make a judgement makes its fallback instead ({fallbacks}), one call more."
    return table(["metric"] + [f"`{mode}`" for mode in SCORING_MODES], rows) + note


def verdict_routes() -> str:
    """Which judgements make each verdict, per scoring mode."""
    from rageval_lc.scoring.plan import METRIC_VERDICTS, SCORING_MODES, VERDICTS, route

    rows = []
    for verdict in VERDICTS:
        readers = [metric for metric, verdicts in METRIC_VERDICTS.items() if verdict in verdicts]
        rows.append([f"`{verdict}`", code(readers)] + [code(route(verdict, mode)) for mode in SCORING_MODES])
    return table(["verdict", "read by"] + [f"`{mode}`" for mode in SCORING_MODES], rows)


#: What each RGB task measures and the rate that reports it (a task the code adds fails the build until it is here).
RGB_TASK_TEXT = {
    "noise_robustness": ("answers correctly although some documents are noise", "`accuracy` per noise ratio"),
    "negative_rejection": ("declines when every document is noise (noise ratio 1)", "`rejection_rate`"),
    "information_integration": ("combines facts spread over several documents", "`accuracy` per noise ratio"),
    "counterfactual_robustness": (
        "notices documents that state a false fact, and corrects it",
        "`error_detection_rate`, `error_correction_rate`",
    ),
}


def rgb_tasks() -> str:
    from rageval_lc.metrics.rgb import RGB_TASKS

    unknown = set(RGB_TASKS) - set(RGB_TASK_TEXT)
    if unknown:
        raise ValueError(f"docs/hooks.py does not describe the RGB tasks {sorted(unknown)}")
    rows = [[f"`{task}`", *RGB_TASK_TEXT[task], "0 (string rules)"] for task in RGB_TASKS]
    return table(["`task`", "the system…", "reported as", "judge calls"], rows)


def rgb_row() -> str:
    from rageval_lc.metrics.rgb import RgbRow

    rows = []
    for field in dataclasses.fields(RgbRow):
        required = field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
        rows.append([f"`{field.name}`", "required" if required else f"optional (default `{field.default}`)"])
    return table(["field", "in a row"], rows)


# --- the command line --------------------------------------------------------------------------------------


def subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Each (sub)command's parser, depth first, after the parser itself."""
    yield parser.prog, parser
    for action in parser._actions:  # argparse offers no public way to list its subparsers
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from subcommands(sub)


def invocation(action: argparse.Action) -> str:
    if not action.option_strings:
        return str(action.metavar or action.dest)
    if action.nargs == 0:
        return ", ".join(action.option_strings)
    metavar = action.metavar or ("{" + ",".join(map(str, action.choices)) + "}" if action.choices else None)
    return ", ".join(action.option_strings) + " " + str(metavar or action.dest.upper())


def expanded_help(action: argparse.Action, prog: str) -> str:
    if not action.help:
        return ""
    params = {**vars(action), "prog": prog}
    try:
        return action.help % params
    except (KeyError, TypeError, ValueError):
        return action.help.replace("%%", "%")


def shown_default(action: argparse.Action) -> str:
    default = action.default
    if action.nargs == 0 or default in (None, [], argparse.SUPPRESS) or isinstance(action, argparse._HelpAction):
        return ""
    return f"`{default}`"


def cli_reference() -> str:
    """Every command of ``rageval``: its usage, description and options, from the parser the command uses."""
    from rageval_lc.cli import build_parser

    parts = []
    for prog, parser in subcommands(build_parser()):
        parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=100)
        rows = [
            [f"`{invocation(a)}`", shown_default(a), cell(expanded_help(a, prog))]
            for a in parser._actions
            if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
        ]
        commands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if commands:
            helps = {c.dest: expanded_help(c, prog) for c in commands[0]._choices_actions}
            rows += [[f"`{name}`", "", cell(helps.get(name, ""))] for name in commands[0].choices]
        level = "#" * min(2 + prog.count(" "), 4)
        about = parser.description or ""
        usage = parser.format_usage().rstrip()
        section = [f"{level} `{prog}`", "", cell(about), "", "```text", usage, "```", ""]
        parts.append("\n".join([*section, table(["argument", "default", "what it does"], rows)]))
    return "\n\n".join(parts)


GENERATORS: dict[str, Callable[..., str]] = {
    "metrics-table": metrics_table,
    "judge-calls": judge_calls,
    "verdict-routes": verdict_routes,
    "rgb-tasks": rgb_tasks,
    "rgb-row": rgb_row,
    "cli-reference": cli_reference,
}


def render(markdown: str, where: str = "the page") -> str:
    """The page with every marker replaced by its table.

    Raises:
        ValueError: For a marker no generator answers to.
    """

    def replace(match: re.Match[str]) -> str:
        generator = GENERATORS.get(match["name"])
        if generator is None:
            raise ValueError(f"{where}: unknown generated block {match['name']!r} (known: {', '.join(GENERATORS)})")
        return generator(match["arg"]) if match["arg"] else generator()

    return MARKER.sub(replace, markdown)


def on_page_markdown(markdown: str, *, page: Any, **_: Any) -> str:
    return render(markdown, page.file.src_path)
