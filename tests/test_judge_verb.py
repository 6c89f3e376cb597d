"""bn.judge and `bayesnoise judge`: the numbers equal ppi_py's on the bundled example, the
command prints the verb's table, several judges, the random-labelling warnings, bad input."""

import io
import warnings
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest

import bayesnoise as bn
from bayesnoise.cli import main
from bayesnoise.data import DataError

ppi_py = pytest.importorskip("ppi_py")
EXAMPLE = "examples/data/judge_graded.csv"


def _table():
    df = pd.read_csv(EXAMPLE)
    return df.pivot(index="question", columns="model", values="judge_score"), df.pivot(
        index="question", columns="model", values="human"
    )


def test_model_rows_equal_ppi_py():
    judge, human = _table()
    r = bn.judge(EXAMPLE, confidence_level=0.9)
    for m in judge.columns:
        lab = human[m].notna().to_numpy()
        y, yhat, yu = human[m][lab].to_numpy(), judge[m][lab].to_numpy(), judge[m][~lab].to_numpy()
        low, high = ppi_py.ppi_mean_ci(y, yhat, yu, alpha=0.1, lam=None)
        point = ppi_py.ppi_mean_pointestimate(y, yhat, yu, lam=None)
        row = r.sel(model=m)
        assert abs(float(row["accuracy_ppi"]) - float(np.squeeze(point))) < 1e-8
        assert abs(float(row["accuracy_ppi_low"]) - float(np.squeeze(low))) < 1e-8
        assert abs(float(row["accuracy_ppi_high"]) - float(np.squeeze(high))) < 1e-8
        c_low, c_high = ppi_py.classical_mean_ci(y, alpha=0.1)
        assert abs(float(row["accuracy_human_low"]) - c_low) < 1e-8
        assert abs(float(row["accuracy_human_high"]) - c_high) < 1e-8
        assert abs(float(row["accuracy_judge"]) - judge[m].mean()) < 1e-12


def test_pair_rows_equal_ppi_py_on_differences():
    judge, human = _table()
    r = bn.judge(EXAMPLE, by="pair", alternative="greater")
    a, b = "model_a", "model_c"
    lab = (human[a].notna() & human[b].notna()).to_numpy()
    d, dhat = (human[a] - human[b]).to_numpy(), (judge[a] - judge[b]).to_numpy()
    row = r.sel(pair=f"{a} - {b}")
    lam = float(row["ppi_lambda"])
    p = ppi_py.ppi_mean_pval(d[lab], dhat[lab], dhat[~lab], null=0, alternative="larger", lam=lam)
    assert abs(float(row["p_value_ppi"]) - float(np.squeeze(p))) < 1e-8
    low, _ = ppi_py.ppi_mean_ci(
        d[lab], dhat[lab], dhat[~lab], alpha=0.05, lam=lam, alternative="larger"
    )
    assert abs(float(row["difference_ppi_low"]) - float(np.squeeze(low))) < 1e-8
    assert np.isinf(float(row["difference_ppi_high"]))


def test_cli_prints_the_verb_table(capsys):
    main(["judge", EXAMPLE, "--by", "pair", "--format", "csv"])
    out = capsys.readouterr()
    printed = pd.read_csv(io.StringIO(out.out))
    expected = bn.tidy(bn.judge(EXAMPLE, by="pair"))
    assert list(printed.columns) == list(expected.columns)
    assert np.allclose(printed["difference_ppi"], expected["difference_ppi"], atol=1e-9)
    assert "random sample" in out.err


def test_cli_options_are_verb_keywords():
    import inspect

    from bayesnoise.cli import build_parser
    from bayesnoise.cli._call import _subparser

    sub = _subparser(build_parser(), "judge")
    params = inspect.signature(bn.judge).parameters
    dests = {a.dest for a in sub._actions} - {"help", "file", "format", "output", "==SUPPRESS=="}
    dests -= {"all_rows", "all_columns"}  # how the text table is printed: command line only
    for dest in dests:
        assert dest in params or dest in bn.verbs.READ_OPTIONS, dest
        if dest in params and params[dest].default is not inspect.Parameter.empty:
            assert sub.get_default(dest) == params[dest].default or (
                dest == "judge_col" and sub.get_default(dest) is None
            ), dest


def test_several_judges_and_human_table(tmp_path):
    df = pd.read_csv(EXAMPLE)
    rng = np.random.default_rng(0)
    df["other"] = np.where(rng.random(len(df)) < 0.9, df["judge_score"], 1 - df["judge_score"])
    labels = df[df["human"].notna()][["model", "question", "human"]]
    path = tmp_path / "labels.csv"
    labels.to_csv(path, index=False)
    r = bn.judge(df.drop(columns="human"), judge_col=["judge_score", "other"], human=path)
    assert dict(r.sizes) == {"judge": 2, "model": 3}
    t = bn.tidy(r)
    assert len(t) == 6 and list(t.columns[:2]) == ["judge", "model"]
    one = bn.judge(EXAMPLE)
    assert np.allclose(r["accuracy_ppi"].sel(judge="judge_score"), one["accuracy_ppi"])


def test_bayes_needs_verdicts_and_warns_on_uneven_labels():
    df = pd.read_csv(EXAMPLE)
    graded = df.assign(judge_score=df["judge_score"] * 0.8 + 0.1)
    with pytest.raises(DataError, match="needs 0/1 verdicts"):
        bn.judge(graded, method="bayes")
    uneven = df.copy()
    drop = (uneven["model"] == "model_c") & uneven["human"].notna()
    uneven.loc[drop[drop].index[:80], "human"] = np.nan
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bn.judge(uneven)
    text = [str(w.message) for w in caught if "labelled share" in str(w.message)]
    assert len(text) == 1 and len(text[0]) <= 200


def test_bayes_model_rows():
    r = bn.judge(EXAMPLE, method="bayes")
    assert r.attrs["posterior"] == "exact mixture"
    low, high = r["accuracy_corrected_low"], r["accuracy_corrected_high"]
    assert bool(((low < r["accuracy_corrected"]) & (r["accuracy_corrected"] < high)).all())
    with redirect_stdout(io.StringIO()):
        p = bn.judge(EXAMPLE, method="bayes", by="pair", draws=500, tune=200, chains=2)
    assert set(np.unique(p["prob_a_better_corrected"] >= 0)) == {True}


def test_figure_draws_the_verb_intervals():
    fig = bn.plot.judge(EXAMPLE)
    r = bn.judge(EXAMPLE)
    ppi = next(c for c in fig.axes[0].containers if c.lines[0].get_gid() == "accuracy_ppi")
    x = ppi.lines[0].get_xdata()
    assert np.allclose(x, r["accuracy_ppi"].to_numpy())
    ends = np.array([seg[:, 0] for seg in ppi.lines[2][0].get_segments()])
    assert np.allclose(ends, np.c_[r["accuracy_ppi_low"], r["accuracy_ppi_high"]])


def test_report_section(tmp_path):
    out = bn.report(EXAMPLE, output=tmp_path / "judge.html", human_col="human")
    html = out.read_text()
    r = bn.judge(EXAMPLE)
    assert "random sample" in html and "data:image/png;base64," in html
    low = float(r["accuracy_ppi_low"].sel(model="model_c"))
    assert f"{low:.3f} –" in html  # the corrected interval as the verb computed it


def test_plan_human_cost_per_model():
    from bayesnoise.frequentist.ppi import human_labels_for_se

    r = bn.plan(EXAMPLE, target_se=0.03, human_cost=2.5)
    judge, human = _table()
    for m in judge.columns:
        lab = human[m].notna().to_numpy()
        want = human_labels_for_se(
            human[m][lab].to_numpy(), judge[m][lab].to_numpy(), judge[m][~lab].to_numpy(), 0.03
        )
        row = r.sel(model=m)
        assert int(row["human_labels_needed"]) == want["human_labels"]
        assert float(row["human_labels_cost"]) == 2.5 * want["human_labels"]
    with pytest.raises(DataError, match="human_cost must be"):
        bn.plan(EXAMPLE, target_se=0.03, human_cost=0)
