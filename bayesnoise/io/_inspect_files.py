"""Inspect AI log files read as documented JSON, without inspect-ai: which files are logs, and
the header and per-sample score records of one log.

A ``.eval`` log is a ZIP whose members (``header.json``, ``summaries.json``, and in a run that
crashed only ``_journal/start.json`` and ``_journal/summaries/<n>.json``) are compressed with
deflate or, by current inspect-ai, Zstandard (ZIP method 93). Only the header and the sample
summaries are read, never the full samples with their messages. A ``.json`` log is one object
with the same fields and the full ``samples``.
"""

from __future__ import annotations

import json
import re
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from bayesnoise._common import require
from bayesnoise.data import DataError

_ZSTD = 93
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
# Start of a JSON log as inspect-ai writes it: {"version": 2, "status": "...", "eval": {
_JSON_START = re.compile(
    rb'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:\s*"\w+"\s*,\s*"eval"\s*:'
)
_SNIFF_BYTES = 4096
_PARSE_BYTES = 1 << 20


@dataclass
class RawLog:
    """What the readers need from one log: where it is, what ran, and one record per
    (sample id, epoch) with ``id``, ``epoch``, ``scores`` and ``error``."""

    path: Path
    task: str
    model: str
    status: str
    error: str | None
    epochs: int
    planned: int | None  # samples the run was to score (after --limit) x epochs, if known
    created: str
    scorers: list[str] = field(default_factory=list)
    records: list[dict] = field(default_factory=list)
    journal_only: bool = False
    has_samples: bool = True  # False: the log was written without per-sample results
    limit: object = None  # eval.config.limit as written (an int, or [start, end])
    results: dict | None = None  # the header's own summary (``results``)
    task_args: dict = field(default_factory=dict)  # eval.task_args (e.g. a prompt variant)
    summaries: bool = False  # records from summaries.json / the journal (.eval), not samples


def _is_eval_zip(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
    except (zipfile.BadZipFile, OSError):
        return False
    return "header.json" in names or "_journal/start.json" in names


def _is_json_log(path: Path) -> bool:
    """Inspect's own key order at the start of the file; a small file (written by other
    tools) is parsed and needs top-level ``eval`` and ``samples`` or ``results``."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(_SNIFF_BYTES)
            if _JSON_START.match(head):
                return True
            if not head.lstrip().startswith(b"{") or path.stat().st_size > _PARSE_BYTES:
                return False
            obj = json.loads(head + fh.read())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(obj.get("eval"), dict) and ("samples" in obj or "results" in obj)


def is_log_file(path: Path) -> bool:
    """An ``.eval`` ZIP holding an Inspect header or journal, or an Inspect ``.json`` log."""
    suffix = path.suffix.lower()
    if suffix == ".eval":
        return path.is_file() and _is_eval_zip(path)
    if suffix == ".json":
        return path.is_file() and _is_json_log(path)
    return False


def log_files(folder: Path, not_logs: list | None = None) -> list[Path]:
    """Inspect logs anywhere under ``folder``, in path order; the other ``.eval``/``.json``
    files are appended to ``not_logs`` (with the reason) when it is given."""
    candidates = sorted(p for ext in ("*.eval", "*.json") for p in folder.rglob(ext))
    found = []
    for p in candidates:
        if is_log_file(p):
            found.append(p)
        elif not_logs is not None:
            not_logs.append((str(p), _not_a_log(p)))
    return found


def _not_a_log(path: Path) -> str:
    if path.name == "logs.json":
        return "Inspect's index of the log folder, not a log"
    if path.suffix.lower() == ".eval":
        return "not a ZIP with header.json or _journal/ (damaged or cut short?)"
    return "not an Inspect log (no eval and samples/results at the top)"


def expand(paths, not_logs: list | None = None) -> list[Path]:
    """Files and folders -> the log files, each once; a missing path or a file that is not an
    Inspect log raises :class:`DataError`. Files in the folders that are not logs are
    appended to ``not_logs`` as ``(path, reason)`` when it is given."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = log_files(path, not_logs)
            if not found:
                raise DataError(f"{path}: no Inspect logs (.eval or .json) in this folder")
            out.extend(found)
        elif not path.exists():
            raise DataError(f"{path}: no such file")
        elif is_log_file(path):
            out.append(path)
        elif path.suffix.lower() == ".eval":
            raise DataError(
                f"{path}: cannot read this .eval log: {_not_a_log(path)}; an Inspect .eval log "
                "is a ZIP with header.json or _journal/start.json"
            )
        else:
            raise DataError(
                f"{path}: not an Inspect log (expected a .eval ZIP with header.json or "
                "_journal/, or a .json log starting with version, status and eval)"
            )
    return list(dict.fromkeys(out))


def _member(zf: zipfile.ZipFile, name: str, path: Path) -> bytes:
    """Bytes of one ZIP member, decompressing Zstandard members where zipfile cannot."""
    info = zf.getinfo(name)
    if info.compress_type != _ZSTD:
        return zf.read(info)
    try:
        return zf.read(info)  # Python >= 3.14 reads Zstandard members itself
    except NotImplementedError:
        pass
    require("zstandard", "inspect", f"{path}: reading a Zstandard-compressed .eval log")
    import zstandard

    fp = zf.fp
    fp.seek(info.header_offset)
    header = _LOCAL_HEADER.unpack(fp.read(_LOCAL_HEADER.size))
    fp.seek(header[-2] + header[-1], 1)  # skip the file name and extra field
    data = zstandard.ZstdDecompressor().decompressobj().decompress(fp.read(info.compress_size))
    if zlib.crc32(data) != info.CRC:
        raise DataError(f"{path}: member {name} is corrupt (CRC mismatch)")
    return data


def _json(data: bytes | str, path: Path, member: str):
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise DataError(f"{path}: {member} is not valid JSON ({err})") from None


def error_text(error) -> str | None:
    if not error:
        return None
    text = error if isinstance(error, str) else str(error.get("message", error))
    return text.strip().splitlines()[0][:200] if text.strip() else "error"


def _planned(spec: dict) -> int | None:
    """Samples the run was to score: the header's ``dataset.sample_ids`` (written after
    ``--limit`` / ``--sample-id`` were applied), else ``dataset.samples`` cut by the limit."""
    dataset = spec.get("dataset") or {}
    ids = dataset.get("sample_ids")
    if isinstance(ids, list) and ids:
        return len(ids)
    n = dataset.get("samples")
    if not isinstance(n, int):
        return None
    limit = (spec.get("config") or {}).get("limit")
    if isinstance(limit, int) and not isinstance(limit, bool):
        return min(n, limit)
    if isinstance(limit, list) and len(limit) == 2 and all(isinstance(x, int) for x in limit):
        return max(0, min(n, limit[1]) - limit[0])
    return n


def _raw(
    path: Path, header: dict, records: list, journal_only: bool = False, has_samples: bool = True
) -> RawLog:
    spec = header.get("eval")
    if not isinstance(spec, dict) or "task" not in spec or "model" not in spec:
        raise DataError(f"{path}: the log has no eval.task / eval.model; is it an Inspect log?")
    config = spec.get("config") or {}
    epochs = int(config.get("epochs") or 1)
    planned = _planned(spec)
    status = "crashed" if journal_only else str(header.get("status", "unknown"))
    results = header.get("results")
    return RawLog(
        path=path,
        task=str(spec["task"]),
        model=str(spec["model"]),
        status=status,
        error=error_text(header.get("error")),
        epochs=epochs,
        planned=planned * epochs if planned is not None else None,
        created=str(spec.get("created", "")),
        scorers=[str(s["name"]) for s in spec.get("scorers") or [] if isinstance(s, dict)],
        records=records,
        journal_only=journal_only,
        has_samples=has_samples,
        limit=config.get("limit"),
        results=results if isinstance(results, dict) else None,
        task_args=spec.get("task_args") if isinstance(spec.get("task_args"), dict) else {},
    )


def _journal_number(name: str) -> int:
    stem = name.rsplit("/", 1)[-1].removesuffix(".json")
    return int(stem) if stem.isdigit() else -1


def _read_eval(path: Path) -> RawLog:
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as err:
        raise DataError(f"{path}: cannot open the .eval log as a ZIP ({err})") from None
    with zf:
        names = set(zf.namelist())
        if "header.json" in names:
            header = _json(_member(zf, "header.json", path), path, "header.json")
            journal_only = False
        elif "_journal/start.json" in names:
            header = _json(_member(zf, "_journal/start.json", path), path, "_journal/start.json")
            journal_only = True
        else:
            raise DataError(f"{path}: neither header.json nor _journal/start.json in the ZIP")
        parts = sorted(
            (n for n in names if n.startswith("_journal/summaries/")), key=_journal_number
        )
        if "summaries.json" in names:
            records = _json(_member(zf, "summaries.json", path), path, "summaries.json")
        else:
            records = [r for n in parts for r in _json(_member(zf, n, path), path, n)]
        if not isinstance(records, list):
            raise DataError(f"{path}: summaries.json is not a list of sample summaries")
        # Written without samples (log_samples=False): no summaries, no sample files.
        has_samples = bool(records) or any(n.startswith("samples/") for n in names) or bool(parts)
    log = _raw(path, header, records, journal_only, has_samples)
    log.summaries = True
    return log


def sample_metadata(path: Path, keys) -> dict[tuple[str, int], dict]:
    """The ``metadata`` of the samples ``keys`` ((id, epoch) pairs) of a ``.eval`` log, from
    its ``samples/<id>_epoch_<epoch>.json`` members (absent ones left out). The summaries
    hold no metadata before inspect-ai ~0.3.7x and a thinned copy since (strings cut to 1,024
    characters with whitespace collapsed, larger values replaced by a note)."""
    out: dict[tuple[str, int], dict] = {}
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        for sample_id, epoch in keys:
            name = f"samples/{sample_id}_epoch_{epoch}.json"
            if name in names:
                sample = _json(_member(zf, name, path), path, name)
                meta = sample.get("metadata") if isinstance(sample, dict) else None
                out[(str(sample_id), int(epoch))] = meta if isinstance(meta, dict) else {}
    return out


def _read_json(path: Path) -> RawLog:
    try:
        with open(path, "rb") as fh:
            obj = _json(fh.read(), path, "the file")
    except OSError as err:
        raise DataError(f"{path}: cannot read ({err})") from None
    if not isinstance(obj, dict):
        raise DataError(f"{path}: a .json Inspect log is one JSON object")
    samples = obj.get("samples")
    if samples is not None and not isinstance(samples, list):
        raise DataError(f"{path}: 'samples' is not a list of samples")
    return _raw(path, obj, samples or [], has_samples=bool(samples))


def read_log(path: Path) -> RawLog:
    """Header and score records of one log; records repeated after retries keep the last."""
    log = _read_eval(path) if path.suffix.lower() == ".eval" else _read_json(path)
    last: dict[tuple, dict] = {}
    for rec in log.records:
        if not isinstance(rec, dict) or "id" not in rec or "epoch" not in rec:
            raise DataError(f"{path}: a sample record has no id or epoch: {str(rec)[:80]}")
        key = (type(rec["id"]).__name__, rec["id"], rec["epoch"])
        last.pop(key, None)  # re-insert so the order follows the last occurrence
        last[key] = rec
    log.records = list(last.values())
    return log
