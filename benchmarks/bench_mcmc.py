"""Benchmark of the PyMC models: M = 50 models x N = 500 questions, K = 10.

Simulated correlated benchmark (models share question difficulties, as real evals do):
theta_m ~ Normal(0, 1), b_i ~ Normal(0, 1.5), u_mi ~ Beta(p phi, (1 - p) phi) with
p = logistic(theta_m - b_i), phi = 5, c_mi ~ Binomial(10, u_mi). Every configuration samples
2 chains x (1000 tune + 1000 draws) on 2 cores and reports: compile time (model to sampler-ready
function, including PyMC's initialisation), sampling time, min bulk ESS over mu and kappa (for
the joint model over mu and phi, its concentration), ESS per second of total wall time, and
divergences. Target: the marginal fit of all 50 models in < 60 s including compile, with
>= 1000 bulk ESS and 0 divergences.

Run:  python benchmarks/bench_mcmc.py [--configs marginal:pymc,marginal:nutpie,latent:pymc,joint:pymc]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

from bayesnoise import mcmc as hb

BUILDERS = {"marginal": hb.marginal_model, "latent": hb.latent_model, "joint": hb.joint_model}


def simulate(m=50, n=500, k=10, seed=0):
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, m)
    b = rng.normal(0, 1.5, n)
    p = 1 / (1 + np.exp(-(theta[:, None] - b[None, :])))
    u = rng.beta(p * 5.0, (1 - p) * 5.0)
    return rng.binomial(k, u)


def run(kind, sampler, correct, k, draws, tune, seed=1):
    start = time.perf_counter()
    model = BUILDERS[kind](correct, k)
    build = time.perf_counter() - start
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = hb.fit(
            model,
            sampler=sampler,
            draws=draws,
            tune=tune,
            chains=2,
            cores=2,
            random_seed=seed,
            progressbar=False,
            check=False,
        )
    wall = time.perf_counter() - start
    names = ["mu", "phi"] if kind == "joint" else ["mu", "kappa"]
    table = hb.diagnostics_table(tree, names)
    report = hb.check_convergence(tree, hb.diagnostics.default_var_names(kind), warn=False)
    ess = float(table["ess_bulk_min"].min())
    return {
        "model": kind,
        "sampler": sampler,
        "compile_s": round(build + tree.attrs["compile_time"], 1),
        "sampling_s": round(tree.attrs["sampling_time"], 1),
        "total_s": round(wall, 1),
        "min_bulk_ess": round(ess),
        "ess_per_s": round(ess / wall, 1),
        "max_r_hat": round(float(table["r_hat_max"].max()), 3),
        "divergences": report.divergences,
        "diagnostics_ok": report.ok,
        "problems": report.message()[:120],
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", default="marginal:pymc,marginal:nutpie,latent:pymc,joint:pymc")
    ap.add_argument("--models", type=int, default=50)
    ap.add_argument("--questions", type=int, default=500)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--tune", type=int, default=1000)
    ap.add_argument("--out", help="also write the table as CSV")
    args = ap.parse_args(argv)
    correct = simulate(args.models, args.questions, args.count)
    rows = []
    for cfg in args.configs.split(","):
        kind, sampler = cfg.split(":")
        rows.append(run(kind, sampler, correct, args.count, args.draws, args.tune))
        print(pd.DataFrame(rows[-1:]).to_string(index=False, header=len(rows) == 1), flush=True)
    df = pd.DataFrame(rows)
    print(
        f"\nM={args.models} x N={args.questions}, K={args.count}; 2 chains x "
        f"({args.tune} tune + {args.draws} draws)\n"
    )
    print(df.to_markdown(index=False) if _has_tabulate() else df.to_string(index=False))
    if args.out:
        df.to_csv(args.out, index=False)
    return df


def _has_tabulate():
    import importlib.util

    return importlib.util.find_spec("tabulate") is not None


if __name__ == "__main__":
    main()
