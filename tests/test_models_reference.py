"""The committed reference noise models are what models/build.py computes from the shared data."""

import importlib.util

import numpy as np
import pandas as pd
import pytest
from conftest import REPO


def _build_module():
    spec = importlib.util.spec_from_file_location("build_models", REPO / "models" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reference_files_have_expected_shape():
    models = pd.read_csv(REPO / "models" / "reference_models.csv")
    benches = pd.read_csv(REPO / "models" / "reference_benchmarks.csv")
    assert {
        "run",
        "benchmark",
        "model",
        "se_total",
        "se_data",
        "se_prediction",
        "mu",
        "kappa",
    } <= set(models.columns)
    assert len(benches) >= 40 and benches["questions"].min() >= 30
    counts = models.groupby(["run", "file"]).size()
    merged = benches.set_index(["run", "file"])["models"]
    assert (counts.loc[merged.index] == merged).all()


@pytest.mark.shared_data
def test_reference_rows_rebuild(shared_data):
    build = _build_module()
    stored = pd.read_csv(REPO / "models" / "reference_models.csv")
    models, bench = build.benchmark_rows(
        shared_data / "eval-arena" / "humaneval+.jsonl", "eval-arena"
    )
    mine = stored[(stored["run"] == "eval-arena") & (stored["file"] == "humaneval+.jsonl")]
    # stored with 6 significant digits (float_format="%.6g")
    np.testing.assert_allclose(mine["se_total"], models["se_total"], rtol=1e-5)
    np.testing.assert_allclose(mine["mu"], models["mu"], rtol=1e-5)
    row = (
        pd.read_csv(REPO / "models" / "reference_benchmarks.csv")
        .set_index(["run", "benchmark"])
        .loc[("eval-arena", "humaneval+")]
    )
    assert row["median_se_total_close"] == pytest.approx(bench["median_se_total_close"], rel=1e-5)


# --- reading the tables: exact names, where the tables are looked up -------------------------

BENCHES_CSV = REPO / "models" / "reference_benchmarks.csv"
MODELS_CSV = REPO / "models" / "reference_models.csv"


def _independent_key(name):
    """The documented matching key, spelled out here without the package's helper."""
    text = "".join(ch for ch in str(name).strip().lower() if ch not in " \t_-")
    return text.replace("temp0", "t0").replace("temp1", "t1")


def _expected(benchmark):
    benches = pd.read_csv(BENCHES_CSV)
    stems = benches["file"].str.replace(r"\.[^.]+$", "", regex=True)
    stems = stems.str.removeprefix("input_table_")
    key = _independent_key(benchmark)
    keep = (benches["benchmark"].map(_independent_key) == key) | (
        stems.map(_independent_key) == key
    )
    return benches[keep].reset_index(drop=True)


def test_humaneval_plus_and_humaneval_do_not_mix():
    from bayesnoise.reporting.html import reference_table

    plus = reference_table("humaneval+", models_dir=REPO / "models")
    plain = reference_table("humaneval", models_dir=REPO / "models")
    want_plus, want_plain = _expected("humaneval+"), _expected("humaneval")
    # what the CSV holds: two runs measured humaneval+ (all-the-noises/main, eval-arena)
    assert sorted(want_plus["run"]) == ["all-the-noises/main", "eval-arena"]
    assert set(want_plus["benchmark"]) == {"humaneval+"}
    assert not want_plain["benchmark"].str.contains("+", regex=False).any()
    for got, want in ((plus, want_plus), (plain, want_plain)):
        assert list(zip(got["run"], got["benchmark"], strict=True)) == list(
            zip(want["run"], want["benchmark"], strict=True)
        )
        np.testing.assert_array_equal(
            got["se_difference_median_close"], want["median_se_total_close"]
        )
        np.testing.assert_array_equal(got["questions"], want["questions"])
    # se_model: the median per-model total SE of that run's file, from the models table
    models = pd.read_csv(MODELS_CSV)
    for row, file in zip(plus.itertuples(), want_plus["file"], strict=True):
        mine = models[(models["run"] == row.run) & (models["file"] == file)]
        assert row.se_model == pytest.approx(mine["se_total"].median(), rel=1e-12)
    # human_eval_plus (all-the-noises' own spelling) is a different name, as in the CSV
    assert set(reference_table("human_eval_plus")["benchmark"]) == {"human_eval_plus"}


@pytest.mark.parametrize(
    ("asked", "benchmark"),
    [
        ("HumanEval+", "humaneval+"),
        ("MBPP+", "mbpp+"),
        ("cruxeval_output_temp0.8", "CRUXEval-output-T0.8"),
        ("CRUXEval output T0.2", "CRUXEval-output-T0.2"),
        ("SWEBENCH_LITE", "swebench-lite"),
    ],
)
def test_case_separators_and_temp_are_ignored(asked, benchmark):
    from bayesnoise.reporting.html import reference_table

    assert set(reference_table(asked)["benchmark"]) == {benchmark}


@pytest.mark.parametrize("asked", ["humaneval++", "humane", "mbpp+plus", "eval+"])
def test_no_prefix_or_plus_blind_match_and_the_error_lists_names(asked):
    import bayesnoise as bn
    from bayesnoise.reporting.html import reference_table

    with pytest.raises(bn.DataError) as err:
        reference_table(asked)
    message = str(err.value)
    assert repr(asked) in message
    for known in ("humaneval+", "humaneval", "mbpp+", "CRUXEval-output-T0.8", "math500_cot"):
        assert f" {known}," in message or message.endswith(f" {known}")


def _copy_tables(folder, rows=None):
    folder.mkdir(parents=True, exist_ok=True)
    benches = pd.read_csv(BENCHES_CSV)
    if rows is not None:
        benches = benches.iloc[rows]
    benches.to_csv(folder / "reference_benchmarks.csv", index=False)
    (folder / "reference_models.csv").write_bytes(MODELS_CSV.read_bytes())
    return folder


def test_lookup_order_path_env_packaged_repo(tmp_path, monkeypatch):
    from types import SimpleNamespace

    import bayesnoise as bn
    from bayesnoise.reporting import _html_reference as ref

    monkeypatch.delenv("BAYESNOISE_MODELS", raising=False)
    explicit = _copy_tables(tmp_path / "explicit", rows=[0])
    env = _copy_tables(tmp_path / "env", rows=[1])
    packaged_root = tmp_path / "pkg"
    _copy_tables(packaged_root / "_models", rows=[2])

    # nothing given and nothing packaged (editable install): the repository's models/
    monkeypatch.setattr(ref, "resources", SimpleNamespace(files=lambda name: tmp_path / "none"))
    assert ref.models_dir() == REPO / "models"
    # the packaged copy comes before models/
    monkeypatch.setattr(ref, "resources", SimpleNamespace(files=lambda name: packaged_root))
    assert ref.models_dir() == packaged_root / "_models"
    assert len(ref.read_references()[0]) == 1
    # $BAYESNOISE_MODELS comes before the packaged copy, an explicit path before both
    monkeypatch.setenv("BAYESNOISE_MODELS", str(env))
    assert ref.models_dir() == env
    assert ref.models_dir(explicit) == explicit
    # a folder that was asked for but holds no tables is an error, not a silent fall-back
    with pytest.raises(bn.DataError, match="BAYESNOISE_MODELS"):
        monkeypatch.setenv("BAYESNOISE_MODELS", str(tmp_path / "empty"))
        ref.models_dir()
    with pytest.raises(bn.DataError, match="models_dir="):
        ref.models_dir(tmp_path / "empty")


def test_packaged_copy_read_from_a_zip(tmp_path, monkeypatch):
    """The packaged tables are read through importlib.resources, so a zipped package works."""
    import zipfile
    from types import SimpleNamespace

    from bayesnoise.reporting import _html_reference as ref

    archive = tmp_path / "bayesnoise.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(BENCHES_CSV, "bayesnoise/_models/reference_benchmarks.csv")
        zf.write(MODELS_CSV, "bayesnoise/_models/reference_models.csv")
    monkeypatch.delenv("BAYESNOISE_MODELS", raising=False)
    root = zipfile.Path(archive, "bayesnoise/")
    monkeypatch.setattr(ref, "resources", SimpleNamespace(files=lambda name: root))
    benches, models = ref.read_references()
    pd.testing.assert_frame_equal(benches, pd.read_csv(BENCHES_CSV))
    assert len(models) == len(pd.read_csv(MODELS_CSV))
    assert list(ref.reference_rows("humaneval+")["run"]) == ["all-the-noises/main", "eval-arena"]
