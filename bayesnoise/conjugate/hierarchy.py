"""Hierarchical Beta-Binomial closed forms: empirical Bayes and finite-sample posteriors.

Model, per model (leading axes of the arrays) and question ``i`` (last axis)::

    u_i ~ Beta(mu * kappa, (1 - mu) * kappa)
    c_i | u_i ~ Binomial(K_i, u_i)          (K_i = 0: question not answered, masked)

Three quantities are kept apart by name:

``ubar``
    mean_i u_i, the expected accuracy on *these* N questions (prediction noise only).
``mu``
    the accuracy on the population of questions (data + prediction noise).
fresh-run score
    what a new run with K' samples per question would report (:func:`fresh_run_predictive`).

Everything is numpy/scipy: exact Beta moments given (mu, kappa), exact Monte Carlo from the
independent Beta posteriors for intervals, and a Laplace approximation of the (mu, kappa)
posterior in (logit mu, log kappa) to carry hyperparameter uncertainty.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from bayesnoise._common import check_confidence_level

from ._validation import as_counts

__all__ = [
    "EmpiricalBayesFit",
    "FiniteSampleMoments",
    "FiniteSamplePosterior",
    "FreshRunPredictive",
    "PopulationPosterior",
    "beta_central_moments",
    "finite_sample_moments",
    "finite_sample_posterior",
    "fit_empirical_bayes",
    "fresh_run_predictive",
    "hyper_quadrature",
    "population_posterior",
    "question_posteriors",
]

KAPPA_BOUNDS = (1e-2, 1e4)
_ETA_BOUND = 30.0


# ----------------------------------------------------------------------------- Beta moments


def beta_central_moments(alpha, beta):
    """Mean and 2nd-4th central moments of Beta(alpha, beta), elementwise.

    Parameters
    ----------
    alpha, beta : array_like
        Positive shape parameters (broadcast together).

    Returns
    -------
    mean, mu2, mu3, mu4 : numpy.ndarray

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
    # mu4 = 3 ab (ab(s - 6) + 2 s^2) / (s^4 (s+1)(s+2)(s+3))
    mu4 = (
        3.0 * a * b * (a * b * (s - 6.0) + 2.0 * s * s) / (s**4 * (s + 1.0) * (s + 2.0) * (s + 3.0))
    )
    return mean, mu2, mu3, mu4


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
        Questions counted (mask sum).
    """

    ubar_mean: np.ndarray
    ubar_var: np.ndarray
    v_pred_mean: np.ndarray
    v_pred_var: np.ndarray
    v_x_mean: np.ndarray
    v_x_var: np.ndarray
    n_questions: np.ndarray

    def __getitem__(self, key: str) -> np.ndarray:  # dict-style access
        return getattr(self, key)

    def keys(self):
        return [f for f in self.__dataclass_fields__]


def _weighted_moments(alpha, beta, w) -> FiniteSampleMoments:
    """Core of :func:`finite_sample_moments`: each column counts ``w`` times (w >= 0)."""
    a, b, w = np.broadcast_arrays(
        np.asarray(alpha, float), np.asarray(beta, float), np.asarray(w, float)
    )
    # Masked cells: put harmless shapes there so no NaN propagates through 0 * nan.
    live = w > 0
    a = np.where(live, a, 1.0)
    b = np.where(live, b, 1.0)
    n = w.sum(axis=-1)
    m1, mu2, mu3, mu4 = beta_central_moments(a, b)
    # ubar
    ubar_mean = (w * m1).sum(axis=-1) / n
    ubar_var = (w * mu2).sum(axis=-1) / n**2
    # V_pred = mean(u - u^2); E[u - u^2] = m1 - (mu2 + m1^2)
    g_mean = m1 - mu2 - m1 * m1
    # Var(u - u^2) with u = m1 + e: u - u^2 = const + (1 - 2 m1) e - e^2
    #   = (1-2m1)^2 mu2 - 2 (1-2m1) mu3 + mu4 - mu2^2
    t = 1.0 - 2.0 * m1
    g_var = t * t * mu2 - 2.0 * t * mu3 + mu4 - mu2 * mu2
    v_pred_mean = (w * g_mean).sum(axis=-1) / n
    v_pred_var = (w * np.maximum(g_var, 0.0)).sum(axis=-1) / n**2
    # V_x = S2/N - S1^2/N^2 on y_i = u_i - cbar (shift-invariant); cbar = E[ubar]
    d = m1 - ubar_mean[..., None]
    e2 = mu2 + d * d
    e3 = mu3 + 3.0 * d * mu2 + d**3
    e4 = mu4 + 4.0 * d * mu3 + 6.0 * d * d * mu2 + d**4
    k1 = (w * d).sum(axis=-1)  # ~0 by construction
    k2 = (w * mu2).sum(axis=-1)
    k3 = (w * mu3).sum(axis=-1)
    k4 = (w * (mu4 - 3.0 * mu2 * mu2)).sum(axis=-1)
    var_s2 = (w * (e4 - e2 * e2)).sum(axis=-1)
    var_s1sq = k4 + 4.0 * k3 * k1 + 2.0 * k2 * k2 + 4.0 * k2 * k1 * k1
    cov = var_s2 + 2.0 * (w * (e3 - e2 * d) * (k1[..., None] - d)).sum(axis=-1)
    e_s2 = (w * e2).sum(axis=-1)
    v_x_mean = e_s2 / n - (k2 + k1 * k1) / n**2
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
        Arrays of shape ``(...)``; also indexable like a dict (``res["ubar_mean"]``).

    Examples
    --------
    >>> import numpy as np
    >>> res = finite_sample_moments(np.array([2.0, 5.0]), np.array([3.0, 1.0]))
    >>> round(float(res.ubar_mean), 4), round(float(res.ubar_var), 5)
    (0.6167, 0.01496)
    """
    a = np.asarray(alpha, dtype=float)
    b = np.asarray(beta, dtype=float)
    a, b = np.broadcast_arrays(a, b)
    if a.ndim == 0:
        raise ValueError("alpha/beta need a question axis (last axis)")
    w = np.ones(a.shape) if mask is None else np.broadcast_to(np.asarray(mask, bool), a.shape)
    w = np.asarray(w, dtype=float)
    if np.any((w > 0) & ~((a > 0) & (b > 0) & np.isfinite(a) & np.isfinite(b))):
        raise ValueError("alpha and beta must be finite and > 0 on included questions")
    if np.any(w.sum(axis=-1) == 0):
        raise ValueError("mask excludes every question of some model")
    return _weighted_moments(a, b, w)


def question_posteriors(correct, count, mu, kappa):
    """Per-question posterior Beta parameters given (mu, kappa).

    ``u_i | c_i ~ Beta(mu * kappa + c_i, (1 - mu) * kappa + K_i - c_i)``. Unanswered cells
    (``K_i = 0``) get the prior ``Beta(mu * kappa, (1 - mu) * kappa)``; pass ``count > 0`` as the
    mask to :func:`finite_sample_moments` to leave them out.

    Parameters
    ----------
    correct, count : array_like, shape (..., N)
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
    c, k, _ = as_counts(correct, count)
    mu = np.asarray(mu, dtype=float)
    kappa = np.asarray(kappa, dtype=float)
    if np.any(~((mu > 0) & (mu < 1))) or np.any(~(kappa > 0)) or not np.all(np.isfinite(kappa)):
        raise ValueError("need 0 < mu < 1 and 0 < kappa < inf")
    a0 = (mu * kappa)[..., None]
    b0 = ((1.0 - mu) * kappa)[..., None]
    return a0 + c, b0 + (k - c)


# ----------------------------------------------------------------------------- empirical Bayes


@dataclass(frozen=True)
class EmpiricalBayesFit:
    """Result of :func:`fit_empirical_bayes` (arrays over the leading model axes).

    Attributes
    ----------
    mu, kappa : numpy.ndarray
        Posterior mode of (mu, kappa) in (logit mu, log kappa) coordinates (maximum marginal
        likelihood when ``mu_prior=None``).
    cov : numpy.ndarray, shape (..., 2, 2)
        Laplace covariance of (logit mu, log kappa) (inverse observed information). Rows and
        columns of kappa are 0 when kappa was fixed (assumed, given, or at a bound).
    mu_se, kappa_se : numpy.ndarray
        Delta-method standard errors; ``kappa_se`` is NaN where kappa was not estimated
        (see ``kappa_status``).
    kappa_status : numpy.ndarray of str
        ``"estimated"``, ``"given"``, ``"assumed"`` (not identifiable, e.g. K = 1 everywhere or
        N = 1: ``kappa`` is the value assumed), ``"lower_bound"`` / ``"upper_bound"`` (the
        likelihood keeps increasing towards the bound; fixed there).
    loglik : numpy.ndarray
        Beta-Binomial marginal log likelihood at the fit (without the binomial coefficient).
    n_questions, n_samples, successes : numpy.ndarray
        Answered questions, total samples and total correct per model.
    converged : numpy.ndarray of bool
    notes : tuple of str
        Human-readable explanation of every non-estimated kappa (also issued as warnings).
    """

    mu: np.ndarray
    kappa: np.ndarray
    cov: np.ndarray
    mu_se: np.ndarray
    kappa_se: np.ndarray
    kappa_status: np.ndarray
    loglik: np.ndarray
    n_questions: np.ndarray
    n_samples: np.ndarray
    successes: np.ndarray
    converged: np.ndarray
    mu_prior: tuple[float, float] | None = (1.0, 1.0)
    notes: tuple[str, ...] = field(default=())

    @property
    def kappa_identifiable(self) -> np.ndarray:
        """True where kappa was estimated from the data (not assumed, given or at a bound)."""
        return self.kappa_status == "estimated"

    def mu_interval(self, confidence_level: float = 0.95):
        """Laplace interval for mu (symmetric in logit mu, so inside (0, 1)).

        Examples
        --------
        >>> import numpy as np
        >>> fit = fit_empirical_bayes(np.array([3, 4, 1, 5]), np.array([5, 5, 5, 5]))
        >>> low, high = fit.mu_interval(0.95)
        >>> bool(low < fit.mu < high)
        True
        """
        level = check_confidence_level(confidence_level)
        z = special.ndtri(0.5 + level / 2.0)
        eta = special.logit(self.mu)
        sd = np.sqrt(self.cov[..., 0, 0])
        return special.expit(eta - z * sd), special.expit(eta + z * sd)

    def kappa_interval(self, confidence_level: float = 0.95):
        """Laplace interval for kappa (symmetric in log kappa); degenerate when kappa is fixed."""
        level = check_confidence_level(confidence_level)
        z = special.ndtri(0.5 + level / 2.0)
        sd = np.sqrt(self.cov[..., 1, 1])
        lk = np.log(self.kappa)
        return np.exp(lk - z * sd), np.exp(lk + z * sd)


def _group_cells(c, k, mask):
    """Unique (c, K) pairs over all answered cells and how often each model has them.

    Returns ``cu, ku`` of shape (U,) and weights of shape (M, U) (M = flattened models).
    """
    m_shape = c.shape[:-1]
    n_models = int(np.prod(m_shape)) if m_shape else 1
    cf = c.reshape(n_models, -1)
    kf = k.reshape(n_models, -1)
    mf = mask.reshape(n_models, -1)
    rows, _ = np.nonzero(mf)
    pairs = np.stack([cf[mf], kf[mf]], axis=1)
    uniq, inv = np.unique(pairs, axis=0, return_inverse=True)
    inv = inv.ravel()
    n_u = uniq.shape[0]
    w = np.bincount(rows * n_u + inv, minlength=n_models * n_u).reshape(n_models, n_u)
    return uniq[:, 0], uniq[:, 1], w.astype(float)


def _objective(eta, lam, cu, ku, w, prior, *, derivatives=True):
    """Penalised Beta-Binomial log likelihood and its gradient/Hessian in (eta, lam).

    eta, lam : (M,) arrays; cu, ku : (U,); w : (M, U).
    """
    m = special.expit(eta)[:, None]
    kap = np.exp(lam)[:, None]
    a = m * kap
    b = (1.0 - m) * kap
    n = w.sum(axis=1, keepdims=True)
    ll = (w * special.betaln(cu + a, ku - cu + b)).sum(axis=1) - n[:, 0] * special.betaln(
        a[:, 0], b[:, 0]
    )
    a0, b0 = prior
    ll = ll + a0 * np.log(m[:, 0]) + b0 * np.log1p(-m[:, 0])
    if not derivatives:
        return ll
    psi_t = special.digamma(ku + a + b)
    g_a = (w * (special.digamma(cu + a) - psi_t)).sum(axis=1) - n[:, 0] * (
        special.digamma(a[:, 0]) - special.digamma(a[:, 0] + b[:, 0])
    )
    g_b = (w * (special.digamma(ku - cu + b) - psi_t)).sum(axis=1) - n[:, 0] * (
        special.digamma(b[:, 0]) - special.digamma(a[:, 0] + b[:, 0])
    )
    tri_t = special.polygamma(1, ku + a + b)
    tri_ab = special.polygamma(1, a[:, 0] + b[:, 0])
    h_aa = (w * (special.polygamma(1, cu + a) - tri_t)).sum(axis=1) - n[:, 0] * (
        special.polygamma(1, a[:, 0]) - tri_ab
    )
    h_bb = (w * (special.polygamma(1, ku - cu + b) - tri_t)).sum(axis=1) - n[:, 0] * (
        special.polygamma(1, b[:, 0]) - tri_ab
    )
    h_ab = -(w * tri_t).sum(axis=1) + n[:, 0] * tri_ab
    m, kap, a, b = m[:, 0], kap[:, 0], a[:, 0], b[:, 0]
    s = m * (1.0 - m)
    ks = kap * s
    g_eta = ks * (g_a - g_b) + a0 * (1.0 - m) - b0 * m
    g_lam = a * g_a + b * g_b
    h_ee = ks * ks * (h_aa - 2.0 * h_ab + h_bb) + ks * (1.0 - 2.0 * m) * (g_a - g_b) - (a0 + b0) * s
    h_el = ks * (a * h_aa + (b - a) * h_ab - b * h_bb + g_a - g_b)
    h_ll = a * a * h_aa + 2.0 * a * b * h_ab + b * b * h_bb + a * g_a + b * g_b
    return ll, g_eta, g_lam, h_ee, h_el, h_ll


def fit_empirical_bayes(
    correct,
    count,
    *,
    kappa=None,
    mu_prior: tuple[float, float] | None = (1.0, 1.0),
    kappa_bounds: tuple[float, float] = KAPPA_BOUNDS,
    kappa_unidentified: float = 1.0,
    max_iter: int = 200,
    tol: float = 1e-9,
    warn: bool = True,
    names=None,
) -> EmpiricalBayesFit:
    """Fit (mu, kappa) per model by maximum Beta-Binomial marginal likelihood.

    Vectorised damped Newton on (logit mu, log kappa) over all models at once, on the table of
    distinct (c, K) cells (so the cost grows with the number of distinct cells, not N).
    The Laplace covariance (inverse observed information) gives the uncertainty.

    Parameters
    ----------
    correct, count : array_like, shape (..., N)
        Correct samples and samples per question; ``count == 0`` = not answered (masked).
        K may differ between questions.
    kappa : float or array_like, optional
        Fix kappa (e.g. 1 for the paper's Beta(p, 1-p) theory) and fit mu only.
    mu_prior : (a0, b0) or None, default (1, 1)
        Beta prior on mu; the default uniform prior adds ``log mu + log(1 - mu)`` in the logit
        scale (one pseudo success and failure), keeping mu finite for all-correct / all-wrong
        models. ``None`` gives the pure maximum marginal likelihood (then all-correct or
        all-wrong models raise).
    kappa_bounds : (low, high), default (1e-2, 1e4)
        kappa is searched in this range; a fit that runs into a bound is fixed there and warned
        about (upper: no question-to-question variation beyond binomial; lower: every question
        all-correct or all-wrong, i.e. deterministic answers).
    kappa_unidentified : float, default 1.0
        Value assumed for kappa where the data cannot identify it (every answered K <= 1, or a
        single question): the paper's Beta(p, 1-p) theory. mu is still fitted; intervals for
        ``ubar`` then depend on this assumption (a warning says so).
    max_iter, tol : Newton iteration limit and gradient tolerance.
    warn : bool, default True
        Issue ``UserWarning`` for each group of non-estimated kappas.
    names : sequence of str, optional
        Model labels (one per leading entry) used in those warnings instead of indices.

    Returns
    -------
    EmpiricalBayesFit

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(0.6 * 2.0, 0.4 * 2.0, size=(3, 500))
    >>> c = rng.binomial(10, u)
    >>> fit = fit_empirical_bayes(c, np.full(c.shape, 10))
    >>> fit.mu.round(1).tolist(), bool(np.all((fit.kappa > 1.5) & (fit.kappa < 2.7)))
    ([0.6, 0.6, 0.6], True)
    """
    c, k, mask = as_counts(correct, count)
    lo, hi = (float(kappa_bounds[0]), float(kappa_bounds[1]))
    if not 0 < lo < hi < np.inf:
        raise ValueError(f"kappa_bounds must satisfy 0 < low < high < inf, got {kappa_bounds}")
    if not kappa_unidentified > 0:
        raise ValueError("kappa_unidentified must be > 0")
    prior = (0.0, 0.0) if mu_prior is None else (float(mu_prior[0]), float(mu_prior[1]))
    if prior[0] < 0 or prior[1] < 0:
        raise ValueError("mu_prior must be (a0, b0) with a0, b0 >= 0")
    shape = c.shape[:-1]
    n_models = int(np.prod(shape)) if shape else 1
    cu, ku, w = _group_cells(c, k, mask)
    n_q = w.sum(axis=1)
    succ = (w * cu).sum(axis=1)
    samp = (w * ku).sum(axis=1)
    if mu_prior is None and np.any((succ == 0) | (succ == samp)):
        raise ValueError(
            "a model is all-correct or all-wrong: the maximum-likelihood mu is 0 or 1; "
            "use the default mu_prior=(1, 1)"
        )
    status = np.full(n_models, "estimated", dtype=object)
    # kappa not identifiable: no question with K >= 2, or fewer than 2 questions
    has_multi = (w * (ku >= 2)).sum(axis=1) > 0
    unident = ~has_multi | (n_q < 2)
    lam = np.empty(n_models)
    if kappa is not None:
        kap_given = np.broadcast_to(np.asarray(kappa, dtype=float), shape).reshape(n_models)
        if np.any(~(kap_given > 0)) or not np.all(np.isfinite(kap_given)):
            raise ValueError("kappa must be finite and > 0")
        lam[:] = np.log(kap_given)
        status[:] = "given"
        fixed = np.ones(n_models, bool)
    else:
        fixed = unident.copy()
        status[unident] = "assumed"
        lam[unident] = np.log(kappa_unidentified)
        # method-of-moments start for the others
        pbar = (succ + 0.5) / (samp + 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            p_cell = np.where(ku > 0, cu / np.where(ku > 0, ku, 1.0), 0.0)
            var_p = (w * (p_cell - pbar[:, None]) ** 2).sum(axis=1) / n_q
            kbar_inv = (w / np.where(ku > 0, ku, 1.0)).sum(axis=1) / n_q
            r = var_p / (pbar * (1 - pbar))
            rho = np.clip((r - kbar_inv) / np.maximum(1.0 - kbar_inv, 1e-12), 0.02, 0.98)
        lam_start = np.log(1.0 / rho - 1.0)
        lam[~unident] = np.clip(lam_start[~unident], np.log(lo), np.log(hi))
    eta = special.logit(np.clip((succ + 0.5) / (samp + 1.0), 1e-9, 1 - 1e-9))
    llo, lhi = np.log(lo), np.log(hi)
    active = np.ones(n_models, bool)
    converged = np.zeros(n_models, bool)
    free_lam = ~fixed
    for _ in range(max_iter):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        ll, ge, gl, hee, hel, hll = _objective(eta[idx], lam[idx], cu, ku, w[idx], prior)
        fl = free_lam[idx].copy()
        # active set at the kappa bounds
        at_lo = (lam[idx] <= llo + 1e-12) & (gl < 0)
        at_hi = (lam[idx] >= lhi - 1e-12) & (gl > 0)
        fl &= ~(at_lo | at_hi)
        gl_eff = np.where(fl, gl, 0.0)
        gnorm = np.abs(ge) + np.abs(gl_eff)
        done = gnorm < tol * (1.0 + n_q[idx])
        # Newton direction on the free coordinates, Levenberg shift where not neg. definite
        hee_, hel_, hll_ = hee, np.where(fl, hel, 0.0), np.where(fl, hll, -1.0)
        det = hee_ * hll_ - hel_**2
        nd = (hee_ < 0) & (det > 0)
        # smallest shift making H - shift*I negative definite (largest eigenvalue + margin)
        tr = hee_ + hll_
        lam_max = tr / 2.0 + np.sqrt(np.maximum((tr / 2.0) ** 2 - det, 0.0))
        shift = np.where(nd, 0.0, np.maximum(lam_max, 0.0) + 1e-3 * np.abs(tr) + 1e-8)
        hee_s, hll_s = hee_ - shift, hll_ - shift
        det_s = hee_s * hll_s - hel_**2
        de = -(hll_s * ge - hel_ * gl_eff) / det_s
        dl = np.where(fl, -(-hel_ * ge + hee_s * gl_eff) / det_s, 0.0)
        # cap the step, then backtrack until the objective does not decrease
        scale = np.minimum(1.0, 5.0 / np.maximum(np.abs(de), np.abs(dl)).clip(1e-300))
        de, dl = de * scale, dl * scale
        step = np.ones(idx.size)
        todo = ~done
        new_eta, new_lam = eta[idx].copy(), lam[idx].copy()
        for _ls in range(40):
            if not todo.any():
                break
            t = np.flatnonzero(todo)
            ce = np.clip(eta[idx][t] + step[t] * de[t], -_ETA_BOUND, _ETA_BOUND)
            cl = np.clip(lam[idx][t] + step[t] * dl[t], llo, lhi)
            ll_new = _objective(ce, cl, cu, ku, w[idx][t], prior, derivatives=False)
            ok = ll_new >= ll[t] - 1e-12 * np.abs(ll[t])
            new_eta[t[ok]], new_lam[t[ok]] = ce[ok], cl[ok]
            todo[t[ok]] = False
            step[t[~ok]] *= 0.5
        small = (np.abs(new_eta - eta[idx]) + np.abs(new_lam - lam[idx])) < 1e-12
        eta[idx], lam[idx] = new_eta, new_lam
        fin = done | small
        converged[idx[fin]] = True
        active[idx[fin]] = False
    # final status and Laplace covariance
    ll, ge, gl, hee, hel, hll = _objective(eta, lam, cu, ku, w, prior)
    est = status == "estimated"
    at_lo = est & (lam <= llo + 1e-6)
    at_hi = est & (lam >= lhi - 1e-6)
    status[at_lo] = "lower_bound"
    status[at_hi] = "upper_bound"
    lam[at_lo], lam[at_hi] = llo, lhi
    free = status == "estimated"
    cov = np.zeros((n_models, 2, 2))
    det = hee * hll - hel**2
    pd_ok = free & (hee < 0) & (det > 0)
    cov[pd_ok, 0, 0] = -hll[pd_ok] / det[pd_ok]
    cov[pd_ok, 1, 1] = -hee[pd_ok] / det[pd_ok]
    cov[pd_ok, 0, 1] = cov[pd_ok, 1, 0] = hel[pd_ok] / det[pd_ok]
    one = ~pd_ok
    with np.errstate(divide="ignore"):
        cov[one, 0, 0] = np.where(hee[one] < 0, -1.0 / hee[one], np.inf)
    if np.any(free & ~pd_ok):
        status[free & ~pd_ok] = "flat"
    mu = special.expit(eta)
    kap = np.exp(lam)
    kap[at_lo], kap[at_hi] = lo, hi
    mu_se = mu * (1.0 - mu) * np.sqrt(cov[:, 0, 0])
    kappa_se = np.where(status == "estimated", kap * np.sqrt(cov[:, 1, 1]), np.nan)
    notes = _kappa_notes(status, kap, kappa_unidentified, lo, hi, shape, names)
    if warn:
        for note in notes:
            warnings.warn(note, UserWarning, stacklevel=2)
    if not converged.all():
        warnings.warn(
            f"empirical-Bayes fit did not converge for {int((~converged).sum())} model(s) "
            f"in {max_iter} iterations",
            RuntimeWarning,
            stacklevel=2,
        )

    def rs(x):
        return np.asarray(x).reshape(shape + np.shape(x)[1:])

    return EmpiricalBayesFit(
        mu=rs(mu),
        kappa=rs(kap),
        cov=rs(cov),
        mu_se=rs(mu_se),
        kappa_se=rs(kappa_se),
        kappa_status=rs(status.astype(str)),
        loglik=rs(ll - prior[0] * np.log(mu) - prior[1] * np.log1p(-mu)),
        n_questions=rs(n_q),
        n_samples=rs(samp),
        successes=rs(succ),
        converged=rs(converged),
        mu_prior=None if mu_prior is None else prior,
        notes=notes,
    )


def _kappa_notes(status, kap, assumed, lo, hi, shape, names=None) -> tuple[str, ...]:
    def where(sel):
        idx = np.flatnonzero(sel)
        if not shape:
            return "the model"
        more = ", ..." if idx.size > 5 else ""
        if names is not None:
            labels = np.asarray(names).ravel()
            return f"{idx.size} model(s) ({', '.join(str(labels[i]) for i in idx[:5])}{more})"
        pos = [np.unravel_index(i, shape) for i in idx[:5]]
        txt = ", ".join(str(p[0] if len(p) == 1 else p) for p in pos)
        return f"{idx.size} model(s) (index {txt}{more})"

    notes = []
    if np.any(status == "assumed"):
        notes.append(
            f"kappa is not identifiable for {where(status == 'assumed')}: every answered "
            f"question has K <= 1 sample (or there is a single question), so the data only "
            f"inform mu. Assumed kappa = {assumed:g} (the Beta(p, 1-p) theory); intervals for "
            f"ubar, V_x and V_pred depend on this assumption (pass kappa=... to change it)."
        )
    if np.any(status == "lower_bound"):
        notes.append(
            f"kappa ran to the lower bound {lo:g} for {where(status == 'lower_bound')}: "
            f"questions look deterministic (each all-correct or all-wrong); kappa fixed at {lo:g}."
        )
    if np.any(status == "upper_bound"):
        notes.append(
            f"kappa ran to the upper bound {hi:g} for {where(status == 'upper_bound')}: no "
            f"question-to-question variation beyond binomial noise is detectable; kappa fixed "
            f"at {hi:g} (all questions share one rate)."
        )
    if np.any(status == "flat"):
        notes.append(
            f"the marginal likelihood is flat in kappa for {where(status == 'flat')}; "
            f"kappa left at kappa={kap[status == 'flat'][0]:g}, its uncertainty is not reported."
        )
    return tuple(notes)


# ----------------------------------------------------------------------------- hyperparameter integration


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
    cov = fit.cov
    l11 = np.sqrt(cov[..., 0, 0])
    l21 = np.where(l11 > 0, cov[..., 0, 1] / np.where(l11 > 0, l11, 1.0), 0.0)
    l22 = np.sqrt(np.maximum(cov[..., 1, 1] - l21**2, 0.0))
    eta = special.logit(fit.mu)[..., None] + l11[..., None] * z1
    lam = np.log(fit.kappa)[..., None] + l21[..., None] * z1 + l22[..., None] * z2
    eta = np.clip(eta, -_ETA_BOUND, _ETA_BOUND)
    return special.expit(eta), np.exp(lam), wt


def _hyper_draws(fit: EmpiricalBayesFit, size: int, rng: np.random.Generator):
    """Draws of (mu, kappa) from the Laplace normal in (logit mu, log kappa): shape (..., size)."""
    shape = fit.mu.shape
    z = rng.standard_normal((*shape, size, 2))
    cov = fit.cov
    l11 = np.sqrt(cov[..., 0, 0])
    l21 = np.where(l11 > 0, cov[..., 0, 1] / np.where(l11 > 0, l11, 1.0), 0.0)
    l22 = np.sqrt(np.maximum(cov[..., 1, 1] - l21**2, 0.0))
    eta = special.logit(fit.mu)[..., None] + l11[..., None] * z[..., 0]
    lam = np.log(fit.kappa)[..., None] + l21[..., None] * z[..., 0] + l22[..., None] * z[..., 1]
    return special.expit(np.clip(eta, -_ETA_BOUND, _ETA_BOUND)), np.exp(lam)


def _mixture(means, variances, weight):
    """Mean and variance of a mixture over the last axis (law of total variance)."""
    mean = (means * weight).sum(axis=-1)
    var = (variances * weight).sum(axis=-1) + ((means - mean[..., None]) ** 2 * weight).sum(axis=-1)
    return mean, var


# ----------------------------------------------------------------------------- finite-sample posterior


def _quantile_with_mcse(draws, probs):
    """Quantiles over the last axis and their Monte Carlo standard error (order statistics)."""
    d = np.sort(draws, axis=-1)
    n = d.shape[-1]
    q = []
    se = []
    for p in probs:
        q.append(np.quantile(d, p, axis=-1))
        half = np.sqrt(n * p * (1 - p))
        j_lo = int(np.clip(np.floor(n * p - half), 0, n - 1))
        j_hi = int(np.clip(np.ceil(n * p + half), 0, n - 1))
        se.append((d[..., j_hi] - d[..., j_lo]) / 2.0)
    return q, se


@dataclass(frozen=True)
class FiniteSamplePosterior:
    """Posterior of the finite-sample quantities of :func:`finite_sample_posterior`.

    For each ``name`` in ``("ubar", "v_pred", "v_x")`` there are ``{name}_mean``,
    ``{name}_sd``, ``{name}_low``, ``{name}_high`` (credible interval at ``confidence_level``)
    and ``{name}_mcse`` (Monte Carlo standard error of the interval ends, the larger of the
    two). Means and sds are exact given the Laplace posterior of (mu, kappa) (Gauss-Hermite
    integration of the exact Beta moments); intervals are Monte Carlo from the independent
    Beta posteriors with (mu, kappa) drawn from the Laplace posterior.
    """

    ubar_mean: np.ndarray
    ubar_sd: np.ndarray
    ubar_low: np.ndarray
    ubar_high: np.ndarray
    ubar_mcse: np.ndarray
    v_pred_mean: np.ndarray
    v_pred_sd: np.ndarray
    v_pred_low: np.ndarray
    v_pred_high: np.ndarray
    v_pred_mcse: np.ndarray
    v_x_mean: np.ndarray
    v_x_sd: np.ndarray
    v_x_low: np.ndarray
    v_x_high: np.ndarray
    v_x_mcse: np.ndarray
    confidence_level: float
    draws: int
    kappa_status: np.ndarray
    ubar_draws: np.ndarray | None = None


def integrated_moments(c, k, mask, fit: EmpiricalBayesFit, *, integrate_hyper=True, order=5):
    """Moments of ubar, V_pred, V_x with (mu, kappa) integrated over its Laplace posterior."""
    if integrate_hyper:
        mu_q, kap_q, wt = hyper_quadrature(fit, order)
    else:
        mu_q, kap_q, wt = fit.mu[..., None], fit.kappa[..., None], np.ones(1)
    # moments only depend on the distinct (c, K) cells: work on (models, nodes, cells)
    shape = c.shape[:-1]
    cu, ku, w = _group_cells(c, k, mask)
    n_models = w.shape[0]
    mu_q = np.broadcast_to(mu_q, (*shape, wt.size)).reshape(n_models, wt.size, 1)
    kap_q = np.broadcast_to(kap_q, (*shape, wt.size)).reshape(n_models, wt.size, 1)
    a = mu_q * kap_q + cu
    b = (1.0 - mu_q) * kap_q + (ku - cu)
    mom = _weighted_moments(a, b, w[:, None, :])
    out = {}
    for name in ("ubar", "v_pred", "v_x"):
        m, v = _mixture(getattr(mom, f"{name}_mean"), getattr(mom, f"{name}_var"), wt)
        out[name] = (m.reshape(shape), v.reshape(shape))
    return out


def _finite_sample_draws(c, k, mask, fit, draws, rng, integrate_hyper=True, chunk=2_000_000):
    """Monte Carlo draws of (ubar, V_pred, V_x), shape (..., draws) each."""
    shape = c.shape[:-1]
    n_models = int(np.prod(shape)) if shape else 1
    n_q = c.shape[-1]
    cf, kf, mf = c.reshape(n_models, n_q), k.reshape(n_models, n_q), mask.reshape(n_models, n_q)
    if integrate_hyper:
        mu_d, kap_d = _hyper_draws(fit, draws, rng)
    else:
        mu_d = np.broadcast_to(fit.mu[..., None], (*shape, draws))
        kap_d = np.broadcast_to(fit.kappa[..., None], (*shape, draws))
    mu_d, kap_d = mu_d.reshape(n_models, draws), kap_d.reshape(n_models, draws)
    out = np.empty((3, n_models, draws))
    step = max(1, chunk // max(n_q, 1))
    for m in range(n_models):
        sel = mf[m]
        cm, km = cf[m, sel], kf[m, sel]
        for s0 in range(0, draws, step):
            s1 = min(draws, s0 + step)
            a = mu_d[m, s0:s1, None] * kap_d[m, s0:s1, None] + cm
            b = (1.0 - mu_d[m, s0:s1, None]) * kap_d[m, s0:s1, None] + (km - cm)
            u = rng.beta(a, b)
            ub = u.mean(axis=-1)
            out[0, m, s0:s1] = ub
            out[1, m, s0:s1] = (u * (1.0 - u)).mean(axis=-1)
            out[2, m, s0:s1] = u.var(axis=-1)
    return out.reshape((3, *shape, draws))


def finite_sample_posterior(
    correct,
    count,
    fit: EmpiricalBayesFit | None = None,
    *,
    confidence_level: float = 0.95,
    draws: int = 2000,
    random_seed=0,
    integrate_hyper: bool = True,
    keep_draws: bool = False,
) -> FiniteSamplePosterior:
    """Posterior of ubar (expected accuracy on these questions), V_pred and V_x per model.

    Parameters
    ----------
    correct, count : array_like, shape (..., N)
    fit : EmpiricalBayesFit, optional
        Hyperparameters; fitted with :func:`fit_empirical_bayes` when omitted.
    confidence_level : float, default 0.95
    draws : int, default 2000
        Monte Carlo draws for the intervals (``0`` skips them: ``*_low``/``*_high`` are then
        the normal approximation mean -/+ z sd and ``*_mcse`` is 0).
    random_seed : int or numpy.random.Generator, default 0
    integrate_hyper : bool, default True
        Carry the Laplace uncertainty of (mu, kappa) (recommended: plugging in the point
        estimate makes ubar intervals too narrow, by a factor sqrt(K / (K + kappa)) in
        variance). When kappa was assumed (K = 1), only mu's uncertainty is carried and the
        result is conditional on the assumed kappa.
    keep_draws : bool
        Keep the ubar draws (``ubar_draws``), e.g. to form pair differences.

    Returns
    -------
    FiniteSamplePosterior

    Examples
    --------
    >>> import numpy as np
    >>> c, k = np.array([[3, 5, 0, 4, 2]]), np.full((1, 5), 5)
    >>> post = finite_sample_posterior(c, k, draws=500)
    >>> bool(post.ubar_low[0] < post.ubar_mean[0] < post.ubar_high[0])
    True
    """
    level = check_confidence_level(confidence_level)
    c, k, mask = as_counts(correct, count)
    if fit is None:
        fit = fit_empirical_bayes(c, k)
    mom = integrated_moments(c, k, mask, fit, integrate_hyper=integrate_hyper)
    rng = np.random.default_rng(random_seed)
    probs = (0.5 - level / 2.0, 0.5 + level / 2.0)
    res = {}
    udraws = None
    if draws:
        dr = _finite_sample_draws(c, k, mask, fit, int(draws), rng, integrate_hyper)
        udraws = dr[0]
        for j, name in enumerate(("ubar", "v_pred", "v_x")):
            (lo, hi), (se_lo, se_hi) = _quantile_with_mcse(dr[j], probs)
            res[name] = (lo, hi, np.maximum(se_lo, se_hi))
    else:
        z = special.ndtri(probs[1])
        for name in ("ubar", "v_pred", "v_x"):
            m, v = mom[name]
            res[name] = (m - z * np.sqrt(v), m + z * np.sqrt(v), np.zeros_like(m))
    kw = {}
    for name in ("ubar", "v_pred", "v_x"):
        m, v = mom[name]
        lo, hi, se = res[name]
        kw.update(
            {
                f"{name}_mean": m,
                f"{name}_sd": np.sqrt(v),
                f"{name}_low": lo,
                f"{name}_high": hi,
                f"{name}_mcse": se,
            }
        )
    return FiniteSamplePosterior(
        **kw,
        confidence_level=level,
        draws=int(draws),
        kappa_status=fit.kappa_status,
        ubar_draws=udraws if keep_draws else None,
    )


# ----------------------------------------------------------------------------- population


@dataclass(frozen=True)
class PopulationPosterior:
    """Population quantities of the question distribution (see :func:`population_posterior`).

    ``mu`` (population accuracy), ``data_var = mu (1 - mu) / (kappa + 1)`` and
    ``prediction_var = mu (1 - mu) kappa / (kappa + 1)``: point values at the fit, and
    ``*_low``/``*_high`` intervals carrying the Laplace uncertainty of (mu, kappa) (Monte Carlo
    for the variances, closed form in logit space for mu). Where kappa was not estimated
    (``kappa_status``) the variance intervals only carry mu's uncertainty.
    """

    mu: np.ndarray
    mu_low: np.ndarray
    mu_high: np.ndarray
    data_var: np.ndarray
    data_var_low: np.ndarray
    data_var_high: np.ndarray
    prediction_var: np.ndarray
    prediction_var_low: np.ndarray
    prediction_var_high: np.ndarray
    kappa: np.ndarray
    kappa_low: np.ndarray
    kappa_high: np.ndarray
    kappa_status: np.ndarray
    confidence_level: float


def population_posterior(
    fit: EmpiricalBayesFit, *, confidence_level: float = 0.95, draws: int = 4000, random_seed=0
) -> PopulationPosterior:
    """Population accuracy mu, data and prediction variance with intervals.

    Parameters
    ----------
    fit : EmpiricalBayesFit
    confidence_level : float, default 0.95
    draws : int, default 4000
        Laplace draws of (logit mu, log kappa) for the variance intervals.
    random_seed : int or numpy.random.Generator

    Returns
    -------
    PopulationPosterior

    Examples
    --------
    >>> import numpy as np
    >>> fit = fit_empirical_bayes(np.array([3, 4, 1, 5, 0, 5]), np.full(6, 5), warn=False)
    >>> pop = population_posterior(fit)
    >>> bool(pop.mu_low < pop.mu < pop.mu_high)
    True
    """
    level = check_confidence_level(confidence_level)
    rng = np.random.default_rng(random_seed)
    mu, kap = fit.mu, fit.kappa
    mu_low, mu_high = fit.mu_interval(level)
    k_low, k_high = fit.kappa_interval(level)
    md, kd = _hyper_draws(fit, int(draws), rng)
    q = (0.5 - level / 2.0, 0.5 + level / 2.0)
    dv = md * (1 - md) / (kd + 1.0)
    pv = md * (1 - md) * kd / (kd + 1.0)
    dlo, dhi = np.quantile(dv, q, axis=-1)
    plo, phi = np.quantile(pv, q, axis=-1)
    return PopulationPosterior(
        mu=mu,
        mu_low=mu_low,
        mu_high=mu_high,
        data_var=mu * (1 - mu) / (kap + 1.0),
        data_var_low=dlo,
        data_var_high=dhi,
        prediction_var=mu * (1 - mu) * kap / (kap + 1.0),
        prediction_var_low=plo,
        prediction_var_high=phi,
        kappa=kap,
        kappa_low=k_low,
        kappa_high=k_high,
        kappa_status=fit.kappa_status,
        confidence_level=level,
    )


# ----------------------------------------------------------------------------- fresh run


@dataclass(frozen=True)
class FreshRunPredictive:
    """Posterior predictive of the score (mean of c'/K') a fresh run would report."""

    mean: np.ndarray
    sd: np.ndarray
    low: np.ndarray
    high: np.ndarray
    samples_per_question: int
    questions: int | None
    confidence_level: float


def fresh_run_predictive(
    correct,
    count,
    fit: EmpiricalBayesFit | None = None,
    *,
    samples_per_question: int = 1,
    questions: int | None = None,
    confidence_level: float = 0.95,
    draws: int = 4000,
    random_seed=0,
) -> FreshRunPredictive:
    """Predictive distribution of a fresh run's reported score.

    The fresh run draws ``samples_per_question = K'`` samples per question and reports the mean
    of c'/K'. With ``questions=None`` it runs on the same (answered) questions: the spread is
    Var(ubar) + E[V_pred] / (N K'). With ``questions = N'`` it runs on N' fresh questions from
    the population: Var(mu) + E[mu(1-mu)/(kappa+1)] / N' + E[mu(1-mu) kappa/(kappa+1)] / (N' K').

    Parameters
    ----------
    correct, count : array_like, shape (..., N)
    fit : EmpiricalBayesFit, optional
    samples_per_question : int, default 1
    questions : int, optional
        Number of fresh questions; default: the same questions.
    confidence_level : float, default 0.95
    draws : int, default 4000
    random_seed : int or numpy.random.Generator

    Returns
    -------
    FreshRunPredictive
        ``mean``/``sd`` exact (Gauss-Hermite over the Laplace posterior); ``low``/``high``
        Monte Carlo predictive interval.

    Examples
    --------
    >>> import numpy as np
    >>> c, k = np.array([3, 5, 0, 4, 2, 1]), np.full(6, 5)
    >>> same = fresh_run_predictive(c, k, samples_per_question=1)
    >>> fresh = fresh_run_predictive(c, k, samples_per_question=1, questions=6)
    >>> bool(fresh.sd > same.sd)
    True
    """
    level = check_confidence_level(confidence_level)
    kp = int(samples_per_question)
    if kp < 1:
        raise ValueError("samples_per_question must be >= 1")
    c, k, mask = as_counts(correct, count)
    if fit is None:
        fit = fit_empirical_bayes(c, k)
    rng = np.random.default_rng(random_seed)
    q = (0.5 - level / 2.0, 0.5 + level / 2.0)
    shape = c.shape[:-1]
    if questions is None:
        mom = integrated_moments(c, k, mask, fit)
        m, v_ub = mom["ubar"]
        n = mask.sum(axis=-1)
        var = v_ub + mom["v_pred"][0] / (n * kp)
        mu_d, kap_d = _hyper_draws(fit, draws, rng)
        sims = np.empty((*shape, draws))
        for idx in np.ndindex(shape):
            sel = mask[idx]
            a = mu_d[idx][:, None] * kap_d[idx][:, None] + c[idx][sel]
            b = (1 - mu_d[idx][:, None]) * kap_d[idx][:, None] + (k[idx] - c[idx])[sel]
            u = rng.beta(a, b)
            sims[idx] = rng.binomial(kp, u).mean(axis=-1) / kp
    else:
        n_new = int(questions)
        if n_new < 1:
            raise ValueError("questions must be >= 1")
        mu_q, kap_q, wt = hyper_quadrature(fit)
        dv = mu_q * (1 - mu_q) / (kap_q + 1)
        pv = mu_q * (1 - mu_q) * kap_q / (kap_q + 1)
        m, var = _mixture(mu_q, dv / n_new + pv / (n_new * kp), wt)
        mu_d, kap_d = _hyper_draws(fit, draws, rng)
        u = rng.beta(
            (mu_d * kap_d)[..., None] * np.ones(n_new),
            ((1 - mu_d) * kap_d)[..., None] * np.ones(n_new),
        )
        sims = rng.binomial(kp, u).mean(axis=-1) / kp
    lo, hi = np.quantile(sims, q, axis=-1)
    return FreshRunPredictive(
        mean=m,
        sd=np.sqrt(var),
        low=lo,
        high=hi,
        samples_per_question=kp,
        questions=None if questions is None else int(questions),
        confidence_level=level,
    )
