"""The fast paths of the joint model equal the slow ones.

1. The numba log density of ``bayesnoise.mcmc.numba_joint`` (what nutpie samples) is PyMC's
   log density of :func:`joint_model` on the same unconstrained space: value and gradient, at
   random points, centred and non-centred, with unanswered cells, counts above the product
   limit (lgamma path) and huge ``phi`` (the product-overflow fallback). Tolerance: both sides
   sum the same ``n`` terms in a different order and with differently rounded factors, so they
   differ by at most ~``n`` machine epsilons times the sum of the absolute terms; 1e-11 times
   that sum (``n`` <= a few thousand terms here) is a loose bound that a dropped term, a wrong
   Jacobian or a prior off by one constant (>= 1e-3) would break by orders of magnitude.
   PyTensor folds Python floats that are exact in float32 (such as 2.0 or 1.5) into float32
   constants, so with the default priors PyMC's log density is off by a *constant* ~1e-8 per
   term; with priors that are not float32 numbers both sides are float64 and agree absolutely.
2. The vectorised diagnostics equal arviz-stats element by element (same formulas; 1e-12
   relative is rounding) on chains built to hit every branch: ties, a constant element, a stuck
   chain, antithetic and strongly autocorrelated chains, 4 chains and an odd number of draws.
3. nutpie with the numba density samples the same posterior as PyMC's NUTS (posterior means
   within 4 combined Monte Carlo standard errors) and stores the same variables.
"""

import numpy as np
import pytest
import xarray as xr

from bayesnoise import mcmc as hb
from bayesnoise.mcmc.diagnostics import diagnostics_table
from bayesnoise.mcmc.numba_joint import JointDensity
from bayesnoise.mcmc.rank_diagnostics import convergence_arrays

pytest.importorskip("numba")

EXACT_PRIORS = hb.Priors(theta_sd=2.1, difficulty_scale=1.9, phi_median=3.3, phi_log_sd=1.4)


def _data(rng, m=5, n=40):
    count = rng.choice([0, 1, 4, 10, 40, 80], size=(m, n), p=[0.1, 0.1, 0.2, 0.3, 0.2, 0.1])
    count[:, 0] = 10  # every model answers something
    u = rng.beta(2.0, 2.0, size=(m, n))
    return rng.binomial(count, u), count


def _pymc_functions(built):
    model = built.model
    return model.compile_logp(), model.compile_dlogp(), [v.name for v in model.value_vars]


def _grad_as_vector(dens, grad, names, point):
    parts, offset = {}, 0
    for name in names:
        size = np.size(point[name])
        parts[name] = grad[offset : offset + size]
        offset += size
    return dens.from_point(parts)


def _points(rng, dens, n_points=4):
    m, n = dens.shape
    for j in range(n_points):
        x = rng.normal(0.0, 0.7, dens.ndim)
        if j == n_points - 1:  # phi ~ 1.6e5: 10 factors exceed 1e50, the fallback path runs
            x[1 + m + n :] = 12.0
        yield x


# one cell per parametrisation and per kind of priors (each cell compiles PyMC's logp and dlogp,
# ~3 s CPU): centred with the default priors (float32 constants: a constant offset), non-centred
# with float64 priors (absolute agreement)
@pytest.mark.parametrize(
    ("priors", "noncentered"), [(None, False), (EXACT_PRIORS, True)], ids=["default", "float64"]
)
def test_numba_density_is_pymc_density(noncentered, priors):
    rng = np.random.default_rng(3)
    correct, count = _data(rng)
    built = hb.joint_model(correct, count, priors=priors, noncentered=noncentered)
    dens = JointDensity.from_built(built)
    logp, dlogp, names = _pymc_functions(built)
    offsets = []
    for x in _points(rng, dens):
        lp, grad = dens.logp_grad(x)
        point = dens.to_point(x)
        want_lp, want_grad = float(logp(point)), dlogp(point)
        want_grad = _grad_as_vector(dens, want_grad, names, point)
        # sum of absolute terms bounded by |logp| plus the prior terms: 10 |logp| is generous
        scale = 10 * abs(want_lp) + (count * 10).sum()
        assert np.allclose(grad, want_grad, rtol=1e-9, atol=1e-11 * scale), np.abs(
            grad - want_grad
        ).max()
        offsets.append(lp - want_lp)
    offsets = np.array(offsets)
    # the same density up to PyTensor's float32 constants: a constant offset, no more
    assert np.ptp(offsets) <= 1e-11 * scale
    bound = 1e-11 * scale if priors is not None else 1e-6 * dens.ndim
    assert np.all(np.abs(offsets) <= bound), offsets


def test_expand_gives_pymc_deterministics():
    rng = np.random.default_rng(4)
    correct, count = _data(rng, m=3, n=12)
    built = hb.joint_model(correct, count)
    dens = JointDensity.from_built(built)
    x = rng.normal(0.0, 0.5, dens.ndim)
    names = ["theta", "difficulty", "mu", "phi", "sigma_b", "theta_rel", "difficulty_dev"]
    model = built.model
    fn = model.compile_fn(
        model.replace_rvs_by_values([model[n] for n in names]),
        inputs=model.value_vars,
        on_unused_input="ignore",
    )
    want = dict(zip(names, fn(dens.to_point(x)), strict=True))
    got = dens.expand(x)
    for name in names:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-12, atol=1e-14, err_msg=name)


def _chains(rng, n_chain, n_draw, n_el):
    """AR(1) chains with coefficients from antithetic to sticky, plus awkward elements."""
    rho = np.linspace(-0.7, 0.97, n_el)
    x = rng.normal(size=(n_chain, n_draw, n_el))
    for t in range(1, n_draw):
        x[:, t] += rho * x[:, t - 1]
    x[:, :, 0] = 0.0  # constant
    x[:, :, 1] = np.round(x[:, :, 1])  # ties
    x[-1, :, 2] += 3.0  # one chain elsewhere
    x[:, :, 3] = rng.binomial(1, 0.04, size=(n_chain, n_draw))  # rare event, many ties
    return x


@pytest.mark.parametrize("n_chain,n_draw", [(2, 300), (4, 151), (1, 64)])
def test_convergence_arrays_equal_arviz(n_chain, n_draw):
    import arviz_stats as azs

    x = _chains(np.random.default_rng(n_chain), n_chain, n_draw, 24)
    ds = xr.Dataset({"v": (("chain", "draw", "e"), x)})
    with np.errstate(invalid="ignore", divide="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = {
                "r_hat": azs.rhat(ds)["v"].values,
                "ess_bulk": azs.ess(ds, method="bulk")["v"].values,
                "ess_tail": azs.ess(ds, method="tail")["v"].values,
                "mcse_mean": azs.mcse(ds, method="mean")["v"].values,
            }
            got = convergence_arrays(x)
    for key, value in want.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-12, atol=0, err_msg=key)


def test_antisymmetric_shortcut_gives_the_full_table():
    rng = np.random.default_rng(8)
    ubar = _chains(rng, 2, 200, 6)
    dbar = ubar[:, :, :, None] - ubar[:, :, None, :]
    post = xr.Dataset({"dbar": (("chain", "draw", "model_a", "model_b"), dbar)})
    fast = diagnostics_table(xr.DataTree.from_dict({"posterior": post}))
    # the same array with one element nudged is not antisymmetric: computed element by element
    dbar_full = dbar.copy()
    dbar_full[0, 0, 0, 1] += 1e-300
    post_full = xr.Dataset({"dbar": (("chain", "draw", "model_a", "model_b"), dbar_full)})
    full = diagnostics_table(xr.DataTree.from_dict({"posterior": post_full}))
    np.testing.assert_allclose(fast.values, full.values, rtol=1e-9)


@pytest.mark.mcmc
def test_nutpie_numba_samples_the_pymc_posterior():
    pytest.importorskip("nutpie")
    import arviz_stats as azs

    rng = np.random.default_rng(11)
    p = 1.0 / (1.0 + np.exp(-(rng.normal(0, 1, (3, 1)) - rng.normal(0, 1.5, (1, 60)))))
    count = np.full((3, 60), 6)
    count[0, :8] = 0  # unanswered cells
    correct = rng.binomial(count, rng.beta(4 * p, 4 * (1 - p)))
    built = hb.joint_model(correct, count)
    # the tolerance is 4 combined MCSEs of these draws (arviz), whatever their number
    kw = {"draws": 1000, "tune": 500, "chains": 2, "cores": 1, "progress": False}
    a = hb.fit(built, sampler="pymc", rng=1, **kw)
    b = hb.fit(built, sampler="nutpie", rng=1, **kw)
    for tree in (a, b):
        report = hb.check_convergence(tree, hb.diagnostics.default_var_names("joint"), warn=False)
        assert report.ok, report.message()
    assert set(a["posterior"].data_vars) == set(b["posterior"].data_vars)
    for name in ("theta", "phi", "sigma_b", "mu", "ubar"):
        da, db = a["posterior"][name], b["posterior"][name]
        assert da.dims == db.dims, name
        tol = 4.0 * np.hypot(azs.mcse(da, method="mean"), azs.mcse(db, method="mean")).values
        diff = np.abs((da.mean(("chain", "draw")) - db.mean(("chain", "draw"))).values)
        assert np.all(diff <= tol), (name, diff, tol)
