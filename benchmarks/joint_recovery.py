"""Parameter recovery of the joint model on simulated correlated data.

Each dataset: M models answer the same N questions K times. Data are generated from the joint
model's structure with realistic, fixed-range parameters (not from its priors)::

    theta_m ~ Normal(0, 1), b_i ~ Normal(0, sigma_b), sigma_b ~ Uniform(1, 2.5),
    phi_m ~ LogUniform(2, 30), u_mi ~ Beta(p phi, (1-p) phi), p = logistic(theta_m - b_i),
    c_mi ~ Binomial(K, u_mi)

and ``joint_model`` is fitted by NUTS. For every pair we check whether the 95% credible interval
covers (a) the true finite-sample paired difference dbar = mean_i(u_ai - u_bi) and (b) the true
population difference mu_a - mu_b, mu_m = E_b[logistic(theta_m - b)] (Gauss-Hermite with the
true sigma_b). Coverage should be 0.95 within Monte Carlo error: the binomial standard error
sqrt(0.95 * 0.05 / n) over the n pair-intervals; we report the 99% band +- 2.58 se (pairs of a
dataset share data, so the effective n is a bit smaller). As a yardstick for the luck of the
seeds we also report the coverage, on the same datasets, of the oracle posterior of dbar given
the true parameters (exactly calibrated on average).

Run:  python benchmarks/joint_recovery.py [--datasets 100 --models 3 --questions 100 --count 5]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np

from bayesnoise.mcmc import fit, joint_model
from bayesnoise.mcmc.diagnostics import check_convergence, default_var_names

LEVEL = 0.95


def population_accuracy(theta, sigma_b, nodes=64):
    x, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()
    return (1 / (1 + np.exp(-(theta[:, None] - sigma_b * x[None, :])))) @ w


def simulate(rng, m, n, k):
    theta = rng.normal(0, 1, m)
    sigma_b = rng.uniform(1.0, 2.5)
    b = rng.normal(0, sigma_b, n)
    phi = np.exp(rng.uniform(np.log(2), np.log(30), m))
    p = 1 / (1 + np.exp(-(theta[:, None] - b[None, :])))
    u = rng.beta(p * phi[:, None], (1 - p) * phi[:, None])
    c = rng.binomial(k, u)
    dbar = u.mean(axis=1)[:, None] - u.mean(axis=1)[None, :]
    mu = population_accuracy(theta, sigma_b)
    # oracle: exact posterior of dbar given the TRUE parameters (independent Betas), whose
    # 95% interval (normal approximation to a sum of N Betas) covers at exactly the nominal
    # rate on average; its coverage on these same datasets shows how lucky the seeds are.
    a = p * phi[:, None] + c
    b_ = (1 - p) * phi[:, None] + k - c
    m, v = a / (a + b_), a * b_ / ((a + b_) ** 2 * (a + b_ + 1))
    o_mean = m.mean(axis=1)[:, None] - m.mean(axis=1)[None, :]
    o_sd = np.sqrt(v.sum(axis=1)[:, None] + v.sum(axis=1)[None, :]) / n
    oracle_hit = np.abs(o_mean - dbar) <= 1.959964 * o_sd
    return c, dbar, mu[:, None] - mu[None, :], oracle_hit


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=int, default=100)
    ap.add_argument("--models", type=int, default=3)
    ap.add_argument("--questions", type=int, default=100)
    ap.add_argument("--count", type=int, default=5)
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--sampler", default="pymc")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out")
    ap.add_argument("--oracle-only", action="store_true", help="skip MCMC: oracle coverage only")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    ia, ib = np.triu_indices(args.models, k=1)
    hit_d, hit_p, width_d, width_p, hit_o = [], [], [], [], []
    bad_fits = 0
    divergences = 0
    start = time.perf_counter()
    q = [(1 - LEVEL) / 2, (1 + LEVEL) / 2]
    for s in range(args.datasets):
        c, d_true, p_true, oracle = simulate(rng, args.models, args.questions, args.count)
        hit_o.extend(oracle[ia, ib].tolist())
        if args.oracle_only:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = fit(
                joint_model(c, args.count),
                sampler=args.sampler,
                draws=args.draws,
                tune=1000,
                chains=2,
                rng=args.seed + s,
                progress=False,
                check=False,
            )
        rep = check_convergence(tree, default_var_names("joint"), warn=False)
        bad_fits += not rep.ok
        divergences += rep.divergences
        post = tree["posterior"]
        for name, truth, hits, widths in (
            ("dbar", d_true, hit_d, width_d),
            ("population_difference", p_true, hit_p, width_p),
        ):
            x = post[name].transpose("chain", "draw", "model_a", "model_b").values
            x = x.reshape(-1, args.models, args.models)[:, ia, ib]
            lo, hi = np.quantile(x, q, axis=0)
            t = truth[ia, ib]
            hits.extend(((lo <= t) & (t <= hi)).tolist())
            widths.extend((hi - lo).tolist())
        print(
            f"dataset {s + 1}/{args.datasets}: {time.perf_counter() - start:.0f} s, "
            f"covered dbar {np.mean(hit_d):.3f} population {np.mean(hit_p):.3f} "
            f"(oracle dbar {np.mean(hit_o):.3f})"
            f"{'' if rep.ok else '  [diagnostics: ' + rep.message() + ']'}",
            flush=True,
        )
    if args.oracle_only:
        print(f"oracle dbar coverage over {args.datasets} datasets: {np.mean(hit_o):.3f}")
        return {"coverage_oracle_dbar": float(np.mean(hit_o))}
    n = len(hit_d)
    se = np.sqrt(LEVEL * (1 - LEVEL) / n)
    res = {
        "datasets": args.datasets,
        "pairs": n,
        "mc_se": se,
        "coverage_dbar": float(np.mean(hit_d)),
        "coverage_population": float(np.mean(hit_p)),
        "coverage_oracle_dbar": float(np.mean(hit_o)),
        "mean_width_dbar": float(np.mean(width_d)),
        "mean_width_population": float(np.mean(width_p)),
        "fits_with_diagnostic_warnings": bad_fits,
        "divergences": divergences,
        "seconds": time.perf_counter() - start,
    }
    print(
        f"\nJoint-model recovery: {args.datasets} datasets x {len(ia)} pairs "
        f"(M={args.models}, N={args.questions}, K={args.count}), 95% intervals"
    )
    for key in ("dbar", "population"):
        cov = res[f"coverage_{key}"]
        ok = abs(cov - LEVEL) <= 2.58 * se
        res[f"pass_{key}"] = bool(ok)
        print(
            f"  {key:11s} coverage {cov:.3f}  (0.95 +- {2.58 * se:.3f}: "
            f"{'PASS' if ok else 'FAIL'})  mean width {res[f'mean_width_{key}']:.4f}"
        )
    print(f"  oracle dbar coverage (true parameters, same datasets) {np.mean(hit_o):.3f}")
    print(
        f"  fits with diagnostic warnings {bad_fits}, divergences {divergences}, "
        f"{res['seconds']:.0f} s"
    )
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(res, fh)
    return res


if __name__ == "__main__":
    main()
