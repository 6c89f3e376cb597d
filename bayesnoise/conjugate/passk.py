"""Bayesian pass@k under the Beta-Binomial hierarchy, in closed form.

pass@k of a question with accuracy u is 1 - (1 - u)^k, the chance that k fresh samples hold at
least one right answer. Under a Beta(a, b) for u::

    E[1 - (1 - u)^k] = 1 - B(a, b + k) / B(a, b) = 1 - prod_{j<k} (b + j) / (a + b + j)
    Var[(1 - u)^k]   = B(a, b + 2k) / B(a, b) - (B(a, b + k) / B(a, b))^2

(:func:`beta_pass_at_k`). Two quantities, kept apart like ``ubar`` and ``mu``:

- *these questions*: mean_i of pass@k_i with each question's posterior
  Beta(mu kappa + c_i, (1 - mu) kappa + K_i - c_i);
- *the population* of questions: 1 - B(mu kappa, (1 - mu) kappa + k) / B(mu kappa, (1 - mu) kappa).

Both are integrated over the posterior of (mu, kappa) exactly as the accuracy is
(:func:`bayesnoise.conjugate.integrated_moments` and :func:`population_posterior`): moments by
quadrature over the kappa grid times Gauss-Hermite in logit mu; the population interval from
draws of (mu, kappa); the these-questions interval from the normal mixture over the quadrature
nodes (given (mu, kappa) the mean of N independent bounded terms is close to normal). Unlike the
unbiased frequentist estimator, k may exceed the samples per question: beyond them the answer
leans on the Beta shape of the question accuracies.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from bayesnoise._common import check_confidence_level, tail_probabilities
from bayesnoise.data import beta_binomial_counts, check_counts

from .beta import posterior_parameters
from .empirical_bayes import EmpiricalBayesFit, fit_empirical_bayes
from .hyper import hyper_draws, hyper_quadrature, mixture_moments, normal_mixture_quantile
from .likelihood import group_cells
from .posterior import _quantile_with_mcse

__all__ = [
    "PassAtKPosterior",
    "beta_pass_at_k",
    "pass_at_k_posterior",
    "posterior_passk_table",
]


def _check_k(k) -> int:
    if isinstance(k, bool) or int(k) != k or k < 1:
        raise ValueError(f"k must be a whole number >= 1, got {k!r}")
    return int(k)


def _none_right(a, b, k: int):
    """B(a, b + k) / B(a, b) = E[(1 - u)^k] as a product of k ratios (log-sum, no overflow)."""
    total = a + b
    log_ratio = np.zeros(np.broadcast(a, b).shape)
    for j in range(k):
        log_ratio += np.log1p(-a / (total + j))
    return np.exp(log_ratio)


def beta_pass_at_k(alpha, beta, k, *, variance: bool = False):
    """Mean (and variance) of pass@k = 1 - (1 - u)^k for u ~ Beta(alpha, beta), elementwise.

    Parameters
    ----------
    alpha, beta : array_like
        Positive Beta parameters (broadcast together).
    k : int
        Fresh samples per attempt, >= 1 (any size: no samples are needed to be observed).
    variance : bool, default False
        Also return Var[1 - (1 - u)^k] = B(a, b + 2k) / B(a, b) - (B(a, b + k) / B(a, b))^2.

    Returns
    -------
    mean : numpy.ndarray
        ``1 - B(alpha, beta + k) / B(alpha, beta)``; with k = 1 the Beta mean alpha / (alpha +
        beta).
    var : numpy.ndarray
        Only with ``variance=True``.

    Examples
    --------
    Uniform u: E[1 - (1 - u)^k] = k / (k + 1).

    >>> round(float(beta_pass_at_k(1.0, 1.0, 3)), 12)
    0.75
    """
    k = _check_k(k)
    a = np.asarray(alpha, dtype=float)
    b = np.asarray(beta, dtype=float)
    r_k = _none_right(a, b, k)
    if not variance:
        return 1.0 - r_k
    # B(a, b + 2k) / B(a, b) = [B(a, b + k) / B(a, b)] [B(a, b + 2k) / B(a, b + k)]
    r_2k = r_k * _none_right(a, b + k, k)
    return 1.0 - r_k, np.maximum(r_2k - r_k * r_k, 0.0)


@dataclass(frozen=True)
class PassAtKPosterior:
    """Posterior of pass@k per model (arrays over the leading model axes).

    ``here_*``: the mean pass@k on *these* questions (mean, sd, equal-tailed interval);
    ``population_*``: pass@k of the question population (mean, sd, interval and the Monte Carlo
    SE of the interval ends). ``k``, ``confidence_level``, ``draws`` and the fit's
    ``kappa_status`` are kept.
    """

    k: int
    here_mean: np.ndarray
    here_sd: np.ndarray
    here_low: np.ndarray
    here_high: np.ndarray
    population_mean: np.ndarray
    population_sd: np.ndarray
    population_low: np.ndarray
    population_high: np.ndarray
    population_mcse: np.ndarray
    kappa_status: np.ndarray
    confidence_level: float
    draws: int


def pass_at_k_posterior(
    correct,
    count,
    k,
    fit: EmpiricalBayesFit | None = None,
    *,
    confidence_level: float = 0.95,
    n_resamples: int = 4000,
    rng=0,
    order: int = 5,
) -> PassAtKPosterior:
    """Posterior of pass@k on these questions and in the question population, per model.

    Parameters
    ----------
    correct, count : array_like, shape (..., N)
        Correct samples and samples per question (``count == 0``: not answered, left out).
    k : int
        Fresh samples per attempt (>= 1; may exceed the samples observed).
    fit : EmpiricalBayesFit, optional
        Posterior of (mu, kappa); fitted with :func:`fit_empirical_bayes` when omitted.
    confidence_level : float, default 0.95
    n_resamples : int, default 4000
        Draws of (mu, kappa) for the population interval.
    rng : int or numpy.random.Generator, default 0
    order : int, default 5
        Gauss-Hermite nodes in logit mu per kappa node (as :func:`integrated_moments`).

    Returns
    -------
    PassAtKPosterior

    Examples
    --------
    >>> import numpy as np
    >>> c, n = np.array([[3, 5, 0, 4, 2, 1]]), np.full((1, 6), 5)
    >>> post = pass_at_k_posterior(c, n, 1)
    >>> from bayesnoise.conjugate import integrated_moments
    >>> bool(abs(post.here_mean[0] - integrated_moments(c, n).ubar_mean[0]) < 1e-12)
    True
    """
    k = _check_k(k)
    level = check_confidence_level(confidence_level)
    c, n = check_counts(correct, count, require_answered=True)
    if fit is None:
        fit = fit_empirical_bayes(c, n)
    shape = c.shape[:-1]
    mu_q, kap_q, wt = hyper_quadrature(fit, order)
    cu, ku, w = group_cells(c, n, n > 0)
    n_models, n_nodes = w.shape[0], wt.shape[-1]
    mu_q = np.broadcast_to(mu_q, (*shape, n_nodes)).reshape(n_models, n_nodes, 1)
    kap_q = np.broadcast_to(kap_q, (*shape, n_nodes)).reshape(n_models, n_nodes, 1)
    wt = np.broadcast_to(wt, (*shape, n_nodes)).reshape(n_models, n_nodes)
    mean_i, var_i = beta_pass_at_k(*posterior_parameters(mu_q, kap_q, cu, ku), k, variance=True)
    n_q = w.sum(axis=1)[:, None]
    here_node = (mean_i * w[:, None, :]).sum(-1) / n_q
    here_var_node = (var_i * w[:, None, :]).sum(-1) / n_q**2
    here_mean, here_var = mixture_moments(here_node, here_var_node, wt)
    sd_node = np.sqrt(np.maximum(here_var_node, 1e-300))
    here_low, here_high = (
        normal_mixture_quantile(here_node, sd_node, wt, p) for p in tail_probabilities(level)
    )
    pop_node = beta_pass_at_k(mu_q[..., 0] * kap_q[..., 0], (1 - mu_q[..., 0]) * kap_q[..., 0], k)
    pop_mean, pop_var = mixture_moments(pop_node, np.zeros_like(pop_node), wt)
    gen = np.random.default_rng(rng)
    mu_d, kap_d = hyper_draws(fit, int(n_resamples), gen)
    pop_draws = beta_pass_at_k(mu_d * kap_d, (1 - mu_d) * kap_d, k)
    (pop_low, pop_high), mcse = _quantile_with_mcse(pop_draws, tail_probabilities(level))

    def rs(x):
        return np.asarray(x).reshape(shape)

    return PassAtKPosterior(
        k=k,
        here_mean=rs(here_mean),
        here_sd=rs(np.sqrt(here_var)),
        here_low=rs(here_low),
        here_high=rs(here_high),
        population_mean=rs(pop_mean),
        population_sd=rs(np.sqrt(pop_var)),
        population_low=rs(pop_low),
        population_high=rs(pop_high),
        population_mcse=rs(np.maximum(*mcse)),
        kappa_status=fit.kappa_status,
        confidence_level=level,
        draws=int(n_resamples),
    )


PASSK_POSTERIOR_COLUMNS = [
    "model",
    "questions",
    "k",
    "pass_at_k_bayes",
    "pass_at_k_bayes_low",
    "pass_at_k_bayes_high",
    "population_pass_at_k",
    "population_pass_at_k_low",
    "population_pass_at_k_high",
    "kappa_status",
]


def posterior_passk_table(
    ds, k, *, confidence_level: float = 0.95, kappa=None, rng=0
) -> pd.DataFrame:
    """Per model: Bayesian pass@k on these questions and in the question population.

    Parameters
    ----------
    ds : xarray.Dataset
        Whole numbers correct out of K samples (fractional scores are refused with
        :class:`bayesnoise.data.DataError`).
    k : int
        Fresh samples per attempt (>= 1).
    confidence_level : float, default 0.95
    kappa : float, optional
        Assume kappa instead of integrating over it (see :func:`fit_empirical_bayes`).
    rng : int or numpy.random.Generator, default 0
        Seed of the (mu, kappa) draws of the population interval.

    Returns
    -------
    pandas.DataFrame
        ``model, questions, k, pass_at_k_bayes, pass_at_k_bayes_low, pass_at_k_bayes_high,
        population_pass_at_k, population_pass_at_k_low, population_pass_at_k_high,
        kappa_status``: posterior means and equal-tailed intervals; ``pass_at_k_bayes`` is about *these* questions (with k = 1 it is
        the posterior table's ``ubar``), ``population_pass_at_k`` about the population (with
        k = 1 the posterior mean of ``mu``). ``df.attrs``: ``mc_se`` (largest Monte Carlo SE
        of a population interval end), ``draws``, ``confidence_level``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> c = rng.binomial(5, rng.beta(1, 2, (2, 80)))
    >>> df = posterior_passk_table(from_arrays(c, np.full(c.shape, 5), models=["a", "b"]), 3)
    >>> bool((df.pass_at_k_bayes_low < df.pass_at_k_bayes).all() and (df.pass_at_k_bayes < df.pass_at_k_bayes_high).all())
    True
    """
    c, n = beta_binomial_counts(ds)
    names = ds["model"].values
    fit = fit_empirical_bayes(c, n, kappa=kappa, names=names)
    post = pass_at_k_posterior(c, n, k, fit, confidence_level=confidence_level, rng=rng)
    df = pd.DataFrame(
        {
            "model": names.astype(str),
            "questions": (n > 0).sum(axis=1),
            "k": post.k,
            "pass_at_k_bayes": post.here_mean,
            "pass_at_k_bayes_low": post.here_low,
            "pass_at_k_bayes_high": post.here_high,
            "population_pass_at_k": post.population_mean,
            "population_pass_at_k_low": post.population_low,
            "population_pass_at_k_high": post.population_high,
            "kappa_status": fit.kappa_status,
        }
    )
    df.attrs.update(
        mc_se=float(np.max(post.population_mcse)),
        draws=post.draws,
        confidence_level=post.confidence_level,
    )
    return df
