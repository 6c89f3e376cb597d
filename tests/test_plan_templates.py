"""plan on a crossed factor (issue 31 item 5): templates T, questions N and runs K to buy.

Oracles: bn.noises' own SE at the pilot's design (the planning formula must give it), a
brute-force minimum over every (N, T, K) of a grid with the SE, df and cost written out here,
and a seeded simulation of a Gaussian crossed design at the planned (N, T, K)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayesnoise as bn
from bayesnoise.data import DataError
from bayesnoise.decide.plan_templates import optimal_template_design

TRUE = (0.04, 0.004, 0.03, 0.2)  # s2_q, s2_t, s2_qt, s2_e
COSTS = {"cost_question": 4.0, "cost_sample": 0.02, "cost_template": 30.0}


def _pilot(rng, n=40, t=4, k=3, models=(("A", 0.05), ("B", 0.0))):
    """0/1 scores of two models, question x template cells with k runs, in long format."""
    u = rng.normal(0, 1.0, n)
    v = rng.normal(0, 0.4, t)
    w = rng.normal(0, 0.6, (n, t))
    rows = []
    for name, offset in models:
        vm = v + rng.normal(0, 0.2, t)
        p = 1 / (1 + np.exp(-(offset + u[:, None] + vm[None, :] + w)))
        hits = rng.random((n, t, k)) < p[..., None]
        q, tt, r = np.meshgrid(np.arange(n), np.arange(t), np.arange(k), indexing="ij")
        rows.append(
            pd.DataFrame(
                {
                    "model": name,
                    "question": q.ravel(),
                    "template": [f"t{i}" for i in tt.ravel()],
                    "run": r.ravel(),
                    "score": hits.ravel().astype(int),
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def test_planned_se_at_the_pilots_design_equals_noises_se():
    df = _pilot(np.random.default_rng(3))
    plan = bn.plan(df, factors=["template"], target_se=0.02, **COSTS)
    noises = bn.noises(df, factors=["template"])
    np.testing.assert_allclose(
        plan["se_current_design"].values, noises["se_templates"].values, rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(
        plan["variance_component"].values, noises["variance_component"].values, atol=1e-15
    )
    pair = bn.plan(df, factors=["template"], pair=("A", "B"), target_se=0.02, **COSTS)
    noises_pair = bn.noises(df, factors=["template"], by="pair")
    assert abs(float(pair["se_current_design"][0]) - float(noises_pair["se_templates"][0])) < 1e-12
    assert (plan["se_planned"] <= 0.02).all()


def _se2(c, n, t, k):
    s2q, s2t, s2qt, s2e = c
    return np.maximum(s2q / n + s2qt / (n * t) + s2e / (n * t * k), 0) + max(s2t, 0) / t


def _df(c, n, t, k):
    # Satterthwaite on the expected mean squares of a balanced crossed design:
    # N T SE^2 = MS_Q + MS_T - MS_QT, E MS_Q = T s2q + r, E MS_T = N s2t + r, E MS_QT = r
    s2q, s2t, s2qt, s2e = c
    r = s2qt + s2e / k
    ms = [t * s2q + r, n * s2t + r, -r]
    d = [n - 1, t - 1, (n - 1) * (t - 1)]
    return sum(ms) ** 2 / sum(m * m / f for m, f in zip(ms, d, strict=True))


@pytest.mark.parametrize("target", [{"target_se": 0.025}, {"difference": 0.08}])
def test_optimum_equals_a_brute_force_grid_minimum(target):
    grid = {"max_questions": 400, "max_templates": 25, "max_samples": 8}
    # every (N, T, K) of the grid, in the order T, K, N (the plan's tie order)
    t, k, n = (
        a.ravel().astype(float)
        for a in np.meshgrid(np.arange(2, 26), np.arange(1, 9), np.arange(2, 401), indexing="ij")
    )
    se = np.sqrt(_se2(TRUE, n, t, k))
    if "target_se" in target:
        ok = se <= target["target_se"]
    else:
        df = _df(TRUE, n, t, k)
        ok = stats.nct.sf(stats.t.ppf(0.975, df), df, target["difference"] / se) >= 0.8
    cost = np.where(ok, 4.0 * n + 30.0 * t + 0.02 * n * t * k, np.inf)
    i = int(np.argmin(cost))
    best = (int(n[i]), int(t[i]), int(k[i]))
    d = optimal_template_design(TRUE, **COSTS, **grid, **target)
    got = (d["optimal_questions"], d["optimal_templates"], d["optimal_samples_per_question"])
    assert got == best
    assert d["cost_planned"] == pytest.approx(cost[i], rel=1e-12)
    assert d["se_planned"] == pytest.approx(se[i], rel=1e-12)
    assert d["df_planned"] == pytest.approx(_df(TRUE, *best), rel=1e-10)


def test_a_simulation_at_the_planned_design_reaches_the_promised_se():
    # Gaussian crossed design with the true components at the planned (N, T, K); the SD of
    # the estimate over R = 800 replicates has relative MCSE 1 / sqrt(2 (R - 1)) = 2.5%, so
    # the 10% band is 4 MCSE.
    d = optimal_template_design(TRUE, **COSTS, target_se=0.03)
    n, t, k = d["optimal_questions"], d["optimal_templates"], d["optimal_samples_per_question"]
    assert n * t * k < 5000  # small enough for the test
    rng = np.random.default_rng(7)
    sd = np.sqrt(TRUE)
    reps = 800
    est = (
        rng.normal(0, sd[0], (reps, n)).mean(1)
        + rng.normal(0, sd[1], (reps, t)).mean(1)
        + rng.normal(0, sd[2], (reps, n * t)).mean(1)
        + rng.normal(0, sd[3], (reps, n * t * k)).mean(1)
    )
    assert abs(est.std(ddof=1) / d["se_planned"] - 1) < 0.10
    assert d["se_planned"] <= 0.03


def test_unreachable_target_and_bad_options():
    # the template part alone is s2_t / T >= 0.004 / 12: an SE of 0.015 needs T >= 18
    d = optimal_template_design(TRUE, **COSTS, target_se=0.015, max_templates=12)
    assert np.isnan(d["optimal_questions"])
    # a negative estimate counts as 0: it would otherwise promise a smaller SE at small N
    neg = optimal_template_design((-0.01, *TRUE[1:]), **COSTS, target_se=0.03)
    zero = optimal_template_design((0.0, *TRUE[1:]), **COSTS, target_se=0.03)
    assert pd.Series(neg).equals(pd.Series(zero))  # NaN power equal to NaN
    df = _pilot(np.random.default_rng(3), n=10, t=3, k=2)
    with pytest.raises(DataError, match="pair"):
        bn.plan(df, factors=["template"], difference=0.05)
    with pytest.raises(DataError, match="cost_template="):
        bn.plan(df, factors=["template"], target_se=0.05, cost_template=0)


def test_cli(tmp_path, capsys):
    from bayesnoise.cli import main

    path = tmp_path / "pilot.csv"
    _pilot(np.random.default_rng(3), n=20, t=3, k=2).to_csv(path, index=False)
    args = ["plan", str(path), "--factor", "template", "--target-se", "0.05"]
    args += ["--cost-template", "30", "--max-templates", "20", "--format", "csv"]
    assert main(args) in (0, None)
    out = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert {"optimal_templates", "se_planned", "cost_planned"} <= set(out.columns)
    assert (out["optimal_templates"] <= 20).all()
