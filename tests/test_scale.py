"""The fast all-pairs paths equal the slow ones: exact quantities to 1e-10, Monte Carlo ones
within their Monte Carlo error (tolerances derived in the comments)."""

import warnings

import numpy as np
import pytest
from scipy import stats

import bayesnoise as bn
from bayesnoise.conjugate import (
    finite_sample_moments,
    fit_empirical_bayes,
    integrated_moments,
    population_difference,
    posterior_pairs_table,
    posterior_table,
    question_posteriors,
)
from bayesnoise.conjugate.beta import beta_central_moments
from bayesnoise.conjugate.expansion import cornish_fisher, edgeworth_sf
from bayesnoise.conjugate.hyper import hyper_draws
from bayesnoise.conjugate.likelihood import group_cells, model_cells
from bayesnoise.conjugate.pairs import _dirichlet_cumulants, _power_grams
from bayesnoise.conjugate.ubar import (
    _exact_draws,
    conditional_cumulants,
    k_group_sums,
    ubar_cumulants,
)
from bayesnoise.data import beta_binomial_counts
from bayesnoise.frequentist._core import _gram, model_components


def _counts(seed, m=4, n=60):
    rng = np.random.default_rng(seed)
    k = rng.choice([1, 3, 10, 200], size=(m, n))
    c = rng.binomial(k, rng.beta(1.5, 1.0, (m, n)))
    return c, k


def test_conditional_cumulants_are_exact():
    """Sums of the per-question Beta cumulants (direct, per question) to rounding."""
    c, k = _counts(0)
    mu, kappa = np.array([[0.3, 0.8]] * 4), np.array([[0.5, 40.0]] * 4)
    cum = conditional_cumulants(k_group_sums(c, k, k > 0), mu, kappa)
    for j in range(2):
        a, b = question_posteriors(c, k, mu[:, j], kappa[:, j])
        m1, m2, m3, m4 = beta_central_moments(a, b)
        n = c.shape[1]
        direct = [m1.sum(1) / n, m2.sum(1) / n**2, m3.sum(1) / n**3, (m4 - 3 * m2**2).sum(1) / n**4]
        np.testing.assert_allclose(cum[:, :, j], direct, rtol=1e-9, atol=1e-16)
        mom = finite_sample_moments(a, b)
        np.testing.assert_allclose(cum[1, :, j], mom.ubar_var, rtol=1e-10)


def test_ubar_cumulants_match_integrated_moments():
    c, k = _counts(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fit_empirical_bayes(c, k)
    cum = ubar_cumulants(k_group_sums(c, k, k > 0), fit)
    mom = integrated_moments(c, k, fit)
    np.testing.assert_allclose(cum[0], mom.ubar_mean, rtol=1e-10)
    np.testing.assert_allclose(cum[1], mom.ubar_var, rtol=1e-10)


def test_model_cells_hold_the_same_cells_as_group_cells():
    c, k = _counts(2)
    cu, ku, w = group_cells(c, k, k > 0)
    mc, mk, mw = model_cells(c, k, k > 0)
    for m in range(c.shape[0]):
        dense = {(a, b): x for a, b, x in zip(cu, ku, w[m], strict=True) if x > 0}
        compact = {(a, b): x for a, b, x in zip(mc[m], mk[m], mw[m], strict=True) if x > 0}
        assert dense == compact


def test_dirichlet_cumulants_exact():
    """Gram-product cumulants = per-pair Gamma-representation cumulants, to rounding."""
    rng = np.random.default_rng(3)
    p = rng.binomial(5, rng.beta(2, 2, (3, 40))) / 5
    mean, k2, k3, k4 = _dirichlet_cumulants(_power_grams(p), 40, 1.0)
    d = np.concatenate([p[0] - p[2], [-1.0, 1.0]])
    alpha = np.concatenate([np.ones(40), [0.5, 0.5]])
    t = alpha.sum()
    e = d - (alpha * d).sum() / t
    c2, c3, c4 = ((alpha * e**r).sum() for r in (2, 3, 4))
    mu2 = c2 / (t * (t + 1))
    mu3 = 2 * c3 / (t * (t + 1) * (t + 2))
    mu4 = (6 * c4 + 3 * c2**2) / (t * (t + 1) * (t + 2) * (t + 3))
    np.testing.assert_allclose(
        [mean[0, 2], k2[0, 2], k3[0, 2], k4[0, 2]],
        [(alpha * d).sum() / t, mu2, mu3, mu4 - 3 * mu2**2],
        rtol=1e-9,
    )


def test_dirichlet_cumulants_against_draws():
    """Skewness of the Dirichlet mean from 200,000 draws: within 5 MC standard errors
    (the sd of a sample skewness is about sqrt(6 / D))."""
    rng = np.random.default_rng(4)
    p = (rng.random((2, 50)) < 0.2).astype(float)
    p[1] = 0.0
    _, k2, k3, _ = _dirichlet_cumulants(_power_grams(p), 50, 1.0)
    draws = 200_000
    wts = rng.dirichlet(np.concatenate([np.ones(50), [0.5, 0.5]]), size=draws)
    delta = wts @ np.concatenate([p[0] - p[1], [-1.0, 1.0]])
    assert abs(stats.skew(delta) - k3[0, 1] / k2[0, 1] ** 1.5) < 5 * np.sqrt(6 / draws)


def test_expansions_on_a_gamma():
    """Cornish-Fisher / Edgeworth on Gamma(16) (skewness 0.5): quantile within 0.01 sd and
    tail probability within 0.002 of the exact values (the Cornish-Fisher error bound at this
    shape is a few thousandths of an sd)."""
    shape_ = 16.0
    mean, sd, g1, g2 = shape_, 4.0, 2 / 4.0, 6 / shape_
    exact = stats.gamma.ppf(0.975, shape_)
    assert abs(cornish_fisher(mean, sd, g1, g2, 0.975) - exact) < 0.01 * sd
    assert abs(edgeworth_sf(20.0, mean, sd, g1, g2) - stats.gamma.sf(20.0, shape_)) < 0.002


def test_binary_gram_float32_is_exact():
    rng = np.random.default_rng(5)
    p = (rng.random((7, 9000)) < 0.4).astype(float)
    np.testing.assert_array_equal(_gram(p), p @ p.T)
    q = rng.random((5, 9000))
    np.testing.assert_allclose(_gram(q), q @ q.T, rtol=1e-12)


def test_model_components_blocked_equal_direct():
    rng = np.random.default_rng(6)
    k = rng.integers(0, 6, (3, 20_000))
    p = np.where(k > 0, rng.binomial(np.maximum(k, 1), 0.6) / np.maximum(k, 1), np.nan)
    comps = model_components(p, None, k)
    ok = k > 0
    for m in range(3):
        x = p[m, ok[m]]
        assert abs(comps["var_mean"][m] - x.var()) < 1e-12
        assert abs(comps["mean_w"][m] - (x * (1 - x)).mean()) < 1e-12


def _reference_pairs(c, k, fit, models, draws, rng):
    """The slow path: one Beta per question and draw, (mu, kappa) from their posterior."""
    mu, kap = hyper_draws(fit, draws, rng)
    return np.array([_exact_draws(c[m], k[m], k[m] > 0, mu[m], kap[m], rng) for m in models])


@pytest.mark.shared_data
@pytest.mark.slow
@pytest.mark.parametrize(
    ("rel", "n_models"),
    [
        ("all-the-noises/main/input_table_humaneval.csv", 14),
        ("all-the-noises/highk_temp0.7/input_table_math500_cot.csv", 8),
    ],
)
def test_pairs_fast_equal_slow(shared_data, rel, n_models):
    """New all-pairs table against the slow Monte Carlo reference (exact per-question Beta
    draws; Dirichlet weights for the population) on a subset of models.

    Tolerances: a quantile from D draws has MC sd sqrt(q (1 - q) / D) / f(x_q); for a near
    normal f(x_q) = phi(1.96) / sd, i.e. 0.0846 sd * sqrt(1000 / D). We allow 5 of those plus
    0.03 sd for the expansions (their error bound at the shape limits). A probability from D
    draws has MC sd sqrt(p (1 - p) / D); we allow 5 of those plus 0.005.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = bn.load(shared_data / rel)
        # the reference draws are the Beta posterior's: at K = 1 the default is the kappa-free
        # binomial bound (tested against statsmodels' Jeffreys interval in test_k1_ubar.py)
        new = posterior_pairs_table(ds, progress=False, ubar_prior="beta")
        c, k = beta_binomial_counts(ds)
        fit = fit_empirical_bayes(c, k)
    rng = np.random.default_rng(11)
    models = np.sort(rng.choice(c.shape[0], n_models, replace=False))
    draws = 8000
    u = _reference_pairs(c, k, fit, models, draws, rng)
    q_sd = 0.0846 * np.sqrt(1000 / draws)
    p = c / k
    wts = rng.dirichlet(np.concatenate([np.ones(p.shape[1]), [0.5, 0.5]]), size=draws)
    names = list(ds["model"].values)
    for i, a in enumerate(models):
        for j, b in enumerate(models[i + 1 :], start=i + 1):
            row = new[(new.model_a == names[a]) & (new.model_b == names[b])].iloc[0]
            d = u[i] - u[j]
            pop = wts @ np.concatenate([p[a] - p[b], [-1.0, 1.0]])
            for x, pre, pcol in ((d, "dbar", "prob_a_better"), (pop, "mu_difference", "")):
                sd = x.std()
                lo, hi = np.quantile(x, [0.025, 0.975])
                tol = (5 * q_sd + 0.03) * sd
                assert abs(row[f"{pre}_low"] - lo) < tol, (names[a], names[b], pre)
                assert abs(row[f"{pre}_high"] - hi) < tol, (names[a], names[b], pre)
                pr = (x > 0).mean()
                col = pcol or "prob_a_better_population"
                assert abs(row[col] - pr) < 5 * np.sqrt(pr * (1 - pr) / draws) + 0.005


@pytest.mark.shared_data
def test_posterior_table_intervals_within_mc_error(shared_data):
    """Per-model ubar intervals against 20,000 exact draws: within 5 combined MC sd (the
    table's 1,000 draws dominate: 0.0846 sd each end, see above)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = bn.load(shared_data / "all-the-noises/main/input_table_humaneval.csv")
        # Beta posterior reference: ubar_prior="beta" (the K = 1 default is the binomial bound)
        df = posterior_table(ds, progress=False, ubar_prior="beta")
        c, k = beta_binomial_counts(ds)
        fit = fit_empirical_bayes(c, k)
    rng = np.random.default_rng(12)
    models = np.arange(0, c.shape[0], 6)
    u = _reference_pairs(c, k, fit, models, 20_000, rng)
    tol_q = 5 * 0.0846 * np.sqrt(1 + 1000 / 20_000)
    for i, m in enumerate(models):
        lo, hi = np.quantile(u[i], [0.025, 0.975])
        sd = u[i].std()
        assert abs(df["ubar_low"][m] - lo) < tol_q * sd
        assert abs(df["ubar_high"][m] - hi) < tol_q * sd
        assert abs(df["ubar"][m] - u[i].mean()) < 5 * sd / np.sqrt(20_000)


def test_population_difference_twins_use_draws():
    """Pairs too skewed for the expansion (2 discordant questions) get Monte Carlo: the
    interval still contains 0 and P(delta > 0) is 1/2 by symmetry (within MC error)."""
    p = np.zeros((2, 300))
    p[0, :1], p[1, 1:2] = 1.0, 1.0
    out = population_difference(p, n_resamples=4000, rng=0)
    assert out["low"][0, 1] < 0 < out["high"][0, 1]
    assert abs(out["prob_a_better"][0, 1] - 0.5) < 5 * np.sqrt(0.25 / 4000)


def test_progress_goes_to_stderr(capsys):
    from bayesnoise._progress import Progress

    bar = Progress("x", delay=0.0)
    bar.step("fit")
    bar.close()
    captured = capsys.readouterr()
    assert captured.out == "" and "x: fit" in captured.err
    quiet = Progress("x", enabled=False, delay=0.0)
    quiet.step("fit")
    assert capsys.readouterr().err == ""
