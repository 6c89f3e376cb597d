"""threshold= on graded scores with K > 1 samples per question: every reader thresholds each
sample's score before the samples of a (model, question) cell are summed (issue 30).

Oracles: pandas group-by on the raw rows thresholded in the test (``score >= T`` or
``score <= T``, T inclusive), and for Inspect logs inspect_ai's own reader and value_to_float;
the sweep against ``bn.rate`` on 0/1 copies of the file written by hand.
"""

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import bayesnoise as bn
from bayesnoise.data import DataError

MODELS, QUESTIONS, K = ["a", "b", "c"], 10, 3
T = 0.55  # ties: some scores are exactly 0.55


def _graded(seed=20261127, factor=False) -> pd.DataFrame:
    """K = 3 graded samples per (model, question) on a 0.05 grid (ties at T, cells that
    straddle T), question labels q00.."""
    rng = np.random.default_rng(seed)
    levels = ["plain", "cot"] if factor else [None]
    rows = []
    for m, skill in zip(MODELS, (0.7, 0.5, 0.35), strict=True):
        for q in range(QUESTIONS):
            for lev in levels:
                for s in range(K):
                    score = np.clip(rng.normal(skill, 0.25), 0, 1)
                    rows.append((m, f"q{q:02d}", s, round(round(score / 0.05) * 0.05, 2), lev))
    df = pd.DataFrame(rows, columns=["model", "example_id", "sample", "correct", "template"])
    df.loc[[0, 4, 40], "correct"] = T  # exact ties
    return df if factor else df.drop(columns="template")


def _oracle(df, t, success, keys=("model", "example_id")):
    """(successes, samples) per cell: pandas on the thresholded raw rows."""
    hit = df["correct"] >= t if success == "above" else df["correct"] <= t
    g = df.assign(hit=hit.astype(float)).groupby(list(keys))["hit"]
    return g.sum(), g.size()


def _check(ds, df, t, success):
    wins, sizes = _oracle(df, t, success)
    got_c = ds["correct"].to_series().reindex(wins.index.rename(["model", "question"]))
    got_k = ds["samples"].to_series().reindex(sizes.index.rename(["model", "question"]))
    np.testing.assert_array_equal(got_c.to_numpy(), wins.to_numpy())
    np.testing.assert_array_equal(got_k.to_numpy(), sizes.to_numpy())
    assert int(ds["samples"].sum()) == len(df)  # no cell beyond the file's
    assert ds.attrs["binary"] and ds.attrs["threshold"] == t and ds.attrs["success"] == success


def test_the_fixture_has_ties_and_straddling_cells():
    df = _graded()
    assert (df["correct"] == T).sum() >= 3
    by_cell = df.groupby(["model", "example_id"])["correct"]
    assert ((by_cell.min() < T) & (by_cell.max() > T)).sum() >= 5  # samples on both sides
    assert (by_cell.nunique() > 1).all() or (by_cell.nunique() > 1).sum() >= 20


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet", "frame"])
@pytest.mark.parametrize("success", ["above", "below"])
def test_tables_threshold_each_sample(tmp_path, fmt, success):
    df = _graded()
    if fmt == "frame":
        source = df
    else:
        source = tmp_path / f"graded.{fmt}"
        if fmt == "csv":
            df.to_csv(source, index=False)
        elif fmt == "jsonl":
            df.to_json(source, orient="records", lines=True)
        else:
            df.to_parquet(source)
    _check(bn.load(source, threshold=T, success=success), df, T, success)


def test_factor_columns_threshold_each_sample(tmp_path):
    df = _graded(factor=True)
    path = tmp_path / "factors.csv"
    df.to_csv(path, index=False)
    ds = bn.load(path, threshold=T, factors=["template"])
    wins, sizes = _oracle(df, T, "above", keys=("model", "example_id", "template"))
    got = ds["correct"].to_series().reindex(wins.index.rename(["model", "question", "template"]))
    np.testing.assert_array_equal(got.to_numpy(), wins.to_numpy())
    assert int(ds["samples"].sum()) == sizes.sum() == len(df)


def test_no_threshold_keeps_the_graded_sums(tmp_path):
    df = _graded()
    path = tmp_path / "graded.csv"
    df.to_csv(path, index=False)
    ds = bn.load(path)
    sums = df.groupby(["model", "example_id"])["correct"].sum()
    got = ds["correct"].to_series().reindex(sums.index.rename(["model", "question"]))
    np.testing.assert_allclose(got.to_numpy(), sums.to_numpy(), rtol=0, atol=1e-12)
    assert not ds.attrs["binary"] and "threshold" not in ds.attrs


def test_verbs_read_with_the_threshold(tmp_path):
    """rate on the graded file equals rate on a 0/1 copy thresholded by hand (was refused)."""
    df = _graded()
    path, hand = tmp_path / "graded.csv", tmp_path / "hand.csv"
    df.to_csv(path, index=False)
    df.assign(correct=(df["correct"] >= T).astype(int)).to_csv(hand, index=False)
    got = bn.tidy(bn.rate(path, threshold=T)).set_index("model")
    want = bn.tidy(bn.rate(hand)).set_index("model")
    cols = ["successes", "trials", "rate", "rate_low", "rate_high"]
    pd.testing.assert_frame_equal(got[cols], want.loc[got.index, cols], rtol=1e-12)


def test_threshold_outside_the_range_of_the_rows(tmp_path):
    df = _graded()
    path = tmp_path / "graded.csv"
    df.to_csv(path, index=False)
    with pytest.raises(DataError, match="outside the scores' range"):
        bn.load(path, threshold=float(df["correct"].max()) + 0.01)


def test_sums_without_samples_are_still_refused(tmp_path):
    """A NetCDF file keeps one sum per cell: its K > 1 graded cells cannot be thresholded."""
    path = tmp_path / "graded.csv"
    _graded().to_csv(path, index=False)
    nc = tmp_path / "graded.nc"
    bn.save(bn.load(path), nc)
    with pytest.raises(DataError, match=r"graded samples were summed.*threshold=T"):
        bn.rate(nc, threshold=T)


def test_count_tables_keep_the_per_cell_rule(tmp_path):
    """A count table of graded sums (sum_sq) is refused; one of 0/1 counts is thresholded
    per cell (with success=below and T in [0, 1), the 0s are the successes)."""
    df = _graded()
    g = df.groupby(["model", "example_id"])["correct"]
    sum_sq = (df["correct"] ** 2).groupby([df["model"], df["example_id"]]).sum()
    counts = pd.DataFrame({"count": g.size(), "correct": g.sum(), "sum_sq": sum_sq})
    counts.reset_index().to_csv(tmp_path / "graded_counts.csv", index=False)
    with pytest.raises(DataError, match="graded samples were summed before the threshold"):
        bn.load(tmp_path / "graded_counts.csv", threshold=T)
    hits = (df["correct"] >= T).groupby([df["model"], df["example_id"]]).sum()
    binary = pd.DataFrame({"count": g.size(), "correct": hits}).reset_index()
    binary.to_csv(tmp_path / "binary_counts.csv", index=False)
    ds = bn.load(tmp_path / "binary_counts.csv", threshold=0.5, success="below")
    got = ds["correct"].to_series().reindex(hits.index.rename(["model", "question"]))
    np.testing.assert_array_equal(got.to_numpy(), (g.size() - hits).to_numpy())


def test_sweep_equals_rate_on_hand_thresholded_copies(tmp_path):
    df = _graded()
    path = tmp_path / "graded.csv"
    df.to_csv(path, index=False)
    grid = [0.3, 0.45, T, 0.7]
    sweep = bn.threshold(path, grid=",".join(map(str, grid)), success="below")
    assert sweep["threshold"].values.tolist() == grid
    cols = ["successes", "trials", "rate", "rate_low", "rate_high"]
    for t in grid:
        hand = tmp_path / f"hand_{t}.csv"
        df.assign(correct=(df["correct"] <= t).astype(int)).to_csv(hand, index=False)
        want = bn.tidy(bn.rate(hand)).set_index("model")[cols]
        got = sweep.sel(threshold=t).to_dataframe()[cols]
        pd.testing.assert_frame_equal(got, want.loc[got.index], rtol=1e-12, check_dtype=False)


# -- logs ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def inspect_logs(tmp_path_factory):
    pytest.importorskip("inspect_ai")
    from log_fixtures import inspect_logs_once

    return inspect_logs_once(tmp_path_factory)


def test_inspect_graded_epochs_threshold_each_epoch(inspect_logs):
    """The judge scorer's "length" (0, 0.25, ..., 1 per epoch, differing within questions):
    each epoch thresholded at 0.5 (ties) equals inspect_ai's own scores thresholded."""
    from inspect_ai.log import read_eval_log
    from inspect_ai.scorer import value_to_float

    to_float = value_to_float()
    rows = []
    for path in sorted(inspect_logs["mixed"].iterdir()):
        log = read_eval_log(str(path))
        for s in log.samples:
            if s.error or "judge" not in (s.scores or {}):
                continue
            value = to_float(s.scores["judge"].value["length"])
            if not math.isnan(value):
                rows.append((log.eval.model, str(s.id), value))
    df = pd.DataFrame(rows, columns=["model", "example_id", "correct"])
    assert (df.groupby(["model", "example_id"])["correct"].nunique() > 1).any()
    assert (df["correct"] == 0.5).any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the one errored sample: use-scored warns
        opts = {"scorer": "judge", "score_key": "length", "incomplete": "use-scored"}
        ds = bn.load(inspect_logs["mixed"], threshold=0.5, **opts)
        with pytest.raises(DataError, match="graded samples were summed"):
            bn.rate(bn.load(inspect_logs["mixed"], **opts), threshold=0.5)
    _check(ds, df, 0.5, "above")


def test_lm_eval_graded_runs_threshold_each_run(tmp_path):
    from log_fixtures import write_lm_eval

    df = _graded()
    table = {
        f"org/{m}": {q: g.sort_values("sample")["correct"].tolist() for q, g in part.groupby("q")}
        for m, part in df.assign(q=df["example_id"].str[1:].astype(int)).groupby("model")
    }
    write_lm_eval(tmp_path, table, "quiz")
    ds = bn.load(tmp_path, threshold=T, metric="acc")
    expect = df.assign(model="org/" + df["model"], example_id=df["example_id"].str[1:].astype(int))
    expect["example_id"] = expect["example_id"].astype(str)
    _check(ds, expect, T, "above")


def test_lighteval_and_helm_graded_samples(tmp_path):
    df = _graded()
    dates = [f"2025-06-1{s}T15-07-12.143436" for s in range(K)]
    light, helm = tmp_path / "light", tmp_path / "helm"
    for (m, s), part in df.groupby(["model", "sample"]):
        folder = light / "details" / f"org/{m}" / dates[s]
        folder.mkdir(parents=True)
        pd.DataFrame(
            {
                "doc": [{"id": q, "query": q} for q in part["example_id"]],
                "metric": [{"acc": v} for v in part["correct"]],
            }
        ).to_parquet(folder / f"details_lighteval|quiz|0_{dates[s]}.parquet")
    for m, part in df.groupby("model"):
        run = helm / f"quiz:model=org_{m}"
        run.mkdir(parents=True)
        (run / "run_spec.json").write_text(
            json.dumps({"name": run.name, "adapter_spec": {"model": f"org/{m}"}})
        )
        stats = [
            {
                "instance_id": q,
                "train_trial_index": int(s),
                "stats": [{"name": {"name": "exact_match", "split": "test"}, "mean": v}],
            }
            for q, s, v in zip(part["example_id"], part["sample"], part["correct"], strict=True)
        ]
        (run / "per_instance_stats.json").write_text(json.dumps(stats))
    expect = df.assign(model="org/" + df["model"])
    _check(bn.load(light, threshold=T), expect, T, "above")
    _check(bn.load(helm, threshold=T, success="below"), expect, T, "below")
