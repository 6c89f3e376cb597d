"""lm-evaluation-harness (and lmms-eval) ``--log_samples`` output: one score per document.

The model comes from the run's ``results_<DATE>.json``, the benchmark is the task, the
question the ``doc_id``. lm-eval logs one score per (document, filter): K > 1 samples per
question come from repeated runs (several ``<DATE>``s of the same model and task), run i
being sample i.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from bayesnoise._common import fmt_value as _fmt
from bayesnoise.data import DataError

from ._inspect_util import build_dataset, choose, source_name, warn
from ._lm_eval_files import (
    Run,
    find_runs,
    is_output_folder,
    is_run_file,
    metric_names,
    model_of,
)
from ._lm_eval_files import read_records as _read_records

__all__ = ["is_lm_eval", "lm_eval_samples", "read_lm_eval"]


def is_lm_eval(path: Path) -> bool:
    """Whether ``path`` is an lm-eval samples or results file, or a folder holding them.

    Examples
    --------
    >>> from pathlib import Path
    >>> is_lm_eval(Path("samples_gsm8k_2024-05-13T10-21-33.123456.jsonl"))
    True
    """
    path = Path(path)
    if path.is_dir():
        return is_output_folder(path)
    return is_run_file(path)


def _scalar(value, path: Path, line: int, metric: str, metrics: list[str]) -> float:
    if isinstance(value, bool | int | float) and not (
        isinstance(value, float) and not math.isfinite(value)
    ):
        number = float(value)
        if not 0 <= number <= 1:
            raise DataError(
                f"{path}, line {line}: {metric}={_fmt(number)} is outside [0, 1]; scores are "
                "not clipped"
            )
        return number
    if value is None or isinstance(value, float):
        raise DataError(
            f"{path}, line {line}: {metric} is missing or not finite ({value!r}); nothing is "
            "imputed"
        )
    kind = type(value).__name__
    raise DataError(
        f"{path}, line {line}: {metric} holds a {kind}, not one number per document: a "
        "corpus-level metric (computed over all documents, e.g. f1, bleu) has no per-question "
        f"score; choose a per-sample metric with metric=... (CLI: --metric NAME); found "
        f"{', '.join(metrics)}"
    )


def _light(path: Path, metric: str | None) -> list[tuple]:
    """``(line, doc_id, filter, doc_hash, metric names, metric values)`` per record of a
    samples file: what the scores need, without the documents and responses."""
    out = []
    for line, rec in _read_records(path):
        if not isinstance(rec, dict) or "doc_id" not in rec:
            raise DataError(f"{path}, line {line}: a sample record needs a doc_id")
        names = metric_names(rec)
        values = {k: rec[k] for k in (*names, metric) if k in rec}
        out.append((line, rec["doc_id"], rec.get("filter"), rec.get("doc_hash"), names, values))
    return out


def _choose_filter(records: dict, chosen: str | None, task: str, where: str) -> str | None:
    found: dict[str, None] = {}
    for lines in records.values():
        found.update((str(rec[2]), None) for rec in lines if rec[2] is not None)
    if not found and chosen is None:
        return None
    where = f"{where} (task {task})"
    return choose(
        list(found), chosen, what="filters", option="filter", cli="--filter NAME", where=where
    )


def _collect(runs, records, task, filt, metric):
    """Rows ``(model, doc_id, run index, score, file, line, metric)``, the metrics seen and
    the runs per model; ``metric=None`` uses the first metric of the first record."""
    rows, hashes, metrics, use = [], {}, {}, metric
    by_model: dict[str, list[Run]] = {}
    for run in runs:
        by_model.setdefault(run.model, []).append(run)
    for model, group in by_model.items():
        group.sort(key=lambda r: r.date)
        for index, run in enumerate(group):
            path, seen = run.samples[task], {}
            for line, doc_id, f, doc_hash, names, rec in records[path]:
                if filt is not None and str(f) != filt:
                    continue
                metrics.update(dict.fromkeys(names))
                use = use or (names[0] if names else None)
                if use not in rec:
                    raise DataError(
                        f"{path}, line {line}: no metric {use!r} on this record; it has "
                        f"{', '.join(names) or 'none'} (choose with metric=..., CLI: --metric NAME)"
                    )
                key = str(doc_id)
                if key in seen:
                    raise DataError(
                        f"{path}, line {line}: doc_id {_fmt(doc_id)} again (first on line "
                        f"{seen[key]}) for filter {f!r}; each document must appear once"
                    )
                seen[key] = line
                if doc_hash is not None:
                    first = hashes.setdefault(key, (doc_hash, path, line))
                    if first[0] != doc_hash:
                        raise DataError(
                            f"doc_id {_fmt(doc_id)} of task {task!r} has doc_hash "
                            f"{first[0][:12]}... in {first[1]} (line {first[2]}) but "
                            f"{str(doc_hash)[:12]}... in {path} (line {line}): they did not see "
                            "the same question (another dataset version or split?); load them "
                            "separately"
                        )
                value = _scalar(rec[use], path, line, use, list(metrics))
                rows.append((model, key, index, value, str(path), line, use))
    return rows, list(metrics), by_model


def lm_eval_samples(
    paths: Sequence[Path],
    *,
    benchmark: str | None = None,
    metric: str | None = None,
    filter: str | None = None,
) -> pd.DataFrame:
    """Per-document scores from lm-eval output: one row per (model, doc_id, run).

    Same parameters as :func:`read_lm_eval`. Columns ``benchmark_id, model, example_id, sample,
    correct, file, line``; ``sample`` is the run's index among the model's runs in date order.
    ``df.attrs`` holds ``metric``, ``filter``, ``runs`` (per model) and ``notes``.

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> date = "2024-05-13T10-21-33.123456"
    >>> _ = (folder / f"results_{date}.json").write_text(json.dumps({"model_name": "m"}))
    >>> lines = [{"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": a}
    ...          for i, a in enumerate([1.0, 0.0])]
    >>> _ = (folder / f"samples_quiz_{date}.jsonl").write_text(
    ...     "\\n".join(json.dumps(x) for x in lines))
    >>> lm_eval_samples([folder])["correct"].tolist()
    [1.0, 0.0]
    """
    runs = find_runs(paths)
    where = source_name([Path(p) for p in paths])
    tasks = list(dict.fromkeys(t for run in runs for t in run.samples))
    task = choose(
        tasks, benchmark, what="tasks", option="benchmark", cli="--benchmark NAME", where=where
    )
    runs = [run for run in runs if task in run.samples]
    for run in runs:
        run.model = model_of(run)
    _check_same_date(runs)
    records = {run.samples[task]: _light(run.samples[task], metric) for run in runs}
    filt = _choose_filter(records, filter, task, where)
    rows, metrics, by_model = _collect(runs, records, task, filt, metric)
    if not rows:
        raise DataError(f"{where}: task {task!r} has no scored documents")
    df = pd.DataFrame(
        rows, columns=["model", "example_id", "sample", "correct", "file", "line", "metric"]
    )
    df.insert(0, "benchmark_id", task)
    used = str(df["metric"].iloc[0])
    notes = [
        f"metric {used}"
        + ("" if metric else f" (the first of {', '.join(metrics)}; choose with metric=)"),
        f"filter {filt}" if filt is not None else "no filter field",
    ]
    runs_per_model = {m: len(g) for m, g in by_model.items()}
    if len(set(runs_per_model.values())) > 1:
        notes.append("runs per model: " + ", ".join(f"{m} {n}" for m, n in runs_per_model.items()))
    same = _identical_runs(df, runs_per_model)
    if same:
        message = (
            f"{where}: the runs of {', '.join(same)} give the same score on every document "
            "(greedy decoding?): K > 1 adds nothing, and their prediction noise comes out 0"
        )
        warn(message)
        notes.append(message)
    df.attrs.update(metric=used, filter=filt, runs=runs_per_model, notes=notes)
    return df.drop(columns="metric")


def _check_same_date(runs: list[Run]) -> None:
    """Two folders holding the same run of the same model would count it twice."""
    seen: dict[tuple[str, str], Run] = {}
    for run in runs:
        other = seen.setdefault((run.model, run.date), run)
        if other is not run:
            raise DataError(
                f"{other.label} and {run.label}: the same run ({run.date or 'undated'}) of model "
                f"{run.model!r} twice; give each run once"
            )


def _identical_runs(df: pd.DataFrame, runs_per_model: dict[str, int]) -> list[str]:
    same = []
    for model, n_runs in runs_per_model.items():
        if n_runs < 2:
            continue
        table = df[df["model"] == model].pivot(
            index="example_id", columns="sample", values="correct"
        )
        values = table.to_numpy()
        if np.all(np.nan_to_num(values - values[:, :1]) == 0):
            same.append(model)
    return same


def read_lm_eval(
    paths: Sequence[Path],
    *,
    benchmark: str | None = None,
    metric: str | None = None,
    filter: str | None = None,
) -> xr.Dataset:
    """Dataset from lm-evaluation-harness ``--log_samples`` output (or lmms-eval's).

    Parameters
    ----------
    paths : sequence of pathlib.Path
        An output folder (``OUT/<model>/...``), model folders, or single ``samples_*.jsonl`` /
        ``results_*.json`` files (a samples file needs its results file beside it, which names
        the model); also the pre-0.4.3 layout (``results.json`` and JSON-array samples files).
    benchmark : str, optional
        Task to load when there are several (required then).
    metric : str, optional
        Per-sample metric; default the first in the records' ``metrics`` (said in
        ``ds.attrs["notes"]``). Corpus-level (non-scalar) metrics are refused.
    filter : str, optional
        Filter pipeline (``none``, ``strict-match``, ...); required when a task has several.

    Returns
    -------
    xarray.Dataset
        ``attrs["runs"]`` is the largest number of runs (``<DATE>``s) of one model: the runs
        are the samples. Runs of a model that agree on every document give a warning.

    Raises
    ------
    DataError
        Several tasks or filters without a choice, a metric that is missing or not one number
        per document, the same ``doc_id`` with a different ``doc_hash`` in two files, a
        document twice in one file, a samples file without the results file naming its model.

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> out = Path(tempfile.mkdtemp())
    >>> for model, scores in {"org/a": [1, 0], "org/b": [1, 1]}.items():
    ...     folder = out / model.replace("/", "__")
    ...     folder.mkdir()
    ...     date = "2024-05-13T10-21-33.123456"
    ...     _ = (folder / f"results_{date}.json").write_text(json.dumps({"model_name": model}))
    ...     lines = [json.dumps({"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": s})
    ...              for i, s in enumerate(scores)]
    ...     _ = (folder / f"samples_quiz_{date}.jsonl").write_text("\\n".join(lines))
    >>> ds = read_lm_eval([out])
    >>> ds["correct"].values.tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    df = lm_eval_samples(paths, benchmark=benchmark, metric=metric, filter=filter)
    return build_dataset(
        df,
        name=source_name([Path(p) for p in paths]),
        benchmark=str(df["benchmark_id"].iloc[0]),
        notes="\n".join(df.attrs["notes"]),
        runs=max(df.attrs["runs"].values()),
    )
