"""lighteval ``--save-details`` output (and the Open LLM Leaderboard details datasets built
from it): one file per task and run, one row per document with its per-sample metrics.

lighteval writes ``OUT/details/<model>/<DATE>/details_<task>_<DATE>.parquet`` (``<task>`` like
``lighteval|gsm8k|0``) and ``OUT/results/<model>/results_<DATE>.json``. Two row layouts:

* lighteval >= 0.10: columns ``doc`` (a struct with ``id``, the document's index in its split
  as text, and ``query``), ``model_response`` and ``metric`` (a struct: metric name -> value);
* lighteval <= 0.9 and the Open LLM Leaderboard (v1) details: flat columns ``example``,
  ``full_prompt``, ``predictions``, ..., ``metrics`` (a dict, or up to 0.7 its Python text
  ``"{'acc': 1.0}"``); no document id: the row order is the document order.

The model is the folder path between ``details/`` and ``<DATE>/`` (or the ``details_<org>__
<model>`` dataset name of a leaderboard download); the benchmark is the task; the question is
``doc.id`` (else the row number); repeated runs (several ``<DATE>``s of one model and task)
are the samples, run i being sample i.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import xarray as xr

from bayesnoise._common import fmt_value as _fmt
from bayesnoise._common import option
from bayesnoise.data import DataError

from ._inspect_util import build_dataset, choose, file_report, source_name

__all__ = ["is_lighteval", "lighteval_samples", "read_lighteval"]

_DATE = r"\d{4}-\d{2}-\d{2}T[0-9.\-]+"
DETAILS = re.compile(rf"^details_(?P<task>.+)_(?P<date>{_DATE})\.(?P<ext>parquet|jsonl?)$")
_LEADERBOARD = re.compile(r"^details_(?P<model>.+)$")


@dataclass
class _File:
    path: Path
    task: str
    date: str
    model: str


def _details_name(path: Path):
    return DETAILS.match(path.name)


def is_lighteval(path: Path) -> bool:
    """Whether ``path`` is a lighteval details file, or a folder holding one.

    Examples
    --------
    >>> from pathlib import Path
    >>> is_lighteval(Path("details_lighteval|gsm8k|0_2025-06-13T15-07-12.143436.parquet"))
    True
    """
    path = Path(path)
    if path.is_dir():
        return any(_details_name(p) for p in path.rglob("details_*"))
    return bool(_details_name(path))


def _model(path: Path) -> str:
    parts = path.parent.parts  # .../details/<model parts>/<DATE>
    if "details" in parts[:-1]:
        i = len(parts) - 1 - parts[::-1].index("details")
        model = "/".join(parts[i + 1 : -1])
        if model:
            return model
    for part in reversed(path.parent.parts):
        if m := _LEADERBOARD.match(part):
            return m["model"].replace("__", "/")
    raise DataError(
        f"{path}: cannot tell the model: lighteval writes details/<model>/<DATE>/"
        f"{path.name} (and a leaderboard download sits in details_<org>__<model>/); keep that "
        "folder layout"
    )


def _files(paths: Sequence[Path]) -> list[_File]:
    out: list[_File] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise DataError(f"{path}: no such file")
        found = (
            sorted(p for p in path.rglob("details_*") if _details_name(p))
            if path.is_dir()
            else [path]
        )
        if path.is_dir() and not found:
            raise DataError(f"{path}: no lighteval details (details_<task>_<DATE>.parquet) here")
        for p in found:
            m = _details_name(p)
            if m is None:
                raise DataError(
                    f"{p}: not a lighteval details file (details_<task>_<DATE>.parquet)"
                )
            out.append(_File(p, m["task"], m["date"], _model(p)))
    return list({f.path: f for f in out}.values())


def _rows(path: Path) -> list[dict]:
    """The rows of a details file, with only the columns the scores need."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        try:
            schema = pq.read_schema(path)
            wanted = [
                c
                for c in ("doc", "metric", "metrics", "example", "full_prompt")
                if c in schema.names
            ]
            return pq.read_table(path, columns=wanted).to_pylist()
        except DataError:
            raise
        except Exception as err:  # pyarrow raises several types for a damaged file
            raise DataError(
                f"{path}: cannot read as Parquet ({err}); is the file cut short? Copy it again"
            ) from None
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json" and text.lstrip().startswith("["):
            return json.loads(text)
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DataError(
            f"{path}: cannot read the details as JSON ({err}); is it cut short?"
        ) from None


def _metrics(row: dict, path: Path, i: int) -> dict:
    value = row.get("metric", row.get("metrics"))
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value)  # lighteval <= 0.7 wrote str(dict)
        except (ValueError, SyntaxError):
            raise DataError(f"{path}, row {i}: metrics {value[:60]!r} is not a dict") from None
    if not isinstance(value, dict):
        raise DataError(
            f"{path}, row {i}: no per-sample metrics (a 'metric' or 'metrics' column holding "
            "a dict); is this a lighteval details file?"
        )
    return value


def _question(row: dict, i: int) -> tuple[str, str | None]:
    doc = row.get("doc")
    if isinstance(doc, str):
        try:
            doc = ast.literal_eval(doc)
        except (ValueError, SyntaxError):
            doc = None
    if isinstance(doc, dict) and str(doc.get("id", "")).strip():
        return str(doc["id"]), doc.get("query")
    return str(i), row.get("example", row.get("full_prompt"))


def _score(value, path: Path, i: int, metric: str) -> float:
    if isinstance(value, bool | int | float) and not (
        isinstance(value, float) and not math.isfinite(value)
    ):
        if not 0 <= float(value) <= 1:
            raise DataError(
                f"{path}, row {i}: {metric}={_fmt(value)} is outside [0, 1]; scores are not clipped"
            )
        return float(value)
    if value is None or isinstance(value, float):
        raise DataError(f"{path}, row {i}: {metric} is missing or not finite; nothing is imputed")
    raise DataError(
        f"{path}, row {i}: {metric} holds a {type(value).__name__}, not one number per document "
        f"(a corpus-level metric); choose another with {option('metric', 'NAME')}"
    )


def lighteval_samples(
    paths: Sequence[Path], *, benchmark: str | None = None, metric: str | None = None
) -> pd.DataFrame:
    """Per-document scores from lighteval details: one row per (model, document, run).

    Same parameters as :func:`read_lighteval`; columns ``benchmark_id, model, example_id,
    sample, correct, file, row``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> date = "2025-06-13T15-07-12.143436"
    >>> folder = Path(tempfile.mkdtemp()) / "details" / "org" / "m" / date
    >>> folder.mkdir(parents=True)
    >>> rows = pd.DataFrame({"doc": [{"id": "0", "query": "q0"}, {"id": "1", "query": "q1"}],
    ...                      "metric": [{"em": 1.0}, {"em": 0.0}]})
    >>> rows.to_parquet(folder / f"details_lighteval|quiz|0_{date}.parquet")
    >>> lighteval_samples([folder.parent.parent.parent])["correct"].tolist()
    [1.0, 0.0]
    """
    files = _files(paths)
    if not files:
        raise DataError("no lighteval details given")
    where = source_name([Path(p) for p in paths])
    task = choose(
        list(dict.fromkeys(f.task for f in files)),
        benchmark,
        what="tasks",
        option="benchmark",
        cli="--benchmark NAME",
        where=where,
    )
    elsewhere = [(str(f.path), f"task {f.task!r}, not {task!r}") for f in files if f.task != task]
    files = [f for f in files if f.task == task]
    parsed = {f.path: _rows(f.path) for f in files}
    names: dict[str, None] = {}
    for path, rows in parsed.items():
        for i, row in enumerate(rows):
            names.update(
                (k, None)
                for k, v in _metrics(row, path, i).items()
                if isinstance(v, bool | int | float)
            )
    used = choose(
        list(names),
        metric,
        what="metrics",
        option="metric",
        cli="--metric NAME",
        where=f"{where} (task {task})",
    )
    by_model: dict[str, list[_File]] = {}
    for f in files:
        by_model.setdefault(f.model, []).append(f)
    out, texts, positional = [], {}, False
    for model, group in by_model.items():
        group.sort(key=lambda f: f.date)
        for run, f in enumerate(group):
            seen: dict[str, int] = {}
            for i, row in enumerate(parsed[f.path]):
                question, text = _question(row, i)
                positional |= question == str(i) and not isinstance(row.get("doc"), dict)
                if question in seen:
                    raise DataError(
                        f"{f.path}, row {i}: document {question} again (first at row "
                        f"{seen[question]}); each document must appear once"
                    )
                seen[question] = i
                if text is not None:
                    first = texts.setdefault(question, (text, f.path, i))
                    if first[0] != text:
                        raise DataError(
                            f"document {question} of task {task!r} reads differently in "
                            f"{first[1]} (row {first[2]}) and {f.path} (row {i}): they did not "
                            "see the same question (another dataset version, or rows in another "
                            "order); load them separately"
                        )
                values = _metrics(row, f.path, i)
                if used not in values:
                    raise DataError(
                        f"{f.path}, row {i}: no metric {used!r} here; it has {', '.join(values)}"
                    )
                out.append(
                    (model, question, run, _score(values[used], f.path, i, used), str(f.path), i)
                )
    df = pd.DataFrame(out, columns=["model", "example_id", "sample", "correct", "file", "row"])
    df.insert(0, "benchmark_id", task)
    notes = [f"metric {used}" + ("" if metric else " (the only one)")]
    if positional:
        notes.append(
            "question ids are row numbers (this lighteval version writes no document id); "
            "models are matched row by row, checked on the question text"
        )
    runs = {m: len(g) for m, g in by_model.items()}
    files_text = file_report([str(f.path) for f in files], [], where, elsewhere)
    df.attrs.update(metric=used, runs=runs, notes=notes, files=files_text)
    return df


def read_lighteval(
    paths: Sequence[Path],
    *,
    benchmark: str | None = None,
    metric: str | None = None,
    threshold: float | None = None,
    success: str = "above",
) -> xr.Dataset:
    """Dataset from lighteval ``--save-details`` files (or Open LLM Leaderboard details).

    Parameters
    ----------
    paths : sequence of pathlib.Path
        ``details_<task>_<DATE>.parquet`` files (also ``.json``/``.jsonl`` with the same
        fields) or folders holding them, in lighteval's layout ``details/<model>/<DATE>/``.
    benchmark : str, optional
        Task to load when there are several (required then), e.g. ``lighteval|gsm8k|0``.
    metric : str, optional
        Per-sample metric; required when the rows have several.
    threshold : float, optional
        Graded scores: each sample's score becomes a success (``>= threshold``, inclusive) or
        a failure before the samples of a question are summed.
    success : {"above", "below"}, default "above"
        ``"below"``: a score ``<= threshold`` is a success.

    Returns
    -------
    xarray.Dataset
        ``attrs["runs"]``: the largest number of runs (``<DATE>``s) of one model, the samples;
        ``attrs["files"]``: the per-file report.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> date = "2025-06-13T15-07-12.143436"
    >>> out = Path(tempfile.mkdtemp())
    >>> for model, scores in {"org/a": [1.0, 0.0], "org/b": [1.0, 1.0]}.items():
    ...     folder = out / "details" / model / date
    ...     folder.mkdir(parents=True)
    ...     pd.DataFrame({"doc": [{"id": str(i), "query": f"q{i}"} for i in range(2)],
    ...                   "metric": [{"acc": s} for s in scores]}).to_parquet(
    ...         folder / f"details_lighteval|quiz|0_{date}.parquet")
    >>> read_lighteval([out])["correct"].values.tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    df = lighteval_samples(paths, benchmark=benchmark, metric=metric)
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
