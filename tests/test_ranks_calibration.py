"""P(best) of the hierarchical rank posterior: exact algebra, calibration, degenerate input."""

import warnings

import numpy as np
import pytest

from bayesnoise.data import from_arrays
from bayesnoise.decide import hierarchical_draws, rank_summary, rank_table

BINS = ((0.0, 0.2), (0.2, 0.6), (0.6, 1.01))


def _bin_errors(stated, hit):
    """Per bin: (observed - mean stated) / MCSE, MCSE = sqrt(f (1 - f) / n) with f the mean
    stated P(best): the binomial SE of the observed frequency if the statement is calibrated.
    (The M models of one replicate are negatively dependent, exactly one is best, which only
    makes this SE conservative.)"""
    stated, hit = np.asarray(stated), np.asarray(hit, dtype=float)
    out = []
    for lo, hi in BINS:
        sel = (stated >= lo) & (stated < hi)
        f = stated[sel].mean()
        out.append((hit[sel].mean() - f) / np.sqrt(f * (1 - f) / sel.sum()))
    return np.array(out)


@pytest.mark.slow
def test_hierarchical_posterior_is_calibrated_when_truth_follows_the_prior():
    """Draw the truth from the model's own prior (tau ~ half-Cauchy(s) truncated at 0.5,
    theta ~ N(m0, tau^2)) and the estimates from N(theta, Sigma): a correct posterior is then
    calibrated exactly, so every bin must sit within 3.5 MCSE (a 3-bin family: two-sided
    chance 3 x 4.7e-4 of a false alarm). A posterior without shrinkage, theta ~ N(x, Sigma)
    (what the bootstrap approximates), must fail the same check in the top bin."""
    rng = np.random.default_rng(40)
    m, reps = 6, 1500
    a = rng.standard_normal((m, m))
    sigma = 0.02**2 * (0.5 * np.eye(m) + 0.5 * a @ a.T / m)  # correlated, like paired scores
    chol = np.linalg.cholesky(sigma)
    s = np.sqrt(np.trace(sigma) / m)
    stated, naive, hit = [], [], []
    for _ in range(reps):
        tau = s * np.tan(rng.uniform() * np.arctan(0.5 / s))  # inverse CDF, truncated at 0.5
        theta = 0.6 + tau * rng.standard_normal(m)
        x = theta + chol @ rng.standard_normal(m)
        draws, _ = hierarchical_draws(x, sigma, n_resamples=400, rng=rng)
        stated.extend(rank_summary(draws)["prob_best"])
        plain = x[:, None] + chol @ rng.standard_normal((m, 400))
        naive.extend(rank_summary(plain)["prob_best"])
        hit.extend(np.arange(m) == np.argmax(theta))
    assert np.all(np.abs(_bin_errors(stated, hit)) <= 3.5)
    assert _bin_errors(naive, hit)[-1] < -3.5  # the winner's curse: overconfident leaders


def test_shrinkage_pulls_the_leader_back_and_matches_the_formula():
    """Where tau is pinned by the prior (tau_max tiny), the posterior mean is the closed-form
    m0_hat + tau^2 V^-1 (x - m0_hat), V = Sigma + tau^2 I, m0_hat the GLS mean; MC SE of a
    mean of 20000 draws <= sqrt(tau^2 / 20000), allow 5 of them."""
    x = np.array([0.70, 0.62, 0.60, 0.58])
    sigma = np.diag([0.02, 0.015, 0.02, 0.025]) ** 2
    tau = 0.01
    draws, taus = hierarchical_draws(
        x, sigma, n_resamples=20000, rng=np.random.default_rng(41), tau_max=tau, grid=2
    )
    v_inv = np.linalg.inv(sigma + tau**2 * np.eye(4))
    m0 = v_inv.sum(axis=0) @ x / v_inv.sum()
    expected = m0 + tau**2 * v_inv @ (x - m0)
    assert np.all(taus <= tau)
    # the grid has two nodes (tiny and tau): the mean is a mixture; check against the node
    # weights actually drawn
    w = np.mean(taus == tau)
    mix = w * expected + (1 - w) * m0  # at tau ~ 0 every theta is the common mean
    np.testing.assert_allclose(draws.mean(axis=1), mix, atol=5 * np.sqrt(tau**2 / 20000) + 1e-4)
    assert draws.mean(axis=1)[0] < x[0]  # the leader is shrunk


def test_identical_models_and_two_models():
    rng = np.random.default_rng(42)
    n = 300
    u = rng.beta(2, 2, size=n)
    c = rng.binomial(5, np.stack([u, u, 0.6 * u]))
    c[1] = c[0]  # the same model twice: the covariance is singular
    ds = from_arrays(c, np.full(c.shape, 5), models=["a", "a2", "c"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = rank_table(ds, n_resamples=2000).set_index("model")
    # a and a2 are exchangeable: each best about half the time (MC SE sqrt(.25 / 2000))
    assert abs(df.loc["a", "prob_best"] - 0.5) <= 4 * np.sqrt(0.25 / 2000)
    assert df.loc["c", "prob_best"] == 0 and df.loc["c", "group"] != df.loc["a", "group"]
    two = ds.sel(model=["a", "c"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = rank_table(two, n_resamples=1000)
    assert out["model"].tolist() == ["a", "c"] and out.attrs["about"] == "population"
    assert np.isfinite(out.attrs["tau"])


def _simulate(rng, m, n, k, rho=0.7):
    """Population accuracies theta_m = 0.6 + tau z_m, tau ~ U(0, 0.5 / sqrt(N)); question
    scores u = b^(1 / theta - 1) with b uniform (correlated across models), so E u = theta."""
    from scipy import special

    tau = rng.uniform(0.0, 0.5 / np.sqrt(n))
    theta = 0.6 + tau * rng.standard_normal(m)
    b = special.ndtr(
        rho * rng.standard_normal(n) + np.sqrt(1 - rho**2) * rng.standard_normal((m, n))
    )
    return rng.binomial(k, b ** (1.0 / theta - 1.0)[:, None]), theta


@pytest.mark.slow
def test_rank_table_p_best_is_calibrated_for_the_population():
    """End to end on question-level data (benchmarks/simulation_ranks.py, small): P(best) of
    all models pooled in 3 bins within 3.5 MCSE of how often the model is truly best."""
    rng = np.random.default_rng(43)
    m, n, k, reps = 6, 200, 5, 200
    names = [f"m{j}" for j in range(m)]
    stated, hit = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(reps):
            correct, theta = _simulate(rng, m, n, k)
            ds = from_arrays(correct, np.full((m, n), k), models=names)
            df = rank_table(ds, n_resamples=500, rng=r).set_index("model")
            stated.extend(df.loc[names, "prob_best"])
            hit.extend(np.arange(m) == np.argmax(theta))
    assert np.all(np.abs(_bin_errors(stated, hit)) <= 3.5)
