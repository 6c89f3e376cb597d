"""MCMC checks of bayesnoise.mcmc: every closed form against PyMC sampling of the same model.

Tolerances come from arviz's Monte Carlo standard errors. Derivation: for a posterior
expectation E[f], the MCMC estimate is approximately Normal(E[f], MCSE^2) with
MCSE = sd(f) / sqrt(ESS) (``arviz_stats.mcse``, method "mean"; method "sd" for the posterior
sd). The closed form is exact, so each standardised error is ~N(0, 1) when sampler and closed
form are both right. An array of n such comparisons (e.g. the sd of every u_i) is checked at
the Bonferroni bound z_n = Phi^-1(1 - ALPHA / (2 n)) with ALPHA = 0.001 per array, so that a
test with up to ~10 arrays has a family-wise false-alarm rate below 1% (a fixed 4 MCSE gave
~6% per seed with ~1,000 comparisons, and failed at 4.08 MCSE on the 184 u_i sds of gmat_cot
in one environment with unchanged code); z_n is 3.5 for n = 2 and 4.6 for n = 200, while a
real discrepancy (a wrong moment formula) is typically tens of MCSE. Comparing two MCMC estimates, the MCSEs add in quadrature:
|a - b| <= 4 sqrt(MCSE_a^2 + MCSE_b^2). Before comparing we require the fit to pass the
convergence check (r_hat <= 1.01, ESS >= 400, no divergences), so the MCSEs can be trusted.
"""

import warnings

import numpy as np
import pytest
import xarray as xr

from bayesnoise import conjugate
from bayesnoise import mcmc as hb

pytestmark = pytest.mark.mcmc

TOL = 4.0  # in Monte Carlo standard errors, for comparisons of two MCMC estimates
ALPHA = 0.001  # false-alarm probability per array of comparisons (Bonferroni within the array)


def _tolerance(n: int) -> float:
    """Bonferroni bound in MCSE for n comparisons at family-wise level ALPHA."""
    from scipy import special

    return float(special.ndtri(1 - ALPHA / (2 * max(n, 1))))


SAMPLE = ("chain", "draw")


def _fit(model, **kw):
    # one process: 2 x 1000 draws of these small models take 1.7 s CPU / 1.8 s wall in one process
    # and 2.4 s / 2.4 s in two (starting the worker processes costs more than it saves)
    kw = {"draws": 1000, "tune": 1000, "chains": 2, "cores": 1, "progress": False, **kw}
    tree = hb.fit(model, **kw)
    kind = tree.attrs["bayesnoise_model"]
    report = hb.check_convergence(tree, hb.diagnostics.default_var_names(kind), warn=False)
    assert report.ok, report.message()
    return tree


def _mcse(da, method):
    import arviz_stats as azs

    return azs.mcse(da, method=method).values


def _assert_moments(draws: xr.DataArray, mean, sd, what: str):
    """Posterior mean and sd of ``draws`` (dims chain, draw, ...) vs exact values."""
    m_hat = draws.mean(SAMPLE).values
    s_hat = draws.std(SAMPLE).values
    m_err = np.abs(m_hat - mean) / _mcse(draws, "mean")
    s_err = np.abs(s_hat - sd) / _mcse(draws, "sd")
    tol = _tolerance(np.size(m_err))
    assert np.all(m_err <= tol), f"{what} mean: worst {m_err.max():.2f} MCSE (bound {tol:.2f})"
    assert np.all(s_err <= tol), f"{what} sd: worst {s_err.max():.2f} MCSE (bound {tol:.2f})"
    return float(m_err.max()), float(s_err.max())


def _check_fixed_against_closed_forms(correct, count, mu, kappa, seed, draws=1000):
    model = hb.fixed_hyper_model(correct, count, mu=mu, kappa=kappa)
    tree = _fit(model, rng=seed, draws=draws)
    post = tree["posterior"]
    mask = count > 0
    alpha, beta = conjugate.question_posteriors(correct, count, mu, kappa)
    mean_u, var_u, _, _ = conjugate.beta_central_moments(alpha, beta)
    worst = [_assert_moments(post["u"], mean_u, np.sqrt(var_u), "u_i")]
    mom = conjugate.finite_sample_moments(alpha, beta, mask=mask)
    for name, key in (("ubar", "ubar"), ("V_x", "v_x"), ("V_pred", "v_pred")):
        worst.append(
            _assert_moments(
                post[name], getattr(mom, f"{key}_mean"), np.sqrt(getattr(mom, f"{key}_var")), name
            )
        )
    both = mask[0] & mask[1]
    u = post["u"]
    dbar = (u.isel(model=0) - u.isel(model=1)).where(xr.DataArray(both, dims="question"))
    dbar = dbar.mean("question")  # NaN (unanswered by one of the two) skipped
    d_mean, d_var = conjugate.paired_difference_moments(
        alpha[0], beta[0], alpha[1], beta[1], mask=both
    )
    worst.append(_assert_moments(dbar, d_mean, np.sqrt(d_var), "dbar"))
    for name, (m, sd) in zip(["u_i", "ubar", "V_x", "V_pred", "dbar"], worst, strict=True):
        print(f"  {name}: worst mean {m:.2f} MCSE, worst sd {sd:.2f} MCSE")
    return np.max(worst)


def test_fixed_hyperparameters_match_closed_forms_simulated():
    rng = np.random.default_rng(11)
    n = 40
    mu, kappa = np.array([0.35, 0.65]), np.array([1.5, 4.0])
    count = rng.integers(1, 9, size=(2, n))
    count[0, :4] = 0  # model 0 skipped four questions: masked, not imputed
    u = rng.beta(mu[:, None] * kappa[:, None], (1 - mu[:, None]) * kappa[:, None])
    correct = rng.binomial(count, u)
    worst = _check_fixed_against_closed_forms(correct, count, mu, kappa, seed=1)
    print(f"simulated: worst |MCMC - closed form| = {worst:.2f} MCSE")


@pytest.mark.shared_data
def test_fixed_hyperparameters_match_closed_forms_real(shared_data):
    from bayesnoise import load

    ds = load(shared_data / "all-the-noises" / "lowk_temp0.7" / "input_table_gmat_cot.csv")
    ds = ds.isel(model=[0, 10])  # ragged K (4..13 samples per question), 92 questions
    correct = ds["correct"].values.astype(int)
    count = ds["samples"].values
    eb = conjugate.fit_empirical_bayes(correct, count)
    # 2000 draws: ~750 comparisons here, and the sample sd of strongly skewed posteriors such as
    # Beta(0.28, 5.9) (c = 0 of K = 4) has heavier tails than the normal the MCSE assumes; at
    # 1000 draws one of the 184 u sds came out at 4.5 MCSE, while 236 replicate elements with
    # exactly that posterior gave z-scores of mean -0.04 and sd 1.04 (no bias).
    worst = _check_fixed_against_closed_forms(correct, count, eb.mu, eb.kappa, seed=2, draws=2000)
    print(f"gmat_cot: worst |MCMC - closed form| = {worst:.2f} MCSE")


def test_full_bayes_matches_empirical_bayes_n500():
    rng = np.random.default_rng(5)
    mu, kappa, k, n = np.array([0.3, 0.7]), np.array([1.0, 3.0]), 5, 500
    u = rng.beta(mu[:, None] * kappa[:, None], (1 - mu[:, None]) * kappa[:, None], size=(2, n))
    correct = rng.binomial(k, u)
    count = np.full_like(correct, k)
    tree = _fit(hb.marginal_model(correct, count), draws=2000, rng=3)
    post = tree["posterior"]
    eb = conjugate.fit_empirical_bayes(correct, count)
    for name, point in (("mu", eb.mu), ("kappa", eb.kappa)):
        dist = np.abs(post[name].mean(SAMPLE).values - point) / post[name].std(SAMPLE).values
        print(f"{name}: MCMC mean {dist} posterior sds from empirical Bayes")
        assert np.all(dist <= 1.0), f"{name}: {dist} posterior sds from empirical Bayes"
    # ubar 95% intervals: full Bayes vs empirical Bayes with Laplace-integrated (mu, kappa)
    cf = conjugate.finite_sample_posterior(correct, count, eb, n_resamples=20000, rng=0)
    q = post["ubar"].quantile([0.025, 0.975], dim=SAMPLE).values
    width_mcmc = q[1] - q[0]
    width_eb = cf.ubar_high - cf.ubar_low
    rel = np.abs(width_mcmc / width_eb - 1)
    print(f"ubar 95% interval width, MCMC / empirical Bayes - 1: {width_mcmc / width_eb - 1}")
    assert np.all(rel <= 0.10), f"ubar interval widths differ by {rel}"


def test_marginal_and_latent_give_the_same_hyperposterior():
    rng = np.random.default_rng(8)
    mu, kappa, k, n = np.array([0.4, 0.7]), np.array([3.0, 6.0]), 10, 100
    u = rng.beta(mu[:, None] * kappa[:, None], (1 - mu[:, None]) * kappa[:, None], size=(2, n))
    correct = rng.binomial(k, u)
    marg = _fit(hb.marginal_model(correct, k), rng=4)["posterior"]
    lat = _fit(hb.latent_model(correct, k), draws=1500, tune=1500, target_accept=0.9, rng=5)[
        "posterior"
    ]
    for name in ("mu", "kappa", "ubar", "V_x", "V_pred"):
        a, b = marg[name], lat[name]
        for method, stat in (
            ("mean", a.mean(SAMPLE) - b.mean(SAMPLE)),
            ("sd", a.std(SAMPLE) - b.std(SAMPLE)),
        ):
            tol = TOL * np.hypot(_mcse(a, method), _mcse(b, method))
            print(f"marginal vs latent {name} {method}: {np.abs(stat.values) / tol * TOL} MCSE")
            assert np.all(np.abs(stat.values) <= tol), f"{name} {method}: {stat.values} > {tol}"


def test_nutpie_agrees_with_pymc():
    pytest.importorskip("nutpie")
    rng = np.random.default_rng(9)
    correct = rng.binomial(8, rng.beta(2.0, 3.0, size=(2, 120)))
    model = hb.marginal_model(correct, 8)
    a = _fit(model, rng=6)["posterior"]
    tree = _fit(model, sampler="nutpie", rng=6)
    assert tree.attrs["sampler"] == "nutpie" and "tree_depth" in tree["sample_stats"]
    b = tree["posterior"]
    for name in ("mu", "kappa", "ubar"):
        tol = TOL * np.hypot(_mcse(a[name], "mean"), _mcse(b[name], "mean"))
        diff = np.abs((a[name].mean(SAMPLE) - b[name].mean(SAMPLE)).values)
        assert np.all(diff <= tol), name


def test_fit_tree_save_load_roundtrip(tmp_path):
    rng = np.random.default_rng(2)
    count = np.full((2, 30), 4)
    count[1, :5] = 0
    correct = rng.binomial(count, 0.6)
    tree = hb.fit(
        hb.marginal_model(correct, count, models=["a", "b"]),
        draws=200,
        tune=200,
        progress=False,
        check=False,
        rng=3,
    )
    assert set(tree.children) >= {"posterior", "sample_stats", "observed_data"}
    assert tree["observed_data"]["count"].values.tolist() == count.tolist()
    # the derived ubar averages over answered questions only
    assert float(tree["posterior"]["ubar"].sel(model="b").mean()) == pytest.approx(
        correct[1, 5:].mean() / 4, abs=0.05
    )
    path = hb.save_fit(tree, tmp_path / "fit.nc")
    back = hb.load_fit(path)
    xr.testing.assert_identical(back["posterior"].to_dataset(), tree["posterior"].to_dataset())
    xr.testing.assert_equal(back["sample_stats"].to_dataset(), tree["sample_stats"].to_dataset())
    assert back.attrs["bayesnoise_model"] == "marginal" and back.attrs["random_seed"] == 3
    again = hb.fit(
        hb.marginal_model(correct, count, models=["a", "b"]),
        draws=200,
        tune=200,
        progress=False,
        check=False,
        rng=3,
    )
    xr.testing.assert_equal(again["posterior"].to_dataset(), tree["posterior"].to_dataset())


def test_posterior_tables_have_the_conjugate_columns(tmp_path):
    rng = np.random.default_rng(4)
    b = rng.normal(0, 1.5, 80)
    p = 1 / (1 + np.exp(-(np.array([-0.5, 0.0, 0.8])[:, None] - b)))
    correct = rng.binomial(5, p).astype(float)
    ds = xr.Dataset(
        {
            "correct": (("model", "question"), correct),
            "samples": (("model", "question"), np.full(correct.shape, 5)),
        },
        coords={"model": ["a", "b", "c"]},
    )
    posterior_columns = list(conjugate.posterior_table(ds).columns)
    # dbar_method says which of the closed form's K = 1 intervals dbar took; MCMC has one
    pair_columns = [c for c in conjugate.posterior_pairs_table(ds).columns if c != "dbar_method"]
    per_model = hb.posterior_table_mcmc(ds, progress=False, save=tmp_path / "m.nc")
    # the MCMC columns are the conjugate ones with the method (or the Beta estimand) in the name
    counterpart = {
        "mu_beta": "mu",
        "ubar_mcmc": "ubar",
        "kappa_median_mcmc": "kappa_median",
        "dbar_mcmc": "dbar",
    }
    counterpart |= {"se_data_mcmc": "se_data_bayes", "se_prediction_mcmc": "se_prediction_bayes"}
    counterpart |= {"prob_a_better_mcmc": "prob_a_better", "mu_beta_difference": "mu_difference"}
    counterpart |= {"prob_a_better_beta": "prob_a_better_population"}

    def renamed(columns):
        out = []
        for c in columns:
            stem, end = (
                (c[: -len(e)], e)
                if (
                    e := next(
                        (
                            x
                            for x in ("_low", "_high")
                            if c.endswith(x) and c[: -len(x)] in counterpart
                        ),
                        "",
                    )
                )
                else (c, "")
            )
            out.append(counterpart.get(stem, stem) + end)
        return out

    assert renamed(per_model.columns) == posterior_columns
    assert (tmp_path / "m.nc").exists()
    assert np.all(
        (per_model["ubar_mcmc_low"] < per_model["ubar_mcmc"])
        & (per_model["ubar_mcmc"] < per_model["ubar_mcmc_high"])
    )
    pairs = hb.posterior_table_mcmc(ds, by="pair", progress=False)
    assert renamed(pairs.columns) == pair_columns
    assert pairs[["model_a", "model_b"]].values.tolist() == [["a", "b"], ["a", "c"], ["b", "c"]]
    observed = correct.mean(axis=1) / 5
    obs_diff = observed[[0, 0, 1]] - observed[[1, 2, 2]]
    assert np.all(pairs["dbar_mcmc_low"] < obs_diff) and np.all(obs_diff < pairs["dbar_mcmc_high"])
    # the population interval adds the paired data noise: wider than the finite-sample one
    assert np.all(
        pairs["mu_beta_difference_high"] - pairs["mu_beta_difference_low"]
        > pairs["dbar_mcmc_high"] - pairs["dbar_mcmc_low"]
    )
    assert pairs.attrs["model"] == "joint" and pairs.attrs["divergences"] == 0


def test_progress_goes_to_stderr_not_stdout(capfd):
    """With its progress bar on, fit writes nothing to standard output (only to stderr)."""
    rng = np.random.default_rng(12)
    correct = rng.binomial(5, rng.beta(2.0, 2.0, size=(2, 40)))
    built = hb.marginal_model(correct, 5)
    capfd.readouterr()
    tree = hb.fit(built, draws=100, tune=100, chains=1, progress=True, check=False)
    out = capfd.readouterr().out
    assert "posterior" in tree.children
    assert out == "", f"progress written to stdout: {out[:200]!r}"


def test_table_warnings_are_said_once_and_point_at_the_caller():
    rng = np.random.default_rng(13)
    correct = rng.binomial(1, 0.6, size=(2, 50)).astype(float)
    ds = xr.Dataset(
        {
            "correct": (("model", "question"), correct),
            "samples": (("model", "question"), np.ones_like(correct, dtype=int)),
        },
        coords={"model": ["k1a", "k1b"]},
    )
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        hb.posterior_table_mcmc(ds, draws=100, tune=100, chains=1, progress=False)
    ident = [w for w in rec if issubclass(w.category, hb.IdentifiabilityWarning)]
    assert len(ident) == 1 and "k1a, k1b" in str(ident[0].message)
    conv = [w for w in rec if issubclass(w.category, hb.ConvergenceWarning)]
    assert len(conv) == 1  # 100 draws of one chain: ESS < 400
    ours = [w for w in rec if issubclass(w.category, UserWarning)]
    assert {w.filename for w in ours} == {__file__}, [(w.filename, w.lineno) for w in ours]
