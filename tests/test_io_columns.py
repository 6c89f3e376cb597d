"""Tables by column mapping: the minimal layouts, text scores, TSV, JSON lines, clusters, and an
error that lists the columns found and how to name them."""

import contextlib
import gzip
import io
import json
import re

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import bayesnoise as bn
from bayesnoise.data import DataError, from_arrays


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


# Two models, two questions, one sample each: a = (1, 0), b = (1, 1).
MINIMAL = "model,example_id,correct\na,q1,1\na,q2,0\nb,q1,1\nb,q2,1\n"
EXPECTED = from_arrays(
    [[1, 0], [1, 1]], [[1, 1], [1, 1]], models=["a", "b"], questions=["q1", "q2"]
)


def _same_cells(ds, ref=EXPECTED):
    for var in ("correct", "samples", "sum_sq"):
        xr.testing.assert_equal(ds[var], ref[var])


def test_minimal_layout_one_sample_per_question(tmp_path):
    ds = bn.load(_write(tmp_path, "m.csv", MINIMAL))
    _same_cells(ds)
    assert ds.attrs["binary"] and ds.attrs["benchmark"] == "m"


def test_mapping_renamed_columns_python_and_same_as_canonical(tmp_path):
    text = "question_id,model_name,score,seed\nq1,a,1,7\nq2,a,0,7\nq1,b,1,7\nq2,b,1,7\n"
    path = _write(tmp_path, "r.csv", text)
    cols = {"model": "model_name", "question": "question_id", "score": "score", "sample": "seed"}
    _same_cells(bn.load(path, columns=cols))
    # "correct" is another name for the score key
    cols = {"model": "model_name", "question": "question_id", "correct": "score"}
    _same_cells(bn.load(path, columns=cols))


def test_inspect_letters_in_a_score_column_map_as_inspect_does():
    df = pd.DataFrame(
        {"model": ["a"] * 5, "example_id": list("vwxyz"), "correct": ["C", "I", "P", "N", "C"]}
    )
    ds = bn.load(df)
    assert ds["correct"].values.tolist() == [[1.0, 0.0, 0.5, 0.0, 1.0]]
    assert not ds.attrs["binary"]  # P = 0.5 is partial credit
    assert ds["sum_sq"].values.tolist() == [[1.0, 0.0, 0.25, 0.0, 1.0]]


def test_booleans_and_yes_no_scores(tmp_path):
    text = "model,example_id,correct\na,q1,True\na,q2,false\nb,q1,yes\nb,q2,1\n"
    _same_cells(bn.load(_write(tmp_path, "b.csv", text)))


def test_text_score_that_is_not_a_score_is_refused(tmp_path):
    path = _write(tmp_path, "t.csv", "model,example_id,correct\na,q1,1\na,q2,maybe\n")
    with pytest.raises(
        DataError,
        match=r"t.csv, line 3 \(model='a', example_id='q2'\): correct='maybe' is missing or not "
        r"a number",
    ):
        bn.load(path)


def test_unknown_columns_list_found_and_mapping_options(tmp_path):
    path = _write(tmp_path, "u.csv", "question_id,model_name,score\nq1,a,1\n")
    with pytest.raises(DataError) as err:
        bn.load(path)
    text = str(err.value)
    assert "cannot tell which columns hold the model, question" in text
    assert "found columns ['question_id', 'model_name', 'score']" in text
    assert "columns={'model': ..., 'question': ..., 'score': ...}" in text
    # in load's words only (issue 37): the command line's flags are the CLI's answer
    assert "--model-col" not in text and "model_col=" not in text
    from bayesnoise.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert main(["noise", str(path)]) == 2
    for flag in (
        "--model-col",
        "--question-col",
        "--score-col",
        "--sample-col",
        "--benchmark-col",
        "--cluster-col",
    ):
        assert flag in err.getvalue()


def test_long_dataframe_with_unknown_columns_is_not_read_as_wide():
    df = pd.DataFrame({"question_id": ["q1", "q2"], "model_name": ["a", "a"], "score": [1, 0]})
    with pytest.raises(DataError, match=r"DataFrame: cannot tell which columns hold the model"):
        bn.load(df)
    # all-numeric columns without role names: a wide matrix (questions x models)
    wide = pd.DataFrame({"gpt": [1, 0], "llama": [1, 1]}, index=["q1", "q2"])
    assert bn.load(wide)["model"].values.tolist() == ["gpt", "llama"]
    # a numeric long table whose columns carry role names is long, not wide
    df = pd.DataFrame({"model": [1, 1], "example_id": [10, 11], "correct": [1, 0]})
    assert bn.load(df).sizes == {"model": 1, "question": 2}


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        ({"modle": "x"}, r"columns= has an unknown key 'modle'; the keys are model, question"),
        (
            {"model": "nope"},
            r"columns= maps 'model' to 'nope', but there is no such column; "
            r"found columns \['model', 'example_id', 'correct'\]",
        ),
        ({"score": "correct", "correct": "correct"}, r"names the score twice"),
        ({"model": "example_id"}, r"cannot tell which columns hold the question;"),
    ],
)
def test_bad_mappings(tmp_path, columns, message):
    with pytest.raises(DataError, match=message):
        bn.load(_write(tmp_path, "m.csv", MINIMAL), columns=columns)


def test_mapping_a_role_the_layout_does_not_use_is_refused(tmp_path):
    text = "model,example_id,count,correct,seed\na,q1,2,1,0\n"
    with pytest.raises(DataError, match=r"columns= maps 'sample', which a counts table does not"):
        bn.load(_write(tmp_path, "c.csv", text), columns={"sample": "seed"})


def test_two_candidate_score_columns_are_ambiguous(tmp_path):
    path = _write(tmp_path, "a.csv", "model,example_id,correct,score\na,q1,1,0\n")
    with pytest.raises(DataError, match=r"both 'correct' and 'score' could be the score.*'score'"):
        bn.load(path)
    assert bn.load(path, columns={"score": "score"})["correct"].item() == 0


def test_count_table_with_mapped_count_and_correct(tmp_path):
    text = "m,q,n,k\na,q1,4,3\na,q2,4,1\n"
    ds = bn.load(
        _write(tmp_path, "c.csv", text),
        columns={"model": "m", "question": "q", "count": "n", "correct": "k"},
    )
    assert ds["samples"].values.tolist() == [[4, 4]] and ds["correct"].values.tolist() == [[3, 1]]


def test_tsv_and_gzipped_tsv(tmp_path):
    text = MINIMAL.replace(",", "\t")
    _same_cells(bn.load(_write(tmp_path, "m.tsv", text)))
    with gzip.open(tmp_path / "m.tsv.gz", "wt") as fh:
        fh.write(text)
    _same_cells(bn.load(tmp_path / "m.tsv.gz"))


def test_json_lines_in_a_json_file_and_json_array(tmp_path):
    rows = pd.read_csv(_write(tmp_path, "m.csv", MINIMAL)).to_dict("records")
    lines = _write(tmp_path, "lines.json", "\n".join(json.dumps(r) for r in rows) + "\n")
    _same_cells(bn.load(lines))
    _same_cells(bn.load(_write(tmp_path, "array.json", json.dumps(rows))))


def test_benchmark_column_by_mapping(tmp_path):
    text = "model,example_id,correct,task\na,q1,1,x\na,q1,0,y\n"
    path = _write(tmp_path, "b.csv", text)
    with pytest.raises(DataError, match=r"holds 2 benchmarks \(x, y\); choose one"):
        bn.load(path, columns={"benchmark": "task"})
    ds = bn.load(path, columns={"benchmark": "task"}, benchmark="y")
    assert ds["correct"].item() == 0 and ds.attrs["benchmark"] == "y"
    with pytest.raises(DataError, match=r"no benchmark_id column \(name one with columns="):
        bn.load(path, benchmark="y")


def test_cluster_becomes_a_coordinate_along_question(tmp_path):
    text = "model,example_id,correct,subject\na,q1,1,alg\na,q2,0,geo\nb,q1,1,alg\nb,q2,1,geo\n"
    ds = bn.load(_write(tmp_path, "c.csv", text), columns={"cluster": "subject"})
    assert ds["cluster"].dims == ("question",)
    assert ds["cluster"].values.tolist() == ["alg", "geo"]
    assert "cluster" not in ds.dims


def test_question_in_two_clusters_names_question_and_both(tmp_path):
    text = "model,example_id,correct,cluster\na,q1,1,alg\na,q2,0,geo\nb,q1,1,geo\n"
    with pytest.raises(
        DataError,
        match=r"c.csv, line 4 \(model='b', example_id='q1'\): question 'q1' is in cluster 'geo' "
        r"here but in 'alg' in an earlier row",
    ):
        bn.load(_write(tmp_path, "c.csv", text))
    df = pd.DataFrame(
        {
            "model": ["a", "a"],
            "example_id": ["q1", "q1"],
            "sample": [0, 1],
            "correct": [1, 0],
            "cluster": ["x", "y"],
        }
    )
    with pytest.raises(DataError, match=r"row 1 .*question 'q1' is in cluster 'y' here but in 'x'"):
        bn.load(df)


def test_empty_cluster_label(tmp_path):
    text = "model,example_id,correct,cluster\na,q1,1,\n"
    with pytest.raises(DataError, match=r"line 2 .*: cluster is empty"):
        bn.load(_write(tmp_path, "c.csv", text))


def test_several_tables_are_concatenated(tmp_path):
    a = _write(tmp_path, "quiz_a.csv", "model,example_id,correct\na,q1,1\na,q2,0\n")
    b = _write(tmp_path, "quiz_b.csv", "model,example_id,correct\nb,q1,1\nb,q2,1\n")
    ds = bn.load([a, b])
    _same_cells(ds)
    assert ds.attrs["benchmark"] == "quiz"  # what the file names share


def test_several_tables_with_different_layouts_are_refused(tmp_path):
    a = _write(tmp_path, "a.csv", MINIMAL)
    b = _write(tmp_path, "b.csv", "model,example_id,count,correct\nc,q1,2,1\n")
    with pytest.raises(DataError, match=r"b.csv: its columns .* make a counts table .* unlike"):
        bn.load([a, b])


def test_duplicate_across_files_names_both_places(tmp_path):
    a = _write(tmp_path, "a.csv", MINIMAL)
    b = _write(tmp_path, "b.csv", "model,example_id,correct\nb,q2,0\n")
    with pytest.raises(
        DataError,
        match=re.escape(
            f"{a}, line 5 (model='b', example_id='q2'): duplicate (model, example_id) "
            f"row, again at {b}, line 2"
        )
        + r".*columns=\{'sample'",
    ):
        bn.load([a, b])


def test_empty_model_name_in_dataframe():
    df = pd.DataFrame({"model": ["a", ""], "example_id": ["q1", "q2"], "correct": [1, 0]})
    with pytest.raises(DataError, match=r"DataFrame, row 1 \(model='', example_id='q2'\): model"):
        bn.load(df)


def test_per_sample_scores_with_nan_in_dataframe():
    df = pd.DataFrame({"model": ["a", "a"], "example_id": ["q1", "q2"], "correct": [1, np.nan]})
    with pytest.raises(DataError, match=r"row 1 .*correct=nan is missing or not a number"):
        bn.load(df)


def test_wide_matrix_errors_say_how_it_was_read():
    wide = pd.DataFrame({"m1": [1.0, 2.0]}, index=["q1", "q2"])
    with pytest.raises(DataError, match=r"score 2 is outside \[0, 1\] \(read as a wide matrix"):
        bn.load(wide)
