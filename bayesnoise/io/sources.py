"""Table sources read in batches: CSV/TSV (optionally gzipped) and Parquet through pyarrow's
streaming readers, JSON / JSON Lines and DataFrames through pandas.

A batch holds, per role, a :class:`Column`: either integer codes into the distinct values
(labels, and text scores such as ``"C"``) or float numbers. Only the columns the layout uses
are read, and never the whole file at once.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from bayesnoise._common import require
from bayesnoise.data import DataError

from .columns import to_numbers

__all__ = [
    "Column",
    "FrameSource",
    "WithConstant",
    "open_table",
    "table_kind",
]

TEXT_TYPES = ".csv, .tsv, .jsonl, .json or .parquet (optionally .gz)"
_KINDS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".parquet": "parquet",
}
BATCH_ROWS = 1 << 20
_SNIFF_BYTES = 1 << 16


@dataclass
class Column:
    """One column of a batch: ``codes`` into ``labels`` (None = missing), or float ``values``."""

    codes: np.ndarray | None = None
    labels: list | None = None
    values: np.ndarray | None = None

    def raw(self, i: int):
        return self.labels[self.codes[i]] if self.codes is not None else self.values[i]

    def numbers(self, *, scores: bool) -> np.ndarray:
        if self.values is not None:
            return self.values
        return to_numbers(self.labels, scores=scores)[self.codes]

    def take(self, index: np.ndarray) -> Column:
        if self.codes is not None:
            return Column(codes=self.codes[index], labels=self.labels)
        return Column(values=self.values[index])


def _coded(codes: np.ndarray, labels: list) -> Column:
    codes = np.asarray(codes, dtype=np.int64)
    if (codes < 0).any():
        labels = [*labels, None]
        codes = np.where(codes < 0, len(labels) - 1, codes)
    return Column(codes=codes, labels=labels)


def arrow_column(arr, *, text: bool) -> Column:
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = arr.type
    if not text and (
        pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind)
    ):
        return Column(values=pc.cast(arr, pa.float64()).to_numpy(zero_copy_only=False))
    if not pa.types.is_dictionary(kind):
        arr = pc.dictionary_encode(arr)
    indices = pc.fill_null(arr.indices, -1) if arr.null_count else arr.indices
    codes = indices.to_numpy(zero_copy_only=False)
    return _coded(codes, arr.dictionary.to_pylist())


def pandas_column(series: pd.Series, *, text: bool) -> Column:
    if not text and (
        pd.api.types.is_bool_dtype(series.dtype) or pd.api.types.is_numeric_dtype(series.dtype)
    ):
        return Column(values=series.to_numpy(dtype=float, na_value=np.nan))
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    return _coded(codes, list(uniques))


class FrameSource:
    """A DataFrame (or a JSON file read by pandas), served in slices of rows."""

    def __init__(self, df: pd.DataFrame, name: str = "DataFrame", first_line: int | None = None):
        self.df = df.reset_index(drop=True)
        self.name, self.first_line = name, first_line
        self.columns = [str(c).strip() for c in self.df.columns]
        self.total = len(self.df)
        self.done = 0

    def batches(self, wanted: dict[str, str], text_roles: set[str]) -> Iterator[tuple]:
        position = {c: i for i, c in enumerate(self.columns)}
        for start in range(0, max(self.total, 1), BATCH_ROWS):
            part = self.df.iloc[start : start + BATCH_ROWS]
            self.done = start + len(part)
            yield (
                start,
                len(part),
                {
                    role: pandas_column(part.iloc[:, position[col]], text=role in text_roles)
                    for role, col in wanted.items()
                },
            )


class WithConstant:
    """``source`` with one more column, ``column``, holding ``value`` in every row (the model
    of an evalstats table that has no model column: :mod:`bayesnoise.io.columns`)."""

    def __init__(self, source, column: str, value: str):
        self.source, self.column, self.value = source, column, value
        self.name, self.first_line = source.name, source.first_line
        self.columns = [*source.columns, column]

    @property
    def total(self) -> int:
        return self.source.total

    @property
    def done(self) -> int:
        return self.source.done

    def batches(self, wanted: dict[str, str], text_roles: set[str]) -> Iterator[tuple]:
        inner = {role: col for role, col in wanted.items() if col != self.column}
        for offset, n, columns in self.source.batches(inner, text_roles):
            for role, col in wanted.items():
                if col == self.column:
                    columns[role] = Column(codes=np.zeros(n, dtype=np.int64), labels=[self.value])
            yield offset, n, columns


class ParquetSource:
    """A Parquet file, read by record batches of the wanted columns only."""

    first_line = None

    def __init__(self, path: Path):
        require("pyarrow", "parquet", f"{path}: reading Parquet")
        import pyarrow.parquet as pq

        with open(path, "rb") as fh:
            if fh.read(4) != b"PAR1":
                raise DataError(f"{path}: not a Parquet file (no PAR1 magic bytes)")
        try:
            self.file = pq.ParquetFile(path)
        except Exception as err:  # pyarrow raises several types for a damaged file
            raise DataError(f"{path}: cannot read as parquet: {err}") from None
        self.path, self.name = path, str(path)
        self.columns = [str(c) for c in self.file.schema_arrow.names]
        self.total = self.file.metadata.num_rows
        self.done = 0

    def batches(self, wanted: dict[str, str], text_roles: set[str]) -> Iterator[tuple]:
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = self.file.schema_arrow
        strings = [
            col
            for role, col in wanted.items()
            if role in text_roles
            and (
                pa.types.is_string(schema.field(col).type)
                or pa.types.is_large_string(schema.field(col).type)
            )
        ]
        reader = pq.ParquetFile(self.path, read_dictionary=strings)
        offset = 0
        for batch in reader.iter_batches(batch_size=BATCH_ROWS, columns=list(wanted.values())):
            columns = {
                role: arrow_column(batch.column(col), text=role in text_roles)
                for role, col in wanted.items()
            }
            yield offset, batch.num_rows, columns
            offset += batch.num_rows
            self.done = offset


def table_kind(path: Path) -> tuple[str | None, bool]:
    """(``csv``/``tsv``/``jsonl``/``json``/``parquet`` or None, gzipped) from the file name."""
    suffixes = [s.lower() for s in path.suffixes[-2:]]
    gz = bool(suffixes) and suffixes[-1] == ".gz"
    suffix = suffixes[-2] if gz and len(suffixes) == 2 else ("" if gz else path.suffix.lower())
    return _KINDS.get(suffix), gz


def _sniff(path: Path, gz: bool) -> bytes:
    try:
        if gz:
            with gzip.open(path, "rb") as fh:
                return fh.read(_SNIFF_BYTES)
        with open(path, "rb") as fh:
            return fh.read(_SNIFF_BYTES)
    except gzip.BadGzipFile as err:
        raise DataError(f"{path}: cannot read as gzip ({err}); is it really compressed?") from None
    except (OSError, EOFError, zlib.error) as err:
        raise DataError(f"{path}: the gzip stream is damaged or cut short ({err})") from None


def _text(path: Path, data: bytes, kind: str) -> str:
    try:
        return codecs.getincrementaldecoder("utf-8-sig")().decode(data, final=False)
    except UnicodeDecodeError as err:
        raise DataError(
            f"{path}: not a text {kind} file (byte {err.start} is not UTF-8): is it binary or "
            "compressed without a .gz suffix?"
        ) from None


def header(path: Path, gz: bool, sep: str, kind: str) -> list[str]:
    text = _text(path, _sniff(path, gz), kind)
    first = next(csv.reader(io.StringIO(text), delimiter=sep), None)
    if not first:
        raise DataError(f"{path}: the first line is empty; expected a header line of column names")
    return first


def _bad_json_line(path: Path, gz: bool) -> str:
    """Locate the first line of a JSON Lines file that does not parse (for the error message)."""
    opener = gzip.open if gz else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                json.loads(line.rstrip("\r\n"))
            except json.JSONDecodeError as err:
                return f"line {number} is not valid JSON ({err.msg}): {line.strip()[:60]!r}"
    return "a line is not valid JSON"


def _read_json(path: Path, kind: str, gz: bool) -> FrameSource:
    """JSON Lines (also inside a ``.json`` file) or a JSON array, read whole by pandas."""
    _text(path, _sniff(path, gz), kind)
    if kind == "json":
        try:
            return FrameSource(pd.read_json(path, dtype=False, precise_float=True), str(path), None)
        except ValueError:
            pass  # not one JSON document: try JSON Lines
    try:
        return FrameSource(
            pd.read_json(path, lines=True, dtype=False, precise_float=True), str(path), 1
        )
    except ValueError:
        try:
            where = _bad_json_line(path, gz)
        except (UnicodeDecodeError, OSError):
            where = "not readable as text"
        raise DataError(
            f"{path}: {where}; expected one JSON object per line (or one JSON array)"
        ) from None


def open_table(path: Path):
    """The batch source of a table file; a clear error for a missing, empty or unknown file."""
    kind, gz = table_kind(path)
    if kind is None:
        shown = "".join(path.suffixes[-2:]) or path.name
        raise DataError(f"{path}: unknown file type {shown!r}; use {TEXT_TYPES}")
    if not path.exists():
        raise DataError(f"{path}: no such file")
    if path.is_dir():
        raise DataError(f"{path}: is a folder; give a results file ({TEXT_TYPES})")
    if path.stat().st_size == 0:
        raise DataError(f"{path}: the file is empty; expected a {kind} table of results")
    if kind in ("csv", "tsv"):
        from .csvfile import CsvSource

        return CsvSource(path, kind, gz)
    if kind == "parquet":
        if gz:
            raise DataError(f"{path}: Parquet compresses itself; give the .parquet file unzipped")
        return ParquetSource(path)
    return _read_json(path, kind, gz)
