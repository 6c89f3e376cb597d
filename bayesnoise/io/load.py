"""One :func:`load` for every supported source: it finds the files and dispatches by format."""

from __future__ import annotations

import glob
import os
from collections.abc import Mapping
from pathlib import Path

import pandas as pd
import xarray as xr

from bayesnoise._common import by_caller
from bayesnoise.data import (
    DataError,
    check_dataset,
    check_threshold,
    mark_thresholded,
    renamed_legacy,
    threshold_dataset,
    threshold_samples,
)

from .arrays import from_sample_array, from_wide
from .columns import looks_wide
from .save import read_netcdf
from .sources import TEXT_TYPES, table_kind
from .tables import read_files, read_frame

__all__ = ["load"]

_KNOWN = (
    f"{TEXT_TYPES}, Inspect logs (.eval, .json), lm-eval output folders or files, lighteval "
    "details, HELM run directories, or .nc"
)
# Each option: the sources it applies to, and its command-line flag.
_OPTIONS = {
    "columns": (("tables",), "--model-col/--question-col/--score-col/..."),
    "samples_per_question": (("tables",), "--samples-per-question"),
    "factors": (("tables", "inspect"), "--factor"),
    "scorer": (("inspect",), "--scorer"),
    "score_key": (("inspect",), "--score-key"),
    "incomplete": (("inspect",), "--use-scored"),
    "duplicates": (("inspect",), "--merge-duplicates"),
    "metric": (("lm_eval", "lighteval", "helm"), "--metric"),
    "filter": (("lm_eval",), "--filter"),
}
_WHAT = {
    "tables": "tables (CSV, TSV, JSON Lines, Parquet, DataFrame)",
    "inspect": "Inspect logs",
    "lm_eval": "lm-eval output",
    "lighteval": "lighteval details",
    "helm": "HELM runs",
    "netcdf": "a NetCDF dataset",
    "array": "a DataArray",
    "dataset": "a Dataset",
}
_DEFAULTS = {"incomplete": "error", "duplicates": "error"}


def _refuse_others(options: dict, kind: str, name: str) -> None:
    """A DataError for any option given that does not apply to this kind of source."""
    for key, value in options.items():
        if value is None or value == _DEFAULTS.get(key):
            continue
        applies, flag = _OPTIONS[key]
        if kind not in applies:
            also = " and ".join(_WHAT[a] for a in applies[1:])
            raise DataError(
                f"{name}: {by_caller(key + '=', flag)} applies to {_WHAT[applies[0]]}, not to "
                f"{_WHAT[kind]}"
                + (f" (it applies to {also} too)" if also else "")
                + "; leave it out"
            )


def _expand(source) -> list[Path]:
    """Paths from a path, a glob pattern, or a list of them (each once, in order)."""
    items = [source] if isinstance(source, str | os.PathLike) else list(source)
    if not items:
        raise DataError("no files given")
    out: list[Path] = []
    for item in items:
        if not isinstance(item, str | os.PathLike):
            raise DataError(f"cannot load {type(item).__name__} {item!r}; give a file path")
        text = os.fspath(item)
        if isinstance(item, str) and glob.has_magic(text) and not Path(text).exists():
            found = sorted(glob.glob(text, recursive=True))
            if not found:
                raise DataError(f"{text}: no file matches this pattern")
            out += [Path(p) for p in found]
        else:
            out.append(Path(text))
    return list(dict.fromkeys(out))


def _is(module: str, function: str, path: Path) -> bool:
    """Ask a log reader whether it recognises ``path`` (False while that reader is absent)."""
    import importlib

    try:
        reader = importlib.import_module(f"bayesnoise.io.{module}")
    except ImportError:
        return False
    return bool(getattr(reader, function)(path))


def _kind(path: Path) -> tuple[str, list[Path]]:
    """What ``path`` is (``tables``, ``inspect``, ``lm_eval``, ``netcdf``) and its files."""
    if not path.exists():
        raise DataError(f"{path}: no such file")
    if path.is_dir():
        if _is("lm_eval", "is_lm_eval", path):
            return "lm_eval", [path]
        if _is("inspect_logs", "is_inspect_log", path):
            return "inspect", [path]
        if _is("helm", "is_helm", path):
            return "helm", [path]
        if _is("lighteval", "is_lighteval", path):
            return "lighteval", [path]
        tables = sorted(p for p in path.iterdir() if p.is_file() and table_kind(p)[0])
        if not tables:
            raise DataError(f"{path}: is a folder without result files; it may hold {_KNOWN}")
        return "tables", tables
    suffix = path.suffix.lower()
    if suffix == ".nc":
        return "netcdf", [path]
    if suffix == ".eval" or (suffix == ".json" and _is("inspect_logs", "is_inspect_log", path)):
        return "inspect", [path]
    if table_kind(path)[0] in ("json", "jsonl") and _is("lm_eval", "is_lm_eval", path):
        return "lm_eval", [path]
    if _is("helm", "is_helm", path):
        return "helm", [path]
    if _is("lighteval", "is_lighteval", path):
        return "lighteval", [path]
    if table_kind(path)[0] is None:
        shown = "".join(path.suffixes[-2:]) or path.name
        raise DataError(f"{path}: unknown file type {shown!r}; use {_KNOWN}")
    return "tables", [path]


def _load_paths(paths: list[Path], options: dict, benchmark, progress, cut: dict):
    """(dataset, whether the reader applied the threshold ``cut``): every reader but
    NetCDF's does, sample by sample where the source has per-sample scores."""
    kind, ds = _read_paths(paths, options, benchmark, progress, cut)
    return ds, kind != "netcdf"


def _read_paths(paths: list[Path], options: dict, benchmark, progress, cut: dict):
    kinds: dict[str, list[Path]] = {}
    for path in paths:
        kind, files = _kind(path)
        kinds.setdefault(kind, []).extend(files)
    if len(kinds) > 1:
        shown = "; ".join(f"{_WHAT[k]}: {', '.join(map(str, v[:2]))}" for k, v in kinds.items())
        raise DataError(f"cannot load different kinds of source together ({shown}); load each")
    ((kind, files),) = kinds.items()
    name = str(files[0]) if len(files) == 1 else f"{len(files)} files ({files[0]}, ...)"
    _refuse_others(options, kind, name)
    if kind == "netcdf":
        if len(files) > 1:
            raise DataError(f"{name}: load one NetCDF dataset at a time")
        ds = read_netcdf(files[0])
        if benchmark is not None and benchmark != ds.attrs.get("benchmark"):
            raise DataError(
                f"{name}: holds benchmark {ds.attrs.get('benchmark')!r}, not {benchmark!r}"
            )
        return kind, ds
    if kind == "inspect":
        from .inspect_logs import read_inspect

        keys = ("scorer", "score_key", "incomplete", "duplicates", "factors")
        return kind, read_inspect(
            files, benchmark=benchmark, **{k: options[k] for k in keys}, **cut
        )
    if kind == "lm_eval":
        from .lm_eval import read_lm_eval

        return kind, read_lm_eval(
            files, benchmark=benchmark, metric=options["metric"], filter=options["filter"], **cut
        )
    if kind == "lighteval":
        from .lighteval import read_lighteval

        return kind, read_lighteval(files, benchmark=benchmark, metric=options["metric"], **cut)
    if kind == "helm":
        from .helm import read_helm

        return kind, read_helm(files, benchmark=benchmark, metric=options["metric"], **cut)
    return kind, read_files(
        files,
        columns=options["columns"],
        benchmark=benchmark,
        progress=progress,
        samples_per_question=options["samples_per_question"],
        factors=options["factors"],
        **cut,
    )


def load(
    source,
    *,
    benchmark: str | None = None,
    columns: Mapping[str, str] | None = None,
    scorer: str | None = None,
    score_key: str | None = None,
    metric: str | None = None,
    filter: str | None = None,
    incomplete: str = "error",
    duplicates: str = "error",
    samples_per_question: int | None = None,
    factors=None,
    threshold: float | None = None,
    success: str = "above",
    progress: bool | None = None,
) -> xr.Dataset:
    """Load question-level eval results from files or in-memory tables, detecting the format.

    Sources:

    * tables (CSV, TSV, JSON Lines, JSON, Parquet; text optionally ``.gz``; DataFrame), in
      one of three layouts found by their columns (rename with ``columns=``):
      per sample ``model, example_id, [sample,] correct`` (no sample column = one sample per
      question; scores 0/1, partial, booleans or Inspect's ``C``/``I``/``P``/``N``); counts
      ``model, example_id, count, correct|pass1``; Eval-Arena ``model, example_id, pass1``
      (a fractional ``pass1`` without counts is flagged ``counts_known=False``). Several files
      are concatenated. Large files are aggregated while read, in batches;
    * Inspect AI logs (``.eval``, ``.json``, folders of them: one log = one model on one task);
    * lm-evaluation-harness ``--log_samples`` output (folders, ``samples_*.jsonl``; also
      lmms-eval's ``<DATE>_samples_<task>.jsonl``);
    * lighteval ``--save-details`` files (``details_<task>_<DATE>.parquet``, also Open LLM
      Leaderboard details) and HELM run directories (``per_instance_stats.json``);
    * NetCDF written by :func:`bayesnoise.save`; a wide DataFrame (rows = questions, columns =
      models, all numeric); a DataArray of scores ``(model, question, sample)``; a Dataset.

    Parameters
    ----------
    source : path, str, list of paths, DataFrame, DataArray or Dataset
        A file, a folder, a glob pattern (``"logs/*.eval"``) or several of them (all of one
        kind), or an in-memory table.
    benchmark : str, optional
        Benchmark (task) to keep when the source holds several (required then).
    columns : dict, optional
        Tables only: the column of each role, e.g. ``{"model": "model_name", "question":
        "question_id", "score": "score", "sample": "seed", "benchmark": "task", "cluster":
        "subject"}``; also ``count`` and ``correct`` for count tables. A ``cluster`` column
        becomes the coordinate ``cluster`` along ``question`` (one cluster per question).
    scorer, score_key, incomplete, duplicates
        Inspect logs only: which scorer, which key of a dict score; ``incomplete="use-scored"``
        loads what was scored; ``duplicates="merge"`` merges two logs of one model and task.
    metric, filter : str, optional
        Per-sample metric (lm-eval, lighteval, HELM) and filter pipeline (lm-eval).
    samples_per_question : int, optional
        Eval-Arena tables only: each fractional ``pass1`` is the mean of this many 0/1
        samples; it is read as ``round(pass1 * K)`` correct out of K (an error names the row
        where ``pass1 * K`` is not within 1e-6 of a whole number), so that the Beta-Binomial
        commands can use it.
    factors : list of str, optional
        Tables and Inspect logs: columns (Inspect: task arguments or sample metadata) that say
        under which prompt template, run, judge, ... a score
        was made (CLI: ``--factor NAME``, repeatable). Each becomes a dim of the dataset
        (``correct`` is then ``(model, question, template, ...)``); its levels are never
        pooled as samples. ``bayesnoise noises`` measures their noise; other commands stop
        with an error saying so. evalstats' tables need no mapping: their prompt and evaluator
        columns are factors, their run column the samples, in every spelling evalstats reads
        (``prompt``/``template``/``prompt_template``, ``item``/``input``/``example``/``id``,
        ``run``/``seed``/..., any case); without a model column a table is one model named
        after its file; evalstats' wide layout (inputs x prompts) is read too
        (:mod:`bayesnoise.io.columns`).
    threshold : float, optional
        Graded scores become success / failure before anything else: a score ``>= threshold``
        (inclusive) is a success, or ``<= threshold`` with ``success="below"``. Per-sample
        tables, logs and score arrays are thresholded sample by sample, before the samples of
        a question are summed; sources that keep one sum per (model, question) (count tables,
        Eval-Arena ``pass1``, NetCDF, a Dataset) only when each cell's samples are 0/1, K = 1
        or equal (else a :class:`DataError` says where the per-sample scores are needed). The
        result's attributes ``threshold``, ``success`` and ``threshold_note`` say so.
    success : {"above", "below"}, default "above"
        Which side of ``threshold`` is a success.
    progress : bool, optional
        Progress display on standard error for tables that take more than two seconds to
        read: None (default) when standard error is a terminal, True always, False never.

    Returns
    -------
    xarray.Dataset
        Dims ``(model, question)``; variables ``correct``, ``samples``, ``sum_sq`` (see
        :mod:`bayesnoise.data.schema`; a dataset or NetCDF file of bayesnoise 0.1, whose
        ``samples`` is still called ``count``, is renamed).

    Raises
    ------
    DataError
        Unreadable or unknown file, unrecognised columns (the message lists the columns found
        and how to name them), NaN, scores outside [0, 1], inconsistent counts, duplicate rows,
        a question in two clusters, several benchmarks without a choice, an option that does
        not apply to the source. The message names the file, line, model and question.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayesnoise import load
    >>> df = pd.DataFrame({"model": ["a", "a", "b", "b"], "example_id": [1, 2, 1, 2],
    ...                    "count": [4, 4, 4, 4], "correct": [3, 1, 4, 0]})
    >>> load(df)["correct"].sel(model="a").values.tolist()
    [3.0, 1.0]
    >>> df = pd.DataFrame({"model_name": ["a", "a"], "question_id": ["q1", "q2"],
    ...                    "score": ["C", "I"]})
    >>> load(df, columns={"model": "model_name", "question": "question_id"})["correct"].values
    array([[1., 0.]])
    """
    options = {
        "columns": columns,
        "scorer": scorer,
        "score_key": score_key,
        "incomplete": incomplete,
        "duplicates": duplicates,
        "metric": metric,
        "filter": filter,
        "samples_per_question": samples_per_question,
        "factors": factors,
    }
    cut = {}
    if threshold is not None:
        cut = {"threshold": check_threshold(threshold, success), "success": success}
    elif success != "above":
        raise DataError(
            "success= (--success) says which side of threshold= is a success; give a threshold"
        )
    ds, done = _load(source, options, benchmark, progress, cut)
    if cut and not done:  # one sum per cell: thresholded only if 0/1, K = 1 or equal
        ds = threshold_dataset(ds, cut["threshold"], success)
    return ds


def _load(source, options: dict, benchmark, progress, cut: dict) -> tuple[xr.Dataset, bool]:
    """The dataset, and whether the reader applied the threshold (``cut``) itself."""
    if isinstance(source, xr.Dataset):
        _refuse_others(options, "dataset", "Dataset")
        return check_dataset(renamed_legacy(source)), False
    if isinstance(source, xr.DataArray):
        _refuse_others(options, "array", "DataArray")
        if cut:  # per-sample scores: each thresholded before any summing
            values = threshold_samples(source.values, source="score array", **cut)
            source = source.copy(data=values)
        ds = from_sample_array(source, benchmark=benchmark or str(source.name or "benchmark"))
        return (mark_thresholded(ds, **cut) if cut else ds), True
    if isinstance(source, pd.DataFrame):
        _refuse_others(options, "tables", "DataFrame")
        wide = options["columns"] is None and not options["factors"]
        if wide and options["samples_per_question"] is None and looks_wide(source):
            return from_wide(source, benchmark=benchmark or "benchmark"), False
        ds = read_frame(
            source,
            columns=options["columns"],
            benchmark=benchmark,
            progress=progress,
            samples_per_question=options["samples_per_question"],
            factors=options["factors"],
            **cut,
        )
        return ds, True
    return _load_paths(_expand(source), options, benchmark, progress, cut)
