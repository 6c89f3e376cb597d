"""K = 1: ``ubar`` and ``dbar`` do not rest on kappa, which one sample per question cannot identify.

With one sample per question the likelihood does not depend on kappa (how alike the questions
are), yet the error of the accuracy as an estimate of ``ubar = mean_i u_i`` does: given the
u_i its variance is ``sum_i u_i (1 - u_i) / N^2 <= ubar (1 - ubar) / N``, with equality only
when every u_i is the same. The default interval at K = 1 is therefore the binomial bound,
the Jeffreys posterior ``Beta(c + 1/2, N - c + 1/2)`` (``ubar_prior = "binomial bound (K =
1)"``, :mod:`bayesnoise.conjugate.k1`), and ``dbar`` the difference of two independent ones.
Before it, ``ubar`` integrated kappa over its LogNormal prior (median 1) and covered 0.987 /
0.988 at a true kappa of 0.5 (N = 100 / 500), 0.96 at 1, 0.88-0.90 at 5 and 0.83-0.85 at 100
(R = 1000); that interval stays available as ``ubar_prior="beta"``.

Coverage bands, derived: R independent replicates give a coverage with binomial Monte Carlo
SE ``sqrt(p (1 - p) / R)``. Under Beta(mu kappa, (1 - mu) kappa) difficulties the bound's
variance is ``(kappa + 1) / kappa`` times the true one, so the normal approximation predicts
the coverage ``2 Phi(z sqrt((kappa + 1) / kappa)) - 1`` (0.951 at kappa = 100: nominal; 0.968 at
5; 0.994 at 1; 0.9993 at 0.5: the price of not knowing kappa). Each cell must lie within
3 MCSE of that prediction on both sides (false alarm about 0.3% per cell), plus 0.005 for
the normal approximation and the Jeffreys interval's lattice effects (exact binomial
coverage of the Jeffreys interval at N = 500 is 0.941-0.951 for p in [0.04, 0.06] and
0.948-0.952 near p = 0.5), and never below the nominal band's lower edge.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats
from statsmodels.stats.proportion import proportion_confint

import bayesnoise as bn
from bayesnoise.cli import main
from bayesnoise.conjugate import posterior_pairs_table, posterior_table
from bayesnoise.data import DataError, from_arrays
from studies import k1 as study

LEVEL = 0.95
K1 = "binomial bound (K = 1)"
_APPROX = 0.005  # normal approximation and Jeffreys lattice effects (see module docstring)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the K = 1 kappa note
        return fn(*args, **kwargs)


def _k1_data(rng, m=5, n=200):
    c = rng.binomial(1, rng.beta(2, 2, (m, n)))
    c[0] = 0  # none right
    c[1] = 1  # all right
    return c


# --------------------------------------------------------------------------- exact, fast


@pytest.mark.parametrize("level", [0.95, 0.8])
def test_k1_ubar_is_the_jeffreys_interval(level):
    c = _k1_data(np.random.default_rng(1))
    df = _quiet(posterior_table, from_arrays(c, np.ones_like(c)), confidence_level=level)
    right, n = c.sum(axis=1), c.shape[1]
    low, high = proportion_confint(right, n, alpha=1 - level, method="jeffreys")
    # both are the quantiles of one Beta: equal to rounding
    np.testing.assert_allclose(df["ubar_low"], low, rtol=0, atol=1e-12)
    np.testing.assert_allclose(df["ubar_high"], high, rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        df["ubar"], stats.beta.mean(right + 0.5, n - right + 0.5), atol=1e-14
    )
    assert (df["ubar_prior"] == K1).all()
    assert df.attrs["ubar_prior"] == [K1] * len(df)


def test_k1_dbar_is_the_difference_of_two_jeffreys_posteriors():
    rng = np.random.default_rng(2)
    c = _k1_data(rng, m=4, n=150)
    c[2, :140] = 0  # a skewed one: 10 right out of 150
    df = _quiet(posterior_pairs_table, from_arrays(c, np.ones_like(c)), rng=3)
    right, n = c.sum(axis=1), c.shape[1]
    draws = 400_000
    oracle = np.random.default_rng(4)
    x = oracle.beta(right[:, None] + 0.5, n - right[:, None] + 0.5, (4, draws))
    for _, row in df.iterrows():
        a, b = int(row["model_a"][-1]), int(row["model_b"][-1])
        d = x[a] - x[b]
        sd = d.std()
        for prob, got in ((0.025, row["dbar_low"]), (0.975, row["dbar_high"])):
            # the package's ends: Cornish-Fisher (error within 0.02 posterior sd by its switch
            # rule) or, for pairs too skewed for it, quantiles of 1000 Monte Carlo draws, whose
            # SE is the order-statistic spread q(p +- sqrt(p (1 - p) / D)) / 2 (D = 1000, read
            # off the oracle's draws); the oracle's own error is the same with D = 400,000
            se = 0.0
            for dd in (1000, draws):
                h = np.sqrt(prob * (1 - prob) / dd)
                lo_q, hi_q = np.quantile(d, [max(prob - h, 0), min(prob + h, 1)])
                se = np.hypot(se, (hi_q - lo_q) / 2)
            want = np.quantile(d, prob)
            assert abs(got - want) <= 3 * se + 0.02 * sd, (row["model_a"], row["model_b"], prob)
        assert row["dbar"] == pytest.approx(d.mean(), abs=5 * sd / np.sqrt(draws))
        p = (d > 0).mean()
        # Monte Carlo SE of P(d > 0) with 1000 draws (package) and 400,000 (oracle), plus the
        # Edgeworth expansion's error where it is used (within 0.005 by its switch rule)
        se = np.sqrt(p * (1 - p) / 1000 + p * (1 - p) / draws)
        assert abs(row["prob_a_better"] - p) <= 3 * se + 0.005, row


def test_ragged_k_and_explicit_choices():
    rng = np.random.default_rng(5)
    c = rng.binomial(1, rng.beta(2, 2, (3, 120)))
    k = np.ones_like(c)
    k[1, :40] = 4  # model b: 40 questions with 4 samples identify kappa
    c[1, :40] = rng.binomial(4, 0.5, 40)
    ds = from_arrays(c, k, models=["a", "b", "c"])
    df = _quiet(posterior_table, ds)
    assert df["ubar_prior"].tolist() == [K1, "beta", K1]
    assert df["kappa_status"][1] != "not identified (K = 1): prior"
    with pytest.raises(DataError, match=r"K = 1 bound.*\(b\)"):
        _quiet(posterior_table, ds, ubar_prior="binomial")
    beta = _quiet(posterior_table, ds, ubar_prior="beta")
    assert (beta["ubar_prior"] == "beta").all()  # the kappa-dependent interval on request
    # at K = 1 and kappa's prior median the two differ in width only modestly
    assert (beta["ubar_high"] - beta["ubar_low"])[0] < (df["ubar_high"] - df["ubar_low"])[0]
    assumed = _quiet(posterior_table, ds, kappa=5.0)
    assert (assumed["ubar_prior"] == "beta").all()  # an assumed kappa is used as given
    with pytest.raises(ValueError, match="ubar_prior"):
        _quiet(posterior_table, ds, ubar_prior="jeffreys")


def _k1_file(tmp_path):
    rng = np.random.default_rng(6)
    rows = ["model,example_id,correct"]
    for m, p in (("a", 0.6), ("b", 0.5), ("c", 0.3)):
        rows += [f"{m},q{i},{int(x)}" for i, x in enumerate(rng.random(80) < p)]
    path = tmp_path / "k1.csv"
    path.write_text("\n".join(rows) + "\n")
    return str(path)


@pytest.mark.parametrize("prior", [None, "beta", "binomial"])
@pytest.mark.parametrize("pairs", [False, True])
def test_cli_ubar_prior_equals_the_verb(capsys, tmp_path, prior, pairs):
    path = _k1_file(tmp_path)
    args = ["posterior", path, "--format", "csv", "--no-progress"] + (
        ["--by", "pair"] if pairs else []
    )
    args += [] if prior is None else ["--ubar-prior", prior]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(args) == 0
        kw = {} if prior is None else {"ubar_prior": prior}
        want = (
            bn.posterior(path, by="pair" if pairs else "model", progress=False, **kw)
            .to_dataframe()
            .reset_index()
        )
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    want = want[got.columns]
    for col in got.columns:
        if pd.api.types.is_numeric_dtype(got[col]):
            np.testing.assert_allclose(got[col], want[col].astype(float), rtol=1e-9, atol=1e-12)
        else:
            assert got[col].astype(str).tolist() == want[col].astype(str).tolist(), col
    if not pairs:
        assert set(got["ubar_prior"]) == {"beta" if prior == "beta" else K1}


def test_mcmc_refuses_ubar_prior(tmp_path):
    with pytest.raises(DataError, match="ubar_prior applies to method='bayes'"):
        bn.posterior(_k1_file(tmp_path), method="mcmc", ubar_prior="beta", progress=False)


# --------------------------------------------------------------------------- coverage, slow

R = 1000
R_PAIRS = 600


def _mcse(p, r):
    return np.sqrt(p * (1 - p) / r)


def _band(kappa, r):
    """Two-sided band: the normal-approximation prediction +- 3 MCSE + the approximation slack,
    never below the nominal band's lower edge 0.95 - 3 MCSE(0.95)."""
    pred = 2 * special.ndtr(special.ndtri(0.975) * np.sqrt((kappa + 1) / kappa)) - 1
    half = 3 * _mcse(pred, r) + _APPROX
    return max(pred - half, LEVEL - 3 * _mcse(LEVEL, r)), min(pred + half, 1.0), pred


@pytest.mark.slow
@pytest.mark.parametrize("kappa", [0.5, 1.0, 5.0, 100.0])
@pytest.mark.parametrize("n", [100, 500])
def test_k1_ubar_coverage_at_every_kappa(n, kappa):
    out = study.ubar_cell("beta", 0.5, kappa, n, R, seed=11)
    lo, hi, pred = _band(kappa, R)
    assert lo <= out["coverage"] <= hi, (n, kappa, pred, out)


@pytest.mark.slow
@pytest.mark.parametrize("kappa", [0.5, 5.0, 100.0])
def test_k1_dbar_coverage_at_every_kappa(kappa):
    """At K = 1 ``dbar`` takes the narrower of the binomial bound and ``mu_difference`` (both
    valid for these questions; tests/test_k1_difference.py): its coverage lies between the
    nominal band's lower edge, 0.95 - 3 MCSE, and the bound's predicted coverage + 3 MCSE."""
    out = study.pair_cell("beta", 0.5, kappa, 500, R_PAIRS, seed=12)
    _, hi, pred = _band(kappa, R_PAIRS)
    lo = LEVEL - 3 * _mcse(LEVEL, R_PAIRS)
    assert lo <= out["coverage"] <= hi, (kappa, pred, out)
    assert out["p_vs_interval"] <= 0.01  # one posterior: prob_a_better and the interval agree


@pytest.mark.slow
def test_kappa_dependent_interval_still_available_and_calibrated_at_its_prior():
    """``ubar_prior="beta"`` keeps the old interval: calibrated where the true kappa is its
    prior's median (1), off elsewhere (0.88-0.90 at kappa 5), which is why it is not the
    default; the band at kappa 1 is the nominal one, 0.95 +- 3 MCSE."""
    out = study.ubar_cell("beta", 0.5, 1.0, 500, R, ubar_prior="beta", seed=13)
    assert abs(out["coverage"] - LEVEL) <= 3 * _mcse(LEVEL, R), out
    off = study.ubar_cell("beta", 0.5, 5.0, 500, R, ubar_prior="beta", seed=13)
    assert off["coverage"] < LEVEL - 3 * _mcse(LEVEL, R), off


@pytest.mark.slow
@pytest.mark.parametrize("kappa", [1.0, 5.0, 100.0])
def test_k1_fresh_run_on_the_same_questions_covers_at_every_kappa(kappa):
    """``fresh_run_predictive`` at K = 1 uses the same kappa-free bound as ``ubar``.

    Truth: the score of a fresh run (one new sample per question) on the same questions.
    Given the questions, acc - fresh has variance 2 sum_i u_i (1 - u_i) / N^2 = 2 mu (1 - mu)
    kappa / (kappa + 1) / N on average, the bound's predictive 2 ubar (1 - ubar) / N, a ratio
    (kappa + 1) / kappa: the same predicted coverage and band as ``ubar`` (``_band``).
    """
    from bayesnoise.conjugate import fresh_run_predictive

    rng = np.random.default_rng(21)
    r, n, mu = 1000, 300, 0.5
    u = rng.beta(mu * kappa, (1 - mu) * kappa, (r, n))
    c = rng.binomial(1, u)
    fresh = rng.binomial(1, u).mean(axis=1)
    pred = _quiet(fresh_run_predictive, c, np.ones_like(c), n_resamples=2000, rng=3)
    # the predictive mean is the Jeffreys posterior mean (c + 1/2) / (N + 1)
    assert np.allclose(pred.mean, (c.sum(axis=1) + 0.5) / (n + 1), rtol=0, atol=1e-12)
    cover = np.mean((pred.low <= fresh) & (fresh <= pred.high))
    lo, hi, p = _band(kappa, r)
    assert lo <= cover <= hi, (kappa, p, cover)
