"""Adjusted p-values when many pairs are tested at once."""

from __future__ import annotations

import numpy as np

__all__ = [
    "adjust_pvalues",
]

ADJUST_METHODS = ("holm", "bh", "bonferroni", "none")


def adjust_pvalues(pvalues, method: str = "holm") -> np.ndarray:
    """Multiplicity-adjusted p-values, in the order given.

    Parameters
    ----------
    pvalues : array_like
        Unadjusted p-values in [0, 1]. NaN entries (a test that could not be computed) stay NaN
        and do not count towards the family size.
    method : {"holm", "bh", "bonferroni", "none"}
        ``"holm"``: Holm's step-down, controls the family-wise error rate (the chance of any false
        claim) under any dependence. ``"bh"``: Benjamini-Hochberg step-up, controls the false
        discovery rate (the expected share of false claims) for independent or positively
        dependent tests. ``"bonferroni"``: m p. ``"none"``: unchanged.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, capped at 1, same shape as ``pvalues``.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    p = np.asarray(pvalues, dtype=float)
    if method not in ADJUST_METHODS:
        raise ValueError(f"method must be one of {ADJUST_METHODS}, got {method!r}")
    finite = ~np.isnan(p)
    if np.any((p[finite] < 0) | (p[finite] > 1)):
        raise ValueError("p-values must lie in [0, 1]")
    out = p.copy()
    if method == "none" or not finite.any():
        return out
    q = p[finite]
    m = q.size
    if method == "bonferroni":
        out[finite] = np.minimum(q * m, 1.0)
        return out
    order = np.argsort(q, kind="stable")
    ranked = q[order]
    if method == "holm":
        steps = np.maximum.accumulate((m - np.arange(m)) * ranked)
    else:
        steps = np.minimum.accumulate((m / np.arange(1, m + 1) * ranked)[::-1])[::-1]
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(steps, 1.0)
    out[finite] = adjusted
    return out
