"""Beta(p, 1-p) theory and real-data checks (shared data, skipped when absent)."""

import numpy as np
import pytest

from bayesnoise.conjugate import (
    benchmark_kappa,
    population_difference,
    posterior_table,
    theory_se_difference,
)


def test_theory_se_kappa_one_is_sqrt_pq_over_n():
    p = np.linspace(0.05, 0.95, 7)
    np.testing.assert_allclose(theory_se_difference(p, 200), np.sqrt(p * (1 - p) / 200))
    assert theory_se_difference(0.5, 100, kappa=3.0) == pytest.approx(
        np.sqrt(2 * 0.25 * 0.75 / 100)
    )
    with pytest.raises(ValueError):
        theory_se_difference(0.5, 0)


def test_benchmark_kappa_recovers_shared_beta():
    rng = np.random.default_rng(0)
    u = rng.beta(0.5 * 2.0, 0.5 * 2.0, 2000)
    c = rng.binomial(1, np.broadcast_to(u, (12, 2000)))
    kap, groups = benchmark_kappa(c, np.ones_like(c), bins=3)
    assert kap == pytest.approx(2.0, rel=0.2)
    assert len(groups) == 3


@pytest.mark.shared_data
def test_real_data_population_width_matches_frequentist(shared_data):
    from bayesnoise import load
    from bayesnoise.frequentist import pair_noise

    ds = load(shared_data / "all-the-noises" / "main" / "input_table_mbpp.csv")  # N = 378, K = 1
    fr = pair_noise(ds)
    c, k = ds["correct"].values, ds["samples"].values
    pop = population_difference(c / k, n_resamples=4000, rng=0)
    ia, ib = np.triu_indices(c.shape[0], k=1)
    close = np.abs(fr["difference"].to_numpy()) < 5 * fr["se_total"].to_numpy()
    ratio = (pop["high"] - pop["low"])[ia, ib][close] / (
        2 * 1.959964 * fr["se_difference"].to_numpy()[close]
    )
    assert abs(np.median(ratio) - 1) < 0.05


@pytest.mark.shared_data
def test_real_data_posterior_table_humaneval(shared_data):
    from bayesnoise import load

    ds = load(shared_data / "all-the-noises" / "main" / "input_table_humaneval.csv")
    with pytest.warns(UserWarning, match="not identifiable"):
        df = posterior_table(ds)
    # K = 1: kappa is not identified, so the split into data and prediction noise is not
    # reported (it would only restate the kappa prior); every interval is finite.
    assert len(df) == 78
    assert df[["se_data_bayes", "se_prediction_bayes"]].isna().all().all()
    assert not df.drop(columns=["se_data_bayes", "se_prediction_bayes"]).isna().any().any()
    assert (df["kappa_status"] == "not identified (K = 1): prior").all()
    assert np.all(np.abs(df["mu"] - df["accuracy"]) < 0.02)
