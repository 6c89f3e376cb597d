"""Helpers shared by the eval-log readers (Inspect AI and lm-evaluation-harness): naming the
source, choosing one of several benchmarks or options, and building the dataset."""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import xarray as xr

from bayesnoise._common import by_caller
from bayesnoise.data import DataError

from .tables import from_samples

# Locations listed in an error message before "... and N more".
SHOWN = 5
_PACKAGE_DIR = str(Path(__file__).parent.parent) + os.sep


def natural_key(label: str) -> tuple:
    """Sort key putting ``q2`` before ``q10`` and ``2`` before ``10``."""
    parts = re.split(r"(\d+)", label)
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts if p)


def source_name(paths: Sequence[Path]) -> str:
    """One path as given, or the folder that holds all of them."""
    if len(paths) == 1:
        return str(paths[0])
    try:
        return os.path.commonpath([str(p) for p in paths]) or "."
    except ValueError:  # paths on different drives
        return str(paths[0].parent)


def check_choice(value: str, allowed: tuple[str, ...], option: str) -> None:
    if value not in allowed:
        raise DataError(f"{option}={value!r} is not one of {', '.join(repr(a) for a in allowed)}")


def choose(
    found: Sequence[str], chosen: str | None, *, what: str, option: str, cli: str, where: str
) -> str:
    """Pick ``chosen`` among ``found``, or the only one; otherwise say what there is.

    ``what`` names the thing in the message (``"tasks"``), ``option`` the keyword and ``cli``
    the command-line flag that choose one.
    """
    listed = ", ".join(found)
    if chosen is not None:
        if chosen not in found:
            raise DataError(f"{where}: no {what[:-1]} {chosen!r}; found {listed or 'none'}")
        return chosen
    if len(found) == 1:
        return found[0]
    if not found:
        raise DataError(f"{where}: no {what} found")
    raise DataError(
        f"{where}: holds {len(found)} {what} ({listed}); choose one with "
        + by_caller(f"{option}=...", cli)
    )


def warn(message: str) -> None:
    """Warn once, pointing at the caller's code outside the package."""
    warnings.warn(message, UserWarning, stacklevel=2, skip_file_prefixes=(_PACKAGE_DIR,))


def more(items: Sequence[str]) -> str:
    """The first few items, and how many were left out."""
    shown = "; ".join(items[:SHOWN])
    return shown + (f"; ... and {len(items) - SHOWN} more" if len(items) > SHOWN else "")


def build_dataset(
    df: pd.DataFrame,
    *,
    name: str,
    benchmark: str,
    factors=(),
    threshold: float | None = None,
    success: str = "above",
    **attrs,
) -> xr.Dataset:
    """Dataset from long rows ``model, example_id, sample, correct, benchmark_id`` (and the
    ``factors`` columns, which become dims) through the package's validator, with models,
    questions and factor levels in natural sort order. ``threshold=T``: each sample's score
    becomes 1 (``>= T``; ``<= T`` with ``success="below"``) or 0 before the cell sums."""
    if threshold is not None:
        from bayesnoise.data import threshold_samples

        df = df.assign(correct=threshold_samples(df["correct"], threshold, success, source=name))
    if factors:
        from .tables import read_frame

        cols = ["benchmark_id", "model", "example_id", "sample", "correct", *factors]
        ds = read_frame(df[cols], name=name, benchmark=benchmark, factors=factors, progress=False)
    else:
        ds = from_samples(
            df[["benchmark_id", "model", "example_id", "sample", "correct"]],
            name=name,
            first_line=None,
            benchmark=benchmark,
        )
    order = {}
    for dim in ("model", "question", *factors):
        labels = ds[dim].values.tolist()
        if labels != sorted(labels, key=natural_key):
            order[dim] = sorted(labels, key=natural_key)
    ds = ds.sel(order) if order else ds
    ds.attrs.update({k: v for k, v in attrs.items() if v is not None})
    if threshold is not None:
        from bayesnoise.data import mark_thresholded

        mark_thresholded(ds, threshold, success)
    return ds


def _skipped_line(n_loaded: int, skipped: Sequence[tuple[str, str]]) -> str:
    """The one-line warning (<= 200 characters) about skipped files: each distinct reason once
    (with the file's name when one file has it), cut to fit; ``ds.attrs["files"]`` has all."""
    reasons: dict[str, list[str]] = {}
    for path, why in skipped:
        reasons.setdefault(why, []).append(Path(path).name)
    head = f"{n_loaded} files loaded, {len(skipped)} skipped: "
    tail = "; ds.attrs['files'] lists all"
    share = (200 - len(head) - len(tail)) // len(reasons) - 2  # each reason an equal share
    items = []
    for why, names in reasons.items():
        if len(reasons) == 1 and len(names) == 1:  # one file: its name, then why
            item = f"{names[0][:60]} ({why})"
        else:  # several reasons: each reason first, with its count
            item = f"{why} (x{len(names)})"
        items.append(item if len(item) <= share else item[: max(share - 3, 8)] + "...")
    return head + "; ".join(items) + tail


def file_report(
    loaded: Sequence[str],
    skipped: Sequence[tuple[str, str]],
    where: str,
    other_tasks: Sequence[tuple[str, str]] = (),
) -> str:
    """The per-file report kept in ``ds.attrs["files"]``: one ``loaded: PATH`` or
    ``skipped: PATH (reason)`` line per file found. The skipped ones are also said once in a
    warning, so that nothing found is dropped without a word; files of another task than the
    one chosen (``other_tasks``) are listed in the report only."""
    lines = [f"loaded: {p}" for p in loaded] + [
        f"skipped: {p} ({why})" for p, why in [*skipped, *other_tasks]
    ]
    if skipped:
        warn(_skipped_line(len(loaded), skipped))
    return "\n".join(lines)
