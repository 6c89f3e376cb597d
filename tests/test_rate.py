"""bn.rate, bn.threshold, bn.exact_coverage (issue 30) against independent oracles: scipy's
Beta and binomial, statsmodels' intervals and McNemar test, the success-probability note's own
coverage code and table, brute-force grids, and files thresholded by hand."""

import io
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import special, stats

import bayesnoise as bn
from bayesnoise.cli import main
from bayesnoise.data import DataError


def _table(scores: dict[str, list[float]]) -> pd.DataFrame:
    """Per-sample long table, one sample per question."""
    rows = [(m, f"q{i}", s) for m, vals in scores.items() for i, s in enumerate(vals)]
    return pd.DataFrame(rows, columns=["model", "example_id", "correct"])


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Continuous similarity scores in [0, 1], K = 1, with scores exactly at 0.7 (ties)."""
    rng = np.random.default_rng(30)
    scores = {
        m: np.round(rng.beta(mu * 5, (1 - mu) * 5, 80), 2).tolist()
        for m, mu in (("a", 0.75), ("b", 0.55), ("c", 0.4))
    }
    for m in scores:  # ties at the threshold
        scores[m][:3] = [0.7, 0.7, 0.7]
    path = tmp_path_factory.mktemp("rate") / "graded.csv"
    _table(scores).to_csv(path, index=False)
    return path, scores


def _counts(scores, t, success="above"):
    """Hand-thresholded successes per model (T inclusive)."""
    return {
        m: int(np.sum(np.array(v) >= t)) if success == "above" else int(np.sum(np.array(v) <= t))
        for m, v in scores.items()
    }


# -- the conjugate update against scipy.stats.beta ------------------------------------------

PRIORS = [
    ("uniform", (1.0, 1.0)),
    ("jeffreys", (0.5, 0.5)),
    ("3,2", (3.0, 2.0)),
    ((2.5, 7.0), (2.5, 7.0)),
    ({"a": 4.0, "b": 1.5}, (4.0, 1.5)),
]


def _moments(m, sd):
    """Method of moments: Beta(a, b) with mean m and sd: a + b = m (1 - m) / sd^2 - 1."""
    total = m * (1 - m) / sd**2 - 1
    return m * total, (1 - m) * total


@pytest.mark.parametrize("prior, ab", [*PRIORS, ("mean=0.6,sd=0.2", _moments(0.6, 0.2))])
def test_posterior_equals_scipy_beta(graded, prior, ab):
    path, scores = graded
    r = bn.rate(path, threshold=0.7, prior=prior, target=0.5, confidence_level=0.9)
    succ = _counts(scores, 0.7)
    for m, s in succ.items():
        n = len(scores[m])
        post = stats.beta(ab[0] + s, ab[1] + n - s)
        row = r.sel(model=m)
        assert int(row["successes"]) == s and int(row["trials"]) == n
        assert str(row["rate_model"].values) == "conjugate Beta (K = 1)"
        assert abs(float(row["rate"]) - post.mean()) < 1e-12
        assert abs(float(row["rate_var"]) - post.var()) < 1e-12
        assert abs(float(row["rate_sd"]) - post.std()) < 1e-12
        assert abs(float(row["rate_low"]) - post.ppf(0.05)) < 1e-12
        assert abs(float(row["rate_high"]) - post.ppf(0.95)) < 1e-12
        assert abs(float(row["prob_rate_above"]) - post.sf(0.5)) < 1e-12


def test_mean_sd_prior_is_the_method_of_moments():
    a, b = _moments(0.035, 0.01)
    assert abs(a - 9429 / 800) < 1e-9 and abs(b - 259971 / 800) < 1e-9  # the note's numbers
    ds = bn.from_arrays(np.array([[1, 0, 0, 1, 0, 0, 0, 0]]), np.ones((1, 8)), models=["m"])
    r = bn.rate(ds, prior="mean=0.035,sd=0.01")
    assert abs(float(r["prior_a"][0]) - a) < 1e-9 and abs(float(r["prior_b"][0]) - b) < 1e-9
    post = stats.beta(a + 2, b + 6)
    assert abs(float(r["rate"][0]) - post.mean()) < 1e-12


def test_per_model_priors_from_a_file(graded, tmp_path):
    path, scores = graded
    f = tmp_path / "priors.csv"
    pd.DataFrame({"model": ["c"], "mean": [0.035], "sd": [0.01]}).to_csv(f, index=False)
    r = bn.rate(path, threshold=0.7, priors=f, prior="jeffreys")
    a, b = _moments(0.035, 0.01)
    s, n = _counts(scores, 0.7)["c"], len(scores["c"])
    assert abs(float(r["rate"].sel(model="c")) - (a + s) / (a + b + n)) < 1e-12
    sa = _counts(scores, 0.7)["a"]
    assert abs(float(r["rate"].sel(model="a")) - (0.5 + sa) / (1 + n)) < 1e-12
    f2 = tmp_path / "ab.csv"
    pd.DataFrame({"model": ["a", "b"], "a": [2.0, 3.0], "b": [5.0, 1.0]}).to_csv(f2, index=False)
    r2 = bn.rate(path, threshold=0.7, priors=f2)
    assert float(r2["prior_a"].sel(model="b")) == 3.0 and float(r2["prior_b"].sel(model="c")) == 1


# -- frequentist side -------------------------------------------------------------------------


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_exact_binomial_test_and_interval(graded, alternative):
    from statsmodels.stats.proportion import proportion_confint

    path, scores = graded
    level = 0.95
    r = bn.rate(path, threshold=0.7, target=0.45, alternative=alternative, confidence_level=level)
    for m, s in _counts(scores, 0.7).items():
        n = len(scores[m])
        row = r.sel(model=m)
        p = stats.binomtest(s, n, 0.45, alternative=alternative).pvalue
        assert abs(float(row["p_value_binomial"]) - p) < 1e-12
        phat = s / n
        z = (phat - 0.45) / np.sqrt(0.45 * 0.55 / n)
        assert abs(float(row["z_rate"]) - z) < 1e-12
        g = n * (special.xlogy(phat, phat / 0.45) + special.xlogy(1 - phat, (1 - phat) / 0.55))
        null_side = (alternative == "greater" and phat <= 0.45) or (
            alternative == "less" and phat >= 0.45
        )
        assert abs(float(row["lr_statistic"]) - (0.0 if null_side else g)) < 1e-10
        # one-sided Clopper-Pearson at level = two-sided statsmodels' at 1 - 2 (1 - level)
        alpha = 1 - level if alternative == "two-sided" else 2 * (1 - level)
        low, high = proportion_confint(s, n, alpha=alpha, method="beta")
        want = {
            "two-sided": (low, high),
            "greater": (low, 1.0),
            "less": (0.0, high),
        }[alternative]
        assert abs(float(row["rate_exact_low"]) - want[0]) < 1e-10
        assert abs(float(row["rate_exact_high"]) - want[1]) < 1e-10


def test_hpd_against_a_brute_force_grid():
    """The highest-density region of a fine grid (points sorted by density until they hold
    95%) against the HPD columns; and the exact characterisation: 95% of scipy's CDF between
    the ends, equal densities at interior ends."""
    ds = bn.from_arrays(
        np.array([[1] * 7 + [0] * 13, [1] * 19 + [0] * 1, [0] * 20]),
        np.ones((3, 20)),
        models=["mid", "high", "zero"],
    )
    r = bn.rate(ds, prior="jeffreys")
    edges = np.linspace(0, 1, 400_001)
    mids = 0.5 * (edges[1:] + edges[:-1])
    for m, s in (("mid", 7), ("high", 19), ("zero", 0)):
        post = stats.beta(0.5 + s, 0.5 + 20 - s)
        low, high = float(r["rate_hpd_low"].sel(model=m)), float(r["rate_hpd_high"].sel(model=m))
        order = np.argsort(post.pdf(mids))[::-1]  # cells by density, highest first
        mass = np.cumsum(np.diff(post.cdf(edges))[order])  # exact mass of each cell
        keep = order[: np.searchsorted(mass, 0.95) + 1]
        # cells 2.5e-6 wide: the region's ends are within a few cells of the exact ones
        assert abs(low - edges[keep.min()]) < 1e-4 and abs(high - edges[keep.max() + 1]) < 1e-4
        assert abs(post.cdf(high) - post.cdf(low) - 0.95) < 1e-10
        if low > 0 and high < 1:
            assert abs(post.pdf(low) / post.pdf(high) - 1) < 1e-5


# -- the threshold -------------------------------------------------------------------------


def test_sweep_equals_hand_thresholded_rate(graded, tmp_path):
    path, scores = graded
    grid = "0.5:0.8:0.1"
    sweep = bn.threshold(path, grid=grid, prior="3,2", target=0.4)
    assert sweep["rate"].dims == ("model", "threshold")
    for t in (0.5, 0.6, 0.7, 0.8):
        hand = {m: (np.array(v) >= t).astype(int).tolist() for m, v in scores.items()}
        f = tmp_path / f"t{t}.csv"
        _table(hand).to_csv(f, index=False)
        ref = bn.rate(f, prior="3,2", target=0.4)
        got = sweep.sel(threshold=t, method="nearest")
        got = got.sel(model=ref["model"].values)
        for col in ("successes", "trials", "accuracy", "rate", "rate_low", "rate_high"):
            assert np.array_equal(got[col].values, ref[col].values), (t, col)
        assert np.array_equal(got["prob_rate_above"].values, ref["prob_rate_above"].values)


def test_ties_at_the_threshold_count_on_both_sides(graded):
    path, scores = graded
    above = bn.rate(path, threshold=0.7)
    below = bn.rate(path, threshold=0.7, success="below")
    for m, v in scores.items():
        v = np.array(v)
        assert int(above["successes"].sel(model=m)) == int(np.sum(v >= 0.7))
        assert int(below["successes"].sel(model=m)) == int(np.sum(v <= 0.7))
        assert int(np.sum(v == 0.7)) >= 3  # the ties are counted by both
    assert above.attrs["threshold"] == 0.7 and above.attrs["success"] == "above"
    assert "scores <= 0.7 count as success" in below.attrs["threshold_note"]


def test_threshold_is_a_read_option_of_other_verbs(graded):
    path, scores = graded
    r = bn.noise(path, threshold=0.7)
    for m, v in scores.items():
        assert abs(float(r["accuracy"].sel(model=m)) - np.mean(np.array(v) >= 0.7)) < 1e-12
    assert r.attrs["threshold"] == 0.7 and "scores >= 0.7" in r.attrs["threshold_note"]
    assert "threshold" not in bn.noise(path).attrs


def test_per_sample_scores_with_k_varying_by_question():
    """K = 1..4 graded samples per question: thresholded one by one before summing; the rate
    is then the hierarchical model's mu, equal to a brute-force (mu, kappa) grid posterior."""
    rng = np.random.default_rng(7)
    n, kmax = 120, 4
    u = rng.beta(2.0, 1.2, n)
    values = rng.beta(u[:, None] * 6 + 0.5, (1 - u[:, None]) * 6 + 0.5, (n, kmax))
    k = rng.integers(1, kmax + 1, n)
    values[np.arange(kmax)[None, :] >= k[:, None]] = np.nan
    arr = xr.DataArray(values[None], dims=("model", "question", "sample"), coords={"model": ["m"]})
    r = bn.rate(arr, threshold=0.6, prior="2,2", target=0.5)
    c = np.nansum(values >= 0.6, axis=1)  # nan >= 0.6 is False
    assert int(r["successes"][0]) == int(c.sum()) and int(r["trials"][0]) == int(k.sum())
    assert "K > 1" in str(r["rate_model"].values[0])
    # brute force: Beta(2, 2) on mu, LogNormal(log 1, 1.5) on kappa, Beta-Binomial likelihood
    mu = np.linspace(5e-4, 1 - 5e-4, 600)
    lam = np.linspace(np.log(1e-2), np.log(1e4), 200)
    grid_mu, grid_lam = np.meshgrid(mu, lam, indexing="ij")
    kap = np.exp(grid_lam)
    cells, weight = np.unique(np.stack([c, k]), axis=1, return_counts=True)
    ll = sum(
        w * stats.betabinom.logpmf(ci, ki, grid_mu * kap, (1 - grid_mu) * kap)
        for (ci, ki), w in zip(cells.T, weight, strict=True)
    )
    lp = ll + stats.beta.logpdf(grid_mu, 2, 2) + stats.norm.logpdf(grid_lam, 0, 1.5)
    pm = np.exp(lp - lp.max()).sum(axis=1)
    pm /= pm.sum()
    mean = (pm * mu).sum()
    sd = np.sqrt((pm * mu**2).sum() - mean**2)
    cdf = np.cumsum(pm)
    # The package integrates logit mu by a Laplace step per kappa node: its error is O(1/N) of
    # the posterior sd; at N = 120 we allow 0.1 sd for the moments and interval ends.
    assert abs(float(r["rate"][0]) - mean) < 0.1 * sd
    assert abs(float(r["rate_sd"][0]) - sd) < 0.1 * sd
    assert abs(float(r["rate_low"][0]) - np.interp(0.025, cdf, mu)) < 0.1 * sd
    assert abs(float(r["rate_high"][0]) - np.interp(0.975, cdf, mu)) < 0.1 * sd
    assert abs(float(r["prob_rate_above"][0]) - (1 - np.interp(0.5, mu, cdf))) < 0.01
    # the frequentist side is the t-test on per-question means, not a binomial on samples
    res = stats.ttest_1samp(c / k, 0.5, alternative="greater")
    assert abs(float(r["p_value_t"][0]) - res.pvalue) < 1e-12
    assert "p_value_binomial" not in r


def test_hierarchical_hpd_against_its_own_density_grid():
    rng = np.random.default_rng(3)
    k = np.full(60, 3)
    c = rng.binomial(3, rng.beta(3, 1, 60))
    from bayesnoise.conjugate.rate import BetaPrior
    from bayesnoise.conjugate.rate_table import model_rate_posterior

    post, _ = model_rate_posterior(c, k, BetaPrior(1, 1))
    x = np.linspace(1e-6, 1 - 1e-6, 100_001)
    dens = post.pdf(x)
    order = np.argsort(dens)[::-1]
    mass = np.cumsum(dens[order]) * (x[1] - x[0])
    keep = order[: np.searchsorted(mass, 0.95) + 1]
    low, high = post.confidence_interval(0.95, "hdi")
    # grid spacing 1e-5; the density-level set and the golden-section ends agree to 1e-4
    assert abs(low - x[keep].min()) < 1e-4 and abs(high - x[keep].max()) < 1e-4


def test_all_successes_and_all_failures():
    ds = bn.from_arrays(np.array([[1] * 25, [0] * 25]), np.ones((2, 25)), models=["all", "none"])
    r = bn.rate(ds, target=0.5)
    assert abs(float(r["rate"].sel(model="all")) - 26 / 27) < 1e-12
    assert float(r["rate_hpd_high"].sel(model="all")) == 1.0  # density increasing: ends at 1
    assert float(r["rate_hpd_low"].sel(model="none")) == 0.0
    assert abs(float(r["rate_hpd_low"].sel(model="all")) - stats.beta.ppf(0.05, 26, 1)) < 1e-12
    assert abs(float(r["p_value_binomial"].sel(model="all")) - 0.5**25) < 1e-15
    assert float(r["p_value_binomial"].sel(model="none")) == 1.0
    assert float(r["rate_exact_low"].sel(model="none")) == 0.0
    k3 = bn.from_arrays(np.array([[3] * 30, [0] * 30]), np.full((2, 30), 3), models=["all", "none"])
    r3 = bn.rate(k3, target=0.5)  # K = 3: the t-test is undefined (no spread), not p = 0
    assert np.isnan(r3["p_value_t"]).all() and np.isnan(r3["rate_t_low"]).all()
    assert float(r3["prob_rate_above"].sel(model="all")) > 0.99
    assert float(r3["rate_hpd_high"].sel(model="all")) <= 1.0


# -- pairs -------------------------------------------------------------------------


def test_pairs_exact_mcnemar_and_probability(graded):
    from statsmodels.stats.contingency_tables import mcnemar

    path, scores = graded
    r = bn.rate(path, threshold=0.7, by="pair")
    a = np.array(scores["a"]) >= 0.7
    b = np.array(scores["b"]) >= 0.7
    n10, n01 = int(np.sum(a & ~b)), int(np.sum(~a & b))
    row = r.sel(pair="a - b")
    assert int(row["a_only"]) == n10 and int(row["b_only"]) == n01
    p = stats.binomtest(n10, n10 + n01, 0.5, alternative="greater").pvalue
    assert abs(float(row["p_value_mcnemar_exact"]) - p) < 1e-12
    two = bn.rate(path, threshold=0.7, by="pair", alternative="two-sided").sel(pair="a - b")
    table = pd.crosstab(a, b).reindex(index=[True, False], columns=[True, False], fill_value=0)
    exact = mcnemar(table.values, exact=True).pvalue
    assert abs(float(two["p_value_mcnemar_exact"]) - exact) < 1e-12
    # P(rate_a > rate_b) for independent Beta(1 + s, 1 + n - s) posteriors: Monte Carlo oracle
    rng = np.random.default_rng(0)
    draws = 400_000
    pa = rng.beta(1 + a.sum(), 1 + (~a).sum(), draws)
    pb = rng.beta(1 + b.sum(), 1 + (~b).sum(), draws)
    mc = np.mean(pa > pb)
    se = np.sqrt(mc * (1 - mc) / draws)
    assert abs(float(row["prob_rate_a_better"]) - mc) < 5 * se + 1e-9
    # paired: Dirichlet(1/2 + counts) over (both, only A, only B, neither); P(theta_10 > theta_01)
    counts = [np.sum(a & b), n10, n01, np.sum(~a & ~b)]
    theta = rng.dirichlet(0.5 + np.array(counts, dtype=float), draws)
    mc = np.mean(theta[:, 1] > theta[:, 2])
    se = np.sqrt(mc * (1 - mc) / draws)
    assert abs(float(row["prob_rate_a_better_paired"]) - mc) < 5 * se + 1e-9


def test_pairs_at_k_above_one_use_the_paired_t():
    rng = np.random.default_rng(11)
    k = np.full((2, 40), 5)
    u = rng.beta(2, 2, 40)
    c = np.stack([rng.binomial(5, np.clip(u + 0.1, 0, 1)), rng.binomial(5, u)])
    r = bn.rate(bn.from_arrays(c, k, models=["x", "y"]), by="pair")
    res = stats.ttest_rel(c[0] / 5, c[1] / 5, alternative="greater")
    assert abs(float(r["p_value_paired_t"][0]) - res.pvalue) < 1e-12


# -- exact coverage (the note's table and code) -------------------------------------------

# The note's table (In [3]): n = 15, p = linspace(0.025, 0.975, 1000), 95%, Beta(1, 1).
NOTE_ROWS = [
    (0, 0.315552, 0.947106),
    (1, 0.325426, 0.943468),
    (2, 0.335159, 0.939743),
    (3, 0.344752, 0.935932),
    (4, 0.354205, 0.932038),
    (995, 0.354205, 0.932038),
    (996, 0.344752, 0.935932),
    (999, 0.315552, 0.947106),
]


def test_exact_coverage_reproduces_the_note_table():
    p = np.linspace(0.025, 0.975, 1000)
    wald = bn.exact_coverage(15, p, method="wald")
    bayes = bn.exact_coverage(15, p, method="bayes", prior="uniform")
    for i, w, b in NOTE_ROWS:  # printed to 6 decimals: agree within half a unit of the last
        assert abs(wald[i] - w) < 5e-7 and abs(bayes[i] - b) < 5e-7


def _note_eff_cp(n, p, alpha, beta, alphalevel=0.05):
    """The note's effCP, as written there (the oracle of the mean coverage curves); its
    intervals depend on n only, so they are computed once per n (the note recomputes them for
    each p)."""
    k = np.linspace(0, n, n + 1)
    ci_wald = [
        [
            x / n + stats.norm.ppf(alphalevel / 2) * np.sqrt((x / n) * (1 - x / n) / n),
            x / n - stats.norm.ppf(alphalevel / 2) * np.sqrt((x / n) * (1 - x / n) / n),
        ]
        for x in k
    ]
    ci_bayes = [
        stats.beta.ppf([alphalevel / 2, 1 - alphalevel / 2], alpha + x, beta + n - x) for x in k
    ]
    out = []
    for q in np.atleast_1d(p):
        cov_w = [1 if x[0] <= q <= x[1] else 0 for x in ci_wald]
        cov_b = [1 if x[0] <= q <= x[1] else 0 for x in ci_bayes]
        pmf = stats.binom.pmf(k, n, q)
        out.append((sum(cov_w * pmf), sum(cov_b * pmf)))
    return np.array(out)


def test_mean_coverage_curves_equal_the_note_code():
    """n = 10..340 and p = linspace(0.01, 0.99, 200), the note's In [4]: the coverage of Wald
    and of Beta(1, 1) equal the note's code at every (n, p) checked; the mean over p of
    Beta(1, 1) stays near 95%, Wald's below."""
    sizes = np.arange(10, 350, 10)
    p = np.linspace(0.01, 0.99, 200)
    wald = bn.exact_coverage(sizes, p, method="wald").mean(axis=1)
    bayes = bn.exact_coverage(sizes, p, method="bayes").mean(axis=1)
    every = (
        bn.exact_coverage(sizes, p[::5], method="wald"),
        bn.exact_coverage(sizes, p[::5], method="bayes"),
    )
    for i, n in list(enumerate(sizes))[::3]:  # n = 10, 40, ..., 340 (the note's loops: slow)
        ref = _note_eff_cp(int(n), p[::5], 1, 1)
        assert np.abs(every[0][i] - ref[:, 0]).max() < 1e-12
        assert np.abs(every[1][i] - ref[:, 1]).max() < 1e-12
    assert np.all(np.abs(bayes - 0.95) < 0.01) and np.all(wald < 0.95)


def test_exact_coverage_of_clopper_pearson_never_below_level():
    p = np.linspace(0.01, 0.99, 99)
    cover = bn.exact_coverage([10, 37, 120], p, method="clopper-pearson")
    assert cover.shape == (3, 99) and cover.min() >= 0.95 - 1e-12  # exact: conservative


# -- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"prior": "mean=1.2,sd=0.1"}, "prior mean must be in \\(0, 1\\)"),
        ({"prior": "mean=0.5,sd=0.5"}, "sd\\^2 < mean \\(1 - mean\\)"),
        ({"prior": "mean=0.6,sd=0.2", "threshold": 1.2}, "outside the scores' range"),
        ({"priors": {"nobody": "uniform"}}, "'nobody' is not in"),
        ({"prior": "0,2"}, "a > 0 and b > 0"),
        ({"prior": "cauchy"}, "unknown named prior"),
        ({"target": 1.5}, "target must be in"),
    ],
)
def test_bad_input_is_a_clear_data_error(graded, kwargs, match):
    path, _ = graded
    read = {"threshold": 0.7} if "threshold" not in kwargs else {}
    with pytest.raises(DataError, match=match):
        bn.rate(path, **read, **kwargs)


def test_graded_scores_without_threshold_name_it(graded):
    path, _ = graded
    with pytest.raises(DataError, match="--threshold T"):
        bn.rate(path)


def test_summed_graded_samples_are_refused_not_guessed():
    ds = bn.from_arrays(np.array([[1.3, 2.0]]), np.array([[2, 2]]), sum_sq=np.array([[0.85, 2.0]]))
    with pytest.raises(DataError, match="graded samples were summed"):
        bn.rate(ds, threshold=0.5)


# -- the command line -------------------------------------------------------------------------


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def test_cli_prints_the_verb_and_says_how_it_thresholded(graded, tmp_path):
    path, _ = graded
    status, out, err = _run(
        ["rate", str(path), "--threshold", "0.7", "--target", "0.5", "--format", "csv"]
    )
    assert status == 0 and err.count("\n") == 1 and "scores >= 0.7 count as success" in err
    cli = pd.read_csv(io.StringIO(out))
    ref = bn.tidy(bn.rate(path, threshold=0.7, target=0.5))
    assert list(cli.columns) == list(ref.columns)
    assert np.allclose(cli["rate"], ref["rate"], rtol=1e-9)
    status, out, _ = _run(["threshold", str(path), "--grid", "0.5:0.7:0.1", "--format", "csv"])
    sweep = pd.read_csv(io.StringIO(out))
    assert status == 0 and len(sweep) == 9 and list(sweep.columns[:2]) == ["model", "threshold"]
    status, _, err = _run(["rate", str(path)])
    assert status == 2 and "--threshold" in err


def test_figures_draw_the_verbs_numbers(graded):
    path, scores = graded
    fig = bn.plot.rate(path, threshold=0.7, prior="mean=0.6,sd=0.2")
    ax = fig.axes[0]
    gids = [line.get_gid() for line in ax.lines]
    assert gids == [f"{kind}:{m}" for m in scores for kind in ("posterior", "prior")]
    post = ax.lines[0]
    x, y = post.get_xdata(), post.get_ydata()
    s, n = _counts(scores, 0.7)["a"], len(scores["a"])
    assert np.allclose(y, stats.beta.pdf(x, 3 + s, 2 + n - s), rtol=1e-12)
    prior = ax.lines[1]
    assert np.allclose(prior.get_ydata(), stats.beta.pdf(x, 3, 2), rtol=1e-12)
    fig = bn.plot.threshold(path, grid="0.5:0.8:0.1")
    sweep = bn.tidy(bn.threshold(path, grid="0.5:0.8:0.1"))
    line = fig.axes[0].lines[0]
    assert line.get_gid() == "a"
    assert np.allclose(line.get_ydata(), sweep.loc[sweep["model"] == "a", "rate"])


# -- files shaped unlike ours (skipped without ../shared/data) -----------------------------------


def test_eval_arena_pass1_thresholded_like_a_hand_count(shared_data):
    """Eval-Arena's fractional pass1 per question (no counts): each is one graded value."""
    f = shared_data / "eval-arena" / "cruxeval_output.jsonl"
    raw = pd.read_json(f, lines=True)
    models = sorted(raw["model"].unique())[:4]
    r = bn.rate(f, threshold=0.5, target=0.4, models=",".join(models))
    for m in models:
        v = raw.loc[raw["model"] == m, "pass1"].to_numpy()
        s, n = int(np.sum(v >= 0.5)), v.size
        assert int(r["successes"].sel(model=m)) == s and int(r["trials"].sel(model=m)) == n
        p = stats.binomtest(s, n, 0.4, alternative="greater").pvalue
        assert abs(float(r["p_value_binomial"].sel(model=m)) - p) < 1e-12


def test_cruxeval_samples_at_k10_use_the_question_means(shared_data):
    f = shared_data / "cruxeval-samples" / "cruxeval_output_temp0.2.csv"
    raw = pd.read_csv(f)
    model = raw.groupby("model")["sample"].nunique().idxmax()  # K = 10 (API models: K = 1..3)
    r = bn.rate(f, models=model, target=0.4, alternative="two-sided")
    means = raw[raw["model"] == model].groupby("example_id")["correct"].mean().to_numpy()
    assert "K > 1" in str(r["rate_model"].values[0]) and "p_value_binomial" not in r
    res = stats.ttest_1samp(means, 0.4)
    assert abs(float(r["p_value_t"][0]) - res.pvalue) < 1e-12
    low, high = res.confidence_interval(0.95)
    assert abs(float(r["rate_t_low"][0]) - low) < 1e-12
    assert abs(float(r["rate_t_high"][0]) - high) < 1e-12


def test_options_in_the_one_spelling():
    s = np.array([[1, 0, 1, 1], [0, 0, 1, 0]])
    with pytest.raises(ValueError, match="alternative='greater' or 'less'"):
        bn.rate(s, alternative="one-sided")
    with pytest.raises(TypeError, match="by='pair'"):
        bn.rate(s, pairs=True)
    with pytest.raises(ValueError, match="confidence_level=None"):
        bn.rate(s, confidence_level=None)
    with pytest.raises(DataError, match="give a threshold"):
        bn.rate(s, success="below")
    with pytest.raises(DataError, match="leave threshold"):
        bn.threshold(s, grid="0.5", threshold=0.5)
    with pytest.raises(DataError, match="start:stop:step"):
        bn.threshold(s, grid="0.9:0.5:0.1")


def test_k_above_one_warns_when_the_beta_population_is_rejected():
    """Two-point question accuracies (0.05 or 0.9): the Beta hierarchy's credible interval
    covered 0.87-0.90 in studies/rate_k_gt1.py; the likelihood-ratio test says so."""
    rng = np.random.default_rng(1)
    n = 400
    two_point = np.where(rng.random(n) < 0.94, 0.9, 0.05)
    beta = rng.beta(1.7, 0.3, n)
    c = np.stack([rng.binomial(5, two_point), rng.binomial(5, beta)])
    ds = bn.from_arrays(c, np.full((2, n), 5), models=["two-point", "beta"])
    with pytest.warns(UserWarning, match="not Beta-distributed for two-point \\("):
        r = bn.rate(ds)
    assert r.attrs["beta_rejected"] == ["two-point"]


def test_exact_coverage_of_wilson_and_hpd_against_formulas():
    """Wilson written out (centre (k + z^2/2)/(n + z^2), half-width z sqrt(...)/(n + z^2)) and
    the Beta HPD from a direct search, enumerated by hand at n = 23."""
    n, z = 23, stats.norm.ppf(0.975)
    k = np.arange(n + 1)
    centre = (k + z * z / 2) / (n + z * z)
    half = z * np.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
    p = np.array([0.05, 0.27, 0.48, 0.73])
    pmf = stats.binom.pmf(k[:, None], n, p[None, :])
    inside = (p >= (centre - half)[:, None]) & (p <= (centre + half)[:, None])
    want = (inside * pmf).sum(axis=0)
    assert np.abs(bn.exact_coverage(n, p, method="wilson") - want).max() < 1e-12
    t = np.linspace(0, 0.05, 2_001)  # HPD of Beta(1 + k, 1 + n - k): shortest [Q(t), Q(t + .95)]
    lows, highs = [], []
    for kk in k:
        d = stats.beta(1 + kk, 1 + n - kk)
        lo, hi = d.ppf(t), d.ppf(t + 0.95)
        j = int(np.argmin(hi - lo))
        lows.append(lo[j])
        highs.append(hi[j])
    lows, highs = np.array(lows)[:, None], np.array(highs)[:, None]
    assert np.abs(np.concatenate([lows, highs]) - p).min() > 3e-3  # no p near an end: the
    inside = (p >= lows) & (p <= highs)  # search's 2.5e-5 step in t cannot flip a verdict
    want = (inside * pmf).sum(axis=0)
    assert np.abs(bn.exact_coverage(n, p, method="bayes-hpd") - want).max() < 1e-12


@pytest.mark.parametrize("n", [1, 2, 15, 340])
def test_clopper_pearson_and_wilson_ends_equal_statsmodels(n):
    # the closed forms in decide/exact_coverage.py against statsmodels' proportion_confint
    # (the package does not import statsmodels); both are deterministic: 1e-12
    from statsmodels.stats.proportion import proportion_confint

    from bayesnoise.decide.exact_coverage import binomial_intervals

    k = np.arange(n + 1)
    for method, kind in (("clopper-pearson", "beta"), ("wilson", "wilson")):
        low, high = binomial_intervals(n, method, confidence_level=0.9)
        ref_low, ref_high = proportion_confint(k, n, alpha=0.1, method=kind)
        np.testing.assert_allclose(low, ref_low, atol=1e-12)
        np.testing.assert_allclose(high, ref_high, atol=1e-12)
