"""Low-level closed forms of bayesnoise.conjugate against brute-force Monte Carlo."""

import warnings

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from bayesnoise.conjugate import (
    beta_central_moments,
    finite_sample_moments,
    fit_empirical_bayes,
    paired_difference_moments,
    question_posteriors,
)
from bayesnoise.conjugate.beta import posterior_parameters
from bayesnoise.conjugate.hyper import hyper_draws, hyper_quadrature
from bayesnoise.conjugate.kappa_grid import ETA_BOUND, kappa_grid
from bayesnoise.conjugate.rising import count_terms, terms_loglik


def test_beta_central_moments_match_quadrature():
    for a, b in [(0.3, 2.0), (2.3, 0.7), (5.0, 5.0), (40.0, 1.5)]:
        dist = stats.beta(a, b)
        m, v, m3, m4 = beta_central_moments(a, b)
        assert m == pytest.approx(dist.mean(), rel=1e-12)
        assert v == pytest.approx(dist.var(), rel=1e-12)
        for order, val in ((3, m3), (4, m4)):
            ref = integrate.quad(
                lambda t, o=order, m=m, d=dist: (t - m) ** o * d.pdf(t), 0, 1, limit=200
            )[0]
            assert val == pytest.approx(ref, rel=1e-6, abs=1e-12)


def _mc_check(exact_mean, exact_var, draws):
    """|closed form - MC| within 4 MC standard errors, for the mean and the variance."""
    n = draws.shape[-1]
    mc_mean = draws.mean(axis=-1)
    mc_var = draws.var(axis=-1, ddof=1)
    se_mean = np.sqrt(mc_var / n)
    # SE of the sample variance: sqrt((m4 - var^2 (n-3)/(n-1)) / n)
    cen = draws - mc_mean[..., None]
    m4 = (cen**4).mean(axis=-1)
    se_var = np.sqrt(np.maximum(m4 - mc_var**2 * (n - 3) / (n - 1), 0) / n)
    assert np.all(np.abs(exact_mean - mc_mean) <= 4 * se_mean), (exact_mean, mc_mean, se_mean)
    assert np.all(np.abs(exact_var - mc_var) <= 4 * se_var), (exact_var, mc_var, se_var)


@pytest.mark.parametrize("n_q", [1, 3, 40])
def test_finite_sample_moments_vs_monte_carlo(n_q):
    rng = np.random.default_rng(10 + n_q)
    alpha = rng.uniform(0.2, 6.0, size=(3, n_q))
    beta = rng.uniform(0.2, 6.0, size=(3, n_q))
    mask = np.ones((3, n_q), bool)
    if n_q > 2:
        mask[1, 0] = False
    res = finite_sample_moments(alpha, beta, mask=mask)
    u = rng.beta(alpha[..., None], beta[..., None], size=(3, n_q, 100_000))
    u = np.where(mask[..., None], u, np.nan)
    ubar = np.nanmean(u, axis=1)
    v_pred = np.nanmean(u * (1 - u), axis=1)
    v_x = np.nanvar(u, axis=1)
    _mc_check(res.ubar_mean, res.ubar_var, ubar)
    _mc_check(res.v_pred_mean, res.v_pred_var, v_pred)
    _mc_check(res.v_x_mean, res.v_x_var, v_x)
    # identity V_x + V_pred = ubar (1 - ubar) in expectation
    lhs = res.v_x_mean + res.v_pred_mean
    rhs = res.ubar_mean - (res.ubar_var + res.ubar_mean**2)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10, atol=1e-14)
    with pytest.raises(TypeError):  # a result object with attributes, not a dict imitation
        res["ubar_mean"]


def test_finite_sample_moments_errors():
    with pytest.raises(ValueError, match="> 0"):
        finite_sample_moments([0.0, 1.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="every question"):
        finite_sample_moments([1.0, 1.0], [1.0, 1.0], mask=[False, False])
    # masked cells may hold anything
    res = finite_sample_moments([1.0, np.nan], [1.0, -1.0], mask=[True, False])
    assert res.ubar_mean == pytest.approx(0.5)


def test_paired_difference_moments_vs_monte_carlo():
    rng = np.random.default_rng(3)
    aa, ba, ab, bb = rng.uniform(0.3, 5, size=(4, 2, 25))
    mean, var = paired_difference_moments(aa, ba, ab, bb)
    d = rng.beta(aa[..., None], ba[..., None], (2, 25, 100_000)) - rng.beta(
        ab[..., None], bb[..., None], (2, 25, 100_000)
    )
    _mc_check(mean, var, d.mean(axis=1))


def test_question_posteriors_and_masking():
    a, b = question_posteriors([[3, 0, 0]], [[5, 5, 0]], [0.5], [2.0])
    np.testing.assert_allclose(a, [[4, 1, 1]])
    np.testing.assert_allclose(b, [[3, 6, 1]])
    with pytest.raises(ValueError, match=r"outside \[0, count"):
        question_posteriors([6], [5], 0.5, 1.0)
    with pytest.raises(ValueError, match="0 < mu < 1"):
        question_posteriors([1], [5], 1.0, 1.0)


def test_fit_recovers_parameters_vectorised():
    rng = np.random.default_rng(0)
    mu = np.array([0.1, 0.5, 0.9, 0.3])
    kap = np.array([0.5, 1.0, 5.0, 2.0])
    u = rng.beta((mu * kap)[:, None], ((1 - mu) * kap)[:, None], (4, 2000))
    k = rng.integers(3, 12, size=u.shape)  # ragged K
    c = rng.binomial(k, u)
    k[0, :10] = 0  # missing cells
    c[0, :10] = 0
    fit = fit_empirical_bayes(c, k)
    assert fit.converged.all()
    assert (fit.kappa_status == "estimated").all()
    z_mu = (fit.mu - mu) / fit.mu_se
    z_k = (np.log(fit.kappa) - np.log(kap)) / np.sqrt(fit.cov[:, 1, 1])
    assert np.all(np.abs(z_mu) < 4) and np.all(np.abs(z_k) < 4)
    assert fit.n_questions[0] == 1990


def test_fit_matches_brute_force_posterior():
    # the grid over log kappa with a normal in logit mu per node, against a dense 2-D grid of
    # the exact posterior (Beta(1, 1) on mu, LogNormal(0, 1.5) on kappa)
    from scipy import special

    rng = np.random.default_rng(5)
    k = np.full(300, 4)
    c = rng.binomial(k, rng.beta(0.8, 1.6, 300))
    eta = np.linspace(-2.5, 1.5, 801)[:, None]
    lam = np.linspace(-3.0, 3.0, 801)[None, :]
    m, kap = special.expit(eta), np.exp(lam)
    a, b = m * kap, (1 - m) * kap
    ll = sum(
        n_c * (special.betaln(a + cc, b + 4 - cc) - special.betaln(a, b))
        for cc, n_c in zip(*np.unique(c, return_counts=True), strict=True)
    )
    lp = ll + np.log(m * (1 - m)) - 0.5 * (lam / 1.5) ** 2
    post = np.exp(lp - lp.max())
    post /= post.sum()
    fit = fit_empirical_bayes(c, k)
    e_eta, e_lam = (post * eta).sum(), (post * lam).sum()
    v_eta, v_lam = (post * (eta - e_eta) ** 2).sum(), (post * (lam - e_lam) ** 2).sum()
    cov = fit.cov
    assert (cov[0, 0] / v_eta) == pytest.approx(1, abs=0.02)
    assert (cov[1, 1] / v_lam) == pytest.approx(1, abs=0.02)
    mu_cdf = np.cumsum(post.sum(axis=1))
    lo, hi = fit.mu_interval(0.95)
    ref_lo, ref_hi = (special.expit(eta[np.searchsorted(mu_cdf, p), 0]) for p in (0.025, 0.975))
    assert lo == pytest.approx(ref_lo, abs=2e-3) and hi == pytest.approx(ref_hi, abs=2e-3)
    lam_cdf = np.cumsum(post.sum(axis=0))
    assert np.log(fit.kappa) == pytest.approx(lam[0, np.searchsorted(lam_cdf, 0.5)], abs=0.01)


def test_conditional_mode_matches_scipy_optimizer():
    # given kappa, the conditional mode of logit mu is the maximiser of the penalised likelihood
    from scipy import optimize, special

    rng = np.random.default_rng(5)
    k = np.full(300, 4)
    c = rng.binomial(k, rng.beta(0.8, 1.6, 300))

    def nll(e, kap=2.0):
        m = special.expit(e)
        a, b = m * kap, (1 - m) * kap
        lik = (special.betaln(c + a, k - c + b) - special.betaln(a, b)).sum()
        return -(lik + np.log(m) + np.log1p(-m))

    ref = optimize.minimize_scalar(nll, bounds=(-5, 5), method="bounded", options={"xatol": 1e-10})
    fit = fit_empirical_bayes(c, k, kappa=2.0)
    assert fit.grid_eta[0] == pytest.approx(ref.x, abs=1e-6)
    eps = 1e-4
    curv = (nll(ref.x + eps) - 2 * nll(ref.x) + nll(ref.x - eps)) / eps**2
    assert fit.grid_eta_sd[0] == pytest.approx(1 / np.sqrt(curv), rel=1e-3)


def test_default_priors_match_the_pymc_layer():
    from bayesnoise.conjugate import DEFAULT_KAPPA_PRIOR, DEFAULT_MU_PRIOR
    from bayesnoise.mcmc import DEFAULT_PRIORS

    assert DEFAULT_MU_PRIOR == (DEFAULT_PRIORS.mu_alpha, DEFAULT_PRIORS.mu_beta)
    assert DEFAULT_KAPPA_PRIOR == (DEFAULT_PRIORS.kappa_median, DEFAULT_PRIORS.kappa_log_sd)


def test_k1_likelihood_does_not_depend_on_kappa():
    # P(c = 1 | K = 1) = E[u] = mu whatever kappa: kappa is not identified at K = 1
    from _beta_binomial_reference import marginal_loglik

    lam = np.linspace(np.log(1e-2), np.log(1e4), 9)
    ll = marginal_loglik(
        np.full(9, 0.4),
        lam,
        np.array([0.0, 1.0]),
        np.array([1.0, 1.0]),
        np.tile([7.0, 3.0], (9, 1)),
        derivatives=False,
    )
    np.testing.assert_allclose(ll, ll[0], rtol=1e-10)


def test_fit_k1_kappa_not_identifiable_warns():
    c = np.array([[1, 0, 1, 1, 0, 1]])
    with pytest.warns(UserWarning, match="not identifiable"):
        fit = fit_empirical_bayes(c, np.ones_like(c))
    assert fit.kappa_status[0] == "not identified (K = 1): prior"
    assert not fit.kappa_identifiable[0]
    assert np.isnan(fit.kappa_se[0])
    # the posterior of kappa is its prior: median 1, 95% interval exp(+-1.96 * 1.5)
    assert fit.kappa[0] == pytest.approx(1.0, rel=0.02)
    lo, hi = fit.kappa_interval(0.95)
    assert lo[0] == pytest.approx(np.exp(-1.96 * 1.5), rel=0.05)
    assert hi[0] == pytest.approx(np.exp(1.96 * 1.5), rel=0.05)
    # the posterior of mu is exactly Beta(4 + 1, 2 + 1) at K = 1; the normal in logit mu puts
    # the median at the logit-scale mode 5/8, and with 6 questions its interval is within
    # 0.03 of the exact one
    from scipy import stats

    assert fit.mu[0] == pytest.approx(5 / 8)
    np.testing.assert_allclose(
        np.array(list(fit.mu_interval(0.95))), stats.beta(5, 3).ppf([[0.025], [0.975]]), atol=0.03
    )
    assert any("kappa is not identifiable" in n and "(K = 1)" in n for n in fit.notes)


@pytest.mark.parametrize("value", [0, 5])
def test_fit_all_correct_or_wrong_is_finite(value):
    c = np.full((1, 50), value)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        fit = fit_empirical_bayes(c, np.full_like(c, 5))
    assert np.isfinite(fit.mu).all() and 0 < fit.mu[0] < 1
    assert fit.kappa_status[0] == "at lower bound"
    assert any("deterministic" in str(r.message) for r in rec)
    with pytest.raises(ValueError, match="all-correct or all-wrong"):
        fit_empirical_bayes(c, np.full_like(c, 5), mu_prior=None, warn=False)


def test_fit_upper_bound_when_no_overdispersion():
    rng = np.random.default_rng(1)  # this seed's likelihood increases up to the bound
    c = rng.binomial(20, 0.4, size=(1, 400))
    with pytest.warns(UserWarning, match="upper edge"):
        fit = fit_empirical_bayes(c, np.full_like(c, 20))
    assert fit.kappa_status[0] == "at upper bound"
    assert np.isnan(fit.kappa_se[0]) and np.isfinite(fit.mu_se[0])
    # the intervals integrate over the posterior of kappa, which the prior bounds
    lo, hi = fit.kappa_interval(0.95)
    assert 1 < lo[0] < fit.kappa[0] < hi[0] < 1e4


def test_fit_single_question():
    with pytest.warns(UserWarning, match="not identifiable"):
        fit = fit_empirical_bayes([[3]], [[5]])
    assert np.isfinite(fit.mu).all() and fit.kappa_status[0] == "not identified (1 question): prior"


def test_fit_given_kappa():
    fit = fit_empirical_bayes(np.array([3, 4, 1, 5]), np.full(4, 5), kappa=2.0)
    assert fit.kappa == 2.0 and fit.kappa_status == "assumed"
    assert fit.cov[1, 1] == 0


def test_bad_inputs():
    with pytest.raises(ValueError, match="broadcast"):
        fit_empirical_bayes(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="no answered question"):
        fit_empirical_bayes(np.zeros((2, 3)), np.array([[1, 1, 1], [0, 0, 0]]))
    with pytest.raises(ValueError, match="finite"):
        fit_empirical_bayes([np.nan, 1], [1, 1])


def test_conditional_modes_are_roots_of_the_gradient_or_at_the_bound():
    # model 0 all wrong, 1 all right, 2 mixed, with K = 5
    cu, ku = np.array([0.0, 5.0, 2.0]), np.full(3, 5.0)
    w = np.array([[30.0, 0, 0], [0, 30.0, 0], [10.0, 10.0, 10.0]])
    terms = count_terms(cu, ku, w)
    for prior in [(1.0, 1.0), (0.0, 0.0)]:
        g = kappa_grid(cu, ku, w, np.zeros(3), mu_prior=prior, tol=1e-10)
        rows = np.repeat(np.arange(3), g.lam.shape[1])  # the nodes per model
        assert g.converged.all()
        _, grad, hee = terms_loglik(g.eta.ravel(), g.lam.ravel(), terms, rows, prior)
        np.testing.assert_allclose(g.eta_sd.ravel(), 1 / np.sqrt(-hee), rtol=1e-12)
        interior = np.abs(g.eta.ravel()) < ETA_BOUND
        assert np.all(np.abs(grad[interior]) < 1e-10 * (1 + 30))
        if prior == (0.0, 0.0):  # no interior maximum: held at the bound it climbs to
            assert np.all(g.eta[0] == -ETA_BOUND) and np.all(g.eta[1] == ETA_BOUND)
        else:
            assert interior.all()
    # the mixed model at one kappa against a bounded scalar maximisation
    g = kappa_grid(cu, ku, w, np.zeros(3), fixed_lam=np.log([0.5, 2.0, 3.0]))

    def neg(e):
        return -terms_loglik(np.array([e]), g.lam[2], terms, np.array([2]), (1.0, 1.0))[0][0]

    ref = optimize.minimize_scalar(
        neg, bounds=(-10, 10), method="bounded", options={"xatol": 1e-10}
    )
    # Brent on function values locates a flat maximum to ~sqrt(eps) only
    assert g.eta[2, 0] == pytest.approx(ref.x, abs=1e-6)


def test_posterior_parameters_one_formula():
    a, b = posterior_parameters(np.array([0.25]), np.array([4.0]), np.array([2.0]), np.array([3]))
    assert a.tolist() == [3.0] and b.tolist() == [4.0]


def test_quadrature_and_draws_share_the_posterior():
    rng = np.random.default_rng(7)
    c = rng.binomial(5, rng.beta(1.0, 2.0, (2, 300)))
    fit = fit_empirical_bayes(c, np.full_like(c, 5))
    mu_q, kap_q, wt = hyper_quadrature(fit, order=7)
    eta, lam = np.log(mu_q / (1 - mu_q)), np.log(kap_q)
    mean = np.stack([(eta * wt).sum(-1), (lam * wt).sum(-1)], -1)
    cen = np.stack([eta, lam], -1) - mean[:, None, :]
    cov = np.einsum("mq,mqi,mqj->mij", wt, cen, cen)
    np.testing.assert_allclose(cov, fit.cov, rtol=1e-8, atol=1e-14)
    mu_d, kap_d = hyper_draws(fit, 20_000, np.random.default_rng(0))
    draws = np.stack([np.log(mu_d / (1 - mu_d)), np.log(kap_d)], -1)
    for m in range(2):
        sd = np.sqrt(np.diag(fit.cov[m]))
        scale = np.outer(sd, sd)
        np.testing.assert_allclose(np.cov(draws[m].T) / scale, fit.cov[m] / scale, atol=0.05)
        np.testing.assert_allclose(draws[m].mean(0), mean[m], atol=0.05 * sd.max())


def test_kappa_note_names_the_cli_option():
    with pytest.warns(UserWarning, match=r"1 model\(s\) \(row 0\).*pass --kappa"):
        fit_empirical_bayes(np.array([[1, 0, 1, 1]]), np.ones((1, 4)))


@pytest.mark.parametrize(
    ("value", "words"), [(5, "every sample correctly"), (0, "every sample wrong")]
)
def test_fit_all_correct_note_says_what_is_not_identifiable(value, words):
    c = np.full((2, 30), value)
    c[1] = np.arange(30) % 6
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        fit = fit_empirical_bayes(c, np.full_like(c, 5), names=["solo", "other"])
    msgs = [str(r.message) for r in rec if "solo" in str(r.message)]
    assert len(msgs) == 1 and words in msgs[0] and "kappa is not identifiable" in msgs[0]
    assert fit.kappa_status[0] == "at lower bound"
