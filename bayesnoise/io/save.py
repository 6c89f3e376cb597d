"""Write a dataset so that :func:`~bayesnoise.io.load` reads it back identical, or a verb's
result (NetCDF: read back by :func:`~bayesnoise.io.load` or ``xarray.open_dataset``; a table
format: its printed table).

NetCDF (``.nc``) keeps everything. A table (``.csv``, ``.tsv``, ``.jsonl``, ``.parquet``,
text optionally ``.gz``) is the count layout: one row per (model, question), the ``samples``
variable in a ``count`` column (``count = 0`` where a model has no result), ``sum_sq`` when
scores are partial, ``pass1`` instead of ``count, correct`` when the counts are unknown, plus
constant ``benchmark_id`` and ``source`` columns and a ``cluster`` column when the dataset has
one.
"""

from __future__ import annotations

import gzip
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from bayesnoise._common import few
from bayesnoise.data import (
    MODEL,
    QUESTION,
    DataError,
    attr,
    check_dataset,
    factor_dims,
    renamed_legacy,
)

from .sources import table_kind

__all__ = ["read_netcdf", "save"]

_BOOLS = "bayesnoise_bool_attrs"
#: A verb's result keeps its attributes (numbers, text, lists, None) as one JSON text.
_RESULT_ATTRS = "bayesnoise_result_attrs"
_TABLE_ATTRS = ("benchmark", "source", "binary", "counts_known")


def _netcdf(ds: xr.Dataset, path: Path) -> None:
    out = ds.copy()
    bools = [k for k, v in ds.attrs.items() if isinstance(v, bool | np.bool_)]
    out.attrs = {k: int(v) if k in bools else v for k, v in ds.attrs.items()}
    out.attrs[_BOOLS] = " ".join(bools)
    out.to_netcdf(path, engine="h5netcdf")


def _is_result(ds: xr.Dataset) -> bool:
    """Whether ``ds`` is a verb's result (it lists its printed ``columns``), not a dataset."""
    return "columns" in ds.attrs and not {"correct", "samples"} <= set(ds.data_vars)


def _plain(value):
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, float) and not np.isfinite(value):
        return None
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _result_netcdf(ds: xr.Dataset, path: Path) -> None:
    out = ds.copy()
    out.attrs = {_RESULT_ATTRS: json.dumps({k: _plain(v) for k, v in ds.attrs.items()})}
    for name, var in out.variables.items():
        if var.dtype == object:  # text with gaps (None / NaN): empty text in the file
            text = [v if isinstance(v, str) else "" for v in var.values.ravel()]
            out[name] = var.copy(data=np.asarray(text, dtype=str).reshape(var.shape))
    out.to_netcdf(path, engine="h5netcdf")


def _result_table(ds: xr.Dataset) -> pd.DataFrame:
    """The printed table of a verb's result (:func:`bayesnoise.tidy`'s rows and columns)."""
    columns = ds.attrs.get("columns") or [*ds.coords, *ds.data_vars]
    flat = ds if ds.dims else ds.expand_dims("_")
    frame = flat[[c for c in columns if c in flat.data_vars]].to_dataframe().reset_index()
    return frame[columns]


def _save_result(ds: xr.Dataset, path: Path) -> Path:
    if path.suffix.lower() == ".nc":
        _result_netcdf(ds, path)
        return path
    kind, gz = table_kind(path)
    if kind is None:
        raise DataError(
            f"{path}: cannot write a result as this file type; use .nc (everything), .csv, "
            ".tsv, .json, .jsonl or .parquet (the printed table; text optionally .gz)"
        )
    lost = sorted(set(ds.attrs) - {"columns"})
    if lost:
        warnings.warn(
            f"{path}: a table does not keep the result's attributes {', '.join(lost)}; save "
            "as .nc to keep them",
            stacklevel=3,
        )
    table = _result_table(ds)
    if kind == "parquet":
        table.to_parquet(path, index=False)
    elif kind in ("json", "jsonl"):
        lines = table.to_json(orient="records", lines=kind == "jsonl", double_precision=15)
        with gzip.open(path, "wt") if gz else open(path, "w") as fh:
            fh.write(lines if kind == "json" else lines.rstrip("\n") + "\n")
    else:
        table.to_csv(path, sep="\t" if kind == "tsv" else ",", index=False)
    return path


def read_netcdf(path: Path) -> xr.Dataset:
    """A dataset written by :func:`save` as NetCDF (attributes restored, contract checked).

    A file written by bayesnoise 0.1 holds the ``samples`` variable under its old name
    ``count``; it is renamed.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayesnoise.data import from_arrays
    >>> path = Path(tempfile.mkdtemp()) / "d.nc"
    >>> _ = save(from_arrays([[1, 2]], [[2, 2]]), path)
    >>> read_netcdf(path).attrs["binary"]
    True
    """
    try:
        ds = xr.load_dataset(path, engine="h5netcdf")
    except (OSError, ValueError) as err:
        raise DataError(f"{path}: cannot read as NetCDF: {err}") from None
    if _RESULT_ATTRS in ds.attrs:  # a verb's result: its attributes back, no dataset contract
        ds.attrs = json.loads(ds.attrs[_RESULT_ATTRS])
        return ds
    bools = str(ds.attrs.pop(_BOOLS, "")).split()
    for key in bools:
        ds.attrs[key] = bool(ds.attrs[key])
    factors = ds.attrs.get("factors")
    if isinstance(factors, str):  # a list of one name comes back as a string
        ds.attrs["factors"] = factors = [factors]
    for name in (MODEL, QUESTION, "cluster", *(factors if factors is not None else [])):
        if name in ds.coords:
            ds = ds.assign_coords({name: (ds[name].dims, ds[name].values.astype(str))})
    return check_dataset(renamed_legacy(ds))


def _count_table(ds: xr.Dataset) -> pd.DataFrame:
    if factor_dims(ds):
        raise DataError(
            f"{attr(ds, 'source')}: a dataset with factor dims {factor_dims(ds)} is saved as "
            ".nc (a count table has one row per model and question)"
        )
    ds = ds.transpose(MODEL, QUESTION)
    count = ds["samples"].values
    if not (count > 0).any(axis=0).all() or not (count > 0).any(axis=1).all():
        raise DataError(
            f"{attr(ds, 'source')}: a model or question has no result at all; a table cannot "
            "keep it (save as .nc)"
        )
    models = np.repeat(ds[MODEL].values.astype(str), ds.sizes[QUESTION])
    questions = np.tile(ds[QUESTION].values.astype(str), ds.sizes[MODEL])
    table = {"model": models, "example_id": questions}
    if attr(ds, "counts_known"):
        table["count"] = count.ravel()
        table["correct"] = ds["correct"].values.ravel()
        if not attr(ds, "binary"):
            table["sum_sq"] = ds["sum_sq"].values.ravel()
    else:
        if (count > 1).any():
            raise DataError(f"{attr(ds, 'source')}: counts_known=False with K > 1 in a cell")
        if (count == 0).any():
            raise DataError(
                f"{attr(ds, 'source')}: fractional pass1 values with missing cells cannot be "
                "written as a table (save as .nc)"
            )
        table["pass1"] = ds["correct"].values.ravel()
    if "cluster" in ds.coords:
        table["cluster"] = np.tile(ds["cluster"].values.astype(str), ds.sizes[MODEL])
    table["benchmark_id"] = attr(ds, "benchmark")
    table["source"] = attr(ds, "source")
    return pd.DataFrame(table)


def save(ds: xr.Dataset, path) -> Path:
    """Write a dataset to ``path``; :func:`~bayesnoise.load` reads it back identical.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of the package (dims ``model, question``), or a verb's result.
    path : str or pathlib.Path
        ``.nc`` for NetCDF (keeps every attribute), or ``.csv``, ``.tsv``, ``.jsonl``,
        ``.parquet`` (text optionally ``.gz``) for a count table. A result: ``.nc`` keeps
        everything (:func:`~bayesnoise.load` or ``xarray.open_dataset`` reads it back; text
        with gaps is written as empty text), ``.csv``, ``.tsv``, ``.json``, ``.jsonl``,
        ``.parquet`` its printed table (:func:`bayesnoise.tidy`).

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> import tempfile
    >>> import xarray as xr
    >>> import bayesnoise as bn
    >>> ds = bn.from_arrays([[3, 1], [2, 4]], [[4, 4], [4, 4]], models=["a", "b"])
    >>> path = bn.save(ds, Path(tempfile.mkdtemp()) / "counts.csv")
    >>> xr.testing.assert_identical(bn.load(path), ds)
    >>> r = bn.noise(ds)
    >>> xr.testing.assert_identical(bn.load(bn.save(r, Path(tempfile.mkdtemp()) / "r.nc")), r)
    """
    if _is_result(ds):
        return _save_result(ds, Path(path))
    ds = check_dataset(ds)
    path = Path(path)
    if path.suffix.lower() == ".nc":
        _netcdf(ds, path)
        return path
    kind, gz = table_kind(path)
    if kind is None or kind == "json":
        raise DataError(
            f"{path}: cannot write this file type; use .nc, .csv, .tsv, .jsonl or .parquet "
            "(text optionally .gz)"
        )
    lost = sorted(set(ds.attrs) - set(_TABLE_ATTRS))
    if lost:
        warnings.warn(
            f"{Path(path).name[:60]}: a table does not keep the attributes {few(lost, 70)}; "
            "save as .nc to keep them",
            stacklevel=2,
        )
    table = _count_table(ds)
    if kind == "parquet":
        table.to_parquet(path, index=False)
    elif kind == "jsonl":
        lines = "".join(json.dumps(row) + "\n" for row in table.to_dict("records"))
        with gzip.open(path, "wt") if gz else open(path, "w") as fh:
            fh.write(lines)
    else:
        table.to_csv(path, sep="\t" if kind == "tsv" else ",", index=False)
    return path
