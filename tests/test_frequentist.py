"""Frequentist estimators: against the paper's own array formulas, properties, simulations."""

import warnings

import numpy as np
import pytest
import simulate as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from bayesnoise.data import from_arrays
from bayesnoise.frequentist import (
    _core,
    meta_z,
    minimum_detectable_difference,
    model_noise,
    pair_noise,
    pair_noise_dataset,
    paired_test,
    required_questions,
    required_samples,
)


# ------------------------------------------------------------------ the paper's formulas, literally
def _paper_unpaired(A):
    """Table 1 of the paper on raw samples A (N x K)."""
    k = A.shape[1]
    b = 1 / (k - 1) * np.mean(np.var(A, axis=1))
    return {
        "total": np.var(A),
        "data": np.var(np.mean(A, axis=1)) - b,
        "prediction": np.mean(np.var(A, axis=1)) + b,
    }


def _paper_paired(A, B):
    """Table 2 of the paper on raw samples A (N x kA), B (N x kB)."""
    b = 1 / (A.shape[1] - 1) * np.mean(np.var(A, axis=1)) + 1 / (B.shape[1] - 1) * np.mean(
        np.var(B, axis=1)
    )
    ma, mb = np.mean(A, axis=1), np.mean(B, axis=1)
    cov = np.mean((ma - ma.mean()) * (mb - mb.mean()))
    return {
        "total": np.var(A) + np.var(B) - 2 * cov,
        "data": np.var(ma - mb) - b,
        "prediction": np.mean(np.var(A, axis=1) + np.var(B, axis=1)) + b,
    }


def _from_samples(*mats):
    correct = np.stack([m.sum(axis=1) for m in mats])
    count = np.stack([np.full(m.shape[0], m.shape[1]) for m in mats])
    sum_sq = np.stack([(m**2).sum(axis=1) for m in mats])
    return from_arrays(correct, count, sum_sq=sum_sq, models=[f"m{i}" for i in range(len(mats))])


@pytest.mark.parametrize("fractional", [False, True])
def test_matches_paper_array_formulas(fractional):
    rng = np.random.default_rng(0)
    u = rng.beta(0.5, 0.5, size=(2, 300, 1))
    A = (rng.random((300, 7)) < u[0]).astype(float)
    B = (rng.random((300, 4)) < u[1]).astype(float)
    if fractional:  # non-binary scores: per-row variance of the samples, not p(1 - p)
        A, B = A * rng.random(A.shape), B * rng.random(B.shape)
    ds = _from_samples(A, B)
    per_model = model_noise(ds).set_index("model")
    for name, mat in (("m0", A), ("m1", B)):
        ref = _paper_unpaired(mat)
        for comp in ("total", "data", "prediction"):
            assert per_model.loc[name, comp] == pytest.approx(ref[comp], rel=1e-12)
    pair = pair_noise(ds).iloc[0]
    ref = _paper_paired(A, B)
    for comp in ("total", "data", "prediction"):
        assert pair[comp] == pytest.approx(ref[comp], rel=1e-12)
    # se_difference is the SE of the observed (K-averaged) difference
    assert pair["se_difference"] == pytest.approx(
        np.sqrt(np.var(A.mean(1) - B.mean(1)) / 300), rel=1e-12
    )


P_VALUES = (
    "p_value",
    "p_value_sign_questions",
    "p_value_sign_one_sample",
    "p_value_mcnemar_one_sample",
)
PAIR_CHECKS = ("total", "data", "prediction", "se_difference", "correlation", *P_VALUES)


def test_all_pairs_equal_a_loop_over_pairs():
    rng = np.random.default_rng(1)
    m, n = 12, 200
    u = rng.beta(0.7, 0.6, size=(1, n)) * rng.uniform(0.5, 1, size=(m, 1))
    k = rng.integers(2, 9, size=(m, n))
    ds = from_arrays(rng.binomial(k, u), k)
    mat = pair_noise_dataset(ds)
    for a in range(m):
        for b in range(m):
            if a == b:
                continue
            sub = pair_noise(ds.isel(model=[a, b])).iloc[0]
            for comp in PAIR_CHECKS:
                assert float(mat[comp][a, b]) == pytest.approx(sub[comp], rel=1e-9, abs=1e-15)


# ------------------------------------------------------------------ properties
cells = st.integers(min_value=2, max_value=40).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 6), min_size=n, max_size=n),
        st.lists(st.integers(0, 6), min_size=n, max_size=n),
        st.lists(st.integers(2, 6), min_size=n, max_size=n),
        st.lists(st.integers(2, 6), min_size=n, max_size=n),
        st.randoms(use_true_random=False),
    )
)


def _ds(ca, cb, ka, kb):
    ka, kb = np.array(ka), np.array(kb)
    correct = np.stack([np.minimum(ca, ka), np.minimum(cb, kb)])
    return from_arrays(correct, np.stack([ka, kb]), models=["a", "b"])


@settings(max_examples=200, deadline=None)
@given(cells)
def test_properties(data):
    ca, cb, ka, kb, rnd = data
    ds = _ds(ca, cb, ka, kb)
    single = model_noise(ds)
    # data + prediction == total exactly (up to float rounding of the same sums)
    np.testing.assert_allclose(
        single["data"] + single["prediction"], single["total"], rtol=1e-12, atol=1e-15
    )
    np.testing.assert_allclose(single["total"], single["accuracy"] * 0 + single["total"])
    mat = pair_noise_dataset(ds)
    np.testing.assert_allclose(
        mat["data"] + mat["prediction"], mat["total"], rtol=1e-12, atol=1e-15
    )
    # (A, B) mirrors (B, A)
    # variances are compared to 1e-14 absolute (sums of <= 40 terms of size <= 1, ~100 ulps)
    for comp in ("total", "data", "prediction", "var_mean", "correlation"):
        np.testing.assert_allclose(mat[comp].values, mat[comp].values.T, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(mat["z"].values, -mat["z"].values.T, rtol=1e-12, atol=1e-15)
    # invariance to question order
    order = list(range(ds.sizes["question"]))
    rnd.shuffle(order)
    shuffled = pair_noise_dataset(ds.isel(question=order))
    for comp in ("total", "data", "prediction", "var_mean", *P_VALUES):
        np.testing.assert_allclose(shuffled[comp].values, mat[comp].values, rtol=1e-9, atol=1e-14)


def test_binary_total_is_pbar_one_minus_pbar():
    rng = np.random.default_rng(2)
    ds = from_arrays(rng.integers(0, 2, (3, 100)), np.ones((3, 100)))
    with pytest.warns(UserWarning, match="K = 1"):
        out = model_noise(ds)
    np.testing.assert_allclose(out["total"], out["accuracy"] * (1 - out["accuracy"]), rtol=1e-12)
    # K = 1: only the total is identifiable; never a silently wrong split
    assert out["data"].isna().all() and out["se_prediction"].isna().all()
    assert "not identifiable" in out.attrs["note"]
    np.testing.assert_allclose(out["se_mean"], out["se_total"], rtol=1e-12)


# ------------------------------------------------------------------ Appendix B agreement
def test_z_sign_test_and_bootstrap_agree_on_large_n():
    rng = np.random.default_rng(3)
    n = 5000
    a = rng.random(n) < 0.6
    b = np.where(rng.random(n) < 0.8, a, rng.random(n) < 0.55)
    ds = from_arrays(np.stack([a, b]), np.ones((2, n)), models=["a", "b"])
    z = paired_test(ds, pair=("a", "b"))
    sign = paired_test(ds, pair=("a", "b"), method="sign")
    boot = paired_test(ds, pair=("a", "b"), method="bootstrap", n_resamples=4000, rng=0)
    wa, wb = np.sum(a & ~b), np.sum(b & ~a)
    # sign-test z (W_A - W_B) / sqrt(W_A + W_B) differs from z by the factor
    # sqrt(1 - (q_A - q_B)^2 / (q_A + q_B)) (paper eq. 33-34): check that identity exactly
    z_sign = (wa - wb) / np.sqrt(wa + wb)
    qa, qb = wa / n, wb / n
    z_stat = z.statistic / np.sqrt((n - 1) / n)  # the paired t back to z (ddof-0 SE)
    assert z_stat == pytest.approx(z_sign / np.sqrt(1 - (qa - qb) ** 2 / (qa + qb)), rel=1e-9)
    # In the normal regime the exact sign test equals its continuity-corrected normal form, and
    # McNemar's chi-square is exactly that normal form squared.
    z_cc = (abs(wa - wb) - 1) / np.sqrt(wa + wb)
    assert sign.pvalue == pytest.approx(2 * stats.norm.sf(z_cc), rel=0.02)
    assert paired_test(ds, pair=("a", "b"), method="mcnemar_one_sample").pvalue == pytest.approx(
        2 * stats.norm.sf(z_cc), rel=1e-9
    )
    # bootstrap SE: relative MC error 1/sqrt(2 B) = 1.1% at B = 4000; 4 of those
    assert boot.se == pytest.approx(z.se, rel=4 / np.sqrt(2 * 4000))


def test_paired_test_result_object():
    rng = np.random.default_rng(4)
    ds = from_arrays(rng.integers(0, 2, (2, 300)), np.ones((2, 300)), models=["x", "y"])
    res = paired_test(ds, pair=("x", "y"))
    ci95, ci50 = res.confidence_interval(), res.confidence_interval(confidence_level=0.5)
    assert ci95.low < ci50.low < res.difference < ci50.high < ci95.high
    wald = res.confidence_interval(method="wald")
    assert wald.high - wald.low == pytest.approx(2 * 1.959963984540054 * res.se, rel=1e-12)
    # the default score interval is Tango's here (K = 1): close to Wald at N = 300
    assert ci95.high - ci95.low == pytest.approx(wald.high - wald.low, rel=0.01)
    # the paired t test (ddof-1 SE, N - 1 = 299 df)
    assert res.df == 299
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(res.statistic), 299), rel=1e-12)
    with pytest.raises(KeyError, match="no model 'zz'"):
        paired_test(ds, pair=("x", "zz"))
    with pytest.raises(ValueError, match="method must be"):
        paired_test(ds, pair=("x", "y"), method="wald")


def test_sign_and_mcnemar_against_scipy():
    for wa, wb in [(10, 2), (3, 3), (0, 7), (40, 25)]:
        ref = stats.binomtest(wa, wa + wb, 0.5).pvalue
        assert _core.sign_test_pvalue(wa, wb) == pytest.approx(ref, rel=1e-12)
        chi2 = max(abs(wa - wb) - 1, 0) ** 2 / (wa + wb)
        assert _core.mcnemar_pvalue(wa, wb) == pytest.approx(stats.chi2.sf(chi2, 1), rel=1e-12)
    assert _core.sign_test_pvalue(0, 0) == 1.0


# ------------------------------------------------------------------ simulation (paper Appendix C)
def _estimate(correct, count, correction=True):
    """Single-model and paired components for each replicate (R, 2, N)."""
    out = {
        key: []
        for key in ("data", "prediction", "total", "pair_data", "pair_prediction", "pair_total")
    }
    p = correct / count
    w = p * (1 - p)
    for r in range(correct.shape[0]):
        comp = _core.pair_components(p[r], w[r], count[r], correction=correction)
        for key in ("data", "prediction", "total"):
            out[key].append(comp["model"][key])
            out["pair_" + key].append(comp[key][0, 1])
    return {key: np.array(v) for key, v in out.items()}


def _targets(truth, n, k, with_replacement):
    """Exact expectations of the ddof=0 estimators, derived from E[p_i] = u_i and
    Var[p_i] = u_i (1 - u_i) / K: over a fixed question set (stratified),
    E[var_i p_i] = var_i u_i + (1 - 1/N) mean_i u(1-u)/K and E[b] = mean_i u(1-u)/K, so
    E[data] = var_i u_i - prediction / (K N); drawing the N questions with replacement also scales
    the population variance by (N - 1)/N. Both are O(1/N) (the design keeps ddof=0, as the paper
    does); the prediction estimator is exactly unbiased. What the small-K correction removes is
    the O(prediction / K) bias, which does not shrink with N."""
    f = (n - 1) / n if with_replacement else 1.0
    t = {
        "data": f * truth["data"] - truth["prediction"] / (k * n),
        "prediction": truth["prediction"],
        "pair_data": f * truth["pair_data"] - truth["pair_prediction"] / (k * n),
        "pair_prediction": truth["pair_prediction"],
    }
    t["total"] = t["data"] + t["prediction"]
    t["pair_total"] = t["pair_data"] + t["pair_prediction"]
    return t


def _designs(rng, reps, n, k, bundled):
    import bayesnoise as bn

    ds = bn.load(bundled / "cruxeval_output_temp0.8.csv.gz")
    u_real = (ds["correct"] / ds["samples"]).values[[0, 2]]
    return {
        "bernoulli": (*sm.bernoulli(rng, reps, n, k), True),
        "stratified": (*sm.stratified(rng, reps, n, k), False),
        "bootstrap": (*sm.bootstrap(rng, reps, n, k, u_real), True),
    }


@pytest.mark.slow
@pytest.mark.parametrize(("n", "k", "max_rms"), [(100, 10, 0.26), (400, 20, 0.13)])
def test_simulation_unbiased_and_accurate(bundled_data, n, k, max_rms):
    reps = 1000
    for name, (correct, count, truth, replace) in _designs(
        np.random.default_rng(10 + n), reps, n, k, bundled_data
    ).items():
        est = _estimate(correct, count)
        target = _targets(truth, n, k, replace)
        for key, values in est.items():
            rel = values / target[key] - 1
            t = rel.mean(axis=0) / (rel.std(axis=0, ddof=1) / np.sqrt(reps))
            assert np.all(np.abs(t) < 4), f"{name} {key}: bias t = {t}"
            rms = np.sqrt(np.mean(rel**2, axis=0))
            if key != "pair_data":
                assert np.all(rms < max_rms), f"{name} {key}: relative rms {rms}"
        # The paired data variance is the smallest component, the paper's hard case (Fig. 3): its
        # relative error depends on prediction / (K data) and is not held to the rms target; it
        # is unbiased (checked above) and the correction must beat the uncorrected estimator.
        raw = _estimate(correct, count, correction=False)["pair_data"]
        rms_corrected = np.sqrt(np.mean((est["pair_data"] / target["pair_data"] - 1) ** 2))
        rms_raw = np.sqrt(np.mean((raw / target["pair_data"] - 1) ** 2))
        assert rms_corrected < rms_raw, f"{name}: {rms_corrected} vs uncorrected {rms_raw}"


@pytest.mark.slow
def test_uncorrected_estimator_is_biased_at_small_k():
    reps, n, k = 1000, 400, 3
    correct, count, truth = sm.stratified(np.random.default_rng(5), reps, n, k)
    target = _targets(truth, n, k, False)
    for correction, expect_bias in ((True, False), (False, True)):
        est = _estimate(correct, count, correction=correction)
        rel = est["data"] / target["data"] - 1
        t = rel.mean(axis=0) / (rel.std(axis=0, ddof=1) / np.sqrt(reps))
        if expect_bias:
            # predicted bias: + mean u(1-u) / K on the data variance (paper eq. 21)
            predicted = truth["prediction"] / k / target["data"]
            assert np.all(t > 20)
            np.testing.assert_allclose(rel.mean(axis=0), predicted, rtol=0.1)
        else:
            assert np.all(np.abs(t) < 4)


# ------------------------------------------------------------------ power and meta-analysis
def test_power_formulas_are_consistent_and_calibrated():
    data, pred, k = 0.02, 0.15, 4
    mdd = minimum_detectable_difference(300, data=data, prediction=pred, k=k)
    assert required_questions(mdd, data=data, prediction=pred, k=k) == 300
    assert required_samples(mdd, n=300, data=data, prediction=pred) == k
    assert required_samples(0.001, n=300, data=data, prediction=pred) == np.inf
    # Monte Carlo: with the true difference at the MDD, a two-sided 5% z test rejects ~80% of the
    # time. 4000 replicates: binomial MC sd sqrt(.8 .2 / 4000) = 0.0063; allow 4 sd.
    rng = np.random.default_rng(6)
    reps, n = 4000, 300
    sd_u = np.sqrt(data)
    u_diff = mdd + sd_u * rng.standard_normal((reps, n))
    observed = u_diff + np.sqrt(pred / k) * rng.standard_normal((reps, n))
    z = observed.mean(1) / (observed.std(1) / np.sqrt(n))
    assert np.mean(np.abs(z) > 1.959963984540054) == pytest.approx(0.8, abs=4 * 0.0063)


def test_meta_z():
    assert meta_z([1.0, 1.0]) == pytest.approx(np.sqrt(2))
    assert meta_z([2.0, 0.0], n=[100, 400], weights="sqrt_n") == pytest.approx(20 / np.sqrt(500))
    with pytest.raises(ValueError, match="needs n"):
        meta_z([1.0], weights="sqrt_n")


def test_bootstrap_column_is_seeded():
    rng = np.random.default_rng(7)
    ds = from_arrays(rng.integers(0, 2, (3, 200)), np.ones((3, 200)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = pair_noise(ds, n_resamples=500, resampling="bootstrap", rng=1)["se_bootstrap"]
        b = pair_noise(ds, n_resamples=500, resampling="bootstrap", rng=1)["se_bootstrap"]
    np.testing.assert_array_equal(a, b)


def test_tiny_n_warns():
    ds = from_arrays(np.array([[3, 1, 4], [2, 2, 0]]), np.full((2, 3), 4))
    with pytest.warns(UserWarning, match="only 3 questions"):
        model_noise(ds)
    with pytest.warns(UserWarning, match="only 3 questions"):
        pair_noise(ds)


def test_pairs_with_k1_say_why_the_split_is_empty():
    rng = np.random.default_rng(8)
    ds = from_arrays(rng.integers(0, 2, (2, 100)), np.ones((2, 100)))
    with pytest.warns(UserWarning, match="split not identifiable for 2 model"):
        out = pair_noise(ds)
    assert out["se_data"].isna().all() and out["se_total"].notna().all()
    assert "K = 1" in out.attrs["note"]
