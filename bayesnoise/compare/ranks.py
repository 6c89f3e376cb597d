"""Rank uncertainty: which model is best, and how sure is that, from posterior or bootstrap draws.

Two sources of draws of the M models' scores, each about its own question:

* ``"bootstrap"``: a paired bootstrap over questions (every model resampled on the same
  questions), about the accuracy on the *population* of questions (data + prediction noise);
* ``"bayes"``: the conjugate posterior of ubar, the expected accuracy on *these* questions
  (prediction noise only; :func:`bayesnoise.conjugate.finite_sample_posterior`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesnoise._common import check_confidence_level, tail_probabilities, triu_pairs
from bayesnoise.data import MODEL, complete
from bayesnoise.frequentist import bootstrap_means

__all__ = ["RANK_COLUMNS", "RANK_METHODS", "bootstrap_means", "rank_summary", "rank_table"]

RANK_METHODS = ("bootstrap", "bayes")
RANK_COLUMNS = [
    "model",
    "accuracy",
    "p_best",
    "expected_rank",
    "rank_low",
    "rank_high",
    "in_top_group",
]


def rank_summary(draws, center, *, confidence_level: float = 0.95) -> dict[str, np.ndarray]:
    """P(best), expected rank, rank interval and top group from draws of M scores.

    Parameters
    ----------
    draws : array_like, shape (M, D)
        Draws of the M scores (posterior or bootstrap).
    center : array_like, shape (M,)
        The point estimates (the observed accuracies, or posterior means).
    confidence_level : float, default 0.95

    Returns
    -------
    dict of numpy.ndarray, each (M,)
        ``p_best``: share of draws in which the model is highest (ties split equally, so the
        column sums to 1); ``expected_rank``: mean rank (1 = best, ties get the mid-rank);
        ``rank_low``, ``rank_high``: equal-tailed interval of the rank; ``in_top_group``:
        no other model is better by the simultaneous band ``center_a - center_b +- c sd_ab``,
        with c the ``confidence_level`` quantile over draws of the max over pairs of the
        standardised deviation |(x_a - x_b) - (center_a - center_b)| / sd_ab.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> draws = np.array([[0.8], [0.5], [0.79]]) + 0.01 * rng.standard_normal((3, 4000))
    >>> out = rank_summary(draws, draws.mean(axis=1))
    >>> out["in_top_group"].tolist(), bool(out["p_best"][1] == 0)
    ([True, False, True], True)
    """
    level = check_confidence_level(confidence_level)
    x = np.asarray(draws, dtype=float)
    center = np.asarray(center, dtype=float)
    m, d = x.shape
    greater = np.zeros((m, d))
    equal = np.zeros((m, d))
    for a in range(m):  # O(M^2 D) comparisons, memory O(M D)
        greater[a] = (x > x[a]).sum(axis=0)
        equal[a] = (x == x[a]).sum(axis=0) - 1
    rank = 1 + greater + equal / 2
    is_best = (greater == 0) / (1 + equal)
    q_low, q_high = tail_probabilities(level)
    ia, ib = triu_pairs(m)
    diff = x[ia] - x[ib]
    sd = diff.std(axis=1)
    keep = sd > 0
    top = np.ones(m, dtype=bool)
    if keep.any():
        dev = np.abs(diff[keep] - (center[ia] - center[ib])[keep, None]) / sd[keep, None]
        c = float(np.quantile(dev.max(axis=0), level))
        gap = center[ia] - center[ib]
        beaten_b = keep & (gap - c * np.where(keep, sd, 0) > 0)  # a better than b
        beaten_a = keep & (gap + c * np.where(keep, sd, 0) < 0)  # b better than a
        top[ib[beaten_b]] = False
        top[ia[beaten_a]] = False
    return {
        "p_best": is_best.mean(axis=1),
        "expected_rank": rank.mean(axis=1),
        "rank_low": np.quantile(rank, q_low, axis=1, method="inverted_cdf"),
        "rank_high": np.quantile(rank, q_high, axis=1, method="inverted_cdf"),
        "in_top_group": top,
    }


def rank_table(
    ds,
    *,
    method: str = "bootstrap",
    draws: int = 4000,
    confidence_level: float = 0.95,
    random_seed: int | None = 0,
    on_missing: str = "raise",
) -> pd.DataFrame:
    """Per model: P(best), expected rank, a rank interval and the group tied with the top.

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.load`, at least two models.
    method : {"bootstrap", "bayes"}
        ``"bootstrap"``: paired bootstrap over questions (:func:`bayesnoise.frequentist.bootstrap_means`), ranks of
        the population accuracies. ``"bayes"``: conjugate posterior draws of ubar, ranks on
        these questions (0/1 scores only).
    draws : int, default 4000
        Bootstrap replicates or posterior draws (P(best) has Monte Carlo SE
        sqrt(P (1 - P) / draws) <= 0.008 at the default).
    confidence_level : float, default 0.95
        Level of the rank interval and of the simultaneous band behind ``in_top_group``.
    random_seed : int, optional
    on_missing : {"raise", "intersect"}

    Returns
    -------
    pandas.DataFrame
        ``model, accuracy, p_best, expected_rank, rank_low, rank_high, in_top_group`` sorted by
        expected rank (see :func:`rank_summary`); ``attrs``: ``method``, ``draws``,
        ``about`` ("population" or "these questions").

    Examples
    --------
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(1, 1, size=(1, 300)) * np.array([[1.0], [0.9], [0.6]])
    >>> ds = from_arrays(rng.binomial(4, u), np.full((3, 300), 4), models=["a", "b", "c"])
    >>> rank_table(ds, draws=1000)["model"].tolist()
    ['a', 'b', 'c']
    """
    if method not in RANK_METHODS:
        raise ValueError(f"method must be one of {RANK_METHODS}, got {method!r}")
    ds = complete(ds, on_missing=on_missing)
    correct, count = ds["correct"].values, ds["count"].values
    accuracy = np.mean(correct / count, axis=1)
    if method == "bootstrap":
        rng = np.random.default_rng(random_seed)
        x = bootstrap_means(correct / count, n_boot=draws, rng=rng)
        center, about = accuracy, "population"
    else:
        from bayesnoise.conjugate import finite_sample_posterior

        post = finite_sample_posterior(
            correct, count, draws=draws, random_seed=random_seed, keep_draws=True
        )
        x, center, about = post.ubar_draws, post.ubar_mean, "these questions"
    out = rank_summary(x, center, confidence_level=confidence_level)
    df = pd.DataFrame({"model": ds[MODEL].values.astype(str), "accuracy": accuracy, **out})
    df = df.sort_values(["expected_rank", "model"], kind="stable").reset_index(drop=True)
    df.attrs.update(method=method, draws=int(draws), about=about)
    return df[RANK_COLUMNS]
