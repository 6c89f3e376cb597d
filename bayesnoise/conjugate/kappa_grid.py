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
# Support of the grid over kappa. The lower end is the package's floor: the grid starts at
# FIRST_LOW and reaches down to it only where the likelihood or the posterior of kappa is still
# high at FIRST_LOW (near-deterministic questions); "at lower bound" means the likelihood is
# still rising at the floor. The default prior puts 1e-9 of its mass below 1e-6, 0.1% above 1e4.
KAPPA_BOUNDS = (1e-6, 1e4)
FIRST_LOW = 1e-2  # lower end of the first pass (its spacing divides log(1e-2 / 1e-6) exactly)
ETA_BOUND = 30.0
_COARSE = 25  # nodes of the first pass over the whole support
# nodes of the second pass over the region holding the posterior mass: 57 keeps them at most
# 0.41 apart in log kappa over the widest region (floor 1e-6 to 1e4), at most 0.33 where the
# posterior is the prior (K = 1), as 41 nodes did over the old support 1e-2 to 1e4 (0.35)
_FINE = 57
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

    A first pass of 25 nodes covers ``[max(low, 1e-2), high]``; where the likelihood of
    kappa peaks at its lower end, or the posterior there is within 20 log units of its highest,
    nodes at the same spacing reach down to ``low`` (the floor, 1e-6 by default), so near-
    deterministic questions (kappa below 1e-2) are integrated where their likelihood goes. A
    second pass puts 57 nodes on the region within 20 log units of the highest node (one node
    of margin each side), so a sharp posterior is resolved and a flat one is integrated over
    its whole prior. ``edge`` is -1 only where the likelihood is still rising at the floor.

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
    kappa_bounds : (low, high), default (1e-6, 1e4)
        Support of the grid: ``low`` is the floor the grid reaches down to where needed.
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
    ((1, 57), 1.0, 0)
    """
    n_models = w.shape[0]
    floor, hi = np.log(kappa_bounds[0]), np.log(kappa_bounds[1])
    lo = max(floor, np.log(FIRST_LOW)) if np.log(FIRST_LOW) < hi else floor
    terms = count_terms(cu, ku, w)
    n_obs = w.sum(axis=1)
    fit_args = (terms, n_obs, mu_prior, max_iter, tol)
    if fixed_lam is not None:
        lam = np.asarray(fixed_lam, dtype=float).reshape(n_models, 1)
        eta, sd, lml, ok = _conditional(lam, eta_start[:, None], *fit_args)
        return KappaGrid(
            lam, eta, sd, np.ones((n_models, 1)), lml, np.zeros(n_models, int), lml[:, 0], ok
        )
    nodes = np.linspace(lo, hi, _COARSE)
    coarse = np.broadcast_to(nodes, (n_models, _COARSE))
    eta0 = np.broadcast_to(eta_start[:, None], coarse.shape)
    eta_c, _, lml_c, ok_c = _conditional(coarse, eta0, *fit_args)
    post_c = lml_c + log_kappa_prior(coarse, kappa_prior)
    # Reach down to the floor where the likelihood peaks at the first pass's lower end or the
    # posterior there is within _DROP of its highest: same spacing, the last step ends on it.
    step = (hi - lo) / (_COARSE - 1)
    need = (lml_c.argmax(axis=1) == 0) | (post_c[:, 0] >= post_c.max(axis=1) - _DROP)
    n_ext = int(np.ceil((lo - floor) / step - 1e-9)) if floor < lo else 0
    if n_ext and np.any(need):
        ext = np.maximum(lo - step * np.arange(n_ext, 0, -1), floor)
        rows = np.flatnonzero(need)
        sub = np.broadcast_to(ext, (rows.size, n_ext))
        cu_r, ku_r = (x[rows] if np.ndim(x) == 2 else x for x in (cu, ku))
        sub_args = (count_terms(cu_r, ku_r, w[rows]), n_obs[rows], mu_prior, max_iter, tol)
        start0 = np.broadcast_to(eta_c[rows, :1], sub.shape)
        eta_e, _, lml_e, ok_e = _conditional(sub, start0, *sub_args)
        pad = np.full((n_models, n_ext), -np.inf)
        lml_x, eta_x = pad.copy(), np.zeros((n_models, n_ext))
        lml_x[rows], eta_x[rows] = lml_e, eta_e
        ok_c = ok_c.copy()
        ok_c[rows] &= ok_e
        nodes = np.concatenate([ext, nodes])
        lml_c = np.concatenate([lml_x, lml_c], axis=1)
        eta_c = np.concatenate([eta_x, eta_c], axis=1)
        post_c = lml_c + log_kappa_prior(nodes, kappa_prior)
    n_coarse = nodes.size
    best = lml_c.argmax(axis=1)
    # the likelihood is highest at the floor (still rising there) or at the upper end
    edge = np.where(best == 0, -1, np.where(best == n_coarse - 1, 1, 0))
    keep = post_c >= post_c.max(axis=1, keepdims=True) - _DROP
    idx = np.arange(n_coarse)
    first = np.where(keep, idx, n_coarse).min(axis=1)
    last = np.where(keep, idx, -1).max(axis=1)
    a = nodes[np.maximum(first - 1, 0)]
    b = nodes[np.minimum(last + 1, n_coarse - 1)]
    # the same node count for every model (a model's fit depends on its own counts only, and
    # fits of blocks of models concatenate)
    n_fine = _FINE
    t = np.linspace(0.0, 1.0, n_fine)
    lam = a[:, None] + (b - a)[:, None] * t
    # start each fine node from the coarse modes, interpolated (a fine node lies between two
    # computed coarse nodes of its row: the region is inside the nodes that were computed)
    i0 = np.clip(np.searchsorted(nodes, lam, side="right") - 1, 0, n_coarse - 2)
    gap = nodes[i0 + 1] - nodes[i0]
    frac = np.clip((lam - nodes[i0]) / gap, 0.0, 1.0)
    rows = np.arange(n_models)[:, None]
    start = eta_c[rows, i0] * (1 - frac) + eta_c[rows, i0 + 1] * frac
    eta, sd, lml, ok = _conditional(lam, start, *fit_args)
    weight, log_norm = _normalise(lml + log_kappa_prior(lam, kappa_prior), n_fine)
    spacing = (b - a) / (n_fine - 1)
    evidence = log_norm + np.log(np.where(spacing > 0, spacing, 1.0))
    return KappaGrid(lam, eta, sd, weight, lml, edge, evidence, ok & ok_c)
