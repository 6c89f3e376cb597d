"""compare on factor dims (issue 31): the frequentist crossed rows of noises and, with
``--method mcmc`` (issue 37: opt-in, the default runs no sampler), beside them the Bayesian
crossed model's columns (noises --method mcmc), from one fit per call.

Each fit (2 chains x 1000 draws after 1000 tuning steps, compare's defaults) of 3 models x 30
questions x 4 templates x 2 runs took 16-26 s at load 4 on 2 cores (nutpie compiles the model
each time; the sampling itself is 1-3 s), so the results are module-scope fixtures and each
test only reads them (the per-test guard of tests/conftest.py times the call, not the setup).
The per-model and per-pair tables of the same data share one fit (``fits``: the sampler's
output does not depend on ``by``), so the module runs two.
"""

from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import special

import bayesnoise as bn

pytestmark = pytest.mark.mcmc

MODEL_MCMC = ["accuracy_templates_mcmc", "accuracy_these_templates_mcmc"]
PAIR_MCMC = ["difference_templates_mcmc", "difference_these_templates_mcmc"]
# the frequentist column and SE each Bayesian posterior mean is held against
TWIN = {
    "accuracy_templates_mcmc": ("accuracy_templates", "se_templates"),
    "accuracy_these_templates_mcmc": ("accuracy_these_templates", "se_these_templates"),
    "difference_templates_mcmc": ("difference_templates", "se_templates"),
    "difference_these_templates_mcmc": ("difference_these_templates", "se_these_templates"),
}


def _frame(seed=3, n=30, t=4, k=2, shift=(("a", -0.3), ("b", 0.3), ("c", 0.9))):
    """0/1 scores of a crossed logit model: question (sd 1), template (0.3), question x
    template (0.3) and model x template (0.2) effects; a < b < c in accuracy."""
    rng = np.random.default_rng(seed)
    u, v = rng.normal(0, 1.0, (n, 1)), rng.normal(0, 0.3, (1, t))
    w = rng.normal(0, 0.3, (n, t))
    frames = []
    for model, s in shift:
        p = special.expit(s + u + v + w + rng.normal(0, 0.2, (1, t)))
        y = rng.random((n, t, k)) < p[:, :, None]
        q, tt, r = np.meshgrid(range(n), range(t), range(k), indexing="ij")
        frames.append(
            pd.DataFrame(
                {
                    "model": model,
                    "question": q.ravel(),
                    "template": [f"t{i}" for i in tt.ravel()],
                    "run": r.ravel(),
                    "score": y.ravel().astype(int),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        # 2000 draws of a tiny design: bulk ESS of a scale a little under 400 and a few
        # divergences give a ConvergenceWarning; the numbers checked here do not depend on it
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.fixture(scope="module", autouse=True)
def fits():
    """Every call of the sampler (its data), each design fitted once per module."""
    import bayesnoise.mcmc.crossed as crossed

    real, cache, calls = crossed.sample_crossed, {}, []

    def cached(correct, count, **kwargs):
        key = (correct.tobytes(), count.tobytes(), correct.shape, repr(sorted(kwargs.items())))
        calls.append(correct.shape)
        if key not in cache:
            cache[key] = real(correct, count, **kwargs)
        return cache[key]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(crossed, "sample_crossed", cached)
        yield calls


@pytest.fixture(scope="module")
def frame():
    return _frame()


@pytest.fixture(scope="module")
def cli_run(frame, tmp_path_factory):
    """``bayesnoise compare FILE --factor template --method mcmc`` (per model): the table as
    printed (CSV) and what went to standard error."""
    from bayesnoise.cli import main

    path = tmp_path_factory.mktemp("compare") / "templates.csv"
    frame.to_csv(path, index=False)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        args = ["compare", str(path), "--factor", "template", "--method", "mcmc"]
        status = _quiet(main, [*args, "--format", "csv", "--no-progress"])
    assert status in (0, None)
    return pd.read_csv(io.StringIO(out.getvalue())), err.getvalue()


@pytest.fixture(scope="module")
def cli_table(cli_run):
    return cli_run[0]


@pytest.fixture(scope="module")
def all_pairs(frame, fits):
    """Every pair, no interval columns; and the number of fits the call ran."""
    before = len(fits)
    r = _quiet(
        bn.compare,
        frame,
        factors=["template"],
        by="pair",
        method="mcmc",
        confidence_level=None,
        progress=False,
    )
    return r, len(fits) - before


@pytest.fixture(scope="module")
def a_minus_c(frame):
    """The one pair a - c as asked (c is the better model: B > A)."""
    return _quiet(
        bn.compare,
        frame,
        factors=["template"],
        by="pair",
        pair=("a", "c"),
        method="mcmc",
        progress=False,
    )


def _within_three_se(table, names):
    # Both columns estimate the same accuracy (difference) from the same cells. What parts
    # them is the Bayesian model (logit link, priors, partial pooling: shifts of a fraction of
    # an SE at N = 30) and the Monte Carlo error of the posterior mean (posterior sd /
    # sqrt(ESS), about SE / 14 at an ESS of 200); a gap of 3 frequentist SEs (measured here:
    # at most 0.45) is a wrong column, model or orientation, not noise.
    for name in names:
        est, se = TWIN[name]
        gap = np.abs(np.asarray(table[name], float) - np.asarray(table[est], float))
        assert (gap < 3 * np.asarray(table[se], float)).all(), (name, gap)


def test_cli_compare_with_a_factor_prints_the_mcmc_columns_beside_the_frequentist(cli_table):
    t = cli_table
    assert list(t["model"]) == ["c", "b", "a"]  # best first, as the frequentist rows
    cols = list(t.columns)
    for name in MODEL_MCMC:
        est = TWIN[name][0]
        assert cols.index(f"{est}_high") < cols.index(name)  # beside its frequentist twin
        assert cols[cols.index(name) : cols.index(name) + 3] == [
            name,
            f"{name}_low",
            f"{name}_high",
        ]
        values = t[[name, f"{name}_low", f"{name}_high"]].to_numpy(float)
        assert np.isfinite(values).all()
        assert (t[f"{name}_low"] < t[name]).all() and (t[name] < t[f"{name}_high"]).all()
    _within_three_se(t, MODEL_MCMC)


def test_every_pair_in_the_frequentist_orientation_without_intervals(all_pairs, frame):
    r, fitted = all_pairs
    assert fitted == 1  # one fit serves the three pairs
    assert not [v for v in r.data_vars if v.endswith(("_low", "_high"))]
    assert not [c for c in r.attrs["columns"] if c.endswith(("_low", "_high"))]
    pairs = list(zip(r["model_a"].values, r["model_b"].values, strict=True))
    assert pairs == [("c", "b"), ("c", "a"), ("b", "a")]
    table = bn.tidy(r)
    for name in PAIR_MCMC:
        assert np.isfinite(table[name]).all()
        assert (table[name] > 0).all() and (table[TWIN[name][0]] > 0).all()  # A better
    assert (table["prob_a_better_templates_mcmc"] > 0.5).all()
    _within_three_se(table, PAIR_MCMC)
    # the frequentist rows are those of noises --by pair (moved from test_factor_pairs.py)
    ref = bn.noises(frame, factors=["template"], by="pair")
    np.testing.assert_allclose(r["se_templates"].values, ref["se_templates"].values)
    for key in ("r_hat_max", "ess_bulk_min", "divergences", "converged"):
        assert key in r.attrs
    assert r.attrs["r_hat_max"] < 1.1 and r.attrs["divergences"] >= 0
    assert "noises --factor template --method mcmc" in r.attrs["estimand"]
    assert "note" not in r.attrs  # the old "frequentist crossed estimator only"


def test_the_pair_asked_keeps_its_order_when_b_is_better(a_minus_c):
    r = a_minus_c
    assert (str(r["model_a"].values[0]), str(r["model_b"].values[0])) == ("a", "c")
    row = bn.tidy(r).iloc[0]
    # noises sorts its dataset best first and fits c - a: the columns are turned round
    for name in PAIR_MCMC:
        assert row[TWIN[name][0]] < 0 and row[name] < 0
        assert row[f"{name}_low"] < row[name] < row[f"{name}_high"]
        assert row[f"{name}_high"] < 0  # a is clearly worse (gap ~0.3, SE ~0.04)
    assert row["prob_a_better_templates_mcmc"] < 0.05
    _within_three_se(bn.tidy(r), PAIR_MCMC)
    assert r.attrs["verdict"].startswith("a scores")  # the frequentist verdict stays


def test_graded_scores_give_the_frequentist_rows_and_a_note(frame, monkeypatch):
    import bayesnoise.mcmc.crossed as crossed

    def no_fit(*args, **kwargs):
        raise AssertionError("no MCMC on graded scores")

    monkeypatch.setattr(crossed, "sample_crossed", no_fit)
    graded = frame.assign(score=frame["score"] * np.where(frame["run"] == 0, 1.0, 0.5))
    for by in ("model", "pair"):
        r = bn.compare(graded, factors=["template"], by=by, method="mcmc", progress=False)
        assert not [v for v in r.data_vars if v.endswith("_mcmc") or "_mcmc_" in v]
        assert "accuracy_templates" in r or "difference_templates" in r
        note = r.attrs["note"]
        assert "0/1" in note and "\n" not in note


def test_cli_no_progress_writes_only_warnings_and_names_its_own_options(cli_run):
    """Under --no-progress nothing but warnings on standard error (PyMC's ``NUTS[nutpie]: [...]``
    line went there before); a convergence warning names compare's own flags."""
    err = [x for x in cli_run[1].splitlines() if x.strip()]
    assert all(x.startswith("warning: ") for x in err), err
    for line in err:
        if "MCMC diagnostics" in line:
            assert "--draws" in line and "draws/tune" not in line, line


def test_default_runs_no_sampler_and_says_how_to_add_the_twin(frame, monkeypatch):
    import bayesnoise.mcmc.crossed as crossed

    def no_fit(*args, **kwargs):
        raise AssertionError("compare without method='mcmc' runs no MCMC")

    monkeypatch.setattr(crossed, "sample_crossed", no_fit)
    for by in ("model", "pair"):
        r = bn.compare(frame, factors=["template"], by=by, progress=False)
        assert not [v for v in r.data_vars if "_mcmc" in v]
        assert "method='mcmc'" in r.attrs["note"]
        assert "accuracy_templates" in r or "difference_templates" in r


def test_mcmc_options_need_method_mcmc(frame):
    from bayesnoise.data import DataError

    with pytest.raises(DataError, match=r"draws=.*method=.mcmc."):
        bn.compare(frame, factors=["template"], draws=200, progress=False)
    with pytest.raises(DataError, match="crossed model of factor data"):
        bn.compare("examples/data/cruxeval_output_temp0.8.csv.gz", method="mcmc")


def test_the_sampler_gets_compares_draws_tune_chains(frame, monkeypatch):
    import bayesnoise.mcmc.crossed as crossed

    seen = {}

    def record(correct, count, **kwargs):
        seen.update(kwargs)
        raise RuntimeError("stop")

    monkeypatch.setattr(crossed, "sample_crossed", record)
    with pytest.raises(RuntimeError, match="stop"):
        bn.compare(
            frame,
            factors=["template"],
            method="mcmc",
            draws=300,
            tune=200,
            chains=3,
            progress=False,
        )
    assert (seen["draws"], seen["tune"], seen["chains"]) == (300, 200, 3)
    assert "draws= (now 300)" in seen["advice"]
