"""Fast tests of bayesnoise.mcmc: lazy import, validation, model structure, diagnostics.

The sampling tests (closed forms vs MCMC etc.) are in test_hierarchical_mcmc.py.
"""

import subprocess
import sys
import warnings

import numpy as np
import pytest
import xarray as xr

from bayesnoise import mcmc as hb


def test_import_does_not_load_pymc():
    code = (
        "import sys, bayesnoise, bayesnoise.mcmc\n"
        "from bayesnoise.mcmc import fit, marginal_model, posterior_table_mcmc\n"
        "bad = [m for m in ('pymc', 'pytensor', 'nutpie', 'arviz_stats') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"imported eagerly: {out.stdout.strip()}"


def test_model_data_validates():
    d = hb.model_data([[1, 2, 0], [3, 0, 1]], [[3, 3, 0], [3, 3, 3]], models=["a", "b"])
    assert d.correct.dtype == np.int64 and d.integer
    assert d.mask.tolist() == [[True, True, False], [True, True, True]]
    with pytest.raises(ValueError, match=r"\[0, count\]"):
        hb.model_data([[4]], 3)
    with pytest.raises(ValueError, match="non-negative integers"):
        hb.model_data([[1]], 2.5)
    with pytest.raises(ValueError, match="no answered question"):
        hb.model_data([[0, 0], [1, 1]], [[0, 0], [2, 2]], models=["x", "y"])
    with pytest.raises(TypeError, match="count is required"):
        hb.model_data([[1, 2]])
    with pytest.warns(UserWarning, match="quasi-likelihood"):
        frac = hb.model_data([[0.5, 1.0]], 1)
    assert not frac.integer


def test_model_data_from_dataset():
    ds = xr.Dataset(
        {
            "correct": (("question", "model"), np.array([[1.0, 2.0], [0.0, np.nan]])),
            "count": (("question", "model"), np.array([[2, 2], [2, 0]])),
        },
        coords={"model": ["m1", "m2"], "question": ["q1", "q2"]},
    )
    d = hb.model_data(ds)
    assert d.models == ["m1", "m2"] and d.questions == ["q1", "q2"]
    with pytest.raises(ValueError, match="need counts"):
        hb.model_data(ds.assign_attrs(counts_known=False))
    assert d.correct.tolist() == [[1, 0], [2, 0]]  # transposed, NaN on the unanswered cell -> 0
    assert d.count.tolist() == [[2, 2], [2, 0]]


def test_priors_mean_concentration():
    p = hb.Priors(mu_mean=0.8, mu_concentration=5.0, kappa_median=3.0)
    assert (p.mu_alpha, p.mu_beta) == pytest.approx((4.0, 1.0))
    with pytest.raises(ValueError, match="mu_mean"):
        hb.Priors(mu_mean=1.0)
    with pytest.raises(ValueError, match="kappa_log_sd"):
        hb.Priors(kappa_log_sd=0.0)


def test_prior_predictive_defaults_are_weakly_informative():
    s = hb.prior_predictive_summary(draws=2000, questions=200)
    # 95% prior ranges (2.5%, 97.5% quantiles) of what the defaults imply for a K = 10 benchmark
    assert s["accuracy"][0] < 0.05 and s["accuracy"][-1] > 0.95
    assert s["data_share"][0] < 0.1 and s["data_share"][-1] > 0.9
    assert 0.04 < s["kappa"][0] < 0.07 and 15 < s["kappa"][-1] < 25  # exp(+-1.96 * 1.5)


def test_builders_dims_and_variables():
    c = np.array([[3, 5, 0, 2], [10, 9, 8, 7]])
    k = np.array([[10, 10, 0, 10], [10, 10, 10, 10]])
    m = hb.marginal_model(c, k, models=["a", "b"])
    assert m.coords["model"] == ("a", "b") and len(m.coords["question"]) == 4
    assert {v.name for v in m.free_RVs} == {"mu", "kappa"}
    m = hb.marginal_model(c, k, aggregate=False)
    assert m.named_vars_to_dims["correct"] == ("model", "question")
    m = hb.latent_model(c, k)
    assert {v.name for v in m.free_RVs} == {"mu", "kappa", "u"}
    assert m.named_vars_to_dims["u"] == ("model", "question")
    assert {"ubar", "V_x", "V_pred", "data_var", "prediction_var"} <= set(m.named_vars)
    m = hb.fixed_hyper_model(c, k, mu=[0.3, 0.8], kappa=2.0)
    assert [v.name for v in m.free_RVs] == ["u"]
    with pytest.raises(ValueError, match="both mu and kappa"):
        hb.latent_model(c, k, mu=0.5)
    m = hb.joint_model(c, k)
    assert {"theta", "difficulty", "mu"} <= set(m.named_vars)


def test_marginal_aggregated_logp_equals_per_cell():
    """The sufficient-statistic likelihood is the per-cell Beta-Binomial likelihood exactly."""
    rng = np.random.default_rng(3)
    k = rng.integers(0, 6, size=(3, 40))
    c = rng.binomial(k, 0.4)
    agg = hb.marginal_model(c, k)
    cell = hb.marginal_model(c, k, aggregate=False)
    point = {"mu_logodds__": np.array([-0.3, 0.2, 1.0]), "kappa_log__": np.array([0.1, -1, 2])}
    from scipy.special import gammaln

    # the per-cell model includes log C(K, c); the aggregated one drops that constant
    const = (gammaln(k + 1) - gammaln(c + 1) - gammaln(k - c + 1)).sum()
    assert agg.compile_logp()(point) + const == pytest.approx(cell.compile_logp()(point), rel=1e-10)


def test_fit_rejects_bad_arguments():
    m = hb.marginal_model([[1, 2]], 3)
    with pytest.raises(ValueError, match="sampler"):
        hb.fit(m, sampler="stan")
    with pytest.raises(ValueError, match="draws"):
        hb.fit(m, draws=0)
    with pytest.raises(TypeError, match="built by bayesnoise"):
        import pymc as pm

        hb.fit(pm.Model())


def test_numpyro_missing_is_a_clear_error():
    import importlib.util

    if importlib.util.find_spec("numpyro") is not None:
        pytest.skip("numpyro is installed")
    with pytest.raises(ImportError, match=r"bayesnoise\[numpyro\]"):
        hb.fit(hb.marginal_model([[1, 2]], 3), sampler="numpyro")


def _tree(posterior, diverging=None):
    groups = {"posterior": xr.Dataset(posterior)}
    if diverging is not None:
        groups["sample_stats"] = xr.Dataset({"diverging": (("chain", "draw"), diverging)})
    return xr.DataTree.from_dict(groups)


def test_convergence_warning_names_variables():
    rng = np.random.default_rng(0)
    good = rng.normal(size=(2, 1000))
    stuck = np.stack([rng.normal(0, 1, 1000), rng.normal(2, 1, 1000)])
    sticky = np.repeat(rng.normal(size=(2, 50)), 20, axis=1)  # ESS ~ 100
    tree = _tree(
        {
            "good": (("chain", "draw"), good),
            "stuck": (("chain", "draw"), stuck),
            "sticky": (("chain", "draw"), sticky),
        },
        diverging=np.zeros((2, 1000), bool),
    )
    with pytest.warns(hb.ConvergenceWarning, match="stuck: r_hat") as rec:
        report = hb.check_convergence(tree)
    msg = str(rec[0].message)
    assert "sticky" in msg and "bulk ESS" in msg and "good" not in msg
    assert set(report.problems) == {"stuck", "sticky"} and report.divergences == 0


def test_convergence_warning_on_divergence_only():
    rng = np.random.default_rng(1)
    div = np.zeros((2, 1000), bool)
    div[1, 10] = True
    tree = _tree({"mu": (("chain", "draw"), rng.normal(size=(2, 1000)))}, diverging=div)
    with pytest.warns(hb.ConvergenceWarning, match="1 divergent"):
        report = hb.check_convergence(tree)
    assert not report.ok and report.problems == {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert hb.check_convergence(tree, warn=False).divergences == 1


def test_k1_warns_that_kappa_is_assumed():
    with pytest.warns(UserWarning, match=r"kappa is not identified for 1 model\(s\).*'b'"):
        hb.marginal_model([[1, 2, 3], [0, 1, 1]], [[3, 3, 3], [1, 1, 1]], models=["a", "b"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hb.fixed_hyper_model([[0, 1, 1]], 1, mu=0.5, kappa=1.0)  # kappa given: no warning


def test_pairs_need_two_models():
    ds = xr.Dataset(
        {
            "correct": (("model", "question"), [[1.0, 2.0]]),
            "count": (("model", "question"), [[2, 2]]),
        }
    )
    with pytest.raises(ValueError, match="two models"):
        hb.posterior_table_mcmc(ds, pairs=True)
