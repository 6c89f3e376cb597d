"""Cluster-robust SEs: statsmodels' CR1 to 1e-10, the noise tables' iid SEs, input errors, the
cluster power formulas, and (slow) coverage with intra-cluster correlation 0.1-0.5."""

import warnings

import numpy as np
import pytest
from scipy import special, stats

from bayesnoise.data import DataError, from_arrays
from bayesnoise.frequentist import model_noise, pair_noise
from bayesnoise.frequentist.cluster import (
    cluster_codes,
    cluster_noise,
    cluster_pair_noise,
    clustered_moments,
)
from bayesnoise.frequentist.cluster_power import (
    cluster_minimum_detectable_difference,
    clustered_components,
    required_clusters,
)


def simulate_clustered(rng, reps, sizes, k, shared, own, *, question=0.5, model=0.2):
    """Two models on clustered questions with known population accuracies (probit model).

    u_mi = Phi(alpha_m + b_c + h_mc + e_i + g_mi): b_c ~ N(0, shared) a cluster effect both
    models share, h_mc ~ N(0, own) a model-specific cluster effect (so that paired differences
    cluster too), e_i ~ N(0, question) a shared question effect, g_mi ~ N(0, model) noise.
    E[Phi(a + Z)] = Phi(a / sqrt(1 + var Z)) gives the population accuracies exactly.
    Returns correct (R, 2, N) out of k, the cluster codes (N,) and the true accuracies (2,).
    """
    alpha = np.array([0.3, 0.1])
    n_c = len(sizes)
    codes = np.repeat(np.arange(n_c), sizes)
    n = codes.size
    b = rng.normal(0, np.sqrt(shared), (reps, 1, n_c)) + rng.normal(0, np.sqrt(own), (reps, 2, n_c))
    latent = alpha[None, :, None] + b[:, :, codes] + rng.normal(0, np.sqrt(question), (reps, 1, n))
    latent += rng.normal(0, np.sqrt(model), (reps, 2, n))
    truth = special.ndtr(alpha / np.sqrt(1 + shared + own + question + model))
    return rng.binomial(k, special.ndtr(latent)), codes, truth


def coverage(correct, codes, truth, k, level=0.95):
    """Coverage of +- quantile x SE for model a and for the difference a - b, iid vs clustered.

    iid uses z (as the noise tables do), clustered Student t with C - 1 df. Returns a dict of
    coverages and the mean estimated icc of the observed scores and of the differences.
    """
    p = correct / k
    n_c = int(codes.max()) + 1
    t = stats.t.ppf(0.5 + level / 2, n_c - 1)
    z = stats.norm.ppf(0.5 + level / 2)
    out = {}
    for name, rows, target in (
        ("model", p[:, 0], truth[0]),
        ("pair", p[:, 0] - p[:, 1], truth[0] - truth[1]),
    ):
        m = clustered_moments(rows, codes, matrices=False)
        err = np.abs(m["accuracy"] - target)
        out[f"{name}_iid"] = float(np.mean(err <= z * np.sqrt(m["var_iid"])))
        out[f"{name}_clustered"] = float(np.mean(err <= t * np.sqrt(m["var_clustered"])))
        out[f"{name}_icc"] = float(np.nanmean(m["icc"]))
    return out


def _dataset(seed=0, n_c=12, k=4, models=3):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, n_c)  # unequal clusters, some singletons
    correct, codes, _ = simulate_clustered(rng, 1, sizes, k, 0.5, 0.3)
    correct = np.concatenate([correct[0], rng.binomial(k, 0.5, (models - 2, codes.size))])
    labels = np.array([f"c{c}" for c in codes])
    ds = from_arrays(correct, np.full(correct.shape, k), models=list("abcdefg"[:models]))
    return ds, labels


def _statsmodels_cluster(y, groups):
    sm = pytest.importorskip("statsmodels.api")
    # cov_type="cluster" defaults: use_correction=True (factor G/(G-1) * (N-1)/(N-k), k = 1
    # regressor here, so G/(G-1)) and df_correction=True (t with G-1 df when use_t=True).
    return sm.OLS(y, np.ones_like(y)).fit(
        cov_type="cluster",
        cov_kwds={"groups": groups, "use_correction": True, "df_correction": True},
        use_t=True,
    )


def test_matches_statsmodels_cr1_for_models_and_pairs():
    ds, labels = _dataset()
    codes, _ = cluster_codes(ds, labels)
    p = (ds["correct"] / ds["samples"]).values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few clusters on purpose
        table = cluster_noise(ds, labels)
        pairs = cluster_pair_noise(ds, labels)
    for m in range(p.shape[0]):
        res = _statsmodels_cluster(p[m], codes)
        assert table.se_clustered[m] == pytest.approx(res.bse[0], rel=1e-10)
    for _, row in pairs.iterrows():
        a, b = (list(ds.model.values).index(x) for x in (row.model_a, row.model_b))
        res = _statsmodels_cluster(p[a] - p[b], codes)
        assert row.se_clustered == pytest.approx(res.bse[0], rel=1e-10)
        assert row.z == pytest.approx(res.tvalues[0], rel=1e-10)
        assert row.p_value == pytest.approx(res.pvalues[0], rel=1e-10)


def test_missing_cells_use_each_models_answered_questions():
    ds, labels = _dataset(seed=1)
    count = ds["samples"].values.copy()
    count[0, :5] = 0
    ds = from_arrays(np.where(count > 0, ds["correct"].values, 0), count, models=ds.model.values)
    codes, _ = cluster_codes(ds, labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = cluster_noise(ds, labels)
    keep = count[0] > 0
    res = _statsmodels_cluster(ds["correct"].values[0, keep] / 4, codes[keep])
    assert table.se_clustered[0] == pytest.approx(res.bse[0], rel=1e-10)
    assert table.questions[0] == keep.sum()
    assert table.clusters[0] == np.unique(codes[keep]).size


def test_iid_columns_are_the_noise_tables_se_mean():
    ds, labels = _dataset(seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = cluster_noise(ds, labels)
        pairs = cluster_pair_noise(ds, labels)
        ref, ref_pairs = model_noise(ds), pair_noise(ds)
    np.testing.assert_allclose(table.se_iid, ref.se_mean, rtol=1e-12)
    np.testing.assert_allclose(table.accuracy, ref.accuracy, rtol=1e-12)
    np.testing.assert_allclose(pairs.se_iid, ref_pairs.se_difference, rtol=1e-12)
    np.testing.assert_allclose(pairs.difference, ref_pairs.difference, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(pairs.design_effect, (pairs.se_clustered / pairs.se_iid) ** 2)


def test_singleton_clusters_give_the_iid_variance_times_n_over_n_minus_1():
    rng = np.random.default_rng(3)
    p = rng.random((2, 50))
    m = clustered_moments(p, np.arange(50))
    np.testing.assert_allclose(m["var_clustered"], m["var_iid"] * 50 / 49, rtol=1e-12)
    assert np.all(np.isnan(m["icc"]))  # no two questions share a cluster


def test_pairs_from_the_matrix_equal_per_pair_rows():
    ds, labels = _dataset(seed=4, models=4)
    codes, _ = cluster_codes(ds, labels)
    p = (ds["correct"] / ds["samples"]).values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pairs = cluster_pair_noise(ds, labels)
    ia, ib = np.triu_indices(4, 1)
    direct = clustered_moments(p[ia] - p[ib], codes, matrices=False)
    np.testing.assert_allclose(pairs.se_clustered, np.sqrt(direct["var_clustered"]), rtol=1e-10)
    np.testing.assert_allclose(pairs.icc, direct["icc"], rtol=1e-9)


def test_coordinate_and_array_agree_and_interval_contains_accuracy():
    ds, labels = _dataset(seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = cluster_noise(ds, labels, confidence_level=0.9)
        b = cluster_noise(ds.assign_coords(cluster=("question", labels)), confidence_level=0.9)
    assert a.equals(b)
    assert np.all((a.accuracy_low < a.accuracy) & (a.accuracy < a.accuracy_high))


def test_bad_cluster_input_is_refused_with_a_message():
    ds, labels = _dataset(seed=6)
    with pytest.raises(DataError, match="cluster_col=COLUMN"):  # Python's spelling
        cluster_noise(ds)  # no coordinate named "cluster"
    with pytest.raises(DataError, match="one label per question"):
        cluster_noise(ds, labels[:-1])
    bad = labels.astype(object)
    bad[3] = None
    with pytest.raises(DataError, match=f"question '{ds.question.values[3]}' has no cluster"):
        cluster_noise(ds, bad)
    with pytest.raises(DataError, match="one cluster"):
        cluster_noise(ds, np.zeros(labels.size))


def test_few_clusters_warn_once():
    ds, labels = _dataset(seed=7)
    with pytest.warns(UserWarning, match="only 12 clusters") as record:
        cluster_noise(ds, labels)
    assert len(record) == 1


def test_power_reduces_to_unclustered_and_matches_a_simulated_variance():
    # icc = 0 or m = 1: the cluster is a question.
    kw = {"data": 0.03, "prediction": 0.15, "k": 4}
    from bayesnoise.frequentist import minimum_detectable_difference

    assert cluster_minimum_detectable_difference(300, 1, icc=0.4, **kw) == pytest.approx(
        minimum_detectable_difference(300, **kw), rel=1e-14
    )
    c = required_clusters(0.04, 8, icc=0.2, **kw)
    assert cluster_minimum_detectable_difference(c, 8, icc=0.2, **kw) <= 0.04
    assert cluster_minimum_detectable_difference(c - 1, 8, icc=0.2, **kw) > 0.04
    # The variance of a cluster's mean score, by simulation: normal question effects with a
    # share icc between clusters, plus prediction noise prediction / k per question.
    rng = np.random.default_rng(8)
    m, icc, reps = 6, 0.3, 20_000
    data_c, pred_c = clustered_components(m, data=kw["data"], prediction=kw["prediction"], icc=icc)
    between = rng.normal(0, np.sqrt(icc * kw["data"]), (reps, 1))
    within = rng.normal(0, np.sqrt((1 - icc) * kw["data"]), (reps, m))
    noise = rng.normal(0, np.sqrt(kw["prediction"] / kw["k"]), (reps, m))
    var = (between + within + noise).mean(axis=1).var(ddof=1)
    # sample variance of normal draws: relative SE sqrt(2 / (reps - 1)); allow 4 SE
    assert var == pytest.approx(data_c + pred_c / kw["k"], rel=4 * np.sqrt(2 / (reps - 1)))


@pytest.mark.slow
def test_clustered_se_covers_and_iid_under_covers():
    reps = 2000
    mc_se = np.sqrt(0.95 * 0.05 / reps)  # binomial MC error of a coverage near 0.95: 0.0049
    rng = np.random.default_rng(9)
    for shared, own in ((0.08, 0.08), (0.6, 0.6)):
        correct, codes, truth = simulate_clustered(rng, reps, np.full(30, 8), 5, shared, own)
        cov = coverage(correct, codes, truth, 5)
        for name in ("model", "pair"):
            assert 0.1 <= cov[f"{name}_icc"] <= 0.5 + 3 * mc_se
            # the brief's band 93-97% is +-0.02 = 4 MC SE around 0.95
            assert 0.93 <= cov[f"{name}_clustered"] <= 0.97
            assert cov[f"{name}_iid"] < cov[f"{name}_clustered"] - 4 * mc_se
