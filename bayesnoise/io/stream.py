"""Aggregate long tables to (model, question) cells while reading them, batch by batch.

Each batch is checked (:mod:`._rows`) and added to running sums per cell with ``bincount``;
a bitmap over (model, question, sample) catches duplicate rows across batches and files. So a
file of any length is read in constant memory beyond the (model, question) arrays, and every
error still names the file, line, model and question.
"""

from __future__ import annotations

import sys

import numpy as np
import xarray as xr

from bayesnoise._common import fmt_value as _fmt
from bayesnoise._common import option
from bayesnoise._progress import Progress
from bayesnoise.data import (
    DataError,
    check_range,
    from_arrays,
    mark_thresholded,
    passes,
    threshold_dataset,
)

from ._rows import CELLS, Rows, arena_count_cells, place
from .columns import Layout, column_option

__all__ = ["aggregate", "reading_progress"]

_ID_ROLES = ("model", "question", "sample", "benchmark", "cluster", "source")
# Seconds before the progress display appears, and between its updates.
DELAY, EVERY = 2.0, 0.5
# Largest duplicate bitmap (cells x samples, bytes) before sorting the keys at the end instead.
_BITMAP_LIMIT = 1 << 28


def _terminal() -> bool:
    return sys.stderr.isatty()


def reading_progress(name: str, enabled: bool | None = None) -> Progress:
    """The display of a table being read: ``reading NAME: 12.0M rows (45%)``, from
    :data:`DELAY` seconds on; ``enabled=None`` shows it only when standard error is a terminal."""
    return Progress(
        f"reading {name}", enabled=_terminal() if enabled is None else enabled, delay=DELAY
    )


class _Codes:
    """Integer codes of labels in order of first appearance, shared by all batches and files."""

    def __init__(self):
        self.index: dict[str, int] = {}
        self.labels: list[str] = []

    def map(self, labels: list, used: np.ndarray | None = None) -> np.ndarray:
        """Global code of each distinct value of a batch that occurs in it (``used``); -1 for a
        missing or empty value (and for one that does not occur)."""
        out = np.empty(len(labels), dtype=np.int64)
        for i, value in enumerate(labels):
            if (
                (used is not None and not used[i])
                or value is None
                or (isinstance(value, float) and value != value)
            ):
                out[i] = -1
                continue
            label = str(value)
            if not label.strip():
                out[i] = -1
                continue
            code = self.index.get(label)
            if code is None:
                code = self.index[label] = len(self.labels)
                self.labels.append(label)
            out[i] = code
        return out


def _grow(array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    out = np.zeros(shape, dtype=array.dtype)
    out[tuple(slice(0, n) for n in array.shape)] = array
    return out


class _Cells:
    """Running sums per (model, question) and the duplicate check, growing as labels appear."""

    def __init__(self, with_sample: bool):
        self.shape = (16, 64, 16 if with_sample else 1)
        self.sums = {k: np.zeros(self.shape[:2]) for k in ("correct", "samples", "sum_sq")}
        self.seen: np.ndarray | None = np.zeros(self.shape, dtype=bool)
        self.n_seen = 0
        self.keys: list[np.ndarray] = []  # (m, q, s) rows once the bitmap would be too large

    def reserve(self, m: int, q: int, s: int) -> None:
        if m <= self.shape[0] and q <= self.shape[1] and s <= self.shape[2]:
            return
        shape = tuple(
            max(old, 1 << int(np.ceil(np.log2(max(n, 1)))))
            for old, n in zip(self.shape, (m, q, s), strict=True)
        )
        self.sums = {k: _grow(v, shape[:2]) for k, v in self.sums.items()}
        if self.seen is not None and np.prod(shape, dtype=float) > _BITMAP_LIMIT:
            self.keys.append(np.argwhere(self.seen))
            self.seen = None
        elif self.seen is not None:
            self.seen = _grow(self.seen, shape)
        self.shape = shape

    def add(self, m, q, s, fields: dict[str, np.ndarray]) -> int | None:
        """Add rows; return the index of a row whose key was already there (a duplicate)."""
        size = self.shape[0] * self.shape[1]
        cell = m * self.shape[1] + q
        for key, values in fields.items():
            self.sums[key] += np.bincount(cell, weights=values, minlength=size).reshape(
                self.shape[:2]
            )
        if self.seen is None:
            self.keys.append(np.stack([m, q, s], axis=1))
            return None
        flat = self.seen.reshape(-1)
        key = cell * self.shape[2] + s
        before = flat[key]
        if before.any():
            return int(np.flatnonzero(before)[0])
        flat[key] = True
        n_seen = int(np.count_nonzero(flat))
        if n_seen - self.n_seen != key.size:  # a key twice within the batch
            first = np.unique(key, return_index=True)[1]
            repeated = np.ones(key.size, dtype=bool)
            repeated[first] = False
            return int(np.flatnonzero(repeated)[0])
        self.n_seen = n_seen
        return None

    def repeated_key(self) -> tuple[int, int, int] | None:
        """After the last batch, in sorting mode: a key seen twice, if any."""
        if self.seen is not None or not self.keys:
            return None
        keys = np.concatenate(self.keys)
        order = np.lexsort(keys.T[::-1])
        keys = keys[order]
        same = np.flatnonzero((keys[1:] == keys[:-1]).all(axis=1))
        return tuple(int(v) for v in keys[same[0]]) if same.size else None


class _Aggregator:
    def __init__(
        self,
        layout: Layout,
        benchmark: str | None,
        sources: list,
        name: str,
        samples_per_question: int | None = None,
        threshold: tuple[float, str] | None = None,
    ):
        self.layout, self.benchmark, self.sources, self.name = layout, benchmark, sources, name
        self.per_question = samples_per_question
        # (T, success): each per-sample score becomes 0/1 before the cell sums; its range
        self.threshold, self.low, self.high = threshold, np.inf, -np.inf
        self.codes = {role: _Codes() for role in (*_ID_ROLES, *layout.factor_roles)}
        # (question, factor levels...) -> one code: the cells are (model, question x levels)
        self.combos: dict[tuple[int, ...], int] = {}
        self.cells = _Cells("sample" in layout.keys)
        self.cluster = np.full(64, -1, dtype=np.int64)
        self.rows = 0
        self.fractional = False

    def _ids(self, role, column, keep) -> np.ndarray:
        if keep is None:  # batch dictionaries list values in order of first appearance
            used = np.bincount(column.codes, minlength=len(column.labels)) > 0
            return self.codes[role].map(column.labels, used)[column.codes]
        local = column.codes[keep]  # rows of one benchmark: their own order of appearance
        values, first = np.unique(local, return_index=True)
        order = values[np.argsort(first)]
        lookup = np.full(len(column.labels), -1, dtype=np.int64)
        lookup[order] = self.codes[role].map([column.labels[i] for i in order])
        return lookup[local]

    def _batch(self, n: int, columns: dict):
        """Rows of the chosen benchmark: (positions in the batch, their id codes)."""
        keep = None  # all rows
        if "benchmark" in columns:
            codes = self.codes["benchmark"]
            bench = codes.map(columns["benchmark"].labels)[columns["benchmark"].codes]
            if self.benchmark is None:
                if len(codes.labels) > 1:
                    self._several_benchmarks()
            else:
                keep = np.flatnonzero(bench == codes.index.get(self.benchmark, -2))
        roles = (*_ID_ROLES, *self.layout.factor_roles)
        ids = {r: self._ids(r, columns[r], keep) for r in roles if r in columns}
        if self.layout.factors:
            ids["question_only"] = ids["question"]
            ids["question"] = self._combine(ids)
        return keep, ids

    def _combine(self, ids: dict) -> np.ndarray:
        """One code per (question, factor levels) combination (-1 if any part is missing)."""
        parts = np.stack([ids["question"], *(ids[r] for r in self.layout.factor_roles)], axis=1)
        if parts.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        unique, inverse = np.unique(parts, axis=0, return_inverse=True)
        codes = np.empty(len(unique), dtype=np.int64)
        for i, key in enumerate(map(tuple, unique.tolist())):
            if min(key) < 0:
                codes[i] = -1
                continue
            code = self.combos.get(key)
            if code is None:
                code = self.combos[key] = len(self.combos)
            codes[i] = code
        return codes[inverse.reshape(-1)]

    def _where(self, source, offset, columns, keep):
        roles = [
            r
            for r in ("model", "question", *self.layout.factor_roles, "sample")
            if r in self.layout.columns
        ]

        def where(i: int, ident: bool = True) -> str:
            pos = i if keep is None else int(keep[i])
            loc = place(source.name, source.first_line, offset + pos)
            if not ident:
                return loc
            shown = ", ".join(f"{self.layout.label(r)}={_fmt(columns[r].raw(pos))}" for r in roles)
            return f"{loc} ({shown})"

        return where

    def add(self, source, offset: int, n: int, columns: dict) -> None:
        keep, ids = self._batch(n, columns)
        size = n if keep is None else keep.size
        if size == 0:
            return
        where = self._where(source, offset, columns, keep)
        for role in ("model", "question", "sample", "cluster", *self.layout.factor_roles):
            own = ids.get("question_only", ids.get(role)) if role == "question" else ids.get(role)
            if own is not None and (own < 0).any():
                i = int(np.flatnonzero(own < 0)[0])
                raise DataError(f"{where(i)}: {self.layout.label(role)} is empty")
        values = {
            role: columns[role].take(keep).numbers(scores=self.layout.kind == "samples")
            if keep is not None
            else columns[role].numbers(scores=self.layout.kind == "samples")
            for role in ("score", "count", "pass1", "sum_sq")
            if role in columns
        }
        rows = Rows(
            values,
            lambda role, i: columns[role].raw(i if keep is None else int(keep[i])),
            where,
            self.layout.columns,
        )
        if self.per_question is not None:
            fields = arena_count_cells(rows, self.per_question)
        else:
            fields = CELLS[self.layout.kind](rows)
        if self.layout.kind == "arena" and self.per_question is None:
            self.fractional |= bool(np.any(fields["correct"] != np.round(fields["correct"])))
        if self.threshold is not None:
            fields = self._thresholded(fields)
        m, q = ids["model"], ids["question"]
        s = ids.get("sample", np.zeros_like(m))
        self.cells.reserve(
            len(self.codes["model"].labels),
            len(self.combos) if self.layout.factors else len(self.codes["question"].labels),
            max(len(self.codes["sample"].labels), 1),
        )
        repeat = self.cells.add(m, q, s, fields)
        if repeat is not None:
            self._duplicate((int(m[repeat]), int(q[repeat]), int(s[repeat])))
        if "cluster" in ids:
            self._check_cluster(q, ids["cluster"], where)
        self.rows += size

    def _thresholded(self, fields: dict) -> dict:
        """Per-sample rows: each score becomes 1 (success) or 0 before it is summed."""
        score = fields["correct"]
        if score.size:
            self.low = min(self.low, float(score.min()))
            self.high = max(self.high, float(score.max()))
        success = passes(score, *self.threshold).astype(float)
        return {"correct": success, "samples": fields["samples"], "sum_sq": success}

    def _check_cluster(self, q: np.ndarray, c: np.ndarray, where) -> None:
        if self.cluster.size < len(self.codes["question"].labels):
            self.cluster = _grow(self.cluster + 1, (self.cells.shape[1],)) - 1
        order = np.argsort(q, kind="stable")
        qs, cs = q[order], c[order]
        start = np.r_[True, qs[1:] != qs[:-1]]
        first = cs[np.maximum.accumulate(np.where(start, np.arange(qs.size), 0))]
        known = self.cluster[qs]
        other = np.where(known >= 0, known, first)
        bad = np.flatnonzero(cs != other)
        if bad.size:
            i = int(order[bad].min())
            j = int(np.flatnonzero(order == i)[0])
            labels = self.codes["cluster"].labels
            raise DataError(
                f"{where(i)}: question {self.codes['question'].labels[q[i]]!r} is in cluster "
                f"{labels[c[i]]!r} here but in {labels[other[j]]!r} in an earlier row; each "
                "question must belong to one cluster"
            )
        self.cluster[qs[start]] = cs[start]

    def _scan(self, wanted: dict[str, str]):
        for source in self.sources:
            for offset, n, columns in source.batches(wanted, set(wanted)):
                yield source, offset, n, columns

    def _several_benchmarks(self):
        names = _Codes()
        for _, _, _, columns in self._scan({"benchmark": self.layout.label("benchmark")}):
            names.map(columns["benchmark"].labels)
        raise DataError(
            f"{self.name}: holds {len(names.labels)} benchmarks ({', '.join(names.labels)}); "
            f"choose one with {option('benchmark', 'NAME')}"
        )

    def _duplicate(self, key: tuple[int, ...]):
        roles = self.layout.keys
        wanted = {
            r: self.layout.label(r)
            for r in (*roles, *self.layout.factor_roles, "benchmark")
            if r in self.layout.columns
        }
        found = []
        for source, offset, n, columns in self._scan(wanted):
            keep, ids = self._batch(n, columns)
            match = np.ones(n if keep is None else keep.size, dtype=bool)
            for role, code in zip(roles, key, strict=False):
                match &= ids[role] == code
            where = self._where(source, offset, columns, keep)
            found += [
                (where(int(i)), where(int(i), ident=False))
                for i in np.flatnonzero(match)[: 2 - len(found)]
            ]
            if len(found) == 2:
                break
        shown = (*roles[:2], *self.layout.factor_roles, *roles[2:])
        labels = ", ".join(self.layout.label(r) for r in shown)
        others = [c for c in self.sources[0].columns if c not in self.layout.columns.values()]
        hint = ""
        if others:
            hint = (
                f"; if the rows differ by another column ({', '.join(others)}), such as a prompt "
                f"template, run or judge, name it as a factor (factors=[{others[0]!r}], CLI: "
                f"--factor {others[0]}; `bayesnoise noises` measures its noise)"
            )
        if self.layout.kind == "samples" and "sample" not in roles:
            hint += (
                "; only if they are repeated samples of one question under the same conditions, "
                f"name the sample column ({column_option('sample')})"
            )
        raise DataError(
            f"{found[0][0]}: duplicate ({labels}) row, again at {found[-1][1]}. Each cell "
            f"must appear once (select one benchmark/temperature/run first){hint}"
        )

    def dataset(self, default_benchmark: str, source: str) -> xr.Dataset:
        repeated = self.cells.repeated_key()
        if repeated is not None:
            self._duplicate(repeated[: len(self.layout.keys)])
        benches = self.codes["benchmark"].labels
        if self.benchmark is not None and self.benchmark not in benches:
            raise DataError(
                f"{self.name}: no benchmark {self.benchmark!r}; it holds {', '.join(benches)}"
            )
        if self.rows == 0:
            raise DataError(f"{self.name}: no rows")
        models, questions = self.codes["model"].labels, self.codes["question"].labels
        width = len(self.combos) if self.layout.factors else len(questions)
        cut = (slice(0, len(models)), slice(0, width))
        sums = {k: v[cut] for k, v in self.cells.sums.items()}
        origin = self.codes["source"].labels
        if self.layout.factors:
            return self._factor_dataset(sums, models, questions, default_benchmark, source)
        ds = from_arrays(
            sums["correct"],
            sums["samples"].astype(np.int64),
            sum_sq=sums["sum_sq"],
            models=models,
            questions=questions,
            benchmark=self.benchmark or (benches[0] if benches else default_benchmark),
            source=origin[0] if len(origin) == 1 else source,
            counts_known=not self.fractional,
        )
        if "cluster" in self.layout.columns:
            labels = np.array(self.codes["cluster"].labels, dtype=object)
            ds = ds.assign_coords(cluster=("question", labels[self.cluster[: len(questions)]]))
        return ds

    def _factor_dataset(self, sums, models, questions, default_benchmark, source) -> xr.Dataset:
        """Scatter the (model, question x levels) sums into (model, question, *factors)."""
        keys = np.array(list(self.combos), dtype=np.int64).reshape(len(self.combos), -1)
        levels = [self.codes[r].labels for r in self.layout.factor_roles]
        shape = (len(models), len(questions), *map(len, levels))
        arrays = {}
        for name, flat in sums.items():
            full = np.zeros(shape)
            full[(slice(None), *keys.T)] = flat
            arrays[name] = full
        benches, origin = self.codes["benchmark"].labels, self.codes["source"].labels
        return from_arrays(
            arrays["correct"],
            arrays["samples"].astype(np.int64),
            sum_sq=arrays["sum_sq"],
            models=models,
            questions=questions,
            factors=dict(zip(self.layout.factors, levels, strict=True)),
            benchmark=self.benchmark or (benches[0] if benches else default_benchmark),
            source=origin[0] if len(origin) == 1 else source,
            counts_known=not self.fractional,
        )


def aggregate(
    sources: list,
    layout: Layout,
    *,
    benchmark: str | None,
    name: str,
    default_benchmark: str,
    progress: Progress,
    samples_per_question: int | None = None,
    threshold: float | None = None,
    success: str = "above",
) -> xr.Dataset:
    """Read every batch of ``sources`` (one layout) into one (model, question) dataset;
    ``samples_per_question=K`` reads an Eval-Arena ``pass1`` as ``round(pass1 * K)`` correct
    out of K. ``threshold=T``: per-sample rows are thresholded one by one before the cell
    sums (``score >= T`` is a success, ``<= T`` with ``success="below"``); count and
    Eval-Arena tables, which hold no per-sample scores, are thresholded per cell
    (:func:`~bayesnoise.data.threshold_dataset`)."""
    per_row = threshold is not None and layout.kind == "samples"
    chosen = (float(threshold), success) if per_row else None
    agg = _Aggregator(layout, benchmark, sources, name, samples_per_question, chosen)
    text = {r for r in layout.columns if r in _ID_ROLES or r in layout.factor_roles}
    wanted = dict(layout.columns)
    for k, source in enumerate(sources):
        for offset, n, columns in source.batches(wanted, text):
            agg.add(source, offset, n, columns)
            fraction = (k + source.done / max(source.total, 1)) / len(sources)
            progress.update(f"{agg.rows / 1e6:.1f}M rows ({100 * fraction:.0f}%)", EVERY)
    progress.close(f"{agg.rows / 1e6:.1f}M rows")
    if per_row and agg.rows:
        check_range(agg.low, agg.high, float(threshold), name)
    ds = agg.dataset(default_benchmark, name)
    if threshold is None:
        return ds
    if per_row:
        return mark_thresholded(ds, threshold, success)
    return threshold_dataset(ds, threshold, success)
