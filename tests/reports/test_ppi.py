"""The prediction-powered mean (PPI++), checked against ppi-python's own functions on the same numbers and against
hand computations."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

from rageval_lc.reports.ppi import expected_width, ppi_mean, stratified_ppi_mean

#: ppi-python and this module compute the same sums; only their order may differ.
PPI_PY_ABS = 1e-10
#: The normal quantile of a two-sided 95 % interval.
Z = 1.959963984540054

needs_ppi_py = pytest.mark.skipif(
    importlib.util.find_spec("ppi_py") is None, reason="ppi-python is not installed (a test extra)"
)


def _inputs(kind: str, seed: int, n: int = 80, big_n: int = 900) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Labels, the judge on the labelled rows, the judge on the others: three kinds of judge and truth."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n + big_n) < 0.7
    if kind == "verdict":  # a 0/1 judge right on ~80 % of the rows
        judged = np.where(rng.random(n + big_n) < 0.8, truth, ~truth).astype(float)
    elif kind == "probability":  # a judge's probability, informative but not calibrated
        judged = np.clip(0.3 + 0.4 * truth + rng.normal(0, 0.2, n + big_n), 0, 1)
    else:  # a continuous score and its true value
        values = rng.beta(2, 2, n + big_n)
        judged, truth = np.clip(values + rng.normal(0.1, 0.15, n + big_n), 0, 1), values
    truth = truth.astype(float)
    return truth[:n], judged[:n], judged[n:]


@needs_ppi_py
@pytest.mark.parametrize("kind", ["verdict", "probability", "score"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_estimate_and_interval_equal_ppi_python_s(kind: str, seed: int) -> None:
    from ppi_py import classical_mean_ci, ppi_mean_ci, ppi_mean_pointestimate

    y, f, fu = _inputs(kind, seed)
    est = ppi_mean(y, f, fu, normal=True)
    low, high = ppi_mean_ci(y, f, fu, alpha=0.05)
    assert est.mean == pytest.approx(float(ppi_mean_pointestimate(y, f, fu)[0]), abs=PPI_PY_ABS)
    assert (est.ci_low, est.ci_high) == pytest.approx((float(low[0]), float(high[0])), abs=PPI_PY_ABS)
    classical = classical_mean_ci(y, alpha=0.05)
    assert (est.classical_low, est.classical_high) == pytest.approx(tuple(map(float, classical)), abs=PPI_PY_ABS)
    assert est.classical_mean == pytest.approx(float(y.mean()), abs=PPI_PY_ABS)
    assert 0 < est.lam <= 1
    # the default estimate is the same, with the same standard error: only a rate's interval takes Wilson's form
    default = ppi_mean(y, f, fu)
    assert (default.mean - Z * default.se, default.mean + Z * default.se) == pytest.approx(
        (float(low[0]), float(high[0])), abs=PPI_PY_ABS
    )
    assert default.interval == ("normal" if kind == "score" else "wilson")


@needs_ppi_py
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_rate_s_interval_is_wilson_s_at_the_effective_number_of_labels(seed: int) -> None:
    from statsmodels.stats.proportion import proportion_confint  # a dependency of ppi-python

    y, f, fu = _inputs("verdict", seed)
    est = ppi_mean(y, f, fu)
    n_eff = est.mean * (1 - est.mean) / est.se**2
    expected = proportion_confint(est.mean * n_eff, n_eff, alpha=0.05, method="wilson")
    assert (est.ci_low, est.ci_high) == pytest.approx(tuple(map(float, expected)), abs=PPI_PY_ABS)
    labels_only = proportion_confint(int(y.sum()), y.size, alpha=0.05, method="wilson")  # successes of n
    assert (est.classical_low, est.classical_high) == pytest.approx(tuple(map(float, labels_only)), abs=PPI_PY_ABS)
    judged = np.concatenate([f, fu])
    judge = proportion_confint(int(judged.sum()), judged.size, alpha=0.05, method="wilson")
    assert (est.judge_low, est.judge_high) == pytest.approx(tuple(map(float, judge)), abs=PPI_PY_ABS)


@needs_ppi_py
@pytest.mark.parametrize("lam", [0.0, 0.4, 1.0])
def test_a_given_lambda_gives_ppi_python_s_interval_for_it(lam: float) -> None:
    from ppi_py import ppi_mean_ci

    y, f, fu = _inputs("probability", 5, n=40, big_n=300)
    est = ppi_mean(y, f, fu, lam=lam, confidence=0.9, normal=True)
    low, high = ppi_mean_ci(y, f, fu, alpha=0.1, lam=lam)
    assert (est.ci_low, est.ci_high) == pytest.approx((float(low[0]), float(high[0])), abs=PPI_PY_ABS)
    assert est.lam == pytest.approx(lam, abs=PPI_PY_ABS)


def test_the_worked_example_by_hand() -> None:
    # the judge says 1 on the four rows labelled 1 and on one of the four labelled 0; on 8 unlabelled rows 5 times 1.
    # cov(y, f) = 4/8 - 0.5 * 0.625 = 0.1875; the judge over 16 rows: 10 ones, sample variance 16/15 * 0.625 * 0.375
    # = 0.25; λ = 0.1875 / ((1 + 8/8) * 0.25) = 0.375. θ = 0.375 * 0.625 + mean(y - 0.375 f) = 0.5.
    # y - λf: 0.625 four times, -0.375 once, 0 three times: mean 0.265625, mean square 0.212890625, variance
    # 0.142333984375; f unlabelled: variance 0.625 * 0.375 = 0.234375. se² = (0.375² * 0.234375 + 0.142333984375) / 8;
    # classical se² = 0.25 / 8.
    args = ([1, 1, 0, 0, 1, 0, 1, 0], [1, 1, 0, 1, 1, 0, 1, 0], [1, 0, 1, 1, 0, 1, 1, 0])
    est = ppi_mean(*args, normal=True)
    se = math.sqrt((0.375**2 * 0.234375 + 0.142333984375) / 8)
    z = 1.959963984540054
    assert est.lam == pytest.approx(0.375, abs=1e-12)
    assert est.mean == pytest.approx(0.5, abs=1e-12)
    assert (est.ci_low, est.ci_high) == pytest.approx((0.5 - z * se, 0.5 + z * se), abs=1e-12)
    classical_se = math.sqrt(0.25 / 8)
    expected = (0.5 - z * classical_se, 0.5 + z * classical_se)
    assert (est.classical_low, est.classical_high) == pytest.approx(expected, abs=1e-12)
    judge_se = math.sqrt(0.625 * 0.375 / 16)  # the judge's 10 ones of 16, over all 16 rows
    assert (est.judge_mean, est.judge_low, est.judge_high) == pytest.approx(
        (0.625, 0.625 - z * judge_se, 0.625 + z * judge_se), abs=1e-12
    )
    assert est.effective_labels == pytest.approx(8 * classical_se**2 / se**2, abs=1e-9)
    assert (est.n, est.n_unlabelled) == (8, 8)
    # the default, a rate's interval: Wilson's at the effective number of labels m = 0.5 * 0.5 / se²
    rate = ppi_mean(*args)
    m = 0.25 / se**2
    half = z / (1 + z * z / m) * math.sqrt(0.25 / m + z * z / (4 * m * m))  # the centre stays 0.5
    assert (rate.ci_low, rate.ci_high, rate.se) == pytest.approx((0.5 - half, 0.5 + half, se), abs=1e-12)
    assert (rate.classical_low, rate.classical_high) == pytest.approx((0.2152, 0.7848), abs=1e-4)  # Wilson 4 of 8
    assert (rate.judge_low, rate.judge_high) == pytest.approx((0.3864, 0.8152), abs=1e-4)  # Wilson 10 of 16


def test_a_judge_that_says_the_same_everywhere_leaves_the_labels_alone() -> None:
    est = ppi_mean([1, 0, 1, 1], [1, 1, 1, 1], [1] * 10)
    assert est.lam == pytest.approx(0.0, abs=1e-12)
    assert (est.mean, est.ci_low, est.ci_high) == pytest.approx(
        (est.classical_mean, est.classical_low, est.classical_high), abs=1e-12
    )
    assert est.classical_mean == pytest.approx(0.75, abs=1e-12)
    assert est.effective_labels == pytest.approx(4.0, abs=1e-12)


def test_with_every_row_labelled_the_estimate_is_the_labels_mean() -> None:
    est = ppi_mean([1, 0, 1, 1], [1, 0, 0, 1], [])
    assert (est.lam, est.mean, est.n_unlabelled) == (pytest.approx(0.0, abs=1e-12), pytest.approx(0.75, abs=1e-12), 0)
    assert est.ci_high - est.ci_low == pytest.approx(est.classical_high - est.classical_low, abs=1e-12)


@needs_ppi_py
def test_the_interval_is_never_wider_than_the_labels_alone() -> None:
    from ppi_py import ppi_mean_ci

    # the labelled rows' judge scores spread widely and follow the truth loosely (cov 0.05, variance 0.25); the
    # unlabelled ones all say 0.5, so the pooled variance is 2.5 / 209 and PPI++'s λ = 0.05 / (1.05 * 2.5 / 209) is
    # clipped to 1; at λ = 1 the variance is var(y - f) / 10 = 0.04, above the labels' own 0.25 / 10.
    y = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0], dtype=float)
    f = np.array([1, 1, 1, 0, 0, 1, 1, 0, 0, 0], dtype=float)
    fu = np.full(200, 0.5)
    low, high = ppi_mean_ci(y, f, fu, alpha=0.05)
    est = ppi_mean(y, f, fu, normal=True)
    z = 1.959963984540054
    assert float(high[0] - low[0]) == pytest.approx(2 * z * math.sqrt(0.04), abs=1e-9)  # what the guard is for
    assert est.classical_high - est.classical_low == pytest.approx(2 * z * math.sqrt(0.025), abs=1e-12)
    assert est.lam == pytest.approx(0.0, abs=1e-12)
    assert (est.ci_low, est.ci_high) == pytest.approx((est.classical_low, est.classical_high), abs=1e-12)


def test_a_better_judge_buys_more_effective_labels() -> None:
    y, f_good, fu_good = _inputs("verdict", 3)
    rng = np.random.default_rng(103)  # not _inputs' seed: its first draws are the truth
    noise = rng.random(f_good.size + fu_good.size) < 0.5  # a coin: about no agreement
    coin = noise.astype(float)
    weak = ppi_mean(y, coin[: y.size], coin[y.size :])
    good = ppi_mean(y, f_good, fu_good)
    # a judge right on ~80 % at a rate of 0.7: ρ² ≈ 0.32 (expected_width's), 1/(1 - ρ²) ≈ 1.47 times the labels
    assert good.effective_labels > 1.3 * y.size
    assert weak.effective_labels == pytest.approx(y.size, abs=0.1 * y.size)
    assert good.ci_high - good.ci_low < good.classical_high - good.classical_low


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: ppi_mean([1, 0], [1], [0]), "judged_labelled"),
        (lambda: ppi_mean([1], [1], [0]), "at least 2"),
        (lambda: ppi_mean([1, float("nan")], [1, 0], [0]), "labels must hold finite"),
        (lambda: ppi_mean([1, 0], [1, 0], ["x"]), "judged_unlabelled"),
        (lambda: ppi_mean([1, 0], [1, 0], [0], confidence=1.5), "confidence"),
        (lambda: ppi_mean([1, 0], [1, 0], [0], lam=2), "lam"),
        (lambda: expected_width(0, 0.8, 0.5), "n must be"),
    ],
)
def test_bad_input_names_the_field(call, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        call()


def test_expected_width_by_hand() -> None:
    # a judge right on 80 % where the truth rate is 0.7: it says 1 on 0.2 + 0.7 * 0.6 = 0.62 of the rows; ρ² =
    # 0.36 * 0.21 / (0.62 * 0.38); se² = 0.21 * (1 - ρ²) / 100. A judge right on half: ρ = 0, the classical width.
    rho2 = 0.36 * 0.21 / (0.62 * 0.38)
    z = 1.959963984540054
    assert expected_width(100, 0.8, 0.7) == pytest.approx(2 * z * math.sqrt(0.21 * (1 - rho2) / 100), abs=1e-12)
    assert expected_width(100, 0.5, 0.7) == pytest.approx(2 * z * math.sqrt(0.21 / 100), abs=1e-12)
    with_n = expected_width(100, 0.8, 0.7, unlabelled=900)
    assert with_n == pytest.approx(2 * z * math.sqrt(0.21 * (1 - rho2 * 0.9) / 100), abs=1e-12)


def test_expected_width_is_the_width_simulated_draws_give() -> None:
    # 400 draws of 100 labels and 2000 unlabelled rows from a judge right on 80 % at a true rate of 0.7
    rng = np.random.default_rng(11)
    widths = []
    for _ in range(400):
        truth = rng.random(2100) < 0.7
        judged = np.where(rng.random(2100) < 0.8, truth, ~truth).astype(float)
        est = ppi_mean(truth[:100].astype(float), judged[:100], judged[100:])
        widths.append(est.ci_high - est.ci_low)
    assert float(np.mean(widths)) == pytest.approx(expected_width(100, 0.8, 0.7, unlabelled=2000), abs=0.005)


@needs_ppi_py
def test_a_stratified_estimate_weighs_ppi_python_s_per_stratum_figures_by_each_stratum_s_share() -> None:
    from ppi_py import classical_mean_ci, ppi_mean_ci, ppi_mean_pointestimate

    strata = {name: _inputs(kind, seed, n=40, big_n=size) for name, kind, seed, size in
              (("a", "verdict", 7, 860), ("b", "probability", 8, 60), ("c", "verdict", 9, 260))}  # fmt: skip
    est = stratified_ppi_mean(strata, normal=True)
    total = sum(len(y) + len(fu) for y, _, fu in strata.values())
    z = 1.959963984540054
    mean = variance = classical = classical_variance = 0.0
    for y, f, fu in strata.values():
        weight = (len(y) + len(fu)) / total
        low, high = (float(v[0]) for v in ppi_mean_ci(y, f, fu, alpha=0.05))
        mean += weight * float(ppi_mean_pointestimate(y, f, fu)[0])
        variance += (weight * (high - low) / (2 * z)) ** 2
        c_low, c_high = map(float, classical_mean_ci(y, alpha=0.05))
        classical += weight * float(y.mean())
        classical_variance += (weight * (c_high - c_low) / (2 * z)) ** 2
    assert est.mean == pytest.approx(mean, abs=PPI_PY_ABS)
    assert (est.ci_low, est.ci_high) == pytest.approx(
        (mean - z * math.sqrt(variance), mean + z * math.sqrt(variance)), abs=PPI_PY_ABS
    )
    assert est.classical_mean == pytest.approx(classical, abs=PPI_PY_ABS)
    assert est.classical_high - est.classical_low == pytest.approx(2 * z * math.sqrt(classical_variance), abs=1e-9)
    judged = np.concatenate([np.concatenate([f, fu]) for _, f, fu in strata.values()])
    assert est.judge_mean == pytest.approx(float(judged.mean()), abs=PPI_PY_ABS)
    assert (est.n, est.n_unlabelled) == (120, 1180)
    rate = stratified_ppi_mean(strata)  # labels 0/1 in every stratum: Wilson's interval at the effective labels
    m = mean * (1 - mean) / variance
    centre = (mean + Z * Z / (2 * m)) / (1 + Z * Z / m)
    half = Z / (1 + Z * Z / m) * math.sqrt(mean * (1 - mean) / m + Z * Z / (4 * m * m))
    assert (rate.ci_low, rate.ci_high, rate.interval) == (
        pytest.approx(centre - half, abs=PPI_PY_ABS),
        pytest.approx(centre + half, abs=PPI_PY_ABS),
        "wilson",
    )


def test_a_stratum_with_too_few_labels_is_named() -> None:
    with pytest.raises(ValueError, match=r"stratum 'b' has 1 labelled row; each stratum needs 2"):
        stratified_ppi_mean({"a": ([1, 0], [1, 0], [1]), "b": ([1], [1], [0, 1])})
