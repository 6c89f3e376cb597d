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
from bayesnoise._common import one_line, option
from bayesnoise.data import DataError

from ._inspect_util import build_dataset, choose, file_report, more, source_name, warn
from ._lm_eval_files import (
    Run,
    find_runs,
    is_output_folder,
    is_run_file,
    metric_names,
    model_of,
    results_of,
)
from ._lm_eval_files import read_records as _read_records

__all__ = ["is_lm_eval", "lm_eval_samples", "read_lm_eval"]

_RESULTS_ONLY = (
    "results only, per-question results needed: re-run lm-eval with --log_samples (it writes "
    "samples_<task>_<DATE>.jsonl beside the results file)"
)


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
        f"score; choose a per-sample metric with {option('metric', 'NAME')}; found "
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


def _filter_names(results: dict, task: str) -> list[str]:
    """The task's filter pipelines in the order lm-eval ran them: its config's ``filter_list``,
    else the ``metric,filter`` keys of its results."""
    config = (results.get("configs") or {}).get(task) or {}
    listed = [f.get("name") for f in config.get("filter_list") or [] if isinstance(f, dict)]
    if listed and all(isinstance(n, str) for n in listed):
        return listed
    keys = (results.get("results") or {}).get(task) or {}
    found = [k.split(",", 1)[1] for k in keys if "," in k and "_stderr," not in k]
    return list(dict.fromkeys(found))


def _split_repeats(lines: list, run: Run, task: str, path: Path) -> tuple[list, str | None]:
    """Records of a samples file written before lm-eval 0.4.7 (no ``filter`` field) whose
    documents repeat once per filter pipeline, each given its filter; and a note.

    lm-eval logs every document once per filter, filter after filter in the task's filter
    order (each rank's share in turn when run on several devices), so the k-th occurrence of
    a ``doc_id`` belongs to the k-th filter. The split is checked against the run's own
    per-filter results: it is used only if every filter's mean equals the harness's."""
    if not lines or any(rec[2] is not None for rec in lines):
        return lines, None
    counts: dict[str, int] = {}
    for rec in lines:
        counts[str(rec[1])] = counts.get(str(rec[1]), 0) + 1
    times = set(counts.values())
    if times == {1}:
        return lines, None
    results = results_of(run)
    filters = _filter_names(results, task)
    if len(times) > 1 or len(filters) != next(iter(times)):
        raise DataError(
            f"{path}: documents repeat ({', '.join(str(t) for t in sorted(times))} times) and "
            f"the records have no filter field (lm-eval < 0.4.7), but the run's results name "
            f"{len(filters)} filters ({', '.join(filters) or 'none'}); cannot tell which record "
            "is which filter. Re-run with lm-eval >= 0.4.7, which writes the filter"
        )
    seen: dict[str, int] = {}
    out = []
    for line, doc_id, _, doc_hash, names, values in lines:
        k = seen.get(str(doc_id), 0)
        seen[str(doc_id)] = k + 1
        out.append((line, doc_id, filters[k], doc_hash, names, values))
    _check_split(out, results.get("results", {}).get(task) or {}, filters, path)
    return out, (
        f"{path.name}: no filter field (lm-eval < 0.4.7); its {len(filters)} repetitions of each "
        f"document told apart by order as {', '.join(filters)}, checked against the run's results"
    )


def _check_split(lines: list, aggregate: dict, filters: list[str], path: Path) -> None:
    checked = False
    for filt in filters:
        mine = [rec for rec in lines if rec[2] == filt]
        for metric in mine[0][4] if mine else []:
            theirs = aggregate.get(f"{metric},{filt}")
            values = [rec[5].get(metric) for rec in mine]
            if not isinstance(theirs, int | float) or not all(
                isinstance(v, int | float) for v in values
            ):
                continue
            checked = True
            if abs(float(np.mean(values)) - theirs) > 1e-9:
                raise DataError(
                    f"{path}: split by order into filters {', '.join(filters)}, the mean "
                    f"{metric} of {filt!r} is {_fmt(float(np.mean(values)))} but the run's results "
                    f"say {_fmt(theirs)}; cannot tell which record is which filter. Re-run with "
                    "lm-eval >= 0.4.7, which writes the filter"
                )
    if not checked:
        raise DataError(
            f"{path}: documents repeat once per filter ({', '.join(filters)}) without a filter "
            "field (lm-eval < 0.4.7), and the run's results have no per-filter value to check "
            "the order against; re-run with lm-eval >= 0.4.7, which writes the filter"
        )


def _usable(runs, records, task, filt, metric):
    """The runs whose samples file has the filter and the metric used, the metric (default:
    the first of the first record), and ``(path, reason)`` for the others."""
    use, keep, skipped, first = metric, [], [], None
    for run in runs:
        path = run.samples[task]
        lines = [rec for rec in records[path] if filt is None or str(rec[2]) == filt]
        why = None
        if not lines:
            have = sorted({str(rec[2]) for rec in records[path]})
            why = f"no filter {filt!r}: it has {', '.join(have)}"
        else:
            use = use or (lines[0][4][0] if lines[0][4] else None)
            names = list(dict.fromkeys(n for rec in lines for n in rec[4]))
            if use is not None and not any(use in rec[5] for rec in lines):
                why = f"no metric {use!r}: it has {', '.join(names) or 'none'}"
                first = first or (path, lines[0][0], names)
        if why is None:
            keep.append(run)
            continue
        skipped.append((str(path), why))
        if run.results is not None:
            skipped.append((str(run.results), f"results of a skipped run ({path.name}: {why})"))
    if not keep and first is not None:
        path, line, names = first
        raise DataError(
            f"{path}, line {line}: no metric {use!r} on this record; it has "
            f"{', '.join(names) or 'none'} (choose with {option('metric', 'NAME')})"
        )
    return keep, use, skipped


def _collect(runs, records, task, filt, use):
    """Rows ``(model, doc_id, run index, score, file, line, metric)``, the metrics seen and
    the runs per model."""
    rows, hashes, metrics = [], {}, {}
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
                if use not in rec:
                    raise DataError(
                        f"{path}, line {line}: no metric {use!r} on this record; it has "
                        f"{', '.join(names) or 'none'} (choose with {option('metric', 'NAME')})"
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
    stray: list[tuple[str, str]] = []
    runs = find_runs(paths, stray)
    where = source_name([Path(p) for p in paths])
    with_samples = [run for run in runs if run.samples]
    results_only = [(str(run.label), _RESULTS_ONLY) for run in runs if not run.samples]
    if not with_samples:
        shown = more([p for p, _ in results_only])
        raise DataError(
            f"{where}: results only ({shown}): these hold each task's aggregate score, but "
            f"bayesnoise needs per-question results; {_RESULTS_ONLY}"
        )
    tasks = list(dict.fromkeys(t for run in with_samples for t in run.samples))
    task = choose(
        tasks, benchmark, what="tasks", option="benchmark", cli="--benchmark NAME", where=where
    )
    elsewhere = [
        (str(path), f"task {t!r}, not {task!r}")
        for run in with_samples
        for t, path in run.samples.items()
        if t != task
    ]
    runs = [run for run in with_samples if task in run.samples]
    for run in runs:
        run.model = model_of(run)
    _check_same_date(runs)
    records, split_notes = {}, []
    for run in runs:
        path = run.samples[task]
        records[path], note = _split_repeats(_light(path, metric), run, task, path)
        if note:
            split_notes.append(note)
    filt = _choose_filter(records, filter, task, where)
    runs, metric_used, skipped = _usable(runs, records, task, filt, metric)
    skipped = [*stray, *results_only, *skipped]
    if not runs:
        raise DataError(
            f"{where}: no run of task {task!r} has "
            + (f"filter {filt!r} and " if filt else "")
            + f"metric {metric_used!r}: {more([f'{p} ({why})' for p, why in skipped])}"
        )
    rows, metrics, by_model = _collect(runs, records, task, filt, metric_used)
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
        *split_notes,
    ]
    runs_per_model = {m: len(g) for m, g in by_model.items()}
    if len(set(runs_per_model.values())) > 1:
        notes.append("runs per model: " + ", ".join(f"{m} {n}" for m, n in runs_per_model.items()))
    same = _identical_runs(df, runs_per_model)
    if same:
        message = one_line(  # one line, the model list cut to fit
            "the runs of {who} give the same score on every document (greedy decoding?): "
            "K > 1 adds nothing, and their prediction noise comes out 0",
            same,
        )
        warn(message)
        notes.append(message)
    loaded = [str(p) for run in runs for p in (run.samples[task], run.results) if p is not None]
    files = file_report(loaded, skipped, where, elsewhere)
    df.attrs.update(metric=used, filter=filt, runs=runs_per_model, notes=notes, files=files)
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
    threshold: float | None = None,
    success: str = "above",
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
    threshold : float, optional
        Graded scores: each sample's score becomes a success (``>= threshold``, inclusive) or
        a failure before the samples of a question are summed.
    success : {"above", "below"}, default "above"
        ``"below"``: a score ``<= threshold`` is a success.

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
        files=df.attrs["files"],
        threshold=threshold,
        success=success,
    )
