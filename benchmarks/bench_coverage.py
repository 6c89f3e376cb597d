"""The coverage self-check (``bayesnoise coverage``): wall time against a floor and a loop.

Target: 200 replicates x 3 populations of the bundled 8-model x 800-question file in about a
minute. Floor, measured in the same run: drawing the replicate evals alone (numpy resampling
and binomial draws, no interval computed). Loop: the package's table functions called the
plain way, one replicate eval at a time (``compare_models`` and ``compare_pairs`` on each),
timed on a few replicates and extrapolated.

Run: .venv/bin/python benchmarks/bench_coverage.py [--shared]   (prints a table; about two
minutes on 2 cores, more with --shared: the 31-model CRUXEval file from ../shared/data)
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

import bayesnoise as bn
from bayesnoise.data import from_arrays
from bayesnoise.decide import compare_models, compare_pairs

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = ROOT / "examples/data/cruxeval_output_temp0.8.csv.gz"
SHARED = ROOT.parent / "shared/data/cruxeval-samples/cruxeval_output_temp0.8.csv"
REPLICATES, POPULATIONS = 200, 3


def floor(ds, evals, rng):
    """Seconds to draw ``evals`` replicate evals: resample questions, draw binomial counts."""
    k = ds["samples"].values
    p = ds["correct"].values / k
    t0 = time.perf_counter()
    for _ in range(evals):
        idx = rng.integers(0, k.shape[1], k.shape[1])
        rng.binomial(k, p[:, idx])
    return time.perf_counter() - t0


def loop(ds, evals, rng, timed=3):
    """Seconds for ``evals`` replicates one at a time (``timed`` of them, extrapolated)."""
    k = ds["samples"].values
    p = ds["correct"].values / k
    t0 = time.perf_counter()
    for _ in range(timed):
        idx = rng.integers(0, k.shape[1], k.shape[1])
        sim = from_arrays(rng.binomial(k, p[:, idx]), k)
        compare_models(sim, progress=False)
        compare_pairs(sim)
    return (time.perf_counter() - t0) * evals / timed


def case(name, path):
    ds = bn.load(path, progress=False)
    m, n = ds.sizes["model"], ds.sizes["question"]
    evals = REPLICATES * POPULATIONS
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    out = bn.coverage(ds, replicates=REPLICATES, progress=False)
    t_cov = time.perf_counter() - t0
    t_floor, t_loop = floor(ds, evals, rng), loop(ds, evals, rng)
    pairs = int(out["units"].values[out["interval"].values == "dbar"][0])
    return (name, m, n, pairs, evals, t_cov, t_floor, t_cov / t_floor, t_loop, t_loop / t_cov)


def main():
    warnings.simplefilter("ignore")
    rows = [case("bundled CRUXEval extract", BUNDLED)]
    if "--shared" in sys.argv and SHARED.exists():  # 31 models: several minutes
        rows.append(case("CRUXEval output (shared)", SHARED))
    head = ("case", "M", "N", "pairs checked", "replicate evals", "coverage s", "floor s",
            "x floor", "loop s (extrapolated)", "speed-up vs loop")  # fmt: skip
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]:.1f} | {r[6]:.2f} | "
              f"{r[7]:.0f} | {r[8]:.0f} | {r[9]:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
