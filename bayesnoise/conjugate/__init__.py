"""Closed-form Bayesian layer: the Beta-Binomial hierarchy with (mu, kappa) integrated (numpy/scipy).

Per model, question accuracies ``u_i ~ Beta(mu kappa, (1 - mu) kappa)`` and
``c_i ~ Binomial(K_i, u_i)``. Low-level numpy functions broadcast over leading model axes (last
axis = questions):

- :func:`fit_empirical_bayes` -- the posterior of (mu, kappa) per model (Beta and LogNormal
  priors, kappa integrated on a grid), with a kappa status (estimated, at a bound, not
  identified, assumed).
- :func:`question_posteriors` -- per-question posterior Beta parameters given (mu, kappa);
  :func:`beta_central_moments`, :func:`finite_sample_moments` -- exact Beta moment algebra.
- :func:`finite_sample_posterior` / :func:`integrated_moments` -- ubar (expected accuracy on
  these questions), V_pred and V_x; :func:`population_posterior` -- mu, data and prediction
  variance of the question population; :func:`fresh_run_predictive` -- a fresh run's score;
  :func:`population_accuracy` -- the population accuracy whatever the difficulty shape.
- :func:`fit_nonparametric_prior` -- the NPMLE of the question-accuracy distribution, the
  prior of ``ubar`` / ``dbar`` where the Beta population is rejected
  (:mod:`bayesnoise.conjugate.ubar_prior`).
- :func:`paired_difference_moments`, :func:`all_pairs_difference`,
  :func:`population_difference`, :func:`paired_population_posterior` -- paired differences
  between models on these questions and in the question population.
- :func:`rate_posterior`, :func:`prob_rate_greater`, :func:`beta_prior`,
  :func:`prior_predictive_p_value` -- a single pass rate.
- :func:`theory_se_difference`, :func:`benchmark_kappa` -- the Beta(p, 1-p) theory.

Dataset level: :func:`posterior_table` and :func:`posterior_pairs_table`.
"""

from .beta import beta_central_moments, finite_sample_moments, question_posteriors
from .dirichlet import population_accuracy
from .empirical_bayes import EmpiricalBayesFit, fit_empirical_bayes, merge_fits
from .kappa_grid import DEFAULT_KAPPA_PRIOR, DEFAULT_MU_PRIOR
from .notes import STATUS as KAPPA_STATUS
from .npmle import fit_nonparametric_prior
from .pairs import (
    all_pairs_difference,
    paired_difference_moments,
    paired_population_posterior,
    population_difference,
)
from .passk import (
    PASSK_POSTERIOR_COLUMNS,
    PassAtKPosterior,
    beta_pass_at_k,
    pass_at_k_posterior,
    posterior_passk_table,
)
from .posterior import finite_sample_posterior, integrated_moments, population_posterior
from .predictive import fresh_run_predictive
from .rate import (
    BetaPrior,
    beta_prior,
    prior_predictive_p_value,
    prob_rate_greater,
    rate_posterior,
)
from .tables import (
    POSTERIOR_COLUMNS,
    POSTERIOR_PAIR_COLUMNS,
    posterior_pairs_table,
    posterior_table,
)
from .theory import accuracy_group_fits, benchmark_kappa, theory_se_difference

# The documented API of this layer (the surface is counted over these lists,
# tests/test_surface.py); the other names stay importable for the package's own layers.
__all__ = [
    "fit_empirical_bayes",
    "fresh_run_predictive",
    "paired_population_posterior",
    "population_accuracy",
    "population_difference",
    "population_posterior",
    "posterior_pairs_table",
    "posterior_table",
]
