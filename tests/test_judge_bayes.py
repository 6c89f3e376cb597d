"""The judge-misclassification model: the exact mixture posterior against a brute-force grid,
the conjugate Gibbs sampler against the exact posterior, and both against PyMC."""

import numpy as np
import pytest

from bayesnoise.conjugate.judge import (
    gibbs_misclassification,
    misclassification_posterior,
    pattern_counts,
    rate_posterior_exact,
    rogan_gladen,
)

# tp, fn, fp, tn (labelled), j1, j0 (unlabelled judge 1 / 0)
COUNTS = (40, 5, 10, 45, 500, 400)


def _grid_posterior(tp, fn, fp, tn, j1, j0, size=200):
    """Posterior of p on a midpoint grid over (p, Se, Sp), uniform priors: the oracle."""
    g = (np.arange(size) + 0.5) / size
    p, se, sp = g[:, None, None], g[None, :, None], g[None, None, :]
    q = p * se + (1 - p) * (1 - sp)
    ll = (
        (tp + fn) * np.log(p)
        + (fp + tn) * np.log1p(-p)
        + tp * np.log(se)
        + fn * np.log1p(-se)
        + tn * np.log(sp)
        + fp * np.log1p(-sp)
        + j1 * np.log(q)
        + j0 * np.log1p(-q)
    )
    w = np.exp(ll - ll.max()).sum(axis=(1, 2))
    return g, w / w.sum()


def _batch_mcse(draws, batches=20):
    """MCSE of the mean of (chains, draws) by batch means (no package code)."""
    c, n = draws.shape
    means = draws[:, : n - n % batches].reshape(c * batches, -1).mean(axis=1)
    return means.std(ddof=1) / np.sqrt(means.size)


def test_exact_mixture_equals_grid():
    post = rate_posterior_exact(*COUNTS)
    g, w = _grid_posterior(*COUNTS)
    # the midpoint rule on a smooth posterior 8 grid steps per sd: error far below 1e-6
    assert abs(post.mean - float((g * w).sum())) < 1e-6
    cdf = np.cumsum(w) - w / 2  # grid CDF at the midpoints
    for q in (0.025, 0.5, 0.975):
        x = post.quantile(q)
        # grid resolution 1/200 in p: the CDF interpolated between midpoints is within ~1e-3
        assert abs(np.interp(x, g, cdf) - q) < 2e-3


def test_rogan_gladen_and_exact_agree_with_many_labels():
    # labelled Se, Sp nearly known: the posterior mean approaches the moment estimator
    big = (1080, 120, 240, 560, 1584, 816)  # p 0.6, Se 0.9, Sp 0.7, random labels
    rg = rogan_gladen(*big)
    post = rate_posterior_exact(*big)
    lo, hi = post.interval(0.95)
    assert lo < rg < hi and hi - lo < 0.05


def test_gibbs_equals_exact():
    tp, fn, fp, tn, j1, j0 = COUNTS
    lab = np.array([[[tn, fp], [fn, tp]]], float)
    out = gibbs_misclassification(lab, np.array([[j0, j1]], float), draws=3000, tune=300, rng=3)
    p = out["cell"][..., 0, 1]  # (chains, draws)
    post = rate_posterior_exact(*COUNTS)
    assert abs(p.mean() - post.mean) < 4 * _batch_mcse(p)
    for q in (0.025, 0.975):  # share of draws below the exact quantile, within 4 MCSE
        below = (p <= post.quantile(q)).astype(float)
        assert abs(below.mean() - q) < 4 * max(_batch_mcse(below), np.sqrt(q * (1 - q) / p.size))


def test_independence_sampler_equals_exact():
    tp, fn, fp, tn, j1, j0 = COUNTS
    lab = np.array([[[tn, fp], [fn, tp]]], float)
    out = misclassification_posterior(lab, np.array([[j0, j1]], float), draws=1500, rng=4)
    p = out["cell"][..., 0, 1]
    post = rate_posterior_exact(*COUNTS)
    assert out["acceptance"][0] > 0.3
    assert abs(p.mean() - post.mean) < 4 * _batch_mcse(p)
    for q in (0.025, 0.975):
        below = (p <= post.quantile(q)).astype(float)
        assert abs(below.mean() - q) < 4 * max(_batch_mcse(below), np.sqrt(q * (1 - q) / p.size))


def test_pattern_counts_by_hand():
    y = np.array([[1, 1, 0, np.nan], [0, 1, 0, 1]])
    v = np.array([[1, 0, 0, 1], [0, 1, 1, 1]])
    lab, unl = pattern_counts(y, v)
    # item 0: cell (1, 0) = 1, pattern (1, 0) = 1; item 1: cell 3, pattern 2; item 2: cell 0,
    # pattern 2; item 3 unlabelled, pattern 3
    expected = np.zeros((4, 4))
    expected[1, 1] = expected[3, 2] = expected[0, 2] = 1
    assert np.array_equal(lab, expected) and unl.tolist() == [0, 0, 0, 1]


def _pair_counts(seed=5, items=600, labels=150):
    rng = np.random.default_rng(seed)
    easy = rng.random(items) < 0.5
    y = np.stack(
        [rng.random(items) < np.where(easy, 0.9, 0.5), rng.random(items) < np.where(easy, 0.8, 0.4)]
    ).astype(float)
    u = rng.random(y.shape)
    v = np.where(y == 1, u < 0.9, u > 0.7).astype(float)
    y[:, rng.permutation(items)[labels:]] = np.nan
    return pattern_counts(y, v)


@pytest.mark.mcmc
def test_exact_equals_pymc():
    from bayesnoise.mcmc.judge import sample_misclassification

    tp, fn, fp, tn, j1, j0 = COUNTS
    lab = np.array([[[tn, fp], [fn, tp]]], float)
    unl = np.array([[j0, j1]], float)
    pm = sample_misclassification(lab, unl, draws=1000, tune=500, chains=2, rng=1, progress=False)
    p = pm["cell"][..., 0, 1]
    post = rate_posterior_exact(*COUNTS)
    # gross convergence check only (2 x 1000 draws: r_hat's own noise is ~0.01); the batch-means
    # MCSE below carries any slow mixing into the tolerance
    assert pm["max_rhat"] < 1.05 and pm["divergences"] == 0
    assert abs(p.mean() - post.mean) < 4 * _batch_mcse(p)


@pytest.mark.mcmc
def test_paired_gibbs_equals_pymc():
    """The paired model: Gibbs and PyMC on the same counts."""
    from bayesnoise.mcmc.judge import sample_misclassification

    lab2, unl2 = _pair_counts()
    pm2 = sample_misclassification(
        lab2[None], unl2[None], draws=1000, tune=500, chains=2, rng=2, progress=False
    )
    gb = misclassification_posterior(lab2[None], unl2[None], draws=2000, tune=600, rng=2)
    d_pm = pm2["cell"][..., 0, 1] - pm2["cell"][..., 0, 2]
    d_gb = gb["cell"][..., 0, 1] - gb["cell"][..., 0, 2]
    tol = 4 * np.hypot(_batch_mcse(d_pm), _batch_mcse(d_gb))
    assert abs(d_pm.mean() - d_gb.mean()) < tol
