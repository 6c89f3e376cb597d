"""Single pass rate (Beta prior) and exact coverage: the note's numbers to 6 decimals."""

import math

import numpy as np
import pytest
from scipy import stats

from bayesnoise.conjugate import (
    BetaPrior,
    beta_prior,
    prob_rate_greater,
    rate_posterior,
)
from studies.coverage import coverage_probability, interval_table, mean_coverage


def _note_eff_cp(n, p_grid, alpha, beta, alphalevel=0.05):
    """Port of the note's ``effCP`` (Wald and equal-tailed Bayes coverage) for a grid of p.

    Same formulas as the note; the intervals (which do not depend on p) are built once per n.
    """
    k = np.linspace(0, n, n + 1)
    ci_wald = [
        [
            x / n + stats.norm.ppf(alphalevel / 2) * math.sqrt((x / n) * (1 - x / n) / n),
            x / n - stats.norm.ppf(alphalevel / 2) * math.sqrt((x / n) * (1 - x / n) / n),
        ]
        for x in k
    ]
    ci_bayes = [
        stats.beta.ppf([alphalevel / 2, 1 - alphalevel / 2], alpha + x, beta + n - x) for x in k
    ]
    out = []
    for p in p_grid:
        cov_w = np.array([1 if p >= x[0] and p <= x[1] else 0 for x in ci_wald])
        cov_b = np.array([1 if p >= x[0] and p <= x[1] else 0 for x in ci_bayes])
        pmf = stats.binom.pmf(k, n, p)
        out.append([(cov_w * pmf).sum(), (cov_b * pmf).sum()])
    return np.array(out)


def test_note_table_six_decimals():
    p = np.linspace(0.025, 0.975, 1000)
    wald = coverage_probability(15, p, "wald")
    bayes = coverage_probability(15, p, "bayes")
    assert round(float(wald[0]), 6) == 0.315552
    assert round(float(bayes[0]), 6) == 0.947106
    assert round(float(wald[1]), 6) == 0.325426
    assert round(float(bayes[1]), 6) == 0.943468
    # the rest of the printed rows, and the symmetric tail
    np.testing.assert_array_equal(wald[2:5].round(6), [0.335159, 0.344752, 0.354205])
    np.testing.assert_array_equal(bayes[2:5].round(6), [0.939743, 0.935932, 0.932038])
    np.testing.assert_array_equal(bayes[-1:-6:-1].round(6), bayes[:5].round(6))


def test_note_mean_coverage_curve():
    grid = np.linspace(0.01, 0.99, 200)
    ns = [10, 60, 180, 340]
    ours_w = mean_coverage(ns, method="wald")
    ours_b = mean_coverage(ns, method="bayes")
    for i, n in enumerate(ns):
        ref = _note_eff_cp(n, grid, 1, 1).mean(axis=0)
        assert ours_w[i] == pytest.approx(ref[0], abs=1e-12)
        assert ours_b[i] == pytest.approx(ref[1], abs=1e-12)
    # Bayes-uniform stays near nominal over the whole curve; Wald falls short for small n
    full_b = mean_coverage(range(10, 350, 10), grid, "bayes")
    assert np.all(np.abs(full_b - 0.95) < 0.006)
    assert mean_coverage([10], method="wald")[0] < 0.8


def test_frequentist_methods_coverage_sanity():
    p = np.linspace(0.05, 0.95, 50)
    cp = coverage_probability(40, p, "clopper_pearson")
    assert np.all(cp >= 0.95 - 1e-12)  # Clopper-Pearson is conservative
    assert 0.93 < coverage_probability(40, p, "wilson").mean() < 0.97
    with pytest.raises(ValueError, match="method"):
        coverage_probability(10, 0.5, "bogus")


def test_priors():
    assert beta_prior("uniform") == BetaPrior(1.0, 1.0)
    assert beta_prior("Jeffreys") == BetaPrior(0.5, 0.5)
    pr = beta_prior({"mean": 0.6, "sd": 0.2})  # note: alpha = 3, beta = 2
    assert pr.a == pytest.approx(3) and pr.b == pytest.approx(2)
    assert pr.mean == pytest.approx(0.6) and pr.sd == pytest.approx(0.2)
    pr = beta_prior({"mean": 0.035, "sd": 0.01})  # the note's 9429/800, 259971/800
    assert pr.a == pytest.approx(9429 / 800) and pr.b == pytest.approx(259971 / 800)
    assert beta_prior({"mean": 0.5, "concentration": 24}) == BetaPrior(12.0, 12.0)
    assert beta_prior((2, 3)) == BetaPrior(2.0, 3.0)
    with pytest.raises(ValueError, match=r"no Beta distribution has mean 0\.5 and sd 0\.6"):
        BetaPrior.from_mean_sd(0.5, 0.6)
    with pytest.raises(ValueError):
        beta_prior("flat")
    with pytest.raises(ValueError):
        BetaPrior(0, 1)


def test_posterior_moments_and_intervals():
    post = rate_posterior(7, 20, prior=(3, 2))
    d = stats.beta(10, 15)
    assert post.mean == pytest.approx(d.mean()) and post.var == pytest.approx(d.var())
    ci = post.confidence_interval(0.9)
    assert (ci.low, ci.high) == pytest.approx(tuple(d.ppf([0.05, 0.95])))
    hdi = post.confidence_interval(0.9, method="hdi")
    assert d.cdf(hdi.high) - d.cdf(hdi.low) == pytest.approx(0.9, abs=1e-9)
    assert d.pdf(hdi.low) == pytest.approx(d.pdf(hdi.high), rel=1e-6)
    assert hdi.high - hdi.low < ci.high - ci.low
    assert post.prob_greater(0.5) == pytest.approx(d.sf(0.5))
    # all-correct: HDI runs to 1; vectorised
    many = rate_posterior([0, 20], [20, 20], "jeffreys").confidence_interval(method="hdi")
    assert many.low[0] == 0.0 and many.high[1] == 1.0
    with pytest.raises(ValueError, match="U-shaped"):
        rate_posterior(0, 0, "jeffreys").confidence_interval(method="hdi")
    with pytest.raises(ValueError):
        rate_posterior(5, 3)


def test_note_credible_interval_row():
    # the note prints [0.0272, 0.1595] for 'sim_p:0.05' under Beta(1,1): mean 0.0806, n = 60
    post = rate_posterior(4, 60)
    assert round(float(post.mean), 4) == 0.0806
    ci = post.confidence_interval(0.95)
    assert (round(float(ci.low), 4), round(float(ci.high), 4)) == (0.0272, 0.1595)


def test_prob_rate_greater_exact():
    p1, p2 = rate_posterior(45, 50), rate_posterior(40, 50)
    rng = np.random.default_rng(0)
    n = 400_000
    mc = (rng.beta(p1.a, p1.b, n) > rng.beta(p2.a, p2.b, n)).mean()
    exact = prob_rate_greater(p1, p2)
    assert abs(exact - mc) < 4 * math.sqrt(exact * (1 - exact) / n)
    assert prob_rate_greater(p1, p1) == pytest.approx(0.5, abs=1e-9)
    # integer parameters: closed form sum (Evan Miller) as a second reference
    from scipy.special import betaln

    a1, b1, a2, b2 = 46, 6, 41, 11
    ref = sum(
        math.exp(betaln(a1 + i, b1 + b2) - math.log(b2 + i) - betaln(1 + i, b2) - betaln(a1, b1))
        for i in range(a2)
    )
    assert exact == pytest.approx(1 - ref, abs=1e-9)  # ref = P(rate_2 > rate_1)


def test_interval_table_shapes():
    low, high = interval_table(5, "bayes_hdi")
    assert low.shape == (6,) and np.all(low <= high)
