"""Time of the crossed Bayesian model (``bn.noises(method="mcmc")``) at 10 models x 500
questions x 5 templates x K = 4 runs, with its diagnostics and its agreement with the
frequentist estimates (posterior mean - estimate, in frequentist SEs).

Run: ``python benchmarks/bench_noises_mcmc.py [--draws 1000 --tune 1000]``; writes
``benchmarks/results/noises_mcmc.md``.
"""

from __future__ import annotations

import argparse
import resource
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special

import bayesnoise as bn


def simulate(rng, models=10, n=500, t=5, k=4):
    """Long table from the logit model of studies/noises.py (shared question and template
    effects; per-model template and question x template effects)."""
    u = rng.normal(0, 1.2, (n, 1))
    v = rng.normal(0, 0.4, (1, t))
    frames = []
    for i in range(models):
        alpha = -0.5 + 1.5 * i / max(models - 1, 1)
        p = special.expit(alpha + u + v + rng.normal(0, 0.25, (1, t)) + rng.normal(0, 0.6, (n, t)))
        scores = rng.random((n, t, k)) < p[..., None]
        q, tt, r = np.meshgrid(np.arange(n), np.arange(t), np.arange(k), indexing="ij")
        frames.append(
            pd.DataFrame(
                {
                    "model": f"m{i}",
                    "question": q.ravel(),
                    "template": tt.ravel(),
                    "run": r.ravel(),
                    "score": scores.ravel().astype(int),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--draws", type=int, default=1000)
    p.add_argument("--tune", type=int, default=1000)
    p.add_argument("--chains", type=int, default=2)
    p.add_argument("--models", type=int, default=10)
    p.add_argument("--out", type=Path, default=Path("benchmarks/results/noises_mcmc.md"))
    args = p.parse_args(argv)
    df = simulate(np.random.default_rng(0), models=args.models)
    ds = bn.load(df, factors=["template"])
    start = time.perf_counter()
    freq = bn.noises(ds)
    freq_seconds = time.perf_counter() - start
    start = time.perf_counter()
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bayes = bn.noises(
            ds, method="mcmc", draws=args.draws, tune=args.tune, chains=args.chains, progress=False
        )
    seconds = time.perf_counter() - start
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime
    est = freq["accuracy_templates"]
    z = (bayes["accuracy_templates_mcmc"] - est) / freq["se_templates"]
    z_these = (bayes["accuracy_these_templates_mcmc"] - freq["accuracy_these_templates"]) / freq[
        "se_these_templates"
    ]
    a = bayes.attrs
    sizes = f"{args.models} models x 500 questions x 5 templates x K = 4"
    lines = [
        "# Crossed Bayesian model: time and diagnostics (benchmarks/bench_noises_mcmc.py)",
        "",
        f"{sizes}; {args.chains} chains x {args.draws} draws (+ {args.tune} tuning), "
        f"sampler nutpie when installed; 2-core machine shared with other jobs.",
        "",
        f"- CPU time of bn.noises(method='mcmc') (this process, its sampler threads "
        f"included): {cpu:.0f} s; wall time {seconds:.0f} s (sampling "
        f"{a['seconds']:.0f} s); frequentist bn.noises: {freq_seconds:.2f} s",
        f"- r_hat max {a['r_hat_max']:.4f}, bulk ESS min {a['ess_bulk_min']:.0f}, "
        f"divergences {a['divergences']}, converged (r_hat <= 1.01, ESS >= 400, no "
        f"divergence): {a['converged']}",
        f"- warnings: {'; '.join(str(w.message)[:160] for w in caught) or 'none'}",
        "- posterior mean - frequentist estimate, in frequentist SEs, per model: over the "
        "template population " + ", ".join(f"{v:+.2f}" for v in z.values) + "; over these "
        "templates " + ", ".join(f"{v:+.2f}" for v in z_these.values),
        "",
        "| model | accuracy_templates | se_templates | accuracy_templates_mcmc | low | high |",
        "|---|---|---|---|---|---|",
    ]
    for m in freq["model"].values:
        lines.append(
            f"| {m} | {float(est.sel(model=m)):.4f} | {float(freq['se_templates'].sel(model=m)):.4f}"
            f" | {float(bayes['accuracy_templates_mcmc'].sel(model=m)):.4f}"
            f" | {float(bayes['accuracy_templates_mcmc_low'].sel(model=m)):.4f}"
            f" | {float(bayes['accuracy_templates_mcmc_high'].sel(model=m)):.4f} |"
        )
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
