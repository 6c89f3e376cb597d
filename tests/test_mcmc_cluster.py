"""The PyMC model with a cluster level against the frequentist cluster-robust SE on the same data."""

import importlib.util

import numpy as np
import pytest

from bayesnoise.data import DataError, from_arrays
from bayesnoise.frequentist.cluster import clustered_moments
from bayesnoise.mcmc import check_convergence, cluster_model

N_CLUSTERS, SIZE, K = 40, 8, 5


def _data(seed=11, mu=0.4, kappa_between=3.0, kappa_within=4.0):
    """One model from the model's own generative process: cluster means, then questions."""
    rng = np.random.default_rng(seed)
    q = rng.beta(mu * kappa_between, (1 - mu) * kappa_between, N_CLUSTERS)
    codes = np.repeat(np.arange(N_CLUSTERS), SIZE)
    u = rng.beta(q[codes] * kappa_within, (1 - q[codes]) * kappa_within)
    return rng.binomial(K, u)[None], codes


def _sample(model, seed):
    if importlib.util.find_spec("nutpie") is not None:
        import nutpie

        compiled = nutpie.compile_pymc_model(model)
        return nutpie.sample(
            compiled, draws=1000, tune=700, chains=2, seed=seed, progress_bar=False
        )
    import pymc as pm

    return pm.sample(
        draws=1000,
        tune=700,
        chains=2,
        random_seed=seed,
        progressbar=False,
        compute_convergence_checks=False,
        model=model,
    )


def test_labels_are_checked_before_pymc_builds_anything():
    with pytest.raises(DataError, match="one label per question"):
        cluster_model([[1, 2, 3]], 4, cluster=["a", "b"])
    ds = from_arrays(np.array([[1, 2, 3, 0]]), np.full((1, 4), 4))
    with pytest.raises(DataError, match="cluster_col="):
        cluster_model(ds)


@pytest.mark.mcmc
def test_posterior_sd_of_mu_matches_the_clustered_se():
    correct, codes = _data()
    tree = _sample(cluster_model(correct, K, cluster=codes), seed=1)
    report = check_convergence(
        tree, var_names=["mu", "kappa_between", "kappa_within", "q"], warn=False
    )
    assert report.ok, report.message()  # r_hat <= 1.01, bulk and tail ESS >= 400, 0 divergences
    mu = tree["posterior"]["mu"].values.ravel()
    freq = clustered_moments(correct / K, codes)
    se_cl, se_iid = np.sqrt(freq["var_clustered"][0]), np.sqrt(freq["var_iid"][0])
    ess = float(report.table.loc["mu", "ess_bulk_min"])
    # Tolerance on sd / se_clustered: the CR1 SE's own relative sampling error is about
    # 1 / sqrt(2 (C - 1)) (0.11 for C = 40) and the posterior sd's Monte Carlo error about
    # 1 / sqrt(2 ESS); three of each.
    tol = 3 / np.sqrt(2 * (N_CLUSTERS - 1)) + 3 / np.sqrt(2 * ess)
    assert abs(mu.std() / se_cl - 1) <= tol
    # ... while ignoring the clusters would be far off (design effect of this data ~ 4).
    assert mu.std() / se_iid - 1 > tol
    # the population accuracy agrees with the observed one within 2 clustered SEs
    assert abs(mu.mean() - freq["accuracy"][0]) <= 2 * se_cl
