"""``bn.questions`` and ``bn.leaderboard`` end to end on a 300-model x 3,000-question file
(and a 30 x 500 one).

The verbs as a user runs them: from a CSV file (900,000 rows, one 0/1 sample per model and
question; seeded synthetic Rasch data) and from the loaded dataset. Floors measured in the same
run: reading the file with ``pyarrow.csv`` (no checks, no aggregation), ``bn.load`` of the
file, one 300 x 3000 x 300 matrix product (the expected-win matrix every pair statistic needs)
and ``BOOT`` of them (the expected-win matrices of the Elo bootstrap, which the intervals
cannot avoid). ``leaderboard`` also computes the rank intervals of ``bn.ranks``; the rows
"of which" time its two parts on the loaded dataset. The machine's load is printed: on a
shared machine the floors move with it, which is why they are measured in the same run.

Run: .venv/bin/python benchmarks/bench_quality_verbs.py   (prints a markdown table; ~1 minute
on an idle machine)
"""

from __future__ import annotations

import os
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special

import bayesnoise as bn
from bayesnoise.decide import rank_table
from bayesnoise.frequentist import model_quality

SIZES = ((300, 3000), (30, 500))
BOOT = 1000


def best_of(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def write_file(folder: Path, m: int, n: int, seed=0) -> tuple[Path, np.ndarray]:
    rng = np.random.default_rng(seed)
    prob = special.expit(rng.normal(0, 1, m)[:, None] - rng.normal(0, 1.5, n)[None, :])
    scores = (rng.random((m, n)) < prob).astype(np.int8)
    path = folder / f"quality_{m}x{n}.csv"
    pd.DataFrame(
        {
            "model": np.repeat([f"model-{i:03d}" for i in range(m)], n),
            "example_id": np.tile([f"q{j:04d}" for j in range(n)], m),
            "correct": scores.ravel(),
        }
    ).to_csv(path, index=False)
    return path, scores.astype(float)


def timings(folder: Path, m: int, n: int) -> list[tuple[str, float]]:
    import pyarrow.csv as pacsv

    path, p = write_file(folder, m, n)
    q = 1.0 - p
    matmul = best_of(lambda: p @ q.T)
    rows = [
        ("floor: pyarrow.csv.read_csv of the file", best_of(lambda: pacsv.read_csv(path))),
        ("floor: bn.load of the file", best_of(lambda: bn.load(path, progress=False))),
        ("floor: one p @ (1 - p).T", matmul),
        (f"floor: {BOOT} such products (Elo bootstrap wins)", BOOT * matmul),
    ]
    ds = bn.load(path, progress=False)
    rows += [
        ("bn.questions(file)", best_of(lambda: bn.questions(path, progress=False))),
        ("bn.questions(dataset)", best_of(lambda: bn.questions(ds))),
        (
            "bn.leaderboard(dataset, n_resamples=0)",
            best_of(lambda: bn.leaderboard(ds, n_resamples=0), 1),
        ),
        (
            "  of which frequentist.model_quality, no bootstrap",
            best_of(lambda: model_quality(ds, n_resamples=0)),
        ),
        (
            f"  of which frequentist.model_quality, bootstrap={BOOT}",
            best_of(lambda: model_quality(ds, n_resamples=BOOT), 1),
        ),
        ("  of which decide.rank_table (rank intervals)", best_of(lambda: rank_table(ds), 1)),
        (
            f"bn.leaderboard(file), default bootstrap={BOOT}",
            best_of(lambda: bn.leaderboard(path, progress=False), 1),
        ),
    ]
    return rows


def main():
    warnings.simplefilter("ignore")
    before = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory() as tmp:
        results = [timings(Path(tmp), m, n) for m, n in SIZES]
    after = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    sizes = " | ".join(f"{m} x {n} (s)" for m, n in SIZES)
    print("Seeded synthetic Rasch data, one 0/1 sample per model and question, CSV files")
    print(f"{os.cpu_count()} cores, load average before {before}, after {after}\n")
    print(f"| step | {sizes} |")
    print("|---|" + "---:|" * len(SIZES))
    for i, (name, _) in enumerate(results[0]):
        cells = " | ".join(f"{r[i][1]:.2f}" for r in results)
        print(f"| {name} | {cells} |")


if __name__ == "__main__":
    main()
