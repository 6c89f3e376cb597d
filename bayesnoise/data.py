"""Load and validate question-level eval results.

Every supported input becomes one :class:`xarray.Dataset` with dims ``(model, question)``:

``correct``  (float64)  sum of the sample scores in the cell (the number correct for 0/1 scores)
``count``    (int64)    number of samples K in the cell; 0 means the model has no result there
``sum_sq``   (float64)  sum of the squared sample scores (equal to ``correct`` for 0/1 scores)

and attributes ``benchmark``, ``source``, ``binary`` (all scores are 0/1) and ``counts_known``
(False when the input gave only a fractional ``pass1`` per question, without the number of samples
behind it; each such cell is then kept as one draw whose expected score is ``pass1``).

Nothing is dropped, clipped or imputed: bad rows raise :class:`DataError` naming the file, line,
model and question.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

__all__ = [
    "DataError",
    "complete",
    "from_arrays",
    "from_sample_array",
    "from_samples",
    "from_wide",
    "load",
    "scores",
]

MODEL, QUESTION, SAMPLE = "model", "question", "sample"
_ID_COLUMNS = ("model", "example_id")
_OPTIONAL = {"benchmark_id", "Unnamed: 0", "", "temperature", "rl_thinking_length", "date",
             "hyperparams"}  # fmt: skip
# Relative tolerance for "pass1 * count is a whole number": pass1 is printed with ~10 digits.
_WHOLE_TOL = 1e-6


class DataError(ValueError):
    """Input that cannot be analysed as it is; the message says where and why."""


# ----------------------------------------------------------------------------- reading files


def _read_table(path: Path) -> tuple[pd.DataFrame, int]:
    """Read a file into a DataFrame; also return the file line number of the first data row."""
    suffix = "".join(path.suffixes[-2:]).lower() if path.suffix == ".gz" else path.suffix.lower()
    try:
        if suffix in (".csv", ".csv.gz"):
            return pd.read_csv(path), 2
        if suffix in (".jsonl", ".jsonl.gz", ".ndjson"):
            return pd.read_json(path, lines=True, dtype=False), 1
        if suffix == ".json":
            return pd.read_json(path, dtype=False), 1
        if suffix == ".parquet":
            return pd.read_parquet(path), 1
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except (ValueError, OSError, UnicodeDecodeError, ImportError) as err:
        raise DataError(f"{path}: cannot read as {suffix.lstrip('.')}: {err}") from err
    raise DataError(
        f"{path}: unknown file type {suffix!r}; use .csv, .jsonl, .json or .parquet "
        "(or pass a pandas DataFrame)"
    )


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


def _fmt(value) -> str:
    """Plain repr of a cell value for messages (no numpy type names)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, str):
        return repr(str(value))
    if isinstance(value, float):
        return f"{value:.10g}"
    return repr(value)


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


def _classify(columns: Iterable[str]) -> str:
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


# ----------------------------------------------------------------------------- building


def _pivot(
    models: np.ndarray, questions: np.ndarray, fields: dict[str, np.ndarray]
) -> tuple[list[str], list[str], dict[str, np.ndarray]]:
    """Scatter long rows into (model, question) arrays, in order of first appearance."""
    m_codes, m_names = pd.factorize(models)
    q_codes, q_names = pd.factorize(questions)
    shape = (len(m_names), len(q_names))
    out = {}
    for key, values in fields.items():
        arr = np.zeros(shape, dtype=np.int64 if key == "count" else float)
        np.add.at(arr, (m_codes, q_codes), values)
        out[key] = arr
    return [str(m) for m in m_names], [str(q) for q in q_names], out


def from_arrays(
    correct,
    count,
    *,
    models: Iterable[str] | None = None,
    questions: Iterable[str] | None = None,
    sum_sq=None,
    benchmark: str = "benchmark",
    source: str = "arrays",
    counts_known: bool = True,
) -> xr.Dataset:
    """Build the standard dataset from (model, question) arrays of correct counts and samples.

    Parameters
    ----------
    correct : array_like, shape (M, N) or (N,)
        Sum of scores per cell (number correct for 0/1 scores).
    count : array_like, same shape
        Number of samples per cell; 0 marks a cell with no result.
    models, questions : iterable of str, optional
        Coordinate labels; default ``m0, m1, ...`` and ``q0, q1, ...``.
    sum_sq : array_like, optional
        Sum of squared scores per cell; defaults to ``correct`` (0/1 scores).
    benchmark, source : str
        Stored as attributes.
    counts_known : bool
        False when ``count`` is not the real number of samples (see module docs).

    Returns
    -------
    xarray.Dataset

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> ds = from_arrays(np.array([[3, 1], [2, 2]]), np.array([[4, 4], [4, 4]]), models=["a", "b"])
    >>> ds.sizes["question"]
    2
    """
    correct = np.atleast_2d(np.asarray(correct, dtype=float))
    count = np.atleast_2d(np.asarray(count))
    if correct.shape != count.shape:
        raise DataError(f"correct has shape {correct.shape} but count has {count.shape}")
    if not np.all(np.isfinite(correct)):
        raise DataError("correct has NaN or infinite entries; nothing is imputed")
    if np.any(count != np.round(count)) or np.any(count < 0):
        raise DataError("count must hold whole numbers >= 0")
    count = count.astype(np.int64)
    if np.any(correct < 0) or np.any(correct > count):
        m, q = np.argwhere((correct < 0) | (correct > count))[0]
        raise DataError(
            f"cell ({m}, {q}): correct={correct[m, q]} is outside [0, count={count[m, q]}]"
        )
    sum_sq = correct.copy() if sum_sq is None else np.atleast_2d(np.asarray(sum_sq, dtype=float))
    binary = bool(np.all(sum_sq == correct) and np.all(correct == np.round(correct)))
    n_models, n_questions = correct.shape
    models = [f"m{i}" for i in range(n_models)] if models is None else [str(m) for m in models]
    questions = (
        [f"q{i}" for i in range(n_questions)] if questions is None else [str(q) for q in questions]
    )
    dims = (MODEL, QUESTION)
    ds = xr.Dataset(
        {"correct": (dims, correct), "count": (dims, count), "sum_sq": (dims, sum_sq)},
        coords={MODEL: models, QUESTION: questions},
        attrs={
            "benchmark": benchmark,
            "source": source,
            "binary": binary,
            "counts_known": bool(counts_known),
        },
    )
    ds["correct"].attrs["description"] = "sum of sample scores (number correct for 0/1 scores)"
    ds["count"].attrs["description"] = "number of samples K; 0 = no result for this cell"
    ds["sum_sq"].attrs["description"] = "sum of squared sample scores"
    return ds


def from_samples(df: pd.DataFrame, *, name: str = "DataFrame", first_line: int | None = None,
                 benchmark: str | None = None) -> xr.Dataset:  # fmt: skip
    """Dataset from a long per-sample table with columns ``model, example_id, sample, correct``.

    Scores may be 0/1 or fractions in [0, 1]; K may differ per cell.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayesnoise.data import from_samples
    >>> df = pd.DataFrame({"model": ["a"] * 4, "example_id": [1, 1, 2, 2],
    ...                    "sample": [0, 1, 0, 1], "correct": [1, 0, 1, 1]})
    >>> int(from_samples(df)["count"].sum())
    4
    """
    df, bench, where = _prepare(df, name, first_line, benchmark)
    score = _numeric(df, "correct", where)
    _check_range(score, "correct", where)
    _check_duplicates(df, ["model", "example_id", "sample"], where)
    models, questions, arrays = _pivot(
        df["model"].astype(str).to_numpy(),
        df["example_id"].astype(str).to_numpy(),
        {"correct": score, "count": np.ones(len(df), dtype=np.int64), "sum_sq": score**2},
    )
    return from_arrays(arrays["correct"], arrays["count"], sum_sq=arrays["sum_sq"], models=models,
                       questions=questions, benchmark=bench, source=name)  # fmt: skip


def _check_range(values: np.ndarray, column: str, where: _Where) -> None:
    bad = (values < 0) | (values > 1)
    _reject(bad, where, lambda i: f"{column}={_fmt(values[i])} is outside [0, 1] "
            f"({int(bad.sum())} such rows); scores are not clipped")  # fmt: skip


def _from_counts(
    df: pd.DataFrame, name: str, first_line: int | None, benchmark: str | None
) -> xr.Dataset:
    df, bench, where = _prepare(df, name, first_line, benchmark)
    count = _numeric(df, "count", where)
    _reject((count != np.round(count)) | (count < 1), where,
            lambda i: f"count={_fmt(count[i])} is not a whole number >= 1")  # fmt: skip
    if "correct" in df.columns:
        correct = _numeric(df, "correct", where)
        _reject((correct != np.round(correct)) | (correct < 0), where,
                lambda i: f"correct={_fmt(correct[i])} is not a whole number >= 0")  # fmt: skip
        _reject(correct > count, where,
                lambda i: f"correct={correct[i]:g} exceeds count={count[i]:g}")  # fmt: skip
        if "pass1" in df.columns:
            pass1 = _numeric(df, "pass1", where)
            _reject(
                np.abs(pass1 * count - correct) > _WHOLE_TOL * np.maximum(count, 1), where,
                lambda i: f"pass1={_fmt(pass1[i])} disagrees with correct/count="
                f"{correct[i]:g}/{count[i]:g}",
            )  # fmt: skip
    else:
        pass1 = _numeric(df, "pass1", where)
        _check_range(pass1, "pass1", where)
        raw = pass1 * count
        correct = np.round(raw)
        _reject(
            np.abs(raw - correct) > _WHOLE_TOL * np.maximum(count, 1), where,
            lambda i: f"pass1*count={_fmt(raw[i])} is not a whole number of correct samples "
            f"(pass1={_fmt(pass1[i])}, count={count[i]:g})",
        )  # fmt: skip
    _check_duplicates(df, ["model", "example_id"], where)
    models, questions, arrays = _pivot(
        df["model"].astype(str).to_numpy(),
        df["example_id"].astype(str).to_numpy(),
        {"correct": correct, "count": count.astype(np.int64)},
    )
    return from_arrays(arrays["correct"], arrays["count"], models=models, questions=questions,
                       benchmark=bench, source=name)  # fmt: skip


def _from_arena(
    df: pd.DataFrame, name: str, first_line: int | None, benchmark: str | None
) -> xr.Dataset:
    df, bench, where = _prepare(df, name, first_line, benchmark)
    pass1 = _numeric(df, "pass1", where)
    _check_range(pass1, "pass1", where)
    _check_duplicates(df, ["model", "example_id"], where)
    binary = bool(np.all((pass1 == 0) | (pass1 == 1)))
    models, questions, arrays = _pivot(
        df["model"].astype(str).to_numpy(),
        df["example_id"].astype(str).to_numpy(),
        {"correct": pass1, "count": np.ones(len(df), dtype=np.int64)},
    )
    # A fractional pass1 is kept as one draw with expected score pass1: sum_sq = correct makes the
    # within-cell variance p(1 - p), the variance of a single Bernoulli(p) answer.
    return from_arrays(arrays["correct"], arrays["count"], models=models, questions=questions,
                       benchmark=bench, source=name, counts_known=binary)  # fmt: skip


def from_sample_array(scores: xr.DataArray, *, benchmark: str = "benchmark") -> xr.Dataset:
    """Dataset from a score array with dims ``(model, question, sample)``.

    Scores in [0, 1]; NaN marks a sample that was not drawn (so K may differ per cell).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from bayesnoise.data import from_sample_array
    >>> a = xr.DataArray([[[1, 0, np.nan], [1, 1, 1]]], dims=("model", "question", "sample"),
    ...                  coords={"model": ["m"], "question": ["q1", "q2"]})
    >>> from_sample_array(a)["count"].values.tolist()
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
        filled.sum(axis=-1), drawn.sum(axis=-1), sum_sq=(filled**2).sum(axis=-1),
        models=scores[MODEL].values if MODEL in scores.coords else None,
        questions=scores[QUESTION].values if QUESTION in scores.coords else None,
        benchmark=benchmark, source="DataArray",
    )  # fmt: skip


def from_wide(
    df: pd.DataFrame, *, name: str = "DataFrame", benchmark: str = "benchmark"
) -> xr.Dataset:
    """Dataset from a wide matrix: one row per question (index), one column per model, 0/1 scores.

    Fractional entries are accepted as per-question expected scores without sample counts
    (``counts_known=False``).

    Examples
    --------
    >>> import pandas as pd
    >>> from bayesnoise.data import from_wide
    >>> wide = pd.DataFrame({"a": [1, 0, 1], "b": [1, 1, 0]}, index=["q1", "q2", "q3"])
    >>> from_wide(wide)["correct"].sum("question").values.tolist()
    [2.0, 2.0]
    """
    values = df.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    bad = np.isnan(values)
    if bad.any():
        q, m = np.argwhere(bad)[0]
        raise DataError(
            f"{name}: question {df.index[q]!r}, model {df.columns[m]!r}: value {_fmt(df.iat[q, m])} "
            f"is missing or not a number ({int(bad.sum())} such cells); nothing is imputed"
        )
    out = (values < 0) | (values > 1)
    if out.any():
        q, m = np.argwhere(out)[0]
        raise DataError(f"{name}: question {df.index[q]!r}, model {df.columns[m]!r}: "
                        f"score {_fmt(values[q, m])} is outside [0, 1]")  # fmt: skip
    for axis, labels in (("question", df.index), ("model", df.columns)):
        dup = pd.Index(labels).duplicated()
        if dup.any():
            raise DataError(f"{name}: duplicate {axis} {labels[int(np.flatnonzero(dup)[0])]!r}")
    binary = bool(np.all((values == 0) | (values == 1)))
    return from_arrays(values.T, np.ones(values.T.shape, dtype=np.int64), models=df.columns,
                       questions=df.index, benchmark=benchmark, source=name,
                       counts_known=binary)  # fmt: skip


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
        missing = {"correct", "count", "sum_sq"} - set(source.data_vars)
        if missing or set(source["correct"].dims) != {MODEL, QUESTION}:
            raise DataError(
                f"Dataset needs variables correct, count, sum_sq over (model, question); "
                f"missing {sorted(missing)}"
            )
        return source
    if isinstance(source, xr.DataArray):
        return from_sample_array(source, benchmark=benchmark or str(source.name or "benchmark"))
    if isinstance(source, pd.DataFrame):
        if _classify(source.columns) == "unknown":
            return from_wide(source, benchmark=benchmark or "benchmark")
        df, name, first_line = source.reset_index(drop=True), "DataFrame", None
    else:
        path = Path(source)
        df, first_line = _read_table(path)
        name = str(path)
    if df.empty:
        raise DataError(f"{name}: no rows")
    df = df.rename(columns=lambda c: str(c).strip())
    kind = _classify(df.columns)
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
        return _from_counts(df, name, first_line, benchmark)
    return _from_arena(df, name, first_line, benchmark)


# ----------------------------------------------------------------------------- helpers


def scores(ds: xr.Dataset) -> xr.DataArray:
    """Mean score per cell, ``correct / count`` (NaN where the model has no result).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays, scores
    >>> scores(from_arrays(np.array([[1, 2]]), np.array([[2, 4]]))).values.tolist()
    [[0.5, 0.5]]
    """
    count = ds["count"]
    return (ds["correct"] / count.where(count > 0)).rename("score")


def complete(ds: xr.Dataset, on_missing: str = "raise") -> xr.Dataset:
    """Restrict to questions that every model answered, as paired analysis needs.

    Parameters
    ----------
    ds : xarray.Dataset
    on_missing : {"raise", "intersect"}
        ``"raise"`` (default) errors when any model lacks a question, naming the models and
        questions; ``"intersect"`` keeps the questions all models answered and warns how many
        were dropped.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays, complete
    >>> ds = from_arrays(np.array([[1, 0], [1, 0]]), np.array([[1, 1], [1, 0]]), models=["a", "b"])
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     complete(ds, on_missing="intersect").sizes["question"]
    1
    """
    if on_missing not in ("raise", "intersect"):
        raise ValueError(f"on_missing must be 'raise' or 'intersect', not {on_missing!r}")
    answered = (ds["count"] > 0).values
    full = answered.all(axis=0)
    if full.all():
        return ds
    n_total, n_keep = full.size, int(full.sum())
    if on_missing == "raise":
        lacking = np.flatnonzero(~answered.all(axis=1))
        details = []
        for m in lacking[:5]:
            missing_q = ds[QUESTION].values[~answered[m]]
            shown = ", ".join(map(str, missing_q[:3])) + (", ..." if missing_q.size > 3 else "")
            details.append(f"model {_fmt(ds[MODEL].values[m])} lacks {missing_q.size} ({shown})")
        more = f"; and {lacking.size - 5} more models" if lacking.size > 5 else ""
        raise DataError(
            f"{ds.attrs.get('source', 'data')}: models do not cover the same questions: "
            + "; ".join(details)
            + more
            + f". Paired analysis needs the same questions; pass on_missing='intersect' "
            f"(CLI: --intersect) to use the {n_keep} of {n_total} questions all models answered"
        )
    if n_keep == 0:
        raise DataError("no question was answered by every model; nothing to pair")
    warnings.warn(
        f"on_missing='intersect': dropped {n_total - n_keep} of {n_total} questions that not every "
        f"model answered; {n_keep} remain",
        UserWarning,
        stacklevel=2,
    )
    return ds.isel({QUESTION: np.flatnonzero(full)})
