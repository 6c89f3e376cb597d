"""Simultaneous intervals for all pair differences: critical values and family-wise coverage."""

import warnings

import numpy as np
import pytest
from scipy import stats

from bayesnoise.data import from_arrays
from bayesnoise.decide import max_abs_t_draws, simultaneous_intervals
from bayesnoise.frequentist import pair_noise


def _ds(rng, m=4, n=300, k=5):
    u = rng.beta(1, 1, size=(1, n)) * rng.uniform(0.6, 1.0, size=(m, 1))
    return from_arrays(rng.binomial(k, u), np.full((m, n), k))


def test_one_pair_critical_value_is_the_t_quantile():
    rng = np.random.default_rng(20)
    ds = _ds(rng, m=2)  # N = 300 questions
    out = simultaneous_intervals(ds, n_resamples=200_000, rng=1)
    # one pair: max |T| = |T|, Student t with N - 1 df; 4 Monte Carlo SEs of the quantile
    t975 = stats.t.ppf(0.975, 299)
    assert out.attrs["critical_value"] == pytest.approx(
        t975, abs=4 * out.attrs["critical_value_mcse"]
    )
    assert out.attrs["bonferroni_critical_value"] == pytest.approx(t975, rel=1e-12)
    assert out.attrs["df"] == 299 and out.attrs["se_scale"] == pytest.approx(np.sqrt(300 / 299))


def test_max_t_critical_value_is_tukeys_for_independent_equal_models():
    # M independent equal-variance means: max_j |Z_j| over all pairs is the studentized range
    # (infinite df) over sqrt(2), Tukey's all-pairs critical value
    for m in (3, 5):
        t = max_abs_t_draws(np.eye(m), n_resamples=100_000, rng=np.random.default_rng(21 + m))
        tukey = stats.studentized_range.ppf(0.95, m, np.inf) / np.sqrt(2)
        # compare coverages: P(max <= Tukey) = 0.95 up to the binomial MC SE (6.9e-4); 4 SEs
        assert np.mean(t <= tukey) == pytest.approx(0.95, abs=4 * np.sqrt(0.95 * 0.05 / 100_000))


def test_intervals_bonferroni_and_pvalues():
    rng = np.random.default_rng(22)
    ds = _ds(rng, m=5)
    maxt = simultaneous_intervals(ds, n_resamples=50_000)
    bonf = simultaneous_intervals(ds, method="bonferroni")
    pairs = pair_noise(ds, adjust="bonferroni")
    assert maxt.attrs["family_size"] == 10
    c_b = stats.t.ppf(1 - 0.05 / 20, 299)  # N = 300 questions, t scale
    assert bonf.attrs["critical_value"] == pytest.approx(c_b, rel=1e-12)
    np.testing.assert_allclose(  # half-width c se_t, se_t the ddof-1 SE
        bonf["simultaneous_high"] - bonf["difference"],
        c_b * np.sqrt(300 / 299) * bonf["se_difference"],
    )
    np.testing.assert_allclose(bonf["p_value_simultaneous"], pairs["p_value_adjusted"], rtol=1e-12)
    # max-T uses the correlation: narrower than Bonferroni, wider than one interval
    assert 1.96 < maxt.attrs["critical_value"] < c_b
    # single-step max-T p < 0.05 exactly when the interval excludes 0 (up to MC ties)
    excludes = (maxt["simultaneous_low"] > 0) | (maxt["simultaneous_high"] < 0)
    np.testing.assert_array_equal(excludes, maxt["p_value_simultaneous"] < 0.05)


def test_family_wise_coverage_in_simulation():
    """Five correlated models of known population accuracies, 300 replicates at N = 300, K = 4."""
    rng = np.random.default_rng(23)
    reps, n, m = 300, 300, 5
    shifts = np.array([0.0, 0.0, 0.1, 0.2, 0.4])
    pop_theta = rng.normal(0, 1.5, size=200_000)
    pop = 1 / (1 + np.exp(-(pop_theta + rng.normal(0, 0.75, size=(m, 200_000)) + shifts[:, None])))
    truth = pop.mean(axis=1)  # MC SE of the truth < 1e-3, far below the SEs (~0.015)
    ia, ib = np.triu_indices(m, k=1)
    misses = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(reps):
            idx = rng.integers(0, pop.shape[1], size=n)
            ds = from_arrays(rng.binomial(4, pop[:, idx]), np.full((m, n), 4))
            # 5,000 resamples of max-|T| per replicate (0.008 s; 20,000 took 0.045 s): a
            # critical value estimated from them moves the family's coverage by sd
            # sqrt(0.95 x 0.05 / 5000) = 0.003 per replicate, independent across replicates,
            # so the average over 300 replicates keeps the binomial MCSE below
            out = simultaneous_intervals(ds, n_resamples=5_000, rng=r)
            d = truth[ia] - truth[ib]
            misses += bool(np.any((out["simultaneous_low"] > d) | (out["simultaneous_high"] < d)))
    # family-wise coverage 95% (max-|T| is exact in the limit, not conservative): two-sided,
    # 3 binomial Monte Carlo SEs (0.0126 at 300 replicates): [0.912, 0.988]; measured 0.947
    assert abs(1 - misses / reps - 0.95) <= 3 * np.sqrt(0.95 * 0.05 / reps), misses
