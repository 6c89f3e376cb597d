"""Simulation calibration of the closed-form intervals (replicates vectorised as 'models')."""

from __future__ import annotations

import numpy as np

from bayesnoise._common import z_from_level
from bayesnoise.conjugate import fit_empirical_bayes, integrated_moments

__all__ = ["calibration_cell"]


def calibration_cell(
    n_questions: int,
    samples: int,
    mu: float,
    kappa: float,
    *,
    replicates: int = 1000,
    confidence_level: float = 0.95,
    assumed_kappa: float = 1.0,
    random_seed=0,
) -> dict[str, float]:
    """Frequentist coverage of the 95% intervals for ubar, dbar and mu in one simulation cell.

    Each replicate simulates two independent models A, B from ``u_i ~ Beta(mu kappa,
    (1 - mu) kappa)``, ``c_i ~ Binomial(K, u_i)`` on N questions; all replicates are fitted at
    once (they are the leading 'model' axis). Intervals: mu from the Laplace fit (logit scale);
    ubar and dbar = ubar_A - ubar_B from the exact posterior moments integrated over the
    Laplace posterior of (mu, kappa), with the normal approximation mean -/+ z sd (the Monte
    Carlo intervals of :func:`finite_sample_posterior` agree with it to MC error for N >= 30,
    see the tests). At K = 1 kappa is not identifiable and ``assumed_kappa`` is used.

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
    assumed_kappa : float, default 1.0
        kappa assumed where it is not identifiable (K = 1).
    random_seed : int, default 0

    Returns
    -------
    dict of str to float
        Coverages ``ubar``, ``dbar``, ``mu``, the Monte Carlo SE ``mc_se`` of a coverage near
        the nominal level, ``sqrt(level (1 - level) / replicates)``, and ``kappa_estimated``
        (share of replicates whose kappa was estimated).

    Examples
    --------
    >>> out = calibration_cell(100, 5, 0.5, 1.0, replicates=200)
    >>> sorted(out)
    ['dbar', 'kappa_estimated', 'mc_se', 'mu', 'ubar']
    """
    rng = np.random.default_rng(random_seed)
    r, n = int(replicates), int(n_questions)
    u = rng.beta(mu * kappa, (1 - mu) * kappa, size=(2, r, n))
    k = np.full((2, r, n), float(samples))
    c = rng.binomial(int(samples), u).astype(float)
    fit = fit_empirical_bayes(c, k, kappa_unidentified=assumed_kappa, warn=False)
    z = z_from_level(confidence_level)
    mom = integrated_moments(c, k, fit)
    m, v = mom.ubar_mean, mom.ubar_var
    truth = u.mean(axis=-1)
    cover_ubar = np.abs(truth - m) <= z * np.sqrt(v)
    dm, dv = m[0] - m[1], v[0] + v[1]
    cover_dbar = np.abs((truth[0] - truth[1]) - dm) <= z * np.sqrt(dv)
    lo, hi = fit.mu_interval(confidence_level)
    cover_mu = (lo <= mu) & (mu <= hi)
    return {
        "ubar": float(cover_ubar[0].mean()),
        "dbar": float(cover_dbar.mean()),
        "mu": float(cover_mu[0].mean()),
        "mc_se": float(np.sqrt(confidence_level * (1 - confidence_level) / r)),
        "kappa_estimated": float((fit.kappa_status == "estimated").mean()),
    }
