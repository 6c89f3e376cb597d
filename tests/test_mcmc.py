"""Fast tests of bayesnoise.mcmc: lazy import, validation, model structure, diagnostics.

The sampling tests (closed forms vs MCMC etc.) are in test_mcmc_sampling.py.
"""

import importlib.util
import subprocess
import sys
import warnings

import numpy as np
import pytest
import xarray as xr

from bayesnoise import mcmc as hb
from bayesnoise._common import OptionalDependencyError
from bayesnoise.data import DataError, from_arrays


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
    assert d.correct.dtype == np.int64 and d.count.dtype == np.int64
    assert d.mask.tolist() == [[True, True, False], [True, True, True]]
    with pytest.raises(DataError, match=r"outside \[0, count"):
        hb.model_data([[4]], 3)
    with pytest.raises(DataError, match="whole numbers >= 0"):
        hb.model_data([[1]], 2.5)
    with pytest.raises(DataError, match="no answered question"):
        hb.model_data([[0, 0], [1, 1]], [[0, 0], [2, 2]], models=["x", "y"])
    with pytest.raises(TypeError, match="count is required"):
        hb.model_data([[1, 2]])


def test_model_data_refuses_instead_of_clipping():
    # slightly outside [0, K] used to be clipped silently: now refused, like everywhere else
    for c in ([[3.0 + 1e-10]], [[-1e-10]]):
        with pytest.raises(DataError, match="outside"):
            hb.model_data(c, 3)


def test_fractional_counts_are_refused():
    # used to be fitted with a quasi-likelihood and a warning
    with pytest.raises(DataError, match="whole numbers correct out of K") as err:
        hb.model_data([[0.5, 1.0]], 1)
    assert "frequentist" in str(err.value) and "partial credit" in str(err.value)
    with pytest.raises(DataError, match="whole numbers correct out of K"):
        hb.marginal_model([[0.5, 1.0]], 1)
    partial = from_arrays([[1.5, 2.0]], [[3, 3]], source="scores.csv")
    with pytest.raises(DataError, match=r"scores\.csv.*whole numbers correct out of K"):
        hb.model_data(partial)


def test_model_data_from_dataset():
    ds = xr.Dataset(
        {
            "correct": (("question", "model"), np.array([[1.0, 2.0], [0.0, 0.0]])),
            "samples": (("question", "model"), np.array([[2, 2], [2, 0]])),
        },
        coords={"model": ["m1", "m2"], "question": ["q1", "q2"]},
    )
    d = hb.model_data(ds)
    assert d.models == ["m1", "m2"] and d.questions == ["q1", "q2"]
    with pytest.raises(DataError, match="needs counts"):
        hb.model_data(ds.assign_attrs(counts_known=False))
    assert d.correct.tolist() == [[1, 0], [2, 0]]  # transposed
    assert d.count.tolist() == [[2, 2], [2, 0]]
    # NaN is refused, also on an unanswered cell (the dataset contract: nothing is imputed)
    bad = ds.copy(deep=True)
    bad["correct"][1, 1] = np.nan
    with pytest.raises(DataError, match="NaN"):
        hb.model_data(bad)


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
    built = hb.marginal_model(c, k, models=["a", "b"])
    m = built.model
    assert m.coords["model"] == ("a", "b") and len(m.coords["question"]) == 4
    assert {v.name for v in m.free_RVs} == {"mu", "kappa"}
    assert built.kind == "marginal" and built.data.models == ["a", "b"]
    assert built.priors is hb.DEFAULT_PRIORS
    m = hb.marginal_model(c, k, aggregate=False).model
    assert m.named_vars_to_dims["correct"] == ("model", "question")
    built = hb.latent_model(c, k)
    m = built.model
    assert built.kind == "latent"
    assert {v.name for v in m.free_RVs} == {"mu", "kappa", "u"}
    assert m.named_vars_to_dims["u"] == ("model", "question")
    assert {"ubar", "V_x", "V_pred", "data_var", "prediction_var"} <= set(m.named_vars)
    built = hb.fixed_hyper_model(c, k, mu=[0.3, 0.8], kappa=2.0)
    assert built.kind == "fixed"
    assert [v.name for v in built.model.free_RVs] == ["u"]
    with pytest.raises(ValueError, match="both mu and kappa"):
        hb.latent_model(c, k, mu=0.5)
    built = hb.joint_model(c, k)
    assert built.kind == "joint"
    assert {"theta", "difficulty", "mu"} <= set(built.model.named_vars)


def test_builders_attach_nothing_to_the_pymc_model():
    built = hb.marginal_model([[1, 2]], 3, priors=hb.Priors(kappa_median=2.0))
    assert isinstance(built, hb.BuiltModel) and built.priors.kappa_median == 2.0
    assert not [a for a in vars(built.model) if "bayesnoise" in a]
    with pytest.raises(AttributeError):
        built.kind = "joint"  # frozen
    again = hb.joint_model(built.data)  # a ModelData is accepted as it is
    assert again.data is built.data


def test_marginal_aggregated_logp_equals_per_cell():
    """The sufficient-statistic likelihood is the per-cell Beta-Binomial likelihood exactly."""
    rng = np.random.default_rng(3)
    k = rng.integers(0, 6, size=(3, 40))
    c = rng.binomial(k, 0.4)
    agg = hb.marginal_model(c, k).model
    cell = hb.marginal_model(c, k, aggregate=False).model
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
    with pytest.raises(TypeError, match="built by bayesnoise"):
        hb.fit(m.model)  # the bare pm.Model: fit needs the BuiltModel


def test_numpyro_missing_is_a_clear_error():
    if importlib.util.find_spec("numpyro") is not None:
        pytest.skip("numpyro is installed")
    with pytest.raises(OptionalDependencyError, match=r"bayesnoise\[numpyro\]"):
        hb.fit(hb.marginal_model([[1, 2]], 3), sampler="numpyro")


def _hide(monkeypatch, *hidden):
    real = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        return None if name.split(".")[0] in hidden else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def test_missing_sampler_is_one_clear_error_before_compiling(monkeypatch):
    import pymc as pm

    built = hb.marginal_model([[1, 2]], 3)

    def compile_called(*args, **kwargs):
        raise AssertionError("compiled or sampled before checking the sampler's package")

    monkeypatch.setattr(pm, "sample", compile_called)
    if importlib.util.find_spec("nutpie") is not None:
        import nutpie

        monkeypatch.setattr(nutpie, "compile_pymc_model", compile_called)
    _hide(monkeypatch, "nutpie", "numpyro", "jax")
    for sampler in ("nutpie", "numpyro"):
        with pytest.raises(OptionalDependencyError) as err:
            hb.fit(built, sampler=sampler)
        msg = str(err.value)
        assert f"pip install 'bayesnoise[{sampler}]'" in msg and "\n" not in msg
        assert isinstance(err.value, ImportError)


def test_auto_sampler_is_nutpie_for_the_joint_model_only_when_installed(monkeypatch):
    # "auto" (the default of fit and of the CLI) picks nutpie's numba density for the joint
    # model, the one PyMC's NUTS cannot fit in a minute at 50 x 500; every other model, and
    # the joint one without nutpie, gets PyMC's NUTS, never an error about a missing extra
    has_nutpie = importlib.util.find_spec("nutpie") is not None
    assert hb.resolve_sampler("auto", "joint") == ("nutpie" if has_nutpie else "pymc")
    for kind in ("marginal", "latent", "fixed_hyper", "cluster"):
        assert hb.resolve_sampler("auto", kind) == "pymc"
    for name in ("pymc", "nutpie", "numpyro"):
        assert hb.resolve_sampler(name, "joint") == name
    _hide(monkeypatch, "nutpie")
    assert hb.resolve_sampler("auto", "joint") == "pymc"


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
    with pytest.warns(UserWarning, match=r"kappa .* is not identified for 1 model\(s\).*: b\."):
        hb.marginal_model([[1, 2, 3], [0, 1, 1]], [[3, 3, 3], [1, 1, 1]], models=["a", "b"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hb.fixed_hyper_model([[0, 1, 1]], 1, mu=0.5, kappa=1.0)  # kappa given: no warning


def test_unidentified_kappa_warning_names_models_says_what_to_do_once():
    correct = [[1, 2, 3], [0, 1, 1], [1, 0, 1]]
    count = [[3, 3, 3], [1, 1, 1], [1, 1, 1]]
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        hb.marginal_model(correct, count, models=["big", "tiny", "small"])
    assert len(rec) == 1
    w = rec[0]
    assert issubclass(w.category, hb.IdentifiabilityWarning)
    assert issubclass(w.category, UserWarning)
    msg = str(w.message)
    assert "tiny, small" in msg and "big" not in msg
    assert "K >= 2" in msg and "Priors(kappa_median" in msg  # what to do about it
    assert "pass kappa=" not in msg  # no option that does not exist
    # attributed to the caller, not to a file inside bayesnoise
    assert w.filename == __file__


def test_convergence_warning_points_at_the_caller():
    rng = np.random.default_rng(0)
    stuck = np.stack([rng.normal(0, 1, 300), rng.normal(3, 1, 300)])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        hb.check_convergence(_tree({"mu": (("chain", "draw"), stuck)}))
    assert [w.filename for w in rec] == [__file__]


def test_pairs_need_two_models():
    ds = xr.Dataset(
        {
            "correct": (("model", "question"), [[1.0, 2.0]]),
            "samples": (("model", "question"), [[2, 2]]),
        }
    )
    with pytest.raises(ValueError, match="two models"):
        hb.posterior_table_mcmc(ds, by="pair")
