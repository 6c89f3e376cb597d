"""The lm-evaluation-harness ``--log_samples`` reader on output folders written from the
documented layout; and the acceptance test: one set of results written as a count table, as
Inspect logs and as lm-eval logs loads to identical datasets and identical noise tables."""

import json
import shutil
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from log_fixtures import (
    BENCH,
    BENCH_EPOCHS,
    BENCH_IDS,
    MODELS,
    bench_table,
    inspect_logs_once,
    lm_eval_line,
    run_date,
    write_count_table,
    write_lm_eval,
)

from bayesnoise.data import DataError
from bayesnoise.io.inspect_logs import read_inspect
from bayesnoise.io.lm_eval import is_lm_eval, lm_eval_samples, read_lm_eval

TABLE = bench_table()


def _expected(table):
    correct = np.array([[sum(v) for v in table[m].values()] for m in table], dtype=float)
    count = np.array([[len(v) for v in table[m].values()] for m in table])
    return correct, count


@pytest.fixture
def out(tmp_path):
    """An output folder: 3 models x 8 documents x 3 runs of task bench."""
    write_lm_eval(tmp_path / "out", TABLE, BENCH)
    return tmp_path / "out"


def test_output_folder(out):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # runs differ: no warning
        ds = read_lm_eval([out])
    correct, count = _expected(TABLE)
    np.testing.assert_array_equal(ds["correct"].values, correct)
    np.testing.assert_array_equal(ds["samples"].values, count)
    assert ds["model"].values.tolist() == MODELS
    assert ds["question"].values.tolist() == [str(q) for q in BENCH_IDS]
    assert ds.attrs["benchmark"] == BENCH and ds.attrs["runs"] == BENCH_EPOCHS
    assert "metric acc (the first of acc, acc_norm; choose with metric=)" in ds.attrs["notes"]
    assert "filter none" in ds.attrs["notes"]


def test_model_folder_and_single_files(out):
    folder = out / "mockllm__b"
    ds = read_lm_eval([folder])
    assert ds["model"].values.tolist() == ["mockllm/b"]
    correct, _ = _expected({"mockllm/b": TABLE["mockllm/b"]})
    np.testing.assert_array_equal(ds["correct"].values, correct)
    one = read_lm_eval([folder / f"samples_{BENCH}_{run_date(1)}.jsonl"])
    assert ds.attrs["runs"] == 3 and one.attrs["runs"] == 1
    expected = [[float(TABLE["mockllm/b"][q][1]) for q in BENCH_IDS]]
    assert one["correct"].values.tolist() == expected
    by_results = read_lm_eval([folder / f"results_{run_date(1)}.json"])
    xr.testing.assert_identical(by_results.drop_attrs(), one.drop_attrs())


def test_old_json_array_layout_and_lmms_flat_lists(tmp_path):
    write_lm_eval(tmp_path / "old", TABLE, BENCH, old=True)
    flat = lambda m, r, q, s: [lm_eval_line(q, s, flat=True)]  # noqa: E731
    write_lm_eval(tmp_path / "lmms", TABLE, BENCH, runs=1, lines=flat)
    write_lm_eval(tmp_path / "new", TABLE, BENCH, runs=1)
    old, lmms, new = (read_lm_eval([tmp_path / n]) for n in ("old", "lmms", "new"))
    assert (tmp_path / "old" / "mockllm__a" / "results.json").exists()
    for ds in (old, lmms):
        xr.testing.assert_equal(ds, new)


def test_several_tasks_need_benchmark(out):
    write_lm_eval(out, TABLE, "other", runs=1)
    with pytest.raises(
        DataError, match=r"holds 2 tasks \(bench, other\); choose one with benchmark="
    ):
        read_lm_eval([out])
    assert read_lm_eval([out], benchmark="other").attrs["benchmark"] == "other"


def _two_filters(m, r, q, s):
    return [lm_eval_line(q, s, filt="strict-match"), lm_eval_line(q, 1.0, filt="flexible-extract")]


def test_several_filters_need_filter(tmp_path):
    write_lm_eval(tmp_path, TABLE, BENCH, lines=_two_filters)
    with pytest.raises(
        DataError,
        match=r"\(task bench\): holds 2 filters \(strict-match, flexible-extract\); choose one with filter=",
    ):
        read_lm_eval([tmp_path])
    with pytest.raises(DataError, match=r"no filter 'none'; found strict-match, flexible-extract"):
        read_lm_eval([tmp_path], filter="none")
    strict = read_lm_eval([tmp_path], filter="strict-match")
    np.testing.assert_array_equal(strict["correct"].values, _expected(TABLE)[0])
    with pytest.warns(UserWarning, match="K > 1 adds nothing"):  # every run scores 1
        flexible = read_lm_eval([tmp_path], filter="flexible-extract")
    assert (flexible["correct"].values == BENCH_EPOCHS).all()


def test_metric_choice_and_non_scalar_metrics(tmp_path):
    lines = lambda m, r, q, s: [  # noqa: E731
        lm_eval_line(q, s, metrics={"acc": s, "acc_norm": 1 - s, "bleu": [["ref"], ["pred"]]})
    ]
    write_lm_eval(tmp_path, TABLE, BENCH, lines=lines)
    norm = read_lm_eval([tmp_path], metric="acc_norm")
    np.testing.assert_array_equal(norm["correct"].values, BENCH_EPOCHS - _expected(TABLE)[0])
    assert "metric acc_norm" in norm.attrs["notes"] and "first of" not in norm.attrs["notes"]
    with pytest.raises(
        DataError,
        match=r"line 1: bleu holds a list, not one number per document: a corpus-level metric",
    ):
        read_lm_eval([tmp_path], metric="bleu")
    with pytest.raises(
        DataError, match=r"line 1: no metric 'f1' on this record; it has acc, acc_norm, bleu"
    ):
        read_lm_eval([tmp_path], metric="f1")


def test_missing_and_out_of_range_values(tmp_path):
    def lines(m, r, q, s):
        value = None if (m, r, q) == ("mockllm/b", 1, 3) else s
        return [lm_eval_line(q, value)]

    write_lm_eval(tmp_path / "a", TABLE, BENCH, lines=lines)
    with pytest.raises(
        DataError,
        match=r"mockllm__b/samples_bench_.*\.jsonl, line 4: acc is missing or not finite \(None\); nothing is imputed",
    ):
        read_lm_eval([tmp_path / "a"])
    write_lm_eval(tmp_path / "b", TABLE, BENCH, lines=lambda m, r, q, s: [lm_eval_line(q, 3.0)])
    with pytest.raises(DataError, match=r"line 1: acc=3 is outside \[0, 1\]"):
        read_lm_eval([tmp_path / "b"])


def test_identical_runs_warn_once(tmp_path):
    greedy = {m: {q: [v[0]] * 3 for q, v in per_q.items()} for m, per_q in TABLE.items()}
    write_lm_eval(tmp_path, greedy, BENCH)
    with pytest.warns(
        UserWarning,
        match=r"the runs of 3 model\(s\) \(mockllm/a, mockllm/b, mockllm/c\) give the same score on every document .*K > 1 adds nothing",
    ) as caught:
        ds = read_lm_eval([tmp_path])
    assert len(caught) == 1
    assert ds.attrs["runs"] == 3 and "K > 1 adds nothing" in ds.attrs["notes"]


def test_doc_hash_mismatch_names_both_files(out):
    path = out / "mockllm__c" / f"samples_{BENCH}_{run_date(2)}.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    records[5]["doc_hash"] = "f" * 64
    path.write_text("\n".join(json.dumps(r) for r in records))
    with pytest.raises(DataError) as err:
        read_lm_eval([out])
    msg = str(err.value)
    assert "doc_id 5 of task 'bench' has doc_hash" in msg and "did not see the same question" in msg
    assert f"mockllm__a/samples_{BENCH}_{run_date(0)}.jsonl (line 6)" in msg
    assert f"{path} (line 6)" in msg


def test_document_twice_and_missing_results(out, tmp_path):
    folder = out / "mockllm__a"
    path = folder / f"samples_{BENCH}_{run_date(0)}.jsonl"
    path.write_text(path.read_text() + path.read_text().splitlines()[2] + "\n")
    with pytest.raises(
        DataError, match=r"line 9: doc_id 2 again \(first on line 3\) for filter 'none'"
    ):
        read_lm_eval([folder])
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(path, alone / path.name)
    with pytest.raises(DataError, match=r"no results_.*\.json beside it to name the model"):
        read_lm_eval([alone / path.name])


def test_same_run_twice(out, tmp_path):
    shutil.copytree(out / "mockllm__a", tmp_path / "copy")
    with pytest.raises(
        DataError, match=r"the same run \(2026-06-11T10-21-33.123456\) of model 'mockllm/a' twice"
    ):
        read_lm_eval([out, tmp_path / "copy"])


def test_paths_that_are_not_lm_eval(tmp_path, out):
    with pytest.raises(DataError, match="no such file"):
        read_lm_eval([tmp_path / "missing"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="no lm-eval output here"):
        read_lm_eval([tmp_path / "empty"])
    other = tmp_path / "table.csv"
    other.write_text("model,example_id,correct\n")
    with pytest.raises(DataError, match="not an lm-eval output file"):
        read_lm_eval([other])
    assert is_lm_eval(out) and is_lm_eval(out / "mockllm__a")
    assert is_lm_eval(out / "mockllm__a" / f"results_{run_date(0)}.json")
    assert not is_lm_eval(other) and not is_lm_eval(tmp_path / "empty")


def test_samples_table_keeps_file_and_line(out):
    df = lm_eval_samples([out])
    assert len(df) == len(MODELS) * len(BENCH_IDS) * BENCH_EPOCHS
    assert df["line"].min() == 1 and df["line"].max() == len(BENCH_IDS)
    assert set(df["sample"]) == set(range(BENCH_EPOCHS))


# --- acceptance: the same results in three formats -------------------------------------


@pytest.fixture(scope="session")
def three_sources(tmp_path_factory):
    """The bench table as a count CSV, as Inspect logs (written by inspect_ai) and as lm-eval
    output."""
    pytest.importorskip("inspect_ai")
    root = tmp_path_factory.mktemp("three")
    csv = root / f"{BENCH}.csv"
    write_count_table(csv, TABLE)
    logs = inspect_logs_once(tmp_path_factory)
    write_lm_eval(root / "lm_eval", TABLE, BENCH)
    return {"csv": csv, "inspect": logs["bench"], "lm_eval": root / "lm_eval"}


def _compared(ds):
    """The dataset without the attributes that say where it came from."""
    keep = {k: ds.attrs[k] for k in ("benchmark", "binary", "counts_known")}
    return ds.drop_attrs(deep=False).assign_attrs(keep)


def test_three_formats_give_identical_datasets_and_tables(three_sources):
    from bayesnoise.frequentist import model_noise, pair_noise
    from bayesnoise.io import load

    from_csv = load(three_sources["csv"])
    from_inspect = read_inspect([three_sources["inspect"]])
    from_lm_eval = read_lm_eval([three_sources["lm_eval"]])
    for ds in (from_inspect, from_lm_eval):
        xr.testing.assert_identical(_compared(ds), _compared(from_csv))
        with pytest.warns(UserWarning, match="only 8 questions"):
            tables = [(model_noise(d), pair_noise(d)) for d in (ds, from_csv)]
        pd.testing.assert_frame_equal(tables[0][0], tables[1][0])
        pd.testing.assert_frame_equal(tables[0][1], tables[1][1])


@pytest.mark.parametrize("source", ["csv", "inspect", "lm_eval"])
def test_bayesnoise_load_reads_each_source(three_sources, source):
    import bayesnoise

    ds = bayesnoise.load(three_sources[source])
    correct, count = _expected(TABLE)
    np.testing.assert_array_equal(ds["correct"].values, correct)
    np.testing.assert_array_equal(ds["samples"].values, count)
    assert ds.attrs["benchmark"] == BENCH


def test_log_datasets_round_trip_through_netcdf(three_sources, tmp_path):
    """The attributes the log readers add (notes, runs, logs) survive bayesnoise.save/load."""
    import bayesnoise

    for source in ("inspect", "lm_eval"):
        ds = bayesnoise.load(three_sources[source])
        path = bayesnoise.save(ds, tmp_path / f"{source}.nc")
        xr.testing.assert_identical(bayesnoise.load(path), ds)
