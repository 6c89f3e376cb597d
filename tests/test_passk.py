"""pass@k: the unbiased estimator against enumeration and Monte Carlo, pass@1 = accuracy, input
refusals; Bayesian pass@k closed forms against enumeration, quadrature and Monte Carlo."""

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import integrate, stats

from bayesnoise import load
from bayesnoise.conjugate import fit_empirical_bayes, integrated_moments
from bayesnoise.conjugate.hyper import hyper_draws
from bayesnoise.conjugate.passk import beta_pass_at_k, pass_at_k_posterior, posterior_passk_table
from bayesnoise.data import DataError, beta_binomial_counts, from_arrays
from bayesnoise.frequentist import model_noise, pair_noise
from bayesnoise.frequentist.passk import (
    PASSK_COLUMNS,
    PASSK_PAIR_COLUMNS,
    pass_at_k,
    passk_pairs,
    passk_table,
)


def _dataset(seed=0, models=3, n=120, k=6):
    rng = np.random.default_rng(seed)
    u = rng.beta(0.6, 0.8, (models, n))
    return from_arrays(rng.binomial(k, u), np.full((models, n), k), models=list("abcdef"[:models]))


def test_estimator_equals_enumeration_of_k_subsets():
    for n in range(1, 8):
        for c in range(n + 1):
            samples = [1] * c + [0] * (n - c)
            for k in range(1, n + 1):
                subsets = list(itertools.combinations(samples, k))
                share = sum(any(s) for s in subsets) / len(subsets)
                assert pass_at_k([c], [n], k)[0] == pytest.approx(share, abs=1e-12)


def test_estimator_is_stable_for_large_n():
    # exact rational value from Python integers: 1 - C(n - c, k) / C(n, k)
    for n, c, k in ((1000, 1, 500), (2000, 7, 1500), (500, 0, 250), (300, 299, 2)):
        exact = 1 - math.comb(n - c, k) / math.comb(n, k)
        assert pass_at_k([c], [n], k)[0] == pytest.approx(exact, rel=1e-12, abs=1e-15)


def test_estimator_is_unbiased_by_monte_carlo():
    rng = np.random.default_rng(1)
    u, n, k, reps = np.array([0.05, 0.3, 0.7]), 10, 4, 40_000
    est = pass_at_k(rng.binomial(n, u, (reps, 3)), np.full((reps, 3), n), k)
    target = 1 - (1 - u) ** k
    se = est.std(axis=0, ddof=1) / np.sqrt(reps)
    assert np.all(np.abs(est.mean(axis=0) - target) <= 4 * se)  # 4 Monte Carlo SE


def test_pass_at_1_is_the_accuracy_and_its_se_mean():
    ds = _dataset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref, ref_pairs = model_noise(ds), pair_noise(ds)
    table = passk_table(ds, 1)
    np.testing.assert_allclose(table.pass_at_k, ref.accuracy, rtol=0, atol=1e-12)
    np.testing.assert_allclose(table.se_pass_at_k, ref.se_mean, rtol=1e-12)
    pairs = passk_pairs(ds, 1)
    np.testing.assert_allclose(pairs.pass_at_k_difference, ref_pairs.difference, atol=1e-12)
    np.testing.assert_allclose(pairs.se_pass_at_k_difference, ref_pairs.se_difference, rtol=1e-10)
    np.testing.assert_allclose(pairs.p_value_pass_at_k, ref_pairs.p_value, rtol=0, atol=1e-12)


def test_pairs_are_paired_per_question_values():
    ds = _dataset(seed=2, models=4)
    values = pass_at_k(ds.correct.values, ds["samples"].values, 3)
    pairs = passk_pairs(ds, 3, confidence_level=0.95)
    ia, ib = np.triu_indices(4, 1)
    d = values[ia] - values[ib]
    np.testing.assert_allclose(pairs.pass_at_k_difference, d.mean(axis=1), atol=1e-12)
    np.testing.assert_allclose(
        pairs.se_pass_at_k_difference, d.std(axis=1) / np.sqrt(d.shape[1]), rtol=1e-10
    )
    oracle = stats.ttest_rel(values[ia], values[ib], axis=1)
    np.testing.assert_allclose(pairs.t_pass_at_k, oracle.statistic, rtol=1e-10)
    np.testing.assert_allclose(pairs.p_value_pass_at_k, oracle.pvalue, rtol=1e-10)
    low, high = pairs.pass_at_k_difference_low, pairs.pass_at_k_difference_high
    assert np.all((low < pairs.pass_at_k_difference) & (pairs.pass_at_k_difference < high))


def test_pair_columns_do_not_reuse_the_accuracy_names():
    # one name, one estimand: the pairs/noise names belong to the accuracy (pass@1) columns
    pairs = passk_pairs(_dataset(), 2, confidence_level=0.9)
    assert list(pairs.columns) == [
        *PASSK_PAIR_COLUMNS,
        "pass_at_k_difference_low",
        "pass_at_k_difference_high",
    ]
    assert list(passk_table(_dataset(), 2).columns) == PASSK_COLUMNS
    taken = {"difference", "se_difference", "z", "p_value", "difference_low", "difference_high"}
    assert not taken & set(pairs.columns) and not taken & set(PASSK_COLUMNS)


def test_pass_at_1_p_value_is_the_pairs_p_value(bundled_data):
    crux = load(bundled_data / "cruxeval_output_temp0.8.csv.gz")
    rng = np.random.default_rng(10)
    u = rng.beta(0.7, 0.9, 150)
    c = rng.binomial(1, np.stack([u, 0.9 * u, np.clip(u + 0.08, 0, 1)]))
    k1 = from_arrays(c, np.ones_like(c), models=list("abc"))  # one sample per question
    for ds in (crux, k1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = pair_noise(ds)
        got = passk_pairs(ds, 1)
        assert got[["model_a", "model_b"]].equals(ref[["model_a", "model_b"]])
        np.testing.assert_allclose(got.p_value_pass_at_k, ref.p_value, rtol=0, atol=1e-12)
        # the test tells the two references apart: the normal p of z misses by far more
        assert np.max(np.abs(2 * stats.norm.sf(np.abs(ref.z)) - ref.p_value)) > 1e-5


def test_pass_at_k_pairs_against_ttest_rel_on_real_data(bundled_data):
    ds = load(bundled_data / "cruxeval_output_temp0.8.csv.gz")
    correct, count = beta_binomial_counts(ds, needed_by="test")
    for k in (2, 5):
        values = pass_at_k(correct, count, k)
        pairs = passk_pairs(ds, k)
        ia, ib = np.triu_indices(values.shape[0], 1)
        oracle = stats.ttest_rel(values[ia], values[ib], axis=1)
        np.testing.assert_allclose(pairs.t_pass_at_k, oracle.statistic, rtol=1e-9)
        np.testing.assert_allclose(pairs.p_value_pass_at_k, oracle.pvalue, rtol=1e-9, atol=1e-15)


def test_refusals_name_model_and_question():
    ds = _dataset(seed=3)
    count = ds["samples"].values.copy()
    count[1, 7] = 2
    short = from_arrays(np.minimum(ds.correct.values, count), count, models=list("abc"))
    with pytest.raises(DataError, match=r"model 'b', question 'q7': k = 3 but only 2 samples"):
        passk_table(short, 3)
    partial = from_arrays(
        ds.correct.values * 0.5, ds["samples"].values, sum_sq=ds.correct.values * 0.25
    )
    with pytest.raises(DataError, match="not all 0/1"):
        passk_table(partial, 2)
    fractional = from_arrays(np.full((1, 3), 0.5), np.ones((1, 3)), counts_known=False)
    with pytest.raises(DataError, match="without the number of samples"):
        passk_table(fractional, 1)
    with pytest.raises(ValueError, match="k must be"):
        passk_table(ds, 0)


def test_unanswered_cells_are_left_out():
    ds = _dataset(seed=4)
    count = ds["samples"].values.copy()
    count[0, :10] = 0
    sparse = from_arrays(np.where(count > 0, ds.correct.values, 0), count, models=list("abc"))
    table = passk_table(sparse, 2)
    full = pass_at_k(ds.correct.values[0, 10:], ds["samples"].values[0, 10:], 2)
    assert table.questions[0] == 110
    assert table.pass_at_k[0] == pytest.approx(full.mean(), abs=1e-12)


# --- Bayesian ---------------------------------------------------------------------------------


def _polya_at_least_one(a, b, k):
    """P(at least one right in k fresh samples), summing all 2^k sequences of the Polya urn."""
    total = 0.0
    for seq in itertools.product((0, 1), repeat=k):
        prob, right = 1.0, 0
        for j, x in enumerate(seq):
            p1 = (a + right) / (a + b + j)
            prob *= p1 if x else 1 - p1
            right += x
        total += prob if any(seq) else 0.0
    return total


def test_beta_pass_at_k_against_enumeration_quadrature_and_betabinomial():
    for a, b in ((0.3, 0.7), (2.5, 1.2), (7.0, 30.0)):
        for k in (1, 2, 5, 8):
            mean, var = beta_pass_at_k(a, b, k, variance=True)
            assert mean == pytest.approx(_polya_at_least_one(a, b, k), abs=1e-12)
            assert mean == pytest.approx(1 - stats.betabinom.pmf(0, k, a, b), abs=1e-12)
            m2 = integrate.quad(
                lambda u, k=k, a=a, b=b: (1 - (1 - u) ** k) ** 2 * stats.beta.pdf(u, a, b), 0, 1
            )[0]
            assert var == pytest.approx(m2 - mean**2, abs=1e-8)  # quad's absolute error ~1e-10
    assert float(beta_pass_at_k(3.0, 5.0, 1)) == pytest.approx(3 / 8, abs=1e-15)


def test_population_pass_at_k_by_monte_carlo():
    rng = np.random.default_rng(5)
    mu, kappa, k, reps = 0.35, 1.7, 6, 200_000
    u = rng.beta(mu * kappa, (1 - mu) * kappa, reps)
    hit = rng.binomial(k, u) > 0  # k fresh samples of a fresh question: any right?
    mc_se = hit.std() / np.sqrt(reps)
    assert abs(hit.mean() - beta_pass_at_k(mu * kappa, (1 - mu) * kappa, k)) <= 4 * mc_se


def test_pass_at_1_posterior_is_ubar_and_mu():
    ds = _dataset(seed=6)
    c, n = ds.correct.values, ds["samples"].values
    fit = fit_empirical_bayes(c, n)
    post = pass_at_k_posterior(c, n, 1, fit, n_resamples=20_000)
    mom = integrated_moments(c, n, fit)
    np.testing.assert_allclose(post.here_mean, mom.ubar_mean, rtol=0, atol=1e-12)
    np.testing.assert_allclose(post.here_sd, np.sqrt(mom.ubar_var), rtol=1e-10)
    low, high = fit.mu_interval(0.95)
    # draws' quantiles vs the exact mixture quantile: within 4 Monte Carlo SE of the ends
    assert np.all(np.abs(post.population_low - low) <= 4 * post.population_mcse)
    assert np.all(np.abs(post.population_high - high) <= 4 * post.population_mcse)


def test_these_questions_interval_against_monte_carlo():
    ds = _dataset(seed=7, models=1, n=150, k=4)
    c, n = ds.correct.values, ds["samples"].values
    fit = fit_empirical_bayes(c, n)
    k, draws = 3, 20_000
    post = pass_at_k_posterior(c, n, k, fit)
    rng = np.random.default_rng(8)
    mu, kap = hyper_draws(fit, draws, rng)
    u = rng.beta(
        mu[0, :, None] * kap[0, :, None] + c, (1 - mu[0, :, None]) * kap[0, :, None] + n - c
    )
    here = (1 - (1 - u) ** k).mean(axis=1)
    assert here.mean() == pytest.approx(post.here_mean[0], abs=4 * here.std() / np.sqrt(draws))
    # Quantile MC error: sd * sqrt(p (1 - p)) / (pdf(z_p) sqrt(draws)) for a near-normal
    # posterior (0.0035 sd at p = 0.025); plus the normal approximation of a mean of 150
    # independent bounded terms given (mu, kappa): Cornish-Fisher error ~ skew (z^2 - 1) / 6
    # sd with |skew| < 0.1 here (each term's skewness < 1, divided by sqrt(150)), 0.05 sd.
    z = stats.norm.ppf(0.975)
    tol = here.std() * (4 * np.sqrt(0.025 * 0.975) / stats.norm.pdf(z) / np.sqrt(draws) + 0.05)
    assert np.quantile(here, 0.025) == pytest.approx(post.here_low[0], abs=tol)
    assert np.quantile(here, 0.975) == pytest.approx(post.here_high[0], abs=tol)


def test_posterior_table_columns_and_refusal():
    ds = _dataset(seed=9)
    df = posterior_passk_table(ds, 4)
    assert list(df.columns)[:4] == ["model", "questions", "k", "pass_at_k_bayes"]
    assert np.all(
        (df.population_pass_at_k_low < df.population_pass_at_k)
        & (df.population_pass_at_k < df.population_pass_at_k_high)
    )
    partial = from_arrays(
        ds.correct.values * 0.5, ds["samples"].values, sum_sq=ds.correct.values * 0.25
    )
    with pytest.raises(DataError, match="0/1"):
        posterior_passk_table(partial, 2)
