"""The factor path at its edges and on foreign layouts (issue 31): noises (by model and by
pair), pairs / compare (frequentist rows) / check and load(..., factors=...) on one template,
two, one or two questions, ragged runs, missing cells, no spread, cancelling mean squares,
levels of any spelling in any order, graded and bad scores, constant and absent factor
columns, two crossed factors; evalstats' tables in the column spellings it reads; Inspect logs
with the variant in the task arguments or the samples' metadata.

Numbers are checked against brute-force pandas group-bys (cell means, question means, mean
squares written out here), not against the package's own estimator.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import stats

import bayesnoise as bn
from bayesnoise.data import DataError

FACTOR = ["template"]


def _frame(n=8, t=3, k=2, models="AB", seed=0, templates=None, graded=False) -> pd.DataFrame:
    """model, question, template, run, score: every cell present, k runs per cell."""
    rng = np.random.default_rng(seed)
    templates = templates or [f"t{i}" for i in range(t)]
    rows = [
        (m, f"q{q}", tt, r, rng.random() if graded else int(rng.random() < 0.6))
        for m in models
        for q in range(n)
        for tt in templates
        for r in range(k)
    ]
    return pd.DataFrame(rows, columns=["model", "question", "template", "run", "score"])


def _cells(df: pd.DataFrame, factor="template") -> pd.Series:
    """Cell means per (model, question, level), runs averaged."""
    return df.groupby(["model", "question", factor])["score"].mean()


def _estimate(cells: pd.Series, factor="template") -> float:
    """Mean over the full question x level grid of the fitted values of the least-squares fit
    y ~ question + level (statsmodels OLS) to the cells present; the grand mean when all are."""
    import statsmodels.formula.api as smf

    frame = cells.rename("y").reset_index()
    frame.columns = ["q", "t", "y"] if frame.columns[0] == "question" else ["t", "q", "y"]
    fit = smf.ols("y ~ C(q) + C(t)", frame).fit()
    grid = pd.MultiIndex.from_product(
        [frame["q"].unique(), frame["t"].unique()], names=["q", "t"]
    ).to_frame(index=False)
    return float(fit.predict(grid).mean())


def _anova(table: pd.DataFrame) -> tuple[float, float, float]:
    """(MS_Q, MS_T, MS_QT) of a complete question x level table of cell means."""
    y = table.to_numpy(dtype=float)
    n, t = y.shape
    grand, rows, cols = y.mean(), y.mean(axis=1), y.mean(axis=0)
    ms_q = t * ((rows - grand) ** 2).sum() / (n - 1)
    ms_t = n * ((cols - grand) ** 2).sum() / (t - 1)
    res = y - rows[:, None] - cols[None, :] + grand
    return ms_q, ms_t, (res**2).sum() / ((n - 1) * (t - 1))


def _record(fn, *args, **kwargs):
    """(result, warning lines) of one call."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    return out, [str(w.message) for w in rec]


def _said_once(lines: list[str], anchor: str) -> str:
    """The one warning line pointing to ``anchor``: once, one line, <= 200 characters, and
    the section exists in docs/warnings.md."""
    from conftest import REPO

    hits = [x for x in lines if x.endswith(f"see docs/warnings.md#{anchor}")]
    assert len(hits) == 1, lines
    assert "\n" not in hits[0] and len(hits[0]) <= 200, hits[0]
    assert f"({anchor})=" in (REPO / "docs" / "warnings.md").read_text()
    return hits[0]


# --- one template, two templates --------------------------------------------------------


def test_one_template_gives_the_these_templates_interval_and_nan_template_columns():
    df = _frame(n=8)
    one = df[df.template == "t1"]
    out, lines = _record(bn.noises, one, factors=FACTOR)
    line = _said_once(lines, "one-level")
    assert line.startswith("1 template level for 2 model(s)")
    cells = _cells(one)
    for model in ("A", "B"):
        row = out.sel(model=model)
        q = cells[model].droplevel("template")  # one cell per question
        n = len(q)
        se = q.std(ddof=1) / np.sqrt(n)
        assert float(row["accuracy_these_templates"]) == pytest.approx(q.mean(), abs=1e-12)
        assert float(row["se_these_templates"]) == pytest.approx(se, rel=1e-12)
        assert float(row["df_these_templates"]) == n - 1
        half = stats.t.ppf(0.975, n - 1) * se
        assert float(row["accuracy_these_templates_low"]) == pytest.approx(q.mean() - half)
        assert float(row["accuracy_these_templates_high"]) == pytest.approx(q.mean() + half)
        for name in ("low", "high"):
            assert np.isnan(float(row[f"accuracy_templates_{name}"]))
        assert np.isnan(float(row["se_templates"])) and np.isnan(float(row["df_templates"]))
        # the sampling component is identified (K = 2): mean within-cell variance
        within = one[one.model == model].groupby("question")["score"].var(ddof=1).mean()
        comp = row["variance_component"].to_series()
        assert comp["sampling"] == pytest.approx(within, rel=1e-12)
        assert comp[["question", "template", "question x template"]].isna().all()
    # pairs: the difference over this template, its paired t test; p over templates empty
    pairs, lines = _record(bn.pairs, one, factors=FACTOR)
    _said_once(lines, "one-level")
    d = (cells["A"] - cells["B"]).droplevel("template")
    se = d.std(ddof=1) / np.sqrt(len(d))
    row = pairs.isel(pair=0)
    assert (str(row["model_a"].item()), str(row["model_b"].item())) in (("A", "B"), ("B", "A"))
    sign = 1 if str(row["model_a"].item()) == "A" else -1
    assert float(row["difference_these_templates"]) == pytest.approx(sign * d.mean(), abs=1e-12)
    p = 2 * stats.t.sf(abs(d.mean()) / se, len(d) - 1)
    assert float(row["p_value_these_templates"]) == pytest.approx(p, rel=1e-9)
    assert np.isnan(float(row["p_value_templates"]))
    # the verdict of pair= is over this template (it read "[nan, nan] ... nan Satterthwaite df")
    verdict = bn.pairs(one, factors=FACTOR, pair=("A", "B")).attrs["verdict"]
    assert "nan" not in verdict and "over this one template only" in verdict
    assert f"p = {p:.3f}" in verdict
    # check decides over the template population: no verdict from one template
    with pytest.raises(DataError, match=r"one template level.*load without --factor"):
        bn.check(one, baseline="A", candidate="B", factors=FACTOR)


def test_two_templates_equal_the_anova_formulas():
    df = _frame(n=10, t=2, k=2, seed=4)
    out = bn.noises(df, factors=FACTOR)
    cells = _cells(df)
    for model in ("A", "B"):
        table = cells[model].unstack("template")
        n, t = table.shape
        ms_q, ms_t, ms_qt = _anova(table)
        row = out.sel(model=model)
        assert float(row["accuracy_templates"]) == pytest.approx(table.values.mean(), abs=1e-12)
        assert float(row["se_these_templates"]) == pytest.approx(np.sqrt(ms_q / (n * t)))
        if ms_t > ms_qt:
            var = (ms_q + ms_t - ms_qt) / (n * t)
            assert float(row["se_templates"]) == pytest.approx(np.sqrt(var), rel=1e-10)
        else:  # the template part truncated at 0
            assert float(row["se_templates"]) == pytest.approx(np.sqrt(ms_q / (n * t)))


# --- one question, two questions, one model ---------------------------------------------


def test_one_question_is_refused_with_the_count_and_the_reason():
    df = _frame()
    with pytest.raises(DataError, match=r"model '[AB]' has results for 1 question \(under 3"):
        bn.noises(df[df.question == "q0"], factors=FACTOR)


def test_two_questions_with_equal_means_give_a_zero_width_interval_and_one_warning():
    # balanced, N = 2, T = 3: the two question means are equal, so MS_Q = 0 and the SE over
    # these templates (MS_Q / (N T)) is 0; so is the template-population one (s2_t <= 0)
    rows = [
        ("A", q, t, r, s)
        for q, scores in (("q0", [[1, 0], [1, 0], [1, 1]]), ("q1", [[1, 1], [1, 0], [1, 0]]))
        for t, runs in zip(("t0", "t1", "t2"), scores, strict=True)
        for r, s in enumerate(runs)
    ]
    df = pd.DataFrame(rows, columns=["model", "question", "template", "run", "score"])
    out, lines = _record(bn.noises, df, factors=FACTOR)
    _said_once(lines, "zero-se")
    row = out.sel(model="A")
    est = df["score"].mean()
    for scope in ("templates", "these_templates"):
        assert float(row[f"se_{scope}"]) == 0.0
        assert np.isnan(float(row[f"df_{scope}"]))
        assert float(row[f"accuracy_{scope}_low"]) == pytest.approx(est, abs=1e-12)
        assert float(row[f"accuracy_{scope}_high"]) == pytest.approx(est, abs=1e-12)
    assert row["variance_share"].isnull().all()


def test_cancelling_mean_squares_leave_the_interval_empty_not_1e20_wide():
    # N = 2, T = 3, one run: MS_T > MS_QT (template part > 0) and MS_Q small, so that
    # Satterthwaite's df of MS_Q + MS_T - MS_QT is below 1 (it was ~0.06: +-1e20)
    y = pd.DataFrame([[0.0, 1.0, 0.0], [0.0, 0.5, 0.5]], index=["q0", "q1"])
    y.columns = ["t0", "t1", "t2"]
    ms_q, ms_t, ms_qt = _anova(y)
    n, t = y.shape
    dof = (ms_q + ms_t - ms_qt) ** 2 / (
        ms_q**2 / (n - 1) + ms_t**2 / (t - 1) + ms_qt**2 / ((n - 1) * (t - 1))
    )
    assert ms_t > ms_qt and dof < 1
    long = y.stack().rename("score").rename_axis(["question", "template"]).reset_index()
    out, lines = _record(bn.noises, long.assign(model="A"), factors=FACTOR)
    _said_once(lines, "no-interval")
    row = out.sel(model="A")
    assert float(row["se_templates"]) == pytest.approx(np.sqrt((ms_q + ms_t - ms_qt) / (n * t)))
    assert float(row["df_templates"]) == pytest.approx(dof, rel=1e-10)
    assert np.isnan(float(row["accuracy_templates_low"]))
    assert np.isnan(float(row["accuracy_templates_high"]))
    # over these templates: MS_Q / (N T) on N - 1 = 1 df, a finite interval
    assert float(row["se_these_templates"]) == pytest.approx(np.sqrt(ms_q / (n * t)))
    assert np.isfinite(float(row["accuracy_these_templates_low"]))


def test_a_negative_variance_estimate_is_empty_not_zero_and_check_gives_no_verdict():
    # unbalanced N = 4, T = 3, one run, scores 0 / 0.5 / 1: the pairwise moments give a
    # fixed-template variance below 0 (it was truncated to 0: a zero-width interval)
    y = [[0.0, 1.0, 0.0], [0.5, 0.0, 1.0], [0.5, None, 0.5], [0.5, 0.5, None]]
    rows = [
        (m, f"q{i}", f"t{j}", v if m == "A" else 0.0)
        for m in "AB"
        for i, r in enumerate(y)
        for j, v in enumerate(r)
        if v is not None
    ]
    df = pd.DataFrame(rows, columns=["model", "question", "template", "score"])
    out, lines = _record(bn.noises, df, factors=FACTOR)
    _said_once(lines, "no-interval")
    row = out.sel(model="A")
    assert np.isnan(float(row["se_these_templates"]))
    assert np.isnan(float(row["accuracy_these_templates_low"]))
    assert float(row["accuracy_these_templates"]) == pytest.approx(_estimate(_cells(df)["A"]))
    with pytest.raises(DataError, match=r"SE estimate of the change is below 0"):
        bn.check(df, baseline="B", candidate="A", factors=FACTOR)


def test_one_model_by_pair_names_the_model():
    df = _frame(models="A")
    with pytest.raises(DataError, match=r"holds one \('A'\): use by='model'"):
        bn.noises(df, factors=FACTOR, by="pair")
    with pytest.raises(DataError, match=r"two models or more"):
        bn.pairs(df, factors=FACTOR)


# --- runs: K = 1 everywhere, ragged K -----------------------------------------------------


@pytest.mark.parametrize("ragged", [False, True])
def test_one_run_or_ragged_runs_merge_sampling_into_the_interaction(ragged):
    df = _frame(n=8, k=3, seed=2)
    if ragged:  # q0-q3: one run in every cell, the rest three
        df = df[~(df.question.isin(["q0", "q1", "q2", "q3"]) & (df.run > 0))]
    else:
        df = df[df.run == 0]
    out = bn.noises(df, factors=["template", "run"])
    assert list(out["component"].values)[-1] == "question x template + sampling"
    cells = _cells(df)
    for model in ("A", "B"):
        table = cells[model].unstack("template")
        ms_q, _, _ = _anova(table)
        row = out.sel(model=model)
        assert float(row["accuracy_templates"]) == pytest.approx(table.values.mean(), abs=1e-12)
        assert float(row["se_these_templates"]) == pytest.approx(
            np.sqrt(ms_q / table.size), rel=1e-10
        )
        runs = df[df.model == model].groupby(["question", "template"]).size().mean()
        assert float(row["runs_per_cell"]) == pytest.approx(runs)


# --- missing cells ------------------------------------------------------------------------


def test_a_question_under_one_template_and_a_model_missing_a_template():
    df = _frame(n=8, seed=3)
    df = df[~((df.question == "q0") & (df.template != "t0"))]  # q0 under t0 only
    df = df[~((df.model == "A") & (df.template == "t2"))]  # A never ran t2
    out = bn.noises(df, factors=FACTOR)
    cells = _cells(df)
    assert int(out["templates"].sel(model="A")) == 2
    assert int(out["templates"].sel(model="B")) == 3
    assert int(out["cells"].sel(model="B")) == 8 * 3 - 2
    for model in ("A", "B"):
        got = float(out["accuracy_templates"].sel(model=model))
        assert got == pytest.approx(_estimate(cells[model]), abs=1e-12)
    pair, lines = _record(bn.noises, df, factors=FACTOR, by="pair")
    shared = cells["A"].index.intersection(cells["B"].index)
    only_one = len(cells["A"].index.symmetric_difference(cells["B"].index))
    assert _said_once(lines, "unshared-cells").startswith(f"{only_one} cells of one model only")
    d = cells["A"][shared] - cells["B"][shared]
    row = pair.isel(pair=0)
    sign = 1 if str(row["model_a"].item()) == "A" else -1
    assert float(row["difference_templates"]) == pytest.approx(sign * _estimate(d), abs=1e-12)
    assert int(row["templates"]) == 2 and int(row["cells"]) == len(shared)
    pairs, lines = _record(bn.pairs, df, factors=FACTOR)
    _said_once(lines, "unshared-cells")
    np.testing.assert_allclose(
        pairs["difference_templates"].values, pair["difference_templates"].values, rtol=1e-12
    )
    _, lines = _record(bn.check, df, baseline="A", candidate="B", factors=FACTOR)
    _said_once(lines, "unshared-cells")
    _, lines = _record(bn.noises, df, factors=FACTOR)  # the model rows keep every cell
    assert not [x for x in lines if "unshared" in x]


def test_questions_nested_in_templates_are_refused_with_what_to_do():
    # each question under one template only (a per-template id such as 'q1-cot')
    df = _frame(n=6)
    df["question"] = df["question"] + "-" + df["template"]
    with pytest.raises(DataError, match=r"nested in the templates, not crossed.*give it one id"):
        bn.noises(df, factors=FACTOR)


# --- no spread ----------------------------------------------------------------------------


@pytest.mark.parametrize("value", [1.0, 0.5])
def test_every_score_equal_collapses_the_intervals_with_one_warning(value):
    df = _frame().assign(score=value)
    out, lines = _record(bn.noises, df, factors=FACTOR)
    _said_once(lines, "zero-se")
    for name in ("accuracy_templates", "accuracy_templates_low", "accuracy_templates_high"):
        np.testing.assert_array_equal(out[name].values, value)
    assert (out["se_templates"] == 0).all() and out["df_templates"].isnull().all()
    assert (out["variance_component"] == 0).all() and out["variance_share"].isnull().all()
    pair, lines = _record(bn.noises, df, factors=FACTOR, by="pair")
    _said_once(lines, "zero-se")
    assert float(pair["difference_templates_low"][0]) == 0.0
    assert np.isnan(float(pair["p_value_templates"][0]))
    table, lines = _record(bn.pairs, df, factors=FACTOR)
    _said_once(lines, "zero-se")
    assert np.isnan(float(table["p_value_templates_adjusted"][0]))
    gate = bn.check(df, baseline="A", candidate="B", factors=FACTOR)
    assert float(gate["change"][0]) == 0.0


# --- levels: spelling, order, row order ---------------------------------------------------


def _unbalanced(seed=7) -> pd.DataFrame:
    """Graded scores, missing cells, ragged runs: nothing that happens to be symmetric."""
    df = _frame(n=9, k=3, models="ABC", seed=seed, graded=True)
    rng = np.random.default_rng(seed)
    keep = rng.random(len(df)) > 0.15
    return df[keep].reset_index(drop=True)


def test_row_order_does_not_change_any_number():
    df = _unbalanced()
    shuffled = df.sample(frac=1, random_state=11).reset_index(drop=True)
    for by in ("model", "pair"):
        a = bn.noises(df, factors=["template", "run"], by=by)
        b = bn.noises(shuffled, factors=["template", "run"], by=by)
        xr.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    a = bn.pairs(df, factors=["template", "run"])
    b = bn.pairs(shuffled, factors=["template", "run"])
    xr.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    a = bn.check(df, baseline="A", candidate="B", factors=["template", "run"])
    b = bn.check(shuffled, baseline="A", candidate="B", factors=["template", "run"])
    xr.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    "levels",
    [
        [3, 1, 2],  # integers
        ["few shot", "zero shot ", " cot"],  # spaces, kept as written
        ["Prüfung ✓", "提示", "שאלה"],  # unicode
    ],
)
def test_levels_of_any_spelling_and_order_give_the_numbers_of_plain_names(levels):
    df = _unbalanced(seed=5)
    plain = bn.noises(df, factors=FACTOR, by="pair")
    names = dict(zip(["t0", "t1", "t2"], levels, strict=True))
    renamed = df.assign(template=df["template"].map(names))
    # each model lists the levels in its own order
    renamed = pd.concat(
        [
            g.sort_values("template", key=lambda s: s.astype(str), ascending=i % 2 == 0)
            for i, (_, g) in enumerate(renamed.groupby("model"))
        ]
    )
    ds = bn.load(renamed, factors=FACTOR)
    assert sorted(map(str, ds["template"].values)) == sorted(map(str, levels))
    xr.testing.assert_allclose(bn.noises(renamed, factors=FACTOR, by="pair"), plain, rtol=1e-12)


# --- scores -------------------------------------------------------------------------------


def test_graded_scores_equal_brute_force_and_compare_gives_the_frequentist_rows():
    df = _frame(n=8, graded=True, seed=9)
    out = bn.noises(df, factors=FACTOR)
    cells = _cells(df)
    for model in ("A", "B"):
        got = float(out["accuracy_templates"].sel(model=model))
        assert got == pytest.approx(cells[model].mean(), abs=1e-12)
        within = df[df.model == model].groupby(["question", "template"])["score"].var(ddof=1)
        comp = out["variance_component"].sel(model=model, component="sampling")
        assert float(comp) == pytest.approx(within.mean(), rel=1e-12)
    cmp = bn.compare(df, factors=FACTOR)  # graded: the frequentist crossed rows (no MCMC)
    for name in ("accuracy_templates", "se_templates", "df_templates", "se_these_templates"):
        np.testing.assert_allclose(
            cmp[name].sel(model=["A", "B"]).values,
            out[name].sel(model=["A", "B"]).values,
            rtol=1e-12,
        )


@pytest.mark.parametrize(
    ("value", "says"), [("1.5", r"score=1\.5 is outside \[0, 1\]"), ("", r"missing")]
)
def test_a_bad_score_is_an_error_naming_the_line(tmp_path, value, says):
    df = _frame(n=3)
    path = tmp_path / "t.csv"
    text = df.to_csv(index=False).splitlines()
    cut = text[5].rsplit(",", 1)[0]
    text[5] = f"{cut},{value}"
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(DataError, match=rf"t\.csv, line 6 \(model='A'.*template='t\d'.*{says}"):
        bn.noises(path, factors=FACTOR)


# --- factor columns: constant, absent, two crossed ------------------------------------------


def test_a_constant_factor_beside_the_template_changes_nothing():
    df = _frame(seed=6)
    want = bn.noises(df, factors=["template", "run"])
    got = bn.noises(df.assign(judge="gpt-judge"), factors=["template", "judge", "run"])
    xr.testing.assert_allclose(got, want, rtol=1e-12)
    pairs = bn.pairs(df.assign(judge="gpt-judge"), factors=["template", "judge", "run"])
    np.testing.assert_allclose(
        pairs["se_templates"].values,
        bn.pairs(df, factors=["template", "run"])["se_templates"].values,
        rtol=1e-12,
    )


def test_a_constant_factor_alone_is_one_level():
    df = _frame()
    df = df[df.template == "t0"].rename(columns={"template": "judge"})
    out, lines = _record(bn.noises, df, factors=["judge"])
    assert _said_once(lines, "one-level").startswith("1 judge level")
    assert out["se_templates"].isnull().all() and (out["se_these_templates"] > 0).all()


def test_an_absent_factor_names_the_file_and_its_columns(tmp_path):
    path = tmp_path / "runs.csv"
    _frame(n=3).to_csv(path, index=False)
    with pytest.raises(DataError) as err:
        bn.noises(path, factors=["prompt"])
    text = str(err.value)
    assert text.startswith(str(path)) and "'prompt'" in text
    assert "['model', 'question', 'template', 'run', 'score']" in text


@pytest.mark.parametrize("role", ["model", "question", "score"])
def test_a_factor_that_is_the_model_question_or_score_column_says_so(role):
    # was: "cannot tell which columns hold the model" with the column right there
    with pytest.raises(
        DataError, match=rf"factors=\['{role}'\] names the column read as the {role}; a factor"
    ):
        bn.load(_frame(n=3), factors=[role])


def test_two_crossed_factors_are_refused_by_every_verb_naming_both():
    df = _frame(seed=1)
    df = pd.concat([df.assign(judge="j1"), df.assign(judge="j2")], ignore_index=True)
    factors = ["template", "judge", "run"]
    said = r"one crossed factor.*template \(3 levels\), judge \(2 levels\).*one judge"
    with pytest.raises(DataError, match=said):
        bn.noises(df, factors=factors)
    with pytest.raises(DataError, match=said):
        bn.pairs(df, factors=factors)
    with pytest.raises(DataError, match=said):
        bn.check(df, baseline="A", candidate="B", factors=factors)
    # one judge kept: the template noise of that judge's scores
    one = bn.noises(df[df.judge == "j1"], factors=factors)
    xr.testing.assert_allclose(one, bn.noises(_frame(seed=1), factors=["template", "run"]))


def test_plan_with_one_template_says_it_needs_two():
    df = _frame()
    with pytest.raises(DataError, match=r"1 template level; planning how many templates"):
        bn.plan(df[df.template == "t0"], factors=FACTOR, target_se=0.05)


# --- evalstats' tables --------------------------------------------------------------------


def _evalstats_frame(seed=12, n=10) -> pd.DataFrame:
    """evalstats' canonical long layout (as its loader builds it from a nested score dict:
    model, prompt, item, run, score; items and runs as text)."""
    rng = np.random.default_rng(seed)
    rows = [
        (m, p, str(i), str(r), float(rng.random() < 0.4 + 0.2 * (m == "gpt")))
        for m in ("gpt", "llama")
        for p in ("Minimal", "Instructive", "Chain-of-thought")
        for i in range(n)
        for r in range(3)
    ]
    return pd.DataFrame(rows, columns=["model", "prompt", "item", "run", "score"])


# The spellings evalstats 0.3.3 reads (loader._CANONICAL_ALIASES, _SCORE_ALIASES; any case).
SPELLINGS = {
    "canonical": {},
    "capitalised": {"model": "Model", "prompt": "Prompt", "item": "Item", "run": "Run"},
    "aliases": {
        "model": "model_name",
        "prompt": "prompt_template",
        "item": "example",
        "run": "run_id",
        "score": "value",
    },
    "more aliases": {
        "model": "model_label",
        "prompt": "template",
        "item": "id",
        "run": "seed",
        "score": "result",
    },
    "input, repeat": {"item": "input", "run": "repeat"},
}


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_evalstats_tables_in_each_spelling_are_read_without_a_mapping(spelling, tmp_path):
    df = _evalstats_frame()
    renamed = df.rename(columns=SPELLINGS[spelling])
    path = tmp_path / "evals.csv"
    renamed.to_csv(path, index=False)
    prompt = SPELLINGS[spelling].get("prompt", "prompt")
    out = bn.noises(path, by="pair")  # no factors=, no columns=
    assert out.attrs["factor"] == prompt
    want = bn.noises(df, factors=["prompt", "run"], by="pair")
    np.testing.assert_allclose(
        out["difference_templates"].values, want["difference_templates"].values, rtol=1e-12
    )
    np.testing.assert_allclose(out["se_templates"].values, want["se_templates"].values)
    ds = bn.load(path)
    assert ds["correct"].dims == ("model", "question", prompt)
    assert (ds["samples"] == 3).all()  # the run column is the runs of a cell
    # brute force: cell sums of the original table
    sums = df.groupby(["model", "item", "prompt"])["score"].sum()
    for (m, i, p), value in sums.items():
        assert ds["correct"].sel({"model": m, "question": i, prompt: p}).item() == value


def test_an_evalstats_evaluator_or_judge_column_is_a_factor():
    df = _evalstats_frame()
    two = pd.concat([df.assign(judge="j1"), df.assign(judge="j2")], ignore_index=True)
    ds = bn.load(two)
    assert ds["correct"].dims == ("model", "question", "prompt", "judge")
    with pytest.raises(DataError, match=r"prompt \(3 levels\), judge \(2 levels\)"):
        bn.noises(two)
    # evalstats' single evaluator: one level, nothing pooled, the numbers of the prompt alone
    one = bn.noises(df.assign(evaluator="exact_match"))
    xr.testing.assert_allclose(one, bn.noises(df))


def test_evalstats_prompt_only_tables_are_one_model_per_file(tmp_path):
    df = _evalstats_frame()
    paths = []
    for model in ("gpt", "llama"):
        paths.append(tmp_path / f"{model}.csv")
        df[df.model == model].drop(columns="model").to_csv(paths[-1], index=False)
    ds = bn.load(paths)
    assert list(ds["model"].values) == ["gpt", "llama"]
    xr.testing.assert_allclose(bn.noises(paths), bn.noises(df))
    assert list(bn.load(df.drop(columns="model").iloc[:60])["model"].values) == ["DataFrame"]
    gate = bn.check(paths, factors=["prompt"])  # baseline file, candidate file
    want = bn.check(df, baseline="gpt", candidate="llama", factors=["prompt", "run"])
    assert float(gate["change"][0]) == pytest.approx(float(want["change"][0]), abs=1e-12)


def test_evalstats_wide_layout_is_read_as_its_long_layout(tmp_path):
    df = _evalstats_frame()
    one = df[(df.model == "gpt") & (df.run == "0")]
    wide = one.pivot(index="item", columns="prompt", values="score").reset_index()
    wide.columns.name = None
    wide = wide.rename(columns={"item": "input"})
    path = tmp_path / "results.csv"
    wide.to_csv(path, index=False)
    ds = bn.load(path)
    assert list(ds["model"].values) == ["results"] and (ds["samples"] == 1).all()
    long = one.drop(columns="run").rename(columns={"item": "input"}).assign(model="results")
    xr.testing.assert_allclose(bn.noises(path), bn.noises(long))
    for frame in (wide, wide.iloc[:, [0, 2, 1, 3]]):  # column order is not a result
        xr.testing.assert_allclose(bn.noises(frame), bn.noises(long.assign(model="DataFrame")))
    wide.loc[3, "Instructive"] = None
    wide.to_csv(path, index=False)
    with pytest.raises(DataError, match=r"input='\d+', prompt='Instructive'\): score=.*missing"):
        bn.load(path)


# --- Inspect logs of prompt variants, two inspect-ai versions ------------------------------

# Written by inspect-ai 0.3.60 and 0.3.285 (tests/data/logs/make_inspect_factor_logs.py)
INSPECT = Path(__file__).parent / "data" / "logs" / "inspect" / "factors"
VERSIONS = ["v0.3.60", "v0.3.285"]
IDS = range(1, 6)


def _value(model: str, template: str, sample_id: int, epoch: int) -> int:
    """The fixtures' score (make_inspect_factor_logs.value), 1 for C."""
    seed = sample_id * 7 + epoch * 3 + len(template) + (2 if model.endswith("-b") else 0)
    return int(seed % 3 != 0)


@pytest.mark.parametrize("version", VERSIONS)
def test_inspect_variant_as_a_task_argument_with_epochs_as_runs(version):
    ds = bn.load(INSPECT / version / "task_args", factors=FACTOR)
    assert ds["correct"].dims == ("model", "question", "template")
    assert (ds["samples"] == 2).all()  # the 2 epochs are the runs of a cell
    for model in ("mockllm/model-a", "mockllm/model-b"):
        for t in ("plain", "cot"):
            for i in IDS:
                want = sum(_value(model, t, i, e) for e in (1, 2))
                got = ds["correct"].sel(model=model, question=str(i), template=t).item()
                assert got == want
    pair = bn.noises(ds, by="pair")
    a, b = (str(m) for m in (pair["model_a"][0].item(), pair["model_b"][0].item()))
    diff = np.mean(
        [
            _value(a, t, i, e) - _value(b, t, i, e)
            for t in ("plain", "cot")
            for i in IDS
            for e in (1, 2)
        ]
    )
    assert float(pair["difference_templates"][0]) == pytest.approx(diff, abs=1e-12)


@pytest.mark.parametrize("version", VERSIONS)
def test_inspect_variant_per_epoch_in_the_sample_metadata(version):
    # inspect-ai 0.3.60 writes no metadata in its summaries (read from the sample files,
    # was: "neither a task argument nor in the sample's metadata"); 0.3.285 writes
    # "few  shot" as "few shot" there: the levels are the same for both
    ds = bn.load(INSPECT / version / "epochs", factors=FACTOR)
    assert sorted(ds["template"].values.tolist()) == ["few shot", "plain"]
    assert (ds["samples"] == 2).all()
    for model in ("mockllm/model-a", "mockllm/model-b"):
        for i in IDS:
            for level, written, epochs in (
                ("plain", "plain", (1, 3)),
                ("few shot", "few  shot", (2, 4)),
            ):
                want = sum(_value(model, written, i, e) for e in epochs)
                got = ds["correct"].sel(model=model, question=str(i), template=level).item()
                assert got == want


@pytest.mark.parametrize("case", ["task_args", "epochs", "long"])
def test_inspect_logs_of_two_versions_give_one_dataset(case):
    old, new = (bn.load(INSPECT / v / case, factors=FACTOR) for v in VERSIONS)
    for name in ("correct", "samples", "sum_sq"):
        xr.testing.assert_equal(
            old[name].reset_coords(drop=True), new[name].reset_coords(drop=True)
        )


@pytest.mark.parametrize("version", VERSIONS)
def test_inspect_metadata_cut_in_the_summaries_is_read_from_the_samples(version):
    # two template texts of 1,300 characters that differ after the first 1,100: inspect-ai
    # 0.3.285's summaries write both as "..." (they were pooled as one level)
    ds = bn.load(INSPECT / version / "long", factors=FACTOR)
    assert sorted(ds["template"].values.tolist()) == ["x" * 1100 + c * 200 for c in "AB"]


@pytest.mark.parametrize("version", VERSIONS)
def test_inspect_ids_per_variant_are_nested_and_refused_with_what_to_do(version):
    ds = bn.load(INSPECT / version / "nested", factors=FACTOR)
    assert ds.sizes["question"] == 10  # '1-plain', '1-cot', ...: one template each
    with pytest.raises(DataError, match=r"not crossed.*Inspect.*-T template="):
        bn.noises(ds)
