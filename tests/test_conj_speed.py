"""The fast Beta-Binomial likelihood (dense sums + asymptotic series) against independent
evaluations, and the empirical-Bayes fit on it against the fit on scipy's special functions.

Tolerances are floating-point bounds: a result that is a signed sum of computed quantities,
each with a relative error of a few eps, is off by at most ``C eps sum |quantities|``; C = 64
covers 4 ulps per special function plus the rounding of the sums (depth log2 of ~2,000 terms).
"""

import importlib

import numpy as np
import pytest
from _beta_binomial_reference import marginal_loglik
from scipy import special, stats

from bayesnoise.conjugate import fit_empirical_bayes
from bayesnoise.conjugate.likelihood import model_cells
from bayesnoise.conjugate.rising import SERIES_FROM, count_terms, terms_loglik

EPS = np.finfo(float).eps
C = 64


def _cells(seed):
    """Per-model cells with K = 1, 7, 40 and 1100 (ragged within models too)."""
    rng = np.random.default_rng(seed)
    k = rng.choice([1, 7, 40, 1100], size=(6, 300))
    k[0] = 1  # a K = 1 model: only dense sums
    k[1] = 1100  # a K ~ 1000 model: almost only series
    c = rng.binomial(k, rng.beta(0.7, 0.9, k.shape))
    return model_cells(c, k, k > 0)


def _points(n_models):
    """(eta, lam, row) over the support of the fit: kappa 1e-2..1e4, mu 3e-4..0.9997."""
    eta, lam = np.meshgrid(np.linspace(-8, 8, 7), np.linspace(np.log(1e-2), np.log(1e4), 9))
    rows = np.repeat(np.arange(n_models), eta.size)
    return np.tile(eta.ravel(), n_models), np.tile(lam.ravel(), n_models), rows


def _magnitudes(eta, lam, cu, ku, w):
    """sum over cells of |log Gamma|, |digamma|, trigamma at every argument the sums use."""
    m = special.expit(eta)[:, None]
    kap = np.exp(lam)[:, None]
    a, b = m * kap, (1 - m) * kap
    args = [(a + cu, a), (b + ku - cu, b), (kap + ku, kap)]
    out = []
    for f in (special.gammaln, special.digamma, lambda z: special.polygamma(1, z)):
        out.append(sum((w * (np.abs(f(y)) + np.abs(f(x)))).sum(axis=1) for y, x in args))
    return out, kap[:, 0] * (m * (1 - m))[:, 0]


def test_loglik_matches_betabinom():
    # independent: scipy.stats.betabinom.logpmf minus the log binomial coefficient
    cu, ku, w = _cells(0)
    eta, lam, rows = _points(cu.shape[0])
    ll = terms_loglik(eta, lam, count_terms(cu, ku, w), rows, derivatives=False)
    m, kap = special.expit(eta)[:, None], np.exp(lam)[:, None]
    c, k, wt = cu[rows], ku[rows], w[rows]
    log_binom = special.gammaln(k + 1) - special.gammaln(c + 1) - special.gammaln(k - c + 1)
    pmf = stats.betabinom.logpmf(c, k, m * kap, (1 - m) * kap) - log_binom
    ref = (wt * pmf).sum(axis=1)
    (mag, _, _), _ = _magnitudes(eta, lam, c, k, wt)
    # betabinom itself is computed from betaln: the bound covers both evaluations (the log
    # binomial coefficient adds sum w |log Gamma(K + 1)| <= mag)
    assert np.all(np.abs(ll - ref) <= 3 * C * EPS * mag)


def test_derivatives_match_marginal_loglik():
    # independent: digamma / polygamma of scipy on the full (a, b) gradient and Hessian
    cu, ku, w = _cells(1)
    eta, lam, rows = _points(cu.shape[0])
    prior = (1.0, 1.0)
    ll, g, h = terms_loglik(eta, lam, count_terms(cu, ku, w), rows, prior)
    c, k, wt = (x[rows].astype(float) for x in (cu, ku, w))
    ref = marginal_loglik(eta, lam, c, k, wt, prior)
    (mag0, mag1, mag2), ks = _magnitudes(eta, lam, c, k, wt)
    # g = ks * (...) + prior terms (<= 2); h = ks^2 * (trigamma sums) + ks * (digamma sums)
    assert np.all(np.abs(ll - ref[0]) <= 2 * C * EPS * (mag0 + 50))
    assert np.all(np.abs(g - ref[1]) <= 2 * C * EPS * (ks * mag1 + 2))
    assert np.all(np.abs(h - ref[3]) <= 2 * C * EPS * (ks * ks * mag2 + ks * mag1 + 2))


def test_long_double_finite_sums():
    # independent of every special function: r(x, n) = sum_{i<n} log(x + i) in long double
    cu, ku, w = _cells(2)
    eta, lam, rows = _points(cu.shape[0])
    ll = terms_loglik(eta, lam, count_terms(cu, ku, w), rows, derivatives=False)
    L = np.longdouble
    i = np.arange(int(ku.max()), dtype=L)
    # the same float64 (a, b, kappa) as the code (their rounding is the parametrisation's,
    # e.g. 1 - mu at mu ~ 1, not the sums'), then long double
    m, kap = special.expit(eta), np.exp(lam)
    ab = np.stack([m * kap, (1 - m) * kap, kap], axis=1).astype(L)
    ref, mag = np.empty(eta.size), np.empty(eta.size)
    for j, r in enumerate(rows):
        pre = [np.concatenate([[L(0)], np.cumsum(np.log(x + i))]) for x in ab[j]]
        c, k = cu[r], ku[r]
        ref[j] = float((w[r].astype(L) * (pre[0][c] + pre[1][k - c] - pre[2][k])).sum())
        # what is summed: the three rising factorials, plus |log Gamma(x)| <= 35 per term
        # (x >= 1e-15) where x < 16 subtracts it; for x >= 16 the Stirling difference form
        # keeps only the digits of r itself
        mag[j] = float((w[r] * (abs(pre[0][c]) + abs(pre[1][k - c]) + abs(pre[2][k]) + 105)).sum())
    assert np.all(np.abs(ll - ref) <= C * EPS * mag)


def test_series_threshold_and_shared_cells():
    # every count class is exercised: dense (n < 16) and series (n >= 16) in the same model
    cu, ku, w = _cells(3)
    terms = count_terms(cu, ku, w)
    assert terms.series_n[2].shape[1] >= 1 and terms.dense[0].shape[1] >= 1
    assert np.all(terms.series_n[2][terms.series_w[2] > 0] >= SERIES_FROM)
    # cells shared by all rows (1-D) give the same numbers as the same cells per row
    shared = (np.arange(41), np.full(41, 40), np.ones((2, 41)))
    eta, lam = np.array([0.3, -1.0]), np.array([0.5, 3.0])
    one = terms_loglik(eta, lam, count_terms(*shared), None, (0.0, 0.0))
    tiled = (*(np.tile(x, (2, 1)) for x in shared[:2]), shared[2])
    per_row = terms_loglik(eta, lam, count_terms(*tiled), None, (0.0, 0.0))
    np.testing.assert_array_equal(np.array(one), np.array(per_row))


def _scipy_objective(cells):
    """kappa_grid's likelihood on marginal_loglik (scipy digamma / polygamma, per cell)."""
    cu, ku, w = cells

    def loglik(eta, lam, _terms, rows, prior, derivatives=True):
        out = marginal_loglik(eta, lam, cu[rows], ku[rows], w[rows], prior, derivatives=True)
        return (out[0], out[1], out[3]) if derivatives else out[0]

    return loglik


def _scipy_gradient(cells):
    """kappa_grid's gradient in eta on marginal_loglik (the root finding's function)."""
    cu, ku, w = cells

    def gradient(eta, lam, _terms, rows, prior):
        return marginal_loglik(eta, lam, cu[rows], ku[rows], w[rows], prior, derivatives=True)[1]

    return gradient


@pytest.mark.shared_data
@pytest.mark.slow
def test_fit_equals_scipy_special_functions_on_math500(shared_data, monkeypatch):
    import bayesnoise as bn
    from bayesnoise.data import beta_binomial_counts

    path = shared_data / "all-the-noises/highk_temp0.7/input_table_math500_cot.csv"
    c, k = beta_binomial_counts(bn.load(path))
    c, k = c[::8], k[::8]  # 6 of the 48 models (K = 8 to 1100): the slow path takes seconds
    fast = fit_empirical_bayes(c, k, warn=False)
    cells = tuple(x.astype(float) for x in model_cells(c, k, k > 0))
    kappa_grid = importlib.import_module("bayesnoise.conjugate.kappa_grid")
    monkeypatch.setattr(kappa_grid, "count_terms", lambda *a: None)
    monkeypatch.setattr(kappa_grid, "terms_loglik", _scipy_objective(cells))
    monkeypatch.setattr(kappa_grid, "terms_gradient", _scipy_gradient(cells))
    slow = fit_empirical_bayes(c, k, warn=False)
    # both log likelihoods (~1e5) are within ~1e-9 of the exact value (64 eps of the summed
    # magnitudes, ~1e7): the node weights exp(lml - max) then agree to that relative error,
    # every mixture summary (medians, sds) to a few times it; modes and curvatures to 1e-10
    delta = np.max(np.abs(fast.grid_lam - slow.grid_lam))
    assert delta == 0.0
    np.testing.assert_allclose(fast.grid_eta, slow.grid_eta, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fast.grid_eta_sd, slow.grid_eta_sd, rtol=1e-10)
    lml_err = np.max(np.abs(np.log(fast.grid_weight) - np.log(slow.grid_weight)))
    assert lml_err <= 2 * C * EPS * 1e7
    for name in ("mu", "kappa", "mu_se", "kappa_se", "loglik"):
        np.testing.assert_allclose(getattr(fast, name), getattr(slow, name), rtol=10 * lml_err)


def test_chunked_posterior_table_small():
    # blocks of 2 models through the threaded Dask scheduler: exact columns and notes equal
    # the in-memory table (K = 1 models, whose kappa is not identified, and an all-correct
    # model make notes); the Monte Carlo ends within 6 MC standard errors (as in test_dask)
    pytest.importorskip("dask")
    import warnings

    from bayesnoise.conjugate import posterior_table
    from bayesnoise.conjugate.chunked import fit_dataset
    from bayesnoise.data import from_arrays

    rng = np.random.default_rng(4)
    k = np.full((5, 80), 6)
    k[3:] = 1
    c = rng.binomial(k, rng.beta(2, 2, k.shape))
    c[2] = k[2]
    ds = from_arrays(c, k, models=list("abcde"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = posterior_table(ds, progress=False)
        lazy = posterior_table(ds.chunk({"model": 2}), progress=False)
        fit = fit_empirical_bayes(c, k, names=list("abcde"))
        lazy_fit = fit_dataset(ds.chunk({"model": 2, "question": 30}))
    assert lazy.attrs["notes"] == table.attrs["notes"] and len(table.attrs["notes"]) >= 2
    assert lazy_fit.notes == fit.notes
    np.testing.assert_allclose(lazy_fit.grid_weight, fit.grid_weight, rtol=1e-10)
    exact = ["questions", "accuracy", "ubar", "kappa_median", "se_data_bayes"]
    exact += ["se_prediction_bayes"]
    np.testing.assert_allclose(lazy[exact].values, table[exact].values, rtol=1e-10)
    assert list(lazy["kappa_status"]) == list(table["kappa_status"])
    mc = 6 * max(lazy.attrs["mc_se"], table.attrs["mc_se"])
    for col in ("mu", "mu_low", "mu_high", "ubar_low", "ubar_high"):
        np.testing.assert_allclose(lazy[col].values, table[col].values, rtol=0, atol=mc)
