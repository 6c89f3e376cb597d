"""The inputs of :func:`bayesnoise.signal`: a loaded dataset, or a results table read whole
with a checkpoint column folded into the model labels and a group column into the question
labels (validated by the loader's checks), split into one part per group."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesnoise._common import did_you_mean
from bayesnoise.data import MODEL, QUESTION, DataError
from bayesnoise.io.frames import (
    has_question_column,
    model_column,
    numeric_scores,
    read_table,
    score_column,
)

from ._inputs import dataset

__all__ = ["signal_parts", "source"]

# Read options that only the loader understands (logs), not a table read whole.
_LOADER_ONLY = ("scorer", "score_key", "use_scored", "merge_duplicates", "metric", "filter")


def signal_parts(data, checkpoint_column, group_column, opts, progress) -> list[tuple]:
    """[(group label or None, {"ds" | "scores", "where", ...}), ...]."""
    import xarray as xr

    if checkpoint_column is None and group_column is None:
        ds = dataset(data, progress=progress, **opts)
        return [(None, {"ds": ds, "where": source(ds)})]
    if isinstance(data, xr.Dataset):
        if checkpoint_column is not None:
            raise DataError(
                "checkpoint_column needs a results table (a loaded dataset has no checkpoints); "
                "pass the file or DataFrame"
            )
        ds = dataset(data, progress=progress, **opts)
        if group_column not in ds.coords or ds[group_column].dims != (QUESTION,):
            raise DataError(
                f"{source(ds)}: the dataset has no coordinate {group_column!r} along question; "
                "pass the results table, or load it with the column as cluster "
                f"(columns={{'cluster': ...}}) and use group_column='cluster'"
            )
        labels = ds[group_column].values.astype(str)
        return [
            (g, {"ds": ds.isel({QUESTION: np.flatnonzero(labels == g)}), "where": _where(ds, g)})
            for g in _ordered(labels)
        ]
    given = [k for k in _LOADER_ONLY if opts[k]]
    if given:
        raise DataError(
            f"options {', '.join(given)} are for eval logs; checkpoint_column and group_column "
            "read a results table"
        )
    what = "checkpoint_column" if checkpoint_column is not None else "group_column"
    frame, name, first_line = read_table(data, what)
    columns = [str(c) for c in frame.columns]
    frame.columns = columns
    for option, column in (
        ("checkpoint_column", checkpoint_column),
        ("group_column", group_column),
    ):
        if column is not None and column not in columns:
            raise DataError(f"{name}: no column {column!r} ({option}); found {', '.join(columns)}")
    if not has_question_column(columns, opts["question_col"]):
        if checkpoint_column is None:
            raise DataError(
                f"{name}: no question column (example_id or question; --question-col); a table "
                "of one score per model needs a checkpoint_column to measure noise from"
            )
        return _score_parts(frame, name, checkpoint_column, group_column, opts)
    return _question_parts(frame, name, first_line, checkpoint_column, group_column, opts)


def source(ds) -> str:
    return str(ds.attrs.get("source", "input"))


def _where(ds, group) -> str:
    return f"{source(ds)} [{group}]"


def _ordered(labels) -> list[str]:
    return list(dict.fromkeys(map(str, labels)))


def _score_parts(frame, name, checkpoint_column, group_column, opts):
    """One score per model and checkpoint (no question column)."""
    columns = list(frame.columns)
    mcol = model_column(columns, opts["model_col"], name)
    scol = score_column(columns, opts["score_col"], name)
    if opts["benchmark"] is not None:
        raise DataError(f"{name}: benchmark= selects rows of a per-question table; filter first")
    models = frame[mcol].astype(str).to_numpy()
    where_rows = [f"row {i} (model {m!r})" for i, m in enumerate(models)]
    scores = numeric_scores(frame[scol].to_numpy(), name, where_rows)
    table = pd.DataFrame(
        {"model": models, "checkpoint": frame[checkpoint_column].to_numpy(), "score": scores}
    )
    _keep_models(table, "model", opts["models"], name)
    groups = frame[group_column].astype(str).to_numpy() if group_column else None
    if groups is None:
        return [(None, {"scores": table, "where": name})]
    return [(g, {"scores": table[groups == g], "where": f"{name} [{g}]"}) for g in _ordered(groups)]


def _keep_models(table, column, wanted, name):
    from ._inputs import _model_list

    wanted = _model_list(wanted)
    if not wanted:
        return
    present = set(table[column])
    missing = [m for m in wanted if m not in present]
    if missing:
        raise DataError(f"{name}: {did_you_mean(missing[0], sorted(present))}")
    table.drop(table.index[~table[column].isin(wanted)], inplace=True)


def _question_parts(frame, name, first_line, checkpoint_column, group_column, opts):
    """Per-question rows: fold the checkpoint into the model label and the group into the
    question label, validate once with the loader's checks, then split by group."""
    from bayesnoise.data import complete, select_models
    from bayesnoise.io.columns import resolve_columns
    from bayesnoise.io.tables import read_frame

    from ._inputs import _COLUMN_ROLES

    mapping = {r: opts[f"{r}_col"] for r in _COLUMN_ROLES if opts[f"{r}_col"] is not None}
    layout = resolve_columns(frame.columns, mapping or None, name)
    mcol, qcol = layout.columns["model"], layout.columns["question"]
    extra = {"checkpoint_column": checkpoint_column, "group_column": group_column}
    for option, column in extra.items():
        if column is not None and column in (mcol, qcol):
            raise DataError(f"{name}: {option} {column!r} is also the model or question column")
    frame = frame.copy()
    base = {}  # model label in the dataset -> (model, checkpoint)
    if checkpoint_column is not None:
        models = frame[mcol].astype(str).to_numpy()
        steps = frame[checkpoint_column].to_numpy()
        label = np.array([f"{m} @ {s}" for m, s in zip(models, steps, strict=True)], dtype=object)
        base = dict(zip(label, zip(models, steps, strict=True), strict=False))
        frame[mcol] = label
    group_of = {}
    if group_column is not None:
        groups = frame[group_column].astype(str).to_numpy()
        questions = frame[qcol].astype(str).to_numpy()
        label = np.array([f"{q} [{g}]" for q, g in zip(questions, groups, strict=True)])
        group_of = dict(zip(label, groups, strict=False))
        frame[qcol] = label
        if layout.columns.get("benchmark") == group_column:
            if opts["benchmark"] is not None:
                raise DataError(
                    f"{name}: benchmark= picks one benchmark, group_column={group_column!r} "
                    "splits by it; use one of them"
                )
            mapping.pop("benchmark", None)
    drop = [c for c in (checkpoint_column, group_column) if c is not None]
    frame = frame.drop(columns=drop)
    for role in ("benchmark", "cluster"):
        if mapping.get(role) in drop:
            mapping.pop(role)
    ds = read_frame(
        frame,
        columns=mapping or None,
        benchmark=opts["benchmark"],
        name=name,
        first_line=first_line,
        progress=False,
    )
    wanted = opts["models"]
    if wanted:
        from ._inputs import _model_list

        wanted = _model_list(wanted)
        labels = list(map(str, ds[MODEL].values))
        own = {lab: base.get(lab, (lab, None))[0] for lab in labels}
        missing = [m for m in wanted if m not in set(own.values())]
        if missing:
            raise DataError(f"{name}: {did_you_mean(missing[0], sorted(set(own.values())))}")
        ds = select_models(ds, [lab for lab in labels if own[lab] in wanted])
    on_missing = "intersect" if opts["intersect"] else "raise"
    part = {"base": base}
    if group_column is None:
        return [(None, {**part, "ds": complete(ds, on_missing=on_missing), "where": source(ds)})]
    labels = np.array([group_of[str(q)] for q in ds[QUESTION].values])
    out = []
    for g in _ordered(labels):
        sub = ds.isel({QUESTION: np.flatnonzero(labels == g)})
        # a model with no result in this group (e.g. one evaluated on another benchmark) is
        # not part of it; the models that are must share its questions
        answered = (sub["samples"] > 0).any(QUESTION).values
        sub = complete(sub.isel({MODEL: np.flatnonzero(answered)}), on_missing=on_missing)
        out.append((g, {**part, "ds": sub, "where": _where(ds, g)}))
    return out
