"""Tables read in many small batches: same cells as a whole-table reference, the same strict
checks across batch and file boundaries, and the progress display.

Batches are made tiny (a few rows or a few hundred bytes) so that every boundary case of the
streaming reader occurs on small files; speed and memory are in benchmarks/bench_load.py.
"""

import gzip
import re

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import bayesnoise as bn
import bayesnoise.io.csvfile as csvfile
import bayesnoise.io.sources as sources
import bayesnoise.io.stream as stream
from bayesnoise.data import DataError, from_arrays


@pytest.fixture
def tiny_batches(monkeypatch):
    monkeypatch.setattr(sources, "BATCH_ROWS", 7)
    monkeypatch.setattr(csvfile, "BLOCK_BYTES", 256)


def _ragged(seed, fractional=False):
    """Per-sample rows of 5 models x 30 questions with 1-6 samples per cell, shuffled."""
    rng = np.random.default_rng(seed)
    rows = []
    for m in range(5):
        for q in range(30):
            for s in range(rng.integers(1, 7)):
                score = rng.random() if fractional else float(rng.random() < 0.6)
                rows.append((f"m{m}", f"q{q}", s, score))
    df = pd.DataFrame(rows, columns=["model", "example_id", "sample", "correct"])
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _reference(df):
    """Cells computed independently by a pandas group-by, in order of first appearance."""
    models = list(pd.unique(df["model"]))
    questions = list(pd.unique(df["example_id"]))
    g = df.assign(sq=df["correct"] ** 2).groupby(["model", "example_id"])
    agg = g.agg(c=("correct", "sum"), k=("correct", "size"), sq=("sq", "sum"))
    full = agg.reindex(pd.MultiIndex.from_product([models, questions]), fill_value=0)
    shape = (len(models), len(questions))
    return from_arrays(
        full["c"].to_numpy().reshape(shape),
        full["k"].to_numpy().reshape(shape),
        sum_sq=full["sq"].to_numpy().reshape(shape),
        models=models,
        questions=questions,
    )


def _cells_equal(ds, ref, exact=True):
    for var in ("correct", "samples", "sum_sq"):
        if exact:
            xr.testing.assert_equal(ds[var], ref[var])
        else:  # sums of up to 6 doubles in another order: a few ulps of values <= 6
            np.testing.assert_allclose(ds[var], ref[var], rtol=0, atol=1e-12)
            assert ds[var].dims == ref[var].dims


@pytest.mark.parametrize("fmt", ["csv", "csv.gz", "tsv", "parquet", "jsonl", "frame"])
@pytest.mark.parametrize("fractional", [False, True])
def test_small_batches_give_the_reference_cells(tmp_path, tiny_batches, fmt, fractional):
    df = _ragged(11 + fractional, fractional)
    path = tmp_path / f"t.{fmt}"
    if fmt == "csv":
        df.to_csv(path, index=False)
    elif fmt == "csv.gz":
        df.to_csv(path, index=False, compression="gzip")
    elif fmt == "tsv":
        df.to_csv(path, index=False, sep="\t")
    elif fmt == "parquet":
        df.to_parquet(path)
    elif fmt == "jsonl":
        df.to_json(path, orient="records", lines=True, double_precision=15)
    ds = bn.load(df if fmt == "frame" else path)
    _cells_equal(ds, _reference(df), exact=not fractional)
    assert ds.attrs["binary"] is not fractional


def _csv(tmp_path, df, name="t.csv"):
    path = tmp_path / name
    df.to_csv(path, index=False)
    return path


def test_duplicate_in_a_later_batch_names_both_lines(tmp_path, tiny_batches):
    df = _ragged(3)
    df = pd.concat([df, df.iloc[[2]]], ignore_index=True)  # row 2 again at the end
    path = _csv(tmp_path, df)
    row = df.iloc[2]
    first = f"{path}, line 4 (model='{row.model}', example_id='{row.example_id}', sample='{row['sample']}')"
    with pytest.raises(
        DataError,
        match=re.escape(
            f"{first}: duplicate (model, example_id, sample) row, again at {path}, "
            f"line {len(df) + 1}"
        ),
    ):
        bn.load(path)


def test_duplicates_found_when_the_bitmap_would_be_too_large(tmp_path, monkeypatch):
    monkeypatch.setattr(stream, "_BITMAP_LIMIT", 1)  # sort the keys at the end instead
    df = _ragged(4)
    _cells_equal(bn.load(df), _reference(df))
    df = pd.concat([df, df.iloc[[5]]], ignore_index=True)
    with pytest.raises(DataError, match=r"DataFrame, row 5 .*duplicate .* again at DataFrame, row"):
        bn.load(df)


def test_bad_value_in_a_later_batch_names_its_line(tmp_path, tiny_batches):
    df = _ragged(5)
    df["correct"] = df["correct"].astype(object)
    df.loc[100, "correct"] = 1.5
    with pytest.raises(DataError, match=r"t.csv, line 102 \(.*\): correct=1.5 is outside \[0, 1\]"):
        bn.load(_csv(tmp_path, df))
    df.loc[100, "correct"] = None
    with pytest.raises(DataError, match=r"t.csv, line 102 \(.*\): correct=.* is missing"):
        bn.load(_csv(tmp_path, df))


def test_text_scores_after_the_first_block_are_read(tmp_path, tiny_batches):
    df = _ragged(6)
    text = df.copy()
    text["correct"] = text["correct"].astype(int).astype(str)
    text.loc[len(text) - 3 :, "correct"] = text.loc[len(text) - 3 :, "correct"].map(
        {"1": "C", "0": "I"}
    )
    _cells_equal(bn.load(_csv(tmp_path, text)), _reference(df))


def test_second_benchmark_in_a_later_batch_lists_all(tmp_path, tiny_batches):
    df = _ragged(7).assign(benchmark_id="x")
    df.loc[60:, "benchmark_id"] = "y"
    df.loc[120:, "benchmark_id"] = "z"
    path = _csv(tmp_path, df)
    with pytest.raises(DataError, match=r"holds 3 benchmarks \(x, y, z\); choose one"):
        bn.load(path)
    ds = bn.load(path, benchmark="y")
    _cells_equal(ds, _reference(df[df["benchmark_id"] == "y"].drop(columns="benchmark_id")))
    with pytest.raises(DataError, match=r"no benchmark 'w'; it holds x, y, z"):
        bn.load(path, benchmark="w")


def test_header_only_and_garbled_gzip(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("model,example_id,correct\n")
    with pytest.raises(DataError, match=r"h.csv: no rows"):
        bn.load(path)
    bad = tmp_path / "b.csv.gz"
    bad.write_bytes(b"model,example_id,correct\na,q1,1\n")
    with pytest.raises(
        DataError, match=r"b.csv.gz: cannot read as gzip .* is it really compressed"
    ):
        bn.load(bad)
    cut = tmp_path / "cut.csv.gz"
    cut.write_bytes(gzip.compress(b"model,example_id,correct\n" + b"a,q1,1\n" * 5000)[:-40])
    with pytest.raises(DataError, match=r"cut.csv.gz: the gzip stream is damaged or cut short"):
        bn.load(cut)
    # cut after the first 64 kB: found by the streaming reader
    rows = b"".join(b"a,q%d,1\n" % i for i in range(40000))
    cut.write_bytes(gzip.compress(b"model,example_id,correct\n" + rows)[:-40])
    with pytest.raises(DataError, match=r"cut.csv.gz: cannot read as csv"):
        bn.load(cut)


def test_ragged_csv_row_is_reported(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("model,example_id,correct\na,q1,1\na,q2\n")
    with pytest.raises(DataError, match=r"r.csv: cannot read as csv after 0 rows: .*Expected 3"):
        bn.load(path)


def test_progress_display_on_stderr(tmp_path, tiny_batches, monkeypatch, capsys):
    monkeypatch.setattr(stream, "DELAY", 0.0)
    path = _csv(tmp_path, _ragged(8))
    bn.load(path, progress=True)
    err = capsys.readouterr().err
    assert f"reading {path}: " in err and "rows, done (" in err
    bn.load(path, progress=False)
    bn.load(path)  # auto: standard error is not a terminal under pytest
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("name", ["t.csv", "t.tsv", "t.csv.gz"])
def test_without_pyarrow_pandas_reads_the_same_batches(tmp_path, monkeypatch, name):
    monkeypatch.setattr(csvfile, "_has_pyarrow", lambda: False)
    monkeypatch.setattr(sources, "BATCH_ROWS", 7)
    df = _ragged(9)
    path = tmp_path / name
    df.to_csv(path, index=False, sep="\t" if ".tsv" in name else ",")
    _cells_equal(bn.load(path), _reference(df))
    bad = df.assign(correct=df["correct"].astype(object))
    bad.loc[50, "correct"] = "x"
    bad.to_csv(path, index=False, sep="\t" if ".tsv" in name else ",")
    with pytest.raises(DataError, match=r", line 52 \(.*\): correct='x' is missing or not a"):
        bn.load(path)
