"""Full-Bayes hierarchical Beta-Binomial models in PyMC.

The closed-form answers with empirical Bayes are in :mod:`bayesnoise.conjugate`; this package
fits the same hierarchical model (and a joint model of all models' accuracies) by MCMC.

- Builders (:func:`marginal_model`, :func:`latent_model`, :func:`fixed_hyper_model`,
  :func:`joint_model`) are plain functions of the data returning a :class:`BuiltModel`: the
  :class:`pymc.Model` (dims ``model`` and ``question``) with its kind, validated data and
  priors (:class:`Priors`).
- :func:`fit` samples it and returns an :class:`xarray.DataTree`; :func:`save_fit` and
  :func:`load_fit` store it as NetCDF; :func:`check_convergence` and
  :func:`diagnostics_table` judge it.
- :func:`posterior_table_mcmc` gives the per-model and per-pair tables of
  ``bayesnoise posterior --method mcmc``.

PyMC is imported only when a model is built or fitted, so importing this package is cheap.

Examples
--------
>>> import numpy as np
>>> from bayesnoise.mcmc import marginal_model, fit, summary
>>> rng = np.random.default_rng(0)
>>> correct = rng.binomial(10, rng.beta(2.0, 2.0, size=(3, 200)))
>>> tree = fit(marginal_model(correct, 10, models=["a", "b", "c"]), draws=100, tune=100,
...            chains=1, progress=False, check=False)
>>> summary(tree, var_names=["mu"]).shape[0]
3
"""

from .builders import fixed_hyper_model, joint_model, latent_model, marginal_model
from .cluster import cluster_model
from .diagnostics import (
    ESS_MIN,
    RHAT_MAX,
    ConvergenceReport,
    ConvergenceWarning,
    IdentifiabilityWarning,
    check_convergence,
    diagnostics_table,
    summary,
)
from .fit import fit, load_fit, save_fit
from .inputs import BuiltModel, ModelData, model_data
from .priors import DEFAULT_PRIORS, Priors, prior_predictive_summary
from .samplers import SAMPLERS, resolve_sampler
from .tables import pairs_table_from_fit, posterior_table_from_fit, posterior_table_mcmc

# The documented API of this layer (the surface is counted over these lists,
# tests/test_surface.py); the other names stay importable for the package's own layers.
__all__ = [
    "check_convergence",
    "fit",
    "load_fit",
    "posterior_table_mcmc",
]
