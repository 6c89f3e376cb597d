"""The Inspect AI log reader, on real logs written by inspect_ai in the test setup, checked
against inspect_ai's own reader; every error case has a test on its message."""

import json
import math
import warnings
import zipfile

import numpy as np
import pytest
from log_fixtures import (
    BENCH_EPOCHS,
    BENCH_IDS,
    ERROR_AT,
    MIXED_EPOCHS,
    MIXED_IDS,
    MODELS,
    NAN_AT,
    bench_table,
    inspect_logs_once,
)

from bayesnoise.data import DataError
from bayesnoise.io.columns import score_value as _to_float
from bayesnoise.io.inspect_logs import inspect_samples, is_inspect_log, read_inspect

pytest.importorskip("inspect_ai")


@pytest.fixture(scope="session")
def logs(tmp_path_factory):
    """The Inspect logs, written once per session (folders by role, see log_fixtures)."""
    return inspect_logs_once(tmp_path_factory)


def _only(folder):
    (path,) = sorted(folder.iterdir())
    return path


def _oracle(folder, scorer, key=None):
    """{(model, id as text, epoch): value} from inspect_ai's own reader and value_to_float,
    and the (model, id, epoch) it has no score for (errored, or NaN)."""
    from inspect_ai.log import read_eval_log
    from inspect_ai.scorer import value_to_float

    to_float = value_to_float()
    scores, missing = {}, set()
    for path in sorted(folder.iterdir()):
        log = read_eval_log(str(path))
        for s in log.samples:
            where = (log.eval.model, str(s.id), s.epoch)
            value = None if s.error or scorer not in (s.scores or {}) else s.scores[scorer].value
            value = value[key] if isinstance(value, dict) else value
            if value is None or (isinstance(value, float) and math.isnan(value)):
                missing.add(where)
            else:
                scores[where] = to_float(value)
    return scores, missing


def _mine(df):
    return {
        (m, q, e): c
        for m, q, e, c in zip(
            df["model"], df["example_id"], df["epoch"], df["correct"], strict=True
        )
    }


@pytest.mark.parametrize(
    ("folder", "scorer", "key"),
    [
        ("bench", None, None),
        ("mixed", "grade", None),
        ("mixed", "judge", "acc"),
        ("mixed", "judge", "length"),
        ("mixed", "misc", None),
        ("bench_json", None, None),
    ],
)
def test_same_scores_as_inspect_reader(logs, folder, scorer, key):
    """Every (model, id, epoch) score equals inspect_ai's read_eval_log + value_to_float; the
    samples it has no score for are exactly the ones reported as left out."""
    expected, missing = _oracle(logs[folder], scorer or "match", key)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = inspect_samples([logs[folder]], scorer=scorer, score_key=key, incomplete="use-scored")
    assert _mine(df) == expected
    assert len(df.attrs["left_out"]) == len(missing)
    assert len(caught) == (1 if missing else 0)


def test_bench_dataset_matches_the_table(logs):
    """Counts per (model, question) are the sums of the table that the scorer read from."""
    ds = read_inspect([logs["bench"]])
    table = bench_table()
    assert ds["model"].values.tolist() == MODELS
    assert ds["question"].values.tolist() == [str(q) for q in BENCH_IDS]
    expected = np.array([[sum(table[m][q]) for q in BENCH_IDS] for m in MODELS], dtype=float)
    np.testing.assert_array_equal(ds["correct"].values, expected)
    assert (ds["samples"].values == BENCH_EPOCHS).all()
    assert ds.attrs["benchmark"] == "bench" and ds.attrs["binary"] is True
    assert ds.attrs["logs"] == len(MODELS)


def test_eval_files_are_zstandard_and_json_log_reads_the_same(logs):
    """The fixture's .eval members are Zstandard (method 93): the decompression path is the one
    tested; the .json log of model a gives model a's rows of the .eval logs."""
    with zipfile.ZipFile(next(logs["bench"].iterdir())) as zf:
        assert zf.getinfo("summaries.json").compress_type == 93
    from_json = read_inspect([_only(logs["bench_json"])])
    from_eval = read_inspect([logs["bench"]]).sel(model=["mockllm/a"])
    for var in ("correct", "samples", "sum_sq"):
        np.testing.assert_array_equal(from_json[var].values, from_eval[var].values)


def test_two_logs_for_one_model_and_task(logs):
    with pytest.raises(DataError) as err:
        read_inspect([logs["bench"], logs["bench_json"]])
    msg = str(err.value)
    assert "two logs for model 'mockllm/a' on task 'bench'" in msg
    assert _only(logs["bench_json"]).name in msg and "duplicates='merge'" in msg
    merged = read_inspect([logs["bench"], logs["bench_json"]], duplicates="merge")
    alone = read_inspect([logs["bench"]])
    a = merged.sel(model="mockllm/a")
    assert (a["samples"].values == 2 * BENCH_EPOCHS).all()
    np.testing.assert_array_equal(
        a["correct"].values, 2 * alone["correct"].sel(model="mockllm/a").values
    )


def test_several_tasks_need_benchmark(logs):
    root = logs["bench"].parent
    with pytest.raises(DataError, match=r"holds 3 tasks \(.*bench.*\); choose one with benchmark="):
        read_inspect([logs["bench"], logs["mixed"], logs["broken"]])
    with pytest.raises(DataError, match=r"no task 'nope'; found bench, "):
        read_inspect([logs["bench"], logs["mixed"]], benchmark="nope")
    ds = read_inspect([logs["bench"], logs["mixed"]], benchmark="bench")
    assert ds.attrs["benchmark"] == "bench"
    assert is_inspect_log(root)


def test_several_scorers_need_scorer(logs):
    with pytest.raises(
        DataError, match=r"holds 3 scorers \(grade, judge, misc\); choose one with scorer="
    ):
        read_inspect([logs["mixed"]])
    with pytest.raises(DataError, match=r"no scorer 'nope'; found grade, judge, misc"):
        read_inspect([logs["mixed"]], scorer="nope")


def test_dict_scores_need_a_key(logs):
    with pytest.raises(
        DataError,
        match=r"'judge' gives several values per sample \(acc, length\); choose one with score_key=",
    ):
        read_inspect([logs["mixed"]], scorer="judge")
    with pytest.raises(DataError, match=r"no key 'nope'; its keys are acc, length"):
        read_inspect([logs["mixed"]], scorer="judge", score_key="nope")
    with pytest.raises(
        DataError, match=r"score_key='acc' given, but scorer 'misc' gives one value"
    ):
        read_inspect([logs["mixed"]], scorer="misc", score_key="acc")


def test_unscored_and_errored_samples_are_an_error_by_default(logs):
    with pytest.raises(DataError) as err:
        read_inspect([logs["mixed"]], scorer="grade")
    msg = str(err.value)
    assert "2 samples have no score (1 errored, 1 unscored" in msg
    assert f"id {NAN_AT[1]!r}, epoch {NAN_AT[2]} unscored (NaN)" in msg
    assert f"id {ERROR_AT[1]}, epoch {ERROR_AT[2]} errored (RuntimeError" in msg
    assert ".eval:" in msg and "incomplete='use-scored'" in msg


def test_use_scored_loads_the_rest_and_warns_once(logs):
    with pytest.warns(UserWarning, match="2 samples have no score") as caught:
        ds = read_inspect([logs["mixed"]], scorer="grade", incomplete="use-scored")
    assert len(caught) == 1
    assert int(ds["samples"].sum()) == len(MODELS) * len(MIXED_IDS) * MIXED_EPOCHS - 2
    assert ds["samples"].sel(model=NAN_AT[0], question=NAN_AT[1]).item() == MIXED_EPOCHS - 1
    assert "left out (no score)" in ds.attrs["notes"]
    assert ds["question"].values.tolist() == [str(i) for i in MIXED_IDS]


def test_partial_credit_is_non_binary_and_refused_by_beta_binomial(logs):
    from bayesnoise.conjugate import posterior_table
    from bayesnoise.frequentist import model_noise

    with pytest.warns(UserWarning):
        ds = read_inspect([logs["mixed"]], scorer="grade", incomplete="use-scored")
    assert ds.attrs["binary"] is False
    with pytest.warns(UserWarning, match="only 5 questions"):
        assert len(model_noise(ds)) == len(MODELS)
    with pytest.raises(DataError, match="not all 0/1 \\(partial credit\\)"):
        posterior_table(ds)


def test_log_with_status_error(logs):
    """A real log whose solver raised on every sample (status error, every sample errored):
    one line with the status and the log's own error message, whatever ``incomplete`` is."""
    for incomplete in ("error", "use-scored"):
        with pytest.raises(DataError) as err:
            read_inspect([logs["broken"]], incomplete=incomplete)
        msg = str(err.value)
        assert "\n" not in msg and len(msg) < 400, msg
        assert "ended with status 'error' before any sample was scored" in msg
        assert "(2 of 2 samples errored): RuntimeError('solver failed on 1')" in msg


def _header_only_log(path, status, error=None):
    """A minimal Inspect .json log (LOG-FORMATS.md) that ended before any sample: a header
    without ``eval.scorers`` (as when the run failed before its scorers were set up) and no
    samples."""
    log = {"version": 2, "status": status, "eval": {"task": "t", "model": "mockllm/a"}}
    if error is not None:
        log["error"] = {
            "message": error,
            "traceback": f"Traceback (most recent call last):\n{error}",
        }
    path.write_text(json.dumps(log))
    return path


@pytest.mark.parametrize(
    ("status", "error", "said"),
    [
        ("error", "RuntimeError('rate limit exceeded')", "ended with status 'error'"),
        ("cancelled", None, "was cancelled (status 'cancelled')"),
        ("started", None, "has status 'started'"),
    ],
)
def test_log_that_ended_before_any_sample(tmp_path, status, error, said, capsys):
    """No sample and no scorer: the status and the log's own message, not "no scorers found";
    the CLI prints it as one ``error:`` line."""
    from bayesnoise.cli import main

    path = _header_only_log(tmp_path / f"{status}.json", status, error)
    with pytest.raises(DataError) as err:
        read_inspect([path])
    msg = str(err.value)
    assert said in msg and "before any sample was scored" in msg and "scorer" not in msg
    if error:
        assert msg.endswith(f": {error}; rerun the task once the error is fixed")
    capsys.readouterr()
    assert main(["noise", str(path)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0] == f"error: {msg}", lines


def test_crashed_journal_only_log(logs):
    """A log with only _journal/ (13 of 20 samples, one repeated after a retry)."""
    crashed = _only(logs["crashed"])
    with pytest.raises(DataError) as err:
        read_inspect([crashed], scorer="grade")
    msg = str(err.value)
    assert "crashed (only _journal/ is present)" in msg
    assert (
        f"{len(MIXED_IDS) * MIXED_EPOCHS - 13} of {len(MIXED_IDS) * MIXED_EPOCHS} (sample, epoch) never ran"
        in msg
    )
    with pytest.warns(UserWarning, match="1 logs did not finish"):
        df = inspect_samples([crashed], scorer="grade", incomplete="use-scored")
    # the finished log of the same model, read by inspect_ai, holds the true scores; the repeat
    # whose first occurrence was falsified must come out with the last (true) value
    expected, _ = _oracle(logs["mixed"], "grade")
    mine = _mine(df)
    assert len(mine) == 13
    assert all(expected[k] == v for k, v in mine.items())


def test_cancelled_log_says_what_never_ran(logs, tmp_path):
    obj = json.loads(_only(logs["bench_json"]).read_text())
    obj["status"] = "cancelled"
    obj["samples"] = obj["samples"][:-5]
    path = tmp_path / "cancelled.json"
    path.write_text(json.dumps(obj))
    with pytest.raises(
        DataError,
        match=r"cancelled.json has status 'cancelled'; 5 of 24 \(sample, epoch\) never ran; 19 scored",
    ):
        read_inspect([path])


def _json_log(path, values, ids=None):
    ids = ids if ids is not None else list(range(len(values)))
    log = {
        "version": 2,
        "status": "success",
        "eval": {"task": "t", "model": "m"},
        "samples": [
            {"id": i, "epoch": 1, "scores": {"s": {"value": v}}}
            for i, v in zip(ids, values, strict=True)
        ],
    }
    path.write_text(json.dumps(log))
    return path


def test_score_mapping_is_inspects():
    from inspect_ai.scorer import value_to_float

    inspect = value_to_float()
    for value in [
        "C",
        "I",
        "P",
        "N",
        True,
        False,
        1,
        0,
        0.25,
        "yes",
        "No",
        "TRUE",
        "false",
        "0.5",
        "1e-1",
        " 1 ",
    ]:
        assert _to_float(value) == inspect(value), value
    for value in ["maybe", "c", "nan", [1], None]:
        assert _to_float(value) is None  # inspect_ai would count these as 0 with a warning


def test_bad_values_are_refused_with_place(tmp_path):
    with pytest.raises(
        DataError,
        match=r"log.json: id 1, epoch 1: score 'maybe' of 's' is not a value Inspect converts",
    ):
        read_inspect([_json_log(tmp_path / "log.json", ["C", "maybe"])])
    with pytest.raises(DataError, match=r"id 0, epoch 1: score 2 of 's' is outside \[0, 1\]"):
        read_inspect([_json_log(tmp_path / "log.json", [2, 1])])
    with pytest.raises(DataError, match=r"sample ids 1 and '1' are the same question as text"):
        read_inspect([_json_log(tmp_path / "log.json", ["C", "I"], ids=[1, "1"])])


def test_paths_that_are_not_logs(tmp_path, logs):
    with pytest.raises(DataError, match="no such file"):
        read_inspect([tmp_path / "missing.eval"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match=r"no Inspect logs \(.eval or .json\) in this folder"):
        read_inspect([tmp_path / "empty"])
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"results": {}, "configs": {}}))
    with pytest.raises(DataError, match="not an Inspect log"):
        read_inspect([other])
    with pytest.raises(
        DataError, match="incomplete='sometimes' is not one of 'error', 'use-scored'"
    ):
        read_inspect([logs["bench"]], incomplete="sometimes")
    assert not is_inspect_log(other) and not is_inspect_log(tmp_path / "empty")
    # a small log written by another tool, keys in another order, is still recognised
    reordered = tmp_path / "reordered.json"
    reordered.write_text(json.dumps({"samples": [], "eval": {"task": "t", "model": "m"}}))
    assert is_inspect_log(reordered)
    assert is_inspect_log(_only(logs["bench_json"])) and is_inspect_log(_only(logs["crashed"]))
    assert is_inspect_log(logs["bench"])
