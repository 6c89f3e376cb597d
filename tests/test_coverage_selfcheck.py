"""The coverage self-check (``bayesnoise coverage``, :mod:`bayesnoise.decide.selfcheck`).

Oracles: scipy's rank and Beta quantile functions for the populations; an independent
re-implementation of the simulation loop (numpy resampling, statsmodels-free frequentist
intervals called directly) for the coverage it reports; the binomial formula for its Monte
Carlo SE.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import bayesnoise as bn
from bayesnoise.data import DataError, from_arrays
from bayesnoise.decide.selfcheck import (
    INTERVALS,
    POPULATIONS,
    _summary,
    coverage_table,
    population_atoms,
    question_quantiles,
)
from bayesnoise.vocabulary import is_registered


def _benchmark(rng, models=3, n=120, k=5, kappa=2.0):
    """Correlated models on shared questions: a Beta question effect shifted per model."""
    u0 = rng.beta(0.5 * kappa, 0.5 * kappa, n)
    shifts = np.linspace(1.0, 0.8, models)[:, None]
    u = np.clip(u0[None] * shifts, 0, 1)
    c = rng.binomial(k, u)
    return from_arrays(c, np.full(c.shape, k), models=[f"m{i}" for i in range(models)])


def test_quantiles_are_midranks_without_ties():
    rng = np.random.default_rng(1)
    p = rng.random((3, 50))  # continuous: no ties
    q = question_quantiles(p, rng)
    expected = (stats.rankdata(p, axis=1) - 0.5) / 50
    np.testing.assert_allclose(q, expected, rtol=0, atol=1e-12)


def test_quantile_ties_follow_the_mean_over_models():
    # model 0 ties every question; model 1 orders them: model 0's ranks follow model 1's
    p = np.array([[0.0, 0.0, 0.0, 0.0], [0.2, 0.8, 0.4, 0.6]])
    q = question_quantiles(p, np.random.default_rng(0))
    np.testing.assert_array_equal(np.argsort(q[0]), np.argsort(p[1]))


def test_fitted_atoms_are_beta_quantiles():
    rng = np.random.default_rng(2)
    q = (np.arange(40) + 0.5)[None] / 40 * np.ones((2, 1))
    mu, kappa = np.array([0.3, 0.8]), np.array([2.0, 0.5])
    u = population_atoms("fitted", rng.random((2, 40)), q, mu, kappa, [np.nan, np.nan])
    for j in range(2):
        ref = stats.beta.ppf(q[j], mu[j] * kappa[j], (1 - mu[j]) * kappa[j])
        np.testing.assert_allclose(u[j], ref, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize(("acc", "var"), [(0.3, 0.05), (0.9, 0.09), (0.5, 0.0)])
def test_two_point_atoms_match_accuracy_and_data_variance(acc, var):
    n = 1000
    p = np.zeros((1, n))
    p[0, : int(acc * n)] = 1.0  # observed accuracy exactly acc
    q = ((np.arange(n) + 0.5) / n)[None]
    u = population_atoms("two-point", p, q, [acc], [1.0], [var])
    assert np.unique(u).size <= 2
    # the share of atoms above 1 - acc is acc within one atom (1 / n)
    assert u.mean() == pytest.approx(acc, abs=1.0 / n)
    assert u.var() == pytest.approx(min(var, acc * (1 - acc)), abs=2.0 / n)


def test_two_point_uses_the_beta_variance_where_data_variance_is_unknown():
    n, mu, kappa = 400, 0.5, 3.0
    p = np.zeros((1, n))
    p[0, : n // 2] = 1.0
    q = ((np.arange(n) + 0.5) / n)[None]
    u = population_atoms("two-point", p, q, [mu], [kappa], [np.nan])
    assert u.var() == pytest.approx(mu * (1 - mu) / (kappa + 1), abs=1e-12)


def test_summary_mcse_is_binomial_for_independent_hits():
    rng = np.random.default_rng(3)
    r = 4000
    z = rng.normal(size=(r, 1))
    low, high = z - 1.959964, z + 1.959964  # covers 0 when |z| <= 1.96: probability 0.95
    out = _summary(low, high, np.zeros((r, 1)), 0.95)
    p = out["coverage"]
    # one unit per replicate: the per-replicate SD is the Bernoulli SD (ddof 1)
    assert out["coverage_mcse"] == pytest.approx(np.sqrt(p * (1 - p) / (r - 1)), rel=1e-12)
    # and the coverage is 0.95 within 4 binomial SEs (0.0034 each)
    assert abs(p - 0.95) <= 4 * np.sqrt(0.95 * 0.05 / r)
    assert out["coverage_status"] == "ok"


def test_summary_flags_over_coverage_and_empty_intervals():
    ones = np.ones((50, 4))
    out = _summary(-ones, ones, np.zeros((50, 4)), 0.95)  # covers always
    assert out["coverage"] == 1.0 and out["coverage_status"] == "over"
    nan = np.full((50, 4), np.nan)
    assert _summary(nan, nan, np.zeros((50, 4)), 0.95)["coverage_status"] == "not printed"


def _independent_accuracy_coverage(ds, replicates, rng):
    """The coverage of ``accuracy`` and ``accuracy_here`` under the empirical population, by
    a loop written independently of the module (each replicate one model at a time)."""
    c, k = ds["correct"].values, ds["samples"].values
    p = c / k
    n = p.shape[1]
    hits = {"accuracy": [], "accuracy_here": []}
    for _ in range(replicates):
        idx = rng.integers(0, n, n)
        u = p[:, idx]
        sim = rng.binomial(k, u)
        noise = bn.frequentist.model_noise(from_arrays(sim, k), confidence_level=0.95)
        pop_truth, here_truth = p.mean(axis=1), u.mean(axis=1)
        lo, hi = noise["accuracy_low"].to_numpy(), noise["accuracy_high"].to_numpy()
        hits["accuracy"].append((lo <= pop_truth) & (pop_truth <= hi))
        lo, hi = noise["accuracy_here_low"].to_numpy(), noise["accuracy_here_high"].to_numpy()
        hits["accuracy_here"].append((lo <= here_truth) & (here_truth <= hi))
    return {name: np.mean(h, axis=1) for name, h in hits.items()}


def test_coverage_agrees_with_an_independent_simulation():
    rng = np.random.default_rng(4)
    ds = _benchmark(rng, models=3, n=60, k=4)
    r = 150
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = coverage_table(ds, n_resamples=r, populations=("empirical",), progress=False, rng=5)
        ref = _independent_accuracy_coverage(ds, r, np.random.default_rng(6))
    ours = ours.set_index("interval")
    for name, per_rep in ref.items():
        se_ref = per_rep.std(ddof=1) / np.sqrt(r)
        se = ours.loc[name, "coverage_mcse"]
        # two independent estimates of the same coverage: 4 SEs of their difference
        diff = ours.loc[name, "coverage"] - per_rep.mean()
        assert abs(diff) <= 4 * np.hypot(se, se_ref), (name, ours.loc[name, "coverage"], ref)


def test_table_shape_names_and_registry():
    rng = np.random.default_rng(7)
    ds = _benchmark(rng)
    df = coverage_table(ds, n_resamples=10, progress=False)
    assert len(df) == len(INTERVALS) * len(POPULATIONS)
    # the verdicts first: the population fitted to the file, every interval; then the stress
    # populations, reported with their coverage and width but never judged (issue 28, item 9)
    fitted = df.iloc[: len(INTERVALS)]
    assert fitted["interval"].tolist() == list(INTERVALS)
    assert (fitted["population"] == "fitted").all()
    assert (fitted["population_role"] == "fitted to the file").all()
    stress = df.iloc[len(INTERVALS) :]
    assert set(stress["population"]) == {"two-point", "empirical"}
    assert (stress["population_role"] == "stress test").all()
    assert all(is_registered(col) for col in df.columns)
    assert set(fitted["coverage_status"]) <= {"ok", "under", "over", "not printed"}
    assert set(stress["coverage_status"]) <= {"stress test", "not printed"}
    pairs = df[df["interval"] == "dbar"]
    assert (pairs["units"] == 3).all() and (df[df["interval"] == "ubar"]["units"] == 3).all()
    assert df.attrs["n_resamples"] == 10 and df.attrs["pair_models"] == ["m0", "m1", "m2"]


def test_k1_frequentist_here_intervals_are_not_printed():
    rng = np.random.default_rng(8)
    ds = _benchmark(rng, models=2, n=100, k=1)
    with pytest.warns(UserWarning, match="coverage: K = 1 for 2 model"):
        df = coverage_table(ds, n_resamples=10, populations=("fitted",), progress=False)
    status = df.set_index("interval")["coverage_status"]
    assert status["accuracy_here"] == "not printed" and status["difference_here"] == "not printed"
    assert status["ubar"] != "not printed"
    assert any("K = 1" in note for note in df.attrs["notes"])


def test_pair_subset_spreads_over_accuracy_and_says_so():
    rng = np.random.default_rng(9)
    ds = _benchmark(rng, models=6, n=80)
    with pytest.warns(UserWarning, match="3 pairs of 3 of 6 models"):
        df = coverage_table(
            ds, n_resamples=4, populations=("empirical",), max_pair_models=3, progress=False
        )
    assert (df[df["interval"] == "dbar"]["units"] == 3).all()
    acc = (ds["correct"] / ds["samples"]).mean("question").to_series()
    picked = df.attrs["pair_models"]
    assert len(picked) == 3 and {acc.idxmax(), acc.idxmin()} <= set(picked)
    assert any("3 pairs of 3 of 6 models" in note for note in df.attrs["notes"])
    assert all(len(note) <= 200 and "\n" not in note for note in df.attrs["notes"])


def test_one_model_has_no_pair_rows():
    rng = np.random.default_rng(10)
    ds = _benchmark(rng, models=1)
    df = coverage_table(ds, n_resamples=5, populations=("fitted",), progress=False)
    assert df["interval"].tolist() == ["accuracy", "accuracy_here", "ubar", "mu"]


def test_bad_input_is_refused_with_a_clear_message():
    rng = np.random.default_rng(11)
    ds = _benchmark(rng)
    with pytest.raises(ValueError, match="populations"):
        coverage_table(ds, populations=("beta",))
    with pytest.raises(ValueError, match="n_resamples"):
        coverage_table(ds, n_resamples=1)
    k = np.full((2, 3), 4)
    k[1, 2] = 0  # model 1 did not answer question 2
    with pytest.raises(DataError, match="intersect"):
        coverage_table(from_arrays(np.minimum(k, 1), k))
    frac = from_arrays(np.array([[0.3, 1.0, 0.5]]), np.ones((1, 3)), counts_known=False)
    with pytest.raises(DataError, match="needs counts"):
        coverage_table(frac)


def test_verb_returns_the_table_with_interval_and_population_coordinates():
    r = bn.coverage(
        "examples/data/cruxeval_output_temp0.8.csv.gz",
        n_resamples=3,
        populations=("two-point",),
        max_pair_models=3,
        progress=False,
    )
    assert r["coverage"].sizes == {"interval": len(INTERVALS), "population": 1}
    assert r["population_role"].values.ravel().tolist() == ["stress test"] * len(INTERVALS)
    table = bn.tidy(r)
    assert list(table.columns[:2]) == ["interval", "population"]
    assert r["coverage"].attrs["long_name"] == "coverage"
    from bayesnoise.verbs.coverage import POPULATIONS as VERB_POPULATIONS

    assert VERB_POPULATIONS == POPULATIONS


def test_command_line(capsys):
    from bayesnoise.cli import main

    code = main(
        [
            "coverage",
            "examples/data/cruxeval_output_temp0.8.csv.gz",
            "--n-resamples",
            "3",
            "--populations",
            "fitted",
            "--max-pair-models",
            "3",
            "--format",
            "csv",
            "--no-progress",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("interval,population,population_role,scope,replicates,units")
    assert len(out) == 1 + len(INTERVALS)
    with pytest.raises(SystemExit) as exc:  # argparse refuses an unknown population
        main(["coverage", "x.csv", "--populations", "beta"])
    assert exc.value.code == 2


@pytest.mark.slow
def test_intervals_hold_on_a_beta_benchmark():
    """On a benchmark whose questions really are Beta (N = 300, K = 10), every printed
    interval covers its nominal 95% under the fitted population within 3 Monte Carlo SEs on
    either side (MCSE as reported: replicate-clustered)."""
    rng = np.random.default_rng(12)
    ds = _benchmark(rng, models=4, n=300, k=10)
    df = coverage_table(ds, n_resamples=200, populations=("fitted",), progress=False)
    for row in df.itertuples():
        se = max(row.coverage_mcse, np.sqrt(0.95 * 0.05 / (200 * row.units)))
        assert abs(row.coverage - 0.95) <= 3 * se, row


def test_pair_step_with_the_model_step_s_posteriors_equals_compare_pairs():
    # the coverage check's pair step takes the per-model step's fit and ubar posteriors instead
    # of refitting the same counts: every column equals compare_pairs' (the population columns
    # share the seed, the fit and the nonparametric prior are deterministic per model, and these
    # pairs' dbar intervals come from the exact cumulants, not the Monte Carlo draws)
    from bayesnoise.decide import compare_pairs
    from bayesnoise.decide.side_by_side import _compare_models, _compare_pairs_given

    rng = np.random.default_rng(8)
    two_point = np.where(rng.random(300) < 0.9, 0.9, 0.05)
    u = np.stack([two_point, rng.beta(4, 2, 300), rng.beta(2, 2, 300)])
    c = rng.binomial(20, u)
    ds = from_arrays(c, np.full(c.shape, 20), models=["a", "b", "c"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = compare_pairs(ds, rng=7, progress=False)
        _, fit, post = _compare_models(ds, 0.95, 3)
        got = _compare_pairs_given(ds, fit, post, 0.95, 7)
    assert list(post["prior"]) == ["nonparametric", "beta", "beta"]
    assert list(got.columns) == list(ref.columns)
    for col in ref.columns:
        if col in ("dbar_low", "dbar_high", "prob_a_better"):
            np.testing.assert_allclose(got[col], ref[col], rtol=0, atol=1e-12)
        else:
            assert got[col].tolist() == ref[col].tolist(), col
