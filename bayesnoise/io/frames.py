"""Results tables read whole with pandas, for what the streaming loader does not carry.

``bayesnoise.load`` aggregates a table to (model, question) cells while reading it, so a
column such as a training checkpoint or a subtask disappears. The verbs that need one
(``signal``) read the table here instead, fold the extra column into the model or question
labels and validate the result with :func:`bayesnoise.io.tables.read_frame`, the same checks
every reader goes through. Per-model score tables (a model and a score, no question column)
are read here too (``signal``, ``decision_accuracy``).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd

from bayesnoise._common import option
from bayesnoise.data import DataError
from bayesnoise.io.columns import ROLES
from bayesnoise.io.sources import TEXT_TYPES, table_kind

#: Columns recognised as the score of a per-model (or per-checkpoint) score table, in order.
SCORE_NAMES = ("score", "primary_score", "accuracy", "pass1", "correct")
_SEP = {"csv": ",", "tsv": "\t"}


def _need_table(what: str) -> DataError:
    return DataError(
        f"{what} needs a results table: a file ({TEXT_TYPES}) or a pandas DataFrame; logs and "
        "folders are read only through the loader, which keeps no extra columns"
    )


def _check_path(path: Path, what: str) -> str:
    kind, _ = table_kind(path)
    if kind is None:
        raise _need_table(what)
    if not path.exists():
        raise DataError(f"{path}: no such file")
    if path.is_dir():
        raise DataError(f"{path}: is a folder; give a results file ({TEXT_TYPES})")
    return kind


def _read_path(path: Path, what: str) -> tuple[pd.DataFrame, int | None]:
    kind = _check_path(path, what)
    try:
        if kind in _SEP:
            # text ids stay text ("007" is not 7); only empty cells are missing
            df = pd.read_csv(path, sep=_SEP[kind], dtype=str, keep_default_na=False, na_values=[""])
            return df, 2
        if kind == "parquet":
            return pd.read_parquet(path), None
        if kind == "json":
            try:
                return pd.read_json(path, dtype=False, precise_float=True), None
            except ValueError:
                pass
        return pd.read_json(path, lines=True, dtype=False, precise_float=True), 1
    except (ValueError, OSError, EOFError) as err:
        raise DataError(f"{path}: cannot read as a {kind} table ({err})") from None


def read_table(data, what: str) -> tuple[pd.DataFrame, str, int | None]:
    """``(frame, name, first_line)`` of a table file, several files or a DataFrame.

    ``first_line`` is the file line of the first row (error messages), None when rows do not
    map to lines (DataFrames, Parquet, several files).
    """
    if isinstance(data, pd.DataFrame):
        if data.empty:
            raise DataError("DataFrame: no rows")
        return data, "DataFrame", None
    if isinstance(data, str | Path):
        frame, first = _read_path(Path(data), what)
        if frame.empty:
            raise DataError(f"{data}: no rows")
        return frame, str(data), first
    if isinstance(data, list | tuple) and data and all(isinstance(d, str | Path) for d in data):
        if len(data) == 1:
            return read_table(data[0], what)
        frames = [_read_path(Path(d), what)[0] for d in data]
        columns = [list(f.columns) for f in frames]
        for d, cols in zip(data[1:], columns[1:], strict=True):
            if cols != columns[0]:
                raise DataError(
                    f"{d}: its columns {cols} differ from {data[0]}'s {columns[0]}; files "
                    "read together are concatenated and need the same columns"
                )
        return pd.concat(frames, ignore_index=True), f"{len(data)} files ({data[0]}, ...)", None
    raise _need_table(what)


def peek_columns(data) -> list[str] | None:
    """The column names of a table file or DataFrame without reading its rows (None when
    ``data`` is not a single table)."""
    if isinstance(data, pd.DataFrame):
        return [str(c) for c in data.columns]
    if isinstance(data, list | tuple) and len(data) == 1:
        data = data[0]
    if not isinstance(data, str | Path):
        return None
    path = Path(data)
    kind, gz = table_kind(path)
    if kind is None or not path.is_file() or path.stat().st_size == 0:
        return None
    try:
        if kind in _SEP:
            return [str(c) for c in pd.read_csv(path, sep=_SEP[kind], nrows=0).columns]
        if kind == "parquet":
            import pyarrow.parquet as pq

            return list(pq.read_schema(path).names)
        opener = gzip.open if gz else open
        with opener(path, "rt", encoding="utf-8-sig") as fh:
            for line in fh:
                if line.strip():
                    first = json.loads(line)
                    return [str(k) for k in first] if isinstance(first, dict) else None
    except (ValueError, OSError, EOFError, ImportError):
        return None  # the loader reports what is wrong with the file
    return None


def has_question_column(columns, question_col=None) -> bool:
    """Whether a table with these columns has a question column (named or recognised)."""
    if question_col is not None:
        return question_col in columns
    return any(name in columns for name in ROLES["question"])


def score_column(columns, score_col, name: str) -> str:
    """The score column of a per-model score table: ``score_col`` or a recognised name."""
    if score_col is not None:
        if score_col not in columns:
            raise DataError(
                f"{name}: no column {score_col!r} (--score-col); found {', '.join(columns)}"
            )
        return score_col
    for candidate in SCORE_NAMES:
        if candidate in columns:
            return candidate
    raise DataError(
        f"{name}: a table without a question column is read as one score per model (and "
        f"checkpoint), but no column holds the score; name it with {option('score_col', 'NAME')} "
        f"or call it one of {', '.join(SCORE_NAMES)}; found {', '.join(columns)}"
    )


def model_column(columns, model_col, name: str) -> str:
    column = model_col or "model"
    if column not in columns:
        raise DataError(
            f"{name}: no model column {column!r}; name it with {option('model_col', 'NAME')}; "
            f"found {', '.join(map(str, columns))}"
        )
    return column


def numeric_scores(values, name: str, labels) -> np.ndarray:
    """Scores as floats; a non-numeric or missing score is an error naming its row."""
    scores = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(scores))
    if bad.size:
        i = int(bad[0])
        raise DataError(
            f"{name}: {labels[i]} has the score {values[i]!r}, which is not a finite number "
            f"({bad.size} such rows)"
        )
    return scores
