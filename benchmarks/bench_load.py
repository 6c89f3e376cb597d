"""Load speed and peak memory of ``bayesnoise.load`` on a large per-sample table, against a floor.

The file: 48 models x 500 questions x K samples, one row per sample
(``model, example_id, sample, correct``), written as CSV, gzipped CSV and Parquet. The floor is
what any reader must at least do: pyarrow ``read_csv`` / ``read_parquet`` of the whole file and
a group-by to (model, question) sums and counts, on the same file in the same run. Each
measurement runs in a fresh subprocess; time is the load call only (imports excluded), peak
memory is the subprocess's maximum resident set size (imports included on both sides).

The two run in turn in fresh processes (A B A B ..., median of 5 pair-by-pair ratios; the
table is appended to ``benchmarks/results/load.md``). Targets (issue 33): time <= 1.5x the
floor and peak memory <= 1x, on the 6-million-row per-sample CSV.

    python benchmarks/bench_load.py --label after                 # 6 million rows (K = 250), CSV
    python benchmarks/bench_load.py --rows 24000000 --formats CSV "CSV gz" Parquet
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _versus import parser, versus, write

MODELS, QUESTIONS = 48, 500

OURS = """
import time, bayesnoise as bn, pyarrow.csv, pyarrow.parquet
t = time.perf_counter()
ds = bn.load({path!r}, progress=False)
print(time.perf_counter() - t, int(ds["samples"].sum()))
"""
FLOOR = """
import time, pyarrow.csv as pacsv, pyarrow.parquet as pq
t = time.perf_counter()
table = pq.read_table({path!r}) if {path!r}.endswith(".parquet") else pacsv.read_csv({path!r})
g = table.group_by(["model", "example_id"]).aggregate([("correct", "sum"), ("correct", "count")])
print(time.perf_counter() - t, int(sum(g.column("correct_count").to_pylist())))
"""


def write_files(folder: Path, rows: int) -> dict[str, Path]:
    """The table as CSV, gzipped CSV and Parquet; per-question accuracies ~ Beta(1, 1)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    k = max(rows // (MODELS * QUESTIONS), 1)
    rng = np.random.default_rng(20240501)
    m = np.repeat(np.arange(MODELS, dtype=np.int32), QUESTIONS * k)
    q = np.tile(np.repeat(np.arange(QUESTIONS, dtype=np.int32), k), MODELS)
    p = rng.beta(1.0, 1.0, size=(MODELS, QUESTIONS))
    correct = (rng.random(m.size) < p[m, q]).astype(np.int8)
    table = pa.table(
        {
            "model": pa.DictionaryArray.from_arrays(m, [f"model-{i:02d}" for i in range(MODELS)]),
            "example_id": pa.DictionaryArray.from_arrays(q, [f"q{i}" for i in range(QUESTIONS)]),
            "sample": np.tile(np.arange(k, dtype=np.int32), MODELS * QUESTIONS),
            "correct": correct,
        }
    )
    paths = {
        "CSV": folder / "s.csv",
        "CSV gz": folder / "s.csv.gz",
        "Parquet": folder / "s.parquet",
    }
    pacsv.write_csv(table, paths["CSV"], pacsv.WriteOptions(quoting_style="none"))
    pq.write_table(table, paths["Parquet"])
    with open(paths["CSV"], "rb") as src, gzip.open(paths["CSV gz"], "wb", compresslevel=1) as dst:
        shutil.copyfileobj(src, dst, 1 << 24)
    return paths


def measure(code: str) -> tuple[float, float, int]:
    """(seconds, peak MB, rows) of ``code`` run in a fresh Python."""
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    out = proc.stdout.read().split()
    proc.stdout.close()
    if status != 0 or len(out) != 2:
        raise RuntimeError(f"measurement failed (status {status}):\n{code}")
    return float(out[0]), usage.ru_maxrss / 1024, int(out[1])


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--rows", type=int, default=6_000_000)
    p.add_argument("--formats", nargs="+", default=["CSV"], choices=["CSV", "CSV gz", "Parquet"])
    p.add_argument("--folder", type=Path, help="where to write the files (default: temp)")
    args = p.parse_args()
    folder = args.folder or Path(tempfile.mkdtemp(prefix="bench_load_"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        paths = write_files(folder, args.rows)
        rows = []
        for name in args.formats:
            path = str(paths[name])
            ours, floor = measure(OURS.format(path=path)), measure(FLOOR.format(path=path))
            if ours[2] != floor[2]:
                raise RuntimeError(
                    f"{name}: bayesnoise counted {ours[2]} rows, the floor {floor[2]}"
                )
            size = paths[name].stat().st_size / 2**20
            rows.append(
                versus(
                    f"{name} {args.rows:,} rows ({size:.0f} MB)",
                    [sys.executable, "-c", OURS.format(path=path)],
                    [sys.executable, "-c", FLOOR.format(path=path)],
                    runs=args.runs,
                    inner=True,
                )
            )
        write("load", args.label, rows, "pyarrow floor",
              "Time: the load call only (imports excluded); memory: the process's peak RSS "
              "(imports included on both sides). Target: time <= 1.5x, memory <= 1x.")  # fmt: skip
    finally:
        if args.folder is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
