"""Is P(best) calibrated? Reliability tables of ``rank_table`` in simulation.

Per replicate: M models whose population accuracies are theta_m = 0.6 + tau z_m, z_m standard
normal, with the spread tau drawn afresh, tau ~ Uniform(0, 0.5 / sqrt(N)) (from models that
are all alike to leaders about one binomial SE ahead; ``--spread halfcauchy`` draws it from the
hierarchical method's own prior instead, where a Bayesian P(best) is calibrated by
construction, so the two designs separate a defect of the method from a mismatch between its
prior and the simulated spreads). Questions: b_mi = Phi(rho g_i +
sqrt(1 - rho^2) e_mi) is uniform on (0, 1) for every model and correlated across models
(rho = 0.7, shared difficulty g_i), and u_mi = b_mi^(1 / theta_m - 1), whose population mean is
exactly theta_m (E b^a = 1 / (1 + a)). K samples per question ~ Binomial(K, u_mi).

Truth: ``hierarchical`` and ``bootstrap`` speak about the population, so "truly best" is
argmax theta; ``bayes`` speaks about these questions, so it is argmax_m mean_i u_mi.
The stated P(best) of all M models of all replicates are binned; a calibrated method has the
frequency of "truly best" in each bin equal to the bin's mean stated P(best). MCSE of the
frequency: sqrt(f (1 - f) / n) with f the mean stated P(best) (binomial; the M models of one
replicate are negatively dependent, since exactly one is best, which makes this conservative).
z = (frequency - mean stated) / MCSE. ECE: the bin-size weighted mean |frequency - stated|.

Run: ``.venv/bin/python benchmarks/simulation_ranks.py [--reps 1000] [--methods ...]``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import time
import warnings

import numpy as np
from scipy import special

from bayesnoise.data import from_arrays
from bayesnoise.decide import rank_table

EDGES = np.array([0.0, 0.05, 0.2, 0.4, 0.6, 0.8, 0.95, 1.0 + 1e-9])


def simulate(rng, m, n, k, rho=0.7, center=0.6, spread="uniform"):
    """One replicate: counts (M, N), population accuracies theta (M,), these-question means.

    ``spread="uniform"``: tau ~ Uniform(0, 0.5 / sqrt(N)). ``"halfcauchy"``: tau from the
    prior the hierarchical method assumes, half-Cauchy with the scale of one standard error,
    here the binomial SE sqrt(center (1 - center) / N) of an accuracy at K = 1 (its own prior
    scale is the root mean square SE of the file's estimates, which equals this at K = 1 up
    to sampling error), truncated at 0.5.
    """
    if spread == "halfcauchy":
        scale = np.sqrt(center * (1 - center) / n)
        tau = np.inf
        while tau > 0.5:
            tau = abs(scale * rng.standard_cauchy())
    else:
        tau = rng.uniform(0.0, 0.5 / np.sqrt(n))
    theta = np.clip(center + tau * rng.standard_normal(m), 0.05, 0.95)
    g = rng.standard_normal(n)
    b = special.ndtr(rho * g + np.sqrt(1 - rho**2) * rng.standard_normal((m, n)))
    u = b ** (1.0 / theta - 1.0)[:, None]
    return rng.binomial(k, u), theta, u.mean(axis=1)


def run_cell(rng, method, m, n, k, reps, draws, spread="uniform"):
    stated, hit = [], []
    names = [f"m{j}" for j in range(m)]
    for r in range(reps):
        correct, theta, ubar = simulate(rng, m, n, k, spread=spread)
        ds = from_arrays(correct, np.full((m, n), k), models=names)
        table = rank_table(ds, model=method, n_resamples=draws, rng=r).set_index("model")
        stated.extend(table.loc[names, "prob_best"])
        best = np.argmax(ubar if method == "bayes" else theta)
        hit.extend(np.arange(m) == best)
    return np.array(stated), np.array(hit, dtype=float)


def reliability(stated, hit):
    """Rows (bin, n, mean stated, frequency, MCSE, z) and the ECE."""
    rows, ece = [], 0.0
    for lo, hi in itertools.pairwise(EDGES):
        sel = (stated >= lo) & (stated < hi)
        n = int(sel.sum())
        if n == 0:
            continue
        mean, freq = stated[sel].mean(), hit[sel].mean()
        mcse = np.sqrt(max(mean * (1 - mean), 1e-12) / n)
        rows.append((f"[{lo:.2f}, {min(hi, 1.0):.2f}]", n, mean, freq, mcse, (freq - mean) / mcse))
        ece += n * abs(freq - mean)
    return rows, ece / stated.size


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000, help="replicates per cell")
    ap.add_argument("--draws", type=int, default=1000, help="draws per rank_table")
    ap.add_argument("--models", type=int, nargs="+", default=[6])
    ap.add_argument("--k", type=int, nargs="+", default=[1, 10])
    ap.add_argument("--n", type=int, nargs="+", default=[100, 500])
    ap.add_argument("--methods", nargs="+", default=["bootstrap", "hierarchical", "bayes"])
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument(
        "--spread",
        choices=("uniform", "halfcauchy"),
        default="uniform",
        help="how the models' true spread tau is drawn (see simulate)",
    )
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    print(
        f"{args.reps} replicates per cell, {args.draws} draws, tau {args.spread}, "
        f"load {os.getloadavg()[0]:.2f}"
    )
    print(
        "| method | M | N | K | bin of stated P(best) | models | mean stated | freq. best "
        "| MCSE | z |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    summary = []
    for method, m, n, k in itertools.product(args.methods, args.models, args.n, args.k):
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # K = 1: no data/prediction split (irrelevant)
            stated, hit = run_cell(rng, method, m, n, k, args.reps, args.draws, args.spread)
        rows, ece = reliability(stated, hit)
        for label, count, mean, freq, mcse, z in rows:
            print(
                f"| {method} | {m} | {n} | {k} | {label} | {count} | {mean:.3f} | "
                f"{freq:.3f} | {mcse:.3f} | {z:+.1f} |",
                flush=True,
            )
        brier = np.mean((stated - hit) ** 2)
        top = stated >= 0.8
        summary.append(
            (
                method,
                m,
                n,
                k,
                ece,
                brier,
                stated[top].mean(),
                hit[top].mean(),
                top.sum(),
                time.perf_counter() - t0,
            )
        )
    print(
        "\n| method | M | N | K | ECE | Brier | stated P(best) >= 0.8: mean | freq. best "
        "| models | seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for method, m, n, k, ece, brier, mt, ft, nt, sec in summary:
        print(
            f"| {method} | {m} | {n} | {k} | {ece:.4f} | {brier:.4f} | {mt:.3f} | {ft:.3f} "
            f"| {nt} | {sec:.1f} |"
        )
    print(f"\ntotal {time.perf_counter() - start:.0f} s, load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
