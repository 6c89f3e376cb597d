"""The p-values of the pairs table: each against an independent reference, and their size."""

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats

from bayesnoise.data import from_arrays
from bayesnoise.frequentist import pair_noise, pair_noise_dataset, paired_test
from bayesnoise.frequentist.columns import question_sign_counts, sign_flip_pvalues


def _ds(rng, m=4, n=30, k=4):
    u = rng.beta(1.0, 1.0, size=(1, n)).repeat(m, axis=0)
    return from_arrays(rng.binomial(k, u), np.full((m, n), k))


def test_sign_test_on_averaged_differences_is_scipy_binomtest():
    rng = np.random.default_rng(10)
    ds = _ds(rng)
    mat = pair_noise_dataset(ds)
    p = ds["correct"].values / ds["samples"].values
    for a, b in itertools.permutations(range(4), 2):
        d = p[a] - p[b]
        above, below = int((d > 0).sum()), int((d < 0).sum())  # ties dropped
        assert mat["questions_a_above"].values[a, b] == above
        ref = stats.binomtest(above, above + below, 0.5).pvalue
        assert mat["p_value_sign_questions"].values[a, b] == pytest.approx(ref, rel=1e-12)


def test_ties_from_different_sample_counts_are_ties():
    # 1/3 and 2/6 are the same score reached from different K: a tie, not a win
    p = np.array([[1 / 3, 0.5, 1.0], [2 / 6, 2 / 4, 0.0]])
    assert question_sign_counts(p).tolist() == [[0, 1], [0, 0]]


def test_permutation_pvalue_matches_full_enumeration():
    rng = np.random.default_rng(11)
    n = 12
    p = rng.integers(0, 5, size=(2, n)) / 4
    d = p[0] - p[1]
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=n)))  # all 4096 sign vectors
    exact = np.mean(np.abs(signs @ d) >= abs(d.sum()) - 1e-12)
    b = 20_000
    ours = sign_flip_pvalues(p, n_resamples=b, rng=np.random.default_rng(0))[0, 1]
    # (1 + hits) / (1 + B) has MC SE sqrt(p (1 - p) / B); allow 4 of them plus the 1 / B offset
    assert abs(ours - exact) <= 4 * np.sqrt(exact * (1 - exact) / b) + 1 / b


def test_p_value_is_the_paired_t_test_and_k1_sign_tests_coincide():
    rng = np.random.default_rng(12)
    ds = _ds(rng, m=3, n=200, k=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # K = 1: split not identifiable
        df = pair_noise(ds)
    # z uses the ddof-0 SE; p_value is the paired t test (ddof-1 SE, N - 1 df)
    np.testing.assert_allclose(
        df["p_value"], 2 * stats.t.sf(np.abs(df["z"]) * np.sqrt(199 / 200), 199), rtol=1e-12
    )
    # with 0/1 scores and K = 1, d_i in {-1, 0, 1}: both sign tests count the same questions
    np.testing.assert_array_equal(df["p_value_sign_questions"], df["p_value_sign_one_sample"])


def test_adjusted_equals_statsmodels_over_all_pairs():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(13)
    u = rng.beta(1, 1, size=(1, 300)) * rng.uniform(0.7, 1.0, size=(6, 1))
    ds = from_arrays(rng.binomial(5, u), np.full((6, 300), 5))
    for ours, theirs in (("holm", "holm"), ("bh", "fdr_bh"), ("bonferroni", "bonferroni")):
        df = pair_noise(ds, adjust=ours)
        ref = multitest.multipletests(df["p_value"], method=theirs)[1]
        np.testing.assert_allclose(df["p_value_adjusted"], ref, rtol=0, atol=1e-12)
        assert df.attrs["family_size"] == 15
        kept = pair_noise(ds, adjust=ours, max_difference=0.02)
        full = df.set_index(["model_a", "model_b"]).loc[
            list(zip(kept.model_a, kept.model_b, strict=True))
        ]
        np.testing.assert_array_equal(kept["p_value_adjusted"], full["p_value_adjusted"])


def test_paired_test_methods_match_the_table():
    rng = np.random.default_rng(14)
    ds = _ds(rng, m=2, n=150, k=6)
    mat = pair_noise_dataset(ds, n_resamples=999, resampling="permutation", rng=3)
    for method, column in (
        ("t", "p_value"),
        ("sign", "p_value_sign_questions"),
        ("sign_one_sample", "p_value_sign_one_sample"),
        ("mcnemar_one_sample", "p_value_mcnemar_one_sample"),
    ):
        res = paired_test(ds, pair=("m0", "m1"), method=method)
        assert res.pvalue == float(mat[column][0, 1])
    res = paired_test(ds, pair=("m0", "m1"), method="permutation", n_resamples=999, rng=3)
    assert res.pvalue == float(mat["p_value_permutation"][0, 1])
    assert res.statistic == pytest.approx(res.difference * 150, rel=1e-12)


def _null_data(rng, reps, n, k, rho=0.8):
    """Two exchangeable models: shared question difficulty, correlation about ``rho``."""
    theta = rng.normal(0, 1.5, size=(reps, 1, n))
    own = rng.normal(0, 1.5 * np.sqrt((1 - rho) / rho), size=(reps, 2, n))
    u = 1 / (1 + np.exp(-(theta + own)))
    return rng.binomial(k, u), k


@pytest.mark.slow
@pytest.mark.parametrize("k", [1, 10])
def test_type_one_error_of_every_printed_pvalue(k):
    """CI-sized version of benchmarks/simulation_pvalues.py: 400 null replicates at N = 200."""
    rng = np.random.default_rng(15 + k)
    reps, n = 400, 200
    correct, k = _null_data(rng, reps, n, k)
    rejected = {"p_value": 0, "p_value_sign_questions": 0, "p_value_permutation": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(reps):
            ds = from_arrays(correct[r], np.full((2, n), k))
            mat = pair_noise_dataset(ds, n_resamples=199, resampling="permutation", rng=r)
            for name in rejected:
                rejected[name] += float(mat[name][0, 1]) <= 0.05
    # binomial MC SE at 0.05 with 400 replicates is 0.011; 3 SE around the nominal level. Exact
    # tests of discrete d_i (the sign test; the permutation test at K = 1, where d_i is -1, 0
    # or 1) cannot reach 0.05 exactly and are allowed to be conservative down to 0.02
    for name, count in rejected.items():
        discrete = name == "p_value_sign_questions" or (name == "p_value_permutation" and k == 1)
        low = 0.02 if discrete else 0.05 - 3 * 0.011
        assert low <= count / reps <= 0.05 + 3 * 0.011, (name, count / reps)


@pytest.mark.parametrize("k", [1, 3, 10])
def test_question_sign_counts_by_levels_equal_the_pairwise_loop(k):
    # the level-indicator matrix products must count exactly what a direct comparison counts,
    # also when equal averages differ by float rounding (+-1e-16) and for continuous scores
    from bayesnoise.frequentist.columns import question_sign_counts

    rng = np.random.default_rng(k)
    p = rng.binomial(k, rng.uniform(size=(12, 300))) / k
    p = p + rng.choice([0.0, 1e-16, -1e-16], size=p.shape)
    cont = rng.uniform(size=(5, 200))
    for scores in (p, cont):
        diff = scores[:, None, :] - scores[None, :, :]
        tol = 1e-12 * np.abs(scores).max()
        np.testing.assert_array_equal(question_sign_counts(scores), (diff > tol).sum(-1))


def test_paired_t_result_is_scipy_style_and_equals_ttest_rel():
    from scipy import stats

    rng = np.random.default_rng(15)
    ds = _ds(rng, m=2, n=120, k=4)
    res = paired_test(ds, pair=("m0", "m1"))
    p = ds["correct"].values / ds["samples"].values
    ref = stats.ttest_rel(p[0], p[1])
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    assert res.df == ref.df == 119 and res.alternative == "two-sided"
    with pytest.raises(ValueError, match="now 't'"):
        paired_test(ds, pair=("m0", "m1"), method="z")
