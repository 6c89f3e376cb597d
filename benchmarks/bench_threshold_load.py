"""Load time of a 6-million-row graded per-sample table with and without ``threshold=``, and
without it at an earlier commit (the row-level threshold must not slow the plain load).

The file: 48 models x 500 questions x K = 250 samples, scores on a 0.01 grid in [0, 1]
(``model, example_id, sample, correct``), as CSV and Parquet. Each measurement is a fresh
subprocess timing ``bn.load`` only (wall and process CPU, all threads); the three runs go in
turn (before, after, after with ``threshold=0.5``), ``--reps`` rounds, medians and the median
of the round-by-round ratios. The table is written to ``benchmarks/results/threshold_load.md``.

    python benchmarks/bench_threshold_load.py --before 601c5f8^ --after 601c5f8 --reps 10
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
TIMED = """
import sys, time
import bayesnoise as bn
assert bn.__file__.startswith({code!r}), bn.__file__
t, c = time.perf_counter(), time.process_time()
ds = bn.load({path!r}, progress=False{kw})
print(time.perf_counter() - t, time.process_time() - c)
"""


def write_files(folder: Path) -> dict[str, Path]:
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    models, questions, k = 48, 500, 250
    rng = np.random.default_rng(20240501)
    m = np.repeat(np.arange(models, dtype=np.int32), questions * k)
    q = np.tile(np.repeat(np.arange(questions, dtype=np.int32), k), models)
    p = rng.beta(1.0, 1.0, size=(models, questions))
    score = np.round(np.clip(p[m, q] + rng.normal(0, 0.2, m.size), 0, 1), 2)
    table = pa.table(
        {
            "model": pa.DictionaryArray.from_arrays(m, [f"model-{i:02d}" for i in range(models)]),
            "example_id": pa.DictionaryArray.from_arrays(q, [f"q{i}" for i in range(questions)]),
            "sample": np.tile(np.arange(k, dtype=np.int32), models * questions),
            "correct": score,
        }
    )
    paths = {"CSV": folder / "graded.csv", "Parquet": folder / "graded.parquet"}
    pacsv.write_csv(table, paths["CSV"], pacsv.WriteOptions(quoting_style="none"))
    pq.write_table(table, paths["Parquet"])
    return paths


def checkout(rev: str, folder: Path) -> Path:
    """The package as it was at ``rev`` (git archive), importable from ``folder``."""
    data = subprocess.run(
        ["git", "archive", rev, "bayesnoise"], cwd=ROOT, check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def run(code: Path, path: Path, threshold: float | None) -> tuple[float, float]:
    kw = "" if threshold is None else f", threshold={threshold}"
    script = TIMED.format(code=str(code), path=str(path), kw=kw)
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": str(code)},
        cwd=path.parent,  # not the repository: python -c puts the working directory first
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise RuntimeError(f"{code}: {done.stderr[-2000:]}")
    out = done.stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="git revision to compare with")
    ap.add_argument("--after", help="git revision measured as after (default: the work tree)")
    ap.add_argument("--reps", type=int, default=6)
    args = ap.parse_args()
    lines = [
        f"# Load with and without threshold= (6M graded rows; before = {args.before}, after = "
        f"{args.after or 'the work tree'})",
        "",
        "| file | before (s) | after (s) | after, threshold=0.5 (s) | after / before | "
        "threshold / no threshold | CPU after / before | CPU threshold / none |",
        "|---|---|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = write_files(folder)
        before = checkout(args.before, folder / "before")
        after = checkout(args.after, folder / "after") if args.after else ROOT
        for name, path in paths.items():
            rounds = [
                (run(before, path, None), run(after, path, None), run(after, path, 0.5))
                for _ in range(args.reps)
            ]
            wall = [[r[i][0] for r in rounds] for i in range(3)]
            cpu = [[r[i][1] for r in rounds] for i in range(3)]

            def ratio(x, y):
                return statistics.median(b / a for a, b in zip(x, y, strict=True))

            lines.append(
                f"| {name} | {statistics.median(wall[0]):.2f} | {statistics.median(wall[1]):.2f} "
                f"| {statistics.median(wall[2]):.2f} | {ratio(wall[0], wall[1]):.3f} "
                f"| {ratio(wall[1], wall[2]):.3f} | {ratio(cpu[0], cpu[1]):.3f} "
                f"| {ratio(cpu[1], cpu[2]):.3f} |"
            )
            print(lines[-1], flush=True)
    load = os.getloadavg()[0]
    lines += [
        "",
        f"Medians of {args.reps} rounds (fresh process each, load only); ratios are medians of "
        f"round-by-round ratios. Load average at the end: {load:.1f} on {os.cpu_count()} cores.",
    ]
    out = ROOT / "benchmarks" / "results" / "threshold_load.md"
    out.write_text("\n".join(lines) + "\n")
    print(out)


if __name__ == "__main__":
    main()
