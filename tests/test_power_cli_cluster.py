"""``bayesnoise power --cluster-col``: the cluster-aware numbers beside the naive ones."""

import io
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import special

from bayesnoise import load
from bayesnoise.cli import main
from bayesnoise.frequentist import (
    CLUSTER_NEEDED_COLUMNS,
    CLUSTER_POWER_COLUMNS,
    NEEDED_COLUMNS,
    POWER_COLUMNS,
    cluster_pair_noise,
)

Z = special.ndtri(0.975) + special.ndtri(0.8)  # two-sided 5%, power 80%


def _csv(capsys, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main([*args, "--format", "csv"]) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out))


def _write(path, k, n_clusters=60, size=5, seed=7):
    """Three models on clustered questions; b loses a cluster-level share of a's accuracy, so
    the paired differences themselves are clustered (data variance > 0, icc > 0)."""
    rng = np.random.default_rng(seed)
    u = np.repeat(rng.beta(2, 2, n_clusters), size)
    drop = np.repeat(rng.uniform(0.5, 1.0, n_clusters), size)
    us = {"a": u, "b": u * drop, "c": 0.95 * u}
    rows = ["model,question,topic,count,correct"]
    for name, ui in us.items():
        c = rng.binomial(k, ui)
        rows += [f"{name},q{i},t{i // size},{k},{c[i]}" for i in range(n_clusters * size)]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def test_power_with_clusters_matches_the_cluster_robust_se(capsys, tmp_path):
    path = _write(tmp_path / "cl.csv", k=4)
    out = _csv(capsys, "power", path, "--cluster-col", "topic", "--difference", "0.05")
    naive = _csv(capsys, "power", path, "--difference", "0.05")
    assert list(naive.columns) == POWER_COLUMNS + NEEDED_COLUMNS
    assert list(out.columns) == POWER_COLUMNS + NEEDED_COLUMNS + CLUSTER_POWER_COLUMNS + (
        CLUSTER_NEEDED_COLUMNS
    )
    # the naive numbers are unchanged by --cluster-col
    pd.testing.assert_frame_equal(out[naive.columns], naive)
    assert (out.clusters == 60).all() and (out.cluster_size == 5).all()
    ds = load(path, columns={"cluster": "topic"})
    cp = cluster_pair_noise(ds, "cluster").set_index(["model_a", "model_b"])
    row = out.set_index(["model_a", "model_b"]).loc[("a", "b")]
    ref = cp.loc[("a", "b")]
    assert 0 < row.icc < 1 and row.data > 0  # the case where no clipping happens
    # at the file's N and K: data (1 + (m - 1) icc_u) + prediction / K = var_obs (1 + (m - 1)
    # icc_obs) = sum_c S_c^2 / N, which is the CR1 variance times N (C - 1) / C; so the
    # detectable gap is Z * se_clustered * sqrt((C - 1) / C) (exact algebra, rounding only)
    c = 60
    assert row.clustered_min_difference == pytest.approx(
        Z * ref.se_clustered * np.sqrt((c - 1) / c), rel=1e-9
    )
    assert row.design_effect == pytest.approx(ref.design_effect * (c - 1) / c, rel=1e-9)
    # clusters needed: the smallest C with Z sqrt(v_cluster / C) <= 0.05, v_cluster the
    # variance of one cluster's mean difference = (sum_c S_c^2 / N) / m
    v_cluster = ref.se_clustered**2 * (c - 1) / c * 300 / 5
    assert row.clustered_clusters_needed == np.ceil(v_cluster * (Z / 0.05) ** 2)
    assert row.clustered_questions_needed == row.clustered_clusters_needed * 5
    assert row.clustered_questions_needed > row.paired_questions_needed  # icc > 0 costs


def test_power_with_clusters_plans_other_n_and_k(capsys, tmp_path):
    path = _write(tmp_path / "cl.csv", k=4)
    base = _csv(capsys, "power", path, "--cluster-col", "topic")
    more = _csv(
        capsys,
        "power",
        path,
        "--cluster-col",
        "topic",
        "--planned-questions",
        "1200",
        "--planned-samples-per-question",
        "16",
    )
    # four times the clusters: the cluster-level variance falls 4x, and K = 16 also cuts the
    # prediction part, so the gap shrinks by at least a factor 2
    assert (more.clustered_min_difference <= base.clustered_min_difference / 2 + 1e-12).all()
    # more samples make the data part (the clustered one) a larger share: design effect grows
    assert (more.design_effect >= base.design_effect - 1e-12).all()


def test_power_with_clusters_at_one_sample(capsys, tmp_path):
    path = _write(tmp_path / "k1.csv", k=1)
    out = _csv(capsys, "power", path, "--cluster-col", "topic", "--difference", "0.1")
    assert np.isfinite(out.clustered_min_difference).all()
    assert np.isfinite(out.clustered_clusters_needed).all()
    # K = 1: icc is that of the observed differences, the design effect 1 + (m - 1) icc
    np.testing.assert_allclose(out.design_effect, 1 + 4 * out.icc, rtol=1e-12)


def test_power_cluster_col_must_exist(capsys, tmp_path):
    path = _write(tmp_path / "cl.csv", k=2)
    assert main(["power", path, "--cluster-col", "nope"]) == 2
    assert "nope" in capsys.readouterr().err


def test_cluster_power_table_reuses_a_given_power_table(tmp_path):
    # the CLI hands its power_table to cluster_power_table (base=) instead of computing it
    # twice: the result must be the same table, exactly
    from bayesnoise.frequentist import cluster_power_table, power_table

    ds = load(_write(tmp_path / "cl.csv", k=4), columns={"cluster": "topic"})
    kw = {"n": 600, "k": 8}
    own = cluster_power_table(ds, difference=0.05, **kw)
    given = cluster_power_table(
        ds, difference=0.05, base=power_table(ds, difference=0.05, **kw), **kw
    )
    pd.testing.assert_frame_equal(own, given)
