"""Readers for long tables: per-sample rows, count tables and Eval-Arena records."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
import xarray as xr

from bayesnoise._common import fmt_value as _fmt
from bayesnoise.data import from_arrays

from ._rows import _check_duplicates, _numeric, _prepare, _reject, _Where

__all__ = ["classify", "from_arena", "from_counts", "from_samples"]

# Relative tolerance for "pass1 * count is a whole number": pass1 is printed with ~10 digits.
_WHOLE_TOL = 1e-6


def classify(columns: Iterable[str]) -> str:
    cols = set(columns)
    if not {"model", "example_id"} <= cols:
        return "unknown"
    if {"sample", "correct"} <= cols:
        return "samples"
    if "count" in cols and ("correct" in cols or "pass1" in cols):
        return "counts"
    if "pass1" in cols:
        return "arena"
    return "unknown"


def _to_dataset(
    df: pd.DataFrame, fields: dict[str, np.ndarray], *, benchmark: str, source: str, **attrs
) -> xr.Dataset:
    """Scatter long rows into (model, question) arrays, in order of first appearance, and build
    the dataset; ``fields`` holds ``correct``, ``count`` and optionally ``sum_sq`` per row."""
    m_codes, m_names = pd.factorize(df["model"].astype(str).to_numpy())
    q_codes, q_names = pd.factorize(df["example_id"].astype(str).to_numpy())
    shape = (len(m_names), len(q_names))
    arrays = {}
    for key, values in fields.items():
        arr = np.zeros(shape, dtype=np.int64 if key == "count" else float)
        np.add.at(arr, (m_codes, q_codes), values)
        arrays[key] = arr
    return from_arrays(
        arrays.pop("correct"),
        arrays.pop("count"),
        models=[str(m) for m in m_names],
        questions=[str(q) for q in q_names],
        benchmark=benchmark,
        source=source,
        **arrays,
        **attrs,
    )


def from_samples(
    df: pd.DataFrame,
    *,
    name: str = "DataFrame",
    first_line: int | None = None,
    benchmark: str | None = None,
) -> xr.Dataset:
    """Dataset from a long per-sample table with columns ``model, example_id, sample, correct``.

    Scores may be 0/1 or fractions in [0, 1]; K may differ per cell.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayesnoise.io import from_samples
    >>> df = pd.DataFrame({"model": ["a"] * 4, "example_id": [1, 1, 2, 2],
    ...                    "sample": [0, 1, 0, 1], "correct": [1, 0, 1, 1]})
    >>> int(from_samples(df)["count"].sum())
    4
    """
    df, bench, where = _prepare(df, name, first_line, benchmark)
    score = _numeric(df, "correct", where)
    _check_range(score, "correct", where)
    _check_duplicates(df, ["model", "example_id", "sample"], where)
    fields = {"correct": score, "count": np.ones(len(df), dtype=np.int64), "sum_sq": score**2}
    return _to_dataset(df, fields, benchmark=bench, source=name)


def _check_range(values: np.ndarray, column: str, where: _Where) -> None:
    bad = (values < 0) | (values > 1)
    _reject(
        bad,
        where,
        lambda i: (
            f"{column}={_fmt(values[i])} is outside [0, 1] "
            f"({int(bad.sum())} such rows); scores are not clipped"
        ),
    )


def from_counts(
    df: pd.DataFrame, name: str, first_line: int | None, benchmark: str | None
) -> xr.Dataset:
    df, bench, where = _prepare(df, name, first_line, benchmark)
    count = _numeric(df, "count", where)
    _reject(
        (count != np.round(count)) | (count < 1),
        where,
        lambda i: f"count={_fmt(count[i])} is not a whole number >= 1",
    )
    if "correct" in df.columns:
        correct = _numeric(df, "correct", where)
        _reject(
            (correct != np.round(correct)) | (correct < 0),
            where,
            lambda i: f"correct={_fmt(correct[i])} is not a whole number >= 0",
        )
        _reject(
            correct > count, where, lambda i: f"correct={correct[i]:g} exceeds count={count[i]:g}"
        )
        if "pass1" in df.columns:
            pass1 = _numeric(df, "pass1", where)
            _reject(
                np.abs(pass1 * count - correct) > _WHOLE_TOL * np.maximum(count, 1),
                where,
                lambda i: (
                    f"pass1={_fmt(pass1[i])} disagrees with correct/count="
                    f"{correct[i]:g}/{count[i]:g}"
                ),
            )
    else:
        pass1 = _numeric(df, "pass1", where)
        _check_range(pass1, "pass1", where)
        raw = pass1 * count
        correct = np.round(raw)
        _reject(
            np.abs(raw - correct) > _WHOLE_TOL * np.maximum(count, 1),
            where,
            lambda i: (
                f"pass1*count={_fmt(raw[i])} is not a whole number of correct samples "
                f"(pass1={_fmt(pass1[i])}, count={count[i]:g})"
            ),
        )
    _check_duplicates(df, ["model", "example_id"], where)
    fields = {"correct": correct, "count": count.astype(np.int64)}
    return _to_dataset(df, fields, benchmark=bench, source=name)


def from_arena(
    df: pd.DataFrame, name: str, first_line: int | None, benchmark: str | None
) -> xr.Dataset:
    df, bench, where = _prepare(df, name, first_line, benchmark)
    pass1 = _numeric(df, "pass1", where)
    _check_range(pass1, "pass1", where)
    _check_duplicates(df, ["model", "example_id"], where)
    binary = bool(np.all((pass1 == 0) | (pass1 == 1)))
    # A fractional pass1 is kept as one draw with expected score pass1: sum_sq = correct makes the
    # within-cell variance p(1 - p), the variance of a single Bernoulli(p) answer.
    fields = {"correct": pass1, "count": np.ones(len(df), dtype=np.int64)}
    return _to_dataset(df, fields, benchmark=bench, source=name, counts_known=binary)
