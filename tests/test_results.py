"""Results speak one language (issue 29): registry names say what a number is (p_value* only
for p-values, prob_* for posterior probabilities, labels that agree with scope and method),
every verb returns a Dataset with meaningful dims that ``bn.tidy`` and ``bn.save`` take, the
order shows the answer, and one pair gets one sentence."""

import io
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import stats

import bayesnoise as bn
from bayesnoise.cli import main
from bayesnoise.vocabulary import _COMMAND_COLUMNS, REGISTRY, _base

CRUX = "examples/data/cruxeval_output_temp0.8.csv.gz"


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# --- the registry ----------------------------------------------------------------------


def test_labels_agree_with_scope_and_method():
    """A label that says "MCMC", "Bayes", "(freq)", "these questions" or "population" has
    that method or scope; and (issue 29's entries) a column of method mcmc / bayes, or of
    scope these questions, says so in its label (what a table header or a plot shows)."""
    from bayesnoise.vocabulary import _FACTOR_ENTRIES, _JUDGE_ENTRIES, _RATE_ENTRIES

    newer = {c.name for c in (*_RATE_ENTRIES, *_FACTOR_ENTRIES, *_JUDGE_ENTRIES)}
    wrong = []
    for col in REGISTRY.values():
        label, both_ways = col.label, col.name not in newer
        says = {
            "mcmc": "MCMC" in label,
            "bayes": bool(re.search(r"\bbayes\b", label, re.IGNORECASE)),
            "freq": "(freq)" in label,
        }
        checks = {
            method: (said == (col.method == method))
            if both_ways and method != "freq"
            # the label never claims a method the column does not have
            else (not said or col.method == method)
            for method, said in says.items()
        }
        here = "these questions" in label
        checks["these questions"] = (
            here == (col.scope == "these questions") if both_ways else not here or col.scope
        )
        checks["population"] = (
            not re.search(r"(, |\()population", label) or "population" in col.scope
        )
        wrong += [(col.name, label, col.scope, col.method, k) for k, ok in checks.items() if not ok]
    assert not wrong, wrong


def test_p_value_names_only_p_values_and_prob_names_posterior_probabilities():
    for name, col in REGISTRY.items():
        if name.startswith("p_"):  # every p_* is a p-value, spelled p_value*
            assert name.startswith("p_value"), name
        if col.label.startswith("P(") or "posterior P(" in col.description:
            assert name.startswith("prob_"), name  # a posterior probability is never p_*
        if name.startswith("prob_"):
            assert "p-value" not in col.description.replace("(used as a p-value)", ""), name


def test_posterior_point_summaries_are_means_unless_named_median():
    for name, col in REGISTRY.items():
        if "posterior median" in col.description:
            assert "median" in name, name
    assert REGISTRY["mu"].description.startswith("posterior mean")
    assert REGISTRY["mu_difference"].description.startswith("posterior mean")


def test_mu_is_the_exact_posterior_mean_of_the_dirichlet_population():
    """Oracle: the population accuracy under Dirichlet(1, ..., 1, 1/2, 1/2) weights on the N
    per-question scores and the two end atoms 0 and 1 has mean (sum p_i + 1/2) / (N + 1)."""
    rng = np.random.default_rng(3)
    correct = rng.binomial(4, rng.beta(2, 3, size=(2, 60)))
    ds = bn.from_arrays(correct, np.full((2, 60), 4), models=["a", "b"])
    r = _quiet(bn.posterior, ds)
    p = correct / 4
    want = (p.sum(axis=1) + 0.5) / (60 + 1)
    got = r["mu"].sel(model=["a", "b"]).values
    np.testing.assert_allclose(got, want, rtol=1e-12)


# --- result types, dims, tidy and save --------------------------------------------------


VERBS = {
    "noise": lambda: bn.noise(CRUX, confidence_level=0.9),
    "pairs": lambda: bn.pairs(CRUX, pair=("phind", "codellama-13b")),
    "questions": lambda: bn.questions(CRUX, suspect=5),
    "check": lambda: bn.check(CRUX, baseline="phind", candidate="codellama-13b"),
    "check bayes": lambda: bn.check(
        CRUX, baseline="phind", candidate="codellama-13b", method="bayes", n_resamples=500
    ),
    "reference": lambda: bn.reference("humaneval+", accuracy=0.5),
    "signal": lambda: bn.signal(CRUX, noise_model="phind"),
    "decision_accuracy": lambda: bn.decision_accuracy(
        {"a": 0.31, "b": 0.35, "c": 0.40, "d": 0.38},
        {"a": 0.52, "b": 0.55, "c": 0.61, "d": 0.63},
        n_resamples=50,
    ),
    "plan resample": lambda: bn.plan(CRUX, resample=12, pair=("phind", "codellama-13b")),
    "columns": lambda: bn.columns(command="check"),
}


@pytest.mark.parametrize("name", list(VERBS))
def test_every_result_is_a_dataset_with_meaningful_dims_saved_and_loaded(name, tmp_path):
    r = _quiet(VERBS[name])
    assert isinstance(r, xr.Dataset)
    assert "row" not in r.dims and not any(d.startswith("_") for d in r.dims), r.dims
    table = bn.tidy(r)
    assert len(table) == max(int(np.prod(list(r.sizes.values()))), 1)
    path = _quiet(bn.save, r, tmp_path / "r.nc")
    back = bn.load(path)
    xr.testing.assert_equal(back, r)  # values, dims and coordinates
    assert back.attrs["columns"] == r.attrs["columns"]
    assert set(back.attrs) == set(r.attrs)
    for var in r.variables:
        assert back[var].attrs == r[var].attrs, var
    with xr.open_dataset(path, engine="h5netcdf") as plain:  # any netCDF reader
        xr.testing.assert_equal(plain, r)
    pd.testing.assert_frame_equal(bn.tidy(back), table, check_dtype=False)
    csv = _quiet(bn.save, r, tmp_path / "r.csv")
    pd.testing.assert_frame_equal(
        pd.read_csv(csv, keep_default_na=False, na_values=[""]),
        pd.read_csv(io.StringIO(table.to_csv(index=False)), keep_default_na=False, na_values=[""]),
    )


def test_check_is_a_tidy_dataset_whose_bayes_probability_is_no_p_value():
    freq = _quiet(VERBS["check"])
    bayes = _quiet(VERBS["check bayes"])
    assert freq.sizes == {"benchmark": 1} and bayes.sizes == {"benchmark": 1}
    # the oracle of the frequentist gate: scipy's one-sided paired t test
    ds = bn.load(CRUX)
    a = ds.sel(model="phind")
    b = ds.sel(model="codellama-13b")
    d = (b["correct"] / b["samples"] - a["correct"] / a["samples"]).values
    ref = stats.ttest_1samp(d, 0.0, alternative="less")
    assert freq.attrs["p_value"] == pytest.approx(ref.pvalue, rel=1e-10)
    assert float(freq["p_value_regression"][0]) == pytest.approx(ref.pvalue, rel=1e-10)
    assert "p_value" not in bayes.attrs and "pvalue" not in bayes.attrs
    assert 0 <= bayes.attrs["prob_no_regression"] <= 1
    assert "p_value_regression" not in bayes and "prob_no_regression" in bayes
    assert bn.tidy(freq)["verdict"].tolist() == ["regression"]


def test_coverage_is_an_interval_by_population_grid():
    r = _quiet(
        bn.coverage, CRUX, n_resamples=2, populations=("fitted", "empirical"), progress=False
    )
    assert r["coverage"].dims == ("interval", "population")
    assert r["population"].values.tolist() == ["fitted", "empirical"]
    table = bn.tidy(r)
    assert len(table) == r.sizes["interval"] * 2
    assert table[["interval", "population"]].iloc[:2].values.tolist() == [
        ["accuracy", "fitted"],
        ["accuracy", "empirical"],
    ]


def test_to_result_refuses_a_row_dim():
    from bayesnoise.verbs._result import to_result

    with pytest.raises(ValueError, match="not 'row'"):
        to_result(pd.DataFrame({"accuracy": [0.5]}), "row")


# --- order ------------------------------------------------------------------------------


def test_models_best_first_pairs_higher_minus_lower_questions_most_suspect_first():
    ds = bn.load(CRUX)
    acc = (ds["correct"] / ds["samples"]).mean("question").to_series()  # oracle: plain means
    best_first = acc.sort_values(ascending=False, kind="stable").index.tolist()
    noise = _quiet(bn.noise, CRUX)
    assert noise["model"].values.tolist() == best_first
    assert _quiet(bn.posterior, CRUX)["model"].values.tolist() == best_first
    pairs = _quiet(bn.pairs, CRUX)
    assert (pairs["difference"].values >= 0).all()
    np.testing.assert_allclose(
        pairs["difference"].values,
        acc[pairs["model_a"].values].values - acc[pairs["model_b"].values].values,
        atol=1e-12,
    )
    compared = _quiet(bn.compare, CRUX, by="pair")
    assert (compared["difference"].values >= 0).all()
    asked = _quiet(bn.pairs, CRUX, pair=("codellama-13b", "phind"))  # the order asked
    assert float(asked["difference"][0]) == pytest.approx(acc["codellama-13b"] - acc["phind"])
    q = bn.tidy(_quiet(bn.questions, CRUX))
    ranks = q["suspect_rank"].to_numpy(dtype=float)
    defined = ranks[~np.isnan(ranks)]
    assert defined.tolist() == list(range(1, defined.size + 1))
    assert np.isnan(ranks[defined.size :]).all()  # undefined tau last


# --- one pair, one sentence -----------------------------------------------------------


def test_one_pair_gets_one_sentence_in_checks_words(capsys):
    ds = bn.load(CRUX)
    a, b = (ds.sel(model=m) for m in ("phind", "codellama-13b"))
    d = (a["correct"] / a["samples"] - b["correct"] / b["samples"]).values
    ref = stats.ttest_rel(
        (a["correct"] / a["samples"]).values, (b["correct"] / b["samples"]).values
    )
    r = _quiet(bn.pairs, CRUX, pair=("phind", "codellama-13b"))
    text = r.attrs["verdict"]
    assert ref.pvalue < 0.05  # so the sentence may say "better"
    assert text.startswith(
        f"phind scores {d.mean():.3f} higher than codellama-13b: phind - codellama-13b = "
        f"{d.mean():.3f} ["
    )
    assert text.endswith(
        f"(95% interval), p = {ref.pvalue:.3f} (two-sided paired t): phind is better"
    )
    flipped = _quiet(bn.pairs, CRUX, pair=("codellama-13b", "phind")).attrs["verdict"]
    assert flipped.startswith(
        f"codellama-13b scores {d.mean():.3f} lower than phind: codellama-13b - phind = "
        f"{-d.mean():.3f} ["
    )
    assert flipped.endswith(": codellama-13b is worse")
    # a gap the test does not show is described, never called better or worse
    close = ("codellama-34b", "phind")
    x, y = (ds.sel(model=m) for m in close)
    p_close = stats.ttest_rel(
        (x["correct"] / x["samples"]).values, (y["correct"] / y["samples"]).values
    ).pvalue
    assert p_close > 0.05
    text_close = _quiet(bn.pairs, CRUX, pair=close).attrs["verdict"]
    assert text_close.endswith(": no difference shown at the 5% level")
    assert "better" not in text_close and "worse" not in text_close
    assert "difference_low" not in r  # no interval columns without confidence_level
    assert "verdict" not in _quiet(bn.pairs, CRUX).attrs  # all pairs: no sentence
    assert main(["compare", CRUX, "--by", "pair", "--pair", "phind", "codellama-13b"]) == 0
    err = capsys.readouterr().err
    assert "phind scores" in err and "higher than codellama-13b" in err
    assert "two-sided paired t): phind is better" in err
    same = np.zeros((2, 30, 1))
    same[:, :10] = 1
    text = _quiet(bn.pairs, same, pair=("model_0", "model_1")).attrs["verdict"]
    assert "no difference observed" in text and "better" not in text


# --- bayesnoise columns ------------------------------------------------------------------


def test_columns_fit_a_100_column_terminal_and_filter_by_command(capsys):
    assert main(["columns"]) == 0
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= 100
    assert {"noise:", "pairs:", "check:"} <= set(out.splitlines())
    assert main(["columns", "--command", "pairs", "--format", "csv"]) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out), keep_default_na=False)
    assert set(printed["command"]) == {"pairs"}
    assert "se_difference" in set(printed["column"]) and "se_mean" not in set(printed["column"])
    assert main(["columns", "--command", "nope"]) == 2
    assert bn.columns(command="pairs")["column"].values.tolist() == printed["column"].tolist()


@pytest.mark.parametrize(
    "command, run",
    [
        ("noise", lambda: bn.noise(CRUX, confidence_level=0.9)),
        ("pairs", lambda: bn.pairs(CRUX, confidence_level=0.9, one_sample_tests=True)),
        ("questions", lambda: bn.questions(CRUX)),
        ("compare", lambda: bn.compare(CRUX, by="pair")),
        ("check", VERBS["check"]),
        ("plan", VERBS["plan resample"]),
    ],
)
def test_each_command_prints_only_the_columns_listed_for_it(command, run):
    printed = {_base(c)[0].name for c in bn.tidy(_quiet(run)).columns}
    assert printed <= set(_COMMAND_COLUMNS[command]), printed - set(_COMMAND_COLUMNS[command])
