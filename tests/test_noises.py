"""Crossed question x template designs (issue 31): variance components against independent
oracles (statsmodels MixedLM REML, the ANOVA expected mean squares written out here,
simulation with a Monte Carlo band), and the noises verb against brute-force cell means."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayesnoise as bn
from bayesnoise.data import DataError
from bayesnoise.frequentist.crossed import cell_means, crossed_fit, moment_components

TRUE = np.array([0.04, 0.01, 0.02, 0.2])  # s2_q, s2_t, s2_qt, s2_e


def _gaussian(rng, n, t, k, missing=0.0, truth=TRUE):
    """Sums per cell of a Gaussian crossed design with k runs per cell."""
    sd = np.sqrt(truth)
    mean = 0.6 + rng.normal(0, sd[0], (n, 1)) + rng.normal(0, sd[1], (1, t))
    mean = mean + rng.normal(0, sd[2], (n, t))
    runs = mean[..., None] + rng.normal(0, sd[3], (n, t, k))
    count = np.full((n, t), k)
    if missing:
        count = np.where(rng.random((n, t)) < missing, 0, count)
    keep = count > 0
    return runs.sum(-1) * keep, count, (runs**2).sum(-1) * keep, runs


def _mixedlm(frame: pd.DataFrame, vc: dict) -> np.ndarray:
    import statsmodels.api as sm

    model = sm.MixedLM.from_formula(
        "y ~ 1", groups="g", vc_formula=vc, re_formula="0", data=frame.assign(g=1)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # BFGS at gtol 1e-14 reaches the REML optimum to ~1e-8 relative (lbfgs: ~1e-4)
        fit = model.fit(reml=True, method=["bfgs"], gtol=1e-14, maxiter=2000)
    return np.array([*fit.vcomp, fit.scale])


def test_components_equal_mixedlm_reml_on_a_balanced_gaussian_design():
    # Balanced, every estimate inside the parameter space: REML = ANOVA (Searle, Casella and
    # McCulloch 1992, section 6.7), so they must agree to the optimiser's precision. MixedLM
    # is fitted to the cell means (question and template effects, residual s2_qt + s2_e/K; a
    # random effect per cell on the runs takes ~20 s) and s2_e is the one-way within-cell
    # mean square of the runs (REML of the cell effect's residual when balanced).
    rng = np.random.default_rng(11)
    n, t, k = 30, 5, 3
    c, count, sq, runs = _gaussian(rng, n, t, k)
    fit = crossed_fit(*cell_means(c, count, sq), count)
    assert np.all(fit.components > 0)
    q, tt = np.meshgrid(np.arange(n), np.arange(t), indexing="ij")
    frame = pd.DataFrame({"y": runs.mean(-1).ravel(), "q": q.ravel(), "t": tt.ravel()})
    reml = _mixedlm(frame, {"q": "0 + C(q)", "t": "0 + C(t)"})
    s2_e = np.mean(np.var(runs, axis=-1, ddof=1))
    got = [fit.components[0], fit.components[1], fit.components[2] + fit.components[3] / k]
    np.testing.assert_allclose(got, reml, rtol=1e-6)
    assert fit.components[3] == pytest.approx(s2_e, rel=1e-12)


def test_balanced_components_follow_the_expected_mean_squares():
    # The ANOVA table written out with explicit sums (no package code), then solved from
    # E[MS_Q] = T s2_q + s2_qt + s2_e/K, E[MS_T] = N s2_t + ..., E[MS_QT] = s2_qt + s2_e/K,
    # E[MS_E] = s2_e; the package's unbalanced (U-statistic) path must give the same numbers.
    rng = np.random.default_rng(12)
    n, t, k = 25, 6, 4
    c, count, sq, runs = _gaussian(rng, n, t, k)
    cell = runs.mean(-1)
    grand = cell.mean()
    ss_q = t * sum((cell[i].mean() - grand) ** 2 for i in range(n))
    ss_t = n * sum((cell[:, j].mean() - grand) ** 2 for j in range(t))
    ss_qt = sum(
        (cell[i, j] - cell[i].mean() - cell[:, j].mean() + grand) ** 2
        for i in range(n)
        for j in range(t)
    )
    ms_e = sum(np.var(runs[i, j], ddof=1) for i in range(n) for j in range(t)) / (n * t)
    ms_q, ms_t, ms_qt = ss_q / (n - 1), ss_t / (t - 1), ss_qt / ((n - 1) * (t - 1))
    want = [(ms_q - ms_qt) / t, (ms_t - ms_qt) / n, ms_qt - ms_e / k, ms_e]
    y, eta, obs = cell_means(c, count, sq)
    fit = crossed_fit(y, eta, obs, count)
    np.testing.assert_allclose(fit.components, want, rtol=1e-10)
    np.testing.assert_allclose(moment_components(y, eta, obs), want[:3], rtol=1e-9)
    # Satterthwaite: (MS_Q + MS_T - MS_QT)^2 / sum(MS_i^2 / df_i), and the variance of the mean
    var = (ms_q + ms_t - ms_qt) / (n * t)
    df = (ms_q + ms_t - ms_qt) ** 2 / (
        ms_q**2 / (n - 1) + ms_t**2 / (t - 1) + ms_qt**2 / ((n - 1) * (t - 1))
    )
    assert fit.se_random == pytest.approx(np.sqrt(var), rel=1e-10)
    assert fit.df_random == pytest.approx(df, rel=1e-10)
    assert fit.se_fixed == pytest.approx(np.sqrt(ms_q / (n * t)), rel=1e-10)
    assert fit.df_fixed == pytest.approx(n - 1, rel=1e-10)


def test_components_unbiased_with_missing_cells():
    # 20% of the cells missing at random: the mean of R estimates must lie within 3.5 Monte
    # Carlo SEs (sd / sqrt(R)) of the truth for each of the 4 components (two-sided; 4 tests
    # at 3.5 SE fail by chance with probability < 0.002).
    rng = np.random.default_rng(13)
    reps = 300
    est = np.array(
        [
            crossed_fit(
                *cell_means(*(out := _gaussian(rng, 40, 5, 3, missing=0.2))[:3]), out[1]
            ).components
            for _ in range(reps)
        ]
    )
    mcse = est.std(axis=0, ddof=1) / np.sqrt(reps)
    assert np.all(np.abs(est.mean(axis=0) - TRUE) < 3.5 * mcse), (est.mean(axis=0), mcse)


def test_three_templates_give_few_degrees_of_freedom_and_a_wide_interval():
    # Template variance dominating: df near T - 1 = 2, so the interval uses t(2), not z.
    rng = np.random.default_rng(14)
    c, count, sq, _ = _gaussian(rng, 500, 3, 2, truth=np.array([0.01, 0.05, 0.01, 0.1]))
    fit = crossed_fit(*cell_means(c, count, sq), count)
    assert 1.5 < fit.df_random < 3.5
    low, high = fit.interval(0.95)
    assert (high - low) / 2 == pytest.approx(stats.t.ppf(0.975, fit.df_random) * fit.se_random)
    assert fit.se_random > 3 * fit.se_fixed


def _frame(seed=0, n=30, missing=False):
    rng = np.random.default_rng(seed)
    template_effect = {"t1": 0.0, "t2": 0.15, "t3": -0.1}
    rows = []
    for m, base in (("A", 0.6), ("B", 0.5)):
        for q in range(n):
            for t, eff in template_effect.items():
                for r in range(3):
                    rows.append((m, f"q{q}", t, r, int(rng.random() < base + eff)))
    df = pd.DataFrame(rows, columns=["model", "question", "template", "run", "score"])
    if missing:  # drop two whole cells of model A
        df = df[~((df.model == "A") & (df.question.isin(["q0", "q1"])) & (df.template == "t2"))]
    return df


def _additive_oracle(cells: pd.Series) -> float:
    """Mean over the full question x template grid of the fitted values of the ordinary
    least-squares fit y ~ question + template (statsmodels) to the observed cell means; with
    every cell present, the grand mean."""
    import statsmodels.formula.api as smf

    frame = cells.rename("y").reset_index()
    fit = smf.ols("y ~ C(question) + C(template)", frame).fit()
    grid = pd.MultiIndex.from_product(
        [frame["question"].unique(), frame["template"].unique()], names=["question", "template"]
    ).to_frame(index=False)
    return float(fit.predict(grid).mean())


@pytest.mark.parametrize("missing", [False, True])
def test_verb_equals_brute_force_cell_means(missing):
    df = _frame(missing=missing)
    out = bn.noises(df, factors=["template"])
    cells = df.groupby(["model", "template", "question"])["score"].mean()
    for model in ("A", "B"):
        want = _additive_oracle(cells[model])
        got = float(out["accuracy_templates"].sel(model=model))
        assert got == pytest.approx(want, rel=1e-12)
        parts = out["variance_part"].sel(model=model).values
        assert parts.sum() == pytest.approx(float(out["se_templates"].sel(model=model)) ** 2)
    pair = bn.noises(df, factors=["template"], by="pair")
    both = cells["A"].index.intersection(cells["B"].index)
    diff = _additive_oracle(cells["A"][both] - cells["B"][both])
    assert float(pair["difference_templates"][0]) == pytest.approx(diff, rel=1e-12)
    assert list(pair["component"].values) == [
        "question",
        "model x template",
        "question x template",
        "sampling",
    ]


def test_noises_runs_as_a_factor_are_replicates():
    df = _frame()
    a = bn.noises(df, factors=["template"])
    b = bn.noises(df, factors=["template", "run"])
    np.testing.assert_allclose(a["variance_component"].values, b["variance_component"].values)


def test_noises_refuses_runs_alone_and_two_crossed_factors():
    df = _frame()
    with pytest.raises(DataError, match=r"crossed factor"):
        bn.noises(df[df.template == "t1"].drop(columns="template"), factors=["run"])
    df["judge"] = np.where(np.arange(len(df)) % 2 == 0, "j1", "j2")
    with pytest.raises(DataError, match=r"one crossed factor"):
        bn.noises(df, factors=["template", "judge"])


def test_cli_prints_the_verbs_table(tmp_path, capsys):
    from bayesnoise.cli import main

    path = tmp_path / "t.csv"
    _frame(n=12).to_csv(path, index=False)
    assert main(["noises", str(path), "--factor", "template", "--format", "csv"]) in (0, None)
    printed = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    want = bn.tidy(bn.noises(path, factors=["template"]))
    np.testing.assert_allclose(printed["se_templates"], want["se_templates"], rtol=1e-9)
    assert list(printed.columns) == list(want.columns)


def test_figures_draw_the_parts_and_the_template_means():
    df = _frame(n=12)
    fig = bn.plot.noises(df, factors=["template"])
    result = bn.noises(df, factors=["template"])
    bars = [p.get_width() for p in fig.axes[0].patches]
    parts = np.clip(result["variance_part"].transpose("component", "model").values, 0, None)
    np.testing.assert_allclose(bars, parts.ravel())
    heat = bn.plot.templates(df, factors=["template"])
    image = heat.axes[0].images[0].get_array()
    cells = df.groupby(["model", "template", "question"])["score"].mean()
    want = cells.groupby(level=["model", "template"]).mean().unstack()
    order = [str(m) for m in result["model"].values]  # models best first
    np.testing.assert_allclose(image, want.loc[order].values)


def _three_models(n=12):
    df = _frame(n=n)
    c = _frame(seed=1, n=n).query("model == 'B'").assign(model="C")
    return pd.concat([df, c], ignore_index=True)


def test_figure_by_pair_draws_the_parts_of_each_difference(tmp_path):
    df = _three_models()
    fig = bn.plot.noises(df, factors=["template"], by="pair")
    result = bn.noises(df, factors=["template"], by="pair")
    ax = fig.axes[0]
    pairs = [str(p) for p in result["pair"].values]
    assert len(pairs) == 3
    assert [t.get_text() for t in ax.get_yticklabels()] == pairs  # one bar per pair
    components = [str(c) for c in result["component"].values]
    assert components[1] == "model x template"
    assert len(ax.patches) == len(pairs) * len(components)
    # barh draws one component at a time over every pair: patches are component-major
    parts = result["variance_part"].transpose("component", "pair").values
    bars = np.array([p.get_width() for p in ax.patches]).reshape(parts.shape)
    np.testing.assert_allclose(bars, np.clip(parts, 0, None), rtol=1e-12)
    shown = parts >= 0
    np.testing.assert_allclose(bars[shown], parts[shown], rtol=1e-12)
    starts = np.array([p.get_x() for p in ax.patches]).reshape(parts.shape)
    np.testing.assert_allclose(starts[1:], np.cumsum(bars, axis=0)[:-1], rtol=1e-12)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    negative = np.any(parts < 0, axis=1)
    want = [
        n + (" (< 0 drawn as 0)" if neg else "")
        for n, neg in zip(components, negative, strict=True)
    ]
    assert legend == want
    # the command line draws the same figure; --by is for plot noises only
    from bayesnoise.cli import main

    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    out = tmp_path / "pairs.png"
    args = ["plot", "noises", str(path), "--factor", "template", "--by", "pair", "-o", str(out)]
    assert main(args) in (0, None)
    assert out.stat().st_size > 0
    args = ["plot", "heatmap", str(path), "--by", "pair", "-o", str(tmp_path / "h.png")]
    assert main(args) == 2


def test_coverage_over_templates_and_the_naive_pooled_interval_fails():
    # 0/1 scores from the logit model of studies/noises.py (truth by quadrature), T = 5.
    # Two-sided band for a 0.95 interval over R replicates: 0.95 +- 3.5 sqrt(0.95 0.05 / R).
    # The naive interval (templates pooled as samples of a question, the old --sample-col
    # advice) must fall below that band (it covers ~0.7 here in the R = 2000 study).
    from studies.noises import run_cell

    reps = 300
    row = run_cell(100, 5, 2, 0.0, reps, seed=21)
    band = 3.5 * np.sqrt(0.95 * 0.05 / reps)
    for key in ("acc_templates", "acc_these", "diff_templates", "diff_these"):
        assert abs(row[f"cover_{key}"] - 0.95) < band, (key, row[f"cover_{key}"])
    assert row["cover_acc_naive"] < 0.95 - band
    assert row["cover_diff_naive"] < 0.95 - band


def test_mcmc_derived_accuracies_equal_monte_carlo_over_the_effects():
    # Oracle: 400,000 draws of the five normal effects per posterior draw; Monte Carlo SE of a
    # mean of expit values <= 0.5 / sqrt(4e5) = 8e-4, so 5 SE = 4e-3.
    from bayesnoise.mcmc.crossed import EFFECTS, derived_accuracies

    rng = np.random.default_rng(31)
    sig = dict(zip(EFFECTS, ([0.9], [0.5], [0.4], [0.3], [0.2]), strict=True))
    sig = {k: np.array(v) for k, v in sig.items()}
    alpha = np.array([[0.4, -0.3]])
    v = np.array([[0.2, -0.5, 0.1]])
    x = np.array([[[0.1, 0.0, -0.2], [0.3, -0.1, 0.0]]])
    pop, these = derived_accuracies(alpha, sig, v, x)
    n = 400_000
    draw = {k: rng.normal(0, s[0], n) for k, s in sig.items()}
    for m in range(2):
        total = sum(draw.values())
        want_pop = special_expit(alpha[0, m] + total).mean()
        within = draw["question"] + draw["question_template"] + draw["model_question"]
        want_these = np.mean(
            [special_expit(alpha[0, m] + v[0, t] + x[0, m, t] + within).mean() for t in range(3)]
        )
        assert abs(pop[0, m] - want_pop) < 4e-3
        assert abs(these[0, m] - want_these) < 4e-3


def special_expit(z):
    return 1 / (1 + np.exp(-z))


def test_one_template_leaves_the_template_population_columns_empty_with_the_reason():
    # was refused; now the over-this-template interval, NaN over the template population
    # and one warning line (tests/test_factors_edges.py checks the numbers)
    df = _frame()
    with pytest.warns(UserWarning, match=r"1 template level .*#one-level"):
        out = bn.noises(df[df.template == "t1"], factors=["template"])
    assert out["se_templates"].isnull().all() and (out["se_these_templates"] > 0).all()


def test_printed_columns_are_the_ones_listed_for_noises():
    from bayesnoise.vocabulary import _COMMAND_COLUMNS, _base

    df = _frame(n=12)
    for by in ("model", "pair"):
        printed = {_base(c)[0].name for c in bn.tidy(bn.noises(df, factors="template", by=by))}
        assert printed <= set(_COMMAND_COLUMNS["noises"]), printed


# --- issue 37: two templates, a template component <= 0, cells missing by difficulty ------


def test_additive_weights_equal_the_least_squares_fit_of_statsmodels():
    # Oracle: statsmodels OLS y ~ C(q) + C(t) on the observed cells, its fitted values
    # averaged over the full N x T grid; the weights sum to 1 and give each question 1 / N.
    import statsmodels.formula.api as smf

    from bayesnoise.frequentist.crossed import additive_weights

    rng = np.random.default_rng(37)
    n, t = 40, 5
    obs = rng.random((n, t)) < 0.6
    obs[np.arange(n), rng.integers(0, t, n)] = True
    y = rng.normal(size=(n, t))
    q, tt = np.nonzero(obs)
    fit = smf.ols("y ~ C(q) + C(t)", pd.DataFrame({"y": y[obs], "q": q, "t": tt})).fit()
    grid = pd.DataFrame({"q": np.repeat(np.arange(n), t), "t": np.tile(np.arange(t), n)})
    a = additive_weights(obs)
    assert float((a * y).sum()) == pytest.approx(float(fit.predict(grid).mean()), abs=1e-12)
    np.testing.assert_allclose(a.sum(axis=1), 1 / n, atol=1e-14)
    assert np.all(a[~obs] == 0)


def _anova_by_hand(y):
    n, t = y.shape
    grand = y.mean()
    ms_q = t * sum((y[i].mean() - grand) ** 2 for i in range(n)) / (n - 1)
    ms_t = n * sum((y[:, j].mean() - grand) ** 2 for j in range(t)) / (t - 1)
    res = sum(
        (y[i, j] - y[i].mean() - y[:, j].mean() + grand) ** 2 for i in range(n) for j in range(t)
    )
    return ms_q, ms_t, res / ((n - 1) * (t - 1))


def test_two_templates_use_one_df_and_a_component_at_zero_keeps_its_df():
    # Balanced ANOVA written out by hand. T = 2: SE^2 = (MS_Q + max(MS_T - MS_QT, 0)) / (N T)
    # on T - 1 = 1 df. T = 3 with MS_T < MS_QT (template component < 0): SE^2 = MS_Q / (N T)
    # and Satterthwaite's df of MS_Q + MS_QT - MS_QT with MS_T replaced by MS_QT on T - 1 df.
    from bayesnoise.frequentist.crossed import FALLBACK_NOT_POSITIVE, FALLBACK_TWO_LEVELS

    rng = np.random.default_rng(371)
    for t, want_fallback in ((2, FALLBACK_TWO_LEVELS), (3, FALLBACK_NOT_POSITIVE)):
        for _ in range(200):  # the first data set whose template component is <= 0
            y = rng.normal(0, 0.2, (30, 1)) + rng.normal(0, 0.3, (30, t))
            ms_q, ms_t, ms_qt = _anova_by_hand(y)
            if ms_t < ms_qt:
                break
        fit = crossed_fit(y, None, np.ones_like(y, bool))
        assert fit.fallback == want_fallback
        n = y.shape[0]
        assert fit.se_random == pytest.approx(np.sqrt(ms_q / (n * t)), rel=1e-10)
        if t == 2:
            assert fit.df_random == 1.0
        else:
            df = ms_q**2 / (ms_q**2 / (n - 1) + ms_qt**2 / (t - 1) + ms_qt**2 / ((n - 1) * (t - 1)))
            assert fit.df_random == pytest.approx(df, rel=1e-10)
    # T = 2 with a positive template component: the untruncated sum, still on 1 df
    y = rng.normal(0, 0.2, (30, 1)) + np.array([[0.0, 0.5]]) + rng.normal(0, 0.1, (30, 2))
    ms_q, ms_t, ms_qt = _anova_by_hand(y)
    fit = crossed_fit(y, None, np.ones_like(y, bool))
    assert fit.se_random == pytest.approx(np.sqrt((ms_q + ms_t - ms_qt) / 60), rel=1e-10)
    low, high = fit.interval(0.95)
    assert high - fit.estimate == pytest.approx(stats.t.ppf(0.975, 1) * fit.se_random)
    low, high = fit.interval(0.95, bounds=(0.0, 1.0))
    assert (low, high) == (max(0.0, low), min(1.0, high))


def test_two_templates_interval_holds_its_level_where_t1_is_exact():
    # Gaussian design whose template part dominates (question and question x template
    # variances 1e-6 against 0.04): the estimate is the mean of 2 template means and the
    # t(1) interval is exact, so coverage must be 0.95 +- 3.5 sqrt(0.95 0.05 / R), two-sided.
    rng = np.random.default_rng(372)
    reps, n = 400, 20
    hits = []
    for _ in range(reps):
        y = 0.5 + rng.normal(0, 1e-3, (n, 1)) + rng.normal(0, 0.2, (1, 2))
        y = y + rng.normal(0, 1e-3, (n, 2))
        low, high = crossed_fit(y, None, np.ones((n, 2), bool)).interval(0.95)
        hits.append(low <= 0.5 <= high)
    band = 3.5 * np.sqrt(0.95 * 0.05 / reps)
    assert abs(np.mean(hits) - 0.95) < band, np.mean(hits)


def test_two_templates_cover_at_least_090_on_the_logit_design():
    # studies/crossed_edges.py at N = 100, T = 2, K = 1 (R = 400 there: 0.97-1.00 after,
    # 0.68-0.88 before). Here R = 120: coverage >= 0.90 - 3.5 sqrt(0.9 0.1 / R) for A, B and
    # A - B (one-sided: the interval is conservative by design, t(1); at N = 100 its median
    # width is the whole score range, which is what two templates allow).
    from studies.crossed_edges import run_cell

    reps = 120
    rows = run_cell(100, 2, 1, "none", reps, seed=373)
    floor = 0.90 - 3.5 * np.sqrt(0.9 * 0.1 / reps)
    for row in rows:
        assert row["cover_after"] >= floor, row


def test_missing_by_difficulty_is_flagged_and_the_additive_estimate_is_unbiased():
    # Cells missing more often for hard questions (studies/crossed_edges.py, "question"):
    # the mean of template means is biased upward (> 3.5 MCSE), the additive estimate is
    # within 3.5 MCSE of the truth (two-sided), and the missingness test fires in most data
    # sets (R = 400 in the study: +0.046 / +0.052 before, 0.000 / +0.005 after, fired 1.000).
    from studies.crossed_edges import run_cell

    reps = 50
    for row in run_cell(100, 4, 1, "question", reps, seed=374)[:2]:
        assert row["bias_before"] > 3.5 * row["mcse_before"], row
        assert abs(row["bias_after"]) < 3.5 * row["mcse_after"], row
        assert row["share_warn_missing"] > 0.8


def test_missingness_test_size_at_random():
    # Cells missing at random (30%), 0/1 cell scores independent of the pattern: the test at
    # 0.01 fires at most 0.01 + 3.5 sqrt(0.01 0.99 / R) of the time, and at least 0 (its
    # p-values are not all 1: the mean p-value is within 0.5 +- 3.5 sqrt(1/12 / R)).
    from bayesnoise.frequentist.crossed import missingness_test

    rng = np.random.default_rng(375)
    reps = 600
    p = []
    for _ in range(reps):
        obs = rng.random((100, 4)) > 0.3
        obs[np.arange(100), rng.integers(0, 4, 100)] = True
        score = (rng.random((100, 4)) < rng.beta(2, 2, (100, 1))).astype(float)
        p.append(missingness_test(score, obs))
    p = np.array(p)
    assert np.mean(p < 0.01) <= 0.01 + 3.5 * np.sqrt(0.01 * 0.99 / reps)
    assert abs(p.mean() - 0.5) < 3.5 * np.sqrt(1 / 12 / reps)


def test_few_template_warnings_are_one_line_each_and_name_their_anchor():
    rng = np.random.default_rng(376)
    rows = []
    for m in ("A", "B"):
        for q in range(40):
            hard = q < 20
            for t in ("t1", "t2"):
                if hard and t == "t2" and m == "A":
                    continue  # model A lost half its cells, all on hard questions
                rows.append((m, f"q{q}", t, int(rng.random() < (0.2 if hard else 0.9))))
    df = pd.DataFrame(rows, columns=["model", "question", "template", "score"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = bn.noises(df, factors=["template"])
    lines = [str(w.message) for w in caught]
    for anchor in ("two-levels", "missing-by-question"):
        hits = [line for line in lines if line.endswith(f"#{anchor}")]
        assert len(hits) == 1, lines
    assert all(len(line) <= 200 and "\n" not in line for line in lines)
    assert float(out["df_templates"].sel(model="A")) == 1.0
    assert 0.0 <= float(out["accuracy_templates_low"].sel(model="A"))
    assert float(out["accuracy_templates_high"].sel(model="A")) <= 1.0
