"""Row-level checks of the long-table layouts: what a row adds to its cell, or where it is wrong.

Every check looks at whole arrays (one batch of rows) and, at the first bad row, raises a
:class:`~bayesnoise.data.DataError` that names the file, the line (or row), the model and the
question, using the column names of the file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from bayesnoise._common import fmt_value as _fmt
from bayesnoise._common import option
from bayesnoise.data import DataError

# Relative tolerance for "pass1 * count is a whole number": pass1 is printed with ~10 digits.
_WHOLE_TOL = 1e-6
# Absolute tolerance for "pass1 * K is a whole number" with samples_per_question=K.
_ARENA_TOL = 1e-6
# Relative tolerance for sum_sq against its bounds (rounding of written floats).
_SQ_TOL = 1e-9
_EXTENSIONS = (".gz", ".csv", ".tsv", ".jsonl", ".ndjson", ".json", ".parquet", ".nc")


def place(name: str, first_line: int | None, pos: int) -> str:
    """``name, line L`` (text files) or ``name, row R`` (DataFrames, Parquet: 0-based)."""
    loc = f"line {pos + first_line}" if first_line is not None else f"row {pos}"
    return f"{name}, {loc}"


def stem(name: str) -> str:
    """File name without its folder and data extensions (``a/b.csv.gz`` -> ``b``).

    Examples
    --------
    >>> stem("runs/math500.csv.gz")
    'math500'
    """
    base = Path(name).name
    for ext in _EXTENSIONS:
        base = base.removesuffix(ext)
    return base


class Rows:
    """One batch of rows seen by the checks: numbers per role, raw values, locations.

    ``numbers[role]`` is a float array (NaN = missing or not a number), ``raw(role, i)`` the
    value as written, ``where(i)`` the location of row ``i`` with its model and question.
    """

    def __init__(
        self,
        numbers: dict[str, np.ndarray],
        raw: Callable[[str, int], object],
        where: Callable[[int], str],
        labels: dict[str, str],
    ):
        self.numbers, self.raw, self.where, self.labels = numbers, raw, where, labels

    def reject(self, bad: np.ndarray, describe: Callable[[int], str]) -> None:
        """Raise at the first flagged row; ``describe(i)`` says what is wrong there."""
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise DataError(f"{self.where(i)}: {describe(i)}")

    def number(self, role: str) -> np.ndarray:
        values = self.numbers[role]
        bad = np.isnan(values)
        column = self.labels[role]
        self.reject(
            bad,
            lambda i: (
                f"{column}={_fmt(self.raw(role, i))} is missing or not a number "
                f"(at least {int(bad.sum())} such rows); nothing is imputed"
            ),
        )
        return values

    def in_unit_range(self, role: str) -> np.ndarray:
        values = self.number(role)
        bad = (values < 0) | (values > 1)
        self.reject(
            bad,
            lambda i: (
                f"{self.labels[role]}={_fmt(values[i])} is outside [0, 1] "
                f"(at least {int(bad.sum())} such rows); scores are not clipped"
            ),
        )
        return values


def sample_cells(rows: Rows) -> dict[str, np.ndarray]:
    """Per-sample rows: each adds its score, one sample and the squared score."""
    score = rows.in_unit_range("score")
    return {"correct": score, "samples": np.ones(score.size), "sum_sq": score * score}


def arena_cells(rows: Rows) -> dict[str, np.ndarray]:
    """Eval-Arena rows: one draw whose expected score is ``pass1``.

    ``sum_sq = pass1`` makes the within-cell variance p(1 - p), the variance of a single
    Bernoulli(p) answer.
    """
    pass1 = rows.in_unit_range("pass1")
    return {"correct": pass1, "samples": np.ones(pass1.size), "sum_sq": pass1}


def arena_count_cells(rows: Rows, k: int) -> dict[str, np.ndarray]:
    """Eval-Arena rows whose ``pass1`` is the mean of ``k`` 0/1 samples: ``round(pass1 * k)``
    correct out of ``k``; a row where ``pass1 * k`` is not within 1e-6 of a whole number is
    refused (then ``pass1`` is not a mean over ``k`` samples)."""
    pass1 = rows.in_unit_range("pass1")
    raw = pass1 * k
    correct = np.round(raw)
    rows.reject(
        np.abs(raw - correct) > _ARENA_TOL,
        lambda i: (
            f"{rows.labels['pass1']}={_fmt(pass1[i])} times samples_per_question={k} is "
            f"{_fmt(raw[i])}, not a whole number of correct samples (within {_ARENA_TOL:g}): "
            f"this pass1 is not a mean over {k} samples; give the right K "
            f"({option('samples_per_question', 'K')}), or leave it out to treat each value as one draw"
        ),
    )
    samples = np.full(pass1.size, float(k))
    return {"correct": correct, "samples": samples, "sum_sq": correct}


def count_cells(rows: Rows) -> dict[str, np.ndarray]:
    """Count rows: ``count`` samples (0 = no result) with ``correct`` and/or ``pass1``."""
    lab = rows.labels
    count = rows.number("count")
    rows.reject(
        (count != np.round(count)) | (count < 0),
        lambda i: f"{lab['count']}={_fmt(count[i])} is not a whole number >= 0",
    )
    has_sq = "sum_sq" in rows.numbers
    if "score" in rows.numbers:
        correct = rows.number("score")
        # With sum_sq (written by bayesnoise.save) the sum of partial scores may be fractional.
        fractional = (correct != np.round(correct)) & (not has_sq)
        rows.reject(
            (correct < 0) | fractional,
            lambda i: f"{lab['score']}={_fmt(correct[i])} is not a whole number >= 0",
        )
        rows.reject(
            correct > count,
            lambda i: f"{lab['score']}={_fmt(correct[i])} exceeds {lab['count']}={count[i]:g}",
        )
        if "pass1" in rows.numbers:
            pass1 = rows.number("pass1")
            rows.reject(
                np.abs(pass1 * count - correct) > _WHOLE_TOL * np.maximum(count, 1),
                lambda i: (
                    f"{lab['pass1']}={_fmt(pass1[i])} disagrees with {lab['score']}/"
                    f"{lab['count']}={correct[i]:g}/{count[i]:g}"
                ),
            )
    else:
        pass1 = rows.in_unit_range("pass1")
        raw = pass1 * count
        correct = np.round(raw)
        rows.reject(
            np.abs(raw - correct) > _WHOLE_TOL * np.maximum(count, 1),
            lambda i: (
                f"pass1*count={_fmt(raw[i])} is not a whole number of correct samples "
                f"({lab['pass1']}={_fmt(pass1[i])}, {lab['count']}={count[i]:g})"
            ),
        )
    sum_sq = rows.number("sum_sq") if has_sq else correct
    if has_sq:
        low = np.divide(correct * correct, count, out=np.zeros_like(correct), where=count > 0)
        tol = _SQ_TOL * np.maximum(count, 1)
        rows.reject(
            (sum_sq < low - tol) | (sum_sq > correct + tol),
            lambda i: (
                f"{lab['sum_sq']}={_fmt(sum_sq[i])} is impossible for scores in [0, 1] with "
                f"sum {correct[i]:g} over {count[i]:g} samples (it lies in "
                f"[sum^2/count, sum])"
            ),
        )
    return {"correct": correct, "samples": count, "sum_sq": sum_sq}


CELLS = {"samples": sample_cells, "counts": count_cells, "arena": arena_cells}
