"""Coverage of the crossed Bayesian model's intervals (``bn.noises(method="mcmc")``, issue 31).

Simulation machinery, not library API. Two models on N questions x T templates, K runs per
cell, 0/1 scores drawn from the model that :mod:`bayesnoise.mcmc.crossed` fits,

    P(correct) = expit(alpha_m + u_q + v_t + w_qt + x_mt + z_mq),
    u ~ N(0, su^2), v ~ N(0, sv^2), w ~ N(0, sw^2), x ~ N(0, sx^2), z ~ N(0, sz^2),

so that what is measured is the calibration of the posterior intervals (priors, sampler,
derived quantities), not a misspecification. Truths by Gauss-Hermite quadrature:

* over the template population, E expit(alpha_m + S), S ~ N(0, su^2 + sv^2 + sw^2 + sx^2 +
  sz^2);
* over these templates, the mean over the drawn templates of E expit(alpha_m + v_t + x_mt +
  S'), S' ~ N(0, su^2 + sw^2 + sz^2) (new questions, these templates);
* differences A - B of both.

The frequentist intervals of ``bn.noises`` (Satterthwaite t; unbiased moments) are computed on
the same replicates, side by side. Coverage Monte Carlo SE sqrt(p (1 - p) / R).

Runs behind ``benchmarks/results/noises_mcmc_coverage.md`` (each writes ``OUT.csv``; the
table pools the runs of a cell by replicates)::

    python -m studies.noises_mcmc_coverage --reps 200 --first-seed 3100 --cells 100x5x1
    python -m studies.noises_mcmc_coverage --reps 200 --first-seed 3100 --cells 100x5x1 --no-mcmc
    python -m studies.noises_mcmc_coverage --reps 200 --first-seed 3101 --cells 100x5x5,100x10x1
    python -m studies.noises_mcmc_coverage --reps 100 --first-seed 3103 --cells 100x10x5,100x3x1
    python -m studies.noises_mcmc_coverage --reps 100 --first-seed 3105 --cells 500x5x1
    python -m studies.noises_mcmc_coverage --reps 100 --first-seed 3204 --cells 100x3x1
    python -m studies.noises_mcmc_coverage --reps 2000 --first-seed 5100 --no-mcmc --cells 100x5x1,100x5x5,100x10x1

(add ``--out PATH``; the CSVs concatenated are ``noises_mcmc_coverage_runs.csv`` and
``noises_mcmc_coverage_freq2000.csv``, and ``python -m studies.noises_mcmc_coverage_table``
writes the table). 200 replicates of a T = 5 cell take 20-45 min on 2 cores.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from scipy import special

ALPHA = (0.6, 0.3)
SU, SV, SW, SX, SZ = 1.2, 0.4, 0.6, 0.25, 0.3
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(80)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


def _expect(mean, sd):
    """E expit(mean + sd Z), Z standard normal, elementwise over ``mean``."""
    mean = np.asarray(mean, dtype=float)
    return special.expit(mean[..., None] + sd * _NODES) @ _WEIGHTS


def simulate(rng, n: int, t: int, k: int):
    """(correct, count) arrays (M, N, T) and the truths (population (M,), these (M,))."""
    m = len(ALPHA)
    alpha = np.array(ALPHA)[:, None, None]
    u = rng.normal(0, SU, (1, n, 1))
    v = rng.normal(0, SV, (1, 1, t))
    w = rng.normal(0, SW, (1, n, t))
    x = rng.normal(0, SX, (m, 1, t))
    z = rng.normal(0, SZ, (m, n, 1))
    p = special.expit(alpha + u + v + w + x + z)
    correct = rng.binomial(k, p)
    count = np.full(correct.shape, k)
    total = np.sqrt(SU**2 + SV**2 + SW**2 + SX**2 + SZ**2)
    population = _expect(np.array(ALPHA), total)
    these = _expect(alpha[:, 0, :] + v[0] + x[:, 0, :], np.sqrt(SU**2 + SW**2 + SZ**2)).mean(-1)
    return correct, count, population, these


def _frame(correct, count, k):
    """The per-run long table of (M, N, T) counts (run r is correct when r < count)."""
    mm, qq, tt = np.nonzero(count > 0)
    runs = np.arange(k)
    score = (runs[None, :] < correct[mm, qq, tt][:, None]).astype(int)
    return pd.DataFrame(
        {
            "model": np.repeat([f"m{i}" for i in mm], k),
            "question": np.repeat([f"q{i}" for i in qq], k),
            "template": np.repeat([f"t{i}" for i in tt], k),
            "run": np.tile(runs, mm.size),
            "score": score.ravel(),
        }
    )


def run_cell(n, t, k, reps, seed, level=0.95, draws=1000, tune=1000, mcmc=True):
    import nutpie

    from bayesnoise.mcmc.crossed import crossed_model, summarise_crossed
    from bayesnoise.verbs.factors import noises

    rng = np.random.default_rng(seed)
    # One compiled model per cell, refitted to each replicate's counts (same cells).
    correct0, count0, _, _ = simulate(np.random.default_rng(0), n, t, k)
    if mcmc:
        compiled = nutpie.compile_pymc_model(crossed_model(correct0, count0, data_container=True))
    present = np.nonzero(count0 > 0)
    tail = (1 - level) / 2
    hits = {key: [] for key in ("acc_pop", "acc_these", "diff_pop", "diff_these")}
    fhits = {key: [] for key in hits}
    rhat, ess, div, secs, widths = [], [], [], [], {key: [] for key in hits}
    fwidths = {key: [] for key in hits}
    for rep in range(reps):
        correct, count, pop, these = simulate(rng, n, t, k)
        truth = {"pop": pop, "these": these}
        if mcmc:
            fit_seed = seed * 1000 + rep
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = nutpie.sample(
                    compiled.with_data(correct_cells=correct[present]),
                    draws=draws,
                    tune=tune,
                    chains=2,
                    seed=fit_seed,
                    target_accept=0.9,
                    progress_bar=False,
                )
                fit = summarise_crossed(tree, fit_seed, n, time.perf_counter() - start, "nutpie")
            rep_ = fit["diagnostics"]
            rhat.append(float(rep_.table["r_hat_max"].max()))
            ess.append(float(rep_.table["ess_bulk_min"].min()))
            div.append(int(rep_.divergences))
            secs.append(fit["seconds"])
            draws_of = {"pop": fit["population"], "these": fit["these"]}
            for scope in ("pop", "these"):
                values = draws_of[scope]
                for i in range(2):
                    lo, hi = np.quantile(values[:, i], [tail, 1 - tail])
                    hits[f"acc_{scope}"].append(lo <= truth[scope][i] <= hi)
                    widths[f"acc_{scope}"].append(hi - lo)
                d = values[:, 0] - values[:, 1]
                lo, hi = np.quantile(d, [tail, 1 - tail])
                dt = truth[scope][0] - truth[scope][1]
                hits[f"diff_{scope}"].append(lo <= dt <= hi)
                widths[f"diff_{scope}"].append(hi - lo)
        # The frequentist twin on the same replicate, through bn.noises.
        df = _frame(correct, count, k)
        for by in ("model", "pair"):
            res = noises(
                df,
                factors=["template", "run"],
                by=by,
                confidence_level=level,
                progress=False,
            )
            est = "accuracy" if by == "model" else "difference"
            # noises lists the models best first (and a pair as the better minus the worse):
            # select by name, and turn a pair "m1 - m0" round.
            for scope, col in (("pop", "templates"), ("these", "these_templates")):
                name = f"{est}_{col}"
                if by == "model":
                    for i in range(2):
                        one = res.sel(model=f"m{i}")
                        low, high = float(one[f"{name}_low"]), float(one[f"{name}_high"])
                        fhits[f"acc_{scope}"].append(low <= truth[scope][i] <= high)
                        fwidths[f"acc_{scope}"].append(high - low)
                else:
                    low = float(res[f"{name}_low"].values[0])
                    high = float(res[f"{name}_high"].values[0])
                    if str(res["model_a"].values[0]) == "m1":
                        low, high = -high, -low
                    dt = truth[scope][0] - truth[scope][1]
                    fhits[f"diff_{scope}"].append(low <= dt <= high)
                    fwidths[f"diff_{scope}"].append(high - low)
        if (rep + 1) % 20 == 0:
            print(f"{n}x{t}x{k}: {rep + 1}/{reps} replicates", flush=True)
    row = {"N": n, "T": t, "K": k, "reps": reps}
    for key in hits:
        row[f"cover_{key}_mcmc"] = float(np.mean(hits[key]))
        row[f"cover_{key}_freq"] = float(np.mean(fhits[key]))
        row[f"width_{key}_mcmc"] = float(np.mean(widths[key]))
        row[f"width_{key}_freq"] = float(np.mean(fwidths[key]))
    if not mcmc:
        return row
    row.update(
        r_hat_max=float(np.max(rhat)),
        r_hat_over_101=int(np.sum(np.array(rhat) > 1.01)),
        ess_bulk_min=float(np.min(ess)),
        divergent_fits=int(np.sum(np.array(div) > 0)),
        seconds_median=float(np.median(secs)),
    )
    return row


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=100)
    p.add_argument("--cells", default="100x5x1,100x5x5,100x10x1,100x3x1")
    p.add_argument("--draws", type=int, default=1000, help="draws and tuning steps per chain")
    p.add_argument("--out", default=None)
    p.add_argument(
        "--first-seed", type=int, default=3100, help="seed of the first cell (+1 per cell)"
    )
    p.add_argument("--no-mcmc", action="store_true", help="the frequentist twin only")
    args = p.parse_args(argv)
    rows = []
    for i, cell in enumerate(args.cells.split(",")):
        n, t, k = (int(v) for v in cell.split("x"))
        start = time.perf_counter()
        row = run_cell(
            n,
            t,
            k,
            args.reps,
            seed=args.first_seed + i,
            draws=args.draws,
            tune=args.draws,
            mcmc=not args.no_mcmc,
        )
        row["wall_s"] = time.perf_counter() - start
        rows.append(row)
        print(pd.DataFrame([row]).T.to_string(), flush=True)
        if args.out:
            pd.DataFrame(rows).to_csv(f"{args.out}.csv", index=False)


if __name__ == "__main__":
    main()
