"""Issue 20 acceptance grid machinery (``studies/grid.py``, ``benchmarks/acceptance_grid.py``).

The 2PL item-response generator's population truths (numerical integration) against brute-force
draws, and the new per-cell measurements (paired t interval, power ratio, median width ratio,
p-value sizes) against scipy or repeated simulation. Fast: seconds.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from studies import grid

DRAWS = 1_000_000


@pytest.mark.parametrize("mu", [0.5, 0.9])
def test_twopl_truth_matches_brute_force_draws(mu):
    d = grid.TwoPL(mu)
    rng = np.random.default_rng(11)
    u = d.triplet(rng, 1, DRAWS)[:, 0]  # (A, B_null, B_shift) on 10^6 questions
    a, b_null, b_shift = u
    # means: MCSE = sd(u) / sqrt(n); 4 MCSE (two-sided, ~6e-5 false-alarm rate per check)
    for x, truth in ((a, mu), (b_null, mu), (b_shift, grid.shifted_mu(mu))):
        assert abs(x.mean() - truth) < 4 * x.std() / np.sqrt(DRAWS)
    assert abs(d.mean - mu) < 1e-9  # theta solved to xtol 1e-12
    # variance: MCSE sqrt((m4 - var^2) / n) with m4 the sample 4th central moment
    m4 = ((a - a.mean()) ** 4).mean()
    assert abs(a.var() - d.var) < 4 * np.sqrt((m4 - a.var() ** 2) / DRAWS)
    # correlation of two null models: SE ~ (1 - rho^2) / sqrt(n) = 3.6e-4 (normal theory; the
    # u are bounded and not normal, so 6 SE)
    r = np.corrcoef(a, b_null)[0, 1]
    assert abs(d.corr - grid.TARGET_RHO) < 1e-6
    assert abs(r - d.corr) < 6 * (1 - d.corr**2) / np.sqrt(DRAWS)


def test_twopl_cell_has_acceptance_columns():
    res = grid.simulate_cell(
        "2pl", 30, 5, 0.9, 1.0, replicates=12, seed=0, parts=("pairs", "pvalues")
    )
    row = res.row()
    assert row["kappa_implied"] > 0 and row["s_eps"] > 0
    for name in ("width_ratio_pop_diff_null", "width_ratio_pop_diff_freq_shift"):
        assert np.isfinite(row[name]) and row[name] > 0
    for name in ("power_paired_t", "power_pop_diff", "power_pop_diff_freq"):
        assert 0 <= row[name] <= 1
    for name in grid.PVALUES:
        assert f"size_{name}" in row and f"size_{name}_missing" in row
    assert row["size_p_value_missing"] == 0


def test_paired_t_matches_scipy():
    rng = np.random.default_rng(3)
    k = 5
    ca, cb = rng.binomial(k, rng.beta(1, 1, (2, 6, 40)))
    lo, hi, p = grid._paired_t(ca, cb, k)
    for i in range(6):
        res = stats.ttest_rel(ca[i] / k, cb[i] / k)
        ci = res.confidence_interval(0.95)
        np.testing.assert_allclose([lo[i], hi[i], p[i]], [ci.low, ci.high, res.pvalue], rtol=1e-10)


def test_power_ratio_mcse_matches_repeated_sampling():
    """Delta-method MCSE of mean(x)/mean(y) vs the sd of the ratio over 2,000 repeats.

    Correlated indicators (x = 1 implies y = 1 half the time): the covariance term matters. The
    sd over 2,000 repeats has relative SE ~ 1/sqrt(2 * 2000) = 1.6%; 10% tolerance covers that
    and the delta method's own O(1/R) error at R = 400.
    """
    rng = np.random.default_rng(5)
    r, reps = 400, 2000
    y = rng.random((reps, r)) < 0.6
    x = np.where(rng.random((reps, r)) < 0.8, y, rng.random((reps, r)) < 0.5)
    ratios = x.mean(axis=1) / y.mean(axis=1)
    predicted = np.mean([grid._ratio_se(x[i], y[i])[1] for i in range(200)])
    assert abs(predicted / ratios.std() - 1) < 0.10


def test_median_ratio_mcse_matches_repeated_sampling():
    """Bootstrap MCSE of a median vs its sd over 1,000 repeats (relative SE of that sd ~2.2%;
    the bootstrap sd of a median is itself noisy at R = 400, so 20% averaged over 30 runs)."""
    rng = np.random.default_rng(6)
    r = 400
    w = rng.lognormal(0.1, 0.2, (1000, r))
    ref = np.ones(r)
    meds = np.median(w, axis=1)
    boot = np.mean([grid._median_ratio(w[i], ref, boot=200)[1] for i in range(30)])
    assert abs(grid._median_ratio(w[0], ref)[0] - meds[0]) < 1e-12
    assert abs(boot / meds.std() - 1) < 0.20


def test_null_sizes_count_nan_as_missing():
    # identical models on every question: d_i = 0, the package's p-values are NaN or 1
    c = np.full((3, 30), 2)
    size, missing = grid._null_sizes(c, c, 4, np.arange(10))
    assert set(size) == set(grid.PVALUES)
    for name in grid.PVALUES:
        p, _se = size[name]
        assert missing[name] == 3 or p == 0.0
