"""HELM run directories: per-instance statistics of one model on one scenario.

``helm-run`` writes ``benchmark_output/runs/<suite>/<run name>/`` holding ``run_spec.json``
(``name``; ``adapter_spec.model``), ``scenario_state.json``, ``stats.json`` (aggregates),
``per_instance_stats.json`` and, after ``helm-summarize``, ``display_predictions.json``.
``per_instance_stats.json`` is a list of ``{instance_id, train_trial_index, [perturbation],
stats: [{name: {name, split, [sub_split], [perturbation]}, count, sum, mean, ...}]}``;
``display_predictions.json`` has the same keys with ``stats`` a flat ``{name: value}``.

The model is ``adapter_spec.model``, the benchmark the run name without its ``model=`` part,
the question the ``instance_id``, the sample the ``train_trial_index`` (HELM's repeated
trials, each with other in-context examples). Perturbed copies of instances (robustness and
fairness augmentations) are left out, said in the notes; the ``test`` split is used when
there is one (HELM's leaderboards report it).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import xarray as xr

from bayesnoise._common import fmt_value as _fmt
from bayesnoise._common import option
from bayesnoise.data import DataError

from ._inspect_util import build_dataset, choose, file_report, source_name

__all__ = ["helm_samples", "is_helm", "read_helm"]

_STATS = "per_instance_stats.json"
_DISPLAY = "display_predictions.json"


@dataclass
class _Run:
    folder: Path
    model: str = ""
    benchmark: str = ""
    source: Path | None = None
    aggregate: dict = field(default_factory=dict)  # (metric, split) -> mean, from stats.json


def _is_run_dir(folder: Path) -> bool:
    return (folder / _STATS).is_file() or (folder / _DISPLAY).is_file()


def is_helm(path: Path) -> bool:
    """Whether ``path`` is a HELM run directory, a file of one, or a folder holding runs.

    Examples
    --------
    >>> from pathlib import Path
    >>> is_helm(Path("no-such-run"))
    False
    """
    path = Path(path)
    if path.is_file():
        return path.name in (_STATS, _DISPLAY)
    if not path.is_dir():
        return False
    return _is_run_dir(path) or any(True for _ in path.rglob(_STATS))


def _load(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DataError(f"{path}: cannot read as JSON ({err}); is the file cut short?") from None


def _run_dirs(paths: Sequence[Path]) -> list[Path]:
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise DataError(f"{path}: no such file")
        if path.is_file():
            if path.name not in (_STATS, _DISPLAY):
                raise DataError(
                    f"{path}: not a HELM file (give the run directory, or its {_STATS})"
                )
            out.append(path.parent)
        elif _is_run_dir(path):
            out.append(path)
        else:
            found = sorted({p.parent for n in (_STATS, _DISPLAY) for p in path.rglob(n)})
            if not found:
                raise DataError(f"{path}: no HELM run directory ({_STATS}) here")
            out.extend(found)
    return list(dict.fromkeys(out))


def _describe(folder: Path) -> _Run:
    run = _Run(folder)
    spec = _load(folder / "run_spec.json") if (folder / "run_spec.json").is_file() else None
    adapter = (spec or {}).get("adapter_spec")
    if adapter is None and (folder / "scenario_state.json").is_file():
        adapter = _load(folder / "scenario_state.json").get("adapter_spec")
    model = (adapter or {}).get("model") or (adapter or {}).get("model_deployment")
    if not model:
        raise DataError(
            f"{folder}: cannot tell the model (no adapter_spec.model in run_spec.json or "
            "scenario_state.json); give the whole run directory"
        )
    run.model = str(model)
    name = str((spec or {}).get("name") or folder.name)
    head, _, args = name.partition(":")
    kept = [a for a in args.split(",") if a and not a.startswith(("model=", "model_deployment="))]
    run.benchmark = head + (":" + ",".join(kept) if kept else "")
    run.source = folder / _STATS if (folder / _STATS).is_file() else folder / _DISPLAY
    if (folder / "stats.json").is_file():
        for stat in _load(folder / "stats.json"):
            key = stat.get("name") or {}
            if set(key) <= {"name", "split"} and isinstance(stat.get("mean"), int | float):
                run.aggregate[(key.get("name"), key.get("split"))] = float(stat["mean"])
    return run


def _splits(folder: Path) -> dict[str, str]:
    """instance id -> split, from instances.json or scenario_state.json (for
    display_predictions.json, whose stats do not name the split)."""
    for name in ("instances.json", "scenario_state.json"):
        if (folder / name).is_file():
            obj = _load(folder / name)
            items = obj if isinstance(obj, list) else obj.get("request_states") or []
            out = {}
            for item in items:
                inst = item.get("instance", item) if isinstance(item, dict) else {}
                if "id" in inst:
                    out[str(inst["id"])] = str(inst.get("split"))
            return out
    return {}


def _entries(run: _Run) -> list[tuple[str, int, bool, dict[tuple[str, str], float]]]:
    """``(instance id, trial, perturbed, {(metric, split): value})`` per record."""
    data = _load(run.source)
    if not isinstance(data, list):
        raise DataError(f"{run.source}: expected a list of per-instance records")
    splits = _splits(run.folder) if run.source.name == _DISPLAY else {}
    out = []
    for i, rec in enumerate(data):
        if not isinstance(rec, dict) or "instance_id" not in rec:
            raise DataError(f"{run.source}, record {i}: no instance_id; is it a HELM file?")
        stats = rec.get("stats")
        values: dict[tuple[str, str], float] = {}
        if isinstance(stats, dict):  # display_predictions.json
            split = splits.get(str(rec["instance_id"]), "unknown")
            values = {(str(k), split): v for k, v in stats.items()}
        else:
            for stat in stats or []:
                key = stat.get("name") or {}
                if key.get("sub_split") is not None or key.get("perturbation") is not None:
                    continue
                value = stat.get("mean")
                if value is None and stat.get("count"):
                    value = stat.get("sum", 0) / stat["count"]
                values[(str(key.get("name")), str(key.get("split")))] = value
        trial = int(rec.get("train_trial_index") or 0)
        out.append((str(rec["instance_id"]), trial, rec.get("perturbation") is not None, values))
    return out


def _number(value) -> bool:
    return isinstance(value, bool | int | float) and math.isfinite(float(value))


def helm_samples(
    paths: Sequence[Path], *, benchmark: str | None = None, metric: str | None = None
) -> pd.DataFrame:
    """Per-instance scores from HELM run directories: one row per (model, instance, trial).

    Same parameters as :func:`read_helm`; columns ``benchmark_id, model, example_id, sample,
    correct, file``; ``df.attrs`` holds ``metric``, ``split``, ``notes``, ``files`` and
    ``aggregate`` (HELM's own mean per model, from ``stats.json``).

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> run = Path(tempfile.mkdtemp()) / "quiz:model=org_m"
    >>> run.mkdir()
    >>> _ = (run / "run_spec.json").write_text(json.dumps(
    ...     {"name": "quiz:model=org_m", "adapter_spec": {"model": "org/m"}}))
    >>> stat = lambda v: [{"name": {"name": "exact_match", "split": "test"}, "mean": v}]
    >>> _ = (run / "per_instance_stats.json").write_text(json.dumps(
    ...     [{"instance_id": f"id{i}", "train_trial_index": 0, "stats": stat(v)}
    ...      for i, v in enumerate([1, 0])]))
    >>> helm_samples([run])["correct"].tolist()
    [1.0, 0.0]
    """
    runs = [_describe(folder) for folder in _run_dirs(paths)]
    where = source_name([Path(p) for p in paths])
    task = choose(
        list(dict.fromkeys(r.benchmark for r in runs)),
        benchmark,
        what="benchmarks",
        option="benchmark",
        cli="--benchmark NAME",
        where=where,
    )
    elsewhere = [
        (str(r.source), f"benchmark {r.benchmark!r}, not {task!r}")
        for r in runs
        if r.benchmark != task
    ]
    runs = [r for r in runs if r.benchmark == task]
    seen_model: dict[str, _Run] = {}
    for run in runs:
        other = seen_model.setdefault(run.model, run)
        if other is not run:
            raise DataError(
                f"two HELM runs of model {run.model!r} on {task!r}: {other.folder} and "
                f"{run.folder} (two suites?); load one"
            )
    entries = {r.folder: _entries(r) for r in runs}
    splits = list(dict.fromkeys(s for es in entries.values() for e in es for (_, s) in e[3]))
    split = (
        "test"
        if "test" in splits
        else choose(splits, None, what="splits", option="benchmark", cli="--benchmark", where=where)
    )
    candidates: dict[str, bool] = {}
    for es in entries.values():
        for _, _, perturbed, values in es:
            if perturbed:
                continue
            for (name, s), v in values.items():
                if s == split:
                    ok = _number(v) and 0 <= float(v) <= 1
                    candidates[name] = candidates.get(name, True) and ok
    in_unit = [n for n, ok in candidates.items() if ok]
    if metric is not None and metric not in candidates:
        raise DataError(
            f"{where} (split {split}): no metric {metric!r}; found {', '.join(candidates)}"
        )
    used = metric or choose(
        in_unit,
        None,
        what="metrics",
        option="metric",
        cli="--metric NAME",
        where=f"{where} (split {split}; metrics with values in [0, 1])",
    )
    rows, perturbed_out, other_split = [], 0, 0
    for run in runs:
        seen: set[tuple[str, int]] = set()
        for instance, trial, perturbed, values in entries[run.folder]:
            if perturbed:
                perturbed_out += 1
                continue
            if (used, split) not in values:
                if any(s == split for (_, s) in values):
                    raise DataError(
                        f"{run.source}: instance {instance}, trial {trial} has no {used!r}; "
                        "nothing is imputed"
                    )
                other_split += 1
                continue
            value = values[(used, split)]
            if not _number(value) or not 0 <= float(value) <= 1:
                raise DataError(
                    f"{run.source}: instance {instance}, trial {trial}: {used}={_fmt(value)} "
                    f"is not a score in [0, 1]; choose another with {option('metric', 'NAME')}"
                )
            if (instance, trial) in seen:
                raise DataError(f"{run.source}: instance {instance}, trial {trial} twice")
            seen.add((instance, trial))
            rows.append((run.model, instance, trial, float(value), str(run.source)))
    df = pd.DataFrame(rows, columns=["model", "example_id", "sample", "correct", "file"])
    if df.empty:
        raise DataError(f"{where}: no instance has {used!r} on split {split!r}")
    df.insert(0, "benchmark_id", task)
    notes = [
        f"metric {used}",
        f"split {split}"
        + (f" ({other_split} instances of other splits left out)" if other_split else ""),
    ]
    if perturbed_out:
        notes.append(
            f"{perturbed_out} perturbed (instance, trial) records left out (augmented copies)"
        )
    aggregate = {r.model: r.aggregate[(used, split)] for r in runs if (used, split) in r.aggregate}
    files = file_report([str(r.source) for r in runs], [], where, elsewhere)
    df.attrs.update(metric=used, split=split, notes=notes, files=files, aggregate=aggregate)
    return df


def read_helm(
    paths: Sequence[Path],
    *,
    benchmark: str | None = None,
    metric: str | None = None,
    threshold: float | None = None,
    success: str = "above",
) -> xr.Dataset:
    """Dataset from HELM run directories (``per_instance_stats.json``, or
    ``display_predictions.json``, with ``run_spec.json``).

    Parameters
    ----------
    paths : sequence of pathlib.Path
        Run directories, their ``per_instance_stats.json``, or folders holding runs (a suite).
    benchmark : str, optional
        Run name without ``model=`` (e.g. ``mmlu:subject=anatomy,method=multiple_choice_joint``)
        when the runs hold several (required then).
    metric : str, optional
        Per-instance statistic (``exact_match``, ``quasi_exact_match``, ...); required when
        several have all their values in [0, 1], as HELM's runs always do.
    threshold : float, optional
        Graded scores: each sample's score becomes a success (``>= threshold``, inclusive) or
        a failure before the samples of a question are summed.
    success : {"above", "below"}, default "above"
        ``"below"``: a score ``<= threshold`` is a success.

    Returns
    -------
    xarray.Dataset
        Samples are the train trials; ``attrs["files"]`` is the per-file report.

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> suite = Path(tempfile.mkdtemp())
    >>> for model, scores in {"org/a": [1, 0], "org/b": [1, 1]}.items():
    ...     run = suite / f"quiz:model={model.replace('/', '_')}"
    ...     run.mkdir()
    ...     _ = (run / "run_spec.json").write_text(json.dumps(
    ...         {"name": run.name, "adapter_spec": {"model": model}}))
    ...     _ = (run / "per_instance_stats.json").write_text(json.dumps(
    ...         [{"instance_id": f"id{i}", "train_trial_index": 0,
    ...           "stats": [{"name": {"name": "exact_match", "split": "test"}, "mean": s}]}
    ...          for i, s in enumerate(scores)]))
    >>> read_helm([suite])["correct"].values.tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    df = helm_samples(paths, benchmark=benchmark, metric=metric)
    agg = df.attrs["aggregate"]
    notes = list(df.attrs["notes"])
    if agg:
        notes.append(
            "HELM's own mean (stats.json): " + ", ".join(f"{m} {_fmt(v)}" for m, v in agg.items())
        )
    return build_dataset(
        df,
        name=source_name([Path(p) for p in paths]),
        benchmark=str(df["benchmark_id"].iloc[0]),
        notes="\n".join(notes),
        files=df.attrs["files"],
        threshold=threshold,
        success=success,
    )
