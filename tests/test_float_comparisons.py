"""No test compares a computed float exactly (docs/development.md, "Floats in tests"): a checker over tests/ for
``==`` against float literals and for exact array comparisons, with an allow-list of exact arithmetic."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

#: Exact array comparisons: each needs an entry in :data:`ALLOWED`.
EXACT_ARRAY_CALLS = frozenset({"assert_array_equal", "assert_equal", "array_equal"})

#: Tests whose flagged comparisons are exact arithmetic, each with its reason ("file::function": reason).
ALLOWED: dict[str, str] = {
    "tests/judges/offline/test_merged_nli.py::test_only_what_the_merge_changed_is_saved": (
        "weights written to a safetensors file and read back: the same bits, no arithmetic between them"
    ),
    "tests/judges/llm/test_dspy_judge.py::test_trace_labels_give_the_worked_example_numbers": (
        "the guide's labels, capstone: 4 relevant sentences over 20, one division (0.2)"
    ),
    "tests/judges/llm/test_dspy_judge.py::test_context_relevance_and_out_of_range_scores": (
        "a canned 1-100 score over 100: one division (3 / 100 is 0.03)"
    ),
    "tests/judges/llm/test_dspy_judge.py::test_runner_totals_the_judge_usage": (
        "the mean of two rows of 4 over 20 (0.2 each) is 0.2 exactly"
    ),
    "tests/judges/offline/test_nli.py::test_pairs_are_cached_and_order_kept": (
        "the second call reads the first call's predictions from the cache: the same numbers, not recomputed"
    ),
    "tests/metrics/test_ragas.py::test_answer_relevance": "the fallback is handed back as it was given",
    "tests/metrics/test_ragas.py::test_reference_view_names_and_scale": (
        "the view rounds to two decimals (round(100 * 0.8327, 2)), far from a rounding boundary"
    ),
    "tests/metrics/test_trace.py::test_labeling_document_full_example_capstone": "labels: 4 of 20 sentences",
    "tests/metrics/test_trace.py::test_visual_guide_walkthrough_capstone": "labels: 4 of 20 sentences",
    "tests/metrics/test_trace.py::test_visual_guide_simplified_example_capstone": "labels: 2 of 20 sentences",
    "tests/scoring/test_custom.py::test_a_function_metric_that_raises_is_that_metrics_error_only": (
        "the metric's own arithmetic: 1 word over 10"
    ),
    "tests/engine/test_ray_engine.py::test_a_metric_of_ones_own_loaded_from_a_file_is_scored_on_the_actors": (
        "the metric's own arithmetic: 1 word over 10, the same division on an actor"
    ),
    "tests/engine/test_workers.py::test_a_metric_of_ones_own_loaded_from_a_file_is_scored_in_the_workers": (
        "the metric's own arithmetic: 1 word over 10, the same division in a worker"
    ),
}


def exact_literal(value: float) -> bool:
    """A float a count ratio of small integers lands on exactly (a multiple of 1/256: 0.5, 0.75, 78.0), which no
    model output does; any other literal with a fractional part (0.1, 0.333, 0.50190925) is flagged."""
    return (value * 256).is_integer()


def flagged_floats(node: ast.AST, names: dict[str, ast.AST], seen: frozenset[str] = frozenset()) -> list[float]:
    """The flagged float literals of an operand: itself, the items of a literal dict, list, tuple or set, and
    those of a module-level name bound to one (not inside calls such as ``pytest.approx``)."""
    if isinstance(node, ast.Constant):
        value = node.value
        return [value] if isinstance(value, float) and not exact_literal(value) else []
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return flagged_floats(node.operand, names, seen)
    if isinstance(node, ast.Dict):
        return [f for part in (*node.keys, *node.values) if part is not None for f in flagged_floats(part, names, seen)]
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [f for item in node.elts for f in flagged_floats(item, names, seen)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):  # [0.1] * 6
        return flagged_floats(node.left, names, seen) + flagged_floats(node.right, names, seen)
    if isinstance(node, ast.Name) and node.id in names and node.id not in seen:
        return flagged_floats(names[node.id], names, seen | {node.id})
    return []


def module_names(tree: ast.Module) -> dict[str, ast.AST]:
    """The module's top-level names bound once to a value (``PINNED = {...}``, ``PINNED: dict = {...}``)."""
    names: dict[str, ast.AST] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            continue
        if isinstance(target, ast.Name):
            names[target.id] = value
    return names


def call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def exact_float_comparisons(source: str, where: str) -> Iterator[tuple[str, int, str]]:
    """Each ``==`` / ``!=`` with a flagged float literal on a side, and each exact array comparison, in
    ``source``: (``where::function``, line, what)."""
    tree = ast.parse(source)
    names = module_names(tree)

    def visit(node: ast.AST, function: str) -> Iterator[tuple[str, int, str]]:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            function = node.name if function == "<module>" else function
        if isinstance(node, ast.Compare) and any(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops):
            floats = [f for side in (node.left, *node.comparators) for f in flagged_floats(side, names)]
            if floats:
                yield f"{where}::{function}", node.lineno, f"== against {floats[0]!r}"
        if isinstance(node, ast.Call) and call_name(node) in EXACT_ARRAY_CALLS:
            yield f"{where}::{function}", node.lineno, call_name(node)
        for child in ast.iter_child_nodes(node):
            yield from visit(child, function)

    yield from visit(tree, "<module>")


def suite_comparisons() -> list[tuple[str, int, str]]:
    return [
        found
        for path in sorted(TESTS.rglob("*.py"))
        for found in exact_float_comparisons(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
    ]


def test_no_test_compares_a_computed_float_exactly() -> None:
    """A flagged comparison is either given a tolerance (tests.floats) or its test is listed in :data:`ALLOWED`,
    with the reason its arithmetic is exact."""
    found = "\n".join(f"{where}:{line}: {what}" for where, line, what in suite_comparisons() if where not in ALLOWED)
    assert not found, f"compare these with a tolerance (tests/floats.py) or allow them with a reason:\n{found}"


def test_every_allowed_test_still_has_an_exact_comparison() -> None:
    flagged = {where for where, _, _ in suite_comparisons()}
    assert sorted(set(ALLOWED) - flagged) == []
    assert all(reason.strip() for reason in ALLOWED.values())


SNIPPET = """
PINNED = {"rag-name-01": (1.0, 0.5019122500000001, 0.0)}
HALVES = {"a": 0.5, "b": 0.75}

def test_pinned(run):
    assert run.scores == PINNED

def test_a_probability(result):
    assert result.score == 0.50190925
    assert result.scores() != {"adherence_probability": -0.702}

def test_arrays(np, a, b):
    np.testing.assert_array_equal(a, b)

def test_fine(result, pytest):
    assert result.score == pytest.approx(0.50190925, abs=1e-5)
    assert result.scores() == HALVES and result.count == 3 and result.score == 1.0
"""


def test_the_checker_flags_what_it_should_and_nothing_else() -> None:
    found = [(where, what) for where, _, what in exact_float_comparisons(SNIPPET, "snippet.py")]
    assert found == [
        ("snippet.py::test_pinned", "== against 0.5019122500000001"),
        ("snippet.py::test_a_probability", "== against 0.50190925"),
        ("snippet.py::test_a_probability", "== against 0.702"),
        ("snippet.py::test_arrays", "assert_array_equal"),
    ]
