"""One load for every source: dispatch by format, options that do not apply, globs, folders,
and the command line's input options (through bayesnoise.cli.main)."""

import io
import json
import math

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import bayesnoise as bn
import bayesnoise.io.stream as stream
from bayesnoise.cli import main
from bayesnoise.data import DataError

# The same results in every format: model -> question -> one 0/1 score per sample (K = 2).
SCORES = {"a": {1: [1, 0], 2: [1, 1], 3: [0, 0]}, "b": {1: [1, 1], 2: [0, 1], 3: [1, 0]}}


def _table(tmp_path, name="quiz.csv"):
    rows = [
        (m, q, k, s) for m, qs in SCORES.items() for q, ss in qs.items() for k, s in enumerate(ss)
    ]
    path = tmp_path / name
    pd.DataFrame(rows, columns=["model", "example_id", "sample", "correct"]).to_csv(
        path, index=False, sep="\t" if name.endswith(".tsv") else ","
    )
    return path


def _inspect_logs(folder, unscored=False):
    """Inspect ``.json`` logs as the documented format has them (one per model)."""
    folder.mkdir(exist_ok=True)
    for model, questions in SCORES.items():
        samples = [
            {"id": q, "epoch": e + 1, "scores": {"match": {"value": "CI"[1 - s]}}}
            for q, ss in questions.items()
            for e, s in enumerate(ss)
        ]
        if unscored and model == "b":
            samples[0]["scores"]["match"]["value"] = math.nan
        log = {
            "version": 2,
            "status": "success",
            "eval": {"task": "quiz", "model": model, "config": {"epochs": 2}},
            "samples": samples,
        }
        (folder / f"{model}.json").write_text(json.dumps(log))
    return folder


def _lm_eval(out):
    """lm-eval ``--log_samples`` output: two runs (dates) per model = two samples."""
    for model, questions in SCORES.items():
        folder = out / model
        folder.mkdir(parents=True)
        for run in range(2):
            date = f"2024-05-13T10-2{run}-33.123456"
            (folder / f"results_{date}.json").write_text(json.dumps({"model_name": model}))
            lines = [
                json.dumps(
                    {
                        "doc_id": q,
                        "filter": "none",
                        "metrics": ["acc", "em"],
                        "acc": ss[run],
                        "em": 1,
                    }
                )
                for q, ss in questions.items()
            ]
            (folder / f"samples_quiz_{date}.jsonl").write_text("\n".join(lines) + "\n")
    return out


def _cells(ds):
    ds = ds.sel(model=["a", "b"], question=["1", "2", "3"])
    return {v: ds[v].values.tolist() for v in ("correct", "samples", "sum_sq")}


def test_same_results_from_table_inspect_logs_and_lm_eval(tmp_path):
    expected = {
        "correct": [[1, 2, 0], [2, 1, 1]],
        "samples": [[2, 2, 2], [2, 2, 2]],
        "sum_sq": [[1, 2, 0], [2, 1, 1]],
    }
    assert _cells(bn.load(_table(tmp_path))) == expected
    assert _cells(bn.load(_inspect_logs(tmp_path / "logs"))) == expected
    assert _cells(bn.load(_lm_eval(tmp_path / "out"))) == expected


@pytest.mark.parametrize(
    ("option", "value", "flag", "applies"),
    [
        ("scorer", "match", "--scorer", "Inspect logs"),
        ("score_key", "acc", "--score-key", "Inspect logs"),
        ("incomplete", "use-scored", "--use-scored", "Inspect logs"),
        ("duplicates", "merge", "--merge-duplicates", "Inspect logs"),
        ("metric", "acc", "--metric", "lm-eval output"),
        ("filter", "none", "--filter", "lm-eval output"),
    ],
)
def test_option_for_another_source_is_refused(tmp_path, option, value, flag, applies):
    with pytest.raises(
        DataError,
        match=rf"quiz.csv: {option}= applies to {applies}, not to tables",
    ):
        bn.load(_table(tmp_path), **{option: value})


def test_table_options_refused_for_logs_and_log_options_for_the_other_log(tmp_path):
    logs = _inspect_logs(tmp_path / "logs")
    with pytest.raises(DataError, match=r"columns= applies to tables"):
        bn.load(logs, columns={"model": "m"})
    with pytest.raises(DataError, match=r"metric= applies to lm-eval output, not to Inspect"):
        bn.load(logs, metric="acc")
    out = _lm_eval(tmp_path / "out")
    with pytest.raises(DataError, match=r"scorer= applies to Inspect logs, not to lm-eval"):
        bn.load(out, scorer="match")
    ds = bn.load(_table(tmp_path)).copy()
    with pytest.raises(DataError, match=r"Dataset: columns= .* not to a Dataset"):
        bn.load(ds, columns={"model": "m"})


def test_glob_list_and_folder_of_tables(tmp_path):
    (tmp_path / "x").mkdir()
    full = bn.load(_table(tmp_path / "x"))
    folder = tmp_path / "parts"
    folder.mkdir()
    df = pd.read_csv(tmp_path / "x" / "quiz.csv")
    for model, part in df.groupby("model"):
        part.to_csv(folder / f"quiz_{model}.csv", index=False)
    for source in (str(folder / "*.csv"), sorted(folder.glob("*.csv")), folder):
        ds = bn.load(source)
        for var in ("correct", "samples", "sum_sq"):
            xr.testing.assert_equal(ds[var], full[var])
    with pytest.raises(DataError, match=r"nothing\*.csv: no file matches this pattern"):
        bn.load(str(tmp_path / "nothing*.csv"))


def test_mixed_kinds_and_empty_folder_are_refused(tmp_path):
    logs = _inspect_logs(tmp_path / "logs")
    with pytest.raises(DataError, match=r"cannot load different kinds of source together"):
        bn.load([_table(tmp_path), logs])
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match=r"empty: is a folder without result files"):
        bn.load(tmp_path / "empty")
    with pytest.raises(DataError, match=r"no files given"):
        bn.load([])


def test_netcdf_dispatch_and_benchmark_check(tmp_path):
    ds = bn.load(_table(tmp_path))
    path = bn.save(ds, tmp_path / "d.nc")
    xr.testing.assert_identical(bn.load(path), ds)
    xr.testing.assert_identical(bn.load(str(path), benchmark="quiz"), ds)
    with pytest.raises(DataError, match=r"d.nc: holds benchmark 'quiz', not 'other'"):
        bn.load(path, benchmark="other")


def _cli_csv(capsys, *args):
    assert main([*args, "--format", "csv"]) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out))


def test_cli_column_flags_and_several_files(tmp_path, capsys):
    df = pd.read_csv(_table(tmp_path))
    renamed = df.rename(columns={"model": "who", "example_id": "qid", "correct": "ok"})
    renamed["seed"] = renamed.pop("sample")
    renamed["subject"] = "s" + renamed["qid"].astype(str)
    paths = []
    for model, part in renamed.groupby("who"):
        paths.append(tmp_path / f"r_{model}.tsv")
        part.to_csv(paths[-1], index=False, sep="\t")
    flags = [
        "--model-col",
        "who",
        "--question-col",
        "qid",
        "--score-col",
        "ok",
        "--sample-col",
        "seed",
        "--cluster-col",
        "subject",
    ]
    ours = _cli_csv(capsys, "noise", *map(str, paths), *flags)
    reference = _cli_csv(capsys, "noise", str(tmp_path / "quiz.csv"))
    # --cluster-col adds the cluster-robust columns after the usual ones
    assert list(ours.columns[len(reference.columns) :]) == [
        "clusters",
        "se_clustered",
        "design_effect",
        "icc",
    ]
    pd.testing.assert_frame_equal(ours[reference.columns], reference)
    assert _cli_csv(capsys, "noise", str(tmp_path / "r_*.tsv"), *flags).equals(ours)


def test_cli_refuses_a_log_option_for_a_table(tmp_path, capsys):
    assert main(["noise", str(_table(tmp_path)), "--scorer", "match"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "--scorer applies to Inspect logs" in err
    assert "scorer=" not in err


def test_cli_unknown_columns_say_which_flags(tmp_path, capsys):
    path = tmp_path / "u.csv"
    path.write_text("question_id,model_name,score\nq1,a,1\n")
    assert main(["noise", str(path)]) == 2
    assert "--model-col, --question-col, --score-col" in capsys.readouterr().err


def test_cli_use_scored_and_metric_reach_the_log_readers(tmp_path, capsys):
    logs = _inspect_logs(tmp_path / "logs", unscored=True)
    assert main(["noise", str(logs)]) == 2
    assert "error: " in capsys.readouterr().err
    out = _cli_csv(capsys, "noise", str(logs), "--use-scored")
    # accuracy = mean over questions of p_i; b's unscored first sample (q1, correct) is left
    # out, so q1 = 1/1, q2 = 1/2, q3 = 1/2. The CSV shows 10 significant digits: abs 1e-10.
    accuracy = out.set_index("model")["accuracy"]
    assert accuracy["a"] == pytest.approx(1.5 / 3, abs=1e-10)
    assert accuracy["b"] == pytest.approx(2 / 3, abs=1e-10)
    lm = _lm_eval(tmp_path / "out")
    em = _cli_csv(capsys, "noise", str(lm), "--metric", "em")
    assert (em["accuracy"] == 1.0).all()


def test_cli_no_progress(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(stream, "DELAY", 0.0)
    path = str(_table(tmp_path))
    monkeypatch.setattr(stream, "_terminal", lambda: True)  # as if on a terminal
    with_display = _capture_err(capsys, ["noise", path])
    without = _capture_err(capsys, ["noise", path, "--no-progress"])
    assert "reading " in with_display and "reading " not in without


def _capture_err(capsys, argv):
    assert main(argv) == 0
    return capsys.readouterr().err


def test_dataarray_and_wide_frame_still_load():
    arr = xr.DataArray(np.ones((2, 3, 4)), dims=("model", "question", "sample"))
    assert int(bn.load(arr)["samples"].sum()) == 24
    with pytest.raises(DataError, match=r"DataArray: columns= .* not to a DataArray"):
        bn.load(arr, columns={"model": "m"})
