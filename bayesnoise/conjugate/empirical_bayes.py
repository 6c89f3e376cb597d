"""The posterior of (mu, kappa) per model, with kappa integrated over a grid.

The marginal likelihood of model ``m`` integrates the question accuracies out::

    log L(mu, kappa) = sum_i [log B(mu kappa + c_i, (1 - mu) kappa + K_i - c_i)
                              - log B(mu kappa, (1 - mu) kappa)]

(:func:`~bayesnoise.conjugate.rising.terms_loglik`). With proper priors on mu (Beta)
and kappa (LogNormal) the posterior is tabulated on a grid over log kappa with a normal
conditional posterior of logit mu at each node (:mod:`bayesnoise.conjugate.kappa_grid`);
every downstream quantity is a mixture over the nodes (:mod:`bayesnoise.conjugate.hyper`), so
kappa's uncertainty always propagates, also where its likelihood peaks at an edge of the grid
or does not depend on kappa at all (K = 1).
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy import special

from bayesnoise._common import ConfidenceInterval, tail_probabilities
from bayesnoise.data import check_counts

from .hyper import hyper_quadrature, normal_mixture_quantile, weighted_quantile
from .kappa_grid import DEFAULT_KAPPA_PRIOR, DEFAULT_MU_PRIOR, KAPPA_BOUNDS, kappa_grid
from .likelihood import model_cells
from .notes import STATUS, kappa_notes

__all__ = [
    "EmpiricalBayesFit",
    "fit_empirical_bayes",
    "merge_fits",
]


@dataclass(frozen=True)
class EmpiricalBayesFit:
    """Result of :func:`fit_empirical_bayes` (arrays over the leading model axes).

    Attributes
    ----------
    mu, kappa : numpy.ndarray
        Posterior medians of mu and kappa (kappa: the value given when it was assumed).
    mu_se, kappa_se : numpy.ndarray
        Posterior standard deviations; ``kappa_se`` is NaN where kappa was not estimated.
    kappa_status : numpy.ndarray of str
        ``"estimated"``; ``"at lower bound"`` / ``"at upper bound"`` (the likelihood of kappa
        keeps rising towards that edge of the grid: the intervals integrate over the prior
        there); ``"not identified (K = 1): prior"`` (no question has two samples, the
        likelihood does not depend on kappa) or ``"not identified (1 question): prior"``
        (the posterior of kappa is essentially its prior); ``"assumed"`` (kappa given).
    loglik : numpy.ndarray
        log marginal likelihood with mu and kappa integrated over their priors (without the
        binomial coefficients).
    n_questions, n_samples, successes : numpy.ndarray
        Answered questions, total samples and total correct per model.
    converged : numpy.ndarray of bool
    grid_lam, grid_eta, grid_eta_sd, grid_weight : numpy.ndarray, shape (..., G)
        The posterior as a mixture: log kappa nodes, the mode and sd of the conditional normal
        of logit mu at each, and the node weights.
    mu_prior : (a0, b0) or None
    kappa_prior : (median, log_sd)
    notes : tuple of str
        Plain-words explanation of every kappa that was not estimated (also warned).
    """

    mu: np.ndarray
    kappa: np.ndarray
    mu_se: np.ndarray
    kappa_se: np.ndarray
    kappa_status: np.ndarray
    loglik: np.ndarray
    n_questions: np.ndarray
    n_samples: np.ndarray
    successes: np.ndarray
    converged: np.ndarray
    grid_lam: np.ndarray
    grid_eta: np.ndarray
    grid_eta_sd: np.ndarray
    grid_weight: np.ndarray
    mu_prior: tuple[float, float] | None = DEFAULT_MU_PRIOR
    kappa_prior: tuple[float, float] = DEFAULT_KAPPA_PRIOR
    notes: tuple[str, ...] = field(default=())

    @property
    def kappa_identifiable(self) -> np.ndarray:
        """True where kappa was estimated from the data."""
        return self.kappa_status == "estimated"

    @cached_property
    def cov(self) -> np.ndarray:
        """Posterior covariance of (logit mu, log kappa), shape (..., 2, 2)."""
        w, lam, eta = self.grid_weight, self.grid_lam, self.grid_eta
        m_eta, m_lam = (w * eta).sum(-1), (w * lam).sum(-1)
        de, dl = eta - m_eta[..., None], lam - m_lam[..., None]
        v_eta = (w * (self.grid_eta_sd**2 + de * de)).sum(-1)
        c_el = (w * de * dl).sum(-1)
        v_lam = (w * dl * dl).sum(-1)
        return np.stack([np.stack([v_eta, c_el], -1), np.stack([c_el, v_lam], -1)], -2)

    def mu_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Equal-tailed credible interval for mu (kappa integrated out).

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
        q = tail_probabilities(confidence_level)
        args = (self.grid_eta, self.grid_eta_sd, self.grid_weight)
        lo, hi = (special.expit(normal_mixture_quantile(*args, p)) for p in q)
        return ConfidenceInterval(lo[()], hi[()])

    def kappa_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Equal-tailed credible interval for kappa (degenerate when kappa was assumed).

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
        q = tail_probabilities(confidence_level)
        if self.grid_lam.shape[-1] == 1:
            return ConfidenceInterval(self.kappa[()], self.kappa[()])
        lo, hi = (np.exp(weighted_quantile(self.grid_lam, self.grid_weight, p)) for p in q)
        return ConfidenceInterval(lo[()], hi[()])


def _status(unident_k1, single, edge, assumed):
    """Per-model kappa status from the data structure and where the likelihood peaks."""
    status = np.full(edge.shape, STATUS["estimated"], dtype=object)
    status[edge < 0] = STATUS["lower"]
    status[edge > 0] = STATUS["upper"]
    status[single] = STATUS["single"]
    status[unident_k1] = STATUS["k1"]
    if assumed:
        status[:] = STATUS["assumed"]
    return status


def _notes(status, succ, samp, converged, bounds, kp, shape, names, warn, max_iter=None):
    """The kappa notes of a fit (warned once each when ``warn``) and the convergence warning."""
    extreme = (succ == 0) | (succ == samp)
    all_correct = np.where(extreme, succ == samp, False)
    notes = kappa_notes(status, bounds, kp, shape, names, extreme=extreme, high=all_correct)
    if warn:
        for note in notes:
            warnings.warn(note, UserWarning, stacklevel=3)
    if not np.all(converged):
        within = "" if max_iter is None else f" in {max_iter} iterations"
        warnings.warn(
            f"the conditional mode of mu did not converge for {int((~converged).sum())} "
            f"model(s){within}",
            RuntimeWarning,
            stacklevel=3,
        )
    return notes


def merge_fits(
    fits, *, kappa_bounds=KAPPA_BOUNDS, names=None, warn: bool = True
) -> EmpiricalBayesFit:
    """One fit of all models from fits of consecutive blocks of models (same priors).

    Every per-model number of :func:`fit_empirical_bayes` depends on that model's counts
    only, so fits of blocks of models (e.g. on the workers of a cluster) concatenate into the
    fit of all of them; the notes are written again for all models together.

    Parameters
    ----------
    fits : sequence of EmpiricalBayesFit
        Fits with one model axis, in model order.
    kappa_bounds : (low, high), default (1e-6, 1e4)
        The support the blocks were fitted with.
    names : sequence of str, optional
        Labels of all models (for the notes).
    warn : bool, default True
        Warn each note once.

    Returns
    -------
    EmpiricalBayesFit

    Examples
    --------
    >>> import numpy as np
    >>> c, k = np.array([[3, 4, 1, 5], [0, 2, 2, 1]]), np.full((2, 4), 5)
    >>> whole = fit_empirical_bayes(c, k, warn=False)
    >>> parts = [fit_empirical_bayes(c[i : i + 1], k[i : i + 1], warn=False) for i in (0, 1)]
    >>> bool(np.array_equal(merge_fits(parts, warn=False).mu, whole.mu))
    True
    """
    first = fits[0]
    if len({(f.mu_prior, f.kappa_prior) for f in fits}) != 1:
        raise ValueError("merge_fits needs fits with the same priors")
    arrays = {
        f.name: np.concatenate([getattr(x, f.name) for x in fits])
        for f in dataclasses.fields(EmpiricalBayesFit)
        if f.name not in ("mu_prior", "kappa_prior", "notes")
    }
    shape = arrays["mu"].shape
    notes = _notes(
        arrays["kappa_status"],
        arrays["successes"],
        arrays["n_samples"],
        arrays["converged"],
        tuple(kappa_bounds),
        first.kappa_prior,
        shape,
        names,
        warn,
    )
    return EmpiricalBayesFit(
        **arrays, mu_prior=first.mu_prior, kappa_prior=first.kappa_prior, notes=notes
    )


def fit_empirical_bayes(
    correct,
    count,
    *,
    kappa=None,
    mu_prior: tuple[float, float] | None = DEFAULT_MU_PRIOR,
    kappa_prior: tuple[float, float] = DEFAULT_KAPPA_PRIOR,
    kappa_bounds: tuple[float, float] = KAPPA_BOUNDS,
    max_iter: int = 100,
    tol: float = 1e-9,
    warn: bool = True,
    names=None,
) -> EmpiricalBayesFit:
    """Posterior of (mu, kappa) per model, kappa integrated numerically over a grid.

    Priors: ``mu ~ Beta(*mu_prior)`` and ``log kappa ~ Normal(log median, log_sd)`` (the
    PyMC layer's defaults). The posterior of log kappa is tabulated on a grid, with the
    conditional posterior of logit mu at each node a normal at its mode; all models are
    computed at once on the table of distinct (c, K) cells.

    Parameters
    ----------
    correct, count : array_like, shape (..., N)
        Correct samples and samples per question; ``count == 0`` = not answered (masked).
        K may differ between questions.
    kappa : float or array_like, optional
        Assume this kappa (e.g. 1 for the paper's Beta(p, 1-p) theory); status ``"assumed"``.
    mu_prior : (a0, b0) or None, default (1, 1)
        Beta prior on mu. ``None`` is flat in logit mu (then all-correct or all-wrong models
        raise: their mu would be 0 or 1).
    kappa_prior : (median, log_sd), default (1, 1.5)
        LogNormal prior on kappa.
    kappa_bounds : (low, high), default (1e-6, 1e4)
        Support of the grid over kappa: it starts at 1e-2 and reaches down to ``low`` (the
        floor) only where the likelihood or posterior of kappa is still high at 1e-2;
        ``"at lower bound"`` means the likelihood is still rising at ``low``.
    max_iter, tol : int, float
        root-finding settings (scipy.optimize.elementwise) of the conditional modes of logit mu.
    warn : bool, default True
        Issue one ``UserWarning`` per situation where kappa was not estimated.
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
    prior = (0.0, 0.0) if mu_prior is None else (float(mu_prior[0]), float(mu_prior[1]))
    if prior[0] < 0 or prior[1] < 0:
        raise ValueError("mu_prior must be (a0, b0) with a0, b0 >= 0")
    kp = (float(kappa_prior[0]), float(kappa_prior[1]))
    if not (kp[0] > 0 and kp[1] > 0 and np.isfinite(kp).all()):
        raise ValueError("kappa_prior must be (median, log_sd) with both > 0")
    shape = c.shape[:-1]
    n_models = int(np.prod(shape)) if shape else 1
    cu, ku, w = model_cells(
        c.reshape(n_models, -1), k.reshape(n_models, -1), k.reshape(n_models, -1) > 0
    )
    n_q = w.sum(axis=1)
    succ = (w * cu).sum(axis=1)  # cells per model: (M, U)
    samp = (w * ku).sum(axis=1)
    extreme = (succ == 0) | (succ == samp)
    if mu_prior is None and np.any(extreme):
        raise ValueError(
            "a model is all-correct or all-wrong: the maximum-likelihood mu is 0 or 1; "
            "use the default mu_prior=(1, 1)"
        )
    fixed = None
    if kappa is not None:
        fixed = np.broadcast_to(np.asarray(kappa, dtype=float), shape).reshape(n_models)
        if np.any(~(fixed > 0)) or not np.all(np.isfinite(fixed)):
            raise ValueError("kappa must be finite and > 0")
        fixed = np.log(fixed)
    eta0 = special.logit(np.clip((succ + 0.5) / (samp + 1.0), 1e-9, 1 - 1e-9))
    grid = kappa_grid(
        cu,
        ku,
        w,
        eta0,
        mu_prior=prior,
        kappa_prior=kp,
        kappa_bounds=(lo, hi),
        fixed_lam=fixed,
        max_iter=max_iter,
        tol=tol,
    )
    k1 = (w * (ku >= 2)).sum(axis=1) == 0
    status = _status(k1, (n_q < 2) & ~k1, grid.edge, kappa is not None)
    args = (grid.eta, grid.eta_sd, grid.weight)
    mu = special.expit(normal_mixture_quantile(*args, 0.5))
    if fixed is None:
        kap = np.exp(weighted_quantile(grid.lam, grid.weight, 0.5))
    else:
        kap = np.exp(fixed)
    kap_mean = (grid.weight * np.exp(grid.lam)).sum(axis=1)
    kap_sd = np.sqrt(np.maximum((grid.weight * np.exp(2 * grid.lam)).sum(axis=1) - kap_mean**2, 0))
    kappa_se = np.where(status == "estimated", kap_sd, np.nan)
    notes = _notes(status, succ, samp, grid.converged, (lo, hi), kp, shape, names, warn, max_iter)

    def rs(x):
        return np.asarray(x).reshape(shape + np.shape(x)[1:])

    out = EmpiricalBayesFit(
        mu=rs(mu),
        kappa=rs(kap),
        mu_se=rs(np.zeros(n_models)),
        kappa_se=rs(kappa_se),
        kappa_status=rs(status.astype(str)),
        loglik=rs(grid.evidence),
        n_questions=rs(n_q),
        n_samples=rs(samp),
        successes=rs(succ),
        converged=rs(grid.converged),
        grid_lam=rs(grid.lam),
        grid_eta=rs(grid.eta),
        grid_eta_sd=rs(grid.eta_sd),
        grid_weight=rs(grid.weight),
        mu_prior=None if mu_prior is None else prior,
        kappa_prior=kp,
        notes=notes,
    )
    mu_q, _, wt = hyper_quadrature(out, order=7)
    mean = (wt * mu_q).sum(-1)
    object.__setattr__(out, "mu_se", np.sqrt(np.maximum((wt * mu_q**2).sum(-1) - mean**2, 0)))
    return out
