"""The regression gate (``bn.check``, ``bayesnoise check``): the one-sided paired t test and its
interval against scipy, the combined test against the paper's meta z, Holm against
statsmodels, the Bayesian probability against the Dirichlet posterior, exit codes run as a
user runs them, and (slow) size and power over 1,000 simulated correlated evals."""

import json
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import TTestPower

import bayesnoise as bn
from bayesnoise.cli import main
from bayesnoise.conjugate import paired_population_posterior
from bayesnoise.data import DataError
from bayesnoise.decide.gate import gate
from bayesnoise.decide.regression_tests import combine_tests, paired_regression_test
from bayesnoise.frequentist import meta_z
from studies.ci_decisions import draw, population, shifted, variance_of_difference

ALPHA = 0.05


def _mc_se(p, n):
    """Binomial Monte Carlo SE of a rate p over n replicates."""
    return np.sqrt(p * (1 - p) / n)


def _write_long(path, scores: dict, benchmark=None):
    """A per-sample CSV: scores maps model -> (questions, samples) array of 0/1."""
    rows = []
    for model, s in scores.items():
        for i in range(s.shape[0]):
            for j in range(s.shape[1]):
                row = {"model": model, "example_id": f"q{i}", "sample": j, "correct": int(s[i, j])}
                if benchmark is not None:
                    row["benchmark_id"] = benchmark[i]
                rows.append(row)
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def pilot(tmp_path_factory):
    """Two models on 300 questions, K = 2; the candidate is 10 points worse."""
    rng = np.random.default_rng(11)
    u = shifted(population(rng, 2000), -0.10)
    idx = rng.integers(0, u.shape[1], 300)
    base = rng.binomial(1, np.repeat(u[0, idx, None], 2, axis=1))
    cand = rng.binomial(1, np.repeat(u[1, idx, None], 2, axis=1))
    folder = tmp_path_factory.mktemp("gate")
    both = _write_long(folder / "both.csv", {"base": base, "cand": cand})
    b_file = _write_long(folder / "base.csv", {"model-x": base})
    c_file = _write_long(folder / "cand.csv", {"model-x": cand})
    return {"both": both, "base": b_file, "cand": c_file, "d": cand.mean(1) - base.mean(1)}


# --- the numpy core against independent oracles ------------------------------------------


@pytest.mark.parametrize("margin", [0.0, 0.02, -0.01])
def test_one_sided_t_and_interval_match_scipy(margin):
    d = np.random.default_rng(1).choice([-1.0, -0.5, 0.0, 0.5, 1.0], size=250)
    r = paired_regression_test(d, margin=margin, alpha=ALPHA)
    ref = stats.ttest_1samp(d + margin, 0.0, alternative="less")
    np.testing.assert_allclose(
        [r["t_change"], r["p_value_regression"]], [ref.statistic, ref.pvalue]
    )
    ci = stats.ttest_1samp(d, 0.0).confidence_interval(confidence_level=1 - 2 * ALPHA)
    np.testing.assert_allclose([r["change_low"], r["change_high"]], [ci.low, ci.high])
    # regression shown <=> the one-sided upper bound is below -margin
    assert (r["p_value_regression"] < ALPHA) == (r["change_high"] < -margin)


def test_result_object_is_scipy_style():
    d = np.random.default_rng(2).choice([-1.0, 0.0, 1.0], p=[0.2, 0.7, 0.1], size=400)
    res = gate(d)
    ref = stats.ttest_1samp(d, 0.0, alternative="less")
    assert res.alternative == "less" and res.df == d.size - 1
    np.testing.assert_allclose([res.statistic, res.pvalue], [ref.statistic, ref.pvalue])
    ci = res.confidence_interval(confidence_level=0.95)
    ref_ci = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
    np.testing.assert_allclose([ci.low, ci.high], [ref_ci.low, ref_ci.high])
    assert res.regression and res.exit_status == 1
    assert json.loads(json.dumps(res.to_dict()))["benchmarks"][0]["regression"] is True


def test_combined_test_is_the_meta_z_with_satterthwaite_df():
    rng = np.random.default_rng(3)
    ds = [rng.choice([-1.0, 0.0, 1.0], p=[0.2, 0.65, 0.15], size=n) for n in (120, 400, 900)]
    rows = [paired_regression_test(d) for d in ds]
    c = combine_tests(rows)
    se = np.array([r["se_change"] for r in rows])
    z = [r["change"] / r["se_change"] for r in rows]
    # the paper's meta z with w_b = se_b: sum of differences over root of the sum of variances
    assert np.isclose(c["t_change"], meta_z(z, weights=se))
    assert np.isclose(c["t_change"], sum(d.mean() for d in ds) / np.sqrt((se**2).sum()))
    df = (se**2).sum() ** 2 / sum(s**4 / (d.size - 1) for s, d in zip(se, ds, strict=True))
    assert np.isclose(c["df"], df)
    assert np.isclose(c["p_value_regression"], stats.t.cdf(c["t_change"], df))


def test_holm_over_benchmarks_and_combined_matches_statsmodels():
    rng = np.random.default_rng(4)
    ds = [rng.choice([-1.0, 0.0, 1.0], p=[p, 0.7, 0.3 - p], size=300) for p in (0.2, 0.16, 0.15)]
    res = gate(ds, names=["a", "b", "c"])
    rows = res.rows.set_index("benchmark")
    assert list(rows.index) == ["a", "b", "c", "combined"]
    ref = multipletests(rows["p_value_regression"], method="holm")[1]
    np.testing.assert_allclose(rows["p_value_regression_adjusted"], ref)
    assert rows["regression"].tolist() == (ref < ALPHA).tolist()
    assert res.regression == bool((ref < ALPHA).any())
    assert res.verdict.splitlines()[-1].startswith(("regression on", "no regression shown"))


def test_bayes_probability_is_the_dirichlet_posterior():
    d = np.random.default_rng(5).choice([-1.0, 0.0, 1.0], p=[0.18, 0.7, 0.12], size=300)
    res = gate(d, method="bayes", n_resamples=2000, rng=7)
    ref = paired_population_posterior(d, n_resamples=2000, rng=7)["prob_a_better"]
    assert np.isclose(res.prob_no_regression, ref)  # P(candidate - baseline > 0)
    assert res.regression == (res.prob_no_regression < ALPHA)
    assert np.isnan(res.pvalue)  # a posterior probability is never reported as a p-value


def test_differences_that_do_not_vary():
    """Equal differences: the sign test decides (scipy's binomtest), never p = 0 or NaN."""
    worse = gate(np.full(10, -1.0))
    exact = stats.binomtest(10, 10, 0.5, alternative="greater").pvalue
    assert worse.test == "sign" and worse.pvalue == exact and worse.regression
    two = gate(np.full(2, -1.0))
    assert two.pvalue == 0.25 and not two.regression and two.exit_status == 0
    same = gate(np.zeros(10))
    assert same.pvalue == 1.0 and not same.regression
    assert same.verdict.startswith("no difference observed") and "better" not in same.verdict


def test_verdict_names_regression_margin_non_inferiority_and_improvement():
    rng = np.random.default_rng(6)
    small_drop = rng.choice([-1.0, 0.0, 1.0], p=[0.11, 0.8, 0.09], size=4000)
    assert "non-inferior within the margin 0.05" in gate(small_drop, margin=0.05).verdict
    assert gate(small_drop, margin=0.05).exit_status == 0
    better = -small_drop * 3  # clipped below: a clear improvement
    better = np.clip(better, -1, 1)
    assert gate(better).verdict.endswith("no regression; improvement")
    big_drop = rng.choice([-1.0, 0.0, 1.0], p=[0.3, 0.65, 0.05], size=500)
    assert gate(big_drop, margin=0.1).verdict.endswith("regression beyond the margin 0.1")


# --- the verb: files, models, benchmarks --------------------------------------------------


def test_one_file_and_two_files_give_the_same_gate(pilot):
    one = bn.check(pilot["both"], baseline="base", candidate="cand", progress=False)
    two = bn.check([pilot["base"], pilot["cand"]], progress=False)
    one, two = one.attrs, two.attrs
    assert np.isclose(one["p_value"], two["p_value"]) and one["regression"] and two["regression"]
    ref = stats.ttest_1samp(pilot["d"], 0.0, alternative="less")
    assert np.isclose(one["p_value"], ref.pvalue)
    assert two["baseline"].startswith("model-x (base.csv")  # same model name: files say which


def test_pairs_on_shared_questions_and_says_so(tmp_path):
    rng = np.random.default_rng(8)
    s = rng.integers(0, 2, size=(40, 1))
    b = _write_long(tmp_path / "b.csv", {"m": s})
    c = pd.read_csv(b)
    c = c[c["example_id"] != "q0"]  # the candidate skipped one question
    c.to_csv(tmp_path / "c.csv", index=False)
    with pytest.warns(UserWarning, match="pairing on the 39 questions both answered"):
        res = bn.check([b, tmp_path / "c.csv"], progress=False)
    assert int(res["questions"][0]) == 39


def test_several_benchmarks_in_a_benchmark_column(tmp_path):
    rng = np.random.default_rng(9)
    n = 300
    bench = np.repeat(["math", "code", "qa"], n // 3)
    u = population(rng, 2000)
    idx = rng.integers(0, u.shape[1], n)
    base = rng.binomial(1, u[0, idx])[:, None]
    cand = rng.binomial(1, u[1, idx])[:, None]
    cand[bench == "code"] = 0  # a regression on one benchmark only
    f = _write_long(tmp_path / "multi.csv", {"old": base, "new": cand}, benchmark=bench)
    res = bn.check(f, baseline="old", candidate="new", progress=False)
    rows = bn.tidy(res).set_index("benchmark")
    assert list(rows.index) == ["code", "math", "qa", "combined"]
    d = (cand - base)[:, 0]
    names = ["code", "math", "qa"]
    ref = gate([d[bench == b] for b in names], names=names)
    np.testing.assert_allclose(
        rows["p_value_regression_adjusted"], ref.rows["p_value_regression_adjusted"]
    )
    assert rows.loc["code", "regression"] and res.attrs["exit_status"] == 1


def test_bad_input_is_a_data_error(pilot, tmp_path):
    with pytest.raises(DataError, match=r"margin must be in \(-1, 1\)"):
        bn.check(pilot["both"], baseline="base", candidate="cand", margin=1.0)
    with pytest.raises(DataError, match="name both models"):
        bn.check(pilot["both"], baseline="base")
    other = pd.read_csv(pilot["cand"]).assign(example_id=lambda t: "new-" + t["example_id"])
    other.to_csv(tmp_path / "other.csv", index=False)
    with pytest.raises(DataError, match="share no question"):
        bn.check([pilot["base"], tmp_path / "other.csv"], progress=False)
    with pytest.raises(DataError, match="holds 2 models"):
        bn.check([pilot["both"], pilot["cand"]], progress=False)


def _run(*args):
    return subprocess.Popen(
        [sys.executable, "-m", "bayesnoise", "check", *map(str, args), "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow  # three interpreter start-ups (the package imports in ~4 s on a busy runner)
def test_exit_codes_as_a_subprocess(pilot):
    """0 = no regression shown, 1 = regression shown, 2 = bad input (documented), run as a
    user runs it; the three commands run side by side to keep the test short."""
    procs = {
        "regression": _run(pilot["base"], pilot["cand"]),
        "none": _run(pilot["cand"], pilot["base"]),
        "margin": _run(pilot["both"], "--baseline", "base", "--candidate", "cand", "--margin", 2),
    }
    out = {k: (p.wait(timeout=1800), *p.communicate()) for k, p in procs.items()}
    assert out["regression"][0] == 1 and out["regression"][1].rstrip().endswith(": regression")
    assert out["none"][0] == 0 and "no regression" in out["none"][1]
    code, stdout, stderr = out["margin"]
    assert code == 2 and stdout == ""
    assert stderr.startswith("error: margin must be in (-1, 1)") and len(stderr.splitlines()) == 1


def test_bad_input_exits_2_with_one_error_line(pilot, tmp_path, capsys):
    other = pd.read_csv(pilot["cand"]).assign(example_id=lambda t: "new-" + t["example_id"])
    other.to_csv(tmp_path / "other.csv", index=False)
    assert main(["check", str(pilot["base"]), str(tmp_path / "other.csv"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "share no question" in err and len(err.splitlines()) == 1
    assert main(["check", str(pilot["both"]), "--baseline", "base", "--no-progress"]) == 2
    assert "name both models" in capsys.readouterr().err


def test_json_format_is_machine_readable(pilot, capsys):
    argv = ["check", str(pilot["base"]), str(pilot["cand"]), "--format", "json", "--no-progress"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = main(argv)
    out = json.loads(capsys.readouterr().out)
    assert status == out["exit_status"] == 1 and out["regression"] is True
    assert out["alternative"] == "less" and out["confidence_level"] == pytest.approx(0.9)
    assert out["benchmarks"][0]["p_value_regression"] == pytest.approx(out["p_value"])


# --- acceptance: size and power over simulated correlated evals ---------------------------


@pytest.fixture(scope="module")
def questions():
    return population(np.random.default_rng(2024), 20_000)  # K = 1, correlation ~0.76


@pytest.mark.slow
def test_size_about_alpha_on_1000_null_evals(questions):
    """No true difference, K = 1, correlated questions: the one-sided gate flags a regression
    in alpha of the replicates, within 3 binomial Monte Carlo SEs (0.0069 at 1,000)."""
    reps, n = 1000, 500
    p = draw(np.random.default_rng(1), questions, reps, n, 1)
    d = p[1] - p[0]
    flagged = np.array([gate(x).regression for x in d])
    oracle = stats.ttest_1samp(d, 0.0, axis=1, alternative="less").pvalue < ALPHA
    assert (flagged == oracle).all()
    assert abs(flagged.mean() - ALPHA) <= 3 * _mc_se(ALPHA, reps), flagged.mean()


@pytest.mark.slow
def test_power_at_least_80_percent_where_the_t_test_has_90(questions):
    """A true drop of 3 points at the N where the one-sided paired t test has 90% power
    (statsmodels): the gate flags >= 80%, and within 3 MC SEs of 90%."""
    u = shifted(questions, -0.03)
    sd = np.sqrt(variance_of_difference(u, 1))
    n = int(
        np.ceil(TTestPower().solve_power(0.03 / sd, alpha=ALPHA, power=0.9, alternative="larger"))
    )
    reps = 1000
    p = draw(np.random.default_rng(2), u, reps, n, 1)
    flagged = np.array([gate(x).regression for x in p[1] - p[0]])
    assert flagged.mean() >= 0.80
    assert abs(flagged.mean() - 0.9) <= 3 * _mc_se(0.9, reps), (n, flagged.mean())


@pytest.mark.slow
def test_holm_keeps_the_family_wise_error_over_three_benchmarks(questions):
    """Three null benchmarks (and the combined test): any false regression in at most alpha
    of 1,000 replicates (+ 3 MC SEs)."""
    reps = 1000
    rng = np.random.default_rng(3)
    ds = [(lambda p: p[1] - p[0])(draw(rng, questions, reps, n, 1)) for n in (150, 400, 800)]
    any_flag = np.array([gate([d[r] for d in ds]).regression for r in range(reps)])
    assert any_flag.mean() <= ALPHA + 3 * _mc_se(ALPHA, reps), any_flag.mean()


@pytest.mark.slow
def test_bayes_gate_size(questions):
    """method='bayes' on null evals: flags at most alpha + 3 MC SEs (300 replicates)."""
    reps = 300
    p = draw(np.random.default_rng(4), questions, reps, 300, 1)
    flagged = np.array([gate(x, method="bayes", n_resamples=1000).regression for x in p[1] - p[0]])
    assert flagged.mean() <= ALPHA + 3 * _mc_se(ALPHA, reps), flagged.mean()


def test_every_column_the_three_commands_print_is_registered(pilot):
    from bayesnoise.vocabulary import is_registered

    f = pilot["both"]
    tables = {
        "check": gate(pilot["d"], names=["x"]).rows,
        "check bayes": gate([pilot["d"], pilot["d"]], method="bayes", n_resamples=200).rows,
        "monitor": bn.tidy(bn.monitor(f, progress=False)),
        "plan": bn.tidy(bn.plan(f, target_se=0.02, progress=False)),
        "plan resample": bn.tidy(bn.plan(f, resample=10, progress=False)),
    }
    for command, table in tables.items():
        missing = [c for c in table.columns if not is_registered(c)]
        assert not missing, (command, missing)
