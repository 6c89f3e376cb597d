"""Priors of the hierarchical models and what they imply for the data (numpy only)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "Priors",
    "prior_predictive_summary",
]


@dataclass(frozen=True)
class Priors:
    """Prior settings of the hierarchical models, in mean / concentration terms.

    Parameters
    ----------
    mu_mean, mu_concentration : float
        ``mu ~ Beta(mu_mean * mu_concentration, (1 - mu_mean) * mu_concentration)``: the
        population accuracy of each model. Default ``0.5, 2.0`` is the uniform ``Beta(1, 1)``.
    kappa_median, kappa_log_sd : float
        ``log(kappa) ~ Normal(log(kappa_median), kappa_log_sd)``: the concentration of the
        question accuracies ``u_i``. Default ``1.0, 1.5``: centred on the ``Beta(p, 1 - p)``
        question distribution (``kappa = 1``) with 95% prior mass on ``kappa`` in
        ``[0.05, 19]``, i.e. on a data-noise share ``1 / (kappa + 1)`` of the total between 0.05
        and 0.95. :func:`prior_predictive_summary` shows what this implies for the data.
    theta_sd : float
        Joint model only: ``theta_m ~ Normal(0, theta_sd)`` is model ``m``'s logit-scale
        ability. Default 2.0 (a model's accuracy on a typical question anywhere in
        ``[0.02, 0.98]`` a priori).
    difficulty_scale : float
        Joint model only: the spread of question difficulties ``b_i ~ Normal(0, sigma_b)`` has
        ``sigma_b ~ HalfNormal(difficulty_scale)``. Default 2.0.
    phi_median, phi_log_sd : float
        Joint model only: ``log(phi_m) ~ Normal(log(phi_median), phi_log_sd)`` is the residual
        concentration of model ``m``'s accuracies around the shared question effect (large phi:
        models agree on which questions are hard). Default ``3.0, 1.5``.

    Raises
    ------
    ValueError
        ``mu_mean`` outside (0, 1) or a scale that is not a positive finite number.

    Examples
    --------
    >>> from bayesnoise.mcmc import Priors
    >>> p = Priors(mu_mean=0.75, mu_concentration=4.0)
    >>> p.mu_alpha, p.mu_beta
    (3.0, 1.0)
    """

    mu_mean: float = 0.5
    mu_concentration: float = 2.0
    kappa_median: float = 1.0
    kappa_log_sd: float = 1.5
    theta_sd: float = 2.0
    difficulty_scale: float = 2.0
    phi_median: float = 3.0
    phi_log_sd: float = 1.5

    def __post_init__(self) -> None:
        if not 0.0 < self.mu_mean < 1.0:
            raise ValueError(f"mu_mean must be in (0, 1), got {self.mu_mean}")
        for name in (
            "mu_concentration",
            "kappa_median",
            "kappa_log_sd",
            "theta_sd",
            "difficulty_scale",
            "phi_median",
            "phi_log_sd",
        ):
            value = getattr(self, name)
            if not (np.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive finite number, got {value}")

    @property
    def mu_alpha(self) -> float:
        """First Beta parameter of the prior on ``mu``."""
        return self.mu_mean * self.mu_concentration

    @property
    def mu_beta(self) -> float:
        """Second Beta parameter of the prior on ``mu``."""
        return (1.0 - self.mu_mean) * self.mu_concentration


#: The priors every builder uses unless given others.
DEFAULT_PRIORS = Priors()


def prior_predictive_summary(
    priors: Priors | None = None,
    *,
    count: int = 10,
    questions: int = 500,
    draws: int = 2000,
    rng: int = 0,
) -> dict[str, np.ndarray]:
    """Prior predictive check of the ``(mu, kappa)`` priors, in numpy (no PyMC needed).

    Simulates ``draws`` benchmarks of ``questions`` questions with ``count`` samples each from
    the prior and returns the 2.5, 25, 50, 75 and 97.5% quantiles of what an analyst would
    look at: the observed accuracy, the share of total variance that is data noise
    (``1 / (kappa + 1)``), the fraction of questions never solved and always solved, and the
    frequentist data-variance estimate ``var(p) - mean(p (1 - p)) / (K - 1)``.

    With the defaults (``K = 10``, ``N = 500``) the accuracy is spread over ``[0.03, 0.97]``,
    the data-noise share over about ``[0.05, 0.95]`` and the fraction of never-solved
    questions over roughly ``[0, 0.9]``: every benchmark shape seen in practice (from nearly
    binary questions, kappa ~ 0.1, to near-homogeneous ones, kappa ~ 10) is plausible a
    priori, while kappa > 100 (questions all alike) and kappa < 0.01 (every question solved
    always or never even at K = 10) are not.

    Parameters
    ----------
    priors : Priors, optional
        Default :data:`DEFAULT_PRIORS`.
    count : int, default 10
        Samples per question (K).
    questions : int, default 500
        Questions per simulated benchmark.
    draws : int, default 2000
        Simulated benchmarks (prior draws).
    rng : int or numpy.random.Generator, default 0

    Returns
    -------
    dict of str to numpy.ndarray
        Quantiles (length 5) of ``accuracy``, ``data_share``, ``never_solved``,
        ``always_solved``, ``data_var_estimate`` and ``kappa``, plus ``"quantiles"``.

    Examples
    --------
    >>> from bayesnoise.mcmc import prior_predictive_summary
    >>> s = prior_predictive_summary(draws=200)
    >>> sorted(s)[:3]
    ['accuracy', 'always_solved', 'data_share']
    """
    priors = DEFAULT_PRIORS if priors is None else priors
    gen = np.random.default_rng(rng)
    mu = gen.beta(priors.mu_alpha, priors.mu_beta, size=draws)
    kappa = np.exp(gen.normal(np.log(priors.kappa_median), priors.kappa_log_sd, size=draws))
    a = np.maximum(mu * kappa, 1e-300)
    b = np.maximum((1 - mu) * kappa, 1e-300)
    u = gen.beta(a[:, None], b[:, None], size=(draws, questions))
    c = gen.binomial(count, u)
    p = c / count
    w = p * (1 - p)
    q = np.array([0.025, 0.25, 0.5, 0.75, 0.975])
    if count > 1:
        data_var = p.var(axis=1) - (w / (count - 1)).mean(axis=1)
    else:
        data_var = np.full(draws, np.nan)
    out = {
        "accuracy": p.mean(axis=1),
        "data_share": 1.0 / (kappa + 1.0),
        "never_solved": (c == 0).mean(axis=1),
        "always_solved": (c == count).mean(axis=1),
        "data_var_estimate": data_var,
        "kappa": kappa,
    }
    res = {k: np.quantile(v, q) for k, v in out.items()}
    res["quantiles"] = q
    return res
