"""Simulation calibration of the closed-form intervals (replicates vectorised as 'models')."""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from bayesnoise._common import z_from_level
from bayesnoise.conjugate import fit_empirical_bayes, integrated_moments, population_accuracy
from bayesnoise.conjugate.pairs import PRIOR_MASS, paired_population_posterior

__all__ = ["calibration_cell", "correlated_pair", "population_difference_cell"]


def calibration_cell(
    n_questions: int,
    samples: int,
    mu: float,
    kappa: float,
    *,
    replicates: int = 1000,
    confidence_level: float = 0.95,
    rng=0,
) -> dict[str, float]:
    """Frequentist coverage of the 95% intervals for ubar, dbar and mu in one simulation cell.

    Each replicate simulates two independent models A, B from ``u_i ~ Beta(mu kappa,
    (1 - mu) kappa)``, ``c_i ~ Binomial(K, u_i)`` on N questions; all replicates are fitted at
    once (they are the leading 'model' axis). Intervals: mu from the posterior of the
    Beta-Binomial (mu, kappa) (``mu``) and from the shape-free Dirichlet posterior that
    ``posterior_table`` prints (``population_accuracy``);
    ubar and dbar = ubar_A - ubar_B from the exact posterior moments integrated over the
    posterior of (mu, kappa), with the normal approximation mean -/+ z sd (the Monte Carlo
    intervals of :func:`finite_sample_posterior` agree with it to MC error for N >= 30, see
    the tests). At K = 1 kappa is not identifiable and is integrated over its prior.

    Parameters
    ----------
    n_questions : int
        Questions N per replicate.
    samples : int
        Samples K per question.
    mu, kappa : float
        True population accuracy and concentration.
    replicates : int, default 1000
    confidence_level : float, default 0.95
    rng : int or numpy.random.Generator, default 0

    Returns
    -------
    dict of str to float
        Coverages ``ubar``, ``dbar``, ``mu``, ``population_accuracy``, the Monte Carlo SE
        ``mc_se`` of a coverage near
        the nominal level, ``sqrt(level (1 - level) / replicates)``, and ``kappa_estimated``
        (share of replicates whose kappa was estimated).

    Examples
    --------
    >>> out = calibration_cell(100, 5, 0.5, 1.0, replicates=200)
    >>> sorted(out)
    ['dbar', 'kappa_estimated', 'mc_se', 'mu', 'population_accuracy', 'ubar']
    """
    gen = np.random.default_rng(rng)
    r, n = int(replicates), int(n_questions)
    u = gen.beta(mu * kappa, (1 - mu) * kappa, size=(2, r, n))
    k = np.full((2, r, n), float(samples))
    c = gen.binomial(int(samples), u).astype(float)
    fit = fit_empirical_bayes(c, k, warn=False)
    z = z_from_level(confidence_level)
    mom = integrated_moments(c, k, fit)
    m, v = mom.ubar_mean, mom.ubar_var
    truth = u.mean(axis=-1)
    cover_ubar = np.abs(truth - m) <= z * np.sqrt(v)
    dm, dv = m[0] - m[1], v[0] + v[1]
    cover_dbar = np.abs((truth[0] - truth[1]) - dm) <= z * np.sqrt(dv)
    lo, hi = fit.mu_interval(confidence_level)
    cover_mu = (lo <= mu) & (mu <= hi)
    pop = population_accuracy(c[0], k[0], confidence_level=confidence_level)
    cover_pop = (pop["low"] <= mu) & (mu <= pop["high"])
    return {
        "ubar": float(cover_ubar[0].mean()),
        "dbar": float(cover_dbar.mean()),
        "mu": float(cover_mu[0].mean()),
        "population_accuracy": float(cover_pop.mean()),
        "mc_se": float(np.sqrt(confidence_level * (1 - confidence_level) / r)),
        "kappa_estimated": float((fit.kappa_status == "estimated").mean()),
    }


def correlated_pair(n_questions, samples, accuracy, kappa, rho, replicates, rng):
    """Two models with equal population accuracy whose question accuracies are correlated.

    ``u_A, u_B ~ Beta(mu kappa, (1 - mu) kappa)`` each, coupled by a Gaussian copula with
    correlation ``rho`` (a shared question difficulty), so the population paired difference
    is exactly 0; ``c ~ Binomial(K, u)``.

    Parameters
    ----------
    n_questions, samples : int
        Questions N and samples K per question.
    accuracy, kappa, rho : float
        Population accuracy mu of both models, concentration, copula correlation.
    replicates : int
    rng : numpy.random.Generator

    Returns
    -------
    u, c : numpy.ndarray, shape (2, replicates, n_questions)

    Examples
    --------
    >>> import numpy as np
    >>> u, c = correlated_pair(50, 5, 0.5, 1.0, 0.8, 3, np.random.default_rng(0))
    >>> u.shape, bool(c.max() <= 5)
    ((2, 3, 50), True)
    """
    z = rng.standard_normal((2, replicates, n_questions))
    z[1] = rho * z[0] + np.sqrt(1.0 - rho * rho) * z[1]
    u = special.betaincinv(accuracy * kappa, (1.0 - accuracy) * kappa, special.ndtr(z))
    u = np.clip(u, 0.0, 1.0)
    return u, rng.binomial(int(samples), u).astype(float)


def population_difference_cell(
    n_questions: int,
    samples: int,
    accuracy: float,
    *,
    kappa: float = 1.0,
    rho: float = 0.8,
    replicates: int = 1000,
    draws: int = 1000,
    prior_mass: float = PRIOR_MASS,
    confidence_level: float = 0.95,
    rng=0,
) -> dict[str, float]:
    """Coverage of the population paired-difference interval under a null difference.

    Simulates :func:`correlated_pair` replicates (true population difference 0) and computes
    :func:`bayesnoise.conjugate.paired_population_posterior` of each replicate's per-question
    differences.

    Parameters
    ----------
    n_questions, samples : int
    accuracy : float
    kappa, rho : float, default 1.0, 0.8
    replicates, draws : int, default 1000, 1000
    prior_mass : float, default 1.0
    confidence_level : float, default 0.95
    rng : int or numpy.random.Generator, default 0

    Returns
    -------
    dict of str to float
        ``coverage`` of the interval, ``p_over_95`` (share of replicates with
        ``prob_a_better_population > 0.95``; 0.05 when calibrated), their Monte Carlo standard
        errors ``coverage_mcse`` and ``p_over_95_mcse`` (``sqrt(p (1 - p) / R)``),
        ``mean_width`` and ``width_ratio_t`` (median over the replicates with a discordant
        question of the width / the paired t interval's, ``2 t_{N-1} sd(d) / sqrt(N)``).

    Examples
    --------
    >>> out = population_difference_cell(30, 1, 0.5, replicates=100, draws=200)
    >>> sorted(out)[:2]
    ['coverage', 'coverage_mcse']
    """
    gen = np.random.default_rng(rng)
    r = int(replicates)
    _, c = correlated_pair(int(n_questions), samples, accuracy, kappa, rho, r, gen)
    d = (c[0] - c[1]) / samples
    post = paired_population_posterior(
        d, confidence_level=confidence_level, n_resamples=draws, prior_mass=prior_mass, rng=gen
    )
    cover = (post["low"] <= 0) & (0 <= post["high"])
    over = post["prob_a_better"] > 0.95
    n = d.shape[-1]
    t_width = 2 * stats.t.ppf(0.5 + confidence_level / 2, n - 1) * d.std(-1, ddof=1) / np.sqrt(n)
    some = t_width > 0
    ratio = (post["high"] - post["low"])[some] / t_width[some]
    return {
        "coverage": float(cover.mean()),
        "coverage_mcse": float(np.sqrt(cover.mean() * (1 - cover.mean()) / r)),
        "p_over_95": float(over.mean()),
        "p_over_95_mcse": float(np.sqrt(over.mean() * (1 - over.mean()) / r)),
        "mean_width": float((post["high"] - post["low"]).mean()),
        "width_ratio_t": float(np.median(ratio)) if ratio.size else np.nan,
    }
