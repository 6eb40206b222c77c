"""The statistics behind confidence intervals and run comparisons, checked against independent computations."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats

from rageval_lc.reports.stats import bootstrap_ci, paired_comparison, permutation_p_value, wilson_interval
from tests.floats import SAME_DRAWS_ABS

RNG = np.random.default_rng(7)
VALUES = RNG.beta(2, 3, size=60)


def test_bootstrap_ci_is_the_percentile_interval_of_resampled_means():
    low, high = bootstrap_ci(VALUES, n_resamples=500, seed=3)
    rng = np.random.default_rng(3)
    indices = rng.integers(0, VALUES.size, size=(500, VALUES.size))
    means = [float(np.mean([VALUES[j] for j in row])) for row in indices]
    assert (low, high) == pytest.approx(tuple(np.percentile(means, [2.5, 97.5])), abs=SAME_DRAWS_ABS)


def test_bootstrap_ci_agrees_with_scipy_percentile_bootstrap():
    low, high = bootstrap_ci(VALUES, n_resamples=20000, seed=1)
    scipy_ci = scipy_stats.bootstrap(
        (VALUES,), np.mean, n_resamples=20000, method="percentile", random_state=np.random.default_rng(2)
    ).confidence_interval
    assert low == pytest.approx(scipy_ci.low, abs=0.005)
    assert high == pytest.approx(scipy_ci.high, abs=0.005)
    assert low < VALUES.mean() < high


def test_bootstrap_ci_draws_large_runs_in_blocks_with_the_same_result(monkeypatch):
    import rageval_lc.reports.stats as stats

    whole = bootstrap_ci(VALUES, n_resamples=301, seed=4)
    monkeypatch.setattr(stats, "_CHUNK_VALUES", VALUES.size * 7)  # blocks of 7 resamples, the last one of 0.. 6
    assert bootstrap_ci(VALUES, n_resamples=301, seed=4) == pytest.approx(whole, abs=SAME_DRAWS_ABS)


def test_bootstrap_ci_is_seeded_and_checks_its_input():
    assert bootstrap_ci(VALUES, seed=5) == bootstrap_ci(VALUES, seed=5)
    assert bootstrap_ci(VALUES, seed=5) != bootstrap_ci(VALUES, seed=6)
    with pytest.raises(ValueError, match="finite"):
        bootstrap_ci([0.5, float("nan")])
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_ci([0.5], confidence=1.5)


def test_exact_permutation_p_value_matches_scipy():
    a = RNG.uniform(size=10)
    b = a + RNG.normal(0.1, 0.2, size=10)
    expected = scipy_stats.permutation_test(
        (a, b), lambda x, y: np.mean(y - x), permutation_type="samples", n_resamples=np.inf
    ).pvalue
    assert permutation_p_value(b - a, n_resamples=2**10) == pytest.approx(expected, abs=1e-12)


def test_monte_carlo_permutation_p_value_is_close_to_scipy():
    a = RNG.uniform(size=80)
    b = a + RNG.normal(0.03, 0.2, size=80)
    expected = scipy_stats.permutation_test(
        (a, b), lambda x, y: np.mean(y - x), permutation_type="samples", n_resamples=20000, random_state=0
    ).pvalue
    assert permutation_p_value(b - a, n_resamples=20000, seed=1) == pytest.approx(expected, abs=0.02)


def test_paired_comparison_by_hand():
    # differences 0.2, 0.0, 0.2, 0.3: mean 0.175; 3 wins, 1 tie; only the 4 assignments with every non-zero
    # difference of one sign reach |mean| 0.175: p = 4 / 16
    result = paired_comparison([0.5, 0.6, 0.7, 0.2], [0.7, 0.6, 0.9, 0.5])
    assert result.n == 4
    assert (result.mean_a, result.mean_b, result.diff) == pytest.approx((0.5, 0.675, 0.175))
    assert (result.wins, result.ties, result.losses, result.p_value) == (3, 1, 0, 0.25)
    assert result.ci_low <= result.diff <= result.ci_high
    assert set(result.to_dict()) == set("n mean_a mean_b diff ci_low ci_high p_value wins ties losses".split())
    with pytest.raises(ValueError, match="as many"):
        paired_comparison([0.1], [0.1, 0.2])


def test_the_exact_permutation_test_enumerates_in_blocks_and_checks_its_resamples(monkeypatch):
    import rageval_lc.reports.stats as stats

    differences = RNG.normal(0.05, 0.2, size=10)
    whole = permutation_p_value(differences, n_resamples=2**10)  # exact: 1,024 assignments
    monkeypatch.setattr(stats, "_CHUNK_VALUES", 10 * 7)  # 7 assignments a block
    assert permutation_p_value(differences, n_resamples=2**10) == whole
    with pytest.raises(ValueError, match="n_resamples must be >= 1"):
        permutation_p_value(differences, n_resamples=0)


@pytest.mark.parametrize(
    ("successes", "total", "low", "high"),
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)],
)
def test_wilson_interval_matches_newcombe_s_published_values(successes, total, low, high) -> None:
    """Newcombe (1998), "Two-sided confidence intervals for the single proportion", Statistics in Medicine 17,
    Table I, method 3 (the score method without continuity correction), printed to 4 decimals."""
    got = wilson_interval(successes, total)
    assert got[0] == pytest.approx(low, abs=5e-5) and got[1] == pytest.approx(high, abs=5e-5)


def test_wilson_interval_edges_and_bad_counts() -> None:
    assert wilson_interval(0, 0) == (None, None)
    low, high = wilson_interval(10, 10)
    assert high == 1 and low == pytest.approx(1 / (1 + 1.959963984540054**2 / 10), abs=1e-12)  # p=1: n/(n+z²)
    assert wilson_interval(13, 13)[1] == 1 and wilson_interval(0, 10)[0] == 0  # exact, not 0.9999999999999999
    with pytest.raises(TypeError, match="must be ints"):
        wilson_interval(2.5, 3)
    for bad in ((3, 2), (-1, 4), (1, -1)):
        with pytest.raises(ValueError, match="successes must be between 0 and total"):
            wilson_interval(*bad)
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(1, 2, confidence=1.0)
