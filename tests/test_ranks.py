"""Rank uncertainty: bootstrap draws, rank summaries, and P(best) calibration."""

import warnings

import numpy as np
import pytest

from bayesnoise.data import from_arrays
from bayesnoise.decide import bootstrap_means, rank_summary, rank_table


def test_bootstrap_means_have_the_paired_covariance():
    rng = np.random.default_rng(30)
    n, b = 400, 4000
    p = rng.beta(1, 1, size=(1, n)) * np.array([[1.0], [0.9], [0.7]])
    draws = bootstrap_means(p, n_resamples=b, rng=np.random.default_rng(0))
    cov = np.cov(p, ddof=0) / n  # the delta-method covariance of the means
    # a bootstrap variance has relative MC error sqrt(2 / B) = 2.2%; allow 4 of them
    np.testing.assert_allclose(np.cov(draws), cov, rtol=4 * np.sqrt(2 / b))
    # mean over replicates: MC SE sqrt(var / B)
    se = np.sqrt(np.diag(cov) / b)
    assert np.all(np.abs(draws.mean(axis=1) - p.mean(axis=1)) <= 4 * se)


def test_rank_summary_ties_and_sums():
    draws = np.array([[1.0, 2.0, 3.0, 3.0], [1.0, 3.0, 2.0, 3.0], [0.0, 0.0, 0.0, 4.0]])
    out = rank_summary(draws)
    # P(best) per draw splits ties: draw 0 is a tie of models 0 and 1
    np.testing.assert_allclose(
        out["prob_best"], [(0.5 + 0 + 1 + 0) / 4, (0.5 + 1 + 0 + 0) / 4, 0.25]
    )
    assert out["prob_best"].sum() == pytest.approx(1.0)
    # mid-ranks: the expected ranks add up to 1 + 2 + 3 in every draw
    assert out["expected_rank"].sum() == pytest.approx(6.0)


def test_rank_table_on_clear_and_tied_models():
    rng = np.random.default_rng(31)
    n = 500
    base = rng.beta(1, 1, size=n)
    u = np.stack([base, base, 0.5 * base])  # a and b identical in expectation, c far worse
    ds = from_arrays(rng.binomial(8, u), np.full((3, n), 8), models=["a", "b", "c"])
    for method in ("bootstrap", "bayes"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            df = rank_table(ds, model=method, n_resamples=2000).set_index("model")
        assert df.loc["c", "prob_best"] == 0 and not df.loc["c", "in_top_group"]
        assert df.loc["c", "rank_low"] == 3 and df.loc["c", "rank_high"] == 3
        assert df.loc["a", "in_top_group"] and df.loc["b", "in_top_group"]
        assert df.loc["a", "rank_low"] == 1 and df.loc["a", "rank_high"] == 2


def _simulate(rng, n, k, m=4):
    shifts = rng.normal(0, 0.15, size=m)
    theta = rng.normal(0, 1.5, size=n)
    u = 1 / (1 + np.exp(-(theta + rng.normal(0, 0.75, size=(m, n)) + shifts[:, None])))
    return rng.binomial(k, u), u


@pytest.mark.slow
def test_bayes_p_best_is_calibrated_on_these_questions():
    """Pooled over models, P(best) in a bin ~ how often the model is truly best (on these
    questions, the quantity the posterior of ubar describes). 100 replicates x 4 models."""
    rng = np.random.default_rng(32)
    pred, hit = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(100):
            correct, u = _simulate(rng, 150, 5)
            names = ["m0", "m1", "m2", "m3"]
            ds = from_arrays(correct, np.full(correct.shape, 5), models=names)
            df = rank_table(ds, model="bayes", n_resamples=500, rng=r)
            pred.extend(df.set_index("model").loc[names, "prob_best"])
            hit.extend(np.arange(4) == np.argmax(u.mean(axis=1)))
    pred, hit = np.array(pred), np.array(hit, dtype=float)
    for lo, hi in ((0.0, 0.2), (0.2, 0.8), (0.8, 1.01)):
        sel = (pred >= lo) & (pred < hi)
        # the observed frequency is binomial around the mean prediction if calibrated: 3 SEs
        mean = pred[sel].mean()
        se = np.sqrt(max(mean * (1 - mean), 0.01) / sel.sum())
        assert abs(hit[sel].mean() - mean) <= 3 * se, (lo, hi, hit[sel].mean(), mean)
