"""Inspect logs with factors (prompt variants): each record's level of each factor, from the
log's task arguments or the sample's metadata (read from the sample files where inspect-ai's
summaries cut it), and the hint that names a differing task argument as a factor."""

from __future__ import annotations

from collections.abc import Sequence

from bayesnoise._common import by_caller, option
from bayesnoise._common import fmt_value as _fmt
from bayesnoise.data import DataError

from ._inspect_files import RawLog, sample_metadata

__all__ = ["full_metadata", "record_levels", "record_place", "variant", "variant_hint"]


def record_place(log: RawLog, rec: dict) -> str:
    """Where a record is, for messages: the log file, the sample id and the epoch."""
    return f"{log.path.name}: id {_fmt(rec['id'])}, epoch {rec['epoch']}"


def variant(log: RawLog, factors: Sequence[str]) -> tuple[str, ...]:
    """The log's level of each factor found in its task arguments ("" = per sample)."""
    return tuple(str(log.task_args[f]) if f in log.task_args else "" for f in factors)


#: What inspect-ai writes in a summary's metadata for a value above 1k characters.
_REMOVED = "Key removed from summary (> 1k)"


def _meta(rec: dict) -> dict:
    return rec.get("metadata") if isinstance(rec.get("metadata"), dict) else {}


def _cut(meta: dict, factor: str) -> bool:
    """Whether a summary may hold less than the sample's value of ``factor``: absent (no
    metadata in summaries before inspect-ai ~0.3.7x), removed (> 1k), or ending in "..."
    (strings cut to 1,024 characters, or to "..." alone for one long word)."""
    value = meta.get(factor)
    return value is None or value == _REMOVED or (isinstance(value, str) and value.endswith("..."))


def full_metadata(log: RawLog, factors: Sequence[str]) -> dict[tuple[str, int], dict]:
    """The samples' own metadata where a ``.eval`` log's summaries may not hold a factor's
    full value (read from the log's sample files; empty for ``.json`` logs)."""
    wanted = [f for f in factors if f not in log.task_args]
    if not log.summaries or not wanted:
        return {}
    keys = [
        (rec["id"], rec["epoch"]) for rec in log.records if any(_cut(_meta(rec), f) for f in wanted)
    ]
    return sample_metadata(log.path, keys) if keys else {}


def _level(value) -> str:
    """A metadata value as a level: text with its whitespace collapsed, as inspect-ai's
    summaries write it, so that .eval and .json logs of one run give the same levels."""
    return " ".join(str(value).split())


def record_levels(
    log: RawLog, rec: dict, factors: Sequence[str], full: dict | None = None
) -> tuple[str, ...]:
    """Each factor's level for one record: the log's task argument, else the sample's
    metadata (``full``: from the sample files, where the summary may be cut); neither is a
    DataError naming both places."""
    out = []
    meta = _meta(rec)
    own = (full or {}).get((str(rec["id"]), int(rec["epoch"])))
    for f in factors:
        value = own.get(f) if own is not None and own.get(f) is not None else meta.get(f)
        if f in log.task_args:
            out.append(str(log.task_args[f]))
        elif value is not None:
            out.append(_level(value))
        else:
            raise DataError(
                f"{record_place(log, rec)}: factor {f!r} is neither a task argument of the log "
                f"(eval.task_args: {sorted(log.task_args) or 'none'}) nor in the sample's "
                f"metadata ({sorted(meta) or 'none'})"
            )
    return tuple(out)


def variant_hint(group: list[RawLog]) -> str:
    """When the logs differ by a task argument (a prompt variant): name it as a factor."""
    names = sorted({k for g in group for k in g.task_args})
    differ = [k for k in names if len({str(g.task_args.get(k)) for g in group}) > 1]
    if not differ:
        return ""
    levels = sorted({str(g.task_args.get(differ[0])) for g in group})
    return (
        f"; they differ in the task argument {differ[0]!r} ({', '.join(levels)}): if that is "
        f"a prompt variant, name it as a factor ("
        + option("factors", by_caller(f"[{differ[0]!r}]", str(differ[0])))
        + "; "
        + by_caller("bn.noises", "`bayesnoise noises`")
        + " measures its noise)"
    )
