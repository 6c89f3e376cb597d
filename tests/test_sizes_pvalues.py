"""The pairs table's p_value is the paired t test of the K-averaged differences: exact against
scipy, consistent with paired_test, the SE columns untouched, and of the right size."""

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats

from bayesnoise.data import from_arrays
from bayesnoise.frequentist import (
    pair_noise,
    pair_noise_dataset,
    paired_t_pvalue,
    paired_t_statistic,
    paired_test,
)


def _ds(rng, m=4, n=60, k=5, tie=False):
    u = rng.beta(2.0, 2.0, size=(1, n)) * rng.uniform(0.6, 1.0, size=(m, 1))
    correct = rng.binomial(k, u)
    if tie:
        correct[-1] = correct[0]  # a pair that agrees on every question: no test
    return from_arrays(correct, np.full((m, n), k), models=[f"m{j}" for j in range(m)])


def test_p_value_is_scipy_ttest_rel_for_every_pair():
    rng = np.random.default_rng(30)
    ds = _ds(rng, tie=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the identical pair is flagged
        mat = pair_noise_dataset(ds)
    p = ds["correct"].values / ds["samples"].values
    for a, b in itertools.permutations(range(4), 2):
        ours = float(mat["p_value"][a, b])
        if np.all(p[a] == p[b]):
            assert np.isnan(ours) and np.isnan(float(mat["z"][a, b]))
            continue
        ref = stats.ttest_rel(p[a], p[b])
        assert ours == pytest.approx(ref.pvalue, rel=1e-10)
        t = paired_t_statistic(float(mat["z"][a, b]), 60)
        assert t == pytest.approx(ref.statistic, rel=1e-10)


def test_se_columns_keep_the_ddof0_variance_and_paired_test_agrees():
    rng = np.random.default_rng(31)
    ds = _ds(rng, m=2, n=80, k=4)
    p = ds["correct"].values / ds["samples"].values
    d = p[0] - p[1]
    df = pair_noise(ds)
    # se_difference is sqrt(var_0(d) / N), the all-the-noises convention; only the reference changed
    assert df["se_difference"][0] == pytest.approx(np.std(d) / np.sqrt(80), rel=1e-12)
    assert df["z"][0] == pytest.approx(d.mean() / (np.std(d) / np.sqrt(80)), rel=1e-12)
    res = paired_test(ds, pair=("m0", "m1"), method="t")
    assert res.pvalue == df["p_value"][0]  # one implementation
    assert res.statistic == pytest.approx(df["z"][0] * np.sqrt(79 / 80), rel=1e-12)  # t from z
    assert res.statistic == pytest.approx(stats.ttest_rel(p[0], p[1]).statistic, rel=1e-10)


def test_pvalue_limits():
    # n = 2 has 1 df (Cauchy): P(|t_1| >= 1) = 1/2; NaN z and n < 2 give NaN
    assert float(paired_t_pvalue(np.sqrt(2.0), 2)) == pytest.approx(0.5, rel=1e-12)
    assert np.isnan(paired_t_pvalue(np.nan, 50)) and np.isnan(paired_t_pvalue(1.0, 1))
    # large n: the normal p-value
    z = np.array([0.5, 1.96, 3.0])
    np.testing.assert_allclose(paired_t_pvalue(z, 10**8), 2 * stats.norm.sf(z), rtol=1e-6)


def _null_pvalues(rng, reps, n, k, block=250, rho=0.8):
    """p_value of ``reps`` independent null pairs, ``block`` replicates per pair table: each
    replicate is its own two models (rows 2 r, 2 r + 1) and only pair (2 r, 2 r + 1) is read, so
    the cross pairs of the block are never used."""
    out = []
    for start in range(0, reps, block):
        r = min(block, reps - start)
        theta = rng.normal(0, 1.5, size=(r, 1, n))
        own = rng.normal(0, 1.5 * np.sqrt((1 - rho) / rho), size=(r, 2, n))
        correct = rng.binomial(k, 1 / (1 + np.exp(-(theta + own)))).reshape(2 * r, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mat = pair_noise_dataset(from_arrays(correct, np.full(correct.shape, k)))
        out.append(mat["p_value"].values[np.arange(0, 2 * r, 2), np.arange(1, 2 * r, 2)])
    return np.concatenate(out)


@pytest.mark.slow
@pytest.mark.parametrize("k", [1, 10])
def test_size_at_n100(k):
    """4000 exchangeable null pairs at N = 100 (the small end of the acceptance range)."""
    reps = 4000
    pvalues = _null_pvalues(np.random.default_rng(32 + k), reps, 100, k)
    size = np.mean(pvalues <= 0.05)
    # binomial MC SE at 0.05 with 4000 replicates: 0.0034; 3 SE around the nominal level
    mcse = np.sqrt(0.05 * 0.95 / reps)
    assert abs(size - 0.05) <= 3 * mcse, size
