"""Full-Bayes hierarchical Beta-Bernoulli models in PyMC (DESIGN.md section 3, issue 4).

Model builders return :class:`pymc.Model` objects with dims ``model`` and ``question``;
:func:`fit` samples them and returns an :class:`xarray.DataTree`. PyMC is imported only when a
model is built or fitted, so importing this package is cheap.

Examples
--------
>>> import numpy as np
>>> from bayesnoise.mcmc import marginal_model, fit, summary
>>> rng = np.random.default_rng(0)
>>> correct = rng.binomial(10, rng.beta(2.0, 2.0, size=(3, 200)))
>>> tree = fit(marginal_model(correct, 10, models=["a", "b", "c"]), draws=200, tune=200,
...            chains=1, progressbar=False, check=False)
>>> summary(tree, var_names=["mu"]).shape[0]
3
"""

from .diagnostics import (
    ESS_MIN,
    RHAT_MAX,
    ConvergenceReport,
    ConvergenceWarning,
    check_convergence,
    diagnostics_table,
    summary,
)
from .fit import SAMPLERS, fit, load, save
from .models import (
    DEFAULT_PRIORS,
    ModelData,
    Priors,
    fixed_hyper_model,
    joint_model,
    latent_model,
    marginal_model,
    model_data,
    prior_predictive_summary,
)
from .tables import pairs_table_from_fit, posterior_table_from_fit, posterior_table_mcmc

__all__ = [
    "DEFAULT_PRIORS",
    "ESS_MIN",
    "RHAT_MAX",
    "SAMPLERS",
    "ConvergenceReport",
    "ConvergenceWarning",
    "ModelData",
    "Priors",
    "check_convergence",
    "diagnostics_table",
    "fit",
    "fixed_hyper_model",
    "joint_model",
    "latent_model",
    "load",
    "marginal_model",
    "model_data",
    "pairs_table_from_fit",
    "posterior_table_from_fit",
    "posterior_table_mcmc",
    "prior_predictive_summary",
    "save",
    "summary",
]
