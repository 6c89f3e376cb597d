"""Exact frequentist coverage of interval methods for one binomial proportion.

Coverage at (n, p) = sum over k = 0..n of 1[p in interval(k, n)] * Binomial(k; n, p): no
simulation. The Bayesian intervals come from :mod:`bayesnoise.conjugate.rate`; Wald,
Wilson, Clopper-Pearson, Jeffreys and Agresti-Coull from statsmodels' ``proportion_confint``
(a test dependency), Jeffreys with the usual end fixes (low = 0 at k = 0, high = 1 at k = n).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from bayesnoise._common import check_confidence_level
from bayesnoise.conjugate import rate_posterior

__all__ = ["COVERAGE_METHODS", "coverage_probability", "interval_table", "mean_coverage"]

_FREQ = {
    "wald": "normal",
    "normal": "normal",
    "wilson": "wilson",
    "clopper_pearson": "beta",
    "beta": "beta",
    "jeffreys": "jeffreys",
    "agresti_coull": "agresti_coull",
}
COVERAGE_METHODS = ("bayes", "bayes_hdi", *_FREQ)


def interval_table(
    n: int, method: str = "bayes", *, confidence_level: float = 0.95, prior="uniform"
):
    """Interval ends for every possible outcome k = 0..n.

    Parameters
    ----------
    n : int
        Trials.
    method : str
        ``"bayes"`` (equal-tailed posterior interval under ``prior``, as in the note),
        ``"bayes_hdi"`` (highest posterior density), or a frequentist method: ``"wald"``
        (= ``"normal"``), ``"wilson"``, ``"clopper_pearson"`` (= ``"beta"``), ``"jeffreys"``,
        ``"agresti_coull"``.
    confidence_level : float, default 0.95
    prior : prior specification for the Bayesian methods (default uniform Beta(1, 1)).

    Returns
    -------
    low, high : numpy.ndarray, shape (n + 1,)

    Examples
    --------
    >>> low, high = interval_table(2, "wald")
    >>> low.tolist()
    [0.0, 0.0, 1.0]
    """
    level = check_confidence_level(confidence_level)
    n = int(n)
    if n < 1:
        raise ValueError("n must be >= 1")
    k = np.arange(n + 1, dtype=float)
    if method in ("bayes", "bayes_hdi"):
        ci = rate_posterior(k, n, prior=prior).confidence_interval(
            level, method="equal_tailed" if method == "bayes" else "hdi"
        )
        return np.asarray(ci.low, float), np.asarray(ci.high, float)
    if method not in _FREQ:
        raise ValueError(f"method must be one of {COVERAGE_METHODS}, got {method!r}")
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(k, n, alpha=1.0 - level, method=_FREQ[method])
    low, high = np.asarray(low, float), np.asarray(high, float)
    if _FREQ[method] == "jeffreys":  # the end fixes of Brown, Cai and DasGupta (2001)
        low[0], high[-1] = 0.0, 1.0
    return low, high


def coverage_probability(
    n: int, p, method: str = "bayes", *, confidence_level: float = 0.95, prior="uniform"
):
    """Exact coverage probability of an interval method at (n, p).

    Parameters
    ----------
    n : int
    p : float or array_like
        True proportion(s).
    method, confidence_level, prior : see :func:`interval_table`.

    Returns
    -------
    numpy.ndarray or float
        ``sum_k 1[low_k <= p <= high_k] * binom.pmf(k, n, p)``, same shape as ``p``.

    Examples
    --------
    >>> round(float(coverage_probability(15, 0.025, "wald")), 6)
    0.315552
    >>> round(float(coverage_probability(15, 0.025, "bayes")), 6)
    0.947106
    """
    low, high = interval_table(n, method, confidence_level=confidence_level, prior=prior)
    p = np.asarray(p, dtype=float)
    if np.any((p < 0) | (p > 1)):
        raise ValueError("p must be in [0, 1]")
    k = np.arange(int(n) + 1)
    pp = p[..., None]
    covered = (low <= pp) & (pp <= high)
    pmf = stats.binom.pmf(k, int(n), pp)
    return (covered * pmf).sum(axis=-1)[()]


def mean_coverage(
    n_values, p_grid=None, method: str = "bayes", *, confidence_level: float = 0.95, prior="uniform"
):
    """Mean exact coverage over a grid of p, for each n (the note's coverage curve).

    Parameters
    ----------
    n_values : iterable of int
        E.g. ``range(10, 350, 10)`` as in the note.
    p_grid : array_like, optional
        Default ``numpy.linspace(0.01, 0.99, 200)`` (the note's grid).
    method, confidence_level, prior : see :func:`interval_table`.

    Returns
    -------
    numpy.ndarray, one mean coverage per n.

    Examples
    --------
    >>> mc = mean_coverage([10, 20], method="bayes")
    >>> bool(0.9 < mc[0] < 1.0)
    True
    """
    grid = np.linspace(0.01, 0.99, 200) if p_grid is None else np.asarray(p_grid, float)
    return np.array(
        [
            coverage_probability(
                n, grid, method, confidence_level=confidence_level, prior=prior
            ).mean()
            for n in n_values
        ]
    )
