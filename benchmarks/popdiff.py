"""Population paired difference: coverage, width and power of the candidate intervals (issue 20).

Runs :func:`studies.popdiff.study_cell` over a grid and prints one markdown table per kind
(frequentist, Bayesian): per cell and method the coverage under the null and under the shift
(with binomial Monte Carlo SE), the median width over the t interval's, and the power over the
t test's (with its delta-method Monte Carlo SE), then a summary of the cells where issue 20's
acceptance applies (N >= 30 and K >= 5, or N >= 100 at K = 1) that each method meets within
2 MCSE. Timing floor: the seconds the paired t intervals alone take on the same replicates.

Usage::

    nice -n 10 .venv/bin/python benchmarks/popdiff.py --n 30,100,500,2000 --replicates 400 \\
        --csv /tmp/popdiff.csv

``--methods`` picks the rows (default: the pre-issue-20 and the current defaults and the t
interval); ``--from-csv`` re-prints a table from a saved run.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studies import popdiff

DEFAULT_METHODS = ("t", "union", "package", "dp1", "dp1_m", "package_bayes")


def _fmt(p, se):
    return f"{p:.3f} ({se:.3f})"


def markdown(df: pd.DataFrame, methods) -> str:
    rows = df[df["method"].isin(methods)]
    lines = []
    for kind, sub in rows.groupby("kind", sort=False):
        lines.append(f"\n### {kind}\n")
        lines.append(
            "| shape | N | K | mu | method | cov null (MCSE) | cov shift (MCSE) | "
            "width / t | power / t (MCSE) | t power |"
        )
        lines.append("|---|---|---|---|---|---|---|---|---|---|")
        for r in sub.itertuples():
            lines.append(
                f"| {r.shape} | {r.N} | {r.K} | {r.mu:g} | {r.method} | "
                f"{_fmt(r.cov_null, r.cov_null_se)} | {_fmt(r.cov_shift, r.cov_shift_se)} | "
                f"{r.width_ratio:.2f} | {_fmt(r.power_ratio, r.power_ratio_se)} | "
                f"{r.power_t:.2f} |"
            )
    return "\n".join(lines)


def acceptance(df: pd.DataFrame, methods, c: float = 2.0) -> str:
    sub = df[popdiff.in_target(df) & df["method"].isin(methods)].copy()
    cov_ok = np.ones(len(sub), bool)
    for col in ("cov_null", "cov_shift"):
        se = sub[f"{col}_se"]
        cov_ok &= (sub[col] >= 0.93 - c * se) & (sub[col] <= 0.97 + c * se)
    sub["pass"] = (
        cov_ok
        & (sub["width_ratio"].fillna(np.inf) <= 1.3)
        & (sub["power_ratio"].fillna(1) >= 0.9 - c * sub["power_ratio_se"].fillna(0))
    )
    g = sub.groupby(["kind", "method"])
    out = pd.DataFrame(
        {
            "cells": g.size().astype(int),
            "pass": g["pass"].sum().astype(int),
            "cov_min": g[["cov_null", "cov_shift"]].min().min(axis=1).round(3),
            "cov_max": g[["cov_null", "cov_shift"]].max().max(axis=1).round(3),
            "width_max": g["width_ratio"].max().round(2),
            "power_ratio_min": g["power_ratio"].min().round(2),
        }
    )
    head = "| kind | method | " + " | ".join(out.columns) + " |"
    lines = [head, "|" + "---|" * (len(out.columns) + 2)]
    for (kind, method), row in out.iterrows():
        lines.append(f"| {kind} | {method} | " + " | ".join(str(v) for v in row) + " |")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="30,100")
    ap.add_argument("--k", default=",".join(map(str, popdiff.K_GRID)))
    ap.add_argument("--mu", default=",".join(map(str, popdiff.MU_GRID)))
    ap.add_argument("--shapes", default=",".join(popdiff.SHAPES))
    ap.add_argument("--replicates", type=int, default=400)
    ap.add_argument("--methods", default=",".join(DEFAULT_METHODS))
    ap.add_argument("--csv")
    ap.add_argument("--from-csv")
    ap.add_argument("--log", default=None, help="progress log file (default: stderr)")
    args = ap.parse_args(argv)
    methods = args.methods.split(",")
    log = open(args.log, "a") if args.log else sys.stderr
    if args.from_csv:
        df = pd.read_csv(args.from_csv)
        floor = float("nan")
    else:
        frames, t0, floor = [], time.perf_counter(), 0.0
        cells = itertools.product(
            args.shapes.split(","),
            [int(x) for x in args.n.split(",")],
            [int(x) for x in args.k.split(",")],
            [float(x) for x in args.mu.split(",")],
        )
        for shape, n, k, mu in cells:
            bayes = [m for m in methods if m in popdiff.BAYES]
            frames.append(
                popdiff.study_cell(shape, n, k, mu, replicates=args.replicates, bayes=bayes)
            )
            rng = np.random.default_rng(0)
            pa, pb, _, _ = popdiff.simulate_pairs(shape, n, k, mu, args.replicates, rng)
            s0 = time.perf_counter()
            popdiff.t_interval(pa - pb)
            floor += time.perf_counter() - s0
            print(f"{time.perf_counter() - t0:.0f}s {shape} N={n} K={k} mu={mu}", file=log)
            log.flush()
        df = pd.concat(frames, ignore_index=True)
        if args.csv:
            df.to_csv(args.csv, index=False)
    print(markdown(df, methods))
    print("\n### acceptance (cells meeting it within 2 MCSE)\n")
    print(acceptance(df, methods))
    print(
        f"\nseconds: study {df.groupby(['shape', 'N', 'K', 'mu'])['seconds'].max().sum():.1f}, "
        f"floor (t intervals alone) {floor:.3f}"
    )


if __name__ == "__main__":
    main()
