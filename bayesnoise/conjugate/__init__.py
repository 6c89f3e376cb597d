"""Closed-form Bayesian layer: Beta-Binomial conjugacy, numpy/scipy only (no MCMC).

Low-level numpy API (broadcasting over leading model axes; last axis = questions):

- :func:`fit_empirical_bayes` -- (mu, kappa) per model by maximum Beta-Binomial marginal
  likelihood, with Laplace covariance and boundary/identifiability status.
- :func:`question_posteriors` -- per-question posterior Beta parameters given (mu, kappa).
- :func:`finite_sample_moments` -- exact mean/var of ubar, V_pred, V_x from independent Betas.
- :func:`paired_difference_moments` -- exact mean/var of dbar = mean_i (u_Ai - u_Bi).

Higher level: :func:`finite_sample_posterior` (ubar, V_pred, V_x with intervals),
:func:`population_posterior` (mu, data and prediction variance), :func:`fresh_run_predictive`,
:func:`population_difference` (paired, with data noise), :func:`rate_posterior` and
:func:`coverage_probability` (single pass rate), and the CLI tables :func:`posterior_table`,
:func:`posterior_pairs_table`.
"""

from .rate import BetaPrior, BetaRatePosterior, beta_prior, prob_rate_greater, rate_posterior
from .hierarchy import (
    EmpiricalBayesFit,
    FiniteSampleMoments,
    FiniteSamplePosterior,
    FreshRunPredictive,
    PopulationPosterior,
    beta_central_moments,
    finite_sample_moments,
    finite_sample_posterior,
    fit_empirical_bayes,
    fresh_run_predictive,
    hyper_quadrature,
    population_posterior,
    question_posteriors,
)
from .pairs import all_pairs_difference, paired_difference_moments, population_difference
from .tables import posterior_pairs_table, posterior_table

__all__ = [
    "BetaPrior",
    "BetaRatePosterior",
    "EmpiricalBayesFit",
    "FiniteSampleMoments",
    "FiniteSamplePosterior",
    "FreshRunPredictive",
    "PopulationPosterior",
    "all_pairs_difference",
    "beta_central_moments",
    "beta_prior",
    "finite_sample_moments",
    "finite_sample_posterior",
    "fit_empirical_bayes",
    "fresh_run_predictive",
    "hyper_quadrature",
    "paired_difference_moments",
    "population_difference",
    "population_posterior",
    "posterior_pairs_table",
    "posterior_table",
    "prob_rate_greater",
    "question_posteriors",
    "rate_posterior",
]
