"""All-pairs noise tables: wall time against a bare M x M matmul and a per-pair loop.

Run: .venv/bin/python benchmarks/bench_pairs.py   (prints a table; ~1 minute on 2 cores)
"""

from __future__ import annotations

import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

import bayesnoise as bn
from bayesnoise.data import from_arrays
from bayesnoise.frequentist import pair_noise_dataset

HUMANEVAL = (
    Path(__file__).resolve().parents[1].parent
    / "shared/data/all-the-noises/main/input_table_humaneval.csv"
)


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def loop_pairs(p, w, k, pairs):
    """The straightforward way: one pair at a time, the paper's formulas per pair."""
    out = []
    for a, b in pairs:
        pa, pb = p[a], p[b]
        ba, bb = np.mean(w[a] / (k[a] - 1)), np.mean(w[b] / (k[b] - 1))
        cov = np.mean((pa - pa.mean()) * (pb - pb.mean()))
        var_diff = np.var(pa - pb)
        total = np.var(pa) + np.mean(w[a]) + np.var(pb) + np.mean(w[b]) - 2 * cov
        wins_a, wins_b = np.sum(pa * (1 - pb)), np.sum(pb * (1 - pa))
        from scipy import stats

        pval = (
            stats.binomtest(int(wins_a), int(wins_a + wins_b)).pvalue
            if int(wins_a + wins_b)
            else 1.0
        )
        out.append((total, var_diff - ba - bb, np.mean(w[a] + w[b]) + ba + bb, pval))
    return out


def case(name, ds, repeat, loop_pairs_n):
    ds = bn.complete(ds, on_missing="intersect")
    m, n = ds.sizes["model"], ds.sizes["question"]
    p = (ds["correct"] / ds["samples"]).values
    w = p * (1 - p)
    k = ds["samples"].values.astype(float)
    t_all = best_of(lambda: pair_noise_dataset(ds), repeat)
    t_mm = best_of(lambda: p @ p.T, repeat)
    rng = np.random.default_rng(0)
    all_pairs = np.array(np.triu_indices(m, 1)).T
    subset = all_pairs[
        rng.choice(len(all_pairs), size=min(loop_pairs_n, len(all_pairs)), replace=False)
    ]
    t_loop_subset = best_of(lambda: loop_pairs(p, w, k, subset), 1)
    t_loop = t_loop_subset * len(all_pairs) / len(subset)
    tracemalloc.start()
    pair_noise_dataset(ds)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return (
        name,
        m,
        n,
        len(all_pairs),
        t_all,
        t_mm,
        t_all / t_mm,
        len(subset),
        t_loop,
        t_loop / t_all,
        peak,
    )


def main():
    warnings.simplefilter("ignore")
    rows = []
    if HUMANEVAL.exists():
        rows.append(case("humaneval (real)", bn.load(HUMANEVAL), repeat=20, loop_pairs_n=3003))
    rng = np.random.default_rng(1)
    m, n, k = 1000, 10_000, 5
    u = np.clip(rng.beta(0.5, 0.5, size=(1, n)) + rng.normal(0, 0.2, size=(m, n)), 0, 1)
    synth = from_arrays(rng.binomial(k, u), np.full((m, n), k))
    rows.append(case("synthetic K=5", synth, repeat=3, loop_pairs_n=2000))
    head = ("case", "M", "N", "pairs", "all-pairs s", "matmul s", "x matmul", "loop pairs timed",
            "loop s (all pairs, extrapolated)", "speed-up vs loop", "peak MiB")  # fmt: skip
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]:.4f} | {r[5]:.4f} | {r[6]:.2f} | {r[7]} | "
              f"{r[8]:.2f} | {r[9]:.0f} | {r[10]:.0f} |")  # fmt: skip


if __name__ == "__main__":
    main()
