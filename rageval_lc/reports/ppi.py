"""The true mean of a score from a few labelled rows: prediction-powered inference, power-tuned (PPI++).

A judge's mean over every row is biased by the judge's errors; the mean of a few labelled rows is unbiased but
wide. The prediction-powered mean (Angelopoulos, Bates, Fannjiang, Jordan, Zrnic, *Science* 2023) takes the
judge's mean over the unlabelled rows and corrects it by the judge's error measured on the labelled rows; PPI++
(Angelopoulos, Duchi, Zrnic, arXiv:2311.01453, 2023) weighs the judge by λ ∈ [0, 1], tuned to the data, so that a
poor judge counts for little (λ = 0 gives the labels alone)::

    θ = λ · mean(f(unlabelled)) + mean(y − λ · f(labelled))
    se² = λ² · var(f(unlabelled)) / N + var(y − λ · f(labelled)) / n
    λ = cov(y, f) / ((1 + n / N) · var(f over all rows)), clipped to [0, 1]

with ``n`` labelled rows (truth ``y``, the judge's score ``f``) and ``N`` unlabelled rows (``f`` only). θ, se and
the normal interval θ ± z·se are those of ``ppi_py.ppi_mean_pointestimate`` and ``ppi_mean_ci`` (tests compare
them). Two steps are added:

* where λ would give a wider interval than the labels alone (possible only when the labelled rows' judge scores
  spread very unlike the others'), λ = 0 is taken, so the standard error is never larger than the labels' own;
* for a rate (labels all 0 or 1) the interval is Wilson's score interval at the effective number of labels
  n_eff = θ(1 − θ) / se² (as survey statistics does for a design's effective sample size; ``interval`` says
  ``"wilson"``): the normal interval θ ± z·se holds a rate near 0 or 1 too rarely from a few dozen labels (93.3 %
  of 1,000 draws of 50 held-out RAGBench rows, true rate 0.835, where Wilson's held 95.9 %, as narrow on average:
  ``benchmarks/ppi_coverage.py``), and gives a zero-width interval when the labels are all alike (then n_eff = n).
  The labels-only and the judge's intervals take the same form where their values are 0/1. ``normal=True`` gives
  the normal intervals throughout.

All of them are large-sample intervals: they need the labelled rows to be a uniform random sample of the rows (the
others are the unlabelled ones), and a few dozen of them.

Example (by hand: the judge says 1 on all four rows labelled 1 and on one of the four labelled 0; cov(y, f) =
0.1875, the judge's variance over the 16 rows 0.25, so λ = 0.1875 / (2 × 0.25) = 0.375, and the judge's mean is
0.625 on both sets of rows, so θ = 0.375 × 0.625 + 0.5 − 0.375 × 0.625 = 0.5):
    >>> est = ppi_mean([1, 1, 0, 0, 1, 0, 1, 0], [1, 1, 0, 1, 1, 0, 1, 0], [1, 0, 1, 1, 0, 1, 1, 0])
    >>> est.mean, est.lam, est.judge_mean
    (0.5, 0.375, 0.625)
    >>> round(est.se, 4), est.interval, [round(v, 3) for v in (est.ci_low, est.ci_high)]
    (0.148, 'wilson', [0.249, 0.751])
    >>> normal = ppi_mean([1, 1, 0, 0, 1, 0, 1, 0], [1, 1, 0, 1, 1, 0, 1, 0], [1, 0, 1, 1, 0, 1, 1, 0], normal=True)
    >>> normal.interval, [round(v, 3) for v in (normal.ci_low, normal.ci_high, normal.classical_low)]
    ('normal', [0.21, 0.79, 0.154])
    >>> est.n, est.n_unlabelled, round(est.effective_labels, 2)
    (8, 8, 11.41)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

__all__ = ["PPIEstimate", "expected_width", "ppi_mean", "stratified_ppi_mean"]


@dataclass(frozen=True)
class PPIEstimate:
    """A score's mean three ways, each with its standard error and its interval at ``confidence``:

    - ``judge_mean`` (``judge_se``, ``judge_low``, ``judge_high``): the judge's plain mean over all
      ``n + n_unlabelled`` rows (it holds the judge's mean, not the true one, when the judge errs);
    - ``classical_mean`` (``classical_se``, ``classical_low``, ``classical_high``): the mean of the ``n`` labels alone;
    - ``mean`` (``se``, ``ci_low``, ``ci_high``): the prediction-powered (PPI++) mean with weight ``lam`` on the judge.

    ``interval`` is ``"wilson"`` (a rate: Wilson's interval at the effective number of labels) or ``"normal"`` (mean
    ± z·se, as ``ppi-python`` gives). ``effective_labels`` is how many labels the classical estimate would need to be
    as precise as the prediction-powered one: ``n`` × (classical se / se)².
    """

    n: int
    n_unlabelled: int
    mean: float
    ci_low: float
    ci_high: float
    lam: float
    classical_mean: float
    classical_low: float
    classical_high: float
    judge_mean: float
    judge_low: float
    judge_high: float
    effective_labels: float
    confidence: float = 0.95
    se: float = 0.0
    classical_se: float = 0.0
    judge_se: float = 0.0
    interval: str = "normal"

    def to_dict(self) -> dict[str, float | int]:
        """The fields by name (JSON-ready)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def ppi_mean(
    labels: Sequence[float],
    judged_labelled: Sequence[float],
    judged_unlabelled: Sequence[float],
    *,
    confidence: float = 0.95,
    lam: float | None = None,
    normal: bool = False,
) -> PPIEstimate:
    """The prediction-powered (PPI++) mean of a score with its interval, beside the classical and the judge's.

    Args:
        labels: the true values on the labelled rows (0/1 for a verdict, or a score's true value).
        judged_labelled: the judge's scores on the same rows, in the same order.
        judged_unlabelled: the judge's scores on the rows without a label (may be empty: then λ = 0).
        confidence: the intervals' coverage, between 0 and 1.
        lam: the judge's weight; None (the default) tunes it (PPI++); 1 is the original PPI, 0 the labels alone.
        normal: normal intervals (mean ± z·se) even for a rate, as ``ppi-python`` gives them.

    Raises:
        ValueError: If ``labels`` and ``judged_labelled`` differ in length or hold fewer than 2 values, a value is
            not a finite number (naming the argument), or ``confidence`` or ``lam`` is out of range.

    """
    y = _values(labels, "labels")
    f = _values(judged_labelled, "judged_labelled")
    fu = _values(judged_unlabelled, "judged_unlabelled")
    if y.size != f.size:
        msg = f"labels and judged_labelled must be as many (one of each per labelled row). Got {y.size} and {f.size}."
        raise ValueError(msg)
    if y.size < 2:
        msg = f"labels must hold at least 2 values for an interval. Got {y.size}."
        raise ValueError(msg)
    if not 0 < confidence < 1:
        msg = f"confidence must be between 0 and 1. Got {confidence!r}."
        raise ValueError(msg)
    if lam is not None and not 0 <= lam <= 1:
        msg = f"lam must be between 0 and 1 (or None: tuned). Got {lam!r}."
        raise ValueError(msg)
    n, big_n = y.size, fu.size
    classical_se = float(y.std()) / math.sqrt(n)
    tuned = lam is None
    if lam is None:
        lam = _tuned_lambda(y, f, fu)
    se = _se(y, f, fu, lam)
    if tuned and se > classical_se:  # the tuned λ would widen the interval: the labels alone are better
        lam, se = 0.0, classical_se
    mean = float(np.mean(y - lam * f)) + (lam * float(fu.mean()) if big_n else 0.0)
    judged = np.concatenate([f, fu])
    return _estimate(
        (mean, se, float(y.mean()), classical_se, float(judged.mean()), float(judged.std()) / math.sqrt(judged.size)),
        n=int(n),
        n_unlabelled=int(big_n),
        lam=float(lam),
        rate=None if normal else (_is_rate(y), _is_rate(judged)),
        confidence=confidence,
    )


def _estimate(
    figures: tuple[float, float, float, float, float, float],
    *,
    n: int,
    n_unlabelled: int,
    lam: float,
    rate: tuple[bool, bool] | None,
    confidence: float,
) -> PPIEstimate:
    """The estimate from (mean, se, classical mean, its se, judge's mean, its se): the intervals Wilson's where
    ``rate`` says the labels (first) or the judge's values (second) are 0/1, else normal."""
    mean, se, classical, classical_se, judge_mean, judge_se = figures
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    labels_rate, judge_rate = rate or (False, False)

    def interval(value: float, error: float, count: int, wilson: bool) -> tuple[float, float]:
        return _wilson(value, error, count, z) if wilson else (value - z * error, value + z * error)

    effective = n * (classical_se / se) ** 2 if se > 0 else (float(n) if classical_se == 0 else math.inf)
    return PPIEstimate(
        n=n,
        n_unlabelled=n_unlabelled,
        mean=mean,
        ci_low=(ci := interval(mean, se, n, labels_rate))[0],
        ci_high=ci[1],
        lam=lam,
        classical_mean=classical,
        classical_low=(cl := interval(classical, classical_se, n, labels_rate))[0],
        classical_high=cl[1],
        judge_mean=judge_mean,
        judge_low=(jd := interval(judge_mean, judge_se, n + n_unlabelled, judge_rate))[0],
        judge_high=jd[1],
        effective_labels=float(effective),
        confidence=float(confidence),
        se=se,
        classical_se=classical_se,
        judge_se=judge_se,
        interval="wilson" if labels_rate else "normal",
    )


def _is_rate(values: np.ndarray) -> bool:
    return bool(np.all((values == 0) | (values == 1)))


def _wilson(value: float, se: float, count: int, z: float) -> tuple[float, float]:
    """Wilson's score interval of a rate estimated as ``value`` with standard error ``se``: at the effective number
    of observations p(1 − p) / se², or ``count`` where that is undefined (p at 0 or 1, or se 0).

    Example (8 of 10: the effective number is 10, as for a plain proportion; stats.wilson_interval agrees):
        >>> [round(v, 4) for v in _wilson(0.8, math.sqrt(0.8 * 0.2 / 10), 10, 1.959963984540054)]
        [0.4902, 0.9433]
    """
    p = min(max(value, 0.0), 1.0)
    effective = p * (1 - p) / (se * se) if se > 0 and 0 < p < 1 else float(count)
    centre = (p + z * z / (2 * effective)) / (1 + z * z / effective)
    half = z / (1 + z * z / effective) * math.sqrt(p * (1 - p) / effective + z * z / (4 * effective * effective))
    return max(0.0, centre - half), min(1.0, centre + half)


def stratified_ppi_mean(
    strata: Mapping[str, tuple[Sequence[float], Sequence[float], Sequence[float]]],
    *,
    confidence: float = 0.95,
    normal: bool = False,
) -> PPIEstimate:
    """The prediction-powered mean over rows drawn for labelling stratum by stratum (so many rows from each, not in
    proportion to its size): each stratum's PPI++ estimate (:func:`ppi_mean`, its own λ), weighed by the stratum's
    share of the rows, W = (its labelled + unlabelled rows) / all rows.

    θ = Σ W·θ_stratum and se² = Σ W²·se_stratum², the same for the labels alone, and the interval from them as
    :func:`ppi_mean` makes it (Wilson's for a rate, at the effective number of labels); the judge's plain mean is
    over all rows. ``lam`` is the strata's λ weighed by W, ``n`` and ``n_unlabelled`` are sums. A uniform draw
    over all rows needs none of this (:func:`ppi_mean`); a draw that over-represents a small stratum needs it, or
    its rows would count as if they were that common.

    Args:
        strata: per stratum, its ``(labels, judged_labelled, judged_unlabelled)`` (see :func:`ppi_mean`).
        confidence: the intervals' coverage.
        normal: normal intervals even for a rate.

    Raises:
        ValueError: If there is no stratum, or a stratum has fewer than 2 labels (naming it), or as :func:`ppi_mean`.

    Example (two strata of 4 rows, 2 labelled in each; the judge right everywhere in the first):
        >>> est = stratified_ppi_mean({"a": ([1, 0], [1, 0], [1, 1]), "b": ([1, 1], [0, 1], [0, 0])})
        >>> round(est.classical_mean, 3), est.judge_mean, (est.n, est.n_unlabelled)
        (0.75, 0.5, (4, 4))
    """
    if not strata:
        raise ValueError("strata must hold at least one stratum.")
    estimates, sizes = {}, {}
    for name, (y, f, fu) in strata.items():
        if len(y) < 2:
            msg = f"stratum {name!r} has {len(y)} labelled row{'s' if len(y) != 1 else ''}; each stratum needs 2."
            raise ValueError(msg)
        estimates[name] = ppi_mean(y, f, fu, confidence=confidence)
        sizes[name] = len(y) + len(fu)
    total = sum(sizes.values())
    weights = {name: size / total for name, size in sizes.items()}

    def combined(mean: str, se: str) -> tuple[float, float]:
        value = math.fsum(weights[k] * getattr(e, mean) for k, e in estimates.items())
        return value, math.sqrt(math.fsum((weights[k] * getattr(e, se)) ** 2 for k, e in estimates.items()))

    judged = np.concatenate([np.asarray([*f, *fu], dtype=float) for _, f, fu in strata.values()])
    labels = np.concatenate([np.asarray(list(y), dtype=float) for y, _, _ in strata.values()])
    return _estimate(
        (*combined("mean", "se"), *combined("classical_mean", "classical_se"), float(judged.mean()),
         float(judged.std()) / math.sqrt(judged.size)),
        n=sum(e.n for e in estimates.values()),
        n_unlabelled=sum(e.n_unlabelled for e in estimates.values()),
        lam=math.fsum(weights[k] * e.lam for k, e in estimates.items()),
        rate=None if normal else (_is_rate(labels), _is_rate(judged)),
        confidence=confidence,
    )  # fmt: skip


def expected_width(
    n: int, agreement: float, rate: float, *, unlabelled: int | None = None, confidence: float = 0.95
) -> float:
    """The width to expect of the prediction-powered interval of a rate from ``n`` labels, for a 0/1 judge right on
    a share ``agreement`` of the rows (wrong as often on either label) where the true rate is ``rate``.

    Such a judge's verdict correlates with the truth by ρ, ρ² = (2·agreement − 1)² · rate·(1 − rate) / (q·(1 − q))
    where q is the rate the judge says; with the best λ, se² = rate·(1 − rate)·(1 − ρ²·N/(N + n)) / n (``unlabelled``
    rows N; None: many), against rate·(1 − rate) / n for the labels alone. It says how many labels buy how much
    width; the rows' own interval says what they bought.

    Example (a judge right on 80 % of the rows, a true rate of 0.7; a judge right on half is no help):
        >>> [round(expected_width(n, 0.8, 0.7), 3) for n in (50, 100, 200)], round(expected_width(100, 0.5, 0.7), 3)
        ([0.209, 0.148, 0.105], 0.18)

    Raises:
        ValueError: If ``n`` < 1, or ``agreement`` or ``rate`` is not between 0 and 1.
    """
    if n < 1 or not 0 <= agreement <= 1 or not 0 <= rate <= 1:
        msg = f"n must be >= 1 and agreement and rate between 0 and 1. Got {n}, {agreement}, {rate}."
        raise ValueError(msg)
    variance = rate * (1 - rate)
    said = (1 - agreement) + rate * (2 * agreement - 1)  # the rate the judge says
    rho2 = (2 * agreement - 1) ** 2 * variance / (said * (1 - said)) if 0 < said < 1 else 0.0
    kept = 1.0 if unlabelled is None else unlabelled / (unlabelled + n)
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    return 2 * z * math.sqrt(variance * (1 - rho2 * kept) / n)


def _tuned_lambda(y: np.ndarray, f: np.ndarray, fu: np.ndarray) -> float:
    """PPI++'s λ for a mean (``ppi_py``'s ``_calc_lam_glm`` with an identity Hessian, clipped to [0, 1]): the
    covariance of truth and judge on the labelled rows over (1 + n/N) times the judge's variance on all rows."""
    if fu.size == 0:
        return 0.0
    spread = float(np.var(np.concatenate([f, fu]), ddof=1))
    if spread == 0:  # the judge says the same everywhere: it tells nothing
        return 0.0
    covariance = float(np.mean((y - y.mean()) * (f - f.mean())))
    return float(np.clip(covariance / ((1 + y.size / fu.size) * spread), 0.0, 1.0))


def _se(y: np.ndarray, f: np.ndarray, fu: np.ndarray, lam: float) -> float:
    imputed = lam * float(fu.std()) / math.sqrt(fu.size) if fu.size else 0.0
    rectifier = float((y - lam * f).std()) / math.sqrt(y.size)
    return math.sqrt(imputed**2 + rectifier**2)


def _values(values: Sequence[float], name: str) -> np.ndarray:
    try:
        data = np.asarray([float(v) for v in values], dtype=float)
    except (TypeError, ValueError) as exc:
        msg = f"{name} must be a sequence of numbers. Got {values!r:.80}."
        raise ValueError(msg) from exc
    if not np.all(np.isfinite(data)):
        msg = f"{name} must hold finite numbers only (leave undetermined and error rows out). Got {values!r:.80}."
        raise ValueError(msg)
    return data
