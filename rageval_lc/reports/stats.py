"""Uncertainty for run figures: bootstrap confidence intervals and paired comparisons (pure numpy, seeded).

A mean over a few hundred rows moves by several points from one sample of rows to the next; these functions
say by how much, so that a decision (ship the new retriever? did compilation help?) rests on evidence.

Example:
    >>> low, high = bootstrap_ci([0.0, 1.0, 1.0, 1.0, 0.5, 1.0, 0.0, 1.0])
    >>> 0.3 < low < 0.69 < high <= 1.0
    True
    >>> paired = paired_comparison([0.5, 0.6, 0.7, 0.2], [0.7, 0.6, 0.9, 0.5])
    >>> round(paired.diff, 3), (paired.wins, paired.ties, paired.losses), paired.p_value
    (0.175, (3, 1, 0), 0.25)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "DEFAULT_RESAMPLES",
    "PairedComparison",
    "bootstrap_ci",
    "mean_interval",
    "paired_comparison",
    "paired_statistic_ci",
    "permutation_p_value",
    "wilson_interval",
]

#: Bootstrap resamples (and Monte-Carlo permutations) unless told otherwise.
DEFAULT_RESAMPLES = 2000
_CHUNK_VALUES = 4_000_000  # draws made at once (~32 MB): a run of any size is resampled in bounded memory


def bootstrap_ci(
    values: Sequence[float], *, n_resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95, seed: int = 0
) -> tuple[float | None, float | None]:
    """The percentile-bootstrap confidence interval of the mean of ``values`` (None, None when empty).

    Resamples ``values`` with replacement ``n_resamples`` times (``numpy.random.default_rng(seed)``), takes each
    resample's mean and returns the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles. One value
    gives a zero-width interval.

    Example:
        >>> bootstrap_ci([0.5]), bootstrap_ci([])
        ((0.5, 0.5), (None, None))
    """
    data = _array(values)
    if data.size == 0:
        return None, None
    _check(n_resamples, confidence)
    rng = np.random.default_rng(seed)
    rows = max(1, _CHUNK_VALUES // data.size)  # resamples drawn a block at a time: memory stays bounded
    means = np.concatenate(
        [
            data[rng.integers(0, data.size, size=(min(rows, n_resamples - start), data.size))].mean(axis=1)
            for start in range(0, n_resamples, rows)
        ]
    )
    low, high = np.quantile(means, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(low), float(high)


def mean_interval(
    values: Sequence[float], *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0, confidence: float = 0.95
) -> tuple[float | None, float | None]:
    """The percentile-bootstrap interval of the mean of ``values`` (:func:`bootstrap_ci`: bounded memory for a run
    of any size); (None, None) when there are no values or ``n_resamples`` is 0.

    Example:
        >>> mean_interval([0.25, 0.25]), mean_interval([], n_resamples=10), mean_interval([1.0], n_resamples=0)
        ((0.25, 0.25), (None, None), (None, None))
    """
    if n_resamples == 0 or len(values) == 0:
        return None, None
    return bootstrap_ci(values, n_resamples=n_resamples, confidence=confidence, seed=seed)


def permutation_p_value(
    differences: Sequence[float], *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> float | None:
    """The two-sided paired permutation (sign-flip) test p-value for a mean difference of zero.

    Under the null each pair's difference is as likely negated; the p-value is the share of sign assignments
    whose mean is at least as far from zero as the observed one. Exact (all ``2**n`` assignments) when that is at
    most ``n_resamples``, else ``n_resamples`` random ones with the observed counted in (never 0). None when empty.

    Example:
        >>> permutation_p_value([1.0, 1.0, 1.0]), permutation_p_value([0.0, 0.0])
        (0.25, 1.0)
    """
    data = _array(differences)
    if data.size == 0:
        return None
    _check(n_resamples, 0.95)
    observed = abs(data.mean())
    tolerance = 1e-12 * max(1.0, observed)
    if 2**data.size <= n_resamples:  # every assignment: the bits of 0 .. 2**n - 1, a block at a time
        total, extreme, rows = 2**data.size, 0, max(1, _CHUNK_VALUES // data.size)
        bits = np.arange(data.size, dtype=np.int64)
        for start in range(0, total, rows):
            codes = np.arange(start, min(start + rows, total), dtype=np.int64)
            signs = 1.0 - 2.0 * ((codes[:, None] >> bits) & 1)
            extreme += int(np.sum(np.abs(signs @ data / data.size) >= observed - tolerance))
        return float(extreme / total)
    rng = np.random.default_rng(seed)
    rows, extreme = max(1, _CHUNK_VALUES // data.size), 0  # sign flips drawn a block at a time
    for start in range(0, n_resamples, rows):
        signs = rng.choice((1.0, -1.0), size=(min(rows, n_resamples - start), data.size))
        extreme += int(np.sum(np.abs(signs @ data / data.size) >= observed - tolerance))
    return float((extreme + 1) / (n_resamples + 1))


@dataclass(frozen=True)
class PairedComparison:
    """One score compared over rows paired between run A and run B (``diff`` = mean of B − A)."""

    n: int
    mean_a: float | None
    mean_b: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    wins: int  # rows where B scored better: higher, or lower for a score where lower is better
    ties: int
    losses: int  # rows where B scored worse

    def to_dict(self) -> dict[str, float | int | None]:
        """As ``rageval compare --json`` prints it."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def paired_comparison(
    a: Sequence[float],
    b: Sequence[float],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
    tie: float = 1e-9,
    higher_is_better: bool = True,
) -> PairedComparison:
    """Compare paired scores: the mean difference B − A, its paired-bootstrap interval (the differences
    resampled), the permutation p-value, and win/tie/loss counts (a tie: the two differ by at most ``tie``; a win:
    B higher, or B lower when not ``higher_is_better``).

    Example:
        >>> paired_comparison([], []).n
        0
        >>> lower = paired_comparison([0.5, 0.2], [0.1, 0.2], higher_is_better=False)  # B lower on the first row
        >>> lower.wins, lower.ties, lower.losses
        (1, 1, 0)
    """
    first, second = _array(a), _array(b)
    if first.shape != second.shape:
        msg = f"paired scores must be as many in both runs. Got {first.size} and {second.size}."
        raise ValueError(msg)
    if first.size == 0:
        return PairedComparison(0, None, None, None, None, None, None, 0, 0, 0)
    differences = second - first
    better = differences if higher_is_better else -differences
    low, high = bootstrap_ci(differences, n_resamples=n_resamples, confidence=confidence, seed=seed)
    return PairedComparison(
        n=int(first.size),
        mean_a=float(first.mean()),
        mean_b=float(second.mean()),
        diff=float(differences.mean()),
        ci_low=low,
        ci_high=high,
        p_value=permutation_p_value(differences, n_resamples=n_resamples, seed=seed),
        wins=int(np.sum(better > tie)),
        ties=int(np.sum(np.abs(differences) <= tie)),
        losses=int(np.sum(better < -tie)),
    )


def paired_statistic_ci(
    statistic: Callable[[np.ndarray], float | None],
    before: Callable[[np.ndarray], float | None],
    n: int,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float | None, float | None]:
    """The paired-bootstrap interval of ``statistic(rows) − before(rows)`` for a figure that is not a mean
    (an AUROC, an RMSE): the same resampled rows (indices into ``n`` rows) feed both; resamples where either
    is undefined (None: one class only) are skipped. (None, None) when fewer than half are defined.

    Example:
        >>> values = np.array([0.2, 0.4, 0.6, 0.8])
        >>> interval = paired_statistic_ci(lambda i: values[i].max(), lambda i: values[i].min(), 4)
        >>> [round(end, 3) for end in interval]  # max - min of 4 draws: 0 only when all four are one value (1.6 %)
        [0.2, 0.6]
    """
    _check(n_resamples, confidence)
    rng = np.random.default_rng(seed)
    diffs = []
    for _ in range(n_resamples):
        rows = rng.integers(0, n, size=n) if n else np.zeros(0, dtype=int)
        after_value, before_value = statistic(rows), before(rows)
        if after_value is not None and before_value is not None:
            diffs.append(after_value - before_value)
    if len(diffs) < n_resamples / 2:
        return None, None
    low, high = np.quantile(diffs, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(low), float(high)


def wilson_interval(successes: int, total: int, *, confidence: float = 0.95) -> tuple[float | None, float | None]:
    """The Wilson score interval of a proportion, ``successes`` of ``total`` (None, None when ``total`` is 0).

    Unlike the bootstrap it needs no resampling and stays inside [0, 1] with a width at 0 or ``total``
    successes, where a few dozen questions often sit (an accuracy of 100 % at noise ratio 0).

    Example:
        >>> [round(v, 4) for v in wilson_interval(8, 10)], wilson_interval(0, 0)
        ([0.4902, 0.9433], (None, None))

    Raises:
        TypeError: If a count is not an int.
        ValueError: If the counts are negative, ``successes`` exceeds ``total``, or ``confidence`` is not in (0, 1).
    """
    _check(1, confidence)
    if any(isinstance(n, bool) or not isinstance(n, int) for n in (successes, total)):
        msg = f"successes and total must be ints. Got {successes!r} and {total!r}."
        raise TypeError(msg)
    if total < 0 or not 0 <= successes <= max(total, 0):
        msg = f"successes must be between 0 and total. Got {successes} of {total}."
        raise ValueError(msg)
    if total == 0:
        return None, None
    from statistics import NormalDist

    z = NormalDist().inv_cdf((1 + confidence) / 2)
    p = successes / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z / (1 + z * z / total) * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total))
    low = 0.0 if successes == 0 else max(0.0, centre - half)  # exact at the edges, not 2.8e-17
    high = 1.0 if successes == total else min(1.0, centre + half)
    return low, high


def _array(values: Sequence[float]) -> np.ndarray:
    data = np.asarray(list(values), dtype=float)
    if data.ndim != 1 or not np.all(np.isfinite(data)):
        msg = "scores must be a flat sequence of finite numbers (leave undetermined and error rows out)."
        raise ValueError(msg)
    return data


def _check(n_resamples: int, confidence: float) -> None:
    if n_resamples < 1:
        msg = f"n_resamples must be >= 1. Got {n_resamples}."
        raise ValueError(msg)
    if not 0 < confidence < 1 or math.isnan(confidence):
        msg = f"confidence must be between 0 and 1. Got {confidence}."
        raise ValueError(msg)
