"""Question quality table and Elo: wall time on 300 models x 3,000 questions against numpy floors.

Synthetic, seeded Rasch data (P(correct) = sigmoid(ability - difficulty)), 0/1 scores and
fractional scores (means of K = 10 samples). Floors measured in the same run: one
300 x 3000 x 300 matrix product (the size of the expected-win matrix), and 200 and 1,000 of
them (the expected-win matrices of the bootstrap replicates, which the Elo intervals cannot
avoid; ``leaderboard`` draws 1,000). For
comparison, the Kendall tau of every question by a loop of ``scipy.stats.kendalltau`` and the
bootstrap refits by ``scipy.optimize.minimize`` one replicate at a time (20 replicates, scaled
to 200).

Run: .venv/bin/python benchmarks/bench_quality.py   (prints a markdown table; ~1 minute on 2 cores)
"""

from __future__ import annotations

import os
import time

import numpy as np
from scipy import special, stats

from bayesnoise.frequentist.elo import bradley_terry, elo, win_matrix
from bayesnoise.frequentist.quality import model_accuracy, question_table, win_rate

M, N, REPS, K, BOOT = 300, 3000, 200, 10, 1000


def best_of(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def data(seed=0):
    rng = np.random.default_rng(seed)
    ability = rng.normal(0.0, 1.0, M)
    difficulty = rng.normal(0.0, 1.5, N)
    prob = special.expit(ability[:, None] - difficulty[None, :])
    binary = (rng.random((M, N)) < prob).astype(float)
    fractional = rng.binomial(K, prob) / K
    return binary, fractional


def scipy_refits(p, reps, seed=1):
    """Bootstrap refits with scipy.optimize, one replicate at a time (what elo() batches)."""
    rng = np.random.default_rng(seed)
    n = p.shape[1]
    theta = bradley_terry(win_matrix(p))
    for _ in range(reps):
        counts = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)
        bradley_terry(win_matrix(p, counts), theta0=theta)


def main():
    binary, fractional = data()
    q = 1.0 - binary
    rows = []
    floor = best_of(lambda: binary @ q.T)
    rows.append(("numpy floor: one p @ (1 - p).T (300 x 3000 x 300)", floor))
    rows.append(
        (
            f"numpy floor: {REPS} such products (bootstrap wins)",
            REPS * best_of(lambda: binary @ q.T),
        )
    )
    rows.append((f"numpy floor: {BOOT} such products", BOOT * floor))
    rows.append(("question_table, 0/1 scores", best_of(lambda: question_table(binary))))
    rows.append(
        (f"question_table, fractional (K = {K})", best_of(lambda: question_table(fractional)))
    )
    acc = model_accuracy(binary)
    rows.append(
        (
            "Kendall tau by a scipy.stats.kendalltau loop, 0/1",
            best_of(lambda: [stats.kendalltau(binary[:, j], acc) for j in range(N)], 1),
        )
    )
    rows.append(("win_rate", best_of(lambda: win_rate(binary))))
    rows.append(("elo, point estimate only", best_of(lambda: elo(binary, n_resamples=0))))
    rows.append(
        (
            f"elo, {REPS} bootstrap replicates, 0/1",
            best_of(lambda: elo(binary, n_resamples=REPS), 1),
        )
    )
    rows.append(
        (
            f"elo, {REPS} bootstrap replicates, fractional",
            best_of(lambda: elo(fractional, n_resamples=REPS), 1),
        )
    )
    rows.append(
        (
            f"elo, {BOOT} bootstrap replicates (the leaderboard default), 0/1",
            best_of(lambda: elo(binary, n_resamples=BOOT), 1),
        )
    )
    rows.append(
        (
            f"{REPS} refits by scipy.optimize one at a time (20 timed, x10)",
            10 * best_of(lambda: scipy_refits(binary, 20), 1),
        )
    )
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{M} models x {N} questions, seeded synthetic Rasch data")
    print(f"{os.cpu_count()} cores, load average {load}\n")
    print("| step | seconds | x one matmul |")
    print("|---|---:|---:|")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.3f} | {seconds / floor:.1f} |")


if __name__ == "__main__":
    main()
