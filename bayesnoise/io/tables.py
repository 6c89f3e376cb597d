"""Long tables (per-sample rows, count tables, Eval-Arena records) from files or DataFrames.

Several files are one table: their rows are concatenated (e.g. one file per model), so they
must share a layout, and a (model, question, sample) row may appear in only one of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from bayesnoise._common import option
from bayesnoise._progress import Progress
from bayesnoise.data import DataError

from ._rows import stem
from .columns import column_option, evalstats_wide, resolve_columns
from .sources import FrameSource, WithConstant, open_table
from .stream import aggregate, reading_progress

__all__ = ["from_samples", "read_files", "read_frame"]


def _default_benchmark(names: Sequence[str]) -> str:
    """The file stem, or what the stems of several files share (else ``benchmark``)."""
    stems = [stem(n) for n in names]
    common = stems[0]
    for other in stems[1:]:
        while not other.startswith(common):
            common = common[:-1]
    return common.rstrip("_-. ") or "benchmark"


def _from_evalstats_wide(source) -> FrameSource:
    """evalstats' wide layout (first column the inputs, one column of scores per prompt; one
    model, one run) as its long layout: ``model`` (the file's stem), the input column,
    ``prompt``, ``score``, one row per (input, prompt), inputs in file order. A cell without a
    score stays empty, so the row checks refuse it (nothing is imputed)."""
    names = list(source.columns)
    wanted = {f"c{i}": c for i, c in enumerate(names)}
    parts: list[pd.DataFrame] = []
    for _, _, cols in source.batches(wanted, {"c0"}):
        data = {}
        for i, c in enumerate(names):
            col = cols[f"c{i}"]
            if col.codes is not None:
                data[c] = np.array(col.labels, dtype=object)[col.codes]
            else:
                data[c] = col.values
        parts.append(pd.DataFrame(data, columns=names))
    wide = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=names)
    question, prompts = names[0], names[1:]
    long = pd.DataFrame(
        {
            "model": stem(source.name),
            question: np.repeat(wide[question].to_numpy(dtype=object), len(prompts)),
            "prompt": np.tile(np.array(prompts, dtype=object), len(wide)),
            "score": wide[prompts].to_numpy(dtype=object).reshape(-1),
        }
    )
    return FrameSource(long, f"{source.name} (evalstats wide layout: rows = inputs x prompts)")


def _check_per_question(k, layout, name: str) -> int | None:
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise DataError(f"samples_per_question={k!r} must be a whole number >= 1")
    if layout.kind != "arena":
        raise DataError(
            f"{name}: {option('samples_per_question')} applies to Eval-Arena "
            f"tables of fractional pass1 values without counts (model, example_id, pass1); this "
            f"is a {layout.kind} table, whose samples are known; leave it out"
        )
    return int(k)


def _read(
    sources: list,
    columns: Mapping[str, str] | None,
    benchmark: str | None,
    name: str,
    progress,
    samples_per_question: int | None = None,
    factors=None,
    threshold: float | None = None,
    success: str = "above",
) -> xr.Dataset:
    files = [s.name for s in sources]
    if columns is None:
        sources = [_from_evalstats_wide(s) if evalstats_wide(s.columns) else s for s in sources]
    layout = resolve_columns(sources[0].columns, columns, sources[0].name, factors, one_model=True)
    for other in sources[1:]:
        theirs = resolve_columns(other.columns, columns, other.name, factors, one_model=True)
        if theirs != layout:
            raise DataError(
                f"{other.name}: its columns {other.columns} make a {theirs.kind} table "
                f"{sorted(theirs.columns.items())}, unlike {sources[0].name} ({layout.kind}, "
                f"{sorted(layout.columns.items())}); files loaded together are concatenated "
                "and need the same columns"
            )
    if benchmark is not None and "benchmark" not in layout.columns:
        raise DataError(
            f"{name}: benchmark={benchmark!r} asked for, but there is no benchmark_id column "
            f"(name one with {column_option('benchmark')})"
        )
    if layout.implied:  # an evalstats table without a model column: one model per file
        label = layout.columns["model"]
        sources = [WithConstant(s, label, stem(s.name)) for s in sources]
    k = _check_per_question(samples_per_question, layout, name)
    show = progress if isinstance(progress, Progress) else reading_progress(name, progress)
    return aggregate(
        sources,
        layout,
        benchmark=benchmark,
        name=name,
        default_benchmark=_default_benchmark(files),
        progress=show,
        samples_per_question=k,
        threshold=threshold,
        success=success,
    )


def read_files(
    paths: Sequence[Path],
    *,
    columns: Mapping[str, str] | None = None,
    benchmark: str | None = None,
    progress: bool | None = None,
    samples_per_question: int | None = None,
    factors=None,
    threshold: float | None = None,
    success: str = "above",
) -> xr.Dataset:
    """Dataset from one or several table files (CSV, TSV, JSON Lines, JSON, Parquet).

    ``samples_per_question=K``: an Eval-Arena table's fractional ``pass1`` is the mean of K 0/1
    samples, read as ``round(pass1 * K)`` correct out of K (an error names the row where
    ``pass1 * K`` is not within 1e-6 of a whole number). ``factors=["template", ...]``: those
    columns become dims of the dataset (see :mod:`bayesnoise.io.columns`). ``threshold=T``:
    each per-sample row's score becomes success (``>= T``; ``<= T`` with ``success="below"``)
    or failure before the cell sums.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "quiz.csv"
    >>> _ = path.write_text("model,example_id,correct\\na,q1,1\\na,q2,0\\n")
    >>> read_files([path])["correct"].values.tolist()
    [[1.0, 0.0]]
    """
    sources = [open_table(Path(p)) for p in paths]
    name = (
        sources[0].name if len(sources) == 1 else f"{len(sources)} files ({sources[0].name}, ...)"
    )
    return _read(
        sources,
        columns,
        benchmark,
        name,
        progress,
        samples_per_question,
        factors,
        threshold,
        success,
    )


def read_frame(
    df: pd.DataFrame,
    *,
    columns: Mapping[str, str] | None = None,
    benchmark: str | None = None,
    name: str = "DataFrame",
    first_line: int | None = None,
    progress: bool | None = None,
    samples_per_question: int | None = None,
    factors=None,
    threshold: float | None = None,
    success: str = "above",
) -> xr.Dataset:
    """Dataset from a long DataFrame (any layout :func:`~bayesnoise.io.load` reads);
    ``samples_per_question``, ``factors``, ``threshold`` and ``success`` as in
    :func:`read_files`.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"model_name": ["a", "a"], "question_id": [1, 2], "score": ["C", "I"]})
    >>> ds = read_frame(df, columns={"model": "model_name", "question": "question_id"})
    >>> ds["correct"].values.tolist()
    [[1.0, 0.0]]
    """
    if df.empty:
        raise DataError(f"{name}: no rows")
    return _read(
        [FrameSource(df, name, first_line)],
        columns,
        benchmark,
        name,
        progress,
        samples_per_question,
        factors,
        threshold,
        success,
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

    Parameters
    ----------
    df : pandas.DataFrame
        One row per sample: ``model, example_id, sample, correct``.
    name : str, default "DataFrame"
        What error messages call the input.
    first_line : int, optional
        The file line of the table's first row, for error messages that name a row.
    benchmark : str, optional
        The benchmark's name (default: the table's benchmark column, else ``"benchmark"``).

    Returns
    -------
    xarray.Dataset
        The package's dataset (``correct``, ``samples``, ``sum_sq`` per model and question).

    Examples
    --------
    >>> import pandas as pd
    >>> from bayesnoise.io import from_samples
    >>> df = pd.DataFrame({"model": ["a"] * 4, "example_id": [1, 1, 2, 2],
    ...                    "sample": [0, 1, 0, 1], "correct": [1, 0, 1, 1]})
    >>> int(from_samples(df)["samples"].sum())
    4
    """
    layout = resolve_columns([str(c).strip() for c in df.columns], None, name)
    if layout.kind != "samples":
        raise DataError(
            f"{name}: expected per-sample rows (model, example_id, sample, correct); "
            f"the columns {list(df.columns)} make a {layout.kind} table"
        )
    return read_frame(df, benchmark=benchmark, name=name, first_line=first_line, progress=False)
