"""Simultaneous confidence intervals for all pair differences at once (max-|T| and Bonferroni).

The M model means share questions, so the M (M - 1) / 2 pair differences are jointly normal with a
covariance the M x M covariance of the per-question mean scores gives. Each difference is
studentized by its own estimated SE, so the small-sample reference of the max-|T| is not the
normal one: under normal per-question scores the sample covariance is Wishart with N - 1
degrees of freedom and independent of the means, and drawing both gives the exact distribution
of max_j |T_j| (each T_j alone is Student t with N - 1 df). The critical value c solves
P(max_j |T_j| <= c) = level; intervals ``difference +- c se`` then cover *all* true differences
together with probability ``level``. Bonferroni's c = t_{N-1, 1 - alpha / (2 P)} ignores the
correlation and is wider.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import special

from bayesnoise._common import (
    check_confidence_level,
    new_spellings,
    pair_table,
    reject_old,
    triu_pairs,
)
from bayesnoise.data import MODEL, complete

__all__ = [
    "max_abs_t_draws",
    "simultaneous_intervals",
]

SIMULTANEOUS_METHODS = ("max-t", "bonferroni")


def _wishart_roots(rng: np.random.Generator, rows: int, m: int, df: int) -> np.ndarray:
    """(rows, m, q) matrices B with B B^T ~ Wishart(df, I_m): Bartlett's lower-triangular factor
    (q = m) when df >= m, else m x df standard normals (a singular Wishart)."""
    if df < m:
        return rng.standard_normal((rows, m, df))
    out = np.zeros((rows, m, m))
    low = np.tril_indices(m, -1)
    out[:, low[0], low[1]] = rng.standard_normal((rows, low[0].size))
    diag = np.arange(m)
    out[:, diag, diag] = np.sqrt(rng.chisquare(df - diag, size=(rows, m)))
    return out


def max_abs_t_draws(
    cov,
    *,
    n_resamples: int,
    rng: np.random.Generator,
    df: int | None = None,
    variance: str = "wishart",
) -> np.ndarray:
    """Draws of max over pairs of |x_a - x_b| / se_ab for x ~ Normal(0, cov).

    ``df=None``: se_ab is the true sd of x_a - x_b (max of jointly normal |Z_j|). ``df=nu``:
    se_ab is estimated, from S ~ Wishart(nu, cov) / nu independent of x (the sample covariance
    of nu + 1 normal question vectors, scaled like ``cov``): each ratio is Student t with nu
    degrees of freedom, with the dependence between the pairs' variance estimates that the
    pairs table's studentized differences have.

    Parameters
    ----------
    cov : array_like, shape (M, M)
        Covariance of the M model means (positive semi-definite; e.g. C / N with C the
        covariance of the per-question scores). Pairs whose difference has variance zero up to
        rounding (1e-12 times the largest variance) are left out of the maximum.
    n_resamples : int
        Number of draws.
    rng : numpy.random.Generator
    df : int, optional
        Degrees of freedom of the variance estimates (N - 1 for N questions); None: known.
    variance : {"wishart", "shared"}
        With ``df``: ``"wishart"`` draws the whole sample covariance (exact for normal scores,
        O(M^2 min(M, df)) per draw); ``"shared"`` scales every pair by one chi-square
        sqrt(chi2_df / df) (the multivariate t: each ratio is still exactly Student t, but the
        pairs' variance estimates move together), O(P) per draw, for large families.

    Returns
    -------
    numpy.ndarray, shape (n_draws,)

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> t = max_abs_t_draws(np.eye(2), n_resamples=20000, rng=rng)  # one pair: |Z|
    >>> round(float(np.quantile(t, 0.95)), 1)
    2.0
    >>> t = max_abs_t_draws(np.eye(2), n_resamples=20000, rng=rng, df=4)  # one pair: |t_4|, 2.78
    >>> round(float(np.quantile(t, 0.95)), 1)
    2.8
    """
    cov = np.asarray(cov, dtype=float)
    m = cov.shape[0]
    values, vectors = np.linalg.eigh((cov + cov.T) / 2)
    root = vectors * np.sqrt(np.clip(values, 0.0, None))  # cov = root @ root.T
    ia, ib = triu_pairs(m)
    var = np.diag(cov)[ia] + np.diag(cov)[ib] - 2 * cov[ia, ib]
    keep = var > 1e-12 * max(float(np.max(np.diag(cov), initial=0.0)), 1e-300)
    ia, ib, sd = ia[keep], ib[keep], np.sqrt(var[keep])
    out = np.zeros(n_resamples)
    if ia.size == 0:
        return out
    if df is not None and df < 1:
        raise ValueError(f"df must be >= 1, got {df}")
    if variance not in ("wishart", "shared"):
        raise ValueError(f"variance must be 'wishart' or 'shared', got {variance!r}")
    shared = df is not None and variance == "shared"
    q = m if df is None or shared else min(m, df)
    chunk = max(1, 2**22 // (ia.size + 3 * m * q))  # keep each block <= 32 MB
    diff = root[ia] - root[ib]  # x_a - x_b = (root_a - root_b) . g
    for start in range(0, n_resamples, chunk):
        rows = min(chunk, n_resamples - start)
        x = rng.standard_normal((rows, m)) @ diff.T
        if df is None:
            scale = sd
        elif shared:
            scale = sd * np.sqrt(rng.chisquare(df, size=(rows, 1)) / df)
        else:  # W = (root B)(root B)^T ~ Wishart(df, cov); var_ab = W_aa + W_bb - 2 W_ab
            spread = root @ _wishart_roots(rng, rows, m, df)  # (rows, m, q)
            w = spread @ spread.transpose(0, 2, 1)
            var_ab = w[:, ia, ia] + w[:, ib, ib] - 2.0 * w[:, ia, ib]
            scale = np.sqrt(np.maximum(var_ab, 0.0) / df)
        out[start : start + rows] = np.max(np.abs(x) / scale, axis=1)
    return out


@new_spellings
def simultaneous_intervals(
    ds,
    *,
    confidence_level: float = 0.95,
    method: str = "max-t",
    n_resamples: int = 100_000,
    variance: str = "auto",
    rng: int | None = 0,
    on_missing: str = "raise",
    **old,
) -> pd.DataFrame:
    """Intervals for every pair difference a - b that hold simultaneously.

    Each pair's studentized difference is the paired t statistic T = difference / se_t, se_t =
    se_difference sqrt(N / (N - 1)) (the ddof-1 SE; :func:`bayesnoise.frequentist.paired_t_statistic`),
    the statistic of the pairs table's ``p_value``; the intervals are difference +- c se_t.

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.load`, at least two models.
    confidence_level : float, default 0.95
        Probability that all intervals cover their true (population) differences together.
    method : {"max-t", "bonferroni"}
        ``"max-t"``: c is the ``confidence_level`` quantile of ``max_j |T_j|``, from ``n_resamples``
        seeded draws of the joint normal of the differences with Wishart (N - 1 df) variance
        estimates (:func:`max_abs_t_draws`), exact for normal per-question scores.
        ``"bonferroni"``: c = t_{N - 1, 1 - (1 - level) / (2 P)}, exact.
    n_resamples : int, default 100000
        Monte Carlo draws of the ``max |T|`` (the coverage of c is then level +- about
        sqrt(level (1 - level) / n_resamples) = 0.0007 at the defaults).
    variance : {"auto", "wishart", "shared"}
        How the max-t draws the pairs' estimated variances (:func:`max_abs_t_draws`).
        ``"auto"``: ``"wishart"`` (exact for normal scores) while its cost
        M^2 min(M, N - 1) n_draws stays under 2e9 (about 25 models at the default draws),
        else ``"shared"`` (multivariate t, linear in the number of pairs). Family-wise
        non-coverage at 5 models and 95%, N = 100, K = 1 / 10: 0.051 / 0.050 (Wishart,
        8,000 simulated families) and 0.054 / 0.050 (shared, 4,000; Monte Carlo SE 0.0035). ``attrs["variance"]``
        says which was used.
    rng : int or numpy.random.Generator, optional
    on_missing : {"raise", "intersect"}

    Returns
    -------
    pandas.DataFrame
        ``model_a, model_b, difference, se_difference, simultaneous_low, simultaneous_high,
        p_value_simultaneous``: ``se_difference`` as in :func:`bayesnoise.frequentist.pair_noise` (the SE
        of the difference of the K-averaged scores), the interval difference +- c se_t, and the
        single-step adjusted p-value ``P(max |T| >= |t|)`` (max-t) or min(1, P p) with p the pairs
        table's ``p_value`` (Bonferroni). Pairs whose difference has zero variance (models that
        agree on every question) get NaN. ``attrs``: ``critical_value`` (c, on the t scale),
        ``critical_value_mcse`` (Monte Carlo SE of c from the density of ``max |T|`` at c; 0 for
        Bonferroni), ``bonferroni_critical_value``, ``se_scale`` (se_t / se_difference, so that the
        half-width is ``critical_value * se_scale * se_difference``), ``df``, ``coverage_mcse``,
        ``method``, ``family_size``, ``questions``.

    Examples
    --------
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(1, 1, size=(1, 400)).repeat(4, axis=0)
    >>> ds = from_arrays(rng.binomial(5, u), np.full((4, 400), 5))
    >>> out = simultaneous_intervals(ds, n_resamples=20000)
    >>> c = out.attrs["critical_value"]
    >>> bool(1.97 < c < out.attrs["bonferroni_critical_value"])
    True
    """
    reject_old("simultaneous_intervals", old)
    from bayesnoise.frequentist import pair_noise_dataset, paired_t_statistic

    level = check_confidence_level(confidence_level)
    if method not in SIMULTANEOUS_METHODS:
        raise ValueError(f"method must be one of {SIMULTANEOUS_METHODS}, got {method!r}")
    mat = pair_noise_dataset(complete(ds, on_missing=on_missing))
    n = mat.attrs["questions"]
    dof = max(n - 1, 1)
    var_model, var_pair = mat["var_mean_model"].values, mat["var_mean"].values
    cov = (var_model[:, None] + var_model[None, :] - var_pair) / 2 / n  # of the model means
    np.fill_diagonal(cov, var_model / n)
    columns = ("difference", "se_difference", "z", "p_value")
    df = pair_table(mat[MODEL].values, {c: mat[c].values for c in columns})
    finite = np.isfinite(df["z"].to_numpy())
    family = int(finite.sum())
    alpha = 1 - level
    bonferroni = float(special.stdtrit(dof, 1 - alpha / (2 * max(family, 1))))
    abs_t = np.abs(paired_t_statistic(df.pop("z").to_numpy(), n))
    p_value = df.pop("p_value").to_numpy()
    if method == "max-t":
        if variance == "auto":
            m = cov.shape[0]
            variance = "wishart" if m * m * min(m, dof) * n_resamples <= 2e9 else "shared"
        gen = np.random.default_rng(rng)
        t = np.sort(
            max_abs_t_draws(cov, n_resamples=n_resamples, rng=gen, df=dof, variance=variance)
        )
        c = float(np.quantile(t, level, method="inverted_cdf"))
        h = 0.05 * c  # density of max |T| at c by a central difference of the empirical cdf
        density = (np.searchsorted(t, c + h) - np.searchsorted(t, c - h)) / (2 * h * n_resamples)
        mcse = float(np.sqrt(level * alpha / n_resamples) / max(density, 1e-300))
        with np.errstate(invalid="ignore"):
            p = 1 - np.searchsorted(t, abs_t, side="left") / n_resamples
    else:
        c, mcse = bonferroni, 0.0
        p = np.minimum(1.0, family * p_value)
    se_scale = float(np.sqrt(n / dof))
    half = c * se_scale * df["se_difference"].to_numpy()
    df["simultaneous_low"] = np.where(finite, df["difference"] - half, np.nan)
    df["simultaneous_high"] = np.where(finite, df["difference"] + half, np.nan)
    df["p_value_simultaneous"] = np.where(finite, p, np.nan)
    df.attrs.update(
        method=method,
        variance=variance if method == "max-t" else None,
        critical_value=c,
        critical_value_mcse=mcse,
        bonferroni_critical_value=bonferroni,
        se_scale=se_scale,
        df=dof,
        coverage_mcse=float(np.sqrt(level * alpha / n_resamples)) if method == "max-t" else 0.0,
        family_size=family,
        questions=n,
    )
    return df
