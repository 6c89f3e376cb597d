"""Verb results: a table becomes an ``xarray.Dataset`` with named dims; :func:`tidy` undoes it.

Every variable carries its registry entry (``long_name``, ``description``, ``units``,
``scope``, ``method``) from :mod:`bayesnoise.vocabulary`; an unregistered column is a bug.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from bayesnoise.vocabulary import describe

_KEYS = {
    "model": ("model",),
    "pair": ("model_a", "model_b"),
    "benchmark": ("benchmark",),
    "question": ("question",),
}


def _json_safe(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return value


def _values(df: pd.DataFrame, name: str) -> np.ndarray:
    """A column as a numpy array xarray and netCDF keep: nullable numbers as float with NaN,
    all-string object columns as str."""
    values = df[name].to_numpy()
    dtype = df[name].dtype
    if isinstance(dtype, pd.api.extensions.ExtensionDtype) and pd.api.types.is_numeric_dtype(dtype):
        values = df[name].to_numpy(dtype=float, na_value=np.nan)  # e.g. Int64 with <NA>
    if values.dtype == object and all(isinstance(v, str) for v in values):
        values = values.astype(str)
    return values


def _finish(ds: xr.Dataset, df: pd.DataFrame, keys) -> xr.Dataset:
    for k in keys:
        ds[k].attrs.update(_attrs(k))
    ds.attrs.update({k: _json_safe(v) for k, v in df.attrs.items()})
    ds.attrs["columns"] = list(map(str, df.columns))
    return ds


def to_result(df: pd.DataFrame, dim: str | None) -> xr.Dataset:
    """The table ``df`` as a Dataset along ``dim``, columns in order, attrs kept.

    ``dim`` names what a row is: ``model``, ``pair`` (labels ``"A - B"``, coords ``model_a``,
    ``model_b``), ``benchmark``, ``question``, or any column of ``df`` whose values name the
    rows (``run``, ``subtask``, ``priority``, ...), which becomes the coordinate; a name
    that is not a column (``step``) numbers the rows. ``None``: a one-row table as scalar
    variables (a single answer has no dim). ``"row"`` is refused: a dim says what a row is.
    """
    if dim == "row":
        raise ValueError("a result's dim names what a row is (model, pair, run, ...), not 'row'")
    if dim is None:
        if len(df) != 1:
            raise ValueError(f"a result without a dim has one row, got {len(df)}")
        data = {name: xr.Variable((), _values(df, name)[0], attrs=_attrs(name)) for name in df}
        return _finish(xr.Dataset(data), df, ())
    keys = _KEYS.get(dim, (dim,) if dim in df.columns else ())
    if dim == "pair":
        # vectorised: a Python loop over the pairs took 0.05 s of CPU at 44,850 pairs
        labels = (df["model_a"].astype(str) + " - " + df["model_b"].astype(str)).to_numpy(str)
        labels = labels if len(df) else []  # no pairs: the coordinate as before (float64)
        if "subtask" in df.columns:  # one pair in several subtasks: labels stay unique
            labels = [f"{s}: {p}" for s, p in zip(df["subtask"], labels, strict=True)]
        coords = {"pair": labels, **{k: (dim, np.asarray(df[k], dtype=str)) for k in keys}}
    elif dim in _KEYS:
        coords = {dim: np.asarray(df[keys[0]], dtype=str)}
    elif keys:
        coords = {dim: _values(df, dim)}
    else:
        coords = {dim: np.arange(len(df))}
    data = {
        name: xr.Variable(dim, _values(df, name), attrs=_attrs(name))
        for name in df.columns
        if name not in keys
    }
    return _finish(xr.Dataset(data, coords=coords), df, keys)


def to_grid(df: pd.DataFrame, dims: tuple[str, ...]) -> xr.Dataset:
    """A table whose rows are every combination of the ``dims`` columns (each once) as a
    Dataset on that grid (coordinates in order of appearance); :func:`tidy` gives the rows
    back in C order."""
    levels = [pd.unique(df[d].astype(str)) for d in dims]
    codes = [
        pd.Index(lv).get_indexer(df[d].astype(str)) for d, lv in zip(dims, levels, strict=True)
    ]
    shape = tuple(len(lv) for lv in levels)
    flat = np.ravel_multi_index(codes, shape) if len(df) else np.zeros(0, dtype=int)
    if len(df) != int(np.prod(shape)) or np.unique(flat).size != len(df):
        raise ValueError(f"the rows are not each combination of {', '.join(dims)} once")
    data = {}
    for name in df.columns:
        if name in dims:
            continue
        values = _values(df, name)
        grid = np.empty(len(df), dtype=values.dtype)
        grid[flat] = values
        data[name] = xr.Variable(dims, grid.reshape(shape), attrs=_attrs(name))
    coords = {d: np.asarray(lv, dtype=str) for d, lv in zip(dims, levels, strict=True)}
    return _finish(xr.Dataset(data, coords=coords), df, dims)


def _attrs(name: str) -> dict:
    entry = describe(name)
    return {
        "long_name": entry["label"],
        "description": entry["description"],
        "units": entry["unit"],
        "scope": entry["scope"],
        "method": entry["method"],
    }


def tidy(result: xr.Dataset) -> pd.DataFrame:
    """The tidy table of a verb's result: one row per model / pair / row, every column, in
    the command's order: what ``--format csv`` writes (the text table prints the command's
    main columns and first rows of it, and names the rest; one long table where the result
    has several sets of dims, e.g. ``noises``' per-model and per-component variables).

    Parameters
    ----------
    result : xarray.Dataset
        What a verb returned.

    Returns
    -------
    pandas.DataFrame
        The table ``--format csv`` writes.

    Examples
    --------
    >>> import pandas as pd
    >>> r = to_result(pd.DataFrame({"model": ["a"], "accuracy": [0.5]}), "model")
    >>> tidy(r).to_dict("list")
    {'model': ['a'], 'accuracy': [0.5]}
    """
    if not result.dims:  # a single answer (scalar variables): one row
        result = result.expand_dims("_")
    columns = result.attrs.get("columns") or [*result.coords, *result.data_vars]
    if any(result[v].ndim > 1 for v in result.data_vars):  # a grid (e.g. model x threshold)
        frame = result[[c for c in columns if c in result.data_vars]].to_dataframe()
        df = frame.reset_index()[columns]
    else:
        df = pd.DataFrame({c: result[c].to_numpy() for c in columns})
    df.attrs.update({k: v for k, v in result.attrs.items() if k != "columns"})
    return df


def tidy_tables(result: xr.Dataset) -> list[pd.DataFrame]:
    """The tables a command prints for ``result``: :func:`tidy`'s table when every variable
    has the same dims, else one table per set of dims, in the order of the columns (e.g.
    ``noises``: one row per model, then one row per model and variance component), each with
    the coordinates of its dims as its key columns. :func:`tidy` keeps the one long table
    (CSV, JSON).

    Examples
    --------
    >>> import xarray as xr
    >>> r = xr.Dataset({"accuracy": ("model", [0.5]), "share": (("model", "part"), [[0.2, 0.8]])},
    ...                coords={"model": ["a"], "part": ["x", "y"]})
    >>> [list(t.columns) for t in tidy_tables(r)]
    [['model', 'accuracy'], ['model', 'part', 'share']]
    """
    dims = {name: result[name].dims for name in result.data_vars}
    if len(set(dims.values())) < 2:
        return [tidy(result)]
    columns = result.attrs.get("columns") or [*result.coords, *result.data_vars]
    groups: dict[tuple, list[str]] = {}
    for name in columns:
        if name in dims:
            groups.setdefault(dims[name], []).append(name)
    tables = []
    for group_dims, names in groups.items():
        keys = [c for c in columns if c in result.coords and set(result[c].dims) <= set(group_dims)]
        part = result[names]
        part.attrs = {**result.attrs, "columns": [*keys, *names]}
        tables.append(tidy(part))
    return tables
