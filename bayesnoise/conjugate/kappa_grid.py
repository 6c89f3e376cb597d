"""Posterior of (mu, kappa) per model: a grid over log kappa, a Laplace step in logit mu.

The hyperparameters get proper priors, the same as the PyMC layer's defaults::

    mu ~ Beta(1, 1)                      (mu_mean 0.5, mu_concentration 2)
    log kappa ~ Normal(log 1, 1.5)       (kappa_median 1, kappa_log_sd 1.5)

For each node ``lam_g`` of a grid over ``lam = log kappa`` the conditional posterior of
``eta = logit mu`` is approximated by a normal at its mode (one-dimensional, well behaved given
kappa), and the marginal posterior weight of the node is::

    p(lam_g | data) ~ p(lam_g) * L(eta_g, lam_g) p(eta_g) * sqrt(2 pi / -d2/deta2)

so kappa's uncertainty is integrated numerically instead of through a normal approximation in
log kappa, and nothing collapses when the likelihood peaks at an edge of the grid or is flat.
"""

from __future__ import annotations

import numpy as np
from scipy import special
from scipy.optimize import elementwise

from .rising import count_terms, terms_gradient, terms_loglik

__all__ = [
    "KappaGrid",
    "kappa_grid",
    "log_kappa_prior",
]

# Beta(a, b) prior on mu; equal to bayesnoise.mcmc.DEFAULT_PRIORS (mu_mean 0.5,
# mu_concentration 2). Defined here, not imported, so the closed forms need no PyMC layer.
DEFAULT_MU_PRIOR = (1.0, 1.0)
# (median, sd of log kappa) of the LogNormal prior on kappa; equal to
# bayesnoise.mcmc.DEFAULT_PRIORS (kappa_median 1, kappa_log_sd 1.5).
DEFAULT_KAPPA_PRIOR = (1.0, 1.5)
# Support of the grid over kappa (the prior puts 0.1% of its mass outside).
KAPPA_BOUNDS = (1e-2, 1e4)
ETA_BOUND = 30.0
_COARSE = 25  # nodes of the first pass over the whole support
_FINE = 41  # nodes of the second pass over the region holding the posterior mass
_DROP = 20.0  # the region keeps nodes within this many log units of the highest


def log_kappa_prior(lam, prior=DEFAULT_KAPPA_PRIOR):
    """Log density of ``lam = log kappa`` under the LogNormal prior on kappa.

    Parameters
    ----------
    lam : array_like
        Values of log kappa.
    prior : (median, log_sd), default (1, 1.5)

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> round(float(log_kappa_prior(0.0, (1.0, 1.0))), 6)  # standard normal at 0
    -0.918939
    """
    med, sd = prior
    z = (np.asarray(lam, dtype=float) - np.log(med)) / sd
    return -0.5 * z * z - np.log(sd) - 0.5 * np.log(2.0 * np.pi)


class KappaGrid:
    """Nodes over log kappa per model with the conditional normal of logit mu at each node.

    Attributes
    ----------
    lam : numpy.ndarray, shape (M, G)
        Nodes of log kappa.
    eta, eta_sd : numpy.ndarray, shape (M, G)
        Mode and sd of the conditional normal of logit mu given each node.
    weight : numpy.ndarray, shape (M, G)
        Posterior weight of each node (rows sum to 1).
    loglik : numpy.ndarray, shape (M, G)
        log of the likelihood with mu integrated over its prior (no kappa prior), per node.
    edge : numpy.ndarray of int, shape (M,)
        -1 / +1 where that integrated likelihood is highest at the lower / upper edge of the
        support, else 0.
    evidence : numpy.ndarray, shape (M,)
        log marginal likelihood with both hyperparameters integrated over their priors.
    converged : numpy.ndarray of bool, shape (M,)
    """

    def __init__(self, lam, eta, eta_sd, weight, loglik, edge, evidence, converged):
        self.lam, self.eta, self.eta_sd, self.weight = lam, eta, eta_sd, weight
        self.loglik, self.edge, self.evidence, self.converged = loglik, edge, evidence, converged


def _conditional(lam, eta0, terms, n_obs, mu_prior, max_iter, tol):
    """Mode, sd and integrated log likelihood of logit mu at fixed lam, per (model, node).

    The mode is the root of the gradient in eta, all (model, node) problems at once:
    :func:`scipy.optimize.elementwise.bracket_root` grows a bracket from ``eta0 +- 0.5``
    within ``[-ETA_BOUND, ETA_BOUND]``, then :func:`scipy.optimize.elementwise.find_root`
    (Chandrupatla's method) stops when ``|d/deta| < tol * (1 + n_obs)`` or after ``max_iter``
    iterations. Where the gradient keeps its sign on the whole interval the maximum is at the
    bound it points to.
    """
    n_models, n_nodes = lam.shape
    model_of = np.repeat(np.arange(n_models), n_nodes)
    lam_r = lam.ravel()
    scale = 1.0 + n_obs[model_of]  # fatol = tol on the scaled gradient

    def gradient(e, rows):
        # the gradient alone: the log likelihood and curvature are not needed until the root
        return terms_gradient(e, lam_r[rows], terms, model_of[rows], mu_prior) / scale[rows]

    rows = np.arange(lam.size)
    start = np.clip(np.ravel(eta0), -ETA_BOUND + 0.5, ETA_BOUND - 0.5)
    bracket = elementwise.bracket_root(
        gradient, start - 0.5, start + 0.5, xmin=-ETA_BOUND, xmax=ETA_BOUND, args=(rows,)
    ).bracket
    res = elementwise.find_root(
        gradient, bracket, args=(rows,), tolerances={"fatol": tol}, maxiter=max_iter
    )
    at_bound = res.status == -1  # no sign change in the box: the gradient points out
    eta = np.where(at_bound, np.where(res.f_bracket[1] > 0, ETA_BOUND, -ETA_BOUND), res.x)
    ok = res.success | at_bound
    ll, _, hee = terms_loglik(eta, lam_r, terms, model_of, mu_prior)
    curv = np.maximum(-hee, 1e-12)
    # Laplace over eta: log of the integral of L(eta, lam) p(eta) d eta (prior normalised)
    a0, b0 = mu_prior
    norm = special.betaln(a0, b0) if a0 > 0 and b0 > 0 else 0.0
    lml = ll - norm + 0.5 * np.log(2.0 * np.pi / curv)
    shape = lam.shape
    return (
        eta.reshape(shape),
        (1.0 / np.sqrt(curv)).reshape(shape),
        lml.reshape(shape),
        ok.reshape(shape).all(axis=1),
    )


def _trapezoid(n_nodes):
    """Trapezoid weights of ``n_nodes`` equally spaced nodes (unnormalised)."""
    t = np.ones(n_nodes)
    if n_nodes > 1:
        t[[0, -1]] = 0.5
    return t


def _normalise(logpost, n_nodes):
    """Posterior node weights and the log normaliser (per unit spacing)."""
    lw = logpost + np.log(_trapezoid(n_nodes))
    top = lw.max(axis=1, keepdims=True)
    wt = np.exp(lw - top)
    total = wt.sum(axis=1, keepdims=True)
    return wt / total, (top + np.log(total))[:, 0]


def kappa_grid(
    cu,
    ku,
    w,
    eta_start,
    *,
    mu_prior=DEFAULT_MU_PRIOR,
    kappa_prior=DEFAULT_KAPPA_PRIOR,
    kappa_bounds=KAPPA_BOUNDS,
    fixed_lam=None,
    max_iter: int = 100,
    tol: float = 1e-9,
) -> KappaGrid:
    """Grid posterior of log kappa and conditional normals of logit mu, all models at once.

    A first pass of 25 nodes covers the whole support; a second pass puts 41 nodes on the
    region within 20 log units of the highest node (one node of margin each side), so a sharp
    posterior is resolved and a flat one is integrated over its whole prior.

    Parameters
    ----------
    cu, ku : numpy.ndarray, shape (U,)
        Distinct (c, K) cells; ``w`` (M, U) how often each model has each cell.
    w : numpy.ndarray, shape (M, U)
    eta_start : numpy.ndarray, shape (M,)
        Starting logit mu (e.g. the logit of the pooled accuracy).
    mu_prior : (a0, b0), default (1, 1)
        Beta prior on mu (``(0, 0)``: flat in logit mu).
    kappa_prior : (median, log_sd), default (1, 1.5)
    kappa_bounds : (low, high), default (1e-2, 1e4)
        Support of the grid.
    fixed_lam : numpy.ndarray, shape (M,), optional
        Hold log kappa at these values (one node per model, weight 1).
    max_iter, tol : int, float
        Root finding of the conditional modes (:func:`_conditional`): at most ``max_iter``
        iterations, stop when ``|d/deta| < tol * (1 + questions)``.

    Returns
    -------
    KappaGrid

    Examples
    --------
    >>> import numpy as np
    >>> cu, ku, w = np.array([0.0, 3.0, 5.0]), np.full(3, 5.0), np.array([[20.0, 10.0, 20.0]])
    >>> g = kappa_grid(cu, ku, w, np.zeros(1))
    >>> g.lam.shape, round(float(g.weight.sum()), 6), int(g.edge[0])
    ((1, 41), 1.0, 0)
    """
    n_models = w.shape[0]
    lo, hi = np.log(kappa_bounds[0]), np.log(kappa_bounds[1])
    fit_args = (count_terms(cu, ku, w), w.sum(axis=1), mu_prior, max_iter, tol)
    if fixed_lam is not None:
        lam = np.asarray(fixed_lam, dtype=float).reshape(n_models, 1)
        eta, sd, lml, ok = _conditional(lam, eta_start[:, None], *fit_args)
        return KappaGrid(
            lam, eta, sd, np.ones((n_models, 1)), lml, np.zeros(n_models, int), lml[:, 0], ok
        )
    coarse = np.broadcast_to(np.linspace(lo, hi, _COARSE), (n_models, _COARSE))
    eta0 = np.broadcast_to(eta_start[:, None], coarse.shape)
    eta_c, _, lml_c, ok_c = _conditional(coarse, eta0, *fit_args)
    best = lml_c.argmax(axis=1)
    edge = np.where(best == 0, -1, np.where(best == _COARSE - 1, 1, 0))
    post_c = lml_c + log_kappa_prior(coarse, kappa_prior)
    keep = post_c >= post_c.max(axis=1, keepdims=True) - _DROP
    idx = np.arange(_COARSE)
    first = np.where(keep, idx, _COARSE).min(axis=1)
    last = np.where(keep, idx, -1).max(axis=1)
    a = coarse[0, np.maximum(first - 1, 0)]
    b = coarse[0, np.minimum(last + 1, _COARSE - 1)]
    t = np.linspace(0.0, 1.0, _FINE)
    lam = a[:, None] + (b - a)[:, None] * t
    # start each fine node from the coarse modes, interpolated
    step = (hi - lo) / (_COARSE - 1)
    pos = np.clip((lam - lo) / step, 0, _COARSE - 1)
    i0 = np.minimum(np.floor(pos).astype(int), _COARSE - 2)
    frac = pos - i0
    rows = np.arange(n_models)[:, None]
    start = eta_c[rows, i0] * (1 - frac) + eta_c[rows, i0 + 1] * frac
    eta, sd, lml, ok = _conditional(lam, start, *fit_args)
    weight, log_norm = _normalise(lml + log_kappa_prior(lam, kappa_prior), _FINE)
    spacing = (b - a) / (_FINE - 1)
    evidence = log_norm + np.log(np.where(spacing > 0, spacing, 1.0))
    return KappaGrid(lam, eta, sd, weight, lml, edge, evidence, ok & ok_c)
