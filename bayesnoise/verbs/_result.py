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


def to_result(df: pd.DataFrame, dim: str) -> xr.Dataset:
    """The table ``df`` as a Dataset along ``dim`` (``model``, ``pair``, ``benchmark`` or a
    row dim such as ``row``), columns in order, attrs kept."""
    keys = _KEYS.get(dim, ())
    coords = {}
    if dim == "pair":
        labels = [f"{a} - {b}" for a, b in zip(df["model_a"], df["model_b"], strict=True)]
        coords = {"pair": labels, **{k: (dim, np.asarray(df[k], dtype=str)) for k in keys}}
    elif keys:
        coords = {dim: np.asarray(df[keys[0]], dtype=str)}
    else:
        coords = {dim: np.arange(len(df))}
    data = {}
    for name in df.columns:
        if name in keys:
            continue
        values = df[name].to_numpy()
        dtype = df[name].dtype
        if isinstance(dtype, pd.api.extensions.ExtensionDtype) and pd.api.types.is_numeric_dtype(
            dtype
        ):
            values = df[name].to_numpy(dtype=float, na_value=np.nan)  # e.g. Int64 with <NA>
        if values.dtype == object and all(isinstance(v, str) for v in values):
            values = values.astype(str)
        data[name] = xr.Variable(dim, values, attrs=_attrs(name))
    ds = xr.Dataset(data, coords=coords)
    for k in keys:
        ds[k].attrs.update(_attrs(k))
    ds.attrs.update({k: _json_safe(v) for k, v in df.attrs.items()})
    ds.attrs["columns"] = list(map(str, df.columns))
    return ds


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
    """The tidy table of a verb's result: one row per model / pair / row, the columns the
    command line prints, in its order.

    Examples
    --------
    >>> import pandas as pd
    >>> r = to_result(pd.DataFrame({"model": ["a"], "accuracy": [0.5]}), "model")
    >>> tidy(r).to_dict("list")
    {'model': ['a'], 'accuracy': [0.5]}
    """
    columns = result.attrs.get("columns") or [*result.coords, *result.data_vars]
    if any(result[v].ndim > 1 for v in result.data_vars):  # a grid (e.g. model x threshold)
        frame = result[[c for c in columns if c in result.data_vars]].to_dataframe()
        df = frame.reset_index()[columns]
    else:
        df = pd.DataFrame({c: result[c].to_numpy() for c in columns})
    df.attrs.update({k: v for k, v in result.attrs.items() if k != "columns"})
    return df
