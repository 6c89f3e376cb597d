"""Messages in the caller's words (issue 37, item 8): an error names the option as the caller
writes it (``score_col=`` for a verb, ``columns=`` for ``load``, ``--score-col`` on the command
line) and the option it names works; a misspelled model gets a "did you mean" and a few names,
not the whole list; ``check``, ``plan`` and ``report`` read a judge-graded table as ``judge``
does; ``noise`` notes a deterministic model at K > 1."""

from __future__ import annotations

import contextlib
import io
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import BUNDLED

import bayesnoise as bn
from bayesnoise.cli import main
from bayesnoise.data import DataError, from_arrays

CRUX = BUNDLED / "cruxeval_output_temp0.8.csv.gz"
JUDGE = BUNDLED / "judge_graded.csv"


@pytest.fixture
def odd_layout(tmp_path):
    """A table whose columns have no recognised names."""
    path = tmp_path / "odd.csv"
    rows = [("a", "q1", 0.9), ("a", "q2", 0.2), ("b", "q1", 0.7), ("b", "q2", 0.6)]
    pd.DataFrame(rows, columns=["name", "item_id", "val"]).to_csv(path, index=False)
    return path


def _cli_error(argv) -> str:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(argv)
    assert status == 2
    return err.getvalue()


def test_a_verb_is_told_its_own_keywords_and_they_work(odd_layout):
    with pytest.raises(DataError) as info:
        bn.rate(odd_layout, threshold=0.5)
    text = str(info.value)
    assert "score_col=" in text and "model_col=" in text
    assert "columns={" not in text and "--score-col" not in text
    # following the advice runs
    out = bn.rate(
        odd_layout, threshold=0.5, model_col="name", question_col="item_id", score_col="val"
    )
    assert out.sizes["model"] == 2


def test_columns_given_to_a_verb_names_the_verbs_keywords(odd_layout):
    with pytest.raises(TypeError, match="score_col="):
        bn.rate(odd_layout, threshold=0.5, columns={"model": "name"})


def test_load_is_told_columns(odd_layout):
    with pytest.raises(DataError) as info:
        bn.load(odd_layout)
    assert "columns={'model'" in str(info.value) and "score_col=" not in str(info.value)
    assert bn.load(odd_layout, columns={"model": "name", "question": "item_id", "score": "val"})


def test_the_command_line_is_told_its_flags(odd_layout):
    text = _cli_error(["rate", str(odd_layout), "--threshold", "0.5", "--no-progress"])
    assert "--score-col" in text and "--model-col" in text
    assert "score_col=" not in text and "columns={" not in text


def test_two_score_columns_name_the_option_in_each_language(tmp_path):
    path = tmp_path / "two.csv"
    rows = [("a", "q1", 1, 0), ("a", "q2", 0, 1), ("b", "q1", 1, 1), ("b", "q2", 0, 0)]
    pd.DataFrame(rows, columns=["model", "example_id", "correct", "score"]).to_csv(
        path, index=False
    )
    with pytest.raises(DataError, match=r"score_col=\.\.\."):
        bn.noise(path, progress=False)
    with pytest.raises(DataError, match=r"columns=\{'score'"):
        bn.load(path)
    assert "--score-col NAME" in _cli_error(["noise", str(path), "--no-progress"])


def test_a_misspelled_model_gets_did_you_mean_and_a_few_names():
    with pytest.raises(DataError) as info:
        bn.noise(CRUX, models="codelama-13b", progress=False)
    text = str(info.value)
    assert "did you mean 'codellama-13b'" in text
    assert "more)" in text  # 8 models: a few shown, not all of them
    with pytest.raises(DataError, match="did you mean 'phind'"):
        bn.pairs(CRUX, pair=("phnid", "codellama-13b"), progress=False)
    text = _cli_error(["check", str(CRUX), "--baseline", "phind", "--candidate", "codelama-34b"])
    assert "did you mean 'codellama-34b'" in text


def test_many_models_are_not_all_listed():
    names = [f"model-{i:02d}" for i in range(59)]
    ds = from_arrays(np.ones((59, 3)), np.ones((59, 3)), models=names)
    with pytest.raises(DataError) as info:
        bn.data.select_models(ds, ["modle-07"])
    text = str(info.value)
    assert "did you mean 'model-07'" in text
    assert sum(n in text for n in names) <= 8, text  # a few, not 59: 3 close, 4-5 others


def test_check_plan_report_read_a_judge_table_as_judge_does(tmp_path):
    """The bundled judge-graded table (judge_score, human columns): judge reads it without
    options; so do check, plan and report (before: "cannot tell which columns hold the
    score")."""
    ref = bn.judge(JUDGE, progress=False)
    assert ref.sizes["model"] == 3
    gate = bn.check(JUDGE, baseline="model_a", candidate="model_b")
    named = bn.check(
        JUDGE, baseline="model_a", candidate="model_b", judge_col="judge_score", human_col="human"
    )
    for key in ("difference", "p_value"):
        if key in gate:
            np.testing.assert_allclose(gate[key].values, named[key].values)
    assert gate.attrs["verdict"] == named.attrs["verdict"]
    plan = bn.plan(JUDGE, target_se=0.03)
    assert "human_labels_needed" in plan
    named_plan = bn.plan(JUDGE, target_se=0.03, human_cost=1.0, human_col="human")
    np.testing.assert_array_equal(
        plan["human_labels_needed"].values, named_plan["human_labels_needed"].values
    )
    out = bn.report(JUDGE, output=tmp_path / "j.html", progress=False)
    assert "PPI++" in out.read_text()


def test_a_table_with_a_score_column_is_not_read_as_judge_graded(tmp_path):
    from bayesnoise.io.judge import judge_columns

    df = pd.read_csv(JUDGE).assign(correct=lambda d: d["judge_score"])
    assert judge_columns(df) is None
    assert judge_columns(pd.read_csv(JUDGE)) == ("judge_score", "human")
    assert judge_columns(JUDGE) == ("judge_score", "human")
    assert judge_columns(CRUX) is None


def test_noise_notes_a_deterministic_model():
    """K = 5: model 'det' answers each question all right or all wrong (se_prediction 0),
    'ok' does not; one line names 'det' alone."""
    c = np.array([[5, 0, 5, 0, 5] * 8, [3, 2, 4, 1, 5] * 8])
    ds = from_arrays(c, np.full(c.shape, 5), models=["det", "ok"])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        r = bn.noise(ds, progress=False)
    assert float(r["se_prediction"].sel(model="det")) == 0.0
    lines = [str(w.message) for w in rec if "deterministic" in str(w.message)]
    assert len(lines) == 1 and "(det)" in lines[0] and "ok" not in lines[0]
    assert len(lines[0]) <= 191 and "see docs/warnings.md#deterministic" in lines[0]
    # K = 1 is not "deterministic": there is nothing to repeat
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        bn.noise(from_arrays(c[:, :] // 5, np.ones(c.shape), models=["a", "b"]), progress=False)
    assert not [w for w in rec if "deterministic" in str(w.message)]


def test_model_roles_are_named_in_each_language():
    with pytest.raises(DataError) as info:
        bn.check(CRUX, baseline="phind")
    assert "candidate='MODEL'" in str(info.value) and "--candidate" not in str(info.value)
    text = _cli_error(["check", str(CRUX), "--baseline", "phind", "--no-progress"])
    assert "--candidate MODEL" in text and "candidate=" not in text
    with pytest.raises(DataError, match=r"by='pair'"):
        bn.compare(CRUX, pair=("phind", "codellama-13b"))
    text = _cli_error(["compare", str(CRUX), "--pair", "phind", "codellama-13b", "--no-progress"])
    assert "--by pair" in text and "by=" not in text


def _templates(tmp_path):
    """Two models x 6 questions x 2 prompt templates, 0/1 scores (seeded)."""
    rng = np.random.default_rng(37)
    rows = [
        (m, f"q{q}", t, int(rng.integers(0, 2)))
        for m in ("a", "b")
        for q in range(6)
        for t in ("t1", "t2")
    ]
    path = tmp_path / "templates.csv"
    pd.DataFrame(rows, columns=["model", "question", "template", "score"]).to_csv(path, index=False)
    return path


def _lm_eval_out(tmp_path):
    from log_fixtures import BENCH, bench_table, write_lm_eval

    write_lm_eval(tmp_path / "out", bench_table(), BENCH)
    return tmp_path / "out"


# (python call, command line, the keyword Python is told, the flag the command line is told)
ONE_LANGUAGE = {
    "plan target": (
        lambda tmp: bn.plan(CRUX, progress=False),
        lambda tmp: ["plan", str(CRUX), "--no-progress"],
        "difference=",
        "--difference",
    ),
    "plan cost": (
        lambda tmp: bn.plan(CRUX, target_se=0.02, cost_sample=0, progress=False),
        lambda tmp: ["plan", str(CRUX), "--target-se", "0.02", "--cost-sample", "0"],
        "cost_sample must",
        "--cost-sample must",
    ),
    "noises pair without by": (
        lambda tmp: bn.noises(_templates(tmp), factors=["template"], pair=("a", "b")),
        lambda tmp: ["noises", str(_templates(tmp)), "--factor", "template", "--pair", "a", "b"],
        "by='pair'",
        "--by pair",
    ),
    "monitor names": (
        lambda tmp: bn.monitor(CRUX, progress=False),
        lambda tmp: ["monitor", str(CRUX), "--no-progress"],
        "baseline=MODEL",
        "--baseline MODEL",
    ),
    "lm-eval metric": (
        lambda tmp: bn.noise(_lm_eval_out(tmp), metric="nope", progress=False),
        lambda tmp: ["noise", str(_lm_eval_out(tmp)), "--metric", "nope", "--no-progress"],
        "metric=NAME",
        "--metric NAME",
    ),
}


@pytest.mark.parametrize("case", list(ONE_LANGUAGE))
def test_an_error_names_options_in_one_language(case, tmp_path, capsys):
    call, argv, keyword, flag = ONE_LANGUAGE[case]
    (tmp_path / "py").mkdir()
    (tmp_path / "cli").mkdir()
    with pytest.raises(DataError) as info:
        call(tmp_path / "py")
    text = str(info.value)
    assert keyword in text and "--" not in text and "CLI" not in text, text
    assert main(argv(tmp_path / "cli")) == 2
    err = capsys.readouterr().err
    name = re.match(r"\w+", keyword).group()  # the Python keyword; CLI flags have no "_"
    assert flag in err and f"{name}=" not in err and "CLI" not in err, err
    assert "_" not in name or name not in err, err
