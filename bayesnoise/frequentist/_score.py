"""Score-type interval machinery (vectorised numpy): Wilson, Newcombe's hybrid, Tango's score.

Scores are in [0, 1], so an accuracy is a mean of [0, 1] variables and a paired difference a mean
of [-1, 1] variables. An interval for such a mean is a score interval for a proportion (or for a
paired 2 x 2 table) at an *effective* number of questions, which equals the true count for one
0/1 sample per question.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from bayesnoise.frequentist import _core

# A variance is "zero up to rounding" when var <= ZERO_RTOL * scale**2, scale being the largest
# |score| involved (1 for scores in [0, 1]): float sums of N scores carry a relative error of
# order N * 1e-16, far below 1e-12 for any realistic N, while a real variance of a mean of N
# questions is at least of order 1 / N**2 >> 1e-12 for N < 1e6.
ZERO_RTOL = 1e-12


def is_zero_variance(var, scale=1.0) -> np.ndarray:
    """True where ``var`` is zero up to rounding: ``var <= 1e-12 * scale**2`` (NaN: False).

    Examples
    --------
    >>> is_zero_variance([7e-15 ** 2, 1e-4], scale=1.0).tolist()
    [True, False]
    """
    var = np.asarray(var, dtype=float)
    scale = np.asarray(scale, dtype=float)
    with np.errstate(invalid="ignore"):
        return var <= ZERO_RTOL * scale * scale


def pair_z(difference, var_mean, n, scale):
    """``(se_mean, z, flat)`` of all pair differences: se_mean = sqrt(var_mean / n) and
    z = difference / se_mean, NaN where var_mean is zero up to rounding (``flat``,
    :func:`is_zero_variance` at the larger |score| scale of the two models; ``scale`` is per
    model)."""
    se_mean = _core.se(var_mean, n)
    flat = is_zero_variance(var_mean, np.maximum.outer(scale, scale))
    with np.errstate(invalid="ignore", divide="ignore"):
        return se_mean, np.where(flat, np.nan, difference / se_mean), flat


def normal_pvalue(z):
    """Two-sided p-value of a standard normal statistic, P(|Z| >= |z|) (NaN stays NaN)."""
    return special.erfc(np.abs(z) / np.sqrt(2.0))


def paired_t_statistic(z, n):
    """The paired t statistic of a difference from its z.

    ``z`` = mean / sqrt(var_0(d) / n) uses the ddof-0 variance of the n per-question
    differences d_i (the ``se_mean`` of the pairs table); t uses the ddof-1 variance, so
    t = z sqrt((n - 1) / n).

    Parameters
    ----------
    z : array_like
        difference / se_mean.
    n : int or array_like
        Number of questions.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> from scipy import stats
    >>> a, b = np.array([1.0, 0.5, 0.75, 1.0, 0.25]), np.array([0.5, 0.5, 0.25, 1.0, 0.0])
    >>> d = a - b
    >>> z = d.mean() / np.sqrt(d.var() / d.size)
    >>> bool(np.isclose(paired_t_statistic(z, 5), stats.ttest_rel(a, b).statistic))
    True
    """
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(z, dtype=float) * np.sqrt((n - 1.0) / n)


def paired_t_pvalue(z, n):
    """Two-sided p-value of a paired difference over ``n`` questions: the paired t test.

    The difference of the K-averaged scores is the mean of the n per-question differences d_i.
    Its ``z`` (ddof-0 SE, as in the all-the-noises tables) is rescaled to the t statistic with
    the ddof-1 SE (:func:`paired_t_statistic`) and referred to Student t with n - 1 degrees of
    freedom: exact for normal d_i, and the p-value of ``scipy.stats.ttest_rel``. The normal
    reference of z is anti-conservative (it rejected a true null 5.4% of the time at n = 100,
    5.0% with this reference); the two agree as n grows.

    Parameters
    ----------
    z : array_like
        difference / se_mean (NaN where that variance is zero: stays NaN).
    n : int or array_like
        Number of questions (NaN p-value for n < 2).

    Returns
    -------
    numpy.ndarray
        Two-sided p-values.

    Examples
    --------
    >>> from scipy import stats
    >>> a, b = np.array([1.0, 0.5, 0.75, 1.0, 0.25]), np.array([0.5, 0.5, 0.25, 1.0, 0.0])
    >>> d = a - b
    >>> z = d.mean() / np.sqrt(d.var() / d.size)
    >>> bool(np.isclose(paired_t_pvalue(z, d.size), stats.ttest_rel(a, b).pvalue, rtol=1e-12))
    True
    """
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore"):
        df = np.where(n >= 2, n - 1.0, np.nan)
    return t_pvalue(paired_t_statistic(z, n), df)


def t_pvalue(t, df):
    """Two-sided p-value of a t statistic against Student t with ``df`` degrees of freedom.

    Examples
    --------
    >>> from scipy import stats
    >>> bool(np.isclose(t_pvalue(2.1, 9), 2 * stats.t.sf(2.1, 9), rtol=1e-12))
    True
    """
    return 2.0 * special.stdtr(df, -np.abs(np.asarray(t, dtype=float)))


def t_quantile(confidence_level, df):
    """Two-sided Student t quantile t_{df, (1 + level) / 2} (NaN for df < 1).

    Examples
    --------
    >>> from scipy import stats
    >>> bool(np.isclose(t_quantile(0.95, 29), stats.t.ppf(0.975, 29), rtol=1e-12))
    True
    """
    df = np.asarray(df, dtype=float)
    with np.errstate(invalid="ignore"):
        return special.stdtrit(np.where(df >= 1, df, np.nan), 0.5 + confidence_level / 2.0)


def wilson(p, n, z):
    """Wilson score interval of a proportion ``p`` observed on ``n`` (possibly non-integer) trials."""
    p, n = np.asarray(p, dtype=float), np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / denom
        half = z * np.sqrt(np.maximum(p * (1.0 - p), 0.0) / n + z * z / (4.0 * n * n)) / denom
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def effective_n(spread, var, n, *, fallback, cap=None, floor=None):
    """n_eff = n spread / var: the number of 0/1 trials (paired trials for a difference) that
    would be as informative as ``n`` questions whose per-question variance is ``var``, where
    ``spread`` is the variance a 0/1 variable with the same mean would have (p (1 - p), or
    q - dbar^2 for a paired difference). ``fallback`` where undefined (spread <= 0, or ``var``
    zero up to rounding); then clipped to [floor, cap]. NaN ``var`` gives NaN."""
    spread = np.asarray(spread, dtype=float)
    var = np.asarray(var, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        n_eff = n * spread / var
    bad = (spread <= 0) | is_zero_variance(var) | ~np.isfinite(n_eff)
    n_eff = np.where(bad, fallback, n_eff)
    if floor is not None:
        n_eff = np.maximum(n_eff, floor)
    if cap is not None:
        n_eff = np.minimum(n_eff, cap if floor is None else np.maximum(cap, floor))
    return np.where(np.isnan(var), np.nan, n_eff)


def newcombe(pa, la, ua, pb, lb, ub, phi):
    """Newcombe's hybrid score interval for ``pa - pb`` from the marginal intervals
    ``(la, ua)``, ``(lb, ub)`` and the correlation ``phi`` of the two estimates (method 10)."""
    d = pa - pb
    da, ea = pa - la, ua - pa  # distances below / above each estimate
    db, eb = pb - lb, ub - pb
    low = d - np.sqrt(np.maximum(da * da - 2.0 * phi * da * eb + eb * eb, 0.0))
    high = d + np.sqrt(np.maximum(ea * ea - 2.0 * phi * ea * db + db * db, 0.0))
    return np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)


def tango(b, c, n, z, *, excess=0.0, iterations: int = 60):
    """Tango's score interval for the paired difference (b - c) / n of a 2 x 2 table with
    ``b`` and ``c`` discordant counts out of ``n`` (non-integer counts allowed).

    The limits solve |Z(delta)| = z with Z(delta) = (b - c - n delta) / sqrt(n (2 q + delta -
    delta^2 - excess)), q the constrained maximum-likelihood estimate of the (A wrong, B right)
    cell probability given delta (a quadratic root); found by vectorised bisection. ``excess``
    = 0 is Tango's interval. For n questions whose differences d_i in [-1, 1] have variance
    v (ddof 0), ``excess`` = (b + c) / n - dbar^2 - v >= 0 holds the part of the 0/1 variance
    that the averaging over samples removed (the prediction noise) fixed, so the variance at
    delta = dbar is v and grows with delta as the 0/1 table's does (the paired analogue of
    :func:`held_excess_score`).
    """
    b, c, n = (np.asarray(x, dtype=float) for x in np.broadcast_arrays(b, c, n))
    excess = np.asarray(excess, dtype=float)
    d = (b - c) / n

    def score(delta):
        qa = 2.0 * n
        qb = -b - c + (2.0 * n - b + c) * delta
        qc = -c * delta * (1.0 - delta)
        q = (-qb + np.sqrt(np.maximum(qb * qb - 4.0 * qa * qc, 0.0))) / (2.0 * qa)
        var = np.maximum(n * (2.0 * q + delta - delta * delta - excess), 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (b - c - n * delta) / np.sqrt(var)

    def solve(lo, hi, target, nan_above):
        # Z decreases in delta: bisect for Z = target, moving ``lo`` up while Z(mid) > target.
        # Where Z is undefined (zero variance) ``nan_above`` says which side mid is on.
        for _ in range(iterations):
            mid = 0.5 * (lo + hi)
            s = score(mid)
            above = np.where(np.isnan(s), nan_above, s > target)
            lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
        return 0.5 * (lo + hi)

    # The upper limit solves Z = -z on [d, 1], the lower Z = z on [-1, d].
    high = solve(d.copy(), np.ones_like(d), -z, nan_above=False)
    low = solve(-np.ones_like(d), d.copy(), z, nan_above=True)
    return np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)


def held_excess_score(p, var, n, z):
    """Score interval for the mean of ``n`` values in [0, 1] with mean ``p`` and variance ``var``
    (ddof 0), holding the *binary excess* c = p (1 - p) - var fixed: it accepts every m with
    n (p - m)^2 <= z^2 (m (1 - m) - c). For per-question accuracies over K samples, c is
    (1 - 1/K) times the within-question (prediction) variance, so this is the score test under
    the model that prediction noise does not change with the hypothesised mean. c = 0 (0/1
    values) gives the Wilson interval; the interval always contains ``p``."""
    p, var, n = (np.asarray(x, dtype=float) for x in (p, var, n))
    c = np.clip(p * (1.0 - p) - np.maximum(var, 0.0), 0.0, 0.25)
    a = n + z * z
    b = 2.0 * n * p + z * z
    disc = np.sqrt(
        np.maximum(z * z * (4.0 * n * np.maximum(var, 0.0) + z * z * (1.0 - 4.0 * c)), 0)
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        low, high = (b - disc) / (2.0 * a), (b + disc) / (2.0 * a)
    return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
