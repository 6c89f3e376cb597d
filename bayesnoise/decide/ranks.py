"""Rank uncertainty: which model is best, and how sure is that, from posterior or bootstrap draws.

Three sources of draws of the M models' scores, each about its own question:

* ``"hierarchical"`` (default): the posterior of the models' accuracies on the *population* of
  questions under a normal hierarchy over models (:func:`hierarchical_draws`). The observed
  accuracies are noisy, and the highest of several is more likely to be high by luck than the
  others; letting the models' accuracies share a spread estimated from the data shrinks that
  luck out, so P(best) is calibrated;
* ``"bootstrap"``: a paired bootstrap over questions (every model resampled on the same
  questions), about the population of questions (data + prediction noise). It centres every
  model on its observed score and so overstates how sure the leader is (winner's curse);
* ``"bayes"``: the conjugate posterior of ubar, the expected accuracy on *these* questions
  (prediction noise only; :func:`bayesnoise.conjugate.finite_sample_posterior`).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats

from bayesnoise._common import (
    check_confidence_level,
    new_spellings,
    reject_old,
    tail_probabilities,
)
from bayesnoise.data import MODEL, DataError, attr, complete
from bayesnoise.frequentist import bootstrap_means, pair_noise

from .letters import compact_letters, pvalue_matrix, top_group

__all__ = [
    "bootstrap_means",
    "hierarchical_draws",
    "rank_summary",
    "rank_table",
]

RANK_METHODS = ("hierarchical", "bootstrap", "bayes")
#: Truncation of the prior on the spread tau of the models' accuracies: the standard
#: deviation of numbers in [0, 1] is at most 0.5.
TAU_MAX = 0.5
RANK_COLUMNS = [
    "model",
    "accuracy",
    "prob_best",
    "expected_rank",
    "rank_low",
    "rank_high",
    "in_top_group",
    "group",
]


def rank_summary(draws, *, confidence_level: float = 0.95) -> dict[str, np.ndarray]:
    """P(best), expected rank and rank interval from draws of M scores.

    Parameters
    ----------
    draws : array_like, shape (M, D)
        Draws of the M scores (posterior or bootstrap).
    confidence_level : float, default 0.95

    Returns
    -------
    dict of numpy.ndarray, each (M,)
        ``prob_best``: share of draws in which the model is highest (ties split equally, so the
        column sums to 1); ``expected_rank``: mean rank (1 = best, ties get the mid-rank);
        ``rank_low``, ``rank_high``: equal-tailed interval of the rank. The top group is not
        read from draws: see :func:`bayesnoise.decide.top_group` and :func:`rank_table`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> draws = np.array([[0.8], [0.5], [0.79]]) + 0.01 * rng.standard_normal((3, 4000))
    >>> out = rank_summary(draws)
    >>> out["rank_high"].tolist(), bool(out["prob_best"][1] == 0)
    ([2.0, 3.0, 2.0], True)
    """
    level = check_confidence_level(confidence_level)
    x = np.asarray(draws, dtype=float)
    m = x.shape[0]
    # rank = 1 + (others higher) + (others equal) / 2: the mid-rank from the top, which is
    # M + 1 - the ascending mid-rank (O(M log M) per draw by sorting, not O(M^2) comparisons)
    rank = (m + 1.0) - stats.rankdata(x, method="average", axis=0)
    top_value = x.max(axis=0)
    at_top = x == top_value
    is_best = at_top / at_top.sum(axis=0)  # ties for the top split P(best) equally
    q_low, q_high = tail_probabilities(level)
    return {
        "prob_best": is_best.mean(axis=1),
        "expected_rank": rank.mean(axis=1),
        "rank_low": np.quantile(rank, q_low, axis=1, method="inverted_cdf"),
        "rank_high": np.quantile(rank, q_high, axis=1, method="inverted_cdf"),
    }


def hierarchical_draws(
    estimates,
    cov,
    *,
    n_resamples: int = 4000,
    rng=None,
    tau_scale: float | None = None,
    tau_max: float = TAU_MAX,
    grid: int = 400,
) -> tuple[np.ndarray, np.ndarray]:
    """Posterior draws of M true means under a normal hierarchy that shrinks the leader.

    Model: the estimates x ~ N(theta, Sigma) with Sigma the (paired) covariance of the
    estimates, taken as known; theta_m ~ N(m0, tau^2) independently, m0 flat, and tau
    half-Cauchy with scale ``tau_scale`` (default: the root mean square standard error of
    the estimates, sqrt(trace(Sigma) / M), so half the prior mass is on spreads below one SE),
    truncated at ``tau_max``. m0 is integrated out exactly; tau on a grid of its posterior,
    whose likelihood is the restricted (REML) marginal likelihood

        -1/2 [log|V| + log(1' V^-1 1) + r' V^-1 r],   V = Sigma + tau^2 I,

    r the residuals from the GLS mean. Given tau, theta is normal with mean m0_hat 1 +
    tau^2 V^-1 (x - m0_hat 1) and covariance tau^2 I - tau^4 V^-1 + a a' / (1' V^-1 1),
    a = Sigma V^-1 1 (the last term is m0's uncertainty). All of it in the eigenbasis of
    Sigma, whose eigenvalues are floored at 1e-6 of their mean so that two identical models
    cannot pin tau at 0. When Sigma is zero (up to rounding) the estimates are exact: every
    draw of theta is ``x`` and tau is the standard deviation of ``x``.

    Parameters
    ----------
    estimates : array_like, shape (M,)
        The M estimated means (accuracies).
    cov : array_like, shape (M, M)
        Covariance of the estimates (score units squared), e.g. the paired covariance of the
        mean scores ``np.cov(p, ddof=0) / N``.
    n_resamples : int, default 4000
    rng : numpy.random.Generator, optional
    tau_scale : float, optional
        Scale of tau's half-Cauchy prior (score units).
    tau_max : float, default 0.5
        Truncation of tau's prior (the SD of numbers in [0, 1] is at most 0.5).
    grid : int, default 400
        Nodes of tau's grid, log-spaced from 1e-4 sqrt(mean eigenvalue) to ``tau_max``.

    Returns
    -------
    theta : numpy.ndarray, shape (M, draws)
        Posterior draws of the true means.
    tau : numpy.ndarray, shape (draws,)
        The draws of tau behind them.

    Examples
    --------
    A leader two SEs ahead of five tied models is pulled back towards them:

    >>> x = np.array([0.64, 0.6, 0.6, 0.6, 0.6, 0.6])
    >>> theta, tau = hierarchical_draws(x, np.eye(6) * 0.02**2, rng=np.random.default_rng(0))
    >>> bool(0.6 < theta[0].mean() < 0.63)
    True
    """
    x = np.asarray(estimates, dtype=float)
    sigma = np.asarray(cov, dtype=float)
    rng = np.random.default_rng() if rng is None else rng
    lam, q = np.linalg.eigh((sigma + sigma.T) / 2)
    if lam.max() <= 1e-24 * max(float(np.max(x**2)), 1.0):
        # Sigma = 0 (e.g. every model has the same score on every question): the estimates
        # are exact, theta = x, and tau is their spread (the grid below would overflow)
        tau = float(x.std(ddof=1)) if x.size > 1 else 0.0
        return np.repeat(x[:, None], n_resamples, axis=1), np.full(n_resamples, tau)
    lam = np.maximum(lam, 1e-6 * max(lam.mean(), np.finfo(float).tiny))
    one, y = q.T @ np.ones(x.size), q.T @ x
    taus = np.geomspace(1e-4 * np.sqrt(lam.mean()), tau_max, grid)
    t = taus[:, None] ** 2
    w = 1.0 / (lam[None] + t)  # eigenvalues of V^-1, one row per tau
    s1 = (w * one**2).sum(axis=1)
    m0 = (w * one * y).sum(axis=1) / s1
    quad = (w * y**2).sum(axis=1) - m0**2 * s1
    loglik = -0.5 * (np.log(lam[None] + t).sum(axis=1) + np.log(s1) + quad)
    scale = np.sqrt(lam.mean()) if tau_scale is None else float(tau_scale)
    # half-Cauchy density in tau, times tau for the log-spaced grid
    logpost = loglik + np.log(taus) - np.log1p((taus / scale) ** 2)
    weight = np.exp(logpost - logpost.max())
    node = rng.choice(grid, size=n_resamples, p=weight / weight.sum())
    t_d, w_d = t[node], w[node]  # (D, 1), (D, M)
    mean = m0[node, None] + (t_d * w_d * (y - m0[node, None] * one)) @ q.T
    sd = np.sqrt(t_d * lam * w_d)  # tau^2 I - tau^4 V^-1 in the eigenbasis
    a = (lam * w_d * one) @ q.T  # Sigma V^-1 1: how m0's uncertainty moves each theta
    common = rng.standard_normal(n_resamples) / np.sqrt(s1[node])
    theta = mean + (sd * rng.standard_normal((n_resamples, x.size))) @ q.T + a * common[:, None]
    return theta.T, taus[node]


@new_spellings
def rank_table(
    ds,
    *,
    model: str = "hierarchical",
    n_resamples: int = 4000,
    confidence_level: float = 0.95,
    rng: int | None = 0,
    on_missing: str = "raise",
    **old,
) -> pd.DataFrame:
    """Per model: P(best), expected rank, a rank interval and the group tied with the top.

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.load`, at least two models.
    model : {"hierarchical", "bootstrap", "bayes"}
        How the accuracies are modelled (the ``ranks`` verb's ``model=``).
        ``"hierarchical"`` (default): posterior of the population accuracies under a normal
        hierarchy over the models (:func:`hierarchical_draws`, with the paired covariance
        of the mean scores); it shrinks the leader's luck and its P(best) is calibrated.
        ``"bootstrap"``: paired bootstrap over questions
        (:func:`bayesnoise.frequentist.bootstrap_means`), ranks of the population accuracies,
        centred on the observed ones (overconfident about the leader). ``"bayes"``: conjugate
        posterior draws of ubar, ranks on these questions (0/1 scores only); each model has
        its own prior, nothing is shared between models, and at K = 1 its P(best) is
        overconfident about the leader too (in simulation, stated 0.87-0.98 came true 0.66-0.70
        of the time).
    n_resamples : int, default 4000
        Posterior draws or bootstrap replicates (P(best) has Monte Carlo SE
        sqrt(P (1 - P) / n_resamples) <= 0.008 at the default).
    confidence_level : float, default 0.95
        Level of the rank interval; 1 - ``confidence_level`` is the family-wise error rate
        of the tests behind ``in_top_group`` and ``group``.
    rng : int or numpy.random.Generator, optional
    on_missing : {"raise", "intersect"}

    Returns
    -------
    pandas.DataFrame
        ``model, accuracy, prob_best, expected_rank, rank_low, rank_high, in_top_group, group``
        sorted by accuracy, best first (ties by expected rank; see :func:`rank_summary`);
        ``accuracy`` is the observed one. ``in_top_group`` and ``group`` come from one set of
        tests, whatever ``model``: the paired t tests of the pairs table (:func:`pair_noise`),
        Holm-adjusted over all M (M - 1) / 2 pairs, at alpha = 1 - ``confidence_level``, read
        in accuracy order (:func:`bayesnoise.decide.ordered_separation`: a better and a worse
        model are shown apart only when every model at least as accurate as the first is
        separated from every model at most as accurate as the second). ``in_top_group``:
        not shown apart from the most accurate model (:func:`bayesnoise.decide.top_group`);
        the group is a run of the most accurate models and holds the truly best one with
        probability >= ``confidence_level``. ``group``: the compact letter display
        (:func:`bayesnoise.decide.compact_letters`) of the same separation; two models share
        a letter exactly when they are not shown apart, each letter is a run of consecutive
        rows, and ``a`` is the top group. ``attrs``: ``model``, ``n_resamples``, ``about``
        ("population" or "these questions"), ``family_size`` (pairs tested) and, for
        ``"hierarchical"``, ``tau`` (posterior median of the spread of the models'
        accuracies).

    Examples
    --------
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(1, 1, size=(1, 300)) * np.array([[1.0], [0.9], [0.6]])
    >>> ds = from_arrays(rng.binomial(4, u), np.full((3, 300), 4), models=["a", "b", "c"])
    >>> rank_table(ds, n_resamples=1000)["model"].tolist()
    ['a', 'b', 'c']
    """
    reject_old(
        "rank_table",
        old,
        {"method": "model= (values hierarchical, bootstrap, bayes), as the ranks verb"},
    )
    if model not in RANK_METHODS:
        raise ValueError(f"model must be one of {RANK_METHODS}, got {model!r}")
    source = attr(ds, "source")
    names = ds[MODEL].values.astype(str)
    if names.size == 1:
        raise DataError(f"{source}: ranks need at least two models; it has one: {names[0]}")
    ds = complete(ds, on_missing=on_missing)
    correct, count = ds["correct"].values, ds["samples"].values
    accuracy = np.mean(correct / count, axis=1)
    if model != "bayes" and np.all(correct / count == accuracy[:, None]):
        warnings.warn(
            "ranks: each model has the same score on every question, so the standard errors "
            "are 0 and the ranks follow the accuracies exactly"
            + ("; all models are tied" if np.all(accuracy == accuracy[0]) else ""),
            UserWarning,
            stacklevel=2,
        )
    extra = {}
    if model == "hierarchical":
        p = correct / count
        gen = np.random.default_rng(rng)
        cov = np.atleast_2d(np.cov(p, ddof=0)) / p.shape[1]
        x, tau = hierarchical_draws(accuracy, cov, n_resamples=n_resamples, rng=gen)
        about = "population"
        extra["tau"] = float(np.median(tau))
    elif model == "bootstrap":
        gen = np.random.default_rng(rng)
        x = bootstrap_means(correct / count, n_resamples=n_resamples, rng=gen)
        about = "population"
    else:
        from bayesnoise.conjugate import finite_sample_posterior

        post = finite_sample_posterior(
            correct, count, n_resamples=n_resamples, rng=rng, keep_draws=True
        )
        x, about = post.ubar_draws, "these questions"
    out = rank_summary(x, confidence_level=confidence_level)
    df = pd.DataFrame({"model": ds[MODEL].values.astype(str), "accuracy": accuracy, **out})
    df = df.sort_values(
        ["accuracy", "expected_rank", "model"], ascending=[False, True, True], kind="stable"
    ).reset_index(drop=True)
    level = check_confidence_level(confidence_level)
    with warnings.catch_warnings():  # the K = 1 split note is about columns not used here
        warnings.filterwarnings("ignore", message="data/prediction split not identifiable")
        pairs = pair_noise(ds, adjust="holm")
    p = pvalue_matrix(pairs, df["model"])
    scores = df["accuracy"].to_numpy()
    df["in_top_group"] = top_group(p, scores, alpha=1.0 - level)
    # runs of the rows in table order: at most M letters, never too many to read
    df["group"] = compact_letters(p, alpha=1.0 - level, scores=scores, order=np.arange(len(df)))
    df.attrs.update(
        model=model,
        n_resamples=int(n_resamples),
        about=about,
        family_size=int(pairs.attrs.get("family_size", len(pairs))),
        **extra,
    )
    return df[RANK_COLUMNS]
