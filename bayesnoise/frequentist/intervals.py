"""Confidence intervals for one proportion (the methods of statsmodels' ``proportion_confint``)."""

from __future__ import annotations

import numpy as np
from scipy import stats

from bayesnoise._common import check_confidence_level, z_from_level

METHODS = ("wilson", "beta", "jeffreys", "agresti_coull", "normal")


def proportion_interval(successes, n, *, confidence_level: float = 0.95, method: str = "wilson"):
    """Two-sided confidence interval for a binomial proportion, vectorised.

    Parameters
    ----------
    successes, n : array_like
        Number of successes and of trials (broadcast together).
    confidence_level : float, default 0.95
    method : {"wilson", "beta", "jeffreys", "agresti_coull", "normal"}
        ``wilson`` score interval (default); ``beta`` Clopper-Pearson exact; ``jeffreys``
        equal-tailed Beta(1/2, 1/2) posterior interval (with the usual 0 and 1 end fixes);
        ``agresti_coull``; ``normal`` Wald (poor coverage near 0 and 1; never the default).

    Returns
    -------
    low, high : numpy.ndarray
        Clipped to [0, 1] only where the method itself defines it so (Wald and Agresti-Coull can
        leave [0, 1]; they are clipped as statsmodels does).

    Examples
    --------
    >>> low, high = proportion_interval(7, 20)
    >>> round(float(low), 4), round(float(high), 4)
    (0.1812, 0.5671)
    """
    confidence_level = check_confidence_level(confidence_level)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    s = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    if np.any(n <= 0) or np.any(s < 0) or np.any(s > n):
        raise ValueError("need n > 0 and 0 <= successes <= n")
    alpha = 1.0 - confidence_level
    z = z_from_level(confidence_level)
    phat = s / n
    if method == "beta":
        low = np.where(s > 0, stats.beta.ppf(alpha / 2, s, n - s + 1), 0.0)
        high = np.where(s < n, stats.beta.ppf(1 - alpha / 2, s + 1, n - s), 1.0)
    elif method == "jeffreys":
        low = np.where(s > 0, stats.beta.ppf(alpha / 2, s + 0.5, n - s + 0.5), 0.0)
        high = np.where(s < n, stats.beta.ppf(1 - alpha / 2, s + 0.5, n - s + 0.5), 1.0)
    elif method == "wilson":
        denom = 1.0 + z**2 / n
        centre = (phat + z**2 / (2 * n)) / denom
        half = z * np.sqrt(phat * (1 - phat) / n + z**2 / (4 * n**2)) / denom
        low, high = centre - half, centre + half
    elif method == "agresti_coull":
        n_t = n + z**2
        p_t = (s + z**2 / 2) / n_t
        half = z * np.sqrt(p_t * (1 - p_t) / n_t)
        low, high = np.clip(p_t - half, 0, 1), np.clip(p_t + half, 0, 1)
    else:  # normal (Wald)
        half = z * np.sqrt(phat * (1 - phat) / n)
        low, high = np.clip(phat - half, 0, 1), np.clip(phat + half, 0, 1)
    return np.asarray(low, dtype=float)[()], np.asarray(high, dtype=float)[()]


def accuracy_interval(accuracy, var_mean, n_questions, *, confidence_level: float = 0.95):
    """Interval for a model's accuracy on the population of questions.

    Parameters
    ----------
    accuracy : array_like
        Observed accuracy (mean over questions of the K-averaged per-question scores).
    var_mean : array_like
        Variance over questions of the K-averaged per-question scores (ddof=0).
    n_questions : array_like
        Number of questions.
    confidence_level : float, default 0.95

    Returns
    -------
    low, high : numpy.ndarray

    Examples
    --------
    >>> low, high = accuracy_interval(0.5, 0.25, 100)
    >>> round(float(high - low), 3)
    0.196
    """
    half = z_from_level(confidence_level) * np.sqrt(np.asarray(var_mean) / n_questions)
    return np.asarray(accuracy - half)[()], np.asarray(accuracy + half)[()]


def difference_interval(
    accuracy_a, accuracy_b, var_a, var_b, var_difference, n_questions, *,
    confidence_level: float = 0.95,
):  # fmt: skip
    """Interval for the paired difference of two models' population accuracies (a - b).

    Parameters
    ----------
    accuracy_a, accuracy_b : array_like
        Observed accuracies on the same questions.
    var_a, var_b, var_difference : array_like
        Variances over questions (ddof=0) of the K-averaged scores of a, of b and of a - b.
    n_questions : array_like
    confidence_level : float, default 0.95

    Returns
    -------
    low, high : numpy.ndarray

    Examples
    --------
    >>> low, high = difference_interval(0.6, 0.5, 0.24, 0.25, 0.09, 400)
    >>> round(float(high - low), 3)
    0.059
    """
    d = np.asarray(accuracy_a) - np.asarray(accuracy_b)
    half = z_from_level(confidence_level) * np.sqrt(np.asarray(var_difference) / n_questions)
    return np.asarray(d - half)[()], np.asarray(d + half)[()]
