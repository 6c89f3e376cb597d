"""Regression tests of the audit's defects of the closed-form layer, and its calibration.

Each regression test starts from the input that failed before: kappa at a bound (intervals
collapsed), a flat kappa likelihood (crash or NaN depending on the seed), K = 1 (se from an
assumed kappa printed as measured), a population paired difference that collapsed when few
questions differ, and a population-level P(A > B) that was missing.
"""

import functools
import warnings
from pathlib import Path

import numpy as np
import pytest

from bayesnoise.conjugate import (
    fit_empirical_bayes,
    fresh_run_predictive,
    integrated_moments,
    paired_population_posterior,
    population_difference,
    posterior_pairs_table,
    posterior_table,
)
from bayesnoise.data import from_arrays
from studies.calibration import population_difference_cell

# 30 questions, K = 5, accuracy 0.9: the old fit said "estimated" with sd(log kappa) = 226,
# and `posterior` crashed with "b <= 0" or printed NaN ubar intervals depending on the seed.
FLAT = [4, 4, 5, 5, 5, 5, 5, 5, 4, 4, 5, 5, 5, 5, 5, 4, 4, 5, 4, 4, 5, 4, 4, 5, 2, 4, 4, 5, 5, 5]
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "all-the-noises"


def test_flat_kappa_likelihood_is_finite_for_every_seed():
    c = np.array([FLAT])
    ds = from_arrays(c, np.full(c.shape, 5), models=["m"])
    for seed in range(20):
        df = posterior_table(ds, rng=seed)
        assert np.isfinite(df[["mu_low", "mu_high", "ubar_low", "ubar_high"]].to_numpy()).all()
        assert df["ubar_low"][0] < df["ubar"][0] < df["ubar_high"][0]
        fresh = fresh_run_predictive(c, np.full(c.shape, 5), rng=seed)
        assert np.isfinite([fresh.low, fresh.high]).all() and fresh.low < fresh.high
    fit = fit_empirical_bayes(c, np.full(c.shape, 5))
    assert np.sqrt(fit.cov[0, 1, 1]) < 3  # the prior bounds the spread of log kappa


def test_kappa_at_lower_bound_keeps_its_uncertainty():
    # every question all-correct or all-wrong: the likelihood of kappa rises towards 0 and the
    # old ubar interval (kappa fixed at 0.01) had width 0.01
    c = np.array([0] * 15 + [5] * 15)
    k = np.full(30, 5)
    with pytest.warns(UserWarning, match="lower edge"):
        fit = fit_empirical_bayes(c, k)
    assert fit.kappa_status == "at lower bound"
    mom = integrated_moments(c, k, fit)
    pinned = integrated_moments(c, k, fit_empirical_bayes(c, k, kappa=0.01))
    assert np.sqrt(mom.ubar_var) > 1.5 * np.sqrt(pinned.ubar_var)
    # in simulation (kappa = 0.05, many fits at the bound) those fits now cover
    rng = np.random.default_rng(3)
    u = rng.beta(0.025, 0.025, (600, 30))
    cs = rng.binomial(5, u).astype(float)
    fits = fit_empirical_bayes(cs, np.full(cs.shape, 5.0), warn=False)
    mom = integrated_moments(cs, np.full(cs.shape, 5.0), fits)
    cover = np.abs(u.mean(1) - mom.ubar_mean) <= 1.96 * np.sqrt(mom.ubar_var)
    at = fits.kappa_status == "at lower bound"
    assert at.sum() > 50
    # was 0.06-0.21. Two-sided band around the nominal 0.95: 3 binomial Monte Carlo SEs,
    # sqrt(0.95 * 0.05 / n) with n the fits at the bound (126 here: 0.019, band [0.892, 1.008],
    # so at this size only under-coverage can fail; measured 0.921)
    tol = 3 * np.sqrt(0.95 * 0.05 / at.sum())
    assert abs(cover[at].mean() - 0.95) <= tol, (cover[at].mean(), at.sum())


def test_kappa_at_upper_bound_keeps_its_uncertainty():
    # no overdispersion: the old fit sat at kappa = 1e4 and mu covered 0.84
    rng = np.random.default_rng(4)
    c = rng.binomial(10, 0.3, size=(800, 100)).astype(float)
    fit = fit_empirical_bayes(c, np.full(c.shape, 10.0), warn=False)
    at = fit.kappa_status == "at upper bound"
    assert at.sum() > 100
    lo, hi = fit.mu_interval(0.95)
    cover = (lo <= 0.3) & (0.3 <= hi)
    # two-sided: 3 binomial Monte Carlo SEs around 0.95, sqrt(0.95 * 0.05 / n) with n the fits
    # at the bound (438 here: band [0.919, 0.981]; measured 0.961)
    tol = 3 * np.sqrt(0.95 * 0.05 / at.sum())
    assert abs(cover[at].mean() - 0.95) <= tol, (cover[at].mean(), at.sum())


@pytest.mark.skipif(not DATA.exists(), reason="shared data not present")
def test_real_model_at_the_cap_gets_a_wider_mu_interval():
    from bayesnoise import complete, load

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load(DATA / "lowk_temp1" / "input_table_math500_cot.csv")
        ds = complete(ds, on_missing="intersect")
        ds = ds.sel(model=["google_gemma_2b_it"])
        df = posterior_table(ds)
        at10 = posterior_table(ds, kappa=10.0)
    assert df["kappa_status"][0] == "at upper bound"
    width = df["mu_high"][0] - df["mu_low"][0]
    # kappa = 10 is only 0.9 log-likelihood units worse; the old interval (kappa = 1e4) was
    # 14% narrower than this one. mu now comes from the Dirichlet posterior of the mean
    # per-question score, which does not involve kappa at all: the same interval either way.
    assert width == pytest.approx(at10["mu_high"][0] - at10["mu_low"][0], rel=1e-12)


def test_k1_does_not_print_se_from_an_assumed_kappa():
    rng = np.random.default_rng(8)
    c = rng.binomial(1, rng.beta(2.5, 2.5, (2, 100)))
    ds = from_arrays(c, np.ones_like(c), models=["a", "b"])
    with pytest.warns(UserWarning, match=r"kappa is not identifiable .* \(K = 1\)"):
        df = posterior_table(ds)
    assert (df["kappa_status"] == "not identified (K = 1): prior").all()
    assert df[["se_data_bayes", "se_prediction_bayes"]].isna().all().all()
    assert np.isfinite(df[["mu_low", "mu_high", "ubar_low", "ubar_high"]].to_numpy()).all()


@pytest.mark.parametrize(
    ("d", "n_questions"),
    [(np.zeros(2), 200), (np.full(1, 0.4), 1), (np.r_[1.0, 1.0], 200)],
    ids=["all-zero", "one-question", "twins-2-of-200"],
)
def test_population_difference_does_not_collapse(d, n_questions):
    diffs = np.zeros(n_questions)
    diffs[: d.size] = d
    post = paired_population_posterior(diffs, n_resamples=20_000)
    assert post["low"] < 0 < post["high"]  # [0, 0], [0.4, 0.4], [0.0011, 0.027] before
    assert 0.05 < post["prob_a_better"] < 0.95


def test_population_difference_k1_close_to_tango():
    # b = c = 0 discordant pairs out of N = 200 at K = 1: Tango's score interval is
    # +-z^2 / (N + z^2) = +-0.0188; the Jeffreys-like Dirichlet gives about +-0.011
    post = paired_population_posterior(np.zeros(200), n_resamples=200_000)
    tango = 1.959964**2 / (200 + 1.959964**2)
    half = (post["high"] - post["low"]) / 2
    assert 0.5 * tango < half < tango


def test_all_pairs_and_one_pair_agree():
    rng = np.random.default_rng(9)
    p = rng.binomial(5, rng.beta(1, 1, (3, 80))) / 5
    allp = population_difference(p, n_resamples=40_000, rng=1)
    one = paired_population_posterior(p[0] - p[2], n_resamples=40_000, rng=2)
    for key in ("mean", "sd"):
        assert allp[key][0, 2] == pytest.approx(one[key])
    for key in ("low", "high"):
        assert allp[key][0, 2] == pytest.approx(one[key], abs=3e-3)
    assert allp["low"][2, 0] == pytest.approx(-allp["high"][0, 2])
    assert allp["prob_a_better"][2, 0] == pytest.approx(1 - allp["prob_a_better"][0, 2])


def test_pairs_table_has_both_probabilities_beside_their_intervals():
    from bayesnoise.conjugate import POSTERIOR_PAIR_COLUMNS

    assert POSTERIOR_PAIR_COLUMNS == [
        "model_a",
        "model_b",
        "dbar",
        "dbar_low",
        "dbar_high",
        "prob_a_better",
        "dbar_method",
        "mu_difference",
        "mu_difference_low",
        "mu_difference_high",
        "prob_a_better_population",
    ]
    rng = np.random.default_rng(10)
    u = rng.beta(1, 1, 60)
    c = rng.binomial(5, np.stack([u, u]))
    df = posterior_pairs_table(from_arrays(c, np.full(c.shape, 5), models=["a", "b"]))
    row = df.iloc[0]
    assert row["mu_difference_low"] <= row["mu_difference"] <= row["mu_difference_high"]
    assert 0 <= row["prob_a_better_population"] <= 1


# Calibration of the population paired difference under a null (true difference 0), two
# models with Beta(mu, kappa = 1) marginals coupled by a Gaussian copula (rho = 0.8). 600
# replicates per cell: MCSE sqrt(0.95 * 0.05 / 600) = 0.0089 for a coverage near 0.95, and
# the coverage must lie within 3 MCSE of 0.95 on both sides, [0.923, 0.977] (false alarm
# about 0.3% per cell). The K = 1, N = 30, accuracy 0.05 cell over-covers (the two models
# differ on a handful of questions; even the exact sign test is conservative there; outside
# issue 20's K = 1 target N >= 100): strict xfail with the numbers, so a fix shows up as an
# unexpected pass. The K = 5 cell over-covered (0.993) with the end atoms far out; with the
# atoms at the typical difference size (issue 20) it is in the band.
def _over(measured):
    return pytest.mark.xfail(
        strict=True, reason=f"over-covers at N = 30, accuracy 0.05: {measured}, band [0.923, 0.977]"
    )


_CELLS = [
    pytest.param(30, 1, 0.05, marks=_over("0.983 (MCSE 0.005)")),
    (30, 1, 0.5),  # 0.952
    (30, 1, 0.9),  # 0.948
    (30, 5, 0.05),
    (30, 5, 0.5),  # 0.935
    (30, 5, 0.9),  # 0.977
    *[(100, k, acc) for k in (1, 5) for acc in (0.05, 0.5, 0.9)],  # 0.928-0.958
]


@functools.cache
def _population_difference(n, k, acc):
    return population_difference_cell(n, k, acc, replicates=600, draws=800, rng=n + k)


def _width_and_size(out, acc):
    """Width: median over replicates of the width / the paired t interval's <= 1.3 (issue 20's
    criterion; 0.95-1.13 measured). Size of P(A > B) > 0.95 under the null: at most the 6% end
    of the 4-6% target plus 3 binomial MCSE at R = 600 (sqrt(0.06 x 0.94 / 600) = 0.0097:
    0.089), and at accuracy 0.5 at least 0.04 - 3 sqrt(0.04 x 0.96 / 600) = 0.016."""
    assert out["width_ratio_t"] <= 1.3, out
    assert out["p_over_95"] <= 0.06 + 3 * np.sqrt(0.06 * 0.94 / 600), out
    if acc == 0.5:
        assert out["p_over_95"] >= 0.04 - 3 * np.sqrt(0.04 * 0.96 / 600), out


@pytest.mark.slow
@pytest.mark.parametrize(("n", "k", "acc"), [getattr(c, "values", c) for c in _CELLS])
def test_population_difference_width_and_size(n, k, acc):
    """Every cell, the strict-xfail coverage cell included (no xfail here): a wider interval
    or a lost size fails even where coverage is a known limit (issue 28)."""
    _width_and_size(_population_difference(n, k, acc), acc)


@pytest.mark.slow
@pytest.mark.parametrize(("n", "k", "acc"), _CELLS)
def test_population_difference_calibration(n, k, acc):
    """Width and size first (:func:`_width_and_size`), then coverage within nominal +- 3
    binomial MCSE at R = 600 (z = 3): [0.923, 0.977]."""
    out = _population_difference(n, k, acc)
    _width_and_size(out, acc)
    tol = 3 * np.sqrt(0.95 * 0.05 / 600)
    assert abs(out["coverage"] - 0.95) <= tol, out
