"""
Closed forms checked against MCMC
=================================

``bayesnoise posterior`` answers in closed form: given each model's Beta population
(mean ``mu``, concentration ``kappa``), every question's accuracy has an exact Beta posterior,
and ``kappa`` is integrated over a grid (empirical Bayes with its uncertainty carried along).
``--method mcmc`` fits the same hierarchical model by full Bayes in PyMC. This tutorial fits
three models both ways, checks the sampler's diagnostics, and compares the numbers.

The draws are kept small (2 chains x 500) so that the documentation builds quickly; the
diagnostics below say whether that was enough.
"""

# %%
# The model
# ---------
# Per model, question accuracies u_i ~ Beta(mu kappa, (1 - mu) kappa) and the c_i correct
# answers out of K_i samples are Binomial(K_i, u_i). :func:`bayesnoise.mcmc.marginal_model`
# integrates the u_i out (a Beta-Binomial likelihood), so NUTS samples only (mu, kappa) per
# model; :func:`bayesnoise.mcmc.fit` then draws the u_i exactly from their Beta conditionals.
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import bayesnoise as bn
from bayesnoise import conjugate, mcmc, plots

DATA = Path(bn.__file__).resolve().parents[1] / "examples" / "data"
ds = bn.load(DATA / "cruxeval_output_temp0.8.csv.gz")
names = ["phind", "codellama-34b", "mixtral-8x7b"]
sub = bn.select_models(ds, names)
model = mcmc.marginal_model(
    sub["correct"], sub["samples"], models=names, questions=sub["question"].values
)
tree = mcmc.fit(model, sampler="pymc", draws=500, tune=500, chains=2, rng=0, progress=False)

# %%
# Diagnostics
# -----------
# Before reading any number: split R-hat close to 1 (chains agree), bulk and tail effective
# sample sizes large enough for the Monte Carlo error to be small against the posterior sd,
# and no divergent transitions.
report = mcmc.check_convergence(tree, rhat_max=1.01, ess_min=400)
print("converged:", report.ok, "| divergences:", report.divergences)
report.table.round(4)

# %%
mcmc.summary(tree, var_names=["mu", "kappa", "ubar"])

# %%
# The trace plot: each chain's draws of ``mu`` and ``kappa`` per model, which should look like
# stationary noise with the chains overlapping.
plots.plot_mcmc(tree, kind="trace", var_names=("mu", "kappa"))

# %%
# Closed forms beside MCMC
# ------------------------
# :func:`bayesnoise.conjugate.posterior_table` and :func:`bayesnoise.mcmc.posterior_table_mcmc`
# return the same table shape; names say the method (``ubar`` closed form, ``ubar_mcmc`` MCMC).
# ``mu`` (closed form) is the shape-free population accuracy, ``mu_beta`` the mean of the fitted
# Beta population: the two agree when difficulties are Beta-shaped. Here ``mu_beta`` sits
# 0.6-1.1 points above the observed accuracy: CRUXEval's question difficulties are not quite
# Beta-shaped, which is why the population accuracy ``mu`` does not rely on that shape.
cf = conjugate.posterior_table(sub, rng=0)
mc = mcmc.posterior_table_mcmc(
    sub, sampler="pymc", draws=500, tune=500, chains=2, rng=0, progress=False
)
pairs = {
    "ubar": "ubar_mcmc",
    "ubar_low": "ubar_mcmc_low",
    "ubar_high": "ubar_mcmc_high",
    "mu": "mu_beta",
    "kappa_median": "kappa_median_mcmc",
    "se_data_bayes": "se_data_mcmc",
    "se_prediction_bayes": "se_prediction_mcmc",
}
side = cf[["model", *pairs]].merge(mc[["model", *pairs.values()]], on="model")
side[["model", *[c for kv in pairs.items() for c in kv]]].round(4).T

# %%
# How close is close enough? The MCMC numbers carry Monte Carlo error: about
# sd / sqrt(ESS), i.e. 0.003 / sqrt(1000) = 1e-4 for ``ubar``. The closed form fixes ``kappa``'s
# uncertainty by a grid rather than by sampling, so the two should agree to within a few
# Monte Carlo standard errors plus the small difference between empirical and full Bayes.
diff = pd.DataFrame(
    {
        "model": side["model"],
        "ubar: closed - mcmc": side["ubar"] - side["ubar_mcmc"],
        "kappa: closed / mcmc": side["kappa_median"] / side["kappa_median_mcmc"],
    }
)
diff.round(5)

# %%
# The intervals for ubar (expected accuracy on these 800 questions), both ways:
fig, ax = plt.subplots(figsize=(6, 2.6))
y = np.arange(len(side))
ax.hlines(y - 0.1, side["ubar_low"], side["ubar_high"], color="C0", lw=3, label="closed form")
ax.hlines(y + 0.1, side["ubar_mcmc_low"], side["ubar_mcmc_high"], color="C3", lw=3, label="MCMC")
ax.set_yticks(y, side["model"])
ax.set_xlabel("ubar, 95 % interval")
ax.legend(frameon=False, fontsize=8)
fig.tight_layout()

# %%
# The package's test suite makes this comparison systematically (closed forms against MCMC of
# the same model, and the marginal model with exact u-draws against the latent model);
# :doc:`/mcmc` explains why the marginal model replaces the latent one at scale.
