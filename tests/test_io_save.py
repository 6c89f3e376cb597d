"""bayesnoise.save: NetCDF and count tables that load back identical."""

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import bayesnoise as bn
from bayesnoise.data import DataError, from_arrays

TABLES = ["csv", "csv.gz", "tsv", "tsv.gz", "parquet", "jsonl", "jsonl.gz"]


def _partial_with_gap_and_cluster():
    """Partial-credit scores, a cell without a result (b has no q1) and a cluster label."""
    df = pd.DataFrame(
        {
            "model": ["a", "a", "a", "b", "b"],
            "example_id": ["q1", "q2", "q2", "q2", "q3"],
            "sample": [0, 0, 1, 0, 0],
            "correct": [0.5, 1.0, 0.1, 0.25, 1.0],
            "cluster": ["x", "y", "y", "y", "x"],
        }
    )
    return bn.load(df)


@pytest.fixture(
    params=["bundled", "partial", "arena"],
)
def dataset(request, bundled_data):
    if request.param == "bundled":
        return bn.load(bundled_data / "cruxeval_output_temp0.8.csv.gz")
    if request.param == "partial":
        return _partial_with_gap_and_cluster()
    arena = pd.DataFrame(
        {"model": ["a", "a", "b", "b"], "example_id": [1, 2, 1, 2], "pass1": [0.3, 1, 0, 0.7]}
    )
    ds = bn.load(arena.assign(benchmark_id="arena"))
    assert ds.attrs["counts_known"] is False
    return ds


@pytest.mark.parametrize("ext", ["nc", *TABLES])
def test_round_trip_is_identical(tmp_path, dataset, ext):
    path = bn.save(dataset, tmp_path / f"d.{ext}")
    xr.testing.assert_identical(bn.load(path), dataset)


def test_netcdf_keeps_extra_attributes_and_boolean_ones(tmp_path):
    ds = _partial_with_gap_and_cluster()
    ds.attrs["notes"] = "left out 2 unscored samples"
    ds.attrs["runs"] = 3
    back = bn.load(bn.save(ds, tmp_path / "d.nc"))
    xr.testing.assert_identical(back, ds)
    assert back.attrs["binary"] is False and back.attrs["counts_known"] is True


def test_table_warns_about_attributes_it_cannot_keep(tmp_path):
    ds = _partial_with_gap_and_cluster()
    ds.attrs["notes"] = "a note"
    with pytest.warns(UserWarning, match=r"does not keep the attributes notes; save as .nc"):
        bn.save(ds, tmp_path / "d.csv")
    back = bn.load(tmp_path / "d.csv")
    assert "notes" not in back.attrs
    del ds.attrs["notes"]
    xr.testing.assert_identical(back, ds)


def test_table_refuses_a_model_without_any_result(tmp_path):
    ds = from_arrays(np.array([[1, 0], [0, 0]]), np.array([[1, 1], [0, 0]]), models=["a", "b"])
    with pytest.raises(DataError, match=r"a model or question has no result at all; .*save as .nc"):
        bn.save(ds, tmp_path / "d.csv")
    xr.testing.assert_identical(bn.load(bn.save(ds, tmp_path / "d.nc")), ds)


def test_unknown_extension_and_bad_netcdf(tmp_path):
    ds = _partial_with_gap_and_cluster()
    with pytest.raises(DataError, match=r"d.xlsx: cannot write this file type; use .nc, .csv"):
        bn.save(ds, tmp_path / "d.xlsx")
    bad = tmp_path / "bad.nc"
    bad.write_text("not netcdf")
    with pytest.raises(DataError, match=r"bad.nc: cannot read as NetCDF"):
        bn.load(bad)


def test_saved_table_reads_as_a_count_table(tmp_path, bundled_data):
    ds = bn.load(bundled_data / "cruxeval_output_temp0.8.csv.gz")
    table = pd.read_csv(bn.save(ds, tmp_path / "d.csv"))
    assert list(table.columns) == [
        "model",
        "example_id",
        "count",
        "correct",
        "benchmark_id",
        "source",
    ]
    assert len(table) == ds.sizes["model"] * ds.sizes["question"]
    assert (table["count"] == 10).all()


def test_netcdf_of_version_0_1_loads_with_count_renamed(tmp_path):
    """``samples`` was called ``count`` (hidden by ``Dataset.count``); old files still load."""
    ds = bn.from_arrays([[3, 1], [2, 0]], [[4, 4], [4, 0]], models=["a", "b"])
    old = tmp_path / "old.nc"
    bn.save(ds, old)
    with xr.open_dataset(old, engine="h5netcdf") as f:
        legacy = f.load().rename(samples="count")
    legacy.to_netcdf(tmp_path / "legacy.nc", engine="h5netcdf")
    back = bn.load(tmp_path / "legacy.nc")
    assert "count" not in back.data_vars and back["samples"].values.tolist() == [[4, 4], [4, 0]]
    xr.testing.assert_identical(back, ds)
    # an old in-memory dataset: load renames it; the contract check names the new variable
    xr.testing.assert_identical(bn.load(ds.rename(samples="count")), ds)
    with pytest.raises(bn.DataError, match="now called 'samples'"):
        bn.save(ds.rename(samples="count"), tmp_path / "x.nc")


def test_samples_is_not_hidden_by_dataset_methods():
    ds = bn.from_arrays([[3, 1]], [[4, 4]])
    assert ds.samples.values.tolist() == [[4, 4]]
