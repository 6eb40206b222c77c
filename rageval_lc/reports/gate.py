"""Gates: check a run's result rows against thresholds, so that a CI job fails when RAG quality drops.

A threshold is a score, an operator and a number in [0, 1] (``faithfulness >= 0.8``). A score passes when the
mean of its ``ok`` values meets it, or, with ``confident=True``, when the bound of the bootstrap confidence
interval on the losing side does (the lower bound for ``>=`` and ``>``, the upper one for ``<=`` and ``<``).
A score with no ``ok`` value fails with the reason its rows give (never a silent pass). The error rate, rows
with any ``error`` score over all rows, is checked too (default: at most 0, so a row the judge failed on fails
the gate).

Example:
    >>> rows = [{"id": "a", "scores": {"faithfulness": 1.0}, "status": {"faithfulness": "ok"}},
    ...         {"id": "b", "scores": {"faithfulness": 0.5}, "status": {"faithfulness": "ok"}}]
    >>> report = check_gate(rows, [parse_threshold("faithfulness=0.8", "min")])
    >>> report.passed, report.checks[0].mean, report.checks[0].why
    (False, 0.75, 'mean 0.750 is not >= 0.8')
    >>> check_gate(rows, [parse_condition("faithfulness", ">0.7")]).passed
    True
"""

from __future__ import annotations

import math
import operator
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from rageval_lc.metrics.spec import EMPTY_ANSWER
from rageval_lc.reports.summary import format_table, row_outcome

__all__ = [
    "OPERATORS",
    "GateCheck",
    "GateReport",
    "Threshold",
    "check_gate",
    "format_gate",
    "parse_condition",
    "parse_rate",
    "parse_threshold",
]

#: The operators a condition may use; a bare number means ``>=``.
OPERATORS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
    "==": lambda a, b: math.isclose(a, b, abs_tol=1e-9),
}
#: The row standing for the error rate in a gate's checks.
ERROR_RATE = "error rate"
_CONDITION = re.compile(r"^\s*(>=|<=|==|>|<)?\s*(\S.*?)\s*$")


@dataclass(frozen=True)
class Threshold:
    """``score op value``: what one score must meet.

    Example:
        >>> t = Threshold("faithfulness", ">=", 0.8)
        >>> str(t), t.holds(0.8), t.holds(0.79)
        ('>= 0.8', True, False)
    """

    score: str
    op: str
    value: float

    def holds(self, value: float) -> bool:
        """Whether ``value`` meets the threshold."""
        return OPERATORS[self.op](value, self.value)

    def __str__(self) -> str:
        return f"{self.op} {self.value:g}"


def parse_condition(score: str, condition: object) -> Threshold:
    """A condition on ``score``: a string with an operator (``>=``, ``>``, ``<=``, ``<``, ``==``) and a number
    in [0, 1], or a bare number (meaning ``>=``).

    Raises:
        ValueError: If the condition is not one of those (the message names the score and the value got).

    Example:
        >>> parse_condition("context_relevance", "> 0.5"), parse_condition("adherence", 1)
        (Threshold(score='context_relevance', op='>', value=0.5), Threshold(score='adherence', op='>=', value=1.0))
    """
    op, number = ">=", condition
    if isinstance(condition, str):
        match = _CONDITION.match(condition)
        if match:
            op, number = match.group(1) or ">=", match.group(2)
    value = _unit_number(number)
    if value is None:
        msg = (
            f"The condition on {score!r} must be an operator (>=, >, <=, <, ==) and a number in [0, 1], "
            f"or a bare number in [0, 1] (meaning >=). Got {condition!r}."
        )
        raise ValueError(msg)
    return Threshold(score, op, value)


def parse_threshold(text: str, bound: Literal["min", "max"]) -> Threshold:
    """A command-line threshold ``SCORE=VALUE``: ``>= VALUE`` for ``--min``, ``<= VALUE`` for ``--max``.

    Raises:
        ValueError: If ``text`` lacks ``=``, names no score, or its value is not a number in [0, 1].

    Example:
        >>> parse_threshold("rmse_aggregation=0.3", "max")
        Threshold(score='rmse_aggregation', op='<=', value=0.3)
    """
    score, sign, number = str(text).partition("=")
    value = _unit_number(number)
    if not sign or not score.strip() or value is None:
        msg = f"--{bound} must be SCORE=VALUE with VALUE a number in [0, 1] (e.g. faithfulness=0.8). Got {text!r}."
        raise ValueError(msg)
    return Threshold(score.strip(), ">=" if bound == "min" else "<=", value)


def parse_rate(text: str, *, name: str = "--max-error-rate") -> float:
    """A rate in [0, 1] given on the command line.

    Raises:
        ValueError: If ``text`` is not a number in [0, 1].

    Example:
        >>> parse_rate("0.01")
        0.01
    """
    value = _unit_number(text)
    if value is None:
        msg = f"{name} must be a number in [0, 1]. Got {text!r}."
        raise ValueError(msg)
    return value


@dataclass(frozen=True)
class GateCheck:
    """One threshold checked over a run: the mean of the ``ok`` values, its confidence interval, the counts."""

    score: str
    condition: str
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    ok: int  # rows whose score is ok
    rows: int  # rows that carry the score
    passed: bool
    why: str


@dataclass(frozen=True)
class GateReport:
    """Every check of a gate; ``passed`` when all passed."""

    checks: list[GateCheck] = field(default_factory=list)
    confident: bool = False
    confidence: float = 0.95

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)

    @property
    def failed(self) -> list[GateCheck]:
        return [check for check in self.checks if not check.passed]


def check_gate(
    rows: Iterable[Mapping[str, Any]],
    thresholds: Sequence[Threshold],
    *,
    max_error_rate: float = 0.0,
    confident: bool = False,
    n_resamples: int | None = None,
    confidence: float = 0.95,
    seed: int = 0,
    unreadable: int = 0,
) -> GateReport:
    """Check result rows (as ``rageval evaluate --out`` writes them) against thresholds and the error rate.

    Args:
        rows: result rows, each with ``status`` and ``scores`` per score (``reason`` is used when present).
        thresholds: what each score must meet (:func:`parse_threshold`, :func:`parse_condition`); one score may
            have a lower and an upper bound.
        max_error_rate: the largest share of rows with any ``error`` score that passes (counting ``unreadable``).
        confident: judge a score by the bound of its bootstrap confidence interval on the losing side instead
            of its mean (:func:`~rageval_lc.reports.stats.bootstrap_ci`, seeded).
        n_resamples, confidence, seed: the bootstrap's settings (``n_resamples`` None: its default, 2000).
        unreadable: lines of the results file that were not result rows; they count as rows with an error.

    Returns:
        GateReport: one check per threshold, in order, then the error rate.

    Raises:
        ValueError: If there is no row, a threshold names a score no row has (the message lists those present),
            one score has two thresholds on the same side, or ``max_error_rate`` is not in [0, 1].
    """
    rows = list(rows)
    if not rows and not unreadable:
        msg = "There are no result rows to check."
        raise ValueError(msg)
    if _unit_number(max_error_rate) is None:
        msg = f"max_error_rate must be a number in [0, 1]. Got {max_error_rate!r}."
        raise ValueError(msg)
    _check_thresholds(rows, thresholds)
    checks = [
        _check_score(rows, threshold, confident=confident, n_resamples=n_resamples, confidence=confidence, seed=seed)
        for threshold in thresholds
    ]
    checks.append(_check_error_rate(rows, unreadable, max_error_rate))
    return GateReport(checks=checks, confident=confident, confidence=confidence)


def format_gate(checks: Sequence[GateCheck], *, confidence: float = 0.95) -> str:
    """Render checks as a table: score, threshold, mean, CI, n ok, why.

    Example:
        >>> check = GateCheck("faithfulness", ">= 0.8", 0.75, 0.5, 1.0, 2, 2, False, "mean 0.750 is not >= 0.8")
        >>> print(format_gate([check]))
        score         threshold   mean  95% CI          n ok  why
        ------------  ---------  -----  --------------  ----  ------------------------
        faithfulness  >= 0.8     0.750  [0.500, 1.000]  2/2   mean 0.750 is not >= 0.8
    """
    table = [
        [
            c.score,
            c.condition,
            c.mean,
            "-" if c.ci_low is None else f"[{c.ci_low:.3f}, {c.ci_high:.3f}]",
            f"{c.ok}/{c.rows}",
            c.why,
        ]
        for c in checks
    ]
    return format_table(["score", "threshold", "mean", f"{confidence:.0%} CI", "n ok", "why"], table)


def _check_thresholds(rows: Sequence[Mapping[str, Any]], thresholds: Sequence[Threshold]) -> None:
    present = list(dict.fromkeys(name for row in rows for name in (row.get("status") or {})))
    missing = list(dict.fromkeys(t.score for t in thresholds if t.score not in present))
    if missing:
        names = ", ".join(repr(name) for name in missing)
        msg = f"No row has the score {names}. Scores present: {', '.join(present) or 'none'}."
        raise ValueError(msg)
    sides = Counter((t.score, t.op.strip("=") or "=") for t in thresholds)
    twice = [f"{score} {side}" for (score, side), n in sides.items() if n > 1]
    if twice:
        msg = f"One threshold per score and side. Got more than one for: {', '.join(twice)}."
        raise ValueError(msg)


def _check_score(
    rows: Sequence[Mapping[str, Any]],
    threshold: Threshold,
    *,
    confident: bool,
    n_resamples: int | None,
    confidence: float,
    seed: int,
) -> GateCheck:
    from rageval_lc.reports.attention import score_value
    from rageval_lc.reports.stats import DEFAULT_RESAMPLES, bootstrap_ci  # numpy: loaded when a gate runs

    name = threshold.score
    carrying = [row for row in rows if name in (row.get("status") or {})]
    values = [value for row in carrying if (value := score_value(row, name)) is not None]
    condition = str(threshold)
    if not values:
        why = f"no ok value: {_not_ok(carrying, name)}"
        return GateCheck(name, condition, None, None, None, 0, len(carrying), False, why)
    mean = math.fsum(values) / len(values)
    resamples = DEFAULT_RESAMPLES if n_resamples is None else n_resamples
    low, high = bootstrap_ci(values, n_resamples=resamples, confidence=confidence, seed=seed)
    assert low is not None and high is not None  # values is not empty
    passed = threshold.holds(mean)
    why = f"mean {mean:.3f} {'is' if passed else 'is not'} {condition}"
    if confident and passed and len(values) < 2:  # one value's interval has no width: it proves nothing
        passed = False
        why = f"mean {mean:.3f} is {condition}, but 1 ok value is too few for a {confidence:.0%} interval"
    elif confident and passed:
        bounds = _losing_bounds(threshold.op, low, high)
        failing = [(side, bound) for side, bound in bounds if not threshold.holds(bound)]
        passed = not failing
        shown = failing or bounds
        parts = " and ".join(f"{side} bound {bound:.3f}" for side, bound in shown)
        verdict = "clears it" if passed else "does not"
        why = f"mean {mean:.3f} is {condition}; the {confidence:.0%} CI's {parts} {verdict}"
    return GateCheck(name, condition, mean, low, high, len(values), len(carrying), passed, why)


def _losing_bounds(op: str, low: float, high: float) -> list[tuple[str, float]]:
    """The interval bounds that must meet the threshold for a confident pass."""
    if op in (">=", ">"):
        return [("lower", low)]
    if op in ("<=", "<"):
        return [("upper", high)]
    return [("lower", low), ("upper", high)]


def _not_ok(rows: Sequence[Mapping[str, Any]], name: str) -> str:
    """The statuses of rows without an ok value, each with its most common reason."""
    by_status: dict[str, Counter[str]] = {}
    for row in rows:
        reason = (row.get("reason") or {}).get(name) or "no reason given"
        by_status.setdefault(row["status"][name], Counter())[str(reason)] += 1
    parts = [
        f"{sum(reasons.values())} {status} ({reasons.most_common(1)[0][0]})" for status, reasons in by_status.items()
    ]
    return "; ".join(parts) or "no row carries it"


def _empty_answer(row: Mapping[str, Any]) -> bool:
    """A row whose answer was empty: a score of it is undetermined for that reason, never a failing score."""
    return any(str(reason).startswith(EMPTY_ANSWER) for reason in (row.get("reason") or {}).values())


def _check_error_rate(rows: Sequence[Mapping[str, Any]], unreadable: int, max_error_rate: float) -> GateCheck:
    errors = sum(row_outcome(row.get("status") or {}) == "failed" for row in rows)
    empty = sum(row_outcome(row.get("status") or {}) != "failed" and _empty_answer(row) for row in rows)
    failed = errors + empty + unreadable
    total = len(rows) + unreadable
    rate = failed / total
    threshold = Threshold(ERROR_RATE, "<=", max_error_rate)
    passed = threshold.holds(rate)
    why = f"{failed} of {total} rows have an error score" + (" or an empty answer" if empty else "")
    if empty:
        why += f" ({empty} empty answer{'s' if empty != 1 else ''})"
    if unreadable:
        why += f" ({unreadable} unreadable line{'s' if unreadable != 1 else ''} among them)"
    return GateCheck(ERROR_RATE, str(threshold), rate, None, None, total - failed, total, passed, why)


def _unit_number(value: object) -> float | None:
    """``value`` as a float in [0, 1], or None when it is not one (a bool is not a number here)."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value.strip() if isinstance(value, str) else value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if 0.0 <= number <= 1.0 else None
