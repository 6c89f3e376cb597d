"""Beta moment algebra and the per-question posteriors of the Beta-Binomial hierarchy.

Model, per model (leading axes of the arrays) and question ``i`` (last axis)::

    u_i ~ Beta(mu * kappa, (1 - mu) * kappa)
    c_i | u_i ~ Binomial(K_i, u_i)          (K_i = 0: question not answered, masked)

Given (mu, kappa) the ``u_i`` are independent a posteriori,
``u_i | c_i ~ Beta(mu * kappa + c_i, (1 - mu) * kappa + K_i - c_i)``
(:func:`posterior_parameters`), so the finite-sample quantities ``ubar = mean_i u_i``,
``V_pred = mean_i u_i (1 - u_i)`` and ``V_x = var_i u_i`` have exact posterior moments
(:func:`finite_sample_moments`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bayesnoise.data import check_counts

__all__ = [
    "FiniteSampleMoments",
    "beta_central_moments",
    "checked_beta_parameters",
    "conjugate_update",
    "finite_sample_moments",
    "posterior_parameters",
    "question_posteriors",
    "weighted_moments",
]


def beta_central_moments(alpha, beta):
    """Mean and 2nd-4th central moments of Beta(alpha, beta), elementwise.

    Parameters
    ----------
    alpha, beta : array_like
        Positive shape parameters (broadcast together).

    Returns
    -------
    mean, mu2, mu3, mu4 : numpy.ndarray
        Mean, variance, third and fourth central moment.

    Examples
    --------
    >>> m, v, m3, m4 = beta_central_moments(1.0, 1.0)   # uniform
    >>> float(m), round(float(v), 6), float(m3), round(float(m4), 6)
    (0.5, 0.083333, 0.0, 0.0125)
    """
    a = np.asarray(alpha, dtype=float)
    b = np.asarray(beta, dtype=float)
    s = a + b
    mean = a / s
    mu2 = a * b / (s * s * (s + 1.0))
    mu3 = 2.0 * (b - a) * a * b / (s**3 * (s + 1.0) * (s + 2.0))
    # mu4 = 3 ab (ab (s - 6) + 2 s^2) / (s^4 (s + 1)(s + 2)(s + 3))
    mu4_den = s**4 * (s + 1.0) * (s + 2.0) * (s + 3.0)
    mu4 = 3.0 * a * b * (a * b * (s - 6.0) + 2.0 * s * s) / mu4_den
    return mean, mu2, mu3, mu4


def conjugate_update(a, b, correct, count):
    """Beta(a, b) prior and ``correct`` out of ``count``: the posterior Beta parameters.

    ``(a + c, b + K - c)``, plain broadcasting arithmetic without checks: the one place the
    Beta-Binomial update is written.

    Parameters
    ----------
    a, b : array_like
        Prior Beta parameters.
    correct, count : array_like
        Successes ``c`` and trials ``K``.

    Returns
    -------
    alpha, beta : numpy.ndarray or float

    Examples
    --------
    >>> conjugate_update(1.0, 1.0, 3.0, 5.0)
    (4.0, 3.0)
    """
    return a + correct, b + (count - correct)


def posterior_parameters(mu, kappa, correct, count):
    """Posterior Beta parameters of one question's accuracy given (mu, kappa).

    ``alpha = mu * kappa + c`` and ``beta = (1 - mu) * kappa + K - c``
    (:func:`conjugate_update` of the prior ``Beta(mu * kappa, (1 - mu) * kappa)``), without
    checks.

    Parameters
    ----------
    mu, kappa : array_like
        Hyperparameters, already shaped to broadcast against the counts.
    correct, count : array_like
        Correct samples ``c`` and samples ``K``.

    Returns
    -------
    alpha, beta : numpy.ndarray or float

    Examples
    --------
    >>> posterior_parameters(0.5, 2.0, 3.0, 5.0)
    (4.0, 3.0)
    """
    return conjugate_update(mu * kappa, (1.0 - mu) * kappa, correct, count)


@dataclass(frozen=True)
class FiniteSampleMoments:
    """Exact posterior mean and variance of the finite-sample quantities.

    Attributes
    ----------
    ubar_mean, ubar_var : numpy.ndarray
        ``ubar = mean_i u_i`` (expected accuracy on these questions).
    v_pred_mean, v_pred_var : numpy.ndarray
        ``V_pred = mean_i u_i (1 - u_i)`` (prediction variance on these questions).
    v_x_mean, v_x_var : numpy.ndarray
        ``V_x = var_i u_i`` with ddof=0 (data variance on these questions).
    n_questions : numpy.ndarray
        Questions counted (sum of the mask or weights).
    """

    ubar_mean: np.ndarray
    ubar_var: np.ndarray
    v_pred_mean: np.ndarray
    v_pred_var: np.ndarray
    v_x_mean: np.ndarray
    v_x_var: np.ndarray
    n_questions: np.ndarray


def weighted_moments(alpha, beta, weight) -> FiniteSampleMoments:
    """:func:`finite_sample_moments` where question ``i`` counts ``weight_i >= 0`` times.

    No checks: cells with ``weight == 0`` may hold anything. Used on the table of distinct
    ``(c, K)`` cells, where the weight is how often a model has each cell.

    Parameters
    ----------
    alpha, beta, weight : array_like, shape (..., U)
        Beta parameters and weights (broadcast together; last axis = cells).

    Returns
    -------
    FiniteSampleMoments

    Examples
    --------
    >>> res = weighted_moments([2.0, 5.0], [3.0, 1.0], [2.0, 0.0])
    >>> round(float(res.ubar_mean), 4), float(res.n_questions)
    (0.4, 2.0)
    """
    a, b, w = np.broadcast_arrays(
        np.asarray(alpha, float), np.asarray(beta, float), np.asarray(weight, float)
    )
    # Masked cells: put harmless shapes there so no NaN propagates through 0 * nan.
    live = w > 0
    a = np.where(live, a, 1.0)
    b = np.where(live, b, 1.0)
    n = w.sum(axis=-1)
    m1, mu2, mu3, mu4 = beta_central_moments(a, b)

    def wsum(x):
        return (w * x).sum(axis=-1)

    ubar_mean = wsum(m1) / n
    ubar_var = wsum(mu2) / n**2
    # V_pred = mean(u - u^2); E[u - u^2] = m1 - (mu2 + m1^2)
    g_mean = m1 - mu2 - m1 * m1
    # Var(u - u^2) with u = m1 + e: u - u^2 = const + (1 - 2 m1) e - e^2
    #   = (1-2m1)^2 mu2 - 2 (1-2m1) mu3 + mu4 - mu2^2
    t = 1.0 - 2.0 * m1
    g_var = t * t * mu2 - 2.0 * t * mu3 + mu4 - mu2 * mu2
    v_pred_mean = wsum(g_mean) / n
    v_pred_var = wsum(np.maximum(g_var, 0.0)) / n**2
    # V_x = S2/N - S1^2/N^2 on y_i = u_i - cbar (shift-invariant); cbar = E[ubar]
    d = m1 - ubar_mean[..., None]
    e2 = mu2 + d * d
    e3 = mu3 + 3.0 * d * mu2 + d**3
    e4 = mu4 + 4.0 * d * mu3 + 6.0 * d * d * mu2 + d**4
    k1 = wsum(d)  # ~0 by construction
    k2 = wsum(mu2)
    k3 = wsum(mu3)
    k4 = wsum(mu4 - 3.0 * mu2 * mu2)
    var_s2 = wsum(e4 - e2 * e2)
    var_s1sq = k4 + 4.0 * k3 * k1 + 2.0 * k2 * k2 + 4.0 * k2 * k1 * k1
    cov = var_s2 + 2.0 * wsum((e3 - e2 * d) * (k1[..., None] - d))
    v_x_mean = wsum(e2) / n - (k2 + k1 * k1) / n**2
    v_x_var = var_s2 / n**2 + var_s1sq / n**4 - 2.0 * cov / n**3
    return FiniteSampleMoments(
        ubar_mean=ubar_mean,
        ubar_var=ubar_var,
        v_pred_mean=v_pred_mean,
        v_pred_var=v_pred_var,
        v_x_mean=v_x_mean,
        v_x_var=np.maximum(v_x_var, 0.0),
        n_questions=n,
    )


def finite_sample_moments(alpha, beta, mask=None) -> FiniteSampleMoments:
    """Exact mean and variance of ubar, V_pred and V_x for independent Beta u_i.

    Given per-question posteriors ``u_i ~ Beta(alpha_i, beta_i)`` (independent over ``i``),
    returns the exact first two moments of ``ubar = mean_i u_i``,
    ``V_pred = mean_i u_i (1 - u_i)`` and ``V_x = var_i u_i`` (ddof=0), using Beta moments up to
    order four. Note ``V_x + V_pred = ubar (1 - ubar)``.

    Parameters
    ----------
    alpha, beta : array_like, shape (..., N)
        Beta parameters, last axis = questions; leading axes (models, draws...) broadcast.
    mask : array_like of bool, optional
        Questions to include (default all). Excluded cells may hold any value.

    Returns
    -------
    FiniteSampleMoments
        Arrays of shape ``(...)``.

    Examples
    --------
    >>> import numpy as np
    >>> res = finite_sample_moments(np.array([2.0, 5.0]), np.array([3.0, 1.0]))
    >>> round(float(res.ubar_mean), 4), round(float(res.ubar_var), 5)
    (0.6167, 0.01496)
    """
    (a, b), w = checked_beta_parameters((alpha, beta), mask)
    return weighted_moments(a, b, w)


def checked_beta_parameters(params, mask=None):
    """Broadcast Beta parameters and a question mask; check them on the included questions.

    Parameters
    ----------
    params : sequence of array_like, shape (..., N)
        Beta parameters (broadcast together; last axis = questions).
    mask : array_like of bool, optional
        Questions to include (default all).

    Returns
    -------
    params : list of numpy.ndarray
        The broadcast parameters.
    weight : numpy.ndarray
        The mask as 0/1 floats.

    Examples
    --------
    >>> (a, b), w = checked_beta_parameters(([1.0, 2.0], 1.0), mask=[True, False])
    >>> b.tolist(), w.tolist()
    ([1.0, 1.0], [1.0, 0.0])
    """
    arrs = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in params))
    if arrs[0].ndim == 0:
        raise ValueError("Beta parameters need a question axis (last axis)")
    shape = arrs[0].shape
    w = np.ones(shape) if mask is None else np.broadcast_to(np.asarray(mask, bool), shape)
    w = np.asarray(w, dtype=float)
    live = w > 0
    for x in arrs:
        if np.any(live & ~((x > 0) & np.isfinite(x))):
            raise ValueError("Beta parameters must be finite and > 0 on included questions")
    if np.any(w.sum(axis=-1) == 0):
        raise ValueError("mask excludes every question of some model")
    return list(arrs), w


def question_posteriors(correct, count, mu, kappa):
    """Per-question posterior Beta parameters given (mu, kappa).

    ``u_i | c_i ~ Beta(mu * kappa + c_i, (1 - mu) * kappa + K_i - c_i)``. Unanswered cells
    (``K_i = 0``) get the prior ``Beta(mu * kappa, (1 - mu) * kappa)``; pass ``count > 0`` as the
    mask to :func:`finite_sample_moments` to leave them out.

    Parameters
    ----------
    correct, count : array_like, shape (..., N)
        Correct samples and samples per question (``count == 0``: not answered).
    mu, kappa : array_like, shape (...)
        One value per model (leading axes); broadcast against the question axis.

    Returns
    -------
    alpha, beta : numpy.ndarray, shape (..., N)

    Examples
    --------
    >>> a, b = question_posteriors([3, 0], [5, 5], 0.5, 2.0)
    >>> a.tolist(), b.tolist()
    ([4.0, 1.0], [3.0, 6.0])
    """
    c, k = check_counts(correct, count, require_answered=True)
    mu = np.asarray(mu, dtype=float)
    kappa = np.asarray(kappa, dtype=float)
    if np.any(~((mu > 0) & (mu < 1))) or np.any(~(kappa > 0)) or not np.all(np.isfinite(kappa)):
        raise ValueError("need 0 < mu < 1 and 0 < kappa < inf")
    return posterior_parameters(mu[..., None], kappa[..., None], c, k)
