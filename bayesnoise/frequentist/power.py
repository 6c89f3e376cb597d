"""Power analysis: the smallest detectable gap, and the questions or samples needed to see one.

All functions take the variance components of the *difference* being tested, per question:
``data`` and ``prediction`` (from :func:`pair_noise` for a paired design). For an unpaired design
pass the sums of the two models' own components (:func:`unpaired_components`). With K samples
averaged per question the variance of the mean difference is (data + prediction / K) / N.
"""

from __future__ import annotations

import numpy as np
from scipy import special


def _z(alpha: float, power: float, alternative: str) -> float:
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise ValueError("alpha and power must be in (0, 1)")
    if alternative not in ("two-sided", "one-sided"):
        raise ValueError("alternative must be 'two-sided' or 'one-sided'")
    tail = alpha / 2 if alternative == "two-sided" else alpha
    return float(special.ndtri(1 - tail) + special.ndtri(power))


def unpaired_components(data_a, prediction_a, data_b, prediction_b) -> tuple[float, float]:
    """Components of A - B when A and B are scored on independent question sets.

    Examples
    --------
    >>> unpaired_components(0.25, 0.5, 0.25, 0.125)
    (0.5, 0.625)
    """
    return float(data_a + data_b), float(prediction_a + prediction_b)


def minimum_detectable_difference(n, *, data, prediction, k=1, alpha=0.05, power=0.8,
                                  alternative="two-sided"):  # fmt: skip
    """Smallest true difference detected with probability ``power`` at level ``alpha``.

    ``(z_{1-alpha/2} + z_power) * sqrt((data + prediction / k) / n)`` (normal approximation).

    Examples
    --------
    >>> round(float(minimum_detectable_difference(500, data=0.02, prediction=0.1, k=5)), 4)
    0.0251
    """
    var = np.asarray(data, float) + np.asarray(prediction, float) / np.asarray(k, float)
    return _z(alpha, power, alternative) * np.sqrt(var / np.asarray(n, float))


def required_questions(difference, *, data, prediction, k=1, alpha=0.05, power=0.8,
                       alternative="two-sided"):  # fmt: skip
    """Number of questions N needed to detect ``difference`` (rounded up).

    Examples
    --------
    >>> int(required_questions(0.03, data=0.02, prediction=0.1, k=5))
    349
    """
    var = np.asarray(data, float) + np.asarray(prediction, float) / np.asarray(k, float)
    return np.ceil(var * (_z(alpha, power, alternative) / np.asarray(difference, float)) ** 2)


def required_samples(difference, *, n, data, prediction, alpha=0.05, power=0.8,
                     alternative="two-sided"):  # fmt: skip
    """Samples per question K needed to detect ``difference`` with N questions (rounded up).

    ``inf`` when the data variance alone is too large: more samples cannot remove data noise,
    only more questions can.

    Examples
    --------
    >>> int(required_samples(0.03, n=500, data=0.02, prediction=0.1))
    3
    """
    budget = (
        np.asarray(n, float) * (np.asarray(difference, float) / _z(alpha, power, alternative)) ** 2
    )
    room = budget - np.asarray(data, float)
    with np.errstate(divide="ignore"):
        k = np.where(room > 0, np.ceil(np.asarray(prediction, float) / np.where(room > 0, room, 1)),
                     np.inf)  # fmt: skip
    return np.maximum(k, 1.0)


def meta_z(z, *, n=None, weights: str = "equal") -> float:
    """Combine z-scores from several evals: sum(w_i z_i) / sqrt(sum(w_i^2)).

    Parameters
    ----------
    z : array_like
        One z-score per eval (same sign convention).
    n : array_like, optional
        Questions per eval; needed for ``weights="sqrt_n"``.
    weights : {"equal", "sqrt_n"} or array_like
        1 for each eval (each eval counts the same), sqrt(N_i) (each question counts the same),
        or explicit weights.

    Examples
    --------
    >>> round(meta_z([2.0, 1.0, 0.5]), 4)
    2.0207
    """
    z = np.asarray(z, dtype=float)
    if isinstance(weights, str):
        if weights == "equal":
            w = np.ones_like(z)
        elif weights == "sqrt_n":
            if n is None:
                raise ValueError("weights='sqrt_n' needs n (questions per eval)")
            w = np.sqrt(np.asarray(n, dtype=float))
        else:
            raise ValueError("weights must be 'equal', 'sqrt_n' or an array")
    else:
        w = np.asarray(weights, dtype=float)
    if w.shape != z.shape:
        raise ValueError(f"{z.size} z-scores but {w.size} weights")
    return float(np.sum(w * z) / np.sqrt(np.sum(w**2)))
