"""Posteriors for *these* questions (ubar, V_pred, V_x) and for the question population (mu).

Three quantities are kept apart by name:

``ubar``
    mean_i u_i, the expected accuracy on *these* N questions (prediction noise only).
``mu``
    the accuracy on the population of questions (data + prediction noise).
fresh-run score
    what a new run would report (:mod:`bayesnoise.conjugate.predictive`).

Means and variances are exact Beta moments given (mu, kappa), integrated over the posterior of
(mu, kappa) by quadrature (the kappa grid times Gauss-Hermite in logit mu); intervals are exact
Monte Carlo from the independent Beta posteriors with (mu, kappa) drawn from their posterior.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bayesnoise._common import check_confidence_level, tail_probabilities, z_from_level
from bayesnoise.data import check_counts

from .beta import FiniteSampleMoments, posterior_parameters, weighted_moments
from .empirical_bayes import EmpiricalBayesFit, fit_empirical_bayes
from .hyper import hyper_draws, hyper_quadrature, mixture_moments
from .likelihood import model_cells
from .ubar import ubar_draws

__all__ = [
    "FiniteSamplePosterior",
    "PopulationPosterior",
    "finite_sample_posterior",
    "integrated_moments",
    "population_posterior",
    "population_variances",
]

_NAMES = ("ubar", "v_pred", "v_x")


def _integrated_moments(c, k, mask, fit, *, integrate_hyper=True, order=5):
    """:func:`integrated_moments` on validated counts."""
    shape = c.shape[:-1]
    if integrate_hyper:
        mu_q, kap_q, wt = hyper_quadrature(fit, order)
    else:
        mu_q, kap_q = fit.mu[..., None], fit.kappa[..., None]
        wt = np.ones((*shape, 1))
    # moments only depend on the distinct (c, K) cells: work on (models, nodes, cells)
    n_models, n_nodes = int(np.prod(shape)) if shape else 1, wt.shape[-1]
    flat = (x.reshape(n_models, -1) for x in (c, k, mask))
    cu, ku, w = (x[:, None, :] for x in model_cells(*flat))
    mu_q = np.broadcast_to(mu_q, (*shape, n_nodes)).reshape(n_models, n_nodes, 1)
    kap_q = np.broadcast_to(kap_q, (*shape, n_nodes)).reshape(n_models, n_nodes, 1)
    wt = np.broadcast_to(wt, (*shape, n_nodes)).reshape(n_models, n_nodes)
    mom = weighted_moments(*posterior_parameters(mu_q, kap_q, cu, ku), w)
    out = {"n_questions": mask.sum(axis=-1).astype(float)}
    for name in _NAMES:
        mean = getattr(mom, f"{name}_mean")
        m, v = mixture_moments(mean, getattr(mom, f"{name}_var"), wt)
        out[f"{name}_mean"], out[f"{name}_var"] = m.reshape(shape), v.reshape(shape)
    return FiniteSampleMoments(**out)


def integrated_moments(
    correct, count, fit: EmpiricalBayesFit | None = None, *, integrate_hyper=True, order=5
) -> FiniteSampleMoments:
    """Exact posterior moments of ubar, V_pred and V_x with (mu, kappa) integrated out.

    The moments given (mu, kappa) are exact (:func:`finite_sample_moments` of the
    per-question posteriors); they are mixed over the posterior of (mu, kappa) (kappa grid
    times Gauss-Hermite in logit mu, law of total variance).

    Parameters
    ----------
    correct, count : array_like, shape (..., N)
        Correct samples and samples per question (``count == 0``: not answered, left out).
    fit : EmpiricalBayesFit, optional
        Hyperparameters; fitted with :func:`fit_empirical_bayes` when omitted.
    integrate_hyper : bool, default True
        Integrate over the posterior of (mu, kappa); False plugs in the point estimate.
    order : int, default 5
        Gauss-Hermite nodes in logit mu per kappa node.

    Returns
    -------
    FiniteSampleMoments
        Arrays of shape ``(...)``.

    Examples
    --------
    >>> import numpy as np
    >>> c, k = np.array([[3, 5, 0, 4, 2]]), np.full((1, 5), 5)
    >>> mom = integrated_moments(c, k)
    >>> round(float(mom.ubar_mean[0]), 3), float(mom.n_questions[0])
    (0.555, 5.0)
    """
    c, k = check_counts(correct, count, require_answered=True)
    if fit is None:
        fit = fit_empirical_bayes(c, k)
    return _integrated_moments(c, k, k > 0, fit, integrate_hyper=integrate_hyper, order=order)


def _finite_sample_draws(c, k, mask, fit, n_resamples, rng, integrate_hyper=True, chunk=2_000_000):
    """Monte Carlo draws of (ubar, V_pred, V_x), shape (3, ..., draws)."""
    shape = c.shape[:-1]
    n_models = int(np.prod(shape)) if shape else 1
    n_q = c.shape[-1]
    cf, kf, mf = c.reshape(n_models, n_q), k.reshape(n_models, n_q), mask.reshape(n_models, n_q)
    if integrate_hyper:
        mu_d, kap_d = hyper_draws(fit, n_resamples, rng)
    else:
        mu_d = np.broadcast_to(fit.mu[..., None], (*shape, n_resamples))
        kap_d = np.broadcast_to(fit.kappa[..., None], (*shape, n_resamples))
    mu_d, kap_d = mu_d.reshape(n_models, n_resamples), kap_d.reshape(n_models, n_resamples)
    out = np.empty((3, n_models, n_resamples))
    step = max(1, chunk // max(n_q, 1))
    for m in range(n_models):
        sel = mf[m]
        cm, km = cf[m, sel], kf[m, sel]
        for s0 in range(0, n_resamples, step):
            s1 = min(n_resamples, s0 + step)
            a, b = posterior_parameters(mu_d[m, s0:s1, None], kap_d[m, s0:s1, None], cm, km)
            u = rng.beta(a, b)
            out[0, m, s0:s1] = u.mean(axis=-1)
            out[1, m, s0:s1] = (u * (1.0 - u)).mean(axis=-1)
            out[2, m, s0:s1] = u.var(axis=-1)
    return out.reshape((3, *shape, n_resamples))


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
    two). Means and sds are exact Beta moments integrated over the posterior of (mu, kappa);
    intervals are Monte Carlo from the independent Beta posteriors with (mu, kappa) drawn
    from their posterior.
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


def finite_sample_posterior(
    correct,
    count,
    fit: EmpiricalBayesFit | None = None,
    *,
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    rng=0,
    integrate_hyper: bool = True,
    keep_draws: bool = False,
    intervals: tuple[str, ...] = _NAMES,
) -> FiniteSamplePosterior:
    """Posterior of ubar (expected accuracy on these questions), V_pred and V_x per model.

    Parameters
    ----------
    correct, count : array_like, shape (..., N)
        Correct samples and samples per question (``count == 0``: not answered).
    fit : EmpiricalBayesFit, optional
        Hyperparameters; fitted with :func:`fit_empirical_bayes` when omitted.
    confidence_level : float, default 0.95
    n_resamples : int, default 2000
        Monte Carlo draws for the intervals (``0`` skips them: ``*_low``/``*_high`` are then
        the normal approximation mean -/+ z sd and ``*_mcse`` is 0).
    rng : int or numpy.random.Generator, default 0
    integrate_hyper : bool, default True
        Carry the posterior uncertainty of (mu, kappa) (recommended: plugging in the point
        estimate makes ubar intervals too narrow, by a factor sqrt(K / (K + kappa)) in
        variance). Where kappa is not identified (K = 1) it is integrated over its prior;
        where it was assumed only mu's uncertainty is carried.
    keep_draws : bool, default False
        Keep the ubar draws (``ubar_draws``), e.g. to form pair differences.
    intervals : tuple of str, default ("ubar", "v_pred", "v_x")
        Quantities whose intervals are drawn; the others get mean -/+ z sd. ubar draws cost
        O(M draws) (:func:`bayesnoise.conjugate.ubar.ubar_draws`: exact (mu, kappa), ubar
        given them from its exact first four cumulants); V_pred and V_x draws are one Beta
        per question and draw, O(M N draws).

    Returns
    -------
    FiniteSamplePosterior

    Examples
    --------
    >>> import numpy as np
    >>> c, k = np.array([[3, 5, 0, 4, 2]]), np.full((1, 5), 5)
    >>> post = finite_sample_posterior(c, k, n_resamples=500)
    >>> bool(post.ubar_low[0] < post.ubar_mean[0] < post.ubar_high[0])
    True
    """
    level = check_confidence_level(confidence_level)
    c, k = check_counts(correct, count, require_answered=True)
    mask = k > 0
    if fit is None:
        fit = fit_empirical_bayes(c, k)
    mom = _integrated_moments(c, k, mask, fit, integrate_hyper=integrate_hyper)
    gen = np.random.default_rng(rng)
    sds = {name: np.sqrt(getattr(mom, f"{name}_var")) for name in _NAMES}
    kw = {}
    dr = {}
    if n_resamples:
        flat = (x.reshape(-1, c.shape[-1]) for x in (c, k, mask))
        dr["ubar"] = ubar_draws(*flat, fit, int(n_resamples), gen, integrate_hyper=integrate_hyper)
        dr["ubar"] = dr["ubar"].reshape((*c.shape[:-1], int(n_resamples)))
        if {"v_pred", "v_x"} & set(intervals):
            both = _finite_sample_draws(c, k, mask, fit, int(n_resamples), gen, integrate_hyper)
            dr["v_pred"], dr["v_x"] = both[1], both[2]
    udraws = dr.get("ubar")
    z = z_from_level(level)
    for name in _NAMES:
        m, sd = getattr(mom, f"{name}_mean"), sds[name]
        if name in intervals and name in dr:
            (lo, hi), (se_lo, se_hi) = _quantile_with_mcse(dr[name], tail_probabilities(level))
            se = np.maximum(se_lo, se_hi)
        else:
            lo, hi, se = m - z * sd, m + z * sd, np.zeros_like(m)
        kw.update(
            {
                f"{name}_mean": m,
                f"{name}_sd": sd,
                f"{name}_low": lo,
                f"{name}_high": hi,
                f"{name}_mcse": se,
            }
        )
    return FiniteSamplePosterior(
        **kw,
        confidence_level=level,
        draws=int(n_resamples),
        kappa_status=fit.kappa_status,
        ubar_draws=udraws if keep_draws else None,
    )


@dataclass(frozen=True)
class PopulationPosterior:
    """Population quantities of the question distribution (see :func:`population_posterior`).

    ``mu`` (population accuracy), ``data_var = mu (1 - mu) / (kappa + 1)`` and
    ``prediction_var = mu (1 - mu) kappa / (kappa + 1)``: point values at the posterior
    medians of (mu, kappa), and ``*_low``/``*_high`` credible intervals over the posterior of
    (mu, kappa) (Monte Carlo for the variances). Where kappa is not identified
    (``kappa_status``) the variance intervals follow its prior.
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


def population_variances(mu, kappa):
    """Data and prediction variance of the question population, ``Var[u]`` and ``E[u (1 - u)]``.

    Parameters
    ----------
    mu, kappa : array_like
        Population accuracy and concentration.

    Returns
    -------
    data_var, prediction_var : numpy.ndarray
        ``mu (1 - mu) / (kappa + 1)`` and ``mu (1 - mu) kappa / (kappa + 1)`` (they add up to
        ``mu (1 - mu)``).

    Examples
    --------
    >>> population_variances(0.5, 1.0)
    (0.125, 0.125)
    """
    return mu * (1 - mu) / (kappa + 1.0), mu * (1 - mu) * kappa / (kappa + 1.0)


def population_posterior(
    fit: EmpiricalBayesFit, *, confidence_level: float = 0.95, n_resamples: int = 4000, rng=0
) -> PopulationPosterior:
    """Population accuracy mu, data and prediction variance with intervals, under the Beta.

    These are the Beta-Binomial model's parameters: mu is the population accuracy only when the
    question difficulties are Beta-shaped. :func:`bayesnoise.conjugate.population_accuracy`
    gives the population accuracy whatever their shape (the ``mu`` column of
    :func:`bayesnoise.conjugate.posterior_table`).

    Parameters
    ----------
    fit : EmpiricalBayesFit
    confidence_level : float, default 0.95
    n_resamples : int, default 4000
        Posterior draws of (mu, kappa) for the variance intervals.
    rng : int or numpy.random.Generator, default 0

    Returns
    -------
    PopulationPosterior

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.conjugate import fit_empirical_bayes
    >>> fit = fit_empirical_bayes(np.array([3, 4, 1, 5, 0, 5]), np.full(6, 5), warn=False)
    >>> pop = population_posterior(fit)
    >>> bool(pop.mu_low < pop.mu < pop.mu_high)
    True
    """
    level = check_confidence_level(confidence_level)
    gen = np.random.default_rng(rng)
    mu_low, mu_high = fit.mu_interval(level)
    k_low, k_high = fit.kappa_interval(level)
    dv, pv = population_variances(*hyper_draws(fit, int(n_resamples), gen))
    q = tail_probabilities(level)
    dlo, dhi = np.quantile(dv, q, axis=-1)
    plo, phi = np.quantile(pv, q, axis=-1)
    data_var, prediction_var = population_variances(fit.mu, fit.kappa)
    return PopulationPosterior(
        mu=fit.mu,
        mu_low=mu_low,
        mu_high=mu_high,
        data_var=data_var,
        data_var_low=dlo,
        data_var_high=dhi,
        prediction_var=prediction_var,
        prediction_var_low=plo,
        prediction_var_high=phi,
        kappa=fit.kappa,
        kappa_low=k_low,
        kappa_high=k_high,
        kappa_status=fit.kappa_status,
        confidence_level=level,
    )
