"""Degenerate inputs on the command line: all scores 1, all scores 0, one model.

Each command either gives a sensible table (exit 0) or one ``error:`` line naming the file and
the problem (exit 2); never a traceback.
"""

import io

import pandas as pd
import pytest

import bayesnoise as bn
from bayesnoise.cli import main

PAIR_COMMANDS = [
    ["ranks"],
    ["pairs"],
    ["power"],
    ["compare", "--by", "pair"],
    ["posterior", "--by", "pair"],
    ["arena"],
    ["passk", "--by", "pair", "--k", "1"],
]


def _write(tmp_path, name, models, score, questions=12, samples=3):
    """A long CSV (model, question, sample, score); ``score(model, question, sample)``."""
    rows = [
        (m, f"q{q}", s, score(m, q, s))
        for m in models
        for q in range(questions)
        for s in range(samples)
    ]
    path = tmp_path / name
    pd.DataFrame(rows, columns=["model", "question", "sample", "score"]).to_csv(path, index=False)
    return str(path)


def _run(capsys, *args):
    status = main([*args, "--format", "csv"])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return status, out


@pytest.fixture(params=[1, 0], ids=["all_ones", "all_zeros"])
def constant(request, tmp_path):
    value = request.param
    return value, _write(tmp_path, f"all_{value}.csv", ["a", "b", "c"], lambda m, q, s: value)


@pytest.fixture
def one_model(tmp_path):
    return _write(tmp_path, "one.csv", ["solo"], lambda m, q, s: (q + s) % 2)


@pytest.mark.parametrize("command", PAIR_COMMANDS, ids=" ".join)
def test_constant_scores_give_a_table(capsys, constant, command):
    value, path = constant
    status, out = _run(capsys, *command, path)
    assert status == 0, out.err
    df = pd.read_csv(io.StringIO(out.out))
    assert len(df) >= 1
    if "difference" in df.columns:  # every pair is tied
        assert (df["difference"] == 0).all()
    for column in ("accuracy", "accuracy_a", "pass_at_k_a"):
        if column in df.columns:
            assert (df[column] == value).all()


@pytest.mark.parametrize("method", ["hierarchical", "bootstrap", "bayes"])
def test_ranks_all_tied(capsys, constant, method):
    """Every model solves (or fails) every question: all tied, no traceback."""
    value, path = constant
    status, out = _run(capsys, "ranks", path, "--model", method, "--n-resamples", "500")
    assert status == 0, out.err
    df = pd.read_csv(io.StringIO(out.out))
    assert (df["accuracy"] == value).all()
    assert df["prob_best"].sum() == pytest.approx(1.0)
    assert df["in_top_group"].all() and (df["group"] == "a").all()
    if method != "bayes":  # no variance: exactly tied, with a warning saying why
        assert df["prob_best"].tolist() == pytest.approx([1 / 3] * 3)
        assert (df["expected_rank"] == 2).all()
        assert "each model has the same score on every question" in out.err
        assert "all models are tied" in out.err


def test_ranks_constant_but_different_models(capsys, tmp_path):
    """Each model constant over the questions, but the models differ: exact order."""
    path = _write(tmp_path, "split.csv", ["low", "high"], lambda m, q, s: int(m == "high"))
    status, out = _run(capsys, "ranks", path)
    assert status == 0, out.err
    df = pd.read_csv(io.StringIO(out.out))
    assert df["model"].tolist() == ["high", "low"]
    assert df["prob_best"].tolist() == [1.0, 0.0]
    assert "each model has the same score on every question" in out.err and "tied" not in out.err


@pytest.mark.parametrize("command", [c for c in PAIR_COMMANDS if c != ["arena"]], ids=" ".join)
def test_one_model_is_a_clear_error(capsys, one_model, command):
    status, out = _run(capsys, *command, one_model)
    assert status == 2
    lines = out.err.strip().splitlines()
    assert lines[-1].startswith("error: ") and "at least two models" in lines[-1]
    assert "one.csv" in lines[-1]


def test_posterior_pairs_one_model_names_file_and_model(capsys, one_model):
    status, out = _run(capsys, "posterior", "--by", "pair", one_model)
    assert status == 2
    assert (
        out.err.strip() == f"error: {one_model}: pairs need at least two models; it has one: solo"
    )


def test_ranks_one_model_names_the_command(capsys, one_model):
    status, out = _run(capsys, "ranks", one_model)
    assert status == 2
    assert (
        out.err.strip() == f"error: {one_model}: ranks need at least two models; it has one: solo"
    )


def test_arena_one_model_warns_and_leaves_gaps_empty(capsys, one_model):
    status, out = _run(capsys, "arena", one_model)
    assert status == 0
    df = pd.read_csv(io.StringIO(out.out))
    assert df["models"].tolist() == [1] and df[["p5_min", "p5_max"]].isna().all(axis=None)
    assert "has one model (solo)" in out.err and "no pairs" in out.err


def test_tied_models_keep_one_order_whatever_the_row_order():
    # Two models with equal accuracy (0.5 each on 4 questions, disagreeing on two): the pair's
    # direction, and so the sign of every difference, must not follow the file's row order.
    import warnings

    df = pd.DataFrame(
        {
            "model": ["b"] * 4 + ["a"] * 4,
            "question": ["q1", "q2", "q3", "q4"] * 2,
            "score": [1, 0, 1, 0, 0, 1, 1, 0],
        }
    )
    shuffled = df.sample(frac=1.0, random_state=3)  # b first in df, a first reversed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 4 questions: the small-N and K = 1 warnings
        outs = [bn.pairs(d) for d in (df, df.iloc[::-1], shuffled)]
    assert [list(o["pair"].values) for o in outs] == [["a - b"]] * 3
    for o in outs[1:]:
        assert float(o["difference"].values[0]) == float(outs[0]["difference"].values[0])
