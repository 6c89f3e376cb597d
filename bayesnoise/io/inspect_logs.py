"""Inspect AI evaluation logs: one log = one model on one task; epochs are the samples.

Read from the documented JSON of the logs (``.eval`` ZIP or ``.json``) without inspect-ai:
only each log's header and per-sample score summaries, never the messages. Score values are
mapped to numbers as Inspect's ``value_to_float`` maps them: ``"C"`` = 1, ``"P"`` = 0.5,
``"I"`` = ``"N"`` = 0, booleans and numbers as they are, ``"yes"``/``"true"`` = 1,
``"no"``/``"false"`` = 0 (any case) and numeric strings; other values are refused (Inspect
would count them as 0 with a warning).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import xarray as xr

from bayesnoise._common import by_caller, option
from bayesnoise._common import fmt_value as _fmt
from bayesnoise.data import DataError

from ._inspect_files import (
    RawLog,
    error_text,
    expand,
    is_log_file,
    log_files,
    read_log,
)
from ._inspect_levels import (
    full_metadata,
    record_levels,
    record_place,
    variant,
    variant_hint,
)
from ._inspect_util import (
    build_dataset,
    check_choice,
    choose,
    file_report,
    more,
    source_name,
    warn,
)
from .columns import score_value

__all__ = ["inspect_samples", "is_inspect_log", "read_inspect"]


def _fix_incomplete() -> str:
    """What to do about unscored samples, in the caller's language (known at call time)."""
    return (
        "They are neither counted as wrong nor dropped: rerun them, or pass "
        + by_caller("incomplete='use-scored'", "--use-scored")
        + " to load only the scored samples"
    )


def is_inspect_log(path: Path) -> bool:
    """Whether ``path`` is an Inspect log, or a folder holding one (cheap: reads headers only).

    Examples
    --------
    >>> from pathlib import Path
    >>> is_inspect_log(Path("no-such-file.eval"))
    False
    """
    path = Path(path)
    if path.is_dir():
        return bool(log_files(path))
    return is_log_file(path)


def _scorer_names(logs: list[RawLog]) -> list[str]:
    names: dict[str, None] = {}
    for log in logs:
        names.update(dict.fromkeys(log.scorers))
        for rec in log.records:
            names.update(dict.fromkeys(rec.get("scores") or {}))
    return list(names)


def _check_keys(logs: list[RawLog], scorer: str, score_key: str | None, where: str) -> None:
    """Dict-valued scores need ``score_key``; a key needs dict values."""
    keys: dict[str, None] = {}
    scalar = None
    for log in logs:
        for rec in log.records:
            score = (rec.get("scores") or {}).get(scorer)
            value = score.get("value") if isinstance(score, dict) else None
            if isinstance(value, dict):
                keys.update(dict.fromkeys(value))
            elif value is not None and scalar is None:
                scalar = record_place(log, rec)
    if keys and score_key is None:
        raise DataError(
            f"{where}: scorer {scorer!r} gives several values per sample ({', '.join(keys)}); "
            f"choose one with {option('score_key', 'KEY')}"
        )
    if score_key is not None and not keys:
        raise DataError(
            f"{where}: score_key={score_key!r} given, but scorer {scorer!r} gives one value per "
            "sample; leave score_key out"
        )
    if score_key is not None and score_key not in keys:
        raise DataError(
            f"{where}: scorer {scorer!r} has no key {score_key!r}; its keys are {', '.join(keys)}"
        )
    if keys and scalar is not None:
        raise DataError(f"{scalar}: scorer {scorer!r} gives a single value here, a dict elsewhere")


def _value(log: RawLog, rec: dict, scorer: str, score_key: str | None):
    """(score, None) or (None, reason the sample has no score)."""
    if rec.get("error"):
        return None, f"errored ({error_text(rec['error'])[:80]})"
    score = (rec.get("scores") or {}).get(scorer)
    if not isinstance(score, dict):
        return None, f"not scored by {scorer!r}"
    value = score.get("value")
    if isinstance(value, dict):
        if score_key not in value:
            raise DataError(
                f"{record_place(log, rec)}: scorer {scorer!r} has no key {score_key!r} here"
            )
        value = value[score_key]
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None, "unscored (NaN)"
    number = score_value(value)
    if number is None:
        raise DataError(
            f"{record_place(log, rec)}: score {value!r} of {scorer!r} is not a value Inspect converts "
            "to a number (C/I/P/N, yes/no, true/false, a number); nothing is imputed"
        )
    if not 0 <= number <= 1:
        raise DataError(
            f"{record_place(log, rec)}: score {_fmt(number)} of {scorer!r} is outside [0, 1]; "
            "scores are not clipped"
        )
    return number, None


def _limit_text(log: RawLog) -> str:
    return f" (limit {_fmt(log.limit)})" if log.limit is not None else ""


def _log_problem(log: RawLog, scored: int, left: int) -> tuple[str | None, str | None]:
    """(problem, note): why the log did not finish (an error unless ``use-scored``), or a
    note for a log that was cancelled after every planned sample was scored."""
    if log.status == "success":
        return None, None
    ran = len(log.records)
    if log.status == "cancelled" and log.planned is not None and ran >= log.planned and not left:
        return None, (
            f"{log.path.name} has status 'cancelled', but all {log.planned} planned (sample, "
            f"epoch){_limit_text(log)} ran and were scored: loaded"
        )
    what = (
        "crashed (only _journal/ is present)"
        if log.journal_only
        else f"has status {log.status!r}" + (f" ({log.error})" if log.error else "")
    )
    missing = ""
    if log.planned is not None and log.planned > ran:
        missing = (
            f"; {log.planned - ran} of {log.planned} (sample, epoch){_limit_text(log)} never ran"
        )
    if not ran:
        missing += "; no sample finished"
    return f"{log.path.name} {what}{missing}; {scored} scored", None


def header_summary(log: RawLog) -> str:
    """The header's own results in words (``match: accuracy 0.8, stderr 0.2; 5 samples``)."""
    results = log.results or {}
    parts = []
    for entry in results.get("scores") or []:
        if not isinstance(entry, dict):
            continue
        metrics = entry.get("metrics") or {}
        shown = ", ".join(
            f"{k} {_fmt(v.get('value'))}" for k, v in metrics.items() if isinstance(v, dict)
        )
        parts.append(f"{entry.get('name')}: {shown}" if shown else str(entry.get("name")))
    total = results.get("completed_samples", results.get("total_samples"))
    text = "; ".join(parts) or "no scores"
    return text + (f" over {total} samples" if total is not None else "")


def _no_samples(log: RawLog) -> str:
    return (
        f"holds no per-sample results: the log was written without samples (log_samples=False, "
        f"or saved from a header-only read); its header reports {header_summary(log)}. "
        "bayesnoise needs each question's score: re-run the task with samples logged (the "
        "default), or load the full log"
    )


def _has_score(log: RawLog) -> bool:
    """Whether any sample of the log finished without error and carries a score."""
    return any(rec.get("scores") and not rec.get("error") for rec in log.records)


def _ended_early(logs: list[RawLog]) -> str:
    """One line for logs none of which scored a sample: the first log's status and its own
    error message (Inspect's ``error.message``, else the first errored sample's)."""
    log = logs[0]
    others = f" (and {len(logs) - 1} more logs with no scored sample)" if len(logs) > 1 else ""
    if log.journal_only:
        what = "the Inspect run crashed (only _journal/ is present)"
    elif log.status == "cancelled":
        what = "the Inspect run was cancelled (status 'cancelled')"
    elif log.status == "started":
        what = "the Inspect run has status 'started' (still running, or killed)"
    else:
        what = f"the Inspect run ended with status {log.status!r}"
    errors = [error_text(rec["error"]) for rec in log.records if rec.get("error")]
    message = log.error or (errors[0] if errors else None)
    counts = [f"{len(errors)} of {len(log.records)} samples errored"] if log.records else []
    if log.planned is not None and log.planned > len(log.records):
        never = log.planned - len(log.records)
        counts.append(f"{never} of {log.planned} (sample, epoch){_limit_text(log)} never ran")
    tried = f" ({'; '.join(counts)})" if counts else ""
    tail = f": {message}" if message else ""
    return (
        f"{log.path}{others}: {what} before any sample was scored{tried}{tail}; rerun the task"
        + (" once the error is fixed" if message else "")
    )


def _merge_groups(
    logs: list[RawLog], duplicates: str, where: str, factors: Sequence[str] = ()
) -> dict[str, list[RawLog]]:
    groups: dict[str, list[RawLog]] = {}
    for log in logs:  # logs of one model under different prompt variants are not duplicates
        groups.setdefault((log.model, *variant(log, factors)), []).append(log)
    for (model, *_), group in groups.items():
        if len(group) > 1 and duplicates == "error":
            files = " and ".join(str(g.path) for g in group[:2])
            extra = f" (and {len(group) - 2} more)" if len(group) > 2 else ""
            raise DataError(
                f"{where}: two logs for model {model!r} on task {group[0].task!r}: "
                f"{files}{extra} (a retry or an eval set?)"
                + variant_hint(group)
                + ". Keep one, or pass "
                + by_caller("duplicates='merge'", "--merge-duplicates")
                + " to use "
                "their epochs as more samples"
            )
        group.sort(key=lambda g: (g.created, str(g.path)))
    return groups


def inspect_samples(
    paths: Sequence[Path],
    *,
    benchmark: str | None = None,
    scorer: str | None = None,
    score_key: str | None = None,
    incomplete: str = "error",
    duplicates: str = "error",
    factors: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Per-sample scores from Inspect logs: one row per scored (model, sample id, epoch).

    Same parameters as :func:`read_inspect`. Columns ``benchmark_id, model, example_id,
    sample, correct, file, id, epoch`` and one per factor: ``example_id`` is the sample id
    as text, ``sample``
    the epoch (offset by the earlier logs' epochs when duplicates are merged), ``id`` the id as
    written; ``df.attrs["left_out"]`` lists what was not scored.

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> log = {"version": 2, "status": "success", "eval": {"task": "t", "model": "m"},
    ...        "samples": [{"id": 1, "epoch": 1, "scores": {"s": {"value": "P"}}}]}
    >>> path = Path(tempfile.mkdtemp()) / "log.json"
    >>> _ = path.write_text(json.dumps(log))
    >>> inspect_samples([path])["correct"].tolist()
    [0.5]
    """
    check_choice(incomplete, ("error", "use-scored"), "incomplete")
    check_choice(duplicates, ("error", "merge"), "duplicates")
    skipped: list[tuple[str, str]] = []
    files = expand(paths, skipped)
    if not files:
        raise DataError("no Inspect logs given")
    where = source_name(files)
    logs = [read_log(f) for f in files]
    tasks = list(dict.fromkeys(log.task for log in logs))
    task = choose(
        tasks, benchmark, what="tasks", option="benchmark", cli="--benchmark NAME", where=where
    )
    elsewhere = [(str(g.path), f"task {g.task!r}, not {task!r}") for g in logs if g.task != task]
    logs = [log for log in logs if log.task == task]
    header_only = [g for g in logs if not g.has_samples and g.status == "success"]
    if header_only:
        if len(header_only) == len(logs):
            first = header_only[0]
            others = f" (and {len(header_only) - 1} more logs like it)" if len(logs) > 1 else ""
            raise DataError(f"{first.path}{others}: {_no_samples(first)}")
        skipped += [(str(g.path), _no_samples(g)) for g in header_only]
        logs = [g for g in logs if g not in header_only]
    if not any(_has_score(log) for log in logs) and all(g.status != "success" for g in logs):
        raise DataError(_ended_early(logs))
    chosen = choose(
        _scorer_names(logs),
        scorer,
        what="scorers",
        option="scorer",
        cli="--scorer NAME",
        where=where,
    )
    _check_keys(logs, chosen, score_key, where)
    factors = [factors] if isinstance(factors, str) else list(factors or [])
    rows, left_out, problems, notes = [], [], [], []
    for group in _merge_groups(logs, duplicates, where, factors).values():
        offset = 0
        for log in group:
            seen: dict[tuple[str, int], object] = {}
            scored, left = 0, len(left_out)
            full = full_metadata(log, factors)
            for rec in log.records:
                key = (str(rec["id"]), int(rec["epoch"]))
                if key in seen:
                    raise DataError(
                        f"{record_place(log, rec)}: sample ids {seen[key]!r} and {rec['id']!r} are "
                        "the same question as text; give the samples distinct ids"
                    )
                seen[key] = rec["id"]
                number, reason = _value(log, rec, chosen, score_key)
                if reason is not None:
                    left_out.append(f"{record_place(log, rec)} {reason}")
                    continue
                scored += 1
                levels = record_levels(log, rec, factors, full)
                rows.append(
                    (log.model, key[0], offset + key[1], number, str(log.path), *key, *levels)
                )
            problem, note = _log_problem(log, scored, len(left_out) - left)
            if problem:
                problems.append(problem)
            if note:
                notes.append(note)
            offset += max([log.epochs, *(k[1] for k in seen)])
    _report_incomplete(where, left_out, problems, incomplete)
    for note in notes:  # one line each (a log cancelled after all its samples)
        warn(note)
    df = pd.DataFrame(
        rows,
        columns=["model", "example_id", "sample", "correct", "file", "id", "epoch", *factors],
    )
    df.insert(0, "benchmark_id", task)
    df.attrs["left_out"] = left_out + problems
    df.attrs["scorer"] = chosen if score_key is None else f"{chosen}[{score_key}]"
    if df.empty:
        raise DataError(
            f"{where}: no scored samples for task {task!r}"
            + (f" ({more(problems)})" if problems else "")
        )
    loaded = list(dict.fromkeys(df["file"]))
    skipped += [(str(g.path), "no scored sample") for g in logs if str(g.path) not in loaded]
    df.attrs["files"] = file_report(loaded, skipped, where, elsewhere)
    df.attrs["log_results"] = _compare_with_logs(df, logs, chosen, score_key)
    df.attrs["notes"] = notes
    return df


def _header_metrics(log: RawLog, scorer: str, score_key: str | None) -> dict[str, float]:
    """The header's metric values of the chosen scorer (and key)."""
    for entry in (log.results or {}).get("scores") or []:
        if not isinstance(entry, dict):
            continue
        name, owner = entry.get("name"), entry.get("scorer", entry.get("name"))
        if (score_key is None and name == scorer) or (owner == scorer and name == score_key):
            metrics = entry.get("metrics") or {}
            return {
                str(k): float(v["value"])
                for k, v in metrics.items()
                if isinstance(v, dict) and isinstance(v.get("value"), int | float)
            }
    return {}


def _compare_with_logs(df: pd.DataFrame, logs, scorer: str, score_key: str | None) -> list[str]:
    """Each log's own accuracy and stderr beside the loaded per-model mean and its standard
    error. Inspect's ``stderr`` is the sample standard deviation (n - 1) of the per-question
    scores over sqrt(n); bayesnoise divides by n, so its SE is smaller by sqrt((n - 1) / n)."""
    out = []
    for log in logs:
        own = _header_metrics(log, scorer, score_key)
        mine = df[df["file"] == str(log.path)]
        if not own or mine.empty:
            continue
        per_question = mine.groupby("example_id")["correct"].mean().to_numpy()
        n = per_question.size
        mean = float(per_question.mean())
        se_n = float(per_question.std(ddof=0) / math.sqrt(n))
        accuracy = own.get("accuracy", own.get("mean"))
        text = f"{log.model} ({log.path.name}): "
        if accuracy is not None:
            same = "same" if abs(accuracy - mean) <= 1e-9 else "DIFFERS"
            text += f"log accuracy {_fmt(accuracy)}, loaded mean {_fmt(mean)} ({same})"
        if "stderr" in own and n > 1:
            text += (
                f"; log stderr {_fmt(own['stderr'])} (sample SD with n - 1, n = {n}), "
                f"loaded SE {_fmt(se_n)} (with n; = stderr x sqrt((n - 1)/n) = "
                f"{_fmt(own['stderr'] * math.sqrt((n - 1) / n))})"
            )
        out.append(text)
    return out


def _report_incomplete(where: str, left_out: list, problems: list, incomplete: str) -> None:
    if not left_out and not problems:
        return
    parts = []
    if left_out:
        kinds = Counter("errored" if " errored (" in item else "unscored" for item in left_out)
        counted = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
        parts.append(f"{len(left_out)} samples have no score ({counted}: {more(left_out)})")
    if problems:
        parts.append(f"{len(problems)} logs did not finish ({more(problems)})")
    message = f"{where}: " + "; ".join(parts)
    if incomplete == "error":
        raise DataError(f"{message}. {_fix_incomplete()}")
    short = []  # the warning: one line; the list is in ds.attrs["notes"] ("left out")
    if left_out:
        short.append(f"{len(left_out)} samples have no score ({counted})")
    if problems:
        first = problems[0] if len(problems[0]) <= 70 else problems[0][:67] + "..."
        short.append(f"{len(problems)} logs did not finish (e.g. {first})")
    warn(
        "; ".join(short) + ": loaded the scored samples only (incomplete='use-scored'); "
        "ds.attrs['notes'] lists what was left out"
    )


def read_inspect(
    paths: Sequence[Path],
    *,
    benchmark: str | None = None,
    scorer: str | None = None,
    score_key: str | None = None,
    incomplete: str = "error",
    duplicates: str = "error",
    factors: Sequence[str] | None = None,
    threshold: float | None = None,
    success: str = "above",
) -> xr.Dataset:
    """Dataset from Inspect AI logs (``.eval`` or ``.json`` files, or folders of them).

    Model from ``eval.model``, benchmark from ``eval.task``, question from the sample ``id``
    (``1`` and ``"1"`` are the same question), samples from the epochs: K per question is the
    number of its scored epochs.

    Parameters
    ----------
    paths : sequence of pathlib.Path
        Log files and folders (searched recursively).
    benchmark : str, optional
        Task to load when the logs hold several (required then).
    scorer : str, optional
        Scorer to use when the samples have several (required then).
    score_key : str, optional
        Key to use when the scorer gives a dict of values (required then).
    incomplete : {"error", "use-scored"}
        Unscored (NaN) or errored samples, and logs that did not finish (status error,
        cancelled, or crashed with only ``_journal/``), raise a :class:`DataError` saying how
        many and where; ``"use-scored"`` loads what was scored and warns once with what was
        left out (also kept in ``ds.attrs["notes"]``).
    duplicates : {"error", "merge"}
        Two logs for the same model and task raise an error naming both; ``"merge"`` uses
        their epochs as more samples.
    factors : list of str, optional
        Prompt variants and other factors: each one's level is the log's task argument of
        that name (``inspect eval ... -T template=cot``: ``eval.task_args``), else the
        sample's ``metadata`` entry (its whitespace collapsed, as inspect-ai's summaries write
        it; read from the log's sample files where the summaries hold none, before inspect-ai
        ~0.3.7x, or a cut copy, values over 1,024 characters); logs of one model that differ
        by it are not duplicates. Each factor becomes a dim of the dataset; the epochs stay the
        samples (runs).
    threshold : float, optional
        Graded scores: each epoch's score becomes a success (``>= threshold``, inclusive) or a
        failure before the epochs of a question are summed.
    success : {"above", "below"}, default "above"
        ``"below"``: a score ``<= threshold`` is a success.

    Returns
    -------
    xarray.Dataset
        The package's ``(model, question)`` dataset; partial credit (``"P"``, fractions) makes
        it non-binary.

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> for model, values in {"a": ["C", "I"], "b": ["C", "C"]}.items():
    ...     log = {"version": 2, "status": "success",
    ...            "eval": {"task": "quiz", "model": model, "config": {"epochs": 1}},
    ...            "samples": [{"id": i, "epoch": 1, "scores": {"match": {"value": v}}}
    ...                        for i, v in enumerate(values)]}
    ...     _ = (folder / f"{model}.json").write_text(json.dumps(log))
    >>> ds = read_inspect([folder])
    >>> ds["correct"].values.tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    df = inspect_samples(
        paths,
        benchmark=benchmark,
        scorer=scorer,
        score_key=score_key,
        incomplete=incomplete,
        duplicates=duplicates,
        factors=factors,
    )
    files = list(dict.fromkeys(df["file"]))
    notes = [f"scorer {df.attrs['scorer']}", *df.attrs["notes"]]
    if df.attrs["left_out"]:
        notes.append(f"left out (no score): {more(df.attrs['left_out'])}")
    if df.attrs["log_results"]:
        notes.append("compared with the logs' own results: " + " | ".join(df.attrs["log_results"]))
    return build_dataset(
        df,
        name=source_name([Path(p) for p in paths]) if paths else source_name(files),
        benchmark=str(df["benchmark_id"].iloc[0]),
        notes="\n".join(notes),
        logs=len(files),
        files=df.attrs["files"],
        factors=[factors] if isinstance(factors, str) else list(factors or []),
        threshold=threshold,
        success=success,
    )
