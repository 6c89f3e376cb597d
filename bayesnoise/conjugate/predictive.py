"""The score a fresh run would report: posterior predictive of the mean of c'/K'."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bayesnoise._common import check_confidence_level, tail_probabilities
from bayesnoise.data import check_counts

from .beta import posterior_parameters
from .dirichlet import PRIOR_MASS, dirichlet_weights
from .empirical_bayes import EmpiricalBayesFit, fit_empirical_bayes
from .hyper import hyper_draws
from .k1 import binomial_ubar, bound_models
from .posterior import _integrated_moments

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


def _same_questions(c, k, mask, fit, samples, n_resamples, rng, skip=None):
    """Exact mean/variance and draws of the fresh score on the answered questions (rows in
    ``skip`` are left for the caller: their draws are not made)."""
    mom = _integrated_moments(c, k, mask, fit)
    var = mom.ubar_var + mom.v_pred_mean / (mask.sum(axis=-1) * samples)
    mu_d, kap_d = hyper_draws(fit, n_resamples, rng)
    shape = c.shape[:-1]
    sims = np.empty((*shape, n_resamples))
    for idx in np.ndindex(shape):
        if skip is not None and skip[idx]:
            continue
        sel = mask[idx]
        a, b = posterior_parameters(
            mu_d[idx][:, None], kap_d[idx][:, None], c[idx][sel], k[idx][sel]
        )
        u = rng.beta(a, b)
        sims[idx] = rng.binomial(samples, u).mean(axis=-1) / samples
    return mom.ubar_mean, var, sims


def _same_questions_bound(c, k, samples, confidence_level, n_resamples, rng):
    """Fresh score on the same questions at K = 1 without kappa, for rows (R, N).

    ubar ~ Beta(c + 1/2, N - c + 1/2) (the binomial bound of :func:`.k1.binomial_ubar`) and,
    given ubar, the fresh score ~ Binomial(N K', ubar) / (N K'): Var(score | u) =
    sum_i u_i (1 - u_i) / (N^2 K') <= ubar (1 - ubar) / (N K') whatever the spread of the u_i.
    """
    n = (k > 0).sum(axis=-1)
    post = binomial_ubar(c.sum(axis=-1), n, confidence_level, n_resamples, rng)
    mean, var_u = post["cumulants"][:2]
    within = (mean - (var_u + mean * mean)) / (n * samples)  # E[ubar (1 - ubar)] / (N K')
    trials = (n * samples).astype(np.int64)[:, None]
    sims = rng.binomial(trials, post["draws"]) / trials
    return mean, var_u + within, sims


def _fresh_questions(c, k, mask, fit, samples, n_new, n_resamples, rng, prior_mass=PRIOR_MASS):
    """Mean/variance and draws of the fresh score on ``n_new`` new questions.

    New questions are drawn from the Dirichlet-process posterior of the question population
    (:func:`bayesnoise.conjugate.population_accuracy`): weights ``w ~ Dirichlet(1, ..., 1,
    a / 2, a / 2)`` over the answered questions and the ends p = 0, 1, and question j is
    drawn with probability w_j. Where every answered question had ``samples`` samples its
    observed score p_j is a draw of the new score (exact, model-free); otherwise c' ~
    Binomial(K', u_j) with u_j from the question's conjugate posterior given (mu, kappa).
    """
    shape = c.shape[:-1]
    mean, var = np.empty(shape), np.empty(shape)
    sims = np.empty((*shape, n_resamples))
    mu_d, kap_d = hyper_draws(fit, n_resamples, rng)
    bound = bound_models(k, fit, mask)
    for idx in np.ndindex(shape):
        sel = mask[idx]
        ci, ki = c[idx][sel], k[idx][sel]
        p = np.r_[ci / ki, 0.0, 1.0]
        wts, ends = dirichlet_weights(rng, n_resamples, ci.size, prior_mass)
        w = np.concatenate([wts, ends], axis=1)
        w /= w.sum(axis=1, keepdims=True)
        picks = rng.multinomial(n_new, w)  # (draws, n + 2) new questions per atom
        # resample the observed scores where they are draws of the new score (K' = K), and at
        # K = 1 without an assumed kappa for any K': a new question's score then varies at most
        # as a 0/1 score does (Var(u) + E[u (1 - u)] / K' <= mu (1 - mu)), the kappa-free bound
        if np.all(ki == samples) or (bound[idx] and np.all(ki == 1)):
            sims[idx] = picks @ p / n_new
            t = ci.size + prior_mass
            raw = [(p[:-2] ** r).sum() + prior_mass / 2.0 for r in (1, 2)]
            m, vm = raw[0] / t, ((raw[1] / t) - (raw[0] / t) ** 2) / (t + 1.0)
            mean[idx], var[idx] = m, vm + (raw[1] / t - vm - m * m) / n_new
            continue
        a, b = posterior_parameters(mu_d[idx][:, None], kap_d[idx][:, None], ci, ki)
        u = np.concatenate(
            [rng.beta(a, b), np.zeros((n_resamples, 1)), np.ones((n_resamples, 1))], axis=1
        )
        sims[idx] = rng.binomial(picks * samples, u).sum(axis=1) / (n_new * samples)
        mean[idx], var[idx] = sims[idx].mean(), sims[idx].var()
    return mean, var, sims


def fresh_run_predictive(
    correct,
    count,
    fit: EmpiricalBayesFit | None = None,
    *,
    samples: int = 1,
    n_questions: int | None = None,
    confidence_level: float = 0.95,
    n_resamples: int = 4000,
    rng=0,
) -> FreshRunPredictive:
    """Predictive distribution of a fresh run's reported score.

    The fresh run draws ``samples = K'`` samples per question and reports the mean of c'/K'.
    With ``n_questions=None`` it runs on the same (answered) questions: the spread is
    Var(ubar) + E[V_pred] / (N K'). Where every question has K = 1 (and kappa is not assumed)
    the spread of the questions is not identified and the kappa-free bound is used, as for
    ``ubar`` (:mod:`bayesnoise.conjugate.k1`): ubar ~ Beta(c + 1/2, N - c + 1/2) and the
    fresh score ~ Binomial(N K', ubar) / (N K'), conservative for any spread; for fresh
    questions at K = 1 the observed 0/1 scores are resampled for any K' (a new question's
    score varies at most as a 0/1 score does). With ``n_questions = N'`` it runs on N' fresh questions
    drawn from the Dirichlet-process posterior of the question population (the posterior of
    :func:`bayesnoise.conjugate.population_accuracy`, which does not depend on the shape of
    the question difficulties): when K' equals the observed K of every question the observed
    per-question scores are resampled (mean and sd exact: Var(population accuracy) +
    E[variance of the per-question score] / N'); otherwise each drawn question's new score is
    Binomial(K', u) with u from its conjugate posterior (mean and sd from the draws).

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
    n_resamples : int, default 4000
    rng : int or numpy.random.Generator, default 0

    Returns
    -------
    FreshRunPredictive
        ``mean``/``sd`` (see above); ``low``/``high`` Monte Carlo predictive interval.

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
    gen = np.random.default_rng(rng)
    if n_questions is None:
        bound = bound_models(k, fit)
        mean, var, sims = _same_questions(c, k, k > 0, fit, kp, n_resamples, gen, skip=bound)
        if np.any(bound):  # K = 1: the kappa-free bound, as for ubar
            n = c.shape[-1]
            rows = bound.reshape(-1)
            mean, var = np.array(mean, float).reshape(-1), np.array(var, float).reshape(-1)
            sims = sims.reshape(-1, sims.shape[-1])
            got = _same_questions_bound(
                c.reshape(-1, n)[rows], k.reshape(-1, n)[rows], kp, level, n_resamples, gen
            )
            mean[rows], var[rows], sims[rows] = got
            mean, var = mean.reshape(bound.shape), var.reshape(bound.shape)
            sims = sims.reshape(*bound.shape, -1)
    else:
        n_new = int(n_questions)
        if n_new < 1:
            raise ValueError("n_questions must be >= 1")
        mean, var, sims = _fresh_questions(c, k, k > 0, fit, kp, n_new, n_resamples, gen)
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
