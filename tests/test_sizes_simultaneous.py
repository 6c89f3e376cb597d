"""Studentized max-|T| for simultaneous intervals: the Wishart shortcut against brute force, the
one-pair case against scipy's paired t test, and family-wise coverage in simulation."""

import warnings

import numpy as np
import pytest
from scipy import stats

from bayesnoise.data import from_arrays
from bayesnoise.decide import max_abs_t_draws, simultaneous_intervals
from bayesnoise.frequentist import pair_noise


def _brute_max_t(cov, n, reps, rng):
    """max over pairs of |paired t| (ddof 1) from ``reps`` samples of n normal question vectors
    with covariance ``cov``: what max_abs_t_draws(cov / n, df=n - 1) draws without Wishart."""
    m = cov.shape[0]
    x = rng.multivariate_normal(np.zeros(m), cov, size=(reps, n), method="eigh")
    ia, ib = np.triu_indices(m, k=1)
    d = x[..., ia] - x[..., ib]  # (reps, n, pairs)
    t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(n))
    return np.max(np.abs(t), axis=1)


@pytest.mark.parametrize("variance", ["wishart", "shared"])
@pytest.mark.parametrize("df", [3, 30])
def test_one_pair_draws_are_student_t(df, variance):
    rng = np.random.default_rng(40)
    draws = max_abs_t_draws(np.eye(2), n_resamples=100_000, rng=rng, df=df, variance=variance)
    # P(|T| <= t_{0.975, df}) = 0.95 up to the binomial MC SE (6.9e-4); 4 SEs
    q = stats.t.ppf(0.975, df)
    assert np.mean(draws <= q) == pytest.approx(0.95, abs=4 * np.sqrt(0.95 * 0.05 / 100_000))


@pytest.mark.parametrize(("m", "n"), [(4, 12), (5, 4)])  # (5, 4): df = 3 < M, singular Wishart
def test_wishart_draws_match_brute_force_normal_samples(m, n):
    rng = np.random.default_rng(41 + m)
    a = rng.normal(size=(m, m))
    cov = a @ a.T + np.outer(np.ones(m), np.ones(m))  # correlated models, shared component
    draws = max_abs_t_draws(cov / n, n_resamples=200_000, rng=rng, df=n - 1)
    c = np.quantile(draws, 0.95)
    brute = _brute_max_t(cov, n, 20_000, rng)
    # P(brute <= c) = 0.95: binomial SE of 20,000 brute replicates (0.0015) plus the spread of
    # the coverage of c from 200,000 draws (0.0005); 4 combined SEs
    se = np.sqrt(0.95 * 0.05 / 20_000 + 0.95 * 0.05 / 200_000)
    assert np.mean(brute <= c) == pytest.approx(0.95, abs=4 * se)


def test_one_pair_intervals_are_scipy_paired_t_intervals():
    rng = np.random.default_rng(42)
    u = rng.beta(2, 2, size=(1, 150)) * np.array([[1.0], [0.9]])
    ds = from_arrays(rng.binomial(6, u), np.full((2, 150), 6))
    p = ds["correct"].values / ds["samples"].values
    ref = stats.ttest_rel(p[0], p[1])
    ci = ref.confidence_interval(0.95)
    bonf = simultaneous_intervals(ds, method="bonferroni")  # family of one: exact
    assert bonf["simultaneous_low"][0] == pytest.approx(ci.low, rel=1e-10)
    assert bonf["simultaneous_high"][0] == pytest.approx(ci.high, rel=1e-10)
    assert bonf["p_value_simultaneous"][0] == pytest.approx(ref.pvalue, rel=1e-10)
    assert bonf["p_value_simultaneous"][0] == pair_noise(ds)["p_value"][0]
    maxt = simultaneous_intervals(ds, n_resamples=200_000)
    # the Monte Carlo c moves each limit by at most 4 of its MC SEs times se_t
    se_t = (ci.high - ci.low) / (2 * stats.t.ppf(0.975, 149))
    tol = 4 * maxt.attrs["critical_value_mcse"] * se_t
    assert maxt["simultaneous_low"][0] == pytest.approx(ci.low, abs=tol)
    assert maxt["simultaneous_high"][0] == pytest.approx(ci.high, abs=tol)


def _family_misses(rng, reps, n, k):
    """Family-wise non-coverage of the max-|T| intervals for 5 correlated models of known
    population means, and of the normal reference on the ddof-0 SE (what they used before)."""
    m = 5
    shifts = np.array([0.0, 0.0, 0.0, 0.3, 0.6])
    theta = rng.normal(0, 1.5, size=400_000)
    pop = 1 / (1 + np.exp(-(theta + rng.normal(0, 0.75, size=(m, theta.size)) + shifts[:, None])))
    truth = pop.mean(axis=1)  # MC SE < 1e-3, far below the SEs of the differences (~0.03)
    ia, ib = np.triu_indices(m, k=1)
    delta = truth[ia] - truth[ib]
    misses = {"studentized": 0, "normal": 0}
    for r in range(reps):
        idx = rng.integers(0, theta.size, size=n)
        ds = from_arrays(rng.binomial(k, pop[:, idx]), np.full((m, n), k))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = simultaneous_intervals(ds, n_resamples=4000, rng=r)
        low, high = out["simultaneous_low"].to_numpy(), out["simultaneous_high"].to_numpy()
        misses["studentized"] += bool(np.any((low > delta) | (high < delta)))
        p = ds["correct"].values / ds["samples"].values
        normal = max_abs_t_draws(
            np.cov(p, ddof=0) / n, n_resamples=4000, rng=np.random.default_rng(r)
        )
        c = np.quantile(normal, 0.95)
        error = np.abs(out["difference"].to_numpy() - delta)
        misses["normal"] += bool(np.any(error > c * out["se_difference"].to_numpy()))
    return misses


@pytest.mark.slow
def test_family_wise_coverage_at_small_n():
    """600 replicates at N = 40, K = 10: the studentized max-|T| holds its 95%, the normal one
    on the ddof-0 SE misses more often (same replicates)."""
    reps = 600
    misses = _family_misses(np.random.default_rng(43), reps, 40, 10)
    mcse = np.sqrt(0.05 * 0.95 / reps)  # 0.0089
    # two-sided: within 3 binomial Monte Carlo SEs of 5% either way, [0.023, 0.077]; measured
    # 0.060 (36 of 600)
    assert abs(misses["studentized"] / reps - 0.05) <= 3 * mcse, misses
    assert misses["normal"] > misses["studentized"], misses


def test_auto_variance_switches_to_shared_for_large_families():
    """Wishart while M^2 min(M, N - 1) n_draws <= 2e9, else the multivariate t; both are
    recorded, and the shared critical value lies between the normal max-|Z| and Bonferroni."""
    rng = np.random.default_rng(44)
    u = rng.beta(1, 1, size=(1, 60))
    small = from_arrays(rng.binomial(1, u.repeat(4, axis=0)), np.ones((4, 60), int))
    assert simultaneous_intervals(small, n_resamples=2000).attrs["variance"] == "wishart"
    big = from_arrays(rng.binomial(1, u.repeat(40, axis=0)), np.ones((40, 60), int))
    assert simultaneous_intervals(big, n_resamples=2000).attrs["variance"] == "wishart"
    out = simultaneous_intervals(big, n_resamples=40_000)  # 40^2 * 40 * 40,000 = 2.6e9 > 2e9
    assert out.attrs["variance"] == "shared"
    assert out.attrs["critical_value"] < out.attrs["bonferroni_critical_value"]
    with pytest.raises(ValueError, match="variance"):
        simultaneous_intervals(big, n_resamples=100, variance="exact")
