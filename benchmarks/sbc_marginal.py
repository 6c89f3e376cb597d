"""Simulation-based calibration (SBC) of the marginal Beta-Binomial model.

For each simulated dataset: draw (mu, kappa) from the default priors, simulate N questions with
K samples each, fit ``marginal_model`` by NUTS and record the rank of the true mu and kappa among
L = 99 posterior draws thinned evenly from the chains. If the sampler and the model are right,
the ranks are uniform on 0..99 (Talts et al. 2018); we test 10-bin rank histograms with a
chi-square test (pass: p > 0.01).

Several datasets share one fit: the marginal model has independent priors per ``model`` and a
likelihood that factorises over models, so the posterior of model m's (mu, kappa) depends only
on model m's data, and fitting M datasets as M "models" gives M independent SBC replicates
(only the NUTS step size and mass matrix adaptation are shared). This keeps >= 200 datasets
within minutes on 2 cores.

Run:  python benchmarks/sbc_marginal.py [--fits 25 --per-fit 10 --questions 50 --count 5]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np
from scipy import stats

from bayesnoise.mcmc import DEFAULT_PRIORS, fit, marginal_model
from bayesnoise.mcmc.diagnostics import check_convergence

L_DRAWS = 99
BINS = 10


def simulate(rng, n_models, n_questions, count, priors=DEFAULT_PRIORS):
    mu = rng.beta(priors.mu_alpha, priors.mu_beta, size=n_models)
    kappa = np.exp(rng.normal(np.log(priors.kappa_median), priors.kappa_log_sd, size=n_models))
    a = np.maximum(mu * kappa, 1e-12)[:, None]
    b = np.maximum((1 - mu) * kappa, 1e-12)[:, None]
    u = rng.beta(a, b, size=(n_models, n_questions))
    return mu, kappa, rng.binomial(count, u)


def ranks(tree, name, truth):
    draws = tree["posterior"][name].transpose("chain", "draw", "model").values
    draws = draws.reshape(-1, draws.shape[-1])
    idx = np.linspace(0, len(draws) - 1, L_DRAWS).round().astype(int)
    return (draws[idx] < truth[None, :]).sum(axis=0)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--fits", type=int, default=25)
    p.add_argument("--per-fit", type=int, default=10)
    p.add_argument("--questions", type=int, default=50)
    p.add_argument("--count", type=int, default=5)
    p.add_argument("--draws", type=int, default=1000)
    p.add_argument("--sampler", default="pymc")
    p.add_argument("--seed", type=int, default=20240)
    p.add_argument("--out", help="write the ranks and results as JSON")
    args = p.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    r_mu, r_kappa = [], []
    divergences = 0
    worst = []
    start = time.perf_counter()
    for f in range(args.fits):
        mu, kappa, c = simulate(rng, args.per_fit, args.questions, args.count)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = fit(
                marginal_model(c, args.count),
                sampler=args.sampler,
                draws=args.draws,
                tune=1000,
                chains=2,
                rng=args.seed + f,
                progress=False,
                derived=False,
                check=False,
            )
        report = check_convergence(tree, ["mu", "kappa"], warn=False)
        divergences += report.divergences
        worst.append(report.table["ess_bulk_min"].min())
        r_mu.extend(ranks(tree, "mu", mu).tolist())
        r_kappa.extend(ranks(tree, "kappa", kappa).tolist())
        print(
            f"fit {f + 1}/{args.fits}: {time.perf_counter() - start:.0f} s, "
            f"min bulk ESS {worst[-1]:.0f}, divergences {report.divergences}",
            flush=True,
        )
    results = {
        "datasets": len(r_mu),
        "L": L_DRAWS,
        "bins": BINS,
        "divergences": divergences,
        "min_bulk_ess": float(np.min(worst)),
        "seconds": time.perf_counter() - start,
    }
    print(
        f"\nSBC of marginal_model: {len(r_mu)} datasets (N={args.questions}, K={args.count}), "
        f"L={L_DRAWS} thinned draws, {BINS}-bin rank histograms"
    )
    for name, r in (("mu", r_mu), ("kappa", r_kappa)):
        hist = np.bincount(np.asarray(r) * BINS // (L_DRAWS + 1), minlength=BINS)
        chi2 = stats.chisquare(hist)
        results[name] = {
            "histogram": hist.tolist(),
            "chi2": float(chi2.statistic),
            "p_value": float(chi2.pvalue),
            "pass": bool(chi2.pvalue > 0.01),
        }
        print(
            f"  {name:6s} histogram {hist.tolist()}  chi2 {chi2.statistic:6.2f}  "
            f"p = {chi2.pvalue:.3f}  {'PASS' if chi2.pvalue > 0.01 else 'FAIL'}"
        )
    print(
        f"  divergences {divergences}, smallest bulk ESS {np.min(worst):.0f}, "
        f"{results['seconds']:.0f} s"
    )
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(results | {"ranks_mu": r_mu, "ranks_kappa": r_kappa}, fh)
    return results


if __name__ == "__main__":
    main()
