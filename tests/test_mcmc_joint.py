"""The joint model's fast likelihood, its exact u-draws, and recovery of known values.

The joint model's Beta-Binomial likelihood is evaluated as log rising factorials
(``bayesnoise.mcmc.loglik``) instead of six ``lgamma`` per cell. It is the same function, so the
model is unchanged: the first tests check it against scipy's Beta-Binomial (values and
gradients) to floating-point accuracy. Tolerances: every term is a log of a product of at most
8 factors, each rounded once, so its absolute error is a few machine epsilons (~1e-15) times a
small factor; scipy's gammaln and digamma are accurate to ~1e-15 relative. A bound of 1e-11 times
the sum of the absolute terms is therefore loose by orders of magnitude yet far below any real
error (a term dropped or one factor off shifts the sum by >= 1e-3).

The exact u-draws that ``fit`` adds (``ubar``, ``V_x``, ``V_pred``, ``dbar``) are checked
against the conjugate closed forms of :mod:`bayesnoise.conjugate`: given each posterior draw
of the parameters, ``u`` is a product of independent Betas whose moments are exact, so the
average over S draws of (draw - conditional mean) is Normal(0, sum of conditional variances
/ S^2) and the standardised difference is checked at the Bonferroni bound z_n for n
comparisons at family-wise level ALPHA. The recovery test checks that the posterior is centred
on the simulated truth: (posterior mean - truth) / posterior sd is approximately N(0, 1) for
parameters the data identify, so the same bound applies.
"""

import importlib

import numpy as np
import pytest
import xarray as xr
from scipy import special, stats

from bayesnoise import conjugate
from bayesnoise import mcmc as hb
from bayesnoise.conjugate.beta import conjugate_update
from bayesnoise.mcmc.loglik import PRODUCT_MAX, joint_betabinom_loglik, log_rising_sum

fit_module = importlib.import_module("bayesnoise.mcmc.fit")

ALPHA = 0.001
SAMPLE = ("chain", "draw")


def _bound(n: int) -> float:
    """Two-sided Bonferroni bound for n standard-normal comparisons at family-wise ALPHA."""
    return float(special.ndtri(1 - ALPHA / (2 * n)))


def _close(got, want, terms):
    return abs(float(got) - float(want)) <= 1e-11 * float(np.abs(terms).sum()) + 1e-12


def test_log_rising_sum_is_lgamma_difference_with_its_gradient():
    import pytensor
    import pytensor.tensor as pt

    rng = np.random.default_rng(0)
    n = rng.integers(0, 3 * PRODUCT_MAX, size=(6, 40))  # both the product and the lgamma path
    x = np.exp(rng.uniform(np.log(1e-3), np.log(1e3), size=n.shape))
    xt = pt.matrix("x")
    total = log_rising_sum(xt, n)
    fn = pytensor.function([xt], [total, pytensor.grad(total, xt)])
    value, grad = fn(x)
    terms = special.gammaln(x + n) - special.gammaln(x)
    assert _close(value, terms.sum(), terms)
    want = special.digamma(x + n) - special.digamma(x)
    assert np.allclose(grad, want, rtol=1e-11, atol=1e-13)


def test_joint_loglik_is_the_beta_binomial_likelihood():
    import pytensor
    import pytensor.tensor as pt

    rng = np.random.default_rng(1)
    count = rng.choice([0, 1, 5, 10, 40, 90], size=(4, 30))  # ragged, unanswered and large K
    p = rng.uniform(0.02, 0.98, size=count.shape)
    phi = np.array([0.3, 2.0, 15.0, 400.0])
    correct = rng.binomial(count, p)
    pt_p, pt_phi = pt.matrix("p"), pt.vector("phi")
    total = joint_betabinom_loglik(pt_p, pt_phi, correct, count)
    fn = pytensor.function([pt_p, pt_phi], [total, *pytensor.grad(total, [pt_p, pt_phi])])
    value, g_p, g_phi = fn(p, phi)
    a, b = p * phi[:, None], (1 - p) * phi[:, None]
    answered = count > 0
    log_comb = special.gammaln(count + 1) - special.gammaln(correct + 1)
    log_comb -= special.gammaln(count - correct + 1)
    terms = np.where(answered, stats.betabinom.logpmf(correct, count, a, b) - log_comb, 0.0)
    assert _close(value, terms.sum(), terms)
    # gradients: d/da = psi(c + a) - psi(a), d/db = psi(K - c + b) - psi(b), minus the
    # normaliser's psi(K + phi) - psi(phi); chain rule through a = p phi, b = (1 - p) phi
    psi = special.digamma
    da = psi(correct + a) - psi(a)
    db = psi(count - correct + b) - psi(b)
    dn = psi(count + phi[:, None]) - psi(phi[:, None])
    want_p = np.where(answered, phi[:, None] * (da - db), 0.0)
    want_phi = np.where(answered, p * da + (1 - p) * db - dn, 0.0).sum(axis=1)
    assert np.allclose(g_p, want_p, rtol=1e-10, atol=1e-12)
    assert np.allclose(g_phi, want_phi, rtol=1e-10, atol=1e-12)


def test_joint_model_potential_uses_every_answered_cell():
    """The model's potential at a random point equals scipy's likelihood at that point's p."""
    rng = np.random.default_rng(2)
    count = np.full((3, 25), 4)
    count[1, :5] = 0  # unanswered: contribute nothing
    correct = rng.binomial(count, 0.5)
    built = hb.joint_model(correct, count)
    model = built.model
    names = ["correct_loglik", "theta", "difficulty", "phi"]
    fn = model.compile_fn(
        [model[name] for name in names], inputs=model.value_vars, on_unused_input="ignore"
    )
    point = {
        v.name: rng.normal(0, 0.7, size=np.shape(val))
        for v, val in zip(model.value_vars, model.initial_point().values(), strict=True)
    }
    loglik, theta, difficulty, phi = fn(point)
    p = special.expit(theta[:, None] - difficulty[None, :])
    a, b = p * phi[:, None], (1 - p) * phi[:, None]
    log_comb = special.gammaln(count + 1) - special.gammaln(correct + 1)
    log_comb -= special.gammaln(count - correct + 1)
    terms = np.where(count > 0, stats.betabinom.logpmf(correct, count, a, b) - log_comb, 0.0)
    assert _close(loglik, terms.sum(), terms)


def _conditional_betas(theta, difficulty, phi, correct, count):
    """Per draw, the exact conditional Beta parameters of u given the joint-model parameters."""
    p = special.expit(theta[..., None] - difficulty[:, None, :])
    ph = phi[..., None]
    return conjugate_update(p * ph, (1 - p) * ph, correct, count)


def _check_u_draws_against_closed_forms(post, correct, count):
    """z-scores of the exact u-draw summaries against their conditional closed forms."""
    theta = post["theta"].transpose(*SAMPLE, "model").values.reshape(-1, correct.shape[0])
    difficulty = post["difficulty"].transpose(*SAMPLE, "question").values
    difficulty = difficulty.reshape(theta.shape[0], -1)
    phi = post["phi"].transpose(*SAMPLE, "model").values.reshape(theta.shape)
    alpha, beta = _conditional_betas(theta, difficulty, phi, correct, count)
    mask = count > 0
    mom = conjugate.finite_sample_moments(alpha, beta, mask=np.broadcast_to(mask, alpha.shape))
    z = {}
    for name, mean, var in (
        ("ubar", mom.ubar_mean, mom.ubar_var),
        ("V_x", mom.v_x_mean, mom.v_x_var),
        ("V_pred", mom.v_pred_mean, mom.v_pred_var),
    ):
        draws = post[name].transpose(*SAMPLE, "model").values.reshape(mean.shape)
        z[name] = (draws - mean).sum(axis=0) / np.sqrt(var.sum(axis=0))
    m = correct.shape[0]
    ia, ib = np.triu_indices(m, k=1)
    both = mask[ia] & mask[ib]
    d_mean, d_var = conjugate.paired_difference_moments(
        alpha[:, ia],
        beta[:, ia],
        alpha[:, ib],
        beta[:, ib],
        mask=np.broadcast_to(both, (len(theta), *both.shape)),
    )
    dbar = post["dbar"].transpose(*SAMPLE, "model_a", "model_b").values
    dbar = dbar.reshape(len(theta), m, m)[:, ia, ib]
    z["dbar"] = (dbar - d_mean).sum(axis=0) / np.sqrt(d_var.sum(axis=0))
    return z


def _fake_posterior(rng, m, n, draws):
    theta = rng.normal(0, 1, (1, draws, m))
    difficulty = rng.normal(0, 1.5, (1, draws, n))
    phi = np.exp(rng.normal(1.5, 0.3, (1, draws, m)))
    post = xr.Dataset(
        {
            "theta": (("chain", "draw", "model"), theta),
            "difficulty": (("chain", "draw", "question"), difficulty),
            "phi": (("chain", "draw", "model"), phi),
            "mu": (("chain", "draw", "model"), special.expit(theta)),
        }
    )
    return xr.DataTree.from_dict({"posterior": post})


@pytest.mark.parametrize("unanswered", [False, True], ids=["all-answered", "ragged"])
def test_exact_u_draws_agree_with_conjugate_closed_forms(unanswered):
    """The exact u-draws of fit (both dbar paths) against the conditional closed forms."""
    rng = np.random.default_rng(3)
    m, n, draws = 4, 60, 400
    count = rng.integers(1, 8, size=(m, n))
    if unanswered:
        count[0, :10] = 0
        count[2, 5:12] = 0
    correct = rng.binomial(count, 0.6)
    data = hb.model_data(correct, count)
    tree = _fake_posterior(rng, m, n, draws)
    fit_module._add_finite_sample_joint(tree, data, np.random.default_rng(4))
    z = _check_u_draws_against_closed_forms(tree["posterior"], correct, count)
    bound = _bound(sum(v.size for v in z.values()))
    for name, val in z.items():
        assert np.all(np.abs(val) <= bound), (
            f"{name}: worst z {np.abs(val).max():.2f} > {bound:.2f}"
        )


def _simulate_joint(rng, theta, phi, sigma_b, n, k):
    b = rng.normal(0, sigma_b, n)
    p = special.expit(theta[:, None] - b[None, :])
    u = rng.beta(p * phi[:, None], (1 - p) * phi[:, None])
    correct = rng.binomial(k, u)
    x, w = np.polynomial.hermite_e.hermegauss(64)
    mu = special.expit(theta[:, None] - sigma_b * x[None, :]) @ (w / w.sum())
    return correct, u, mu


@pytest.mark.mcmc
def test_fast_joint_model_recovers_known_values():
    rng = np.random.default_rng(20)
    theta = np.array([-1.0, -0.3, 0.4, 1.2])
    phi = np.array([2.5, 4.0, 6.0, 9.0])
    sigma_b, n, k = 1.5, 150, 6
    correct, u, mu = _simulate_joint(rng, theta, phi, sigma_b, n, k)
    count = np.full_like(correct, k)
    tree = hb.fit(
        hb.joint_model(correct, count),
        draws=1000,
        tune=500,
        chains=2,
        cores=2,
        rng=5,
        progress=False,
        check=False,
    )
    report = hb.check_convergence(tree, hb.diagnostics.default_var_names("joint"), warn=False)
    assert report.ok, report.message()
    post = tree["posterior"]
    ia, ib = np.triu_indices(len(theta), k=1)
    truth = {
        "theta": theta,
        "log_phi": np.log(phi),
        "sigma_b": np.array([sigma_b]),
        "population_difference": (mu[:, None] - mu[None, :])[ia, ib],
        "dbar": (u.mean(axis=1)[:, None] - u.mean(axis=1)[None, :])[ia, ib],
    }
    draws = {
        "theta": post["theta"].transpose(*SAMPLE, "model").values,
        "log_phi": np.log(post["phi"].transpose(*SAMPLE, "model").values),
        "sigma_b": post["sigma_b"].values[..., None],
        "population_difference": post["population_difference"]
        .transpose(*SAMPLE, "model_a", "model_b")
        .values[..., ia, ib],
        "dbar": post["dbar"].transpose(*SAMPLE, "model_a", "model_b").values[..., ia, ib],
    }
    bound = _bound(sum(v.size for v in truth.values()))
    for name, true in truth.items():
        x = draws[name].reshape(-1, true.size)
        z = (x.mean(axis=0) - true) / x.std(axis=0)
        assert np.all(np.abs(z) <= bound), f"{name}: z {np.round(z, 2)} (bound {bound:.2f})"
    z = _check_u_draws_against_closed_forms(post, correct, count)
    bound = _bound(sum(v.size for v in z.values()))
    for name, val in z.items():
        assert np.all(np.abs(val) <= bound), (
            f"{name}: worst z {np.abs(val).max():.2f} > {bound:.2f}"
        )
