"""Integration over the Laplace posterior of (logit mu, log kappa): quadrature and draws."""

from __future__ import annotations

import numpy as np
from scipy import special

from .empirical_bayes import _ETA_BOUND, EmpiricalBayesFit

__all__ = ["hyper_draws", "hyper_quadrature", "mixture_moments"]


def _hyper_points(fit: EmpiricalBayesFit, z1, z2):
    """(mu, kappa) at standard-normal coordinates ``(z1, z2)`` of the Laplace posterior."""
    l11, l21, l22 = fit.laplace_factor
    eta = special.logit(fit.mu)[..., None] + l11[..., None] * z1
    lam = np.log(fit.kappa)[..., None] + l21[..., None] * z1 + l22[..., None] * z2
    return special.expit(np.clip(eta, -_ETA_BOUND, _ETA_BOUND)), np.exp(lam)


def hyper_quadrature(fit: EmpiricalBayesFit, order: int = 5):
    """Gauss-Hermite nodes over the Laplace posterior of (logit mu, log kappa).

    Parameters
    ----------
    fit : EmpiricalBayesFit
    order : int, default 5
        Nodes per dimension (``order**2`` nodes; ``order`` when kappa is fixed everywhere).

    Returns
    -------
    mu, kappa : numpy.ndarray, shape (..., Q)
        Node values per model.
    weight : numpy.ndarray, shape (Q,)
        Quadrature weights (sum to 1).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.conjugate import fit_empirical_bayes
    >>> fit = fit_empirical_bayes(np.array([3, 4, 1, 5]), np.array([5, 5, 5, 5]), warn=False)
    >>> mu, kappa, wt = hyper_quadrature(fit, order=3)
    >>> mu.shape, round(float(wt.sum()), 12)
    ((9,), 1.0)
    """
    z, wz = np.polynomial.hermite_e.hermegauss(order)
    wz = wz / wz.sum()
    z1, z2 = (a.ravel() for a in np.meshgrid(z, z, indexing="ij"))
    wt = np.outer(wz, wz).ravel()
    if np.all(fit.cov[..., 1, 1] == 0):
        z1, z2, wt = z, np.zeros_like(z), wz
    mu, kap = _hyper_points(fit, z1, z2)
    return mu, kap, wt


def hyper_draws(fit: EmpiricalBayesFit, size: int, rng: np.random.Generator):
    """Draws of (mu, kappa) from the Laplace normal in (logit mu, log kappa).

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
    z = rng.standard_normal((*fit.mu.shape, size, 2))
    return _hyper_points(fit, z[..., 0], z[..., 1])


def mixture_moments(means, variances, weight):
    """Mean and variance of a mixture over the last axis (law of total variance).

    Parameters
    ----------
    means, variances : numpy.ndarray, shape (..., Q)
        Component means and variances.
    weight : numpy.ndarray, shape (Q,)
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
