"""Parametrisation trials of the crossed model at 10 x 500 x 5 x K = 4 (CPU time, r_hat, ESS).

Run: ``python benchmarks/trial_noises_mcmc.py --centred question --draws 500 --tune 500``;
prints one markdown table row (CPU seconds of this process, its threads included).
"""

from __future__ import annotations

import argparse
import resource
import time
import warnings

import numpy as np

import bayesnoise as bn
from bayesnoise.mcmc.crossed import sample_crossed
from benchmarks.bench_noises_mcmc import simulate


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--centred", nargs="*", default=[])
    p.add_argument("--draws", type=int, default=500)
    p.add_argument("--tune", type=int, default=500)
    p.add_argument("--models", type=int, default=10)
    p.add_argument("--target-accept", type=float, default=0.9)
    p.add_argument("--adaptation", default=None)
    p.add_argument("--question-sums", action="store_true")
    args = p.parse_args(argv)
    df = simulate(np.random.default_rng(0), models=args.models)
    df["question"] = df["question"].astype(str)
    models = sorted(df["model"].unique())
    agg = df.groupby(["model", "question", "template"])["score"].agg(["sum", "count"])
    n_q, n_t = df["question"].nunique(), df["template"].nunique()
    correct = agg["sum"].to_numpy().reshape(len(models), n_q, n_t)
    count = agg["count"].to_numpy().reshape(len(models), n_q, n_t)
    freq = bn.noises(bn.load(df, factors=["template"]))
    c0, w0 = cpu(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = sample_crossed(
            correct,
            count,
            draws=args.draws,
            tune=args.tune,
            progress=False,
            centred=tuple(args.centred),
            target_accept=args.target_accept,
            adaptation=args.adaptation,
            question_sums=args.question_sums,
        )
    c1, w1 = cpu(), time.perf_counter()
    t = fit["diagnostics"].table
    est = freq["accuracy_templates"].sel(model=models).values
    se = freq["se_templates"].sel(model=models).values
    z = (fit["population"].mean(0) - est) / se
    est2 = freq["accuracy_these_templates"].sel(model=models).values
    se2 = freq["se_these_templates"].sel(model=models).values
    z2 = (fit["these"].mean(0) - est2) / se2
    print(t.to_string())
    print(
        f"| centred: {','.join(args.centred) or 'none'}; {args.adaptation or 'diag'}; "
        f"question_sums {args.question_sums}; "
        f"{args.draws}+{args.tune} | "
        f"{c1 - c0:.0f} s CPU ({w1 - w0:.0f} s wall) | {t['r_hat_max'].max():.3f} | "
        f"{t['ess_bulk_min'].min():.0f} / {t['ess_tail_min'].min():.0f} | "
        f"{fit['diagnostics'].divergences} | {z.min():+.2f} to {z.max():+.2f} / "
        f"{z2.min():+.2f} to {z2.max():+.2f} |",
        flush=True,
    )


if __name__ == "__main__":
    main()
