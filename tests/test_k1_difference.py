"""K = 1 these-questions difference (issue 28, item 8): ``dbar`` is never wider than the
population interval, which is valid for it, and ``dbar_method`` says which answer is printed.

The full measurement (coverage and width on real difficulty shapes, before and after) is
``studies/k1_difference.py`` -> ``benchmarks/results/k1_difference.md``; here the same
generator runs at small R.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest
from conftest import REPO, SHARED_DATA

from bayesnoise.conjugate import posterior_pairs_table
from bayesnoise.data import from_arrays

sys.path.insert(0, str(REPO))
from studies import k1_difference as study

POPULATION = "population interval (K = 1)"
BOUND = "binomial bound (K = 1)"


def _table(c, k):
    ds = from_arrays(c, k, models=[f"m{i}" for i in range(c.shape[0])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the K = 1 kappa note
        return posterior_pairs_table(ds, progress=False)


def test_k1_dbar_never_wider_than_the_population_interval_and_says_which():
    """Strongly correlated models at K = 1 (shared difficulties): the binomial bound ignores
    the pairing, so the population interval is narrower and is printed, with its probability;
    the rule is the narrower of the two for every K = 1 pair; a K = 5 pair keeps its
    posterior."""
    rng = np.random.default_rng(3)
    u = rng.beta(0.5, 0.5, 200)
    c1 = (rng.random((4, 200)) < np.stack([u, u, np.clip(u + 0.05, 0, 1), u * 0.9])).astype(int)
    df = _table(c1, np.ones_like(c1))
    width = df["dbar_high"] - df["dbar_low"]
    pop_width = df["mu_difference_high"] - df["mu_difference_low"]
    assert (width <= pop_width + 1e-12).all()
    assert set(df["dbar_method"]) <= {POPULATION, BOUND}
    pop = df["dbar_method"] == POPULATION
    assert pop.any()
    for col in ("low", "high"):
        np.testing.assert_array_equal(
            df.loc[pop, f"dbar_{col}"], df.loc[pop, f"mu_difference_{col}"]
        )
    np.testing.assert_array_equal(
        df.loc[pop, "prob_a_better"], df.loc[pop, "prob_a_better_population"]
    )
    c5 = rng.binomial(5, np.stack([u, u]))
    assert _table(c5, np.full_like(c5, 5))["dbar_method"].tolist() == ["posterior"]


@pytest.mark.shared_data
def test_k1_coverage_width_and_size_on_a_real_shape(shared_data):
    """human_eval_plus (all-the-noises, K ~ 1,100 per question: real per-question success
    probabilities), N = 100, K = 1, R = 60 close pairs and 60 null pairs (a model against
    itself).

    Bands, two-sided, nominal 0.95 +- 3 binomial MCSE sqrt(0.95 * 0.05 / 60) = 0.028 (z = 3,
    R = 60): [0.866, 1.0] (the upper end is above 1: the these-questions error is the
    prediction noise only, so an interval valid for the population over-covers it here; the
    study measures 0.96-0.99 at R = 400). Width: the median over the paired t width is at most
    1.1 (the population interval's is 0.96-1.00 in the study; the binomial bound's 1.13-1.22
    on close pairs). Size of prob_a_better > 0.95 under the null: at most 0.05 + 3 MCSE
    (sqrt(0.05 * 0.95 / 60) = 0.028), i.e. 0.134."""
    got = study.cell("human_eval_plus", 100, 60, seed=1)
    mcse = np.sqrt(0.95 * 0.05 / 60)
    assert 0.95 - 3 * mcse <= got["coverage_dbar"] <= 1.0, got
    assert got["width_ratio_dbar"] <= 1.1, got
    assert got["width_ratio_dbar"] <= got["width_ratio_mu_difference"] + 1e-12, got
    assert got["size_prob_a_better"] <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 60), got


@pytest.mark.shared_data
def test_study_pool_reader_matches_the_files(shared_data):
    u, names = study.pool("aime", SHARED_DATA / "all-the-noises" / "highk_temp0.7")
    assert u.shape[1] == 60 and len(names) == u.shape[0]
    assert np.all(np.diff(u.mean(axis=1)) >= 0)  # sorted by accuracy
