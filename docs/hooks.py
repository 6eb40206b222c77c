"""The guide's tables that the code already knows, built from it so they cannot drift.

A page holds each one between a start marker and ``<!-- /generated -->``, written into the Markdown file so that it
reads right on GitHub and in an editor; ``python docs/hooks.py --write`` writes them anew from the code (a start
marker alone gets its text and end marker), ``python docs/hooks.py`` lists the pages whose text is stale, and
``tests/test_generated_docs.py`` fails on one. The start markers:

* ``<!-- generated: metrics-table FAMILY -->`` (``trace``, ``ragas`` or ``all``): each metric of the registry with
  its scores, what it measures, what it needs and the judge calls it makes in every scoring mode;
* ``<!-- generated: judge-calls -->``: the calls per sample of each metric and of the whole suite, per mode;
* ``<!-- generated: verdict-routes -->``: which judge call makes each verdict, per mode;
* ``<!-- generated: rgb-tasks -->`` and ``<!-- generated: rgb-row -->``: RGB's tasks and its input row;
* ``<!-- generated: cli-reference -->``: every ``rageval`` command's usage, description and options;
* ``<!-- generated: house -->``: the package's rooms in layer order, what each holds and which rooms it imports
  (read from the code: :func:`import_edges`).

As an MkDocs hook it builds each block anew from the code and drops the markers. An unknown marker fails the build.
Every import is made when a table is built.

Example:
    >>> "| `faithfulness` |" in metrics_table("ragas")
    True
    >>> render("<!-- generated: rgb-row -->\\n<!-- /generated -->").splitlines()[2]
    '| field | in a row |'
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import html
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parents[1] / "rageval_lc"
#: The package's rooms, lowest first: a module imports only from its own room and the rooms before it. ``core``
#: is the modules at the top of the package (text, schema, errors, files ...); ``facts`` (the word lists and the
#: small functions of what text states: months, numbers in words, units, places) stands on it, below every other
#: room; ``rageval_lc`` itself (its ``__init__`` and ``__main__``: the public names and ``python -m``) is the
#: facade, above every room.
LAYERS: tuple[str, ...] = (
    "core",
    "facts",
    "metrics",
    "datasets",
    "judges",
    "scoring",
    "reports",
    "engine",
    "align",
    "rgb",
    "adapters",
    "cli",
    "facade",
)

DOCS = Path(__file__).resolve().parent
MARKER = re.compile(r"^<!-- generated: (?P<name>[\w-]+)(?: (?P<arg>[\w-]+))? -->$", re.M)
END = re.compile(r"^<!-- /generated -->$", re.M)
#: The command that writes every page's generated blocks anew.
WRITE = "python docs/hooks.py --write"


def cell(text: object) -> str:
    """Text made safe for a Markdown table cell: HTML escaped, pipes escaped, on one line."""
    return html.escape(" ".join(str(text).split()), quote=False).replace("|", "\\|")


def code(names: Iterator[str] | tuple[str, ...] | list[str]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def code_cell(text: str) -> str:
    """Inline code for a table cell; one holding a pipe as HTML, which GitHub and MkDocs both leave in one cell."""
    if "|" not in text:
        return f"`{text}`"
    return "<code>" + html.escape(text, quote=False).replace("|", "&#124;") + "</code>"


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
    from rageval_lc.rgb.scoring import RGB_TASKS

    unknown = set(RGB_TASKS) - set(RGB_TASK_TEXT)
    if unknown:
        raise ValueError(f"docs/hooks.py does not describe the RGB tasks {sorted(unknown)}")
    rows = [[f"`{task}`", *RGB_TASK_TEXT[task], "0 (string rules)"] for task in RGB_TASKS]
    return table(["`task`", "the system…", "reported as", "judge calls"], rows)


def rgb_row() -> str:
    from rageval_lc.rgb.scoring import RgbRow

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
            [code_cell(invocation(a)), shown_default(a), cell(expanded_help(a, prog))]
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


def module_name(path: Path) -> str:
    """``rageval_lc/judges/offline/judge.py`` → ``rageval_lc.judges.offline.judge`` (a package by its ``__init__``)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def room_of(module: str) -> str:
    """The room a module is in: its subpackage of ``rageval_lc``, ``core`` or the ``facade``.

    Example:
        >>> room_of("rageval_lc.judges.offline.judge"), room_of("rageval_lc.text"), room_of("rageval_lc")
        ('judges', 'core', 'facade')
    """
    parts = module.split(".")
    if len(parts) == 1 or parts[1] == "__main__":
        return "facade"
    return parts[1] if (PACKAGE / parts[1]).is_dir() else "core"


def _existing(name: str) -> str:
    """The longest prefix of a dotted name that is a module of the package (``from x import name`` names either)."""
    parts = name.split(".")
    while parts:
        where = PACKAGE.parent.joinpath(*parts)
        if where.with_suffix(".py").exists() or (where / "__init__.py").exists():
            return ".".join(parts)
        parts.pop()
    return ""


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``tree`` but those under ``if TYPE_CHECKING:`` (names for annotations, never imported)."""
    for node in ast.iter_child_nodes(tree):
        test = getattr(node, "test", None) if isinstance(node, ast.If) else None
        if isinstance(test, ast.Name | ast.Attribute) and ast.unparse(test).endswith("TYPE_CHECKING"):
            yield from (n for branch in node.orelse for n in [branch, *_runtime_nodes(branch)])
            continue
        yield node
        yield from _runtime_nodes(node)


def import_edges() -> dict[str, set[str]]:
    """Module → the package's modules it imports at run time, at any depth (module level and inside functions;
    not the names imported under ``if TYPE_CHECKING:`` for annotations)."""
    edges: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module, found = module_name(path), set()
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("rageval_lc"):
                found |= {_existing(f"{node.module}.{alias.name}") for alias in node.names}
            elif isinstance(node, ast.Import):
                found |= {_existing(alias.name) for alias in node.names if alias.name.startswith("rageval_lc")}
        edges[module] = {target for target in found if target and target != module}
    return edges


def upward_imports(edges: dict[str, set[str]]) -> list[str]:
    """Each import from a lower room back up to a higher one (:data:`LAYERS`), as ``module -> target``."""
    level = {room: i for i, room in enumerate(LAYERS)}
    return sorted(
        f"{module} -> {target}"
        for module, targets in edges.items()
        for target in targets
        if level[room_of(target)] > level[room_of(module)]
    )


def import_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import one another, directly or round a circle (each of two or more)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(edges.get(module, ())):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    return groups


def house() -> str:
    """The rooms in layer order: what each holds (its package docstring's first line), its modules and the rooms
    it imports (no line counts: they would make the committed table stale at every edit)."""
    edges = import_edges()
    rows = []
    for room in LAYERS:
        modules = sorted(m for m in edges if room_of(m) == room)
        if not modules:
            continue
        uses = sorted({room_of(t) for m in modules for t in edges[m]} - {room}, key=LAYERS.index)
        about = ""
        if room not in ("core", "facade"):
            doc = ast.get_docstring(ast.parse((PACKAGE / room / "__init__.py").read_text(encoding="utf-8"))) or ""
            about = doc.split("\n\n")[0]
        name = f"`{room}/`" if room not in ("core", "facade") else room
        rows.append([name, cell(about), str(len(modules)), code(uses)])
    return table(["room", "what it holds", "modules", "imports from"], rows)


GENERATORS: dict[str, Callable[..., str]] = {
    "metrics-table": metrics_table,
    "judge-calls": judge_calls,
    "verdict-routes": verdict_routes,
    "rgb-tasks": rgb_tasks,
    "rgb-row": rgb_row,
    "cli-reference": cli_reference,
    "house": house,
}


def generated(name: str, arg: str | None, where: str = "the page") -> str:
    """The text of one generated block.

    Raises:
        ValueError: For a marker no generator answers to.
    """
    generator = GENERATORS.get(name)
    if generator is None:
        raise ValueError(f"{where}: unknown generated block {name!r} (known: {', '.join(GENERATORS)})")
    return generator(arg) if arg else generator()


def render(markdown: str, where: str = "the page") -> str:
    """The page with each generated block's text built anew: from its start marker to its end marker, or to the
    start marker's own line where no end marker follows before the next start.

    Raises:
        ValueError: For a marker no generator answers to, or an end marker with no start.
    """
    parts, done = [], 0
    for start in MARKER.finditer(markdown):
        following = MARKER.search(markdown, start.end())
        end = END.search(markdown, start.end(), following.start() if following else len(markdown))
        if END.search(markdown, done, start.start()):
            raise ValueError(f"{where}: an end marker with no start marker before {start.group(0)}")
        text = generated(start["name"], start["arg"], where)
        parts += [markdown[done : start.start()], f"{start.group(0)}\n\n{text}\n\n<!-- /generated -->"]
        done = end.end() if end else start.end()
    if END.search(markdown, done):
        raise ValueError(f"{where}: an end marker with no start marker")
    return "".join([*parts, markdown[done:]])


def pages(docs: Path = DOCS) -> list[Path]:
    """The pages of the guide that hold a generated block."""
    return [path for path in sorted(docs.rglob("*.md")) if MARKER.search(path.read_text(encoding="utf-8"))]


def main(argv: list[str] | None = None) -> int:
    """List the pages whose generated text differs from the code (exit status 1), or ``--write`` them anew."""
    parser = argparse.ArgumentParser(prog="python docs/hooks.py", description=main.__doc__)
    parser.add_argument("--write", action="store_true", help="write the stale pages' generated blocks anew")
    write = parser.parse_args(argv).write
    stale = 0
    for path in pages():
        text = path.read_text(encoding="utf-8")
        fresh = render(text, path.relative_to(DOCS.parent).as_posix())
        if fresh != text:
            stale += 1
            print(f"{'wrote' if write else 'stale'}: {path.relative_to(DOCS.parent).as_posix()}")
            if write:
                path.write_text(fresh, encoding="utf-8")
    if stale and not write:
        print(f"run `{WRITE}` to write them anew")
    return 1 if stale and not write else 0


def on_page_markdown(markdown: str, *, page: Any, **_: Any) -> str:
    """The page as built: each generated block anew from the code, its markers dropped."""
    fresh = render(markdown, page.file.src_path)
    return END.sub("", MARKER.sub("", fresh))


if __name__ == "__main__":
    sys.path.insert(0, str(PACKAGE.parent))  # the package of this checkout, installed or not
    raise SystemExit(main())
