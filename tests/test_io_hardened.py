"""The log readers on logs written by the tools themselves (tests/data/logs, see its README):
Inspect logs without samples or cancelled, lm-eval < 0.4.7 with several filters, output
folders where one run differs, lmms-eval's file names, results without samples, Eval-Arena
pass1 with a known K, lighteval details and HELM runs. Each expected number comes from the
tool's own reader or the tool's own aggregate in the file, never from bayesnoise."""

import json
import math
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import bayesnoise
from bayesnoise.data import DataError, beta_binomial_counts
from bayesnoise.io.helm import read_helm
from bayesnoise.io.inspect_logs import read_inspect
from bayesnoise.io.lighteval import read_lighteval
from bayesnoise.io.lm_eval import read_lm_eval

LOGS = Path(__file__).parent / "data" / "logs"
INSPECT = LOGS / "inspect"
LM_EVAL = LOGS / "lm_eval"


def _quiet(fn, *args, **kwargs):
    """Call ``fn`` and return (result, warning messages)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    return out, [str(w.message) for w in caught]


def _means(ds):
    """Per-model mean of the per-question mean scores."""
    per_question = ds["correct"] / ds["samples"]
    return {str(m): float(per_question.sel(model=m).mean()) for m in ds["model"].values}


# --- Inspect ----------------------------------------------------------------------------


def _inspect_header(path):
    from inspect_ai.log import read_eval_log

    return read_eval_log(str(path), header_only=True)


def _inspect_scores(path):
    """{id as text: value} from inspect_ai's own reader."""
    from inspect_ai.log import read_eval_log_sample_summaries
    from inspect_ai.scorer import value_to_float

    to_float = value_to_float()
    return {
        str(s.id): to_float(s.scores["match"].value)
        for s in read_eval_log_sample_summaries(str(path))
        if s.scores and "match" in s.scores
    }


@pytest.mark.parametrize("folder", ["header_only", "header_only_json"])
def test_header_only_log_says_it_has_no_samples(folder):
    """Written with log_samples=False (.eval) or saved from a header-only read (.json): the
    message says there are no per-sample results, quotes the header's own summary and says
    what to do (it used to say 'no scorers found')."""
    pytest.importorskip("inspect_ai")
    (path,) = sorted((INSPECT / folder).iterdir())
    header = _inspect_header(path)
    accuracy = header.results.scores[0].metrics["accuracy"].value
    with pytest.raises(DataError) as err:
        read_inspect([path])
    msg = str(err.value)
    assert "holds no per-sample results" in msg and "no scorers" not in msg
    assert f"accuracy {bayesnoise._common.fmt_value(accuracy)}" in msg
    assert "re-run the task with samples logged" in msg


def test_header_only_log_beside_full_logs_is_reported(tmp_path):
    """A folder with two full logs and a header-only one: the two load, the third is named in
    one warning and in ds.attrs['files'] with its reason."""
    pytest.importorskip("inspect_ai")
    for folder in ("success", "header_only"):
        for path in (INSPECT / folder).iterdir():
            shutil.copy(path, tmp_path / path.name)
    ds, caught = _quiet(read_inspect, [tmp_path])
    assert ds["model"].values.tolist() == ["mockllm/model-a", "mockllm/model-b"]
    assert len(caught) == 1 and "model-c.eval (holds no per-sample results" in caught[0]
    lines = ds.attrs["files"].splitlines()
    assert len(lines) == 3
    assert sum(line.startswith("loaded: ") for line in lines) == 2
    assert any(line.startswith("skipped: ") and "model-c.eval" in line for line in lines)


def test_limit_is_read_from_the_header():
    """--limit 3 on a 100-sample dataset: 3 planned, 3 ran, nothing to say."""
    pytest.importorskip("inspect_ai")
    (path,) = sorted((INSPECT / "limit_success").iterdir())
    assert _inspect_header(path).eval.dataset.samples == 100
    ds, caught = _quiet(read_inspect, [path])
    assert caught == []
    assert ds.sizes["question"] == 3
    expected = _inspect_scores(path)
    got = {q: float(ds["correct"].sel(question=q).item()) for q in ds["question"].values}
    assert got == expected


def test_cancelled_after_every_planned_sample_loads_with_one_warning():
    pytest.importorskip("inspect_ai")
    (path,) = sorted((INSPECT / "cancelled_all_ran").iterdir())
    assert _inspect_header(path).status == "cancelled"
    ds, caught = _quiet(read_inspect, [path])
    assert len(caught) == 1
    assert "status 'cancelled', but all 3 planned (sample, epoch) (limit 3) ran" in caught[0]
    got = {q: float(ds["correct"].sel(question=q).item()) for q in ds["question"].values}
    assert got == _inspect_scores(path)


def test_cancelled_run_with_limit_counts_against_the_limit():
    """A real cancellation under --limit 4: 2 scored, 1 cancelled mid-way, 1 never ran; the
    count is against the limit (it used to say 98 of 100 never ran)."""
    pytest.importorskip("inspect_ai")
    (path,) = sorted((INSPECT / "cancelled_limit").iterdir())
    with pytest.raises(DataError) as err:
        read_inspect([path])
    msg = str(err.value)
    assert "has status 'cancelled'; 1 of 4 (sample, epoch) (limit 4) never ran; 2 scored" in msg
    assert "of 100" not in msg and "CancelledError" in msg
    ds, caught = _quiet(read_inspect, [path], incomplete="use-scored")
    assert len(caught) == 1 and "has status 'cancelled'" in caught[0]
    got = {q: float(ds["correct"].sel(question=q).item()) for q in ds["question"].values}
    assert got == _inspect_scores(path)


def test_cancelled_before_any_sample_was_scored():
    pytest.importorskip("inspect_ai")
    (path,) = sorted((INSPECT / "cancelled_none").iterdir())
    for incomplete in ("error", "use-scored"):
        with pytest.raises(DataError) as err, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            read_inspect([path], incomplete=incomplete)
        msg = str(err.value)  # one line: the status, the counts and the log's own message
        assert "was cancelled (status 'cancelled') before any sample was scored" in msg
        assert "3 of 4 (sample, epoch) (limit 4) never ran" in msg
        assert "CancelledError" in msg and "\n" not in msg
        assert "no scorers" not in msg


def test_stderr_comparison_says_n_and_n_minus_1():
    """Inspect's stderr is the sample SD (n - 1) over sqrt(n) of the per-question scores;
    bayesnoise's SE divides by n. Both are checked against the header's own numbers."""
    pytest.importorskip("inspect_ai")
    ds = read_inspect([INSPECT / "success"])
    means = _means(ds)
    for path in sorted((INSPECT / "success").iterdir()):
        header = _inspect_header(path)
        metrics = header.results.scores[0].metrics
        values = (ds["correct"] / ds["samples"]).sel(model=header.eval.model).values
        n = values.size
        assert math.isclose(means[header.eval.model], metrics["accuracy"].value, abs_tol=1e-12)
        assert math.isclose(
            np.std(values, ddof=1) / math.sqrt(n), metrics["stderr"].value, rel_tol=1e-12
        )
        ours = np.std(values, ddof=0) / math.sqrt(n)
        shown = bayesnoise._common.fmt_value(ours)
        assert f"loaded SE {shown} (with n;" in ds.attrs["notes"]
        assert f"(sample SD with n - 1, n = {n})" in ds.attrs["notes"]


# --- lm-eval ----------------------------------------------------------------------------


def _results(folder, model):
    (path,) = (folder / model.replace("/", "__")).glob("results_*.json")
    return json.loads(path.read_text())["results"]


@pytest.mark.parametrize("filt", ["strict-match", "flexible-extract"])
def test_lm_eval_0_4_5_split_by_filter(filt):
    """lm-eval 0.4.5 writes no filter field and logs each document once per filter: split by
    the results file's filter order, every model's mean equals the harness's own
    exact_match,<filter>, and the dataset equals the one from 0.4.13's logs of the same
    answers (which name the filter)."""
    old = read_lm_eval([LM_EVAL / "v0.4.5"], benchmark="arith", filter=filt)
    new = read_lm_eval([LM_EVAL / "v0.4.13"], benchmark="arith", filter=filt)
    xr.testing.assert_equal(old, new)
    for model, mean in _means(old).items():
        assert mean == pytest.approx(
            _results(LM_EVAL / "v0.4.5", model)["arith"][f"exact_match,{filt}"], abs=1e-12
        )
    assert set(np.unique(old["correct"].values)) <= {0.0, 1.0}  # never averaged
    assert "told apart by order as strict-match, flexible-extract" in old.attrs["notes"]


def test_lm_eval_0_4_5_without_filter_asks_for_one():
    with pytest.raises(
        DataError, match=r"holds 2 filters \(strict-match, flexible-extract\); choose one"
    ):
        read_lm_eval([LM_EVAL / "v0.4.5"], benchmark="arith")


def test_lm_eval_0_4_5_split_refused_when_the_order_disagrees(tmp_path):
    """The two blocks swapped: each filter's mean no longer matches the results file."""
    shutil.copytree(LM_EVAL / "v0.4.5" / "org__model-a", tmp_path / "org__model-a")
    (path,) = (tmp_path / "org__model-a").glob("samples_arith_*.jsonl")
    lines = path.read_text().splitlines()
    half = len(lines) // 2
    path.write_text("\n".join(lines[half:] + lines[:half]) + "\n")
    with pytest.raises(DataError, match="cannot tell which record is which filter"):
        read_lm_eval([tmp_path], benchmark="arith", filter="strict-match")


@pytest.fixture
def mixed_output(tmp_path):
    """An output folder: three runs with both filters, a fourth run of model-c with another
    filter, and a results file of model-a written without --log_samples."""
    out = tmp_path / "out"
    shutil.copytree(LM_EVAL / "v0.4.13", out)
    for extra in ("v0.4.13_other_filter", "v0.4.13_results_only"):
        shutil.copytree(LM_EVAL / extra, out, dirs_exist_ok=True)
    return out


def test_folder_where_one_run_differs_reports_every_file(mixed_output):
    ds, caught = _quiet(read_lm_eval, [mixed_output], benchmark="arith", filter="strict-match")
    assert ds.attrs["runs"] == 1 and ds.sizes["model"] == 3
    assert len(caught) == 1 and len(caught[0]) <= 200  # one line; the report has the rest
    assert "no filter 'strict-match'" in caught[0]
    assert "results only, per-question" in caught[0]
    report = ds.attrs["files"].splitlines()
    found = sorted(str(p) for p in mixed_output.rglob("*.json*"))
    assert sorted(line.split(": ", 1)[1].split(" (")[0] for line in report) == found
    skipped = [line for line in report if line.startswith("skipped: ")]
    assert sum("samples_choice_" in line for line in skipped) == 3  # the other task
    assert sum("(no filter 'strict-match'" in line for line in skipped) == 1
    assert sum("(results only" in line for line in skipped) == 1


def test_folder_where_runs_have_other_filters_asks_for_one(mixed_output):
    with pytest.raises(
        DataError, match=r"holds 3 filters \(strict-match, flexible-extract, last-number\)"
    ):
        read_lm_eval([mixed_output], benchmark="arith")


def test_results_only_says_so():
    with pytest.raises(DataError) as err:
        read_lm_eval([LM_EVAL / "v0.4.13_results_only"])
    msg = str(err.value)
    assert "results only" in msg and "re-run lm-eval with --log_samples" in msg


def test_lmms_eval_date_first_names():
    """lmms-eval's <DATE>_samples_<task>.jsonl and <DATE>_results.json load like lm-eval's."""
    lmms = read_lm_eval([LOGS / "lmms_eval"], benchmark="arith", filter="strict-match")
    lm = read_lm_eval([LM_EVAL / "v0.4.13"], benchmark="arith", filter="strict-match")
    xr.testing.assert_equal(lmms, lm)
    assert bayesnoise.load(LOGS / "lmms_eval", benchmark="choice", metric="acc").sizes["model"] == 3


# --- Eval-Arena pass1 with a known K ---------------------------------------------------


def test_samples_per_question_reads_pass1_as_counts():
    table = pd.read_json(LOGS / "eval_arena" / "cruxeval_input_k5.jsonl", lines=True)
    plain = bayesnoise.load(LOGS / "eval_arena" / "cruxeval_input_k5.jsonl")
    assert plain.attrs["counts_known"] is False
    with pytest.raises(DataError, match="fractional pass1"):
        beta_binomial_counts(plain)
    ds = bayesnoise.load(LOGS / "eval_arena" / "cruxeval_input_k5.jsonl", samples_per_question=5)
    assert ds.attrs["counts_known"] is True and ds.attrs["binary"] is True
    assert (ds["samples"].values == 5).all()
    for row in table.itertuples():
        assert ds["correct"].sel(model=row.model, question=row.example_id).item() == round(
            row.pass1 * 5
        )
    correct, count = beta_binomial_counts(ds)
    assert count.max() == 5 and np.all(correct == np.round(correct))


def test_samples_per_question_names_the_bad_row():
    df = pd.DataFrame(
        {"model": ["a", "a", "b"], "example_id": ["q1", "q2", "q1"], "pass1": [0.2, 0.33, 1.0]}
    )
    with pytest.raises(DataError) as err:
        bayesnoise.load(df, samples_per_question=5)
    msg = str(err.value)
    assert (
        "row 1 (model='a', example_id='q2')" in msg
        and "pass1=0.33 times samples_per_question=5" in msg
    )
    # within 1e-6 of a whole number is accepted: 1/3 written with 10 digits, K = 3
    ok = bayesnoise.load(df.assign(pass1=[0.3333333333, 0.6666666667, 1.0]), samples_per_question=3)
    assert ok["correct"].values.tolist() == [[1.0, 2.0], [3.0, 0.0]]
    per_sample = pd.DataFrame({"model": ["a"], "example_id": ["q1"], "correct": [1]})
    with pytest.raises(DataError, match="applies to Eval-Arena tables"):
        bayesnoise.load(per_sample, samples_per_question=5)


def test_samples_per_question_on_the_command_line():
    from bayesnoise.cli._options import input_parent

    args = input_parent().parse_args(["x.jsonl", "--samples-per-question", "5"])
    assert args.samples_per_question == 5
    with pytest.raises(SystemExit), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        input_parent().parse_args(["x.jsonl", "--samples-per-question", "2.5"])


# --- lighteval --------------------------------------------------------------------------

LIGHTEVAL = LOGS / "lighteval"


def _lighteval_results(root, model):
    """lighteval's own results of ``model`` (results_<DATE>.json naming it)."""
    found = [
        p
        for p in root.rglob("results_*.json")
        if json.loads(p.read_text())["config_general"]["model_name"] == model
    ]
    (path,) = found
    return json.loads(path.read_text())["results"]


@pytest.mark.parametrize(
    ("task", "metric"),
    [("lighteval|quiz|0", "acc"), ("lighteval|quiz|0", "acc_norm"), ("lighteval|arith|0", None)],
)
def test_lighteval_details_match_their_results(task, metric):
    ds = read_lighteval([LIGHTEVAL / "v0.13"], benchmark=task, metric=metric)
    assert ds["model"].values.tolist() == ["org/model-a", "org/model-b"]
    for model, mean in _means(ds).items():
        own = _lighteval_results(LIGHTEVAL / "v0.13", model)[task][metric or "extractive_match"]
        assert mean == pytest.approx(own, abs=1e-12)


def test_leaderboard_v1_details_with_text_metrics():
    ds = read_lighteval([LIGHTEVAL / "leaderboard_v1"], metric="acc")
    for model, mean in _means(ds).items():
        assert mean == pytest.approx(
            _lighteval_results(LIGHTEVAL / "leaderboard_v1", model)["harness|quiz|5"]["acc"],
            abs=1e-12,
        )
    assert "question ids are row numbers" in ds.attrs["notes"]


def test_lighteval_bad_inputs(tmp_path):
    with pytest.raises(
        DataError, match=r"holds 2 metrics \(acc, acc_norm\); choose one with metric="
    ):
        read_lighteval([LIGHTEVAL / "v0.13"], benchmark="lighteval|quiz|0")
    with pytest.raises(DataError, match=r"no metric 'f1'; found acc, acc_norm"):
        read_lighteval([LIGHTEVAL / "v0.13"], benchmark="lighteval|quiz|0", metric="f1")
    source = next((LIGHTEVAL / "v0.13").rglob("details_lighteval|arith|0_*.parquet"))
    cut = tmp_path / "details" / "org" / "model-a" / source.parent.name / source.name
    cut.parent.mkdir(parents=True)
    cut.write_bytes(source.read_bytes()[: source.stat().st_size // 2])
    with pytest.raises(DataError, match=r"cannot read as Parquet .*cut short"):
        read_lighteval([cut])
    with pytest.raises(DataError, match=r"filter= applies to lm-eval output, not to lighteval"):
        bayesnoise.load(LIGHTEVAL / "v0.13", filter="strict-match")


# --- HELM -------------------------------------------------------------------------------

HELM = LOGS / "helm"


def test_helm_runs_match_stats_json():
    if not HELM.exists():
        pytest.skip("no HELM fixture")
    ds = read_helm([HELM], metric="exact_match")
    for run in sorted(p.parent for p in HELM.rglob("per_instance_stats.json")):
        spec = json.loads((run / "run_spec.json").read_text())
        stats = json.loads((run / "stats.json").read_text())
        (own,) = [s["mean"] for s in stats if s["name"] == {"name": "exact_match", "split": "test"}]
        assert _means(ds)[spec["adapter_spec"]["model"]] == pytest.approx(own, abs=1e-12)


def test_helm_bad_inputs(tmp_path):
    if not HELM.exists():
        pytest.skip("no HELM fixture")
    with pytest.raises(DataError, match=r"metrics .*choose one with metric="):
        read_helm([HELM])
    with pytest.raises(DataError, match=r"no metric 'accuracy'; found .*exact_match"):
        read_helm([HELM], metric="accuracy")
    run = next(p.parent for p in HELM.rglob("per_instance_stats.json"))
    shutil.copytree(run, tmp_path / run.name)
    stats = tmp_path / run.name / "per_instance_stats.json"
    stats.write_text(stats.read_text()[: stats.stat().st_size // 2])
    with pytest.raises(DataError, match=r"cannot read as JSON .*cut short"):
        read_helm([tmp_path / run.name], metric="exact_match")
