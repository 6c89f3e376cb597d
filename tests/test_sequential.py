"""The anytime-valid sequential test (``bn.monitor``, ``bayesnoise monitor``): the capital
against a line-by-line transcription of the documented betting process, the sequence's ends
against the capital at those ends, the order column, bad input, and (slow) the error rate
when checking after every question up to 2,000 and the stopping N under a 5-point
difference against the fixed-N paired t test (statsmodels)."""

import io
import warnings

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.power import TTestPower

import bayesnoise as bn
from bayesnoise.cli import main
from bayesnoise.data import DataError
from bayesnoise.decide.sequential import (
    TRUNCATION,
    always_valid_pvalues,
    confidence_sequence,
    stopping_times,
)
from studies.ci_decisions import draw, population, shifted, variance_of_difference

ALPHA = 0.05


def _mc_se(p, n):
    return np.sqrt(p * (1 - p) / n)


def _transcribed(d, m, difference=None, alternative="two-sided", c=TRUNCATION):
    """(max capital so far, leading side) after each question at the candidate mean m, one
    scalar step at a time, exactly as the module docstring defines it."""
    kp = km = 1.0
    total, squares, mean, var, best = 0.0, 1.0, 0.0, 1.0, 0.0
    out, side = [], []
    for i, x in enumerate(d):
        if difference is None:
            gap = mean - m
            lam = gap / (var + gap * gap)
            lp, lm = max(lam, 0.0), max(-lam, 0.0)
        else:
            lp = lm = difference / (var + difference**2)
        lp, lm = min(lp, c / (1 + m)), min(lm, c / (1 - m))
        kp *= 1 + lp * (x - m)
        km *= 1 - lm * (x - m)
        k = {"two-sided": (kp + km) / 2, "greater": kp, "less": km}[alternative]
        best = max(best, k)
        out.append(best)
        side.append({"two-sided": 1 if kp >= km else -1, "greater": 1, "less": -1}[alternative])
        squares += (x - mean) ** 2
        total += x
        mean, var = total / (i + 2), squares / (i + 2)
    return np.array(out), np.array(side)


@pytest.mark.parametrize("difference", [None, 0.05])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("null", [0.0, -0.02])
def test_p_values_are_the_documented_betting_process(difference, alternative, null):
    rng = np.random.default_rng(1)
    d = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], p=[0.1, 0.1, 0.5, 0.15, 0.15], size=400)
    best, side = _transcribed(d, null, difference, alternative)
    p, direction = always_valid_pvalues(
        d, null=null, difference=difference, alternative=alternative
    )
    np.testing.assert_allclose(p, np.minimum(1.0, 1.0 / best), rtol=1e-9)
    assert (direction == side).all()
    cs = confidence_sequence(d, null=null, difference=difference, alternative=alternative)
    np.testing.assert_allclose(cs["p_value"], p, rtol=1e-12)


@pytest.mark.parametrize("difference", [None, 0.1])
def test_sequence_ends_are_where_the_capital_crosses(difference):
    """Every reported end is a grid value never rejected up to that question; the next grid
    value outwards was rejected (checked on the transcribed capital)."""
    d = np.random.default_rng(2).choice([-1.0, 0.0, 1.0], p=[0.1, 0.7, 0.2], size=300)
    h = 0.001
    cs = confidence_sequence(d, difference=difference, resolution=h)
    for t in (49, 149, 299):
        low, high = cs["low"][t], cs["high"][t]
        for m, inside in ((low, True), (high, True), (low - h, False), (high + h, False)):
            best, _ = _transcribed(d[: t + 1], m, difference)
            assert (best[-1] < 1 / ALPHA) == inside, (t, m)
    assert (np.diff(cs["low"]) >= 0).all() and (np.diff(cs["high"]) <= 0).all()


def test_stopping_is_exactly_the_sequence_leaving_the_null():
    rng = np.random.default_rng(3)
    for _ in range(20):
        d = rng.choice([-1.0, 0.0, 1.0], p=[0.12, 0.7, 0.18], size=600)
        cs = confidence_sequence(d, null=-0.01, resolution=0.002)
        outside = (cs["low"] > -0.01) | (cs["high"] < -0.01)
        assert ((cs["p_value"] <= ALPHA) == outside).all()


def test_the_sequence_covers_at_every_question():
    """2,000 logs of 400 questions with a true difference 0.1 (d in {-1, 0, 1}): the share
    whose sequence ever leaves 0.1 (the capital at 0.1 ever reaches 1 / alpha) is at most
    alpha + 3 MC SEs; on 30 of them the reported ends hold 0.1 exactly while it is not
    rejected."""
    rng = np.random.default_rng(4)
    d = rng.choice([-1.0, 0.0, 1.0], p=[0.1, 0.7, 0.2], size=(2000, 400))
    p, _ = always_valid_pvalues(d, null=0.1)
    assert (p[:, -1] <= ALPHA).mean() <= ALPHA + 3 * _mc_se(ALPHA, 2000)
    for row, pv in zip(d[:30], p[:30], strict=True):
        cs = confidence_sequence(row, resolution=0.01)
        inside = (cs["low"] <= 0.1 + 1e-9) & (cs["high"] >= 0.1 - 1e-9)
        assert (inside == (pv > ALPHA)).all()


def test_stopping_times():
    assert stopping_times([[0.5, 0.05, 0.01], [1, 1, 0.2]], 0.05).tolist() == [2, 4]


# --- the verb: order column, K > 1, bad input ---------------------------------------------


def _log(tmp_path, d_a, d_b, order, k=1, name="log.csv"):
    """Per-sample rows of models a and b, shuffled, with an order column both share."""
    rows = []
    for i, (sa, sb) in enumerate(zip(d_a, d_b, strict=True)):
        for model, s in (("a", sa), ("b", sb)):
            for j in range(k):
                rows.append(
                    {
                        "model": model,
                        "example_id": f"q{i}",
                        "sample": j,
                        "correct": int(s[j]),
                        "position": order[i],
                    }
                )
    df = pd.DataFrame(rows).sample(frac=1.0, random_state=0)  # rows in no particular order
    df.to_csv(tmp_path / name, index=False)
    return tmp_path / name


def test_the_log_is_replayed_in_the_order_column(tmp_path):
    rng = np.random.default_rng(5)
    n, k = 500, 3
    sa = rng.binomial(1, 0.65, size=(n, k))
    sb = rng.binomial(1, 0.5, size=(n, k))
    order = rng.permutation(n) * 10.0  # numbers, not the row order
    f = _log(tmp_path, sa, sb, order, k)
    r = bn.monitor(f, candidate="a", baseline="b", order_column="position", progress=False)
    d = (sa.mean(1) - sb.mean(1))[np.argsort(order)]
    p, _ = always_valid_pvalues(d)
    stop = int(stopping_times(p)[()])
    assert r.attrs["stopped_at"] == stop and r.sizes["step"] == stop
    np.testing.assert_allclose(r["p_value_always_valid"], p[:stop])
    np.testing.assert_allclose(r["difference"], (np.cumsum(d) / np.arange(1, n + 1))[:stop])
    assert r.attrs["decision"] == "a better than b" and bool(r["stopped"][-1])
    full = bn.monitor(f, order_column="position", stop=False, every=100, progress=False)
    assert full["step"].values.tolist() == [100, 200, 300, 400, 500]


def test_order_column_errors(tmp_path, capsys):
    rng = np.random.default_rng(6)
    s = rng.binomial(1, 0.5, size=(20, 1))
    order = np.arange(20)
    order[5] = 3  # two questions at one position
    f = _log(tmp_path, s, s, order)
    with pytest.raises(DataError, match="position 3 to 2 questions"):
        bn.monitor(f, candidate="a", baseline="b", order_column="position", progress=False)
    assert main(["monitor", str(f), "--order-column", "position", "--no-progress"]) == 2
    assert "each question needs its own position" in capsys.readouterr().err
    table = pd.read_csv(_log(tmp_path, s, s, np.arange(20), name="split.csv"))
    table.loc[(table["model"] == "b") & (table["example_id"] == "q4"), "position"] = 99
    table.to_csv(tmp_path / "split.csv", index=False)  # the two models disagree on q4
    with pytest.raises(DataError, match="share one position"):
        bn.monitor(tmp_path / "split.csv", order_column="position", progress=False)
    with pytest.raises(DataError, match=r"margin must be in \(-1, 1\)"):
        bn.monitor(f, order_column="position", margin=-1.0)


def test_monitor_command_prints_the_steps(tmp_path, capsys):
    rng = np.random.default_rng(7)
    f = _log(
        tmp_path, rng.binomial(1, 0.8, (300, 1)), rng.binomial(1, 0.4, (300, 1)), np.arange(300)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        argv = ["monitor", str(f), "--order-column", "position", "--format", "csv"]
        status = main([*argv, "--no-progress"])
    out = capsys.readouterr()
    table = pd.read_csv(io.StringIO(out.out))
    assert status == 0 and table["stopped"].iloc[-1]
    assert out.err.startswith(f"stopped after {len(table)} of 300 questions: a better than b")


# --- acceptance: error rate under continuous monitoring, stopping N under a difference ----


@pytest.fixture(scope="module")
def questions():
    return population(np.random.default_rng(2024), 20_000)  # correlated, as real evals


@pytest.mark.slow
@pytest.mark.parametrize("k", [1, 5])
@pytest.mark.parametrize("difference", [None, 0.05])
def test_checking_after_every_question_keeps_the_error_rate(questions, k, difference):
    """No true difference; p checked after every question up to 2,000: the share of 2,000
    logs that ever reject is <= alpha + 3 binomial MC SEs (0.0049)."""
    reps = 2000
    p = draw(np.random.default_rng(10 + k), questions, reps, 2000, k)
    pv, _ = always_valid_pvalues(p[0] - p[1], difference=difference)
    ever = (pv[:, -1] <= ALPHA).mean()
    assert ever <= ALPHA + 3 * _mc_se(ALPHA, reps), ever


@pytest.mark.slow
def test_one_sided_regression_monitor_keeps_the_error_rate(questions):
    reps = 2000
    p = draw(np.random.default_rng(20), questions, reps, 2000, 1)
    pv, _ = always_valid_pvalues(p[1] - p[0], null=-0.01, alternative="less")
    assert (pv[:, -1] <= ALPHA).mean() <= ALPHA + 3 * _mc_se(ALPHA, reps)


@pytest.mark.slow
@pytest.mark.parametrize("difference", [None, 0.05])
def test_a_5_point_difference_stops_early(questions, difference):
    """True difference 0.05 (K = 1, correlated): >= 80% of 1,000 logs stop within 3,250
    questions, and the mean questions used is below the N the two-sided fixed-N paired t
    test needs for the same power (statsmodels). With the difference planned, also below
    the fixed-N test's N at 80% power for a sequential design cut at its 80% quantile."""
    u = shifted(questions, 0.05)
    effect = 0.05 / np.sqrt(variance_of_difference(u, 1))
    reps, cap = 1000, 3250
    p = draw(np.random.default_rng(30), u, reps, cap, 1)
    pv, direction = always_valid_pvalues(p[1] - p[0], difference=difference)
    t = stopping_times(pv)
    stopped = t <= cap
    assert stopped.mean() >= 0.80
    assert (direction[stopped, t[stopped] - 1] == 1).all()  # no stop says "worse"
    power = min(stopped.mean(), 1 - 0.5 / reps)
    fixed = TTestPower().solve_power(effect, alpha=ALPHA, power=power, alternative="two-sided")
    assert np.minimum(t, cap).mean() < fixed
    if difference is not None:
        n80 = TTestPower().solve_power(effect, alpha=ALPHA, power=0.8, alternative="two-sided")
        cut = np.quantile(t, 0.8)
        assert np.minimum(t, cut).mean() < n80
