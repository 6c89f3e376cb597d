"""Readers for in-memory inputs: a score array (model, question, sample) and a wide matrix."""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from bayesnoise._common import fmt_value as _fmt
from bayesnoise.data import MODEL, QUESTION, SAMPLE, DataError, from_arrays

__all__ = ["from_sample_array", "from_wide"]


def from_sample_array(scores: xr.DataArray, *, benchmark: str = "benchmark") -> xr.Dataset:
    """Dataset from a score array with dims ``(model, question, sample)``.

    Scores in [0, 1]; NaN marks a sample that was not drawn (so K may differ per cell).

    Parameters
    ----------
    scores : xarray.DataArray
        Scores with dims ``(model, question, sample)``.
    benchmark : str, default "benchmark"
        The benchmark's name (``attrs["benchmark"]``).

    Returns
    -------
    xarray.Dataset
        The package's dataset (``correct``, ``samples``, ``sum_sq`` per model and question).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from bayesnoise.io import from_sample_array
    >>> a = xr.DataArray([[[1, 0, np.nan], [1, 1, 1]]], dims=("model", "question", "sample"),
    ...                  coords={"model": ["m"], "question": ["q1", "q2"]})
    >>> from_sample_array(a)["samples"].values.tolist()
    [[2, 3]]
    """
    if set(scores.dims) != {MODEL, QUESTION, SAMPLE}:
        raise DataError(f"score array needs dims (model, question, sample), got {scores.dims}")
    scores = scores.transpose(MODEL, QUESTION, SAMPLE)
    values = np.asarray(scores.values, dtype=float)
    drawn = ~np.isnan(values)
    bad = drawn & ((values < 0) | (values > 1))
    if bad.any():
        m, q, j = np.argwhere(bad)[0]
        raise DataError(
            f"score array: model {_fmt(scores[MODEL].values[m]) if MODEL in scores.coords else m}, "
            f"question {_fmt(scores[QUESTION].values[q]) if QUESTION in scores.coords else q}, "
            f"sample {j}: score {_fmt(values[m, q, j])} is outside [0, 1]"
        )
    filled = np.where(drawn, values, 0.0)
    return from_arrays(
        filled.sum(axis=-1),
        drawn.sum(axis=-1),
        sum_sq=(filled**2).sum(axis=-1),
        models=scores[MODEL].values if MODEL in scores.coords else None,
        questions=scores[QUESTION].values if QUESTION in scores.coords else None,
        benchmark=benchmark,
        source="DataArray",
    )


def from_wide(
    df: pd.DataFrame, *, name: str = "DataFrame", benchmark: str = "benchmark"
) -> xr.Dataset:
    """Dataset from a wide matrix: one row per question (index), one column per model, 0/1 scores.

    Fractional entries are accepted as per-question expected scores without sample counts
    (``counts_known=False``).

    Parameters
    ----------
    df : pandas.DataFrame
        One row per question (the index), one column per model.
    name : str, default "DataFrame"
        What error messages call the input.
    benchmark : str, default "benchmark"
        The benchmark's name (``attrs["benchmark"]``).

    Returns
    -------
    xarray.Dataset
        The package's dataset (``correct``, ``samples``, ``sum_sq`` per model and question).

    Examples
    --------
    >>> import pandas as pd
    >>> from bayesnoise.io import from_wide
    >>> wide = pd.DataFrame({"a": [1, 0, 1], "b": [1, 1, 0]}, index=["q1", "q2", "q3"])
    >>> from_wide(wide)["correct"].sum("question").values.tolist()
    [2.0, 2.0]
    """
    values = df.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    hint = (
        " (read as a wide matrix: rows = questions, columns = models; for a long table, name "
        "its columns with columns={'model': ..., 'question': ..., 'score': ...})"
    )
    bad = np.isnan(values)
    if bad.any():
        q, m = np.argwhere(bad)[0]
        raise DataError(
            f"{name}: question {df.index[q]!r}, model {df.columns[m]!r}: value {_fmt(df.iat[q, m])} "
            f"is missing or not a number ({int(bad.sum())} such cells); nothing is imputed{hint}"
        )
    out = (values < 0) | (values > 1)
    if out.any():
        q, m = np.argwhere(out)[0]
        raise DataError(
            f"{name}: question {df.index[q]!r}, model {df.columns[m]!r}: "
            f"score {_fmt(values[q, m])} is outside [0, 1]{hint}"
        )
    for axis, labels in (("question", df.index), ("model", df.columns)):
        dup = pd.Index(labels).duplicated()
        if dup.any():
            raise DataError(f"{name}: duplicate {axis} {labels[int(np.flatnonzero(dup)[0])]!r}")
    binary = bool(np.all((values == 0) | (values == 1)))
    return from_arrays(
        values.T,
        np.ones(values.T.shape, dtype=np.int64),
        models=df.columns,
        questions=df.index,
        benchmark=benchmark,
        source=name,
        counts_known=binary,
    )
