"""The score a fresh run would report: posterior predictive of the mean of c'/K'."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bayesnoise._common import check_confidence_level, tail_probabilities
from bayesnoise.data import check_counts

from .beta import posterior_parameters
from .empirical_bayes import EmpiricalBayesFit, fit_empirical_bayes
from .hyper import hyper_draws, hyper_quadrature, mixture_moments
from .posterior import _integrated_moments, population_variances

__all__ = ["FreshRunPredictive", "fresh_run_predictive"]


@dataclass(frozen=True)
class FreshRunPredictive:
    """Posterior predictive of the score (mean of c'/K') a fresh run would report.

    Attributes
    ----------
    mean, sd : numpy.ndarray
        Exact predictive mean and standard deviation.
    low, high : numpy.ndarray
        Monte Carlo predictive interval at ``confidence_level``.
    samples : int
        Samples per question of the fresh run.
    n_questions : int or None
        Fresh questions drawn from the population; None for the same questions.
    confidence_level : float
    """

    mean: np.ndarray
    sd: np.ndarray
    low: np.ndarray
    high: np.ndarray
    samples: int
    n_questions: int | None
    confidence_level: float


def _same_questions(c, k, mask, fit, samples, draws, rng):
    """Exact mean/variance and draws of the fresh score on the answered questions."""
    mom = _integrated_moments(c, k, mask, fit)
    var = mom.ubar_var + mom.v_pred_mean / (mask.sum(axis=-1) * samples)
    mu_d, kap_d = hyper_draws(fit, draws, rng)
    shape = c.shape[:-1]
    sims = np.empty((*shape, draws))
    for idx in np.ndindex(shape):
        sel = mask[idx]
        a, b = posterior_parameters(
            mu_d[idx][:, None], kap_d[idx][:, None], c[idx][sel], k[idx][sel]
        )
        u = rng.beta(a, b)
        sims[idx] = rng.binomial(samples, u).mean(axis=-1) / samples
    return mom.ubar_mean, var, sims


def _fresh_questions(fit, samples, n_new, draws, rng):
    """Exact mean/variance and draws of the fresh score on ``n_new`` new questions."""
    mu_q, kap_q, wt = hyper_quadrature(fit)
    dv, pv = population_variances(mu_q, kap_q)
    mean, var = mixture_moments(mu_q, dv / n_new + pv / (n_new * samples), wt)
    mu_d, kap_d = hyper_draws(fit, draws, rng)
    ones = np.ones(n_new)
    u = rng.beta((mu_d * kap_d)[..., None] * ones, ((1 - mu_d) * kap_d)[..., None] * ones)
    return mean, var, rng.binomial(samples, u).mean(axis=-1) / samples


def fresh_run_predictive(
    correct,
    count,
    fit: EmpiricalBayesFit | None = None,
    *,
    samples: int = 1,
    n_questions: int | None = None,
    confidence_level: float = 0.95,
    draws: int = 4000,
    random_seed=0,
) -> FreshRunPredictive:
    """Predictive distribution of a fresh run's reported score.

    The fresh run draws ``samples = K'`` samples per question and reports the mean of c'/K'.
    With ``n_questions=None`` it runs on the same (answered) questions: the spread is
    Var(ubar) + E[V_pred] / (N K'). With ``n_questions = N'`` it runs on N' fresh questions
    from the population: Var(mu) + E[mu(1-mu)/(kappa+1)] / N' + E[mu(1-mu) kappa/(kappa+1)] /
    (N' K').

    Parameters
    ----------
    correct, count : array_like, shape (..., N)
        Correct samples and samples per question (``count == 0``: not answered).
    fit : EmpiricalBayesFit, optional
        Hyperparameters; fitted with :func:`fit_empirical_bayes` when omitted.
    samples : int, default 1
        Samples per question of the fresh run.
    n_questions : int, optional
        Number of fresh questions; default: the same questions.
    confidence_level : float, default 0.95
    draws : int, default 4000
    random_seed : int or numpy.random.Generator, default 0

    Returns
    -------
    FreshRunPredictive
        ``mean``/``sd`` exact (quadrature over the posterior of (mu, kappa)); ``low``/``high``
        Monte Carlo predictive interval.

    Examples
    --------
    >>> import numpy as np
    >>> c, k = np.array([3, 5, 0, 4, 2, 1]), np.full(6, 5)
    >>> same = fresh_run_predictive(c, k, samples=1)
    >>> fresh = fresh_run_predictive(c, k, samples=1, n_questions=6)
    >>> bool(fresh.sd > same.sd)
    True
    """
    level = check_confidence_level(confidence_level)
    kp = int(samples)
    if kp < 1:
        raise ValueError("samples must be >= 1")
    c, k = check_counts(correct, count, require_answered=True)
    if fit is None:
        fit = fit_empirical_bayes(c, k)
    rng = np.random.default_rng(random_seed)
    if n_questions is None:
        mean, var, sims = _same_questions(c, k, k > 0, fit, kp, draws, rng)
    else:
        n_new = int(n_questions)
        if n_new < 1:
            raise ValueError("n_questions must be >= 1")
        mean, var, sims = _fresh_questions(fit, kp, n_new, draws, rng)
    lo, hi = np.quantile(sims, tail_probabilities(level), axis=-1)
    return FreshRunPredictive(
        mean=mean,
        sd=np.sqrt(var),
        low=lo,
        high=hi,
        samples=kp,
        n_questions=None if n_questions is None else int(n_questions),
        confidence_level=level,
    )
