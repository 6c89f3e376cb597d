"""Simultaneous confidence intervals for all pair differences at once (max-|T| and Bonferroni).

The M model means share questions, so the M (M - 1) / 2 pair differences are jointly normal with a
covariance the M x M covariance of the per-question mean scores gives. The max-|T| critical value
c solves P(max_j |Z_j| <= c) = level for Z the standardised differences; intervals
``difference +- c se`` then cover *all* true differences together with probability ``level``
(asymptotically). Bonferroni's c = z_{1 - alpha / (2 P)} ignores the correlation and is wider.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import special

from bayesnoise._common import check_confidence_level, pair_table, triu_pairs
from bayesnoise.data import MODEL, complete

__all__ = ["SIMULTANEOUS_METHODS", "max_abs_t_draws", "simultaneous_intervals"]

SIMULTANEOUS_METHODS = ("max-t", "bonferroni")


def max_abs_t_draws(cov, *, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """Draws of max over pairs of |x_a - x_b| / sd(x_a - x_b) for x ~ Normal(0, cov).

    Parameters
    ----------
    cov : array_like, shape (M, M)
        Covariance of the M model means (positive semi-definite; e.g. C / N with C the
        covariance of the per-question scores). Pairs whose difference has variance zero up to
        rounding (1e-12 times the largest variance) are left out of the maximum.
    n_draws : int
        Number of draws.
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray, shape (n_draws,)

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> t = max_abs_t_draws(np.eye(2), n_draws=20000, rng=rng)  # one pair: |Z|
    >>> round(float(np.quantile(t, 0.95)), 1)
    2.0
    """
    cov = np.asarray(cov, dtype=float)
    m = cov.shape[0]
    values, vectors = np.linalg.eigh((cov + cov.T) / 2)
    root = vectors * np.sqrt(np.clip(values, 0.0, None))  # cov = root @ root.T
    ia, ib = triu_pairs(m)
    var = np.diag(cov)[ia] + np.diag(cov)[ib] - 2 * cov[ia, ib]
    keep = var > 1e-12 * max(float(np.max(np.diag(cov), initial=0.0)), 1e-300)
    ia, ib, sd = ia[keep], ib[keep], np.sqrt(var[keep])
    out = np.zeros(n_draws)
    if ia.size == 0:
        return out
    chunk = max(1, 2**22 // max(ia.size, m))  # keep each block of pair differences <= 32 MB
    for start in range(0, n_draws, chunk):
        rows = min(chunk, n_draws - start)
        x = rng.standard_normal((rows, m)) @ root.T
        out[start : start + rows] = np.max(np.abs(x[:, ia] - x[:, ib]) / sd, axis=1)
    return out


def simultaneous_intervals(
    ds,
    *,
    confidence_level: float = 0.95,
    method: str = "max-t",
    n_draws: int = 100_000,
    random_seed: int | None = 0,
    on_missing: str = "raise",
) -> pd.DataFrame:
    """Intervals for every pair difference a - b that hold simultaneously.

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.load`, at least two models.
    confidence_level : float, default 0.95
        Probability that all intervals cover their true (population) differences together.
    method : {"max-t", "bonferroni"}
        ``"max-t"``: the critical value c is the ``confidence_level`` quantile of max_j |Z_j|,
        from ``n_draws`` seeded draws of the joint normal of the differences
        (:func:`max_abs_t_draws`). ``"bonferroni"``: c = z_{1 - (1 - level) / (2 P)}, exact.
    n_draws : int, default 100000
        Monte Carlo draws of the max-|T| (the coverage of c is then level +- about
        sqrt(level (1 - level) / n_draws) = 0.0007 at the defaults).
    random_seed : int, optional
    on_missing : {"raise", "intersect"}

    Returns
    -------
    pandas.DataFrame
        ``model_a, model_b, difference, se_mean, simultaneous_low, simultaneous_high,
        p_simultaneous``: ``se_mean`` as in :func:`bayesnoise.frequentist.pair_noise` (the SE
        of the difference of the K-averaged scores), the interval difference +- c se_mean, and
        the single-step adjusted p-value P(max |Z| >= |z|) (max-t) or min(1, P p) (Bonferroni).
        Pairs whose difference has zero variance (models that agree on every question) get
        NaN. ``attrs``: ``critical_value``, ``critical_value_mcse`` (Monte Carlo SE of c from
        the density of max |Z| at c; 0 for Bonferroni), ``bonferroni_critical_value``,
        ``coverage_mcse``, ``method``, ``family_size``.

    Examples
    --------
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(1, 1, size=(1, 400)).repeat(4, axis=0)
    >>> ds = from_arrays(rng.binomial(5, u), np.full((4, 400), 5))
    >>> out = simultaneous_intervals(ds, n_draws=20000)
    >>> c = out.attrs["critical_value"]
    >>> bool(1.96 < c < out.attrs["bonferroni_critical_value"])
    True
    """
    from bayesnoise.frequentist import pair_noise_dataset

    level = check_confidence_level(confidence_level)
    if method not in SIMULTANEOUS_METHODS:
        raise ValueError(f"method must be one of {SIMULTANEOUS_METHODS}, got {method!r}")
    mat = pair_noise_dataset(complete(ds, on_missing=on_missing))
    n = mat.attrs["questions"]
    var_model, var_pair = mat["var_mean_model"].values, mat["var_mean"].values
    cov = (var_model[:, None] + var_model[None, :] - var_pair) / 2 / n  # of the model means
    np.fill_diagonal(cov, var_model / n)
    df = pair_table(mat[MODEL].values, {c: mat[c].values for c in ("difference", "se_mean", "z")})
    finite = np.isfinite(df["z"].to_numpy())
    family = int(finite.sum())
    alpha = 1 - level
    bonferroni = float(special.ndtri(1 - alpha / (2 * max(family, 1))))
    abs_z = np.abs(df.pop("z").to_numpy())
    if method == "max-t":
        rng = np.random.default_rng(random_seed)
        t = np.sort(max_abs_t_draws(cov, n_draws=n_draws, rng=rng))
        c = float(np.quantile(t, level, method="inverted_cdf"))
        h = 0.05 * c  # density of max |Z| at c by a central difference of the empirical cdf
        density = (np.searchsorted(t, c + h) - np.searchsorted(t, c - h)) / (2 * h * n_draws)
        mcse = float(np.sqrt(level * alpha / n_draws) / max(density, 1e-300))
        with np.errstate(invalid="ignore"):
            p = 1 - np.searchsorted(t, abs_z, side="left") / n_draws
    else:
        c, mcse = bonferroni, 0.0
        p = np.minimum(1.0, family * special.erfc(abs_z / np.sqrt(2.0)))
    se = df["se_mean"].to_numpy()
    df["simultaneous_low"] = np.where(finite, df["difference"] - c * se, np.nan)
    df["simultaneous_high"] = np.where(finite, df["difference"] + c * se, np.nan)
    df["p_simultaneous"] = np.where(finite, p, np.nan)
    df.attrs.update(
        method=method,
        critical_value=c,
        critical_value_mcse=mcse,
        bonferroni_critical_value=bonferroni,
        coverage_mcse=float(np.sqrt(level * alpha / n_draws)) if method == "max-t" else 0.0,
        family_size=family,
        questions=n,
    )
    return df
