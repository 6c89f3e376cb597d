"""One :func:`load` for every supported source: it reads the file and dispatches by layout."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import xarray as xr

from bayesnoise.data import DataError, check_dataset

from .arrays import from_sample_array, from_wide
from .tables import classify, from_arena, from_counts, from_samples

__all__ = ["load", "read_table"]

_TABLE_TYPES = ".csv, .jsonl, .json or .parquet (optionally .gz)"


def _suffix(path: Path) -> str:
    return "".join(path.suffixes[-2:]).lower() if path.suffix == ".gz" else path.suffix.lower()


def _bad_json_line(path: Path) -> str:
    """Locate the first line of a JSON Lines file that does not parse (for the error message)."""
    import gzip

    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                json.loads(line.rstrip("\r\n"))
            except json.JSONDecodeError as err:
                shown = line.strip()[:60]
                return f"line {number} is not valid JSON ({err.msg}): {shown!r}"
    return "a line is not valid JSON"


def read_table(path: Path) -> tuple[pd.DataFrame, int]:
    """Read a results file into a DataFrame; also return the line number of its first data row.

    Raises :class:`~bayesnoise.data.DataError` naming the file (and the line, for JSON Lines)
    for a missing, empty, binary or malformed file.
    """
    suffix = _suffix(path)
    kinds = {
        ".csv": "csv",
        ".csv.gz": "csv",
        ".jsonl": "jsonl",
        ".jsonl.gz": "jsonl",
        ".ndjson": "jsonl",
        ".ndjson.gz": "jsonl",
        ".json": "json",
        ".json.gz": "json",
        ".parquet": "parquet",
    }
    kind = kinds.get(suffix)
    if kind is None:
        raise DataError(
            f"{path}: unknown file type {suffix!r}; use {_TABLE_TYPES} (or pass a DataFrame)"
        )
    if not path.exists():
        raise DataError(f"{path}: no such file")
    if path.is_dir():
        raise DataError(f"{path}: is a folder; give a results file ({_TABLE_TYPES})")
    if path.stat().st_size == 0:
        raise DataError(f"{path}: the file is empty; expected a {kind} table of results")
    try:
        if kind == "csv":
            return pd.read_csv(path), 2
        if kind == "jsonl":
            return pd.read_json(path, lines=True, dtype=False), 1
        if kind == "json":
            return pd.read_json(path, dtype=False), 1
        return pd.read_parquet(path), 1
    except UnicodeDecodeError as err:
        raise DataError(
            f"{path}: not a text {kind} file (byte {err.start} is not UTF-8): is it binary or "
            "compressed without a .gz suffix?"
        ) from None
    except pd.errors.EmptyDataError:
        raise DataError(
            f"{path}: the file has no rows; expected a {kind} table of results"
        ) from None
    except ImportError as err:
        raise DataError(
            f"{path}: reading {kind} needs {err.name}: pip install 'bayesnoise[parquet]'"
        ) from None
    except (ValueError, OSError) as err:
        if kind == "jsonl":
            try:
                where = _bad_json_line(path)
            except (UnicodeDecodeError, OSError):
                where = "not readable as text"
            raise DataError(f"{path}: {where}; expected one JSON object per line") from None
        raise DataError(f"{path}: cannot read as {kind}: {err}") from None


def load(source, *, benchmark: str | None = None) -> xr.Dataset:
    """Load question-level eval results from a file or a DataFrame, detecting the format.

    Recognised layouts (by their columns):

    * per-sample long table: ``model, example_id, sample, correct`` (CSV, JSONL, Parquet);
    * count table: ``model, example_id, count`` with ``correct`` and/or ``pass1 = correct/count``
      (e.g. the all-the-noises ``input_table_*.csv``);
    * Eval-Arena JSONL: ``benchmark_id, model, example_id, pass1`` (``pass1`` 0/1, or a fraction
      meaning a mean over an unknown number of samples: accepted, flagged ``counts_known=False``);
    * a wide DataFrame with questions as rows and models as columns;
    * an :class:`xarray.DataArray` of scores with dims ``(model, question, sample)`` (NaN = not drawn).

    Parameters
    ----------
    source : str, pathlib.Path, pandas.DataFrame or xarray.DataArray
        File (.csv, .jsonl, .json, .parquet, optionally .gz) or table.
    benchmark : str, optional
        Which benchmark to keep when the ``benchmark_id`` column holds several (required then).

    Returns
    -------
    xarray.Dataset
        Dims ``(model, question)``; variables ``correct``, ``count``, ``sum_sq``; see module docs.

    Raises
    ------
    DataError
        Unreadable file, unknown columns, NaN, scores outside [0, 1], non-integer or inconsistent
        counts, duplicate rows, several benchmarks without a choice. The message names the file,
        line, model and question.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayesnoise import load
    >>> df = pd.DataFrame({"model": ["a", "a", "b", "b"], "example_id": [1, 2, 1, 2],
    ...                    "count": [4, 4, 4, 4], "correct": [3, 1, 4, 0]})
    >>> ds = load(df)
    >>> ds["correct"].sel(model="a").values.tolist()
    [3.0, 1.0]
    """
    if isinstance(source, xr.Dataset):
        return check_dataset(source)
    if isinstance(source, xr.DataArray):
        return from_sample_array(source, benchmark=benchmark or str(source.name or "benchmark"))
    if isinstance(source, pd.DataFrame):
        if classify(source.columns) == "unknown":
            return from_wide(source, benchmark=benchmark or "benchmark")
        df, name, first_line = source.reset_index(drop=True), "DataFrame", None
    else:
        path = Path(source)
        df, first_line = read_table(path)
        name = str(path)
    if df.empty:
        raise DataError(f"{name}: no rows")
    df = df.rename(columns=lambda c: str(c).strip())
    kind = classify(df.columns)
    if kind == "unknown":
        raise DataError(
            f"{name}: unknown columns {list(df.columns)}; expected one of: "
            "[model, example_id, sample, correct] (per sample), "
            "[model, example_id, count, correct|pass1] (counts), "
            "[model, example_id, pass1] (Eval-Arena), or a wide DataFrame (questions x models)"
        )
    if kind == "samples":
        return from_samples(df, name=name, first_line=first_line, benchmark=benchmark)
    if kind == "counts":
        return from_counts(df, name, first_line, benchmark)
    return from_arena(df, name, first_line, benchmark)
