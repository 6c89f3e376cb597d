"""Row-level checks shared by the table readers: locate a bad row and say what is wrong."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from bayesnoise._common import fmt_value as _fmt
from bayesnoise.data import DataError

_ID_COLUMNS = ("model", "example_id")


class _Where:
    """Formats 'file, line L (model=..., example_id=...)' for error messages."""

    def __init__(self, df: pd.DataFrame, name: str, first_line: int | None):
        self.df, self.name, self.first_line = df, name, first_line

    def __call__(self, pos: int) -> str:
        row = self.df.iloc[pos]
        loc = f"line {pos + self.first_line}" if self.first_line is not None else f"row {pos}"
        ident = ", ".join(
            f"{c}={_fmt(row[c])}" for c in ("model", "example_id", "sample") if c in row
        )
        return f"{self.name}, {loc} ({ident})"


def _first_bad(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _reject(bad: np.ndarray, where: _Where, describe) -> None:
    """Raise a DataError at the first flagged row; ``describe(pos)`` says what is wrong there."""
    if bad.any():
        pos = _first_bad(bad)
        raise DataError(f"{where(pos)}: {describe(pos)}")


def _prepare(df: pd.DataFrame, name: str, first_line: int | None, benchmark: str | None):
    """Select the benchmark, and check that every row names its model and question."""
    df, bench = _select_benchmark(df, benchmark, name)
    where = _Where(df, name, first_line)
    _check_ids(df, where)
    return df, bench, where


def _numeric(df: pd.DataFrame, column: str, where: _Where) -> np.ndarray:
    values = pd.to_numeric(df[column], errors="coerce").to_numpy(dtype=float)
    bad = np.isnan(values)
    if bad.any():
        pos = _first_bad(bad)
        raise DataError(
            f"{where(pos)}: {column}={_fmt(df[column].iloc[pos])} is missing or not a number "
            f"({int(bad.sum())} such rows); nothing is imputed"
        )
    return values


def _check_ids(df: pd.DataFrame, where: _Where) -> None:
    for column in _ID_COLUMNS:
        bad = df[column].isna().to_numpy()
        if bad.any():
            raise DataError(f"{where(_first_bad(bad))}: {column} is empty")


def _check_duplicates(df: pd.DataFrame, keys: list[str], where: _Where) -> None:
    dup = df.duplicated(keys, keep=False).to_numpy()
    if dup.any():
        first = _first_bad(dup)
        n = int(df.duplicated(keys).sum())
        raise DataError(
            f"{where(first)}: duplicate ({', '.join(keys)}) row; {n} duplicate rows in all. "
            "Each cell must appear once (select one benchmark/temperature/run first)"
        )


def _select_benchmark(
    df: pd.DataFrame, benchmark: str | None, name: str
) -> tuple[pd.DataFrame, str]:
    if "benchmark_id" not in df.columns:
        if benchmark is not None:
            raise DataError(
                f"{name}: benchmark={benchmark!r} asked for, but there is no benchmark_id column"
            )
        return df, _stem(name)
    names = list(pd.unique(df["benchmark_id"].astype(str)))
    if benchmark is None:
        if len(names) > 1:
            raise DataError(
                f"{name}: holds {len(names)} benchmarks ({', '.join(names)}); choose one with "
                "benchmark=... (CLI: --benchmark NAME)"
            )
        return df, names[0]
    if benchmark not in names:
        raise DataError(f"{name}: no benchmark {benchmark!r}; it holds {', '.join(names)}")
    return df[df["benchmark_id"].astype(str) == benchmark].reset_index(drop=True), benchmark


def _stem(name: str) -> str:
    """File name without its folder and data extensions (``a/b.csv.gz`` -> ``b``)."""
    base = Path(name).name
    for ext in (".gz", ".csv", ".jsonl", ".ndjson", ".json", ".parquet"):
        base = base.removesuffix(ext)
    return base
