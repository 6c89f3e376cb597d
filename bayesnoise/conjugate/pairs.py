"""Paired differences between models on the same questions.

Two quantities, kept apart by name:

``dbar``
    ``mean_i (u_Ai - u_Bi)``, the difference in expected accuracy on *these* questions
    (prediction noise only). Given the per-model Beta posteriors, u_A and u_B are independent
    a posteriori, so ``dbar = ubar_A - ubar_B`` with exact moments.
population paired difference
    ``delta = E_x[u_A(x) - u_B(x)]`` over the question population (adds the *paired* data
    noise). See :func:`population_difference` for the method and why.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from bayesnoise._common import check_confidence_level, tail_probabilities, z_from_level

from .beta import beta_central_moments, checked_beta_parameters

__all__ = [
    "all_pairs_difference",
    "paired_difference_moments",
    "population_difference",
]


def paired_difference_moments(alpha_a, beta_a, alpha_b, beta_b, mask=None):
    """Exact posterior mean and variance of ``dbar = mean_i (u_Ai - u_Bi)``.

    The u's are independent Betas (each model's per-question posterior).

    Parameters
    ----------
    alpha_a, beta_a, alpha_b, beta_b : array_like, shape (..., N)
        Per-question Beta parameters of models A and B (broadcast together; last axis =
        questions, the same questions for both models).
    mask : array_like of bool, optional
        Questions to include (e.g. answered by both).

    Returns
    -------
    mean, var : numpy.ndarray, shape (...)
        Exact posterior mean and variance of ``dbar``.

    Examples
    --------
    >>> mean, var = paired_difference_moments([3.0, 4.0], [2.0, 1.0], [1.0, 2.0], [1.0, 2.0])
    >>> round(float(mean), 4), round(float(var), 5)
    (0.2, 0.05)
    """
    arrs, w = checked_beta_parameters((alpha_a, beta_a, alpha_b, beta_b), mask)
    live = w > 0
    arrs = [np.where(live, x, 1.0) for x in arrs]
    n = w.sum(axis=-1)
    ma, va, _, _ = beta_central_moments(arrs[0], arrs[1])
    mb, vb, _, _ = beta_central_moments(arrs[2], arrs[3])
    mean = (w * (ma - mb)).sum(axis=-1) / n
    var = (w * (va + vb)).sum(axis=-1) / n**2
    return mean, var


def all_pairs_difference(
    ubar_mean, ubar_var, ubar_draws=None, *, confidence_level: float = 0.95
) -> dict[str, np.ndarray]:
    """All M x M pair differences of ``ubar`` on common questions (``dbar = ubar_A - ubar_B``).

    Parameters
    ----------
    ubar_mean, ubar_var : array_like, shape (M,)
        Posterior mean and variance of each model's ubar on the *same* questions (models are
        independent a posteriori).
    ubar_draws : array_like, shape (M, D), optional
        Independent posterior draws of each ubar; when given, intervals and ``p_a_better`` are
        Monte Carlo (exact up to MC error ``sqrt(p(1-p)/D)``), otherwise normal approximation
        from the exact moments.
    confidence_level : float, default 0.95

    Returns
    -------
    dict of str to numpy.ndarray
        (M, M) arrays ``mean``, ``sd``, ``low``, ``high``, ``p_a_better`` (row = A).

    Examples
    --------
    >>> out = all_pairs_difference([0.6, 0.5], [1e-4, 1e-4])
    >>> round(float(out["mean"][0, 1]), 3), round(float(out["p_a_better"][0, 1]), 4)
    (0.1, 1.0)
    """
    level = check_confidence_level(confidence_level)
    m = np.asarray(ubar_mean, dtype=float)
    v = np.asarray(ubar_var, dtype=float)
    mean = m[:, None] - m[None, :]
    var = v[:, None] + v[None, :]
    sd = np.sqrt(var)
    q = tail_probabilities(level)
    if ubar_draws is None:
        z = z_from_level(level)
        low, high = mean - z * sd, mean + z * sd
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(
                sd > 0, special.ndtr(mean / np.where(sd > 0, sd, 1.0)), 0.5 + 0.5 * np.sign(mean)
            )
    else:
        d = np.asarray(ubar_draws, dtype=float)
        n_models = d.shape[0]
        low = np.empty((n_models, n_models))
        high = np.empty((n_models, n_models))
        p = np.empty((n_models, n_models))
        for a in range(n_models):  # loop over rows only; each row is one vectorised op
            diff = d[a][None, :] - d
            lo_hi = np.quantile(diff, q, axis=-1)
            low[a], high[a] = lo_hi
            p[a] = (diff > 0).mean(axis=-1) + 0.5 * (diff == 0).mean(axis=-1)
    return {"mean": mean, "sd": sd, "low": low, "high": high, "p_a_better": p}


def population_difference(
    scores, *, confidence_level: float = 0.95, draws: int = 4000, random_seed=0
) -> dict[str, np.ndarray]:
    """Population-level paired difference of all pairs by a Bayesian bootstrap over questions.

    The question set is one draw from a population; the Bayesian bootstrap puts a
    Dirichlet(1, ..., 1) posterior on the weights of the observed questions (the
    Dirichlet-process posterior with vanishing prior mass), and ``delta_AB = sum_i w_i
    (p_Ai - p_Bi)`` with the *same* weights for both models, which keeps the pairing. Because
    E[p_Ai | question] = u_Ai, the posterior of delta is that of the population paired
    difference E_x[u_A - u_B], including paired data noise and the prediction noise at the
    observed K.

    Why observed scores and not posterior draws of u: the per-model Beta posteriors are
    independent across models, so a bootstrap over *draws* of u_A - u_B counts the part of the
    posterior spread that two models share on a question (their common difficulty) as if it
    were independent; at K = 1 that inflates the paired variance by a factor of about
    1 + rho + rho^2 (rho = correlation of the models' answers, typically 0.4-0.7, measured on
    real benchmarks). With many samples per question the two agree.

    Closed-form moments: mean = ybar, var = var_i(y) / (N + 1) (ddof=0), y_i = p_Ai - p_Bi.

    Parameters
    ----------
    scores : array_like, shape (M, N)
        Per-question mean scores ``c / K`` of M models on the same N questions.
    confidence_level : float, default 0.95
    draws : int, default 4000
        Dirichlet draws; all pairs use the same draws (one matrix product).
    random_seed : int or numpy.random.Generator, default 0

    Returns
    -------
    dict of str to numpy.ndarray
        (M, M) arrays ``mean``, ``sd`` (closed form), ``low``, ``high`` (Monte Carlo
        percentiles), ``p_a_better``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> p = (rng.random((2, 400)) < [[0.7], [0.6]]).astype(float)
    >>> out = population_difference(p)
    >>> bool(out["low"][0, 1] < out["mean"][0, 1] < out["high"][0, 1])
    True
    """
    level = check_confidence_level(confidence_level)
    p = np.asarray(scores, dtype=float)
    if p.ndim != 2:
        raise ValueError("scores must be (models, questions)")
    if not np.all(np.isfinite(p)):
        raise ValueError("scores must be finite (restrict to questions every model answered)")
    n = p.shape[1]
    rng = np.random.default_rng(random_seed)
    mean_m = p.mean(axis=1)
    centred = p - mean_m[:, None]
    cov = centred @ centred.T / n
    var_y = np.diag(cov)[:, None] + np.diag(cov)[None, :] - 2 * cov
    mean = mean_m[:, None] - mean_m[None, :]
    sd = np.sqrt(np.maximum(var_y, 0.0) / (n + 1))
    wts = rng.standard_exponential((int(draws), n))
    wts /= wts.sum(axis=1, keepdims=True)
    u = wts @ p.T  # (D, M) weighted means with shared weights
    q = tail_probabilities(level)
    n_models = p.shape[0]
    low = np.empty((n_models, n_models))
    high = np.empty((n_models, n_models))
    pb = np.empty((n_models, n_models))
    for a in range(n_models):
        diff = u[:, a][:, None] - u  # (D, M)
        low[a], high[a] = np.quantile(diff, q, axis=0)
        pb[a] = (diff > 0).mean(axis=0) + 0.5 * (diff == 0).mean(axis=0)
    return {"mean": mean, "sd": sd, "low": low, "high": high, "p_a_better": pb}
