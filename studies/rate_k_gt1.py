"""Coverage of ``bn.rate``'s intervals at K > 1 (the prior on the Beta hierarchy's mu).

The truth is the population mean rate E[u] of the question accuracies u. Two populations:
a Beta (the hierarchy is right) and a two-point one (questions nearly always or nearly never
solved, like CRUXEval's: the Beta hierarchy is misspecified). Reports, per cell, how often the
95% credible interval (rate_low/high, uniform prior) and the two-sided t interval on the
per-question means (rate_t_low/high) contain E[u], with the Monte Carlo SE, and the mean bias
of the posterior mean in units of its posterior sd.

    python studies/rate_k_gt1.py [--reps 200] [--out benchmarks/results/rate_k_gt1.md]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

import bayesnoise as bn


def draw_u(rng, population: str, n: int, mean: float) -> np.ndarray:
    if population == "beta":
        kappa = 2.0
        return rng.beta(mean * kappa, (1 - mean) * kappa, n)
    lo, hi = 0.05, 0.9  # two-point: P(hi) chosen so that E[u] = mean
    w = (mean - lo) / (hi - lo)
    return np.where(rng.random(n) < w, hi, lo)


def cell(population, n, k, mean, reps, rng):
    hits_b = hits_t = 0
    bias = []
    for _ in range(reps):
        u = draw_u(rng, population, n, mean)
        c = rng.binomial(k, u)[None, :]
        ds = bn.from_arrays(c, np.full((1, n), k), models=["m"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = bn.rate(ds, alternative="two-sided")
        hits_b += float(r["rate_low"][0]) <= mean <= float(r["rate_high"][0])
        hits_t += float(r["rate_t_low"][0]) <= mean <= float(r["rate_t_high"][0])
        bias.append((float(r["rate"][0]) - mean) / float(r["rate_sd"][0]))
    cov_b, cov_t = hits_b / reps, hits_t / reps
    se = np.sqrt(0.95 * 0.05 / reps)
    return cov_b, cov_t, se, float(np.mean(bias))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--out", default="benchmarks/results/rate_k_gt1.md")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(30)
    lines = [
        "# bn.rate at K > 1: coverage of E[u] (95%, uniform prior on mu)",
        "",
        f"{args.reps} replicates per cell; MCSE of a coverage near 0.95 = "
        f"{np.sqrt(0.95 * 0.05 / args.reps):.3f}. studies/rate_k_gt1.py, rng 30.",
        "",
        "| population | N | K | E[u] | credible (rate_low/high) | t (rate_t_low/high) | "
        "mean (rate - E[u]) / rate_sd |",
        "|---|---|---|---|---|---|---|",
    ]
    for population in ("beta", "two-point"):
        for n in (50, 400):
            for k in (5,):
                for mean in (0.4, 0.85):
                    cb, ct, _se, b = cell(population, n, k, mean, args.reps, rng)
                    lines.append(
                        f"| {population} | {n} | {k} | {mean} | {cb:.3f} | {ct:.3f} | {b:+.2f} |"
                    )
                    print(lines[-1], flush=True)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
