"""Question quality (Kendall tau, suspect / unsolved questions), win rate and Elo.

Checked against independent references: scipy.stats.kendalltau one question at a time, pandas
re-implementations of Eval-Arena's tables read straight from the JSONL files, and a plain
Bradley-Terry maximum-likelihood fit written here with scipy.optimize.minimize.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import SHARED_DATA
from scipy import optimize, special, stats

import bayesnoise as bn
from bayesnoise.data import from_arrays
from bayesnoise.frequentist.elo import ELO_SCALE, elo
from bayesnoise.frequentist.quality import (
    kendall_tau_b,
    model_accuracy,
    model_quality,
    question_quality,
    question_summary,
    question_table,
    win_rate,
)

ARENA_FILES = sorted(
    [
        *SHARED_DATA.glob("eval-arena/*.jsonl"),
        *SHARED_DATA.glob("eval-arena/*/*.jsonl"),
        *SHARED_DATA.glob("swebench-terminalbench/*.jsonl"),
    ]
)
# Seed eval-arena README, "Errors and contamination": the 7 of the 10 most suspect MBPP+
# questions that were confirmed wrong or underspecified by manual inspection.
MBPP_CONFIRMED = {f"Mbpp/{i}" for i in (459, 581, 102, 615, 558, 559, 87)}


def _rasch(m, n, seed, k=1):
    rng = np.random.default_rng(seed)
    ability = np.linspace(-1.0, 1.0, m)
    prob = special.expit(ability[:, None] - rng.normal(0.0, 1.5, n)[None, :])
    return rng.binomial(k, prob) / k


# --- Kendall tau-b -------------------------------------------------------------------------


@pytest.mark.parametrize("max_levels", [64, 0], ids=["level-products", "pair-signs"])
@pytest.mark.parametrize("values", [2, 5, None], ids=["binary", "five-levels", "continuous"])
def test_kendall_tau_b_equals_scipy(max_levels, values):
    rng = np.random.default_rng(7)
    m, q = 23, 300
    x = rng.integers(0, 8, m).astype(float)  # tied accuracies too
    y = rng.random((m, q)) if values is None else rng.integers(0, values, (m, q)) / values
    y[:, :3] = 0.5  # constant columns: tau undefined
    got = kendall_tau_b(x, y, max_levels=max_levels)
    ref = np.array([stats.kendalltau(y[:, j], x).statistic for j in range(q)])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)


def test_kendall_tau_b_degenerate():
    assert np.isnan(kendall_tau_b([1.0], [[1.0, 0.0]])).all()  # one model
    assert np.isnan(kendall_tau_b([2.0, 2.0, 2.0], np.eye(3))).all()  # tied accuracies
    assert kendall_tau_b([1.0, 2.0], [[0.0], [1.0]]).tolist() == [1.0]


def test_model_accuracy_makes_float_ties_exact():
    # 0.1 + 0.2 + 0.3 differs from 0.3 + 0.2 + 0.1 in the last bit; the same total is a tie
    p = np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1], [0.0, 0.0, 0.1]])
    acc = model_accuracy(p)
    assert acc[0] == acc[1]


# --- question table ------------------------------------------------------------------------


def test_question_table_columns_and_ranks():
    p = np.array([[1, 0, 0, 0, 1], [1, 1, 0, 0, 0], [0, 1, 1, 0, 1], [0, 1, 1, 0, 1.0]])
    t = question_table(p, ["w", "x", "y", "z"], list("abcde"))
    assert t["question"].tolist() == list("abcde")
    assert t["solved_by"].tolist() == [2, 3, 2, 0, 3]
    assert t["weakest_solver"].isna().tolist() == [False, False, False, True, False]
    assert t["weakest_solver"].dropna().tolist() == ["w", "x", "y", "w"]
    acc = model_accuracy(p)
    np.testing.assert_allclose(
        t["weakest_solver_accuracy"], [acc[0], acc[1], acc[2], np.nan, acc[0]]
    )
    np.testing.assert_allclose(t["question_accuracy"], p.mean(axis=0))
    tau = t["kendall_tau"].to_numpy()
    order = np.argsort(np.where(np.isnan(tau), np.inf, tau), kind="stable")
    assert t["suspect_rank"].iloc[order[:4]].tolist() == [1, 2, 3, 4]
    assert t["suspect_rank"].isna().tolist() == [False, False, False, True, False]
    assert question_summary(t) == {
        "questions": 5,
        "unsolved": 1,
        "solved_by_one": 0,
        "tau_negative": int((tau < 0).sum()),
        "tau_undefined": 1,
    }


def test_question_table_ties_keep_question_order():
    p = np.array([[0, 0, 1.0], [1, 1, 1.0], [1, 1, 0.0]])  # questions 0 and 1 identical
    t = question_table(p)
    assert t["kendall_tau"][0] == t["kendall_tau"][1]
    assert t["suspect_rank"][0] < t["suspect_rank"][1]


def test_solved_uses_correct():
    p = np.array([[0.0, 0.5], [1.0, 0.0]])
    t = question_table(p, correct=np.array([[0.0, 1.0], [2.0, 0.0]]))
    assert t["solved_by"].tolist() == [1, 1]


def test_missing_cells_raise_not_drop():
    p = np.array([[1.0, np.nan], [0.0, 1.0]])
    for fn in (question_table, win_rate, elo):
        with pytest.raises(ValueError, match="missing"):
            fn(p)
    ds = from_arrays(np.array([[1, 0, 1], [0, 0, 1]]), np.array([[1, 1, 1], [1, 0, 1]]))
    with pytest.raises(ValueError):
        question_quality(ds)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert len(question_quality(ds, on_missing="intersect")) == 2


# --- win rate ------------------------------------------------------------------------------


def test_win_rate_equals_pair_loop():
    p = _rasch(7, 120, seed=3, k=10)
    m = p.shape[0]
    ref = [np.mean([np.mean(p[a] * (1 - p[b])) for b in range(m) if b != a]) for a in range(m)]
    np.testing.assert_allclose(win_rate(p), ref, rtol=0, atol=1e-12)


# --- Elo -----------------------------------------------------------------------------------


def _reference_wins(p, ties="half"):
    """W[a, b] by a double loop over the battles: a wins question i with p_a (1 - p_b); a tie
    (both pass or both fail, p_a p_b + (1 - p_a)(1 - p_b)) is half a win for each side with
    ``ties="half"`` (Chatbot Arena / Eval-Arena) and no battle with ``ties="exclude"``."""
    m = p.shape[0]
    w = np.zeros((m, m))
    for a in range(m):
        for b in range(m):
            if a != b:
                tie = p[a] * p[b] + (1 - p[a]) * (1 - p[b])
                w[a, b] = np.sum(p[a] * (1 - p[b])) + (0.5 * np.sum(tie) if ties == "half" else 0)
    return w


def _negloglik(theta, w):
    """Bradley-Terry minus log-likelihood of ``w`` and its gradient (natural log-odds)."""
    diff = theta[:, None] - theta[None, :]
    s = special.expit(diff)
    grad = -(w * (1 - s)).sum(axis=1) + (w.T * (1 - s.T)).sum(axis=1)
    return -(w * special.log_expit(diff)).sum(), grad


def _reference_fit(w):
    """Plain Bradley-Terry MLE: model 0 pinned at 0, BFGS on -loglik; mean-0 log-odds."""
    m = w.shape[0]

    def pinned(free):
        value, grad = _negloglik(np.r_[0.0, free], w)
        return value, grad[1:]

    res = optimize.minimize(
        pinned, np.zeros(m - 1), jac=True, method="BFGS", options={"gtol": 1e-10}
    )
    theta = np.r_[0.0, res.x]
    return theta - theta.mean()


def _reference_elo(p, ties="half"):
    """Reference Elo (mean 0): :func:`_reference_fit` of :func:`_reference_wins`."""
    return ELO_SCALE * _reference_fit(_reference_wins(p, ties))


def _error_bound(theta, w):
    """Bound on |theta - theta_MLE| (log-odds, Euclidean, mean-0 parametrisation).

    -loglik is convex with Hessian L, the Laplacian of the weights (W + W') s (1 - s), whose
    only zero eigenvalue is the constant vector (fixed by the mean-0 anchoring). On the mean-0
    subspace, |theta - theta*| <= |g(theta)| / lambda_2(L) with g the gradient (strong
    convexity); lambda_2 is halved to cover the change of L between theta and theta* (the two
    are < 1e-5 log-odds apart here, which moves s (1 - s) by a relative ~1e-5)."""
    grad = _negloglik(theta, w)[1]
    s = special.expit(theta[:, None] - theta[None, :])
    h = (w + w.T) * s * (1 - s)
    lap = np.diag(h.sum(axis=1)) - h
    lam2 = np.sort(np.linalg.eigvalsh(lap))[1]
    return float(np.linalg.norm(grad - grad.mean()) / (0.5 * lam2))


def _assert_elo_matches_reference(p, ties="half"):
    """The package's Elo equals the reference fit within a derived tolerance, <= 0.01 Elo.

    Tolerance: the sum of :func:`_error_bound` at both solutions (each fit is within its bound
    of the one MLE), in Elo points; the test also requires that bound to be <= 0.01 Elo, so a
    loose fit on either side fails rather than widening the tolerance."""
    name = "elo" if ties == "half" else "elo_decisive"
    got = elo(p, n_resamples=0, ties=ties)[name].to_numpy()
    assert got.mean() == pytest.approx(1000.0, abs=1e-9)
    w = _reference_wins(p, ties)
    ref = _reference_fit(w)
    mine = (got - got.mean()) / ELO_SCALE
    tol = ELO_SCALE * (_error_bound(mine, w) + _error_bound(ref, w))
    assert tol <= 0.01, tol
    np.testing.assert_allclose(mine * ELO_SCALE, ref * ELO_SCALE, rtol=0, atol=tol)
    return float(np.abs(mine - ref).max() * ELO_SCALE), tol


@pytest.mark.parametrize("ties", ["half", "exclude"])
def test_elo_equals_plain_mle_synthetic(ties):
    _assert_elo_matches_reference(_rasch(9, 400, seed=5), ties)
    _assert_elo_matches_reference(_rasch(6, 300, seed=6, k=10), ties)


def test_elo_ties_count_half_by_hand():
    """Two models, 4 questions: a wins 2, b wins 0, 2 ties -> half wins 3 : 1, so
    elo_a - elo_b = 400 log10(3) exactly (Bradley-Terry odds = win ratio for two models);
    ties excluded: a never loses, no finite MLE."""
    p = np.array([[1, 1, 1, 0], [0, 0, 1, 0.0]])
    t = elo(p, ["a", "b"], n_resamples=0)
    assert t["elo"][0] - t["elo"][1] == pytest.approx(400 * np.log10(3.0), abs=1e-6)
    with pytest.raises(ValueError, match="does not exist"):
        elo(p, n_resamples=0, ties="exclude")
    with pytest.raises(ValueError, match="ties must be one of"):
        elo(p, ties="drop")


def test_elo_bootstrap_contains_estimate_and_is_seeded():
    p = _rasch(5, 300, seed=8)
    a = elo(p, list("abcde"), n_resamples=300, rng=4)
    b = elo(p, list("abcde"), n_resamples=300, rng=4)
    pd.testing.assert_frame_equal(a, b)
    assert ((a["elo_low"] < a["elo"]) & (a["elo"] < a["elo_high"])).all()
    assert a.attrs["bootstrap_failed"] == 0


def test_elo_bootstrap_refits_equal_scipy():
    """The batched refits of the bootstrap equal a plain scipy fit of the same replicate, ties
    counted half. Tolerance 1e-3 Elo: each refit is within ~2e-4 Elo of its MLE (see the next
    test) and the reference within its BFGS gtol 1e-10."""
    p = _rasch(8, 250, seed=9)
    n = p.shape[1]
    rng = np.random.default_rng(11)
    draws = rng.integers(0, n, size=(3, n))
    table = elo(p, n_resamples=3, rng=11, confidence_level=0.5)
    reps = [_reference_elo(p[:, d]) for d in draws]
    lo, hi = np.quantile(np.array(reps), [0.25, 0.75], axis=0)
    np.testing.assert_allclose(table["elo_low"] - 1000, lo, atol=1e-3)
    np.testing.assert_allclose(table["elo_high"] - 1000, hi, atol=1e-3)


@pytest.mark.parametrize("ties", ["half", "exclude"])
@pytest.mark.parametrize("k", [1, 10], ids=["binary", "fractional"])
def test_elo_bootstrap_intervals_equal_plain_refits_of_the_same_draws(k, ties):
    """The fast bootstrap (float32 win matrices, float32 chord refits) gives the interval ends
    of refitting every replicate with a plain BFGS Bradley-Terry fit (:func:`_reference_elo`,
    W by a double loop) on the same resampled questions.

    The replicates are the ones ``elo`` draws: ``default_rng(seed).integers(0, n, (B, n))``
    (one chunk at this size). Tolerance 0.01 Elo: the chord refit stops when no step exceeds
    1e-6 log-odds (4e-4 Elo) and contracts at rate < 0.3, so each refit is within ~2e-4 Elo
    of its MLE; float32 win matrices are exact for 0/1 scores and within relative 1e-7 for
    fractional ones; a percentile interval end moves by at most the largest change of the
    values it is taken from. The bootstrap's own Monte Carlo SE of a 2.5% end,
    sqrt(0.025 * 0.975 / B) / density ~ 2.7 sd / sqrt(B), is ~4 Elo here: 400x larger.
    """
    m, n, boot, seed = 12, 300, 200, 3
    p = _rasch(m, n, seed=21, k=k)
    name = "elo" if ties == "half" else "elo_decisive"
    table = elo(p, n_resamples=boot, rng=seed, ties=ties)
    draws = np.random.default_rng(seed).integers(0, n, size=(boot, n))
    reps = np.array([_reference_elo(p[:, d], ties) for d in draws])
    lo, hi = np.quantile(reps, [0.025, 0.975], axis=0)
    np.testing.assert_allclose(table[f"{name}_low"] - 1000.0, lo, rtol=0, atol=0.01)
    np.testing.assert_allclose(table[f"{name}_high"] - 1000.0, hi, rtol=0, atol=0.01)


def test_elo_without_mle_raises_and_failed_replicates_warn():
    never_wins = np.array([[1, 1, 0, 1], [1, 0, 1, 0], [0, 0, 0, 0.0]])
    with pytest.raises(ValueError, match="does not exist"):
        elo(never_wins, ties="exclude")
    never_ties = np.array([[1, 1, 1, 1], [0, 0, 0, 0.0]])  # every battle decisive, a wins all
    with pytest.raises(ValueError, match="does not exist"):
        elo(never_ties)
    # b beats a on one question of 20: about a third of the replicates leave it out
    p = np.zeros((2, 20))
    p[0, :19] = 1.0
    p[1, 19] = 1.0
    with pytest.warns(RuntimeWarning, match="no finite Bradley-Terry"):
        table = elo(p, n_resamples=200)
    assert 30 < table.attrs["bootstrap_failed"] < 120
    assert np.isfinite(table[["elo_low", "elo_high"]].to_numpy()).all()


def test_model_quality_wrapper():
    p = _rasch(4, 200, seed=12)
    ds = from_arrays(p, np.ones_like(p), models=["a", "b", "c", "d"])
    t = model_quality(ds, n_resamples=50)
    assert t.columns.tolist() == ["model", "accuracy", "win_rate", "elo", "elo_low", "elo_high"]
    assert t["model"].tolist() == ["d", "c", "b", "a"]  # best first
    assert t["accuracy"].is_monotonic_decreasing


def _true_elo(theta, sd, ties):
    """Elo the bootstrap interval targets on Rasch data, P(a solves i) = sigmoid(theta_a - d_i)
    with d_i ~ N(0, sd^2) independent.

    Ties excluded: Bradley-Terry holds on expected decisive wins exactly,
    E[p_a (1 - p_b)] / E[p_b (1 - p_a)] = e^(theta_a - theta_b), so the truth is theta itself.
    Ties half: the fitted model is no longer exact, and the MLE converges to the Bradley-Terry
    fit of the expected half-win matrix (the log-likelihood is linear in W), computed here by
    80-point Gauss-Hermite quadrature over d and the plain reference fit."""
    if ties == "exclude":
        return 1000.0 + ELO_SCALE * (theta - theta.mean())
    x, wq = np.polynomial.hermite_e.hermegauss(80)
    pq = special.expit(theta[:, None] - sd * x[None, :])  # (M, nodes)
    wq = wq / wq.sum()
    w = np.array(
        [
            [
                0.0
                if a == b
                else np.sum(
                    wq * (pq[a] * (1 - pq[b]) + 0.5 * (pq[a] * pq[b] + (1 - pq[a]) * (1 - pq[b])))
                )
                for b in range(len(theta))
            ]
            for a in range(len(theta))
        ]
    )
    return 1000.0 + ELO_SCALE * _reference_fit(w)


@pytest.mark.slow
@pytest.mark.parametrize("ties", ["half", "exclude"])
def test_elo_bootstrap_coverage(ties):
    """Percentile intervals cover the true Elo (:func:`_true_elo`) at about the nominal rate.

    Band: nominal +- 3.5 binomial Monte Carlo standard errors sqrt(c (1 - c) / R), R = 300 data
    sets (z = 3.5: a false failure rate ~5e-4 per check). Indicators pooled over the M models
    are positively correlated, and the variance of their mean is at most c (1 - c), so an SE
    with R (not R M) trials is conservative. Two-sided: coverage that is too high fails as well
    as too low, and each tail (nominal 0.025 +- 3.5 sqrt(0.025 * 0.975 / R)) is checked too.
    """
    # 150 bootstrap replicates per data set (the cost of a call is linear in them; 300 took
    # 5 s CPU per cell): the percentile ends are noisier, which moves each data set's chance of
    # covering by O(1/150) at most, within the band's 3.5 SE = 0.044
    reps, m, n, boot, level, sd = 300, 5, 300, 150, 0.95, 1.5
    name = "elo" if ties == "half" else "elo_decisive"
    theta = np.linspace(-1.2, 1.2, m)
    true = _true_elo(theta, sd, ties)
    rng = np.random.default_rng(2024)
    below = above = 0
    for r in range(reps):
        d = rng.normal(0.0, sd, n)
        p = (rng.random((m, n)) < special.expit(theta[:, None] - d[None, :])).astype(float)
        t = elo(p, n_resamples=boot, confidence_level=level, rng=r, ties=ties)
        below += int((true < t[f"{name}_low"].to_numpy()).sum())
        above += int((true > t[f"{name}_high"].to_numpy()).sum())
    coverage = 1.0 - (below + above) / (reps * m)
    se = np.sqrt(level * (1 - level) / reps)
    assert abs(coverage - level) <= 3.5 * se, (coverage, below, above)
    tail = (1 - level) / 2
    se_tail = np.sqrt(tail * (1 - tail) / reps)
    for miss in (below, above):
        assert abs(miss / (reps * m) - tail) <= 3.5 * se_tail, (below, above)


# --- shared Eval-Arena files ---------------------------------------------------------------


def _reference_tables(path):
    """Eval-Arena's numbers by pandas from the raw JSONL (not through bayesnoise.load)."""
    df = pd.read_json(path, lines=True)[["model", "example_id", "pass1"]]
    acc = df.groupby("model")["pass1"].mean().round(12)
    wide = df.pivot(index="model", columns="example_id", values="pass1")
    tau = {
        q: stats.kendalltau(wide[q].to_numpy(), acc[wide.index].to_numpy()).statistic
        for q in wide.columns
    }
    # eval-arena's arena.py: every (A, B != A, question) battle, A wins with p_A (1 - p_B)
    pa = df.merge(df, on="example_id", suffixes=("_a", "_b"))
    pa = pa[pa["model_a"] != pa["model_b"]]
    awins = pa["pass1_a"] * (1 - pa["pass1_b"])
    rate = awins.groupby(pa["model_a"]).mean()
    ex_acc = wide.mean(axis=0)
    return pd.Series(tau), rate, int((ex_acc == 0).sum())


@pytest.mark.shared_data
@pytest.mark.parametrize("path", ARENA_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_shared_files_match_reference(shared_data, path):
    ds = bn.load(path)
    table = question_quality(ds).set_index("question")
    tau_ref, rate_ref, unsolved_ref = _reference_tables(path)
    tau = table["kendall_tau"].reindex(tau_ref.index).to_numpy(dtype=float)
    np.testing.assert_array_equal(np.isnan(tau), np.isnan(tau_ref.to_numpy()))
    np.testing.assert_allclose(tau, tau_ref.to_numpy(), rtol=0, atol=1e-9)
    summary = question_summary(table)
    assert summary["unsolved"] == unsolved_ref
    assert summary["tau_negative"] == int((tau_ref < 0).sum())
    p = (ds["correct"] / ds["samples"]).values
    rate = pd.Series(win_rate(p), index=ds["model"].values)
    np.testing.assert_allclose(rate[rate_ref.index], rate_ref, rtol=0, atol=1e-9)


@pytest.mark.shared_data
def test_mbpp_plus_suspects_are_the_confirmed_errors(shared_data):
    table = question_quality(bn.load(shared_data / "eval-arena" / "mbpp+.jsonl"))
    top = set(table.nsmallest(10, "suspect_rank")["question"])
    assert len(top & MBPP_CONFIRMED) >= 6, sorted(top)


@pytest.mark.shared_data
@pytest.mark.parametrize(
    "name",
    [
        "eval-arena/mbpp+",
        "eval-arena/humaneval+",
        "eval-arena/cruxeval_output",
        "swebench-terminalbench/terminal-bench-2.0",
    ],
)
def test_shared_elo_equals_plain_mle(shared_data, name):
    """Elo (ties half, the arena definition) and the ties-excluded fit equal the reference
    Bradley-Terry fit to a derived tolerance <= 0.01 Elo (:func:`_assert_elo_matches_reference`);
    on mbpp+ this is the acceptance of issue 28."""
    ds = bn.load(shared_data / f"{name}.jsonl")
    for ties in ("half", "exclude"):
        _assert_elo_matches_reference((ds["correct"] / ds["samples"]).values, ties)


def test_rank_summary_equals_brute_force_with_ties():
    """The leaderboard's rank intervals (``decide.rank_summary``, ranks by sorting) equal the
    definition computed by brute force: for every draw, rank = 1 + (others higher) + (others
    equal) / 2, P(best) split over ties. Exact equality: both compute the same numbers, the
    brute force without sorting."""
    from bayesnoise.decide.ranks import rank_summary

    rng = np.random.default_rng(5)
    m, d, level = 9, 500, 0.9
    x = rng.normal(np.linspace(0.0, 0.04, m)[:, None], 0.02, (m, d))
    x[1] = x[0]  # identical models: a pair with zero spread
    x[4:7] = np.round(x[4:7], 2)  # ties within draws
    got = rank_summary(x, confidence_level=level)
    higher = np.array([[(x[:, j] > x[a, j]).sum() for j in range(d)] for a in range(m)])
    equal = np.array([[(x[:, j] == x[a, j]).sum() - 1 for j in range(d)] for a in range(m)])
    rank = 1 + higher + equal / 2
    np.testing.assert_array_equal(got["expected_rank"], rank.mean(axis=1))
    np.testing.assert_array_equal(got["prob_best"], ((higher == 0) / (1 + equal)).mean(axis=1))
    np.testing.assert_array_equal(
        got["rank_low"], np.quantile(rank, 0.05, axis=1, method="inverted_cdf")
    )
    np.testing.assert_array_equal(
        got["rank_high"], np.quantile(rank, 0.95, axis=1, method="inverted_cdf")
    )
