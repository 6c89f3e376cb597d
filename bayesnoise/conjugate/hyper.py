"""Integration over the posterior of (mu, kappa): quadrature, draws, mixtures and quantiles.

The posterior of (logit mu, log kappa) is a mixture over the nodes of the kappa grid
(:mod:`bayesnoise.conjugate.kappa_grid`): node ``g`` has weight ``w_g``, log kappa ``lam_g``
and a normal conditional posterior of logit mu.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .kappa_grid import ETA_BOUND

__all__ = [
    "hyper_draws",
    "hyper_quadrature",
    "mixture_moments",
    "normal_mixture_quantile",
    "weighted_quantile",
]


def hyper_quadrature(fit, order: int = 5):
    """Quadrature nodes over the posterior of (mu, kappa).

    Each kappa node is combined with ``order`` Gauss-Hermite nodes of its conditional normal
    in logit mu.

    Parameters
    ----------
    fit : EmpiricalBayesFit
    order : int, default 5
        Gauss-Hermite nodes in logit mu per kappa node.

    Returns
    -------
    mu, kappa, weight : numpy.ndarray, shape (..., Q)
        Node values and weights per model (weights sum to 1 over the last axis).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.conjugate import fit_empirical_bayes
    >>> fit = fit_empirical_bayes(np.array([3, 4, 1, 5]), np.full(4, 5), warn=False)
    >>> mu, kappa, wt = hyper_quadrature(fit, order=3)
    >>> mu.shape == kappa.shape == wt.shape, round(float(wt.sum()), 6)
    (True, 1.0)
    """
    z, wz = np.polynomial.hermite_e.hermegauss(order)
    wz = wz / wz.sum()
    eta = fit.grid_eta[..., :, None] + fit.grid_eta_sd[..., :, None] * z
    lam = np.broadcast_to(fit.grid_lam[..., :, None], eta.shape)
    wt = fit.grid_weight[..., :, None] * wz
    shape = (*eta.shape[:-2], -1)
    mu = special.expit(np.clip(eta, -ETA_BOUND, ETA_BOUND)).reshape(shape)
    return mu, np.exp(lam).reshape(shape), wt.reshape(shape)


def hyper_draws(fit, size: int, rng: np.random.Generator):
    """Draws of (mu, kappa) from their posterior (a kappa node, then logit mu given it).

    Parameters
    ----------
    fit : EmpiricalBayesFit
    size : int
        Draws per model.
    rng : numpy.random.Generator

    Returns
    -------
    mu, kappa : numpy.ndarray, shape (..., size)

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.conjugate import fit_empirical_bayes
    >>> fit = fit_empirical_bayes(np.array([3, 4, 1, 5]), np.full(4, 5), warn=False)
    >>> mu, kappa = hyper_draws(fit, 100, np.random.default_rng(0))
    >>> mu.shape, bool(np.all((mu > 0) & (mu < 1)))
    ((100,), True)
    """
    shape = fit.mu.shape
    n_nodes = fit.grid_lam.shape[-1]
    lam = fit.grid_lam.reshape(-1, n_nodes)
    eta = fit.grid_eta.reshape(-1, n_nodes)
    sd = fit.grid_eta_sd.reshape(-1, n_nodes)
    cum = np.cumsum(fit.grid_weight.reshape(-1, n_nodes), axis=1)
    u = rng.random((lam.shape[0], int(size))) * cum[:, -1:]
    idx = np.empty(u.shape, dtype=int)
    for m in range(lam.shape[0]):
        idx[m] = np.minimum(np.searchsorted(cum[m], u[m]), n_nodes - 1)
    rows = np.arange(lam.shape[0])[:, None]
    z = rng.standard_normal(u.shape)
    e = np.clip(eta[rows, idx] + sd[rows, idx] * z, -ETA_BOUND, ETA_BOUND)
    out = (*shape, int(size))
    return special.expit(e).reshape(out), np.exp(lam[rows, idx]).reshape(out)


def mixture_moments(means, variances, weight):
    """Mean and variance of a mixture over the last axis (law of total variance).

    Parameters
    ----------
    means, variances : numpy.ndarray, shape (..., Q)
        Component means and variances.
    weight : numpy.ndarray, shape (Q,) or (..., Q)
        Component weights (summing to 1).

    Returns
    -------
    mean, var : numpy.ndarray, shape (...)

    Examples
    --------
    >>> import numpy as np
    >>> mixture_moments(np.array([0.0, 2.0]), np.array([1.0, 1.0]), np.array([0.5, 0.5]))
    (np.float64(1.0), np.float64(2.0))
    """
    mean = (means * weight).sum(axis=-1)
    spread = ((means - mean[..., None]) ** 2 * weight).sum(axis=-1)
    return mean, (variances * weight).sum(axis=-1) + spread


def normal_mixture_quantile(means, sds, weight, prob, iterations: int = 80):
    """Quantile of a mixture of normals over the last axis, by bisection.

    Parameters
    ----------
    means, sds, weight : numpy.ndarray, shape (..., G)
        Component means, standard deviations (> 0) and weights (summing to 1).
    prob : float
        Probability in (0, 1).
    iterations : int, default 80

    Returns
    -------
    numpy.ndarray, shape (...)

    Examples
    --------
    >>> import numpy as np
    >>> q = normal_mixture_quantile(np.array([0.0]), np.array([1.0]), np.array([1.0]), 0.975)
    >>> round(float(q), 4)
    1.96
    """
    lo = (means - 40.0 * sds).min(axis=-1)
    hi = (means + 40.0 * sds).max(axis=-1)
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        cdf = (weight * special.ndtr((mid[..., None] - means) / sds)).sum(axis=-1)
        below = cdf < prob
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    return 0.5 * (lo + hi)


def weighted_quantile(nodes, weight, prob):
    """Quantile of a density tabulated at equally spaced nodes (linear CDF between nodes).

    Parameters
    ----------
    nodes, weight : numpy.ndarray, shape (..., G)
        Increasing nodes and their weights (summing to 1).
    prob : float

    Returns
    -------
    numpy.ndarray, shape (...)

    Examples
    --------
    >>> import numpy as np
    >>> float(weighted_quantile(np.array([0.0, 1.0, 2.0]), np.array([0.25, 0.5, 0.25]), 0.5))
    1.0
    """
    cdf = np.cumsum(weight, axis=-1) - 0.5 * weight
    flat_n = nodes.reshape(-1, nodes.shape[-1])
    flat_c = cdf.reshape(flat_n.shape)
    out = np.array([np.interp(prob, flat_c[i], flat_n[i]) for i in range(flat_n.shape[0])])
    return out.reshape(nodes.shape[:-1])
