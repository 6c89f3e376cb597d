"""rate's prior-data check (issue 37 item 6): the prior's weight and the prior-predictive
p-value of the observed count, warned below 0.01.

Oracles: the Beta-Binomial pmf written out with scipy.special (C(n, x) B(x + a, n - x + b) /
B(a, b)) and scipy.stats.betabinom; exact enumeration over every count, no simulation.
"""

import warnings

import numpy as np
import pytest
from scipy import special, stats

import bayesnoise as bn
from bayesnoise.conjugate.rate import BetaPrior, prior_predictive_p_value

# (a, b): uniform, Jeffreys, the mean=0.035,sd=0.01, mean=0.6,sd=0.2, a tight
# Beta(20, 20), a skewed Beta(2, 30), a very tight Beta(400, 100)
PRIORS = [
    (1.0, 1.0),
    (0.5, 0.5),
    (11.78625, 324.96375),
    (3.0, 2.0),
    (20.0, 20.0),
    (2.0, 30.0),
    (400.0, 100.0),
]


def _pmf(n, a, b):
    """Beta-Binomial(n, a, b) pmf over 0..n from its formula (log scale)."""
    x = np.arange(n + 1)
    log = (
        special.gammaln(n + 1)
        - special.gammaln(x + 1)
        - special.gammaln(n - x + 1)
        + special.betaln(x + a, n - x + b)
        - special.betaln(a, b)
    )
    return np.exp(log)


def _oracle_p(n, a, b):
    """Two-sided tail probability of every count: min(1, 2 min(P(X <= x), P(X >= x)))."""
    pmf = _pmf(n, a, b)
    low = np.cumsum(pmf)
    high = np.cumsum(pmf[::-1])[::-1]
    return pmf, np.minimum(1.0, 2.0 * np.minimum(low, high))


@pytest.mark.parametrize(("a", "b"), PRIORS)
@pytest.mark.parametrize("n", [10, 60, 500])
def test_p_value_prior_is_the_doubled_beta_binomial_tail(a, b, n):
    pmf, ref = _oracle_p(n, a, b)
    # the formula's pmf is scipy's betabinom (two independent computations of the same law)
    np.testing.assert_allclose(pmf, stats.betabinom.pmf(np.arange(n + 1), n, a, b), rtol=1e-9)
    got = prior_predictive_p_value(np.arange(n + 1), n, BetaPrior(a, b))
    # tails summed in double precision: relative error ~ n * 1e-16 where the tail is not tiny
    big = ref > 1e-12
    np.testing.assert_allclose(got[big], ref[big], rtol=1e-8)
    # far tails (betabinom's 1 - cdf underflows): summed from the pmf, still to 1e-8 relative
    np.testing.assert_allclose(got[~big], ref[~big], rtol=1e-6, atol=0)


@pytest.mark.parametrize(("a", "b"), PRIORS)
@pytest.mark.parametrize("n", [10, 60, 500])
def test_a_prior_consistent_with_the_data_rarely_warns(a, b, n):
    # data drawn from the prior predictive: P(p_value_prior < 0.01), exactly, over all counts
    pmf, _ = _oracle_p(n, a, b)
    p = prior_predictive_p_value(np.arange(n + 1), n, BetaPrior(a, b))
    assert pmf[p < 0.01].sum() <= 0.02


def _case(successes=48, n=60, name="m"):
    return np.array([[1.0] * successes + [0.0] * (n - successes)]), name


def test_prior_that_swamps_the_data_warns_with_both_rates():
    scores, _ = _case()
    with pytest.warns(UserWarning, match="prior and data disagree") as rec:
        r = bn.rate(scores, prior="mean=0.035,sd=0.01", target=0.8)
    msg = [str(w.message) for w in rec if "disagree" in str(w.message)]
    assert len(msg) == 1 and len(msg[0]) <= 200
    assert "prior mean 0.035" in msg[0] and "observed 0.8" in msg[0]
    assert "docs/warnings.md#prior-conflict" in msg[0]
    # a + b of the Beta with mean M and sd S is M (1 - M) / S^2 - 1
    assert float(r["prior_weight"][0]) == pytest.approx(0.035 * 0.965 / 0.01**2 - 1, rel=1e-12)
    _, ref = _oracle_p(60, *PRIORS[2])
    assert float(r["p_value_prior"][0]) == pytest.approx(ref[48], rel=1e-6)
    assert float(r["p_value_prior"][0]) < 1e-30


def test_mistyped_prior_warns_and_a_sound_one_does_not():
    scores, _ = _case()
    with pytest.warns(UserWarning, match="prior and data disagree"):
        bn.rate(scores, prior="mean=0.35,sd=0.01")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = bn.rate(scores, prior="mean=0.7,sd=0.1")
    assert float(r["p_value_prior"][0]) > 0.01


def test_vague_prior_reports_but_does_not_warn():
    # uniform prior, 500 of 500: X is uniform on 0..500 so p = 2/501 < 0.01, but a prior
    # with a, b <= 1 weighs at most two trials and cannot swamp data
    scores, _ = _case(500, 500)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = bn.rate(scores)
    assert float(r["p_value_prior"][0]) == pytest.approx(2 / 501, rel=1e-9)
    assert float(r["prior_weight"][0]) == 2.0


def test_warning_stays_one_line_with_long_names_and_by_pair():
    scores = np.vstack([_case(48 - i)[0] for i in range(6)])
    names = [f"{i}" + "m" * 150 for i in range(6)]
    from bayesnoise.data import from_arrays

    ds = from_arrays(scores, np.ones(scores.shape), models=names)
    with pytest.warns(UserWarning, match="prior and data disagree") as rec:
        bn.rate(ds, prior="mean=0.035,sd=0.01", by="pair")
    msg = [str(w.message) for w in rec if "disagree" in str(w.message)]
    assert len(msg) == 1 and len(msg[0]) <= 200 and "\n" not in msg[0]


def test_k_gt_1_uses_effective_trials():
    # K = 4, questions deterministic (all-right or all-wrong): the effective trials are the
    # questions, so the check is the K = 1 check on the per-question outcomes
    c = np.array([[4.0] * 48 + [0.0] * 12])
    from bayesnoise.data import from_arrays

    ds = from_arrays(c, np.full(c.shape, 4.0), models=["m"])
    with pytest.warns(UserWarning, match="prior and data disagree"):  # p = 0.003
        r = bn.rate(ds, prior="20,20")
    _, ref = _oracle_p(60, 20.0, 20.0)
    assert float(r["p_value_prior"][0]) == pytest.approx(ref[48], rel=1e-8)


def test_threshold_reports_the_check_and_warns_once():
    rng = np.random.default_rng(0)
    scores = rng.uniform(size=(2, 80))
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        r = bn.threshold(scores, grid="0.3,0.5,0.7", prior="mean=0.05,sd=0.01")
    said = [w for w in rec if "prior and data disagree" in str(w.message)]
    assert len(said) == 1
    assert r["p_value_prior"].sizes == {"model": 2, "threshold": 3}
    # at threshold T the count is Binomial-like with rate 1 - T; the prior's mean is 0.05
    assert float(r["p_value_prior"].max()) < 0.01
    assert float(r["prior_weight"][0, 0]) == pytest.approx(0.05 * 0.95 / 0.01**2 - 1)
