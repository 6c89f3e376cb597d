"""Closed-form Bayesian layer: the Beta-Binomial hierarchy by empirical Bayes (numpy/scipy only).

Per model, question accuracies ``u_i ~ Beta(mu kappa, (1 - mu) kappa)`` and
``c_i ~ Binomial(K_i, u_i)``. Low-level numpy functions broadcast over leading model axes (last
axis = questions):

- :func:`fit_empirical_bayes` -- (mu, kappa) per model by maximum Beta-Binomial marginal
  likelihood, with Laplace covariance and boundary/identifiability status.
- :func:`question_posteriors` -- per-question posterior Beta parameters given (mu, kappa);
  :func:`beta_central_moments`, :func:`finite_sample_moments` -- exact Beta moment algebra.
- :func:`finite_sample_posterior` / :func:`integrated_moments` -- ubar (expected accuracy on
  these questions), V_pred and V_x; :func:`population_posterior` -- mu, data and prediction
  variance of the question population; :func:`fresh_run_predictive` -- a fresh run's score.
- :func:`paired_difference_moments`, :func:`all_pairs_difference`,
  :func:`population_difference` -- paired differences between models.
- :func:`rate_posterior`, :func:`prob_rate_greater`, :func:`beta_prior` -- a single pass rate.
- :func:`theory_se_difference`, :func:`benchmark_kappa` -- the Beta(p, 1-p) theory.

Dataset level: :func:`posterior_table` and :func:`posterior_pairs_table`.
"""

from .beta import beta_central_moments, finite_sample_moments, question_posteriors
from .empirical_bayes import EmpiricalBayesFit, fit_empirical_bayes
from .pairs import all_pairs_difference, paired_difference_moments, population_difference
from .posterior import finite_sample_posterior, integrated_moments, population_posterior
from .predictive import fresh_run_predictive
from .rate import BetaPrior, beta_prior, prob_rate_greater, rate_posterior
from .tables import (
    POSTERIOR_COLUMNS,
    POSTERIOR_PAIR_COLUMNS,
    posterior_pairs_table,
    posterior_table,
)
from .theory import benchmark_kappa, theory_se_difference

__all__ = [
    "POSTERIOR_COLUMNS",
    "POSTERIOR_PAIR_COLUMNS",
    "BetaPrior",
    "EmpiricalBayesFit",
    "all_pairs_difference",
    "benchmark_kappa",
    "beta_central_moments",
    "beta_prior",
    "finite_sample_moments",
    "finite_sample_posterior",
    "fit_empirical_bayes",
    "fresh_run_predictive",
    "integrated_moments",
    "paired_difference_moments",
    "population_difference",
    "population_posterior",
    "posterior_pairs_table",
    "posterior_table",
    "prob_rate_greater",
    "question_posteriors",
    "rate_posterior",
    "theory_se_difference",
]
