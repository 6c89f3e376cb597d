"""Speed and convergence of the PyMC models at M = 50 models x N = 500 questions, K = 10.

Simulated correlated benchmark (models share question difficulties, as real evals do), fixed
seed: theta_m ~ Normal(0, 1), b_i ~ Normal(0, 1.5), u_mi ~ Beta(p phi, (1 - p) phi) with
p = logistic(theta_m - b_i), phi = 5, c_mi ~ Binomial(10, u_mi).

Table 1, cost of one log-density + gradient evaluation of the joint model's likelihood (the
sampler's unit of work), minimum over repeats, same process:
  numpy floor   the same Beta-Binomial likelihood and its gradient in numpy/scipy
                (gammaln/digamma, vectorised over the M x N cells);
  lgamma        the PyTensor graph the joint model used before (six lgamma per cell);
  products      the graph PyMC's NUTS and numpyro use (bayesnoise.mcmc.loglik: log rising
                factorials as products, normaliser once per (model, K));
  numba         the whole log density (priors, Jacobians, likelihood) + gradient hand-written
                in numba (bayesnoise.mcmc.numba_joint), what nutpie samples.

Table 2, one row per configuration ``model[:parametrisation]:sampler``, ``--chains`` chains on
2 cores, ``--tune`` + ``--draws`` per chain: build + compile time, sampling time, time to add
the exact u-draws (ubar, V_x, V_pred, dbar), time of the convergence diagnostics (r_hat, bulk
and tail ESS of every element), total wall time of all of these (what ``fit`` with its default
``check=True`` costs), gradient evaluations per kept draw, the
smallest bulk and tail ESS and the largest r_hat over every element of the reported quantities
(joint: theta, phi, sigma_b, mu, dbar, population_difference; marginal: mu, kappa), bulk ESS per
second of total time, divergences, and the ratio to the floor. The floor row is the numpy likelihood + gradient evaluated
once per iteration of one chain ((tune + draws) x its cost; the chains run in parallel): a
sampler that needed a single gradient per draw would take about this long on this machine
now. Other processes share the machine, so compare the ratio column across runs, not seconds;
the load average is printed before and after. Numba caches its compiled kernel on disk: the
first run on a machine adds its compilation (~10-20 s) to nutpie's compile_s.

Target (issue "speed at scale"): the joint model converges (r_hat <= 1.01, bulk ESS >= 400 for
every reported element, 0 divergences) in < 60 s on 2 cores.

Run:  python benchmarks/bench_mcmc.py [--configs joint:nutpie,joint:pymc,joint:nc:nutpie]
      [--tune 300 --draws 1500 --chains 2]   (a joint:numpyro row is added when numpyro and jax are
      installed: ``pip install 'bayesnoise[numpyro]'``)
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import time
import warnings

# numpyro runs chains in parallel only on as many XLA devices as chains (2 CPU devices here);
# this must be set before jax is imported.
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=2")

import numpy as np
import pandas as pd

from bayesnoise import mcmc as hb
from bayesnoise.mcmc.diagnostics import default_var_names

BUILDERS = {"marginal": hb.marginal_model, "latent": hb.latent_model, "joint": hb.joint_model}
DEFAULT_CONFIGS = "joint:nutpie,joint:pymc" + (
    ",joint:numpyro" if importlib.util.find_spec("numpyro") else ""
)


def simulate(m=50, n=500, k=10, seed=0):
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, m)
    b = rng.normal(0, 1.5, n)
    p = 1 / (1 + np.exp(-(theta[:, None] - b[None, :])))
    u = rng.beta(p * 5.0, (1 - p) * 5.0)
    return rng.binomial(k, u)


def best_time(fn, repeat=7, number=5):
    fn()
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t) / number)
    return best


def numpy_loglik_grad(theta, d, phi, c, k):
    """Joint-model Beta-Binomial log-likelihood and its gradient in (theta, d, phi), scipy."""
    from scipy.special import digamma, gammaln

    p = 1 / (1 + np.exp(-(theta[:, None] - d[None, :])))
    ph = phi[:, None]
    a, b = p * ph, (1 - p) * ph
    ll = (
        gammaln(c + a)
        - gammaln(a)
        + gammaln(k - c + b)
        - gammaln(b)
        + gammaln(ph)
        - gammaln(k + ph)
    ).sum()
    da = digamma(c + a) - digamma(a)
    db = digamma(k - c + b) - digamma(b)
    dphi_cell = p * da + (1 - p) * db + digamma(ph) - digamma(k + ph)
    dp = ph * (da - db) * p * (1 - p)
    return ll, dp.sum(axis=1), -dp.sum(axis=0), dphi_cell.sum(axis=1)


def gradient_costs(correct, k):
    """Seconds per log-likelihood + gradient evaluation: numpy floor, lgamma graph, products."""
    import pytensor
    import pytensor.tensor as pt

    from bayesnoise.mcmc._jointkernel import logp_grad
    from bayesnoise.mcmc.loglik import betabinom_loglik, joint_betabinom_loglik
    from bayesnoise.mcmc.numba_joint import JointDensity

    m, n = correct.shape
    count = np.full_like(correct, k)
    rng = np.random.default_rng(1)
    theta, d, phi = rng.normal(0, 1, m), rng.normal(0, 1.5, n), np.full(m, 5.0)
    th, dd, ph = pt.vector("theta"), pt.vector("d"), pt.vector("phi")
    p = pt.sigmoid(th[:, None] - dd[None, :])
    forms = {
        "lgamma": betabinom_loglik(correct, count, p * ph[:, None], (1 - p) * ph[:, None]).sum(),
        "products": joint_betabinom_loglik(p, ph, correct, count),
    }
    out = {"numpy floor": best_time(lambda: numpy_loglik_grad(theta, d, phi, correct, count))}
    values = {"numpy floor": numpy_loglik_grad(theta, d, phi, correct, count)[0]}
    for name, expr in forms.items():
        fn = pytensor.function([th, dd, ph], [expr, *pytensor.grad(expr, [th, dd, ph])])
        out[name] = best_time(lambda fn=fn: fn(theta, d, phi))
        values[name] = float(fn(theta, d, phi)[0])
    dens = JointDensity.from_built(hb.joint_model(correct, k))
    kernel_args = dens.kernel_args()
    x = np.concatenate([[0.4, 0.0], theta, (d - d.mean())[:-1], np.log(phi)])
    out["numba"] = best_time(lambda: logp_grad(x, **kernel_args))
    ref = values["numpy floor"]  # all three omit the binomial coefficients: equal
    for name in forms:
        assert abs(values[name] - ref) <= 1e-9 * abs(ref), (name, values[name], ref)
    return out


def run(config, correct, k, draws, tune, chains=2, seed=1):
    parts = config.split(":")
    kind, sampler = parts[0], parts[-1]
    kwargs = {"noncentered": "nc" in parts[1:-1]} if kind == "joint" else {}
    start = time.perf_counter()
    built = BUILDERS[kind](correct, k, **kwargs)
    build = time.perf_counter() - start
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = hb.fit(
            built,
            sampler=sampler,
            draws=draws,
            tune=tune,
            chains=chains,
            cores=2,
            rng=seed,
            progress=False,
            check=False,
        )
    fitted = time.perf_counter() - start
    compile_s = build + tree.attrs["compile_time"]
    sampling_s = tree.attrs["sampling_time"]
    report = hb.check_convergence(tree, default_var_names(kind), warn=False)
    wall = time.perf_counter() - start
    table = report.table
    ess = float(table["ess_bulk_min"].min())
    stats = tree["sample_stats"]
    grads = float(stats["n_steps"].mean()) if "n_steps" in stats else float("nan")
    return {
        "config": config,
        "compile_s": round(compile_s, 1),
        "sampling_s": round(sampling_s, 1),
        "u_draws_s": round(fitted - compile_s - sampling_s, 1),
        "diag_s": round(wall - fitted, 1),
        "total_s": round(wall, 1),
        "grads_per_draw": round(grads, 1),
        "min_bulk_ess": round(ess),
        "min_tail_ess": round(float(table["ess_tail_min"].min())),
        "ess_per_s": round(ess / wall, 1),
        "max_r_hat": round(float(table["r_hat_max"].max()), 4),
        "divergences": report.divergences,
        "worst": f"{table['r_hat_max'].idxmax()} (r_hat), {table['ess_bulk_min'].idxmin()} (ESS)",
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", default=DEFAULT_CONFIGS)
    ap.add_argument("--models", type=int, default=50)
    ap.add_argument("--questions", type=int, default=500)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--draws", type=int, default=1500)
    ap.add_argument("--tune", type=int, default=300)
    ap.add_argument("--chains", type=int, default=2)
    ap.add_argument("--out", help="also write table 2 as CSV")
    args = ap.parse_args(argv)
    correct = simulate(args.models, args.questions, args.count)
    print(f"M={args.models} x N={args.questions}, K={args.count}; load average {_load()}\n")
    costs = gradient_costs(correct, args.count)
    floor_eval = costs["numpy floor"]
    print("Table 1: one log-likelihood + gradient evaluation (joint model)")
    print(f"{'form':14s} {'ms':>8s} {'x numpy':>8s}")
    for name, sec in costs.items():
        print(f"{name:14s} {sec * 1e3:8.2f} {sec / floor_eval:8.2f}")
    # 2 cores: chains beyond 2 run after the first two
    floor = floor_eval * (args.tune + args.draws) * -(-args.chains // 2)
    print(
        f"\nTable 2: {args.chains} chains x ({args.tune} tune + {args.draws} draws); floor = "
        f"{args.tune + args.draws} x {-(-args.chains // 2)} numpy evaluations = {floor:.1f} s\n",
        flush=True,
    )
    rows = []
    for cfg in args.configs.split(","):
        rows.append(run(cfg, correct, args.count, args.draws, args.tune, args.chains))
        rows[-1]["x_floor"] = round(rows[-1]["total_s"] / floor, 1)
        print(pd.DataFrame(rows[-1:]).to_string(index=False, header=len(rows) == 1), flush=True)
    rows.append({"config": "floor (numpy, 1 gradient per iteration)", "total_s": round(floor, 1)})
    df = pd.DataFrame(rows)
    print(f"\nload average at the end {_load()}")
    print(df.to_markdown(index=False) if _has_tabulate() else df.to_string(index=False))
    if args.out:
        df.to_csv(args.out, index=False)
    return df


def _load():
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def _has_tabulate():
    return importlib.util.find_spec("tabulate") is not None


if __name__ == "__main__":
    main()
