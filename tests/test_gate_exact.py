"""``check`` on few, equal or tied differences (issue 28 item 1): the exact tests against
independent oracles (scipy's binomtest, brute-force enumeration of every sign pattern), on
files shaped unlike the shared ones (2-10 questions, every difference equal, a few
discordant, K varying by question, rows sorted by outcome), the "no difference observed"
wording, and the size at the smallest N the study covers (the full study:
``studies/check_size.py``, ``benchmarks/results/check_size.md``)."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayesnoise as bn
from bayesnoise.cli import main
from bayesnoise.decide.gate import gate
from bayesnoise.decide.regression_tests import paired_regression_test
from bayesnoise.frequentist.exact_paired import sign_flip_test
from studies.ci_decisions import draw, population

ALPHA = 0.05


def _write(path, base, cand, *, sort_by_outcome=False):
    """A per-sample CSV: base/cand are lists of per-question 0/1 sample lists (K may vary)."""
    rows = []
    for model, scores in (("base", base), ("cand", cand)):
        for i, samples in enumerate(scores):
            for j, s in enumerate(samples):
                rows.append({"model": model, "example_id": f"q{i:02d}", "sample": j, "correct": s})
    df = pd.DataFrame(rows)
    if sort_by_outcome:  # an order that depends on the results
        df = df.sort_values(["correct", "example_id"], kind="stable")
    df.to_csv(path, index=False)
    return path


def _brute_force_p(d):
    """P(sum eps_i |d_i| <= sum d_i) over all 2^N sign patterns, listed one by one."""
    d = np.asarray(d, float)
    flips = np.array(list(itertools.product([-1.0, 1.0], repeat=d.size)))
    return float(((flips * np.abs(d)).sum(1) <= d.sum() + 1e-9).mean())


@pytest.mark.parametrize("n", [2, 3, 5, 10])
def test_every_difference_equal_is_the_sign_test(tmp_path, n):
    """The issue's file: the candidate fails n questions the baseline solves (K = 1)."""
    f = _write(tmp_path / "x.csv", [[1]] * n, [[0]] * n)
    res = bn.check(f, baseline="base", candidate="cand", progress=False)
    oracle = stats.binomtest(n, n, 0.5, alternative="greater").pvalue
    a = res.attrs
    assert a["test"] == "sign" and abs(a["p_value"] - oracle) < 1e-12
    assert a["regression"] == (oracle < ALPHA)
    assert a["high"] - a["low"] > 0.2  # never a zero-width interval from a few questions
    assert "sign test p = " in a["verdict"]
    # one more question both fail is a tie: the sign test does not move
    g = _write(tmp_path / "y.csv", [[1]] * n + [[0]], [[0]] * n + [[0]])
    tied = bn.check(g, baseline="base", candidate="cand", progress=False)
    assert abs(tied.attrs["p_value"] - oracle) < 1e-12


@pytest.mark.parametrize(
    ("worse", "better", "ties"), [(3, 1, 6), (4, 0, 2), (1, 2, 0), (5, 2, 3), (2, 2, 1)]
)
def test_a_few_discordant_questions_k1(tmp_path, worse, better, ties):
    base = [[1]] * worse + [[0]] * better + [[1]] * ties
    cand = [[0]] * worse + [[1]] * better + [[1]] * ties
    f = _write(tmp_path / "x.csv", base, cand, sort_by_outcome=True)
    res = bn.check(f, baseline="base", candidate="cand", progress=False)
    oracle = stats.binomtest(worse, worse + better, 0.5, alternative="greater").pvalue
    assert res.attrs["test"] == "sign" and abs(res.attrs["p_value"] - oracle) < 1e-12
    assert (
        abs(res.attrs["p_value"] - _brute_force_p(np.r_[-np.ones(worse), np.ones(better)])) < 1e-12
    )


@pytest.mark.parametrize("n", [2, 4, 7, 10])
def test_k5_and_varying_k_are_the_sign_flip_enumeration(tmp_path, n):
    rng = np.random.default_rng(n)
    k_base = rng.integers(1, 6, n)  # K varies by question and by model
    k_cand = rng.integers(1, 6, n)
    base = [rng.integers(0, 2, k).tolist() for k in k_base]
    cand = [rng.integers(0, 2, k).tolist() for k in k_cand]
    f = _write(tmp_path / "x.csv", base, cand)
    res = bn.check(f, baseline="base", candidate="cand", progress=False)
    d = np.array([np.mean(c) - np.mean(b) for b, c in zip(base, cand, strict=True)])
    assert abs(res.attrs["difference"] - d.mean()) < 1e-12
    assert res.attrs["test"] in ("sign", "sign-flip")
    assert abs(res.attrs["p_value"] - _brute_force_p(d)) < 1e-12


def test_exact_enumeration_beyond_what_can_be_listed():
    """40 nonzero differences (2^40 patterns, counted by halves) against the exact
    distribution of the sign-flip sum on the integer lattice (the differences are multiples
    of 0.2): a convolution of the 40 two-point distributions, in integers."""
    rng = np.random.default_rng(3)
    d = rng.choice([-0.8, -0.6, -0.2, 0.2, 0.4, 0.6], size=40)
    res = sign_flip_test(d)
    units = np.rint(np.abs(d) * 5).astype(int)
    offset = int(units.sum())
    counts = np.zeros(2 * offset + 1, dtype=object)  # exact big integers
    counts[offset] = 1
    for m in units:
        counts = np.roll(counts, -m) + np.roll(counts, m)  # no wrap: the support fits
    observed = int(np.rint(d.sum() * 5))
    oracle = sum(counts[: offset + observed + 1]) / 2**40
    assert res["test"] == "sign-flip" and abs(res["p_value"] - oracle) < 1e-12


def test_monte_carlo_beyond_the_exact_range_reports_its_mcse():
    d = np.random.default_rng(4).choice([-0.75, -0.5, -0.25, 0.25, 0.5, 0.75], size=60)
    d[30:] = -d[:30]  # a sum near 0: a p-value in the middle, where the MCSE is largest
    d[0] = -0.75
    res = sign_flip_test(d, n_resamples=4000, rng=1)
    assert res["test"] == "sign-flip (Monte Carlo)" and 0.05 < res["p_value"] < 0.95
    assert res["mcse"] == np.sqrt(res["p_value"] * (1 - res["p_value"]) / 4000)
    # the normal approximation of the sign-flip sum: mean 0, variance sum d^2
    z = d.sum() / np.sqrt((d**2).sum())
    assert abs(res["p_value"] - stats.norm.cdf(z)) < 4 * res["mcse"] + 0.01  # + CLT error


def test_no_difference_observed_is_said_so_by_both_methods(tmp_path, capsys):
    f = _write(tmp_path / "x.csv", [[1], [0], [1]], [[1], [0], [1]])
    for method in ("frequentist", "bayes"):
        res = bn.check(f, baseline="base", candidate="cand", method=method, progress=False)
        verdict = res.attrs["verdict"]
        assert verdict.startswith("no difference observed") and "better" not in verdict
        assert not res.attrs["regression"]
    code = main(["check", str(f), "--baseline", "base", "--candidate", "cand"])
    out = capsys.readouterr().out
    assert code == 0 and "no difference observed" in out


def test_the_issue_example_exits_0(tmp_path, capsys):
    """Two questions the candidate fails: was 'p = 0.0e+00: regression', exit 1."""
    f = _write(tmp_path / "x.csv", [[1], [1]], [[0], [0]])
    code = main(["check", str(f), "--baseline", "base", "--candidate", "cand"])
    out = capsys.readouterr().out
    assert code == 0 and "sign test p = 0.250" in out and "[1.000, 1.000]" not in out


def test_file_order_does_not_change_the_answer(tmp_path):
    rng = np.random.default_rng(8)
    base = [rng.integers(0, 2, 3).tolist() for _ in range(12)]
    cand = [rng.integers(0, 2, 3).tolist() for _ in range(12)]
    a = bn.check(_write(tmp_path / "a.csv", base, cand), baseline="base", candidate="cand")
    b = bn.check(
        _write(tmp_path / "b.csv", base, cand, sort_by_outcome=True),
        baseline="base",
        candidate="cand",
    )
    for key in ("p_value", "low", "high", "test"):
        assert a.attrs[key] == b.attrs[key]


def test_with_a_margin_the_exact_test_and_interval_agree():
    """Twelve losses out of twelve: the exact unconditional test's p is the largest P(12
    losses) = q^12 on the null boundary, q <= (1 + 0.05) / 2 (brute force), and Tango's
    interval lies below the margin with a nonzero width."""
    d = np.full(12, -1.0)
    r = paired_regression_test(d, margin=0.05)
    assert r["test"] == "exact unconditional"
    np.testing.assert_allclose(r["p_value_regression"], (1.05 / 2) ** 12, rtol=1e-9)
    assert r["change_low"] < r["change_high"] < -0.05  # nonzero width, below the margin


def test_size_at_n10_k1_null():
    """Smallest cell of the study: N = 10, K = 1, 600 null evals (mu 0.6): the gate flags at
    most alpha + 2 MCSE, MCSE = sqrt(alpha (1 - alpha) / 600), and less often than the old
    t test alone on the same draws (0.003 against 0.052 over 1,000 in the study: the old
    test's failure at this size is its degenerate p = 0, which the oracle tests above catch;
    this one guards the exact tests against over-rejecting)."""
    reps = 600
    u = population(np.random.default_rng(20261127), 20_000)
    p = draw(np.random.default_rng(1), u, reps, 10, 1)
    d = p[1] - p[0]
    flags = np.array([paired_regression_test(x)["p_value_regression"] < ALPHA for x in d])
    limit = ALPHA + 2 * np.sqrt(ALPHA * (1 - ALPHA) / reps)
    assert flags.mean() <= limit, flags.mean()
    t = stats.ttest_1samp(d, 0.0, axis=1, alternative="less").pvalue
    old = np.where(np.isnan(t), np.where(d.mean(1) < 0, 0.0, 1.0), t) < ALPHA
    assert old.mean() > flags.mean()
    assert all(gate(x).test == "sign" for x in d[:20])


def test_combined_exact_test_is_the_weighted_sign_flip_enumeration():
    """Two small benchmarks: the combined test of the mean of their mean differences is the
    sign-flip test of the differences weighted 1 / N_b, all 2^N patterns listed."""
    a = np.array([-1.0, -1.0, 0.0, -1.0, 1.0])
    b = np.array([-0.5, 0.0, -0.25])
    res = gate([a, b])
    top = res.rows.iloc[-1]
    assert top["benchmark"] == "combined" and top["test"] == "sign-flip"
    assert abs(top["p_value_regression"] - _brute_force_p(np.r_[a / a.size, b / b.size])) < 1e-12
    assert np.isnan(top["change_low"]) and "no interval" in res.verdict.splitlines()[2]


def test_interval_at_another_level_is_the_betting_interval_there():
    d = np.array([-1.0, -1.0, -1.0, 0.0, -1.0, 1.0, -1.0, -1.0])
    res = gate(d)
    wide, narrow = res.confidence_interval(0.99), res.confidence_interval(0.5)
    assert wide.low <= narrow.low and narrow.high <= wide.high
    assert narrow.high - narrow.low > 0 and wide.low <= d.mean() <= wide.high
