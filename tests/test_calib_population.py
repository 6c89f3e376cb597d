"""Population quantities that must not depend on the difficulty shape (issue 8 acceptance).

The population accuracy ``mu`` (and a run on new questions) come from the Dirichlet-process
posterior of :func:`bayesnoise.conjugate.population_accuracy`; the population paired difference
from :func:`bayesnoise.conjugate.population_difference` with the data-scaled end atoms of
:func:`bayesnoise.conjugate.pairs.end_atom`.

Coverage tolerances, derived: a coverage estimated from R independent replicates has binomial
Monte Carlo SE sqrt(p (1 - p) / R); at p = 0.95 and R = 1000 that is 0.0069. ``BAND`` is not
nominal +- z MCSE: it is issue 8's acceptance band 0.93-0.97 widened by z = 3 MCSE (p = 0.95,
R = 1000) at each end, [0.93 - 3 x 0.0069, 0.97 + 3 x 0.0069] = [0.909, 0.991]; an interval
whose true coverage is inside 0.93-0.97 fails a check with probability < 0.3%. (Nominal +- 3
MCSE, [0.929, 0.971], would reject the shape-free intervals, which are Jeffreys-like and cover
0.953-0.972 here by design.) The N = 30 acceptance cells below use nominal +- 3 MCSE at R = 400,
[0.917, 0.983], and the fraction of null pairs with P(A > B) > 0.95 the band
[0.04 - 3 MCSE, 0.06 + 3 MCSE] = [0.019, 0.081] (MCSE sqrt(0.05 x 0.95 / 1000) = 0.0069).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy import special, stats

from bayesnoise.conjugate import (
    fit_empirical_bayes,
    fresh_run_predictive,
    paired_population_posterior,
    population_accuracy,
    population_difference,
)
from bayesnoise.conjugate.pairs import end_atom
from studies import grid

R = 1000
MCSE = np.sqrt(0.95 * 0.05 / R)
BAND = (0.93 - 3 * MCSE, 0.97 + 3 * MCSE)


def _covers(low, high, truth):
    return float(np.mean((low <= truth) & (truth <= high)))


def test_population_accuracy_is_jeffreys_at_k1():
    """At K = 1 the posterior is Beta(s + 1/2, N - s + 1/2): mean and sd exactly (rounding),
    interval ends to the Cornish-Fisher accuracy on four exact cumulants (its error grows
    with the skewness: 0.01 sd at accuracy 0.3, 0.07 sd at accuracy 0.9 and N = 120, where the
    skewness is about -0.4; 0.1 sd allowed)."""
    rng = np.random.default_rng(1)
    c = rng.binomial(1, [[0.05], [0.3], [0.9]], size=(3, 120))
    out = population_accuracy(c, np.ones_like(c))
    s = c.sum(axis=1)
    jeff = stats.beta(s + 0.5, 120 - s + 0.5)
    np.testing.assert_allclose(out["mean"], jeff.mean(), rtol=1e-12)
    np.testing.assert_allclose(out["sd"], jeff.std(), rtol=1e-9)
    for key, q in (("low", 0.025), ("high", 0.975)):
        assert np.all(np.abs(out[key] - jeff.ppf(q)) < 0.1 * jeff.std()), key


def test_population_accuracy_never_collapses():
    """All-wrong and all-right models (K = 5, N = 40): the interval stays open and inside
    [0, 1], with the observed score at its edge."""
    c = np.array([[0] * 40, [5] * 40])
    out = population_accuracy(c, np.full(c.shape, 5))
    assert np.all(out["high"] - out["low"] > 0.01)
    assert np.all((out["low"] >= 0) & (out["high"] <= 1))
    assert out["low"][0] < 0.01 and out["high"][1] > 0.99


def test_population_accuracy_leaves_out_unanswered_questions():
    c = np.array([[3, 5, 0, 4], [3, 5, 0, 0]])
    k = np.array([[5, 5, 5, 5], [5, 5, 5, 0]])
    out = population_accuracy(c, k)
    ref = population_accuracy(c[1, :3], k[1, :3])
    assert out["mean"][1] == pytest.approx(float(ref["mean"]), rel=1e-12)


@pytest.mark.parametrize(("mu", "n"), [(0.9, 30), (0.05, 30), (0.9, 100)])
def test_population_accuracy_calibrated_under_two_point_difficulties(mu, n):
    """Two-point question difficulties at K = 20 (issue 8: the Beta-Binomial mu covered
    0.77-0.86 here). Cause, checked here too: the Beta-Binomial mean is biased under this
    shape (about -0.02 at accuracy 0.9 and N = 30, half an SE of the observed accuracy, and
    not shrinking with N), so its interval misses; the Dirichlet posterior is centred on the
    observed accuracy, which is unbiased whatever the shape."""
    rng = np.random.default_rng(20 + n)
    u = grid.Difficulty("twopoint", mu, 1.0).sample(rng, (R, n))
    c = rng.binomial(20, u)
    k = np.full(c.shape, 20)
    out = population_accuracy(c, k)
    cov = _covers(out["low"], out["high"], mu)
    assert BAND[0] <= cov <= BAND[1], cov
    fit = fit_empirical_bayes(c, k, warn=False)
    lo, hi = fit.mu_interval(0.95)
    # the model-based interval is measurably worse: below the band by more than 3 MCSE
    assert _covers(lo, hi, mu) < BAND[0], _covers(lo, hi, mu)


def test_fresh_run_on_new_questions_exact_moments():
    """K' = K: mean and sd are the closed form of the resampled questions; they match 40,000
    draws within 5 Monte Carlo SEs (SE of a mean sd / sqrt(D), of an sd about sd / sqrt(2 D))."""
    rng = np.random.default_rng(3)
    c = rng.binomial(5, rng.beta(1, 1, (2, 40)))
    k = np.full(c.shape, 5)
    draws = 40_000
    fr = fresh_run_predictive(c, k, samples=5, n_questions=40, n_resamples=draws, rng=1)
    mean = population_accuracy(c, k)["mean"]
    np.testing.assert_allclose(fr.mean, mean, rtol=1e-12)
    # the interval's midpoint and half-width are rough draw summaries: check the sd via the
    # normal interval it implies instead (the predictive is nearly normal at N' = 40)
    half = (fr.high - fr.low) / 2
    assert np.all(np.abs(half / (1.96 * fr.sd) - 1) < 0.05)


def test_end_atom_is_one_at_k1_and_without_differences():
    """At K = 1 and for identical models the atoms stay at +-1 (the Jeffreys-like posterior of
    the discordant cells); for K > 1 differences they sit at the typical size sqrt(S4 / S2)."""
    ones = np.array([1.0, -1.0, 0.0, 1.0])  # K = 1: every nonzero difference is +-1
    assert end_atom((ones**2).sum(), (ones**4).sum()) == 1.0 and end_atom(0.0, 0.0) == 1.0
    # eight differing questions of size 0.2: m = 0.2
    small = np.r_[np.full(8, 0.2), np.zeros(22)]
    assert end_atom((small**2).sum(), (small**4).sum()) == pytest.approx(0.2, rel=1e-12)
    # sizes 0.2 and 0.6: sqrt((0.2^4 + 0.6^4) / (0.2^2 + 0.6^2)) = sqrt(0.1312 / 0.4)
    mixed = np.array([0.2, -0.6, 0.0])
    assert end_atom((mixed**2).sum(), (mixed**4).sum()) == pytest.approx(np.sqrt(0.328))
    rng = np.random.default_rng(4)
    p = rng.binomial(1, 0.3, (2, 200)).astype(float)
    out = population_difference(p)
    d = p[0] - p[1]
    t = 200 + 1.0
    mean = d.sum() / t
    assert out["sd"][0, 1] == pytest.approx(np.sqrt(((d @ d + 1.0) / t - mean**2) / (t + 1)))


def test_population_difference_sd_at_k5_uses_the_size_atoms():
    """Closed-form sd at K > 1 against the Dirichlet moment formula with atoms at +-m, and
    against 200,000 direct Dirichlet draws (sd of an sd estimate ~ sd / sqrt(2 D): 0.16%;
    1% allowed)."""
    rng = np.random.default_rng(12)
    u = rng.beta(0.3, 3.0, 40)
    p = rng.binomial(5, np.stack([u, 0.7 * u])) / 5
    d = p[0] - p[1]
    m2 = (d**4).sum() / (d**2).sum()
    t = 40 + 1.0
    mean = d.sum() / t
    sd = np.sqrt(((d @ d + m2) / t - mean**2) / (t + 1))
    out = population_difference(p)
    assert out["sd"][0, 1] == pytest.approx(sd, rel=1e-12)
    w = rng.dirichlet(np.r_[np.ones(40), 0.5, 0.5], size=200_000)
    draws = w @ np.r_[d, -np.sqrt(m2), np.sqrt(m2)]
    assert draws.std() == pytest.approx(sd, rel=0.01)


def test_paired_posterior_agrees_with_all_pairs():
    """The one-vector and all-pairs forms use the same atoms: equal closed-form moments and
    interval ends within Monte Carlo error (2000 draws: quantile SE about 0.05 sd; 0.2 sd)."""
    rng = np.random.default_rng(5)
    u = rng.beta(0.1, 1.9, 30)
    p = rng.binomial(5, np.stack([u, u * 0.8])) / 5
    one = paired_population_posterior(p[0] - p[1])
    allp = population_difference(p)
    assert one["sd"] == pytest.approx(allp["sd"][0, 1], rel=1e-12)
    for key in ("low", "high"):
        assert abs(one[key] - allp[key][0, 1]) < 0.2 * one["sd"], key


@pytest.mark.parametrize("shape", ["beta", "twopoint"])
def test_population_difference_calibrated_n100_lopsided(shape):
    """N = 100, K = 5, accuracy 0.05, correlated pairs (rho 0.8), true difference 0 and a
    shift: coverage in the band, and P(A > B) > 0.95 in about 5% of the null pairs (atoms fixed
    at +-1 covered 0.98 here and exceeded 0.95 in 3.6%). Fraction tolerance: MCSE
    sqrt(0.05 * 0.95 / R) = 0.0069, band [0.04 - 3 MCSE, 0.06 + 3 MCSE]."""
    mu, n, k = 0.05, 100, 5
    rng = np.random.default_rng(6)
    da = grid.Difficulty(shape, mu, 1.0)
    db = grid.Difficulty(shape, grid.shifted_mu(mu), 1.0)
    rz = grid._copula_rho(shape, mu, 1.0)
    z = rng.standard_normal((R, n))
    zb = rz * z + np.sqrt(1 - rz**2) * rng.standard_normal((R, n))
    pa, pn, ps = (rng.binomial(k, d.from_normal(x)) / k for d, x in ((da, z), (da, zb), (db, zb)))
    null = paired_population_posterior(pa - pn, n_resamples=1000, rng=7)
    shift = paired_population_posterior(pa - ps, n_resamples=1000, rng=8)
    assert BAND[0] <= _covers(null["low"], null["high"], 0.0) <= BAND[1]
    truth = mu - float(special.expit(special.logit(mu) - grid.SHIFT_LOGIT))
    assert BAND[0] <= _covers(shift["low"], shift["high"], truth) <= BAND[1]
    frac = float(np.mean(null["prob_a_better"] > 0.95))
    assert 0.04 - 3 * MCSE <= frac <= 0.06 + 3 * MCSE, frac


@pytest.mark.parametrize("accuracy", [0.05, 0.1, 0.5, 0.9, 0.95])
def test_population_accuracy_k1_exact_coverage(accuracy):
    """K = 1, N = 100: the coverage is an exact binomial sum (no Monte Carlo), whatever the
    true kappa (at K = 1 the scores are Bernoulli(accuracy) for every difficulty shape). Issue 8
    band 93-97%, no tolerance needed (Jeffreys: 0.935-0.956 at these accuracies)."""
    n = 100
    s = np.arange(n + 1)
    c = (np.arange(n)[None, :] < s[:, None]).astype(int)  # one row per possible count
    out = population_accuracy(c, np.ones_like(c))
    covered = (out["low"] <= accuracy) & (accuracy <= out["high"])
    cov = float((stats.binom.pmf(s, n, accuracy) * covered).sum())
    assert 0.93 <= cov <= 0.97, cov


# ------------------------------------------------------------------ issue 20 acceptance, N = 30
# The population paired difference at N = 30 on the grid of studies/popdiff.py (beta,
# two-point, three-component mixture and 2PL item-response difficulties; K = 5, 20; accuracy
# 0.05, 0.5, 0.9, 0.95; a null and a logit shift of 0.77), R = 400 replicates per cell, the
# same data as the study (its cell seeds). Tolerances, derived: a coverage from R independent
# replicates has binomial MCSE sqrt(p (1 - p) / R) = 0.011 at p = 0.95, accepted within 3 MCSE
# of 0.95 on both sides ([0.917, 0.983]); the width ratio is a ratio of medians over the same
# replicates and must be <= 1.3 (no allowance: the criterion is far from the noise, the ratios
# are 0.99-1.25 where it holds); the power ratio p1 / p0 of the interval and the paired t test
# on the same shift replicates is accepted down to 0.9 - 3 MCSE, its MCSE by the delta method
# sqrt(Var p1 + r^2 Var p0 - 2 r Cov(p1, p0)) / p0. Cells that miss are strict xfails with
# their numbers (a change that fixes one shows up as an unexpected pass).
ACC_R = 400
ACC_SE = np.sqrt(0.95 * 0.05 / ACC_R)


@functools.cache
def _acceptance_cell(shape, k, mu):
    from scipy import stats as st

    from bayesnoise.frequentist import difference_interval
    from studies import popdiff

    n = 30
    rng = np.random.default_rng(popdiff.cell_seed(shape, n, k, mu))
    pa, pn, ps, truth = popdiff.simulate_pairs(shape, n, k, mu, ACC_R, rng)
    tq = st.t.ppf(0.975, n - 1)
    out = {}
    for design, pb, target in (("null", pn, 0.0), ("shift", ps, truth)):
        d = pa - pb
        half = tq * d.std(-1, ddof=1) / np.sqrt(n)
        t = (d.mean(-1) - half, d.mean(-1) + half)
        moments = (pa.mean(-1), pb.mean(-1), pa.var(-1), pb.var(-1), d.var(-1), n)
        freq = difference_interval(*moments, samples_per_question=k)
        post = paired_population_posterior(d, n_resamples=1000, rng=7)
        bayes = (post["low"], post["high"])
        out[design] = {"t": t, "freq": freq, "bayes": bayes, "truth": target,
                       "p": post["prob_a_better"]}  # fmt: skip
    return out


def _acceptance(cell, kind):
    null, shift = cell["null"], cell["shift"]
    cov = [
        float(np.mean((x[kind][0] <= x["truth"]) & (x["truth"] <= x[kind][1])))
        for x in (null, shift)
    ]
    width = np.median(null[kind][1] - null[kind][0]) / np.median(null["t"][1] - null["t"][0])
    rej = (shift[kind][0] > 0) | (shift[kind][1] < 0)
    if kind == "bayes":  # the Bayesian decision: the interval and P(delta > 0) > 0.975
        rej &= (shift["p"] > 0.975) | (shift["p"] < 0.025)
    rej_t = (shift["t"][0] > 0) | (shift["t"][1] < 0)
    p1, p0, both = rej.mean(), rej_t.mean(), (rej & rej_t).mean()
    r = p1 / p0
    var = p1 * (1 - p1) + r * r * p0 * (1 - p0) - 2 * r * (both - p1 * p0)
    se = np.sqrt(max(var, 0.0)) / p0  # 0 up to rounding when both powers are 1
    return cov, float(width), float(r), float(se / np.sqrt(ACC_R))


def _miss(measured):
    return pytest.mark.xfail(strict=True, reason=f"issue 20 acceptance miss: {measured}")


# Misses of the current defaults (the Tango effective-n interval; the Dirichlet posterior with
# atoms at the typical difference size), R = 400. Three kinds: (a) a shift carried by rare
# questions one model solves and the other does not (two-point, mixture and beta at accuracy
# 0.05 / 0.95): a sample of 30 usually holds none of them, shift coverage 0.69-0.91, the
# paired t interval 0.69-0.91 too; (b) null over-coverage 0.978-0.99 where 2-4 questions differ
# (the t interval 0.97-0.99: discreteness); (c) coverage 0.907-0.925 in symmetric cells where
# the t interval itself covers 0.915-0.94 (mixture K = 5, 2PL K = 20 at accuracy 0.5).
ACCEPTANCE_MISSES = {
    "beta-20-0.05-freq": "coverage null 0.970 shift 0.895, width 1.09 x t, power 1.20 x t (MCSE 0.06)",
    "beta-20-0.05-bayes": "coverage null 0.980 shift 0.890, width 1.11 x t, power 1.12 x t (MCSE 0.06)",
    "twopoint-5-0.05-bayes": "coverage null 0.950 shift 0.882, width 1.05 x t, power 0.97 x t (MCSE 0.13)",
    "twopoint-5-0.95-bayes": "coverage null 0.960 shift 0.902, width 1.03 x t, power 1.14 x t (MCSE 0.06)",
    "twopoint-20-0.05-freq": "coverage null 0.988 shift 0.752, width 1.06 x t, power 0.87 x t (MCSE 0.09)",
    "twopoint-20-0.05-bayes": "coverage null 0.980 shift 0.685, width 1.05 x t, power 1.22 x t (MCSE 0.08)",
    "twopoint-20-0.9-bayes": "coverage null 0.990 shift 0.950, width 1.18 x t, power 0.97 x t (MCSE 0.02)",
    "twopoint-20-0.95-freq": "coverage null 0.985 shift 0.833, width 1.02 x t, power 1.17 x t (MCSE 0.04)",
    "twopoint-20-0.95-bayes": "coverage null 0.980 shift 0.825, width 1.07 x t, power 0.93 x t (MCSE 0.04)",
    "mixture-5-0.5-freq": "coverage null 0.907 shift 0.938, width 0.97 x t, power 1.02 x t (MCSE 0.01)",
    "mixture-5-0.5-bayes": "coverage null 0.907 shift 0.938, width 0.95 x t, power 1.00 x t (MCSE 0.01)",
    "mixture-5-0.9-freq": "coverage null 0.965 shift 0.912, width 1.07 x t, power 1.05 x t (MCSE 0.02)",
    "mixture-5-0.9-bayes": "coverage null 0.968 shift 0.907, width 1.04 x t, power 1.04 x t (MCSE 0.02)",
    "mixture-5-0.95-freq": "coverage null 0.988 shift 0.943, width 1.22 x t, power 1.12 x t (MCSE 0.04)",
    "mixture-20-0.05-freq": "coverage null 0.960 shift 0.900, width 1.11 x t, power 1.23 x t (MCSE 0.07)",
    "mixture-20-0.05-bayes": "coverage null 0.970 shift 0.897, width 1.11 x t, power 0.96 x t (MCSE 0.06)",
    "mixture-20-0.95-freq": "coverage null 0.978 shift 0.912, width 1.10 x t, power 1.07 x t (MCSE 0.02)",
    "2pl-20-0.05-bayes": "coverage null 0.948 shift 0.902, width 1.01 x t, power 0.96 x t (MCSE 0.02)",
    "2pl-20-0.5-freq": "coverage null 0.925 shift 0.912, width 0.95 x t, power 1.00 x t",
    "2pl-20-0.95-bayes": "coverage null 0.960 shift 0.915, width 1.00 x t, power 0.98 x t (MCSE 0.01)",
}


def _acceptance_marks(key):
    miss = ACCEPTANCE_MISSES.get(key)
    return [pytest.mark.slow] + ([_miss(miss)] if miss else [])


ACCEPTANCE_CELLS = [
    pytest.param(shape, k, mu, kind, marks=_acceptance_marks(f"{shape}-{k}-{mu:g}-{kind}"))
    for shape in ("beta", "twopoint", "mixture", "2pl")
    for k in (5, 20)
    for mu in (0.05, 0.5, 0.9, 0.95)
    for kind in ("freq", "bayes")
]


def _acceptance_msg(cov, width, ratio):
    return f"cov {cov[0]:.3f}/{cov[1]:.3f} width {width:.2f} power ratio {ratio:.2f}"


# Width and power are asserted in every cell, without the xfail that coverage carries where it
# is a known limit: a doubled width or a lost power fails even in those cells (issue 28).
WIDTH_POWER_CELLS = [
    pytest.param(shape, k, mu, kind, marks=[pytest.mark.slow])
    for shape in ("beta", "twopoint", "mixture", "2pl")
    for k in (5, 20)
    for mu in (0.05, 0.5, 0.9, 0.95)
    for kind in ("freq", "bayes")
]


@pytest.mark.parametrize(("shape", "k", "mu", "kind"), WIDTH_POWER_CELLS)
def test_population_difference_width_and_power_n30(shape, k, mu, kind):
    """Median width under the null <= 1.3 x the paired t interval's (no allowance: the ratio
    of two medians over the same 400 replicates, 0.95-1.25 measured) and power under the shift
    >= 0.9 x the paired t test's, less 3 delta-method MCSE of the ratio (``_acceptance``)."""
    cov, width, ratio, ratio_se = _acceptance(_acceptance_cell(shape, k, mu), kind)
    msg = _acceptance_msg(cov, width, ratio)
    assert width <= 1.3, msg
    assert ratio >= 0.9 - 3 * ratio_se, msg


@pytest.mark.parametrize(("shape", "k", "mu", "kind"), ACCEPTANCE_CELLS)
def test_population_difference_acceptance_n30(shape, k, mu, kind):
    """Coverage under the null and the shift within nominal +- 3 MCSE (p = 0.95, R = 400):
    [0.917, 0.983]; strict xfail in the cells of ``ACCEPTANCE_MISSES``. Width and power are
    asserted first here too, and on their own (without the xfail) in
    :func:`test_population_difference_width_and_power_n30`."""
    cov, width, ratio, ratio_se = _acceptance(_acceptance_cell(shape, k, mu), kind)
    msg = _acceptance_msg(cov, width, ratio)
    assert width <= 1.3, msg
    assert ratio >= 0.9 - 3 * ratio_se, msg
    assert abs(cov[0] - 0.95) <= 3 * ACC_SE, msg
    assert abs(cov[1] - 0.95) <= 3 * ACC_SE, msg
