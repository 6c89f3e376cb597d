"""Loading: every layout, and a clear error for every kind of bad input."""

import gzip
import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import bayesnoise as bn
import bayesnoise.frequentist
from bayesnoise.data import DataError, from_arrays


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


COUNTS = "model,example_id,count,correct\na,q1,4,3\na,q2,4,1\nb,q1,4,4\nb,q2,4,0\n"


def test_count_table(tmp_path):
    ds = bn.load(_write(tmp_path, "t.csv", COUNTS))
    assert ds.sizes == {"model": 2, "question": 2}
    assert ds["correct"].sel(model="a", question="q1") == 3
    assert ds["samples"].dtype == np.int64 and int(ds["samples"].sum()) == 16
    assert ds.attrs["binary"] and ds.attrs["counts_known"] and ds.attrs["benchmark"] == "t"


def test_count_table_with_pass1_only(tmp_path):
    ds = bn.load(
        _write(tmp_path, "t.csv", "model,example_id,count,pass1\na,q1,3,0.3333333333\na,q2,3,1.0\n")
    )
    assert ds["correct"].values.tolist() == [[1.0, 3.0]]


def test_samples_long_table_ragged(tmp_path):
    rows = (
        ["model,example_id,sample,correct"] + [f"a,q1,{j},{j % 2}" for j in range(3)] + ["a,q2,0,1"]
    )
    ds = bn.load(_write(tmp_path, "s.csv", "\n".join(rows) + "\n"))
    assert ds["samples"].values.tolist() == [[3, 1]] and ds["correct"].values.tolist() == [
        [1.0, 1.0]
    ]


def test_fractional_sample_scores_keep_within_variance(tmp_path):
    rows = "model,example_id,sample,correct\na,q1,0,0.5\na,q1,1,1.0\n"
    ds = bn.load(_write(tmp_path, "s.csv", rows))
    assert not ds.attrs["binary"] and ds["sum_sq"].item() == pytest.approx(1.25)


def test_eval_arena_jsonl_fractional_is_flagged(tmp_path):
    lines = [{"benchmark_id": "b", "model": m, "example_id": f"q{i}", "pass1": v}
             for m, vals in (("a", [1, 0.3]), ("c", [0, 1])) for i, v in enumerate(vals)]  # fmt: skip
    path = _write(tmp_path, "e.jsonl", "\n".join(json.dumps(x) for x in lines))
    ds = bn.load(path)
    assert ds.attrs["counts_known"] is False and ds.attrs["benchmark"] == "b"
    with pytest.warns(UserWarning, match=r"\(pass1 without sample counts\).*pass samples_"):
        out = bn.frequentist.model_noise(ds)
    assert out["se_data"].isna().all() and out["se_total"].notna().all()


def test_parquet_gzip_and_dataframe(tmp_path):
    df = pd.read_csv(_write(tmp_path, "t.csv", COUNTS))
    df.to_parquet(tmp_path / "t.parquet")
    with gzip.open(tmp_path / "t.csv.gz", "wt") as fh:
        fh.write(COUNTS)
    ref = bn.load(df)
    for other in (bn.load(tmp_path / "t.parquet"), bn.load(tmp_path / "t.csv.gz")):
        np.testing.assert_array_equal(other["correct"], ref["correct"])
    assert bn.load(tmp_path / "t.csv.gz").attrs["benchmark"] == "t"


def test_wide_matrix():
    wide = pd.DataFrame({"a": [1, 0, 1], "b": [1, 1, 0]}, index=["q1", "q2", "q3"])
    ds = bn.load(wide)
    assert list(ds.model.values) == ["a", "b"] and list(ds.question.values) == ["q1", "q2", "q3"]


def test_benchmark_selection(tmp_path):
    text = "model,example_id,count,correct,benchmark_id\na,q1,1,1,x\na,q1,1,0,y\n"
    path = _write(tmp_path, "m.csv", text)
    with pytest.raises(DataError, match=r"holds 2 benchmarks \(x, y\).*benchmark=NAME"):
        bn.load(path)
    assert bn.load(path, benchmark="y")["correct"].item() == 0
    with pytest.raises(DataError, match="no benchmark 'z'"):
        bn.load(path, benchmark="z")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "model,example_id,count,correct\na,q1,4,5\n",
            r"line 2 \(model='a', example_id='q1'\): correct=5 exceeds count=4",
        ),
        (
            "model,example_id,count,correct\na,q1,4,1\na,q2,2.5,1\n",
            r"line 3 .*count=2.5 is not a whole number",
        ),
        (
            "model,example_id,count,correct\na,q1,4,1.5\n",
            r"line 2 .*correct=1.5 is not a whole number",
        ),
        (
            "model,example_id,count,correct\na,q1,4,\n",
            r"line 2 .*correct=.* missing or not a number",
        ),
        (
            "model,example_id,count,correct\na,q1,4,1\na,q1,4,2\n",
            r"line 2 .*duplicate \(model, example_id\) row",
        ),
        (
            "model,example_id,count,pass1\na,q1,3,0.5\n",
            r"line 2 .*pass1\*count=1.5 is not a whole number",
        ),
        (
            "model,example_id,count,pass1,correct\na,q1,4,0.5,3\n",
            r"pass1=0.5 disagrees with correct/count=3/4",
        ),
        ("model,example_id,pass1\na,q1,1.2\n", r"line 2 .*pass1=1.2 is outside \[0, 1\]"),
        ("model,example_id,sample,correct\na,q1,0,-1\n", r"correct=-1 is outside \[0, 1\]"),
        (
            "model,example_id,sample,correct\na,q1,0,1\na,q1,0,0\n",
            r"duplicate \(model, example_id, sample\)",
        ),
        ("model,example_id,count,correct\na,q1,-1,0\n", r"count=-1 is not a whole number >= 0"),
        ("model,example_id,count,correct\na,q1,0,1\n", r"correct=1 exceeds count=0"),
        (
            "model,question_id,value\na,q1,1\n",
            r"cannot tell which columns hold the question, score; "
            r"found columns \['model', 'question_id', 'value'\]",
        ),
        ("model,example_id,pass1\n,q1,1\n", r"line 2 .*model is empty"),
    ],
)
def test_bad_csv_rows_name_file_line_model_question(tmp_path, text, message):
    path = _write(tmp_path, "bad.csv", text)
    with pytest.raises(DataError, match=re.escape(str(path)) + ".*" + message):
        bn.load(path)


def test_bad_jsonl_line_number(tmp_path):
    path = _write(
        tmp_path,
        "bad.jsonl",
        '{"model":"a","example_id":"q1","pass1":1}\n{"model":"a","example_id":"q2","pass1":null}\n',
    )
    with pytest.raises(DataError, match=r"bad.jsonl, line 2 \(model='a', example_id='q2'\): pass1"):
        bn.load(path)


def test_unreadable_and_unknown_files(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        bn.load(tmp_path / "missing.csv")
    with pytest.raises(DataError, match=r"unknown file type '\.txt'"):
        bn.load(_write(tmp_path, "x.txt", "hello"))
    with pytest.raises(DataError, match=r"x.jsonl: line 1 is not valid JSON"):
        bn.load(_write(tmp_path, "x.jsonl", "not json at all\n"))
    with pytest.raises(DataError, match="no rows"):
        bn.load(_write(tmp_path, "empty.csv", "model,example_id,count,correct\n"))


def test_wide_matrix_errors():
    with pytest.raises(DataError, match="question 'q2', model 'a': value nan is missing"):
        bn.load(pd.DataFrame({"a": [1, np.nan]}, index=["q1", "q2"]))
    with pytest.raises(DataError, match="question 'q1', model 'b': score 2 is outside"):
        bn.load(pd.DataFrame({"a": [1], "b": [2]}, index=["q1"]))


def test_coverage_raise_and_intersect(tmp_path):
    path = _write(tmp_path, "c.csv", COUNTS + "a,q3,4,2\n")
    ds = bn.load(path)
    assert ds["samples"].sel(model="b", question="q3") == 0  # kept as "no result", not imputed
    with pytest.raises(
        DataError, match=r"model 'b' lacks 1 \(q3\).*on_missing='intersect'.*2 of 3"
    ):
        bn.frequentist.pair_noise(ds)
    with pytest.warns(UserWarning, match="dropped 1 of 3 questions"):
        out = bn.frequentist.pair_noise(ds, on_missing="intersect")
    assert out.attrs["questions"] == 2
    # per-model noise uses each model's own questions, without complaint about coverage
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        per_model = bn.frequentist.model_noise(ds)
    assert [str(w.message) for w in caught if "questions" in str(w.message)] == [
        "c: only 2 questions; normal-theory SEs, intervals and z are unreliable below 30; "
        "see docs/warnings.md#small-n"
    ]
    assert per_model["questions"].tolist() == [3, 2]


def test_from_arrays_validation():
    with pytest.raises(DataError, match="shape"):
        from_arrays(np.ones((2, 3)), np.ones((2, 2)))
    with pytest.raises(DataError, match=r"cell \(0, 1\): correct=3 is outside \[0, count=2\]"):
        from_arrays(np.array([[1, 3]]), np.array([[2, 2]]))
    with pytest.raises(DataError, match="NaN"):
        from_arrays(np.array([[np.nan]]), np.array([[1]]))


def test_bundled_extract(bundled_data):
    ds = bn.load(bundled_data / "cruxeval_output_temp0.8.csv.gz")
    assert ds.sizes == {"model": 8, "question": 800}
    assert (ds["samples"] == 10).all() and ds.attrs["binary"]


def test_sample_array_with_named_dims():
    import xarray as xr

    arr = xr.DataArray(
        [[[1, 0, np.nan], [1, 1, 1]], [[0, 0, 0], [0.5, np.nan, np.nan]]],
        dims=("model", "question", "sample"),
        coords={"model": ["a", "b"], "question": ["q1", "q2"]},
    )
    ds = bn.load(arr.transpose("sample", "model", "question"))
    assert ds["samples"].values.tolist() == [[2, 3], [3, 1]]
    assert ds["sum_sq"].sel(model="b", question="q2") == 0.25 and not ds.attrs["binary"]
    with pytest.raises(DataError, match="model 'a', question 'q1', sample 1: score 2 is outside"):
        bn.load(arr.where(arr != 0, 2))


def test_empty_binary_and_truncated_files_name_the_file(tmp_path):
    """Defects of the architecture issue: raw pandas/codec messages replaced by ones that name
    the file (and the line of a JSON Lines file) and say what was expected."""
    empty = _write(tmp_path, "empty.csv", "")
    with pytest.raises(DataError, match=r"empty.csv: the file is empty; expected a csv table"):
        bn.load(empty)
    garbage = tmp_path / "garbage.csv"
    garbage.write_bytes(bytes(range(128, 256)) * 4)
    with pytest.raises(DataError, match=r"garbage.csv: not a text csv file \(byte 0 is not UTF-8"):
        bn.load(garbage)
    good = '{"model":"a","example_id":"q1","pass1":1}\n'
    cut = _write(tmp_path, "cut.jsonl", good * 3 + '{"model":"a","example_id":"q4","pa\n')
    with pytest.raises(DataError, match=r"cut.jsonl: line 4 is not valid JSON \(Unterminated"):
        bn.load(cut)
    with pytest.raises(DataError, match=r"is a folder"):
        bn.load(_folder(tmp_path))


def _folder(tmp_path):
    folder = tmp_path / "results.csv"
    folder.mkdir()
    return folder
