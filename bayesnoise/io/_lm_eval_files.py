"""lm-evaluation-harness ``--log_samples`` output on disk: which files make one run, the model
that a run evaluated, and the records of a samples file.

Layout (0.4.3+): ``OUT/<model>/results_<DATE>.json`` and ``samples_<task>_<DATE>.jsonl`` (one
JSON object per line), the files of one run sharing ``<DATE>``. Before 0.4.3:
``OUT/results.json`` and ``<model args>_<task>.jsonl`` holding one JSON array. lmms-eval
(since 2024-09) writes the same records under date-first names, ``<DATE>_results.json`` and
``<DATE>_samples_<task>.jsonl`` with ``<DATE>`` = ``YYYYMMDD_HHMMSS``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from bayesnoise.data import DataError

_DATE = r"\d{4}-\d{2}-\d{2}T[0-9.\-]+"
_LMMS_DATE = r"\d{8}_\d{6}|\d{4}-\d{2}-\d{2}T[0-9.\-]+"
SAMPLES = re.compile(rf"^samples_(?P<task>.+)_(?P<date>{_DATE})\.jsonl?$")
RESULTS = re.compile(rf"^results_(?P<date>{_DATE})\.json$")
# lmms-eval: date first.
LMMS_SAMPLES = re.compile(rf"^(?P<date>{_LMMS_DATE})_samples_(?P<task>.+)\.jsonl?$")
LMMS_RESULTS = re.compile(rf"^(?P<date>{_LMMS_DATE})_results\.json$")


def samples_name(name: str):
    """The match of a samples file name (lm-eval's or lmms-eval's), with ``task`` and ``date``."""
    return SAMPLES.match(name) or LMMS_SAMPLES.match(name)


def results_name(name: str):
    """The match of a results file name (lm-eval's or lmms-eval's), with ``date``."""
    return RESULTS.match(name) or LMMS_RESULTS.match(name)


OLD_RESULTS = "results.json"
# Keys of a samples record that are not metric values (lines without a ``metrics`` list).
NOT_METRICS = {
    "doc_id",
    "doc",
    "target",
    "arguments",
    "resps",
    "filtered_resps",
    "filter",
    "metrics",
    "doc_hash",
    "prompt_hash",
    "target_hash",
    "task_name",
    "input",
    "answer",
}


@dataclass
class Run:
    """One lm-eval invocation: its results file and one samples file per task."""

    folder: Path
    date: str
    results: Path | None = None
    model: str = ""
    samples: dict[str, Path] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return str(self.results or next(iter(self.samples.values()), self.folder))


def _old_results(path: Path) -> dict | None:
    """The parsed pre-0.4.3 ``results.json``, or None if it is not one."""
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if isinstance(obj, dict) and "results" in obj and ("configs" in obj or "versions" in obj):
        return obj
    return None


def _old_tasks(obj: dict) -> list[str]:
    return list(dict.fromkeys([*(obj.get("configs") or {}), *(obj.get("results") or {})]))


def _add_folder(folder: Path, runs: dict, stray: list | None = None) -> bool:
    """Add the runs found directly in ``folder``; return whether there were any. Other
    ``.json``/``.jsonl`` files there are appended to ``stray`` as ``(path, reason)``."""
    found = False
    used: set[Path] = set()
    for path in sorted(folder.iterdir()):
        if m := samples_name(path.name):
            runs.setdefault((folder, m["date"]), Run(folder, m["date"])).samples[m["task"]] = path
            found = True
            used.add(path)
        elif m := results_name(path.name):
            runs.setdefault((folder, m["date"]), Run(folder, m["date"])).results = path
            found = True
            used.add(path)
    old = folder / OLD_RESULTS
    if old.is_file() and (obj := _old_results(old)):
        run = runs.setdefault((folder, ""), Run(folder, "", results=old))
        used.add(old)
        for task in _old_tasks(obj):
            for path in sorted(folder.glob(f"*_{task}.json*")):
                if path.suffix in (".json", ".jsonl") and path.name != OLD_RESULTS:
                    run.samples[task] = path
                    used.add(path)
        found = True
    if stray is not None and found:
        for path in sorted(folder.iterdir()):
            if path.suffix in (".json", ".jsonl") and path not in used and path.is_file():
                stray.append((str(path), "not an lm-eval samples or results file name"))
    return found


def _add_file(path: Path, runs: dict) -> None:
    """Add the run of one file: all of it for a results file, one task for a samples file."""
    here: dict[tuple[Path, str], Run] = {}
    _add_folder(path.parent, here)
    m = samples_name(path.name) or results_name(path.name)
    run = here[(path.parent, m["date"] if m else "")]
    if sample := samples_name(path.name):
        run.samples = {sample["task"]: path}
    old = runs.get((path.parent, run.date))
    if old is not None:
        run.samples = {**old.samples, **run.samples}
    runs[(path.parent, run.date)] = run


def is_run_file(path: Path) -> bool:
    if samples_name(path.name) or results_name(path.name):
        return True
    return path.name == OLD_RESULTS and _old_results(path) is not None


def is_output_folder(path: Path) -> bool:
    """A model folder, or an output folder holding model folders."""
    for folder in (path, *sorted(p for p in path.iterdir() if p.is_dir())):
        if any(is_run_file(p) for p in folder.iterdir() if p.is_file()):
            return True
    return False


def find_runs(paths, stray: list | None = None) -> list[Run]:
    """The runs in the given files and folders (output folders, model folders, single files);
    other ``.json``/``.jsonl`` files in those folders go to ``stray`` when it is given."""
    runs: dict[tuple[Path, str], Run] = {}
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise DataError(f"{path}: no such file")
        if path.is_dir():
            found = _add_folder(path, runs, stray)
            for sub in sorted(p for p in path.iterdir() if p.is_dir()):
                found = _add_folder(sub, runs, stray) or found
            if not found:
                raise DataError(
                    f"{path}: no lm-eval output here (results_<DATE>.json and "
                    "samples_<task>_<DATE>.jsonl, in this folder or its model folders)"
                )
        elif is_run_file(path):
            _add_file(path, runs)
        else:
            raise DataError(
                f"{path}: not an lm-eval output file (expected samples_<task>_<DATE>.jsonl, "
                "results_<DATE>.json (lmms-eval: <DATE>_samples_<task>.jsonl, "
                "<DATE>_results.json), or a folder holding them)"
            )
    return list(runs.values())


def results_of(run: Run) -> dict:
    """The parsed results file of a run (``{}`` when it has none)."""
    if run.results is None:
        return {}
    try:
        obj = json.loads(run.results.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DataError(
            f"{run.results}: cannot read the results file ({err}); is it cut short?"
        ) from None
    if not isinstance(obj, dict):
        raise DataError(f"{run.results}: a results file is one JSON object")
    return obj


def model_of(run: Run) -> str:
    """The model a run evaluated: ``model_name``, else ``pretrained=``/``model=`` in
    ``config.model_args`` of its results file."""
    if run.results is None:
        raise DataError(
            f"{run.label}: no results_{run.date}.json beside it to name the model "
            "(the samples file does not); give the model folder with both files"
        )
    obj = results_of(run)
    if obj.get("model_name"):
        return str(obj["model_name"])
    args = (obj.get("config") or {}).get("model_args") or {}
    if isinstance(args, str):
        args = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    for key in ("pretrained", "model", "path"):
        if args.get(key):
            return str(args[key])
    raise DataError(
        f"{run.results}: cannot tell the model (no model_name, and no pretrained= or model= "
        "in config.model_args)"
    )


def read_records(path: Path):
    """Yield ``(line, record)`` for each record of a samples file (JSON Lines, or one JSON
    array as written before 0.4.3; ``line`` is then the record's position, from 1)."""
    try:
        with open(path, encoding="utf-8") as fh:
            head = fh.read(1024).lstrip()
            fh.seek(0)
            if head.startswith("["):
                records = json.load(fh)
                if not isinstance(records, list):
                    raise DataError(f"{path}: expected a JSON array of sample records")
                yield from enumerate(records, start=1)
                return
            for number, line in enumerate(fh, start=1):
                if line.strip():
                    yield number, json.loads(line)
    except json.JSONDecodeError as err:
        where = f"line {number}" if "number" in locals() else "the file"
        raise DataError(f"{path}: {where} is not valid JSON ({err.msg})") from None
    except (OSError, UnicodeDecodeError) as err:
        raise DataError(f"{path}: cannot read as text ({err})") from None


def metric_names(rec: dict) -> list[str]:
    """The per-sample metrics named on a record (``metrics``, or its other top-level keys)."""
    if isinstance(rec.get("metrics"), list):
        return [str(m) for m in rec["metrics"]]
    return [k for k in rec if k not in NOT_METRICS]
