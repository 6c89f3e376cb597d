"""A cluster level in the Beta-Binomial hierarchy: questions drawn around their cluster's mean.

Per model ``m``, cluster ``c`` and question ``i`` in cluster ``c(i)``::

    mu_m              ~ Beta(priors.mu_alpha, priors.mu_beta)       population accuracy
    kappa_between_m   ~ LogNormal(log kappa_median, kappa_log_sd)  how alike the clusters are
    kappa_within_m    ~ LogNormal(log kappa_median, kappa_log_sd)  how alike a cluster's questions are
    q_mc              ~ Beta(mu kappa_between, (1 - mu) kappa_between)      cluster mean accuracy
    u_mi | q          ~ Beta(q kappa_within, (1 - q) kappa_within)          (integrated out)
    correct_mi        ~ BetaBinomial(count_mi, q kappa_within, (1 - q) kappa_within)

so E[u] = mu exactly: ``mu`` is the accuracy on the population of clusters and questions, the
target of the cluster-robust standard error of :func:`bayesnoise.frequentist.cluster_noise`.
Derived: ``icc = (kappa_within + 1) / (kappa_within + 1 + kappa_between)``, the correlation of
two questions' accuracies in the same cluster, and ``data_var = Var[u]``. PyMC is imported
inside the function.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayesnoise.data import QUESTION, from_arrays
from bayesnoise.frequentist.cluster import cluster_codes

from .inputs import model_data
from .priors import DEFAULT_PRIORS, Priors

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm

__all__ = ["cluster_model"]


def cluster_model(
    correct: Any,
    count: Any = None,
    *,
    cluster: Any = "cluster",
    priors: Priors | None = None,
    models: Any = None,
) -> pm.Model:
    """Beta-Binomial hierarchy with a cluster level, as a :class:`pymc.Model`.

    Parameters
    ----------
    correct : xarray.Dataset or array_like, shape (M, N) or (N,)
        A dataset from :func:`bayesnoise.load`, or correct counts per (model, question).
    count : array_like, optional
        Samples per cell (required with arrays; a scalar K is fine).
    cluster : str or array_like, default "cluster"
        With a dataset, a coordinate along ``question`` or one label per question; with arrays,
        one label per question (see :func:`bayesnoise.frequentist.cluster.cluster_codes`).
    priors : Priors, optional
        ``mu_mean, mu_concentration`` for mu; ``kappa_median, kappa_log_sd`` for both
        concentrations.
    models : sequence of str, optional
        Model labels (arrays only).

    Returns
    -------
    pymc.Model
        Dims ``model``, ``cluster``, ``question``. Free variables ``mu``, ``kappa_between``,
        ``kappa_within`` (per model), ``q`` (per model and cluster); deterministics ``icc`` and
        ``data_var``. Sample it with ``pymc.sample`` or nutpie and check it with
        :func:`bayesnoise.mcmc.check_convergence`.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.mcmc import cluster_model
    >>> model = cluster_model([[3, 5, 0, 4]], 5, cluster=["x", "x", "y", "y"])
    >>> sorted(v.name for v in model.free_RVs)
    ['kappa_between', 'kappa_within', 'mu', 'q']
    """
    if hasattr(correct, "data_vars"):
        ds = correct
        if count is not None:
            raise TypeError("pass either a dataset or (correct, count) arrays, not both")
        data = model_data(ds)
    else:
        data = model_data(correct, count, models=models)
        ds = from_arrays(data.correct, data.count, models=data.models)
    codes, labels = cluster_codes(ds, cluster)
    priors = DEFAULT_PRIORS if priors is None else priors
    import pymc as pm

    coords = {
        "model": data.models,
        "cluster": [str(x) for x in labels],
        QUESTION: [str(x) for x in ds[QUESTION].values],
    }
    log_median = np.log(priors.kappa_median)
    with pm.Model(coords=coords) as model:
        mu = pm.Beta("mu", alpha=priors.mu_alpha, beta=priors.mu_beta, dims="model")
        k_between = pm.LogNormal(
            "kappa_between", mu=log_median, sigma=priors.kappa_log_sd, dims="model"
        )
        k_within = pm.LogNormal(
            "kappa_within", mu=log_median, sigma=priors.kappa_log_sd, dims="model"
        )
        q = pm.Beta(
            "q",
            alpha=(mu * k_between)[:, None],
            beta=((1 - mu) * k_between)[:, None],
            dims=("model", "cluster"),
        )
        q_i = q[:, codes]
        pm.BetaBinomial(
            "correct",
            n=data.count,
            alpha=q_i * k_within[:, None],
            beta=(1 - q_i) * k_within[:, None],
            observed=data.correct,
            dims=("model", QUESTION),
        )
        pm.Deterministic("icc", (k_within + 1) / (k_within + 1 + k_between), dims="model")
        # Var[u] = Var[q] + E[q (1 - q)] / (kappa_within + 1)
        between = mu * (1 - mu) / (k_between + 1)
        pm.Deterministic("data_var", between * (1 + k_between / (k_within + 1)), dims="model")
    return model
