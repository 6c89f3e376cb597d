"""Exact coverage of interval methods for one binomial rate, by enumerating the binomial.

At sample size n and true rate p, an interval method I covers with probability
``sum_k 1[p in I(k, n)] C(n, k) p^k (1 - p)^(n - k)`` (DESIGN section 7): no simulation, no
Monte Carlo error. This reproduces the success-probability note's comparison of the Wald
interval with the Beta credible interval.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from bayesnoise._common import check_confidence_level, tail_probabilities

__all__ = [
    "binomial_intervals",
    "exact_coverage",
]

#: Interval methods :func:`exact_coverage` enumerates.
COVERAGE_METHODS = ("wald", "bayes", "bayes-hpd", "clopper-pearson", "wilson")


def binomial_intervals(n: int, method: str = "wald", *, prior="uniform", confidence_level=0.95):
    """The interval of ``method`` after k = 0..n successes in n trials.

    Parameters
    ----------
    n : int
    method : {"wald", "bayes", "bayes-hpd", "clopper-pearson", "wilson"}
        ``wald``: p^ -/+ z sqrt(p^ (1 - p^) / n) (the note's normal approximation);
        ``bayes``: equal-tailed Beta credible interval under ``prior``; ``bayes-hpd``: its
        highest-density interval; ``clopper-pearson``: the exact
        Beta-quantile interval; ``wilson``: the score interval without continuity correction
        (tests check both against statsmodels' ``proportion_confint``).
    prior : str, (a, b), dict or BetaPrior, default "uniform"
        Prior of the Bayesian methods (see :func:`bayesnoise.conjugate.beta_prior`).
    confidence_level : float, default 0.95

    Returns
    -------
    low, high : numpy.ndarray, shape (n + 1,)

    Examples
    --------
    >>> low, high = binomial_intervals(10, "wald")
    >>> float(low[0]), float(high[0])
    (0.0, 0.0)
    """
    level = check_confidence_level(confidence_level)
    n = int(n)
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    k = np.arange(n + 1, dtype=float)
    if method == "wald":
        z = stats.norm.ppf(0.5 + level / 2)
        phat = k / n
        half = z * np.sqrt(phat * (1 - phat) / n)
        return phat - half, phat + half
    if method in ("bayes", "bayes-hpd"):
        from bayesnoise.conjugate import rate_posterior

        post = rate_posterior(k, np.full(k.shape, n), prior)
        ci = post.confidence_interval(level, "hdi" if method == "bayes-hpd" else "equal_tailed")
        return np.asarray(ci.low, dtype=float), np.asarray(ci.high, dtype=float)
    tail = (1 - level) / 2
    if method == "clopper-pearson":  # Beta quantiles (the exact interval); 0 and 1 at the edges
        low = np.where(k > 0, stats.beta.ppf(tail, np.maximum(k, 1), n - k + 1), 0.0)
        high = np.where(k < n, stats.beta.ppf(1 - tail, k + 1, np.maximum(n - k, 1)), 1.0)
        return low, high
    if method == "wilson":  # the score interval without continuity correction
        z = stats.norm.ppf(1 - tail)
        phat = k / n
        centre = (phat + z**2 / (2 * n)) / (1 + z**2 / n)
        half = z * np.sqrt(phat * (1 - phat) / n + z**2 / (4 * n**2)) / (1 + z**2 / n)
        return centre - half, centre + half
    raise ValueError(f"method must be one of {', '.join(COVERAGE_METHODS)}, got {method!r}")


def exact_coverage(n, p, *, method="wald", prior="uniform", confidence_level=0.95):
    """Exact coverage probability of an interval method for a binomial rate.

    Parameters
    ----------
    n : int or array_like of int
        Sample sizes.
    p : float or array_like
        True rates in [0, 1].
    method : {"wald", "bayes", "bayes-hpd", "clopper-pearson", "wilson"}, default "wald"
        See :func:`binomial_intervals`.
    prior : default "uniform"
        Prior of the Bayesian methods.
    confidence_level : float, default 0.95

    Returns
    -------
    float or numpy.ndarray
        Shape ``np.shape(n) + np.shape(p)``: P(p in I(X, n)), X ~ Binomial(n, p), interval
        ends included.

    Examples
    --------
    >>> round(float(exact_coverage(15, 0.025, method="wald")), 6)
    0.315552
    >>> round(float(exact_coverage(15, 0.025, method="bayes")), 6)
    0.947106
    """
    tail_probabilities(confidence_level)  # checks the level
    ns = np.asarray(n)
    ps = np.asarray(p, dtype=float)
    if np.any((ps < 0) | (ps > 1)) or not np.all(np.isfinite(ps)):
        raise ValueError("p must be in [0, 1]")
    flat_p = ps.reshape(-1)
    out = np.empty((ns.size, flat_p.size))
    for i, size in enumerate(ns.reshape(-1)):
        if size != int(size) or size < 1:
            raise ValueError(f"n must hold whole numbers >= 1, got {size}")
        low, high = binomial_intervals(
            int(size), method, prior=prior, confidence_level=confidence_level
        )
        k = np.arange(int(size) + 1)
        covered = (flat_p[None, :] >= low[:, None]) & (flat_p[None, :] <= high[:, None])
        pmf = stats.binom.pmf(k[:, None], int(size), flat_p[None, :])
        out[i] = (covered * pmf).sum(axis=0)
    return out.reshape(ns.shape + ps.shape)[()]
