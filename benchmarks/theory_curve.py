"""Beta(p, 1-p) theory vs the empirical all-pairs total SE of close pairs (paper Figure 1).

For every all-the-noises benchmark in ../shared/data: the frequentist paired total SE of each
close pair (|difference| < 5 se_total, as in the paper), against the theory's prediction
sqrt(2 p (1 - p) kappa / (kappa + 1) / N) at p = the pair's mean accuracy, with kappa = 1
(Beta(p, 1-p)) and with one kappa fitted per benchmark (models pooled in 5 accuracy bins,
Figure 6 of the paper; independent of the pair SEs). Prints median ratio empirical / theory
and its 10-90% spread.

Run: ``.venv/bin/python benchmarks/theory_curve.py``
"""

from __future__ import annotations

import glob
import warnings
from pathlib import Path

import numpy as np

from bayesnoise.conjugate import benchmark_kappa, theory_se_difference

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def main() -> None:
    from bayesnoise import complete, load
    from bayesnoise.frequentist import pair_noise

    files = sorted(glob.glob(str(DATA / "all-the-noises" / "*" / "input_table_*.csv")))
    if not files:
        print("no shared data")
        return
    print("ratio = empirical SE_total(A-B) / theory, close pairs; kappa_b = fitted per benchmark")
    left = f"{'k=1 med':>7s} {'q10':>5s} {'q90':>5s}"
    right = f"{'kappa_b':>7s} {'med':>6s} {'q10':>5s} {'q90':>5s}"
    print(f"{'run/benchmark':42s} {'N':>5s} {'pairs':>5s} | {left} | {right}")
    meds1, medsb = [], []
    for f in files:
        name = f.split("all-the-noises/")[1].replace("input_table_", "").replace(".csv", "")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ds = complete(load(f), on_missing="intersect")
            if ds.sizes["model"] < 4:
                continue
            fr = pair_noise(ds)
            c, k = ds["correct"].values, ds["samples"].values
            kap, _ = benchmark_kappa(c, k, bins=5)
        n = ds.sizes["question"]
        p = (fr["accuracy_a"].to_numpy() + fr["accuracy_b"].to_numpy()) / 2
        se = fr["se_total"].to_numpy()
        close = (np.abs(fr["difference"].to_numpy()) < 5 * se) & (se > 0) & (p > 0) & (p < 1)
        if close.sum() < 3:
            continue
        r1 = se[close] / theory_se_difference(p[close], n, 1.0)
        rb = se[close] / theory_se_difference(p[close], n, kap)
        meds1.append(np.median(r1))
        medsb.append(np.median(rb))
        q1 = f"{np.quantile(r1, 0.1):5.2f} {np.quantile(r1, 0.9):5.2f}"
        qb = f"{np.quantile(rb, 0.1):5.2f} {np.quantile(rb, 0.9):5.2f}"
        left = f"{np.median(r1):7.3f} {q1}"
        right = f"{kap:7.3f} {np.median(rb):6.3f} {qb}"
        print(f"{name:42s} {n:5d} {close.sum():5d} | {left} | {right}")
    fixed = f"{np.median(meds1):.3f} (range {min(meds1):.2f}-{max(meds1):.2f})"
    fitted = f"{np.median(medsb):.3f} (range {min(medsb):.2f}-{max(medsb):.2f})"
    print(
        f"across {len(meds1)} benchmarks: median of median ratios kappa=1: {fixed}; "
        f"fitted kappa: {fitted}"
    )


if __name__ == "__main__":
    main()
