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
