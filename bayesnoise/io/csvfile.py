"""CSV and TSV files (optionally gzipped), read in blocks of whole lines parsed in parallel.

pyarrow's own streaming reader parses on one thread; here the file is cut at line ends into
blocks that worker threads parse with ``pyarrow.csv.read_csv`` (which releases the GIL), a few
blocks in flight (another thread reads and decompresses the next one), handed on in file order so that line numbers stay exact. Each block infers
its own column types, so a score column that is ``0/1`` in one block and ``C/I`` in another is
read as it is written. Like pyarrow's reader, a quoted value may not contain a line break.
Without pyarrow, pandas reads the same batches.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import zlib
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd

from bayesnoise.data import DataError

from .sources import BATCH_ROWS, arrow_column, header, pandas_column

__all__ = ["CsvSource"]

# Bytes per block handed to a worker.
BLOCK_BYTES = 8 << 20


def _has_pyarrow() -> bool:
    """pyarrow reads CSV fast and lean; without it pandas reads the same batches."""
    return importlib.util.find_spec("pyarrow") is not None


def _blocks(stream, size: int) -> Iterator[bytes]:
    """The stream cut into pieces of about ``size`` bytes that end at a line end."""
    rest = b""
    while True:
        data = stream.read(size)
        if not data:
            if rest.strip():
                yield rest
            return
        data = rest + data
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            rest = data
            continue
        yield data[:cut]
        rest = data[cut:]


class CsvSource:
    """A CSV or TSV file, optionally gzipped, served in batches of rows."""

    first_line = 2

    def __init__(self, path: Path, kind: str, gz: bool):
        self.path, self.name, self.gz = path, str(path), gz
        self.sep = "\t" if kind == "tsv" else ","
        self.kind = kind
        self.raw_columns = header(path, gz, self.sep, kind)
        self.columns = [c.strip() for c in self.raw_columns]
        self.total = path.stat().st_size
        self.done = 0

    def _parse(self, data: bytes, wanted: list[str], text: list[str]):
        import pyarrow as pa
        import pyarrow.csv as pacsv

        kind = pa.dictionary(pa.int32(), pa.string())
        return pacsv.read_csv(
            pa.py_buffer(data),
            read_options=pacsv.ReadOptions(
                column_names=self.raw_columns,
                use_threads=False,
                block_size=len(data) + 1,
            ),
            parse_options=pacsv.ParseOptions(delimiter=self.sep),
            convert_options=pacsv.ConvertOptions(
                include_columns=wanted, column_types=dict.fromkeys(text, kind)
            ),
        )

    def batches(self, wanted: dict[str, str], text_roles: set[str]) -> Iterator[tuple]:
        raw = {c: self.raw_columns[self.columns.index(c)] for c in wanted.values()}
        if not _has_pyarrow():
            yield from self._pandas_batches(wanted, raw, text_roles)
            return
        import pyarrow as pa

        text = [raw[col] for role, col in wanted.items() if role in text_roles]
        workers = max(os.cpu_count() or 1, 1)
        offset = 0
        handle = pa.OSFile(str(self.path))
        stream = pa.CompressedInputStream(handle, "gzip") if self.gz else handle
        try:
            with ThreadPoolExecutor(workers) as pool, ThreadPoolExecutor(1) as reader:
                pending: deque = deque()
                blocks = _blocks(stream, BLOCK_BYTES)
                # One thread reads (and decompresses) the next block while others parse.
                upcoming = reader.submit(next, blocks, None)
                for k in itertools.count():
                    block = upcoming.result()
                    if block is None:
                        break
                    upcoming = reader.submit(next, blocks, None)
                    data = block[block.find(b"\n") + 1 :] if k == 0 else block  # no header
                    if not data.strip():
                        continue
                    pending.append(pool.submit(self._parse, data, list(raw.values()), text))
                    while len(pending) > workers or (pending and pending[0].done()):
                        table = pending.popleft().result()
                        self.done = handle.tell()
                        yield from self._emit(table, wanted, raw, text_roles, offset)
                        offset += table.num_rows
                while pending:
                    table = pending.popleft().result()
                    yield from self._emit(table, wanted, raw, text_roles, offset)
                    offset += table.num_rows
        except pa.ArrowInvalid as err:
            raise DataError(
                f"{self.name}: cannot read as {self.kind} after {offset} rows: {err}"
            ) from None
        except (OSError, EOFError, zlib.error) as err:
            raise DataError(f"{self.name}: cannot read as {self.kind}: {err}") from None
        finally:
            handle.close()

    @staticmethod
    def _emit(table, wanted, raw, text_roles, offset) -> Iterator[tuple]:
        for batch in table.to_batches():
            columns = {
                role: arrow_column(batch.column(raw[col]), text=role in text_roles)
                for role, col in wanted.items()
            }
            yield offset, batch.num_rows, columns
            offset += batch.num_rows

    def _pandas_batches(self, wanted, raw, text_roles) -> Iterator[tuple]:
        offset = 0
        dtypes = {raw[col]: str for role, col in wanted.items() if role in text_roles}
        chunks = pd.read_csv(
            self.path, sep=self.sep, usecols=list(raw.values()), dtype=dtypes, chunksize=BATCH_ROWS
        )
        for part in chunks:
            columns = {
                role: pandas_column(part[raw[col]], text=role in text_roles)
                for role, col in wanted.items()
            }
            yield offset, len(part), columns
            offset += len(part)
