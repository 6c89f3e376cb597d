"""Empirical Bayes for the Beta-Binomial hierarchy: (mu, kappa) per model and their Laplace posterior.

The marginal likelihood of model ``m`` integrates the question accuracies out::

    log L(mu, kappa) = sum_i [log B(mu kappa + c_i, (1 - mu) kappa + K_i - c_i)
                              - log B(mu kappa, (1 - mu) kappa)]

(:func:`~bayesnoise.conjugate.likelihood.marginal_loglik`). It is maximised in
(eta, lam) = (logit mu, log kappa) by :func:`~bayesnoise.conjugate.newton.maximize_newton_2d`;
the inverse observed information there is the Laplace covariance
(:mod:`bayesnoise.conjugate.laplace` integrates over it).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy import special

from bayesnoise._common import ConfidenceInterval, z_from_level
from bayesnoise.data import check_counts

from .likelihood import group_cells, marginal_loglik
from .newton import maximize_newton_2d
from .notes import kappa_notes

__all__ = ["KAPPA_BOUNDS", "EmpiricalBayesFit", "fit_empirical_bayes"]

KAPPA_BOUNDS = (1e-2, 1e4)
_ETA_BOUND = 30.0


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
        a single question: ``kappa`` is the value assumed), ``"lower_bound"`` /
        ``"upper_bound"`` (the likelihood keeps increasing towards the bound; fixed there),
        ``"flat"`` (no curvature in kappa).
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

    @cached_property
    def laplace_factor(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Lower Cholesky factor ``(l11, l21, l22)`` of ``cov`` (a zero variance stays zero)."""
        cov = self.cov
        l11 = np.sqrt(cov[..., 0, 0])
        l21 = np.where(l11 > 0, cov[..., 0, 1] / np.where(l11 > 0, l11, 1.0), 0.0)
        l22 = np.sqrt(np.maximum(cov[..., 1, 1] - l21**2, 0.0))
        return l11, l21, l22

    def mu_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Laplace interval for mu (symmetric in logit mu, so inside (0, 1)).

        Parameters
        ----------
        confidence_level : float, default 0.95

        Returns
        -------
        ConfidenceInterval

        Examples
        --------
        >>> import numpy as np
        >>> fit = fit_empirical_bayes(np.array([3, 4, 1, 5]), np.array([5, 5, 5, 5]))
        >>> low, high = fit.mu_interval(0.95)
        >>> bool(low < fit.mu < high)
        True
        """
        z = z_from_level(confidence_level)
        eta = special.logit(self.mu)
        sd = np.sqrt(self.cov[..., 0, 0])
        return ConfidenceInterval(special.expit(eta - z * sd), special.expit(eta + z * sd))

    def kappa_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Laplace interval for kappa (symmetric in log kappa); degenerate when kappa is fixed.

        Parameters
        ----------
        confidence_level : float, default 0.95

        Returns
        -------
        ConfidenceInterval

        Examples
        --------
        >>> import numpy as np
        >>> fit = fit_empirical_bayes(np.array([3, 4, 1, 5]), np.full(4, 5), kappa=2.0)
        >>> fit.kappa_interval(0.9)
        ConfidenceInterval(low=np.float64(2.0), high=np.float64(2.0))
        """
        z = z_from_level(confidence_level)
        sd = np.sqrt(self.cov[..., 1, 1])
        lk = np.log(self.kappa)
        return ConfidenceInterval(np.exp(lk - z * sd), np.exp(lk + z * sd))


def _start(cu, ku, w, n_q, succ, samp):
    """Method-of-moments starting point of log kappa (clipped later to the bounds)."""
    pbar = (succ + 0.5) / (samp + 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_cell = np.where(ku > 0, cu / np.where(ku > 0, ku, 1.0), 0.0)
        var_p = (w * (p_cell - pbar[:, None]) ** 2).sum(axis=1) / n_q
        kbar_inv = (w / np.where(ku > 0, ku, 1.0)).sum(axis=1) / n_q
        r = var_p / (pbar * (1 - pbar))
        rho = np.clip((r - kbar_inv) / np.maximum(1.0 - kbar_inv, 1e-12), 0.02, 0.98)
    return np.log(1.0 / rho - 1.0)


def _laplace_cov(hee, hel, hll, free):
    """Inverse observed information; mu only where kappa is fixed or the 2x2 is not < 0."""
    cov = np.zeros((hee.size, 2, 2))
    det = hee * hll - hel**2
    pd_ok = free & (hee < 0) & (det > 0)
    cov[pd_ok, 0, 0] = -hll[pd_ok] / det[pd_ok]
    cov[pd_ok, 1, 1] = -hee[pd_ok] / det[pd_ok]
    cov[pd_ok, 0, 1] = cov[pd_ok, 1, 0] = hel[pd_ok] / det[pd_ok]
    one = ~pd_ok
    neg = hee[one] < 0
    cov[one, 0, 0] = np.where(neg, -1.0 / np.where(neg, hee[one], -1.0), np.inf)
    return cov, pd_ok


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
    max_iter, tol : int, float
        Newton iteration limit and gradient tolerance.
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
    c, k = check_counts(correct, count, require_answered=True)
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
    cu, ku, w = group_cells(c, k, k > 0)
    n_q = w.sum(axis=1)
    succ = (w * cu).sum(axis=1)
    samp = (w * ku).sum(axis=1)
    extreme = (succ == 0) | (succ == samp)
    if mu_prior is None and np.any(extreme):
        raise ValueError(
            "a model is all-correct or all-wrong: the maximum-likelihood mu is 0 or 1; "
            "use the default mu_prior=(1, 1)"
        )
    status = np.full(n_models, "estimated", dtype=object)
    # kappa not identifiable: no question with K >= 2, or fewer than 2 questions
    unident = ((w * (ku >= 2)).sum(axis=1) == 0) | (n_q < 2)
    llo, lhi = np.log(lo), np.log(hi)
    lam = np.empty(n_models)
    if kappa is not None:
        kap_given = np.broadcast_to(np.asarray(kappa, dtype=float), shape).reshape(n_models)
        if np.any(~(kap_given > 0)) or not np.all(np.isfinite(kap_given)):
            raise ValueError("kappa must be finite and > 0")
        lam[:] = np.log(kap_given)
        status[:] = "given"
    else:
        status[unident] = "assumed"
        lam[unident] = np.log(kappa_unidentified)
        lam_start = _start(cu, ku, w, n_q, succ, samp)
        lam[~unident] = np.clip(lam_start[~unident], llo, lhi)
    eta = special.logit(np.clip((succ + 0.5) / (samp + 1.0), 1e-9, 1 - 1e-9))

    def objective(e, la, rows, derivatives=True):
        return marginal_loglik(e, la, cu, ku, w[rows], prior, derivatives=derivatives)

    eta, lam, converged = maximize_newton_2d(
        objective,
        eta,
        lam,
        y_free=status == "estimated",
        y_bounds=(llo, lhi),
        x_bound=_ETA_BOUND,
        tol_scale=1.0 + n_q,
        max_iter=max_iter,
        tol=tol,
    )
    # final status and Laplace covariance
    ll, _, _, hee, hel, hll = marginal_loglik(eta, lam, cu, ku, w, prior)
    est = status == "estimated"
    at_lo = est & (lam <= llo + 1e-6)
    at_hi = est & (lam >= lhi - 1e-6)
    status[at_lo] = "lower_bound"
    status[at_hi] = "upper_bound"
    lam[at_lo], lam[at_hi] = llo, lhi
    free = status == "estimated"
    cov, pd_ok = _laplace_cov(hee, hel, hll, free)
    status[free & ~pd_ok] = "flat"
    mu = special.expit(eta)
    kap = np.exp(lam)
    kap[at_lo], kap[at_hi] = lo, hi
    mu_se = mu * (1.0 - mu) * np.sqrt(cov[:, 0, 0])
    kappa_se = np.where(status == "estimated", kap * np.sqrt(cov[:, 1, 1]), np.nan)
    all_correct = np.where(extreme, succ == samp, False)
    notes = kappa_notes(
        status, kap, kappa_unidentified, (lo, hi), shape, names, extreme=extreme, high=all_correct
    )
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
