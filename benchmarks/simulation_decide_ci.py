"""Simulation tables of the CI decisions: the regression gate (size, power), the anytime-valid
sequential test (error rate under continuous monitoring, stopping N against the fixed-N
paired t test) and the budget planner (promised vs realised SE, cost vs the grid).

Evals are drawn from a finite population of correlated question pairs
(:mod:`studies.ci_decisions`: Gaussian copula of Beta(0.6, 0.4) margins, copula correlation 0.8,
per-question score correlation about 0.76 at K = 1), questions with replacement, K Bernoulli
samples each. Rates are printed with their binomial Monte Carlo SE; fixed-N sample sizes come
from statsmodels' ``TTestPower`` (paired t, two-sided unless said). Speed: the confidence
sequence of one log against a floor measured in the same run (one numpy pass over the log
per grid value).

Run: timeout 1800 .venv/bin/python benchmarks/simulation_decide_ci.py [--reps R]
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from statsmodels.stats.power import TTestPower

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bayesnoise as bn
from bayesnoise.data import from_arrays
from bayesnoise.decide.gate import gate
from bayesnoise.decide.sequential import (
    always_valid_pvalues,
    confidence_sequence,
    stopping_times,
)
from studies.ci_decisions import draw, population, shifted, variance_of_difference

ALPHA = 0.05


def rate(x):
    x = np.asarray(x, float)
    return f"{x.mean():.3f} ± {np.sqrt(x.mean() * (1 - x.mean()) / x.size):.3f}"


def gate_table(u, reps):
    print("\n### Regression gate (one-sided, alpha 0.05, K = 1, correlated questions)\n")
    print("| setting | N | replicates | flagged | target |")
    print("|---|---:|---:|---:|---|")
    rng = np.random.default_rng(1)
    p = draw(rng, u, reps, 500, 1)
    flagged = [gate(x).regression for x in p[1] - p[0]]
    print(f"| no difference, freq | 500 | {reps} | {rate(flagged)} | about 0.05 |")
    flagged = [gate(x, method="bayes", n_resamples=2000).regression for x in p[1] - p[0]]
    print(f"| no difference, bayes | 500 | {reps} | {rate(flagged)} | about 0.05 |")
    drop = shifted(u, -0.03)
    sd = np.sqrt(variance_of_difference(drop, 1))
    n90 = int(
        np.ceil(TTestPower().solve_power(0.03 / sd, alpha=ALPHA, power=0.9, alternative="larger"))
    )
    p = draw(rng, drop, reps, n90, 1)
    flagged = [gate(x).regression for x in p[1] - p[0]]
    print(
        f"| drop 3 points, freq (t test power 0.90) | {n90} | {reps} | {rate(flagged)} | >= 0.80 |"
    )
    ds = [(lambda q: q[1] - q[0])(draw(rng, u, reps, n, 1)) for n in (150, 400, 800)]
    any_flag = [gate([d[r] for d in ds]).regression for r in range(reps)]
    print(
        f"| 3 null benchmarks + combined, Holm (any flag) | 150/400/800 | {reps} | {rate(any_flag)} | <= 0.05 |"
    )


def sequential_table(u, reps):
    print("\n### Sequential test: checked after every question, no true difference\n")
    print("| K | stakes | questions | replicates | ever rejected | bound |")
    print("|---:|---|---:|---:|---:|---|")
    for k in (1, 5):
        p = draw(np.random.default_rng(10 + k), u, 2 * reps, 2000, k)
        for difference in (None, 0.05):
            pv, _ = always_valid_pvalues(p[0] - p[1], difference=difference)
            name = "adaptive" if difference is None else "planned 0.05"
            print(f"| {k} | {name} | 2000 | {2 * reps} | {rate(pv[:, -1] <= ALPHA)} | <= 0.05 |")
    print("\n### Sequential test: true difference 0.05, cap 3,250 questions\n")
    print(
        "| K | stakes | stopped <= 3,250 | mean N (capped) | median | 80% quantile | "
        "fixed N, 80% power | fixed N, same power | mean N cut at its 80% quantile |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    cap = 3250
    for k in (1, 5):
        v = shifted(u, 0.05)
        effect = 0.05 / np.sqrt(variance_of_difference(v, k))
        p = draw(np.random.default_rng(30 + k), v, reps, cap, k)
        n80 = TTestPower().solve_power(effect, alpha=ALPHA, power=0.8, alternative="two-sided")
        for difference in (None, 0.05):
            pv, _ = always_valid_pvalues(p[1] - p[0], difference=difference)
            t = stopping_times(pv)
            stopped = t <= cap
            power = min(stopped.mean(), 1 - 0.5 / reps)
            same = TTestPower().solve_power(
                effect, alpha=ALPHA, power=power, alternative="two-sided"
            )
            q80 = np.quantile(t, 0.8)
            name = "adaptive" if difference is None else "planned 0.05"
            print(
                f"| {k} | {name} | {rate(stopped)} | {np.minimum(t, cap).mean():.0f} | "
                f"{np.median(t):.0f} | {q80:.0f} | {n80:.0f} | {same:.0f} (power {power:.3f}) | "
                f"{np.minimum(t, q80).mean():.0f} |"
            )


def planner_table(u_pop, reps):
    print("\n### Planner: target SE 0.01, pilot N = 400, K = 5; evals run at the plan\n")
    print(
        "| cost question : sample | K* | plan N | plan K | promised SE | realised SE | ratio | "
        "cost plan | cheapest on grid | cost K = 1 | cost K = 5 |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(3)
    u = shifted(u_pop, 0.02)
    p = draw(rng, u, 1, 400, 5)[:, 0]
    ds = from_arrays(p * 5, np.full(p.shape, 5), models=["base", "cand"])
    for cq in (1.0, 20.0, 200.0):
        row = bn.tidy(bn.plan(ds, target_se=0.01, cost_question=cq)).iloc[0]
        n, k = int(row.optimal_questions), int(row.optimal_samples_per_question)
        sims = draw(np.random.default_rng(int(cq)), u, reps, n, k)
        realised = (sims[1] - sims[0]).mean(axis=1).std(ddof=1)
        ks = np.arange(1, 101)
        need = np.maximum(np.ceil((row.data + row.prediction / ks) / 1e-4 - 1e-9), 2)
        print(
            f"| {cq:g} : 1 | {row.k_star:.2f} | {n} | {k} | {row.se_planned:.5f} | "
            f"{realised:.5f} | {realised / row.se_planned:.3f} | {row.cost_planned:.0f} | "
            f"{(need * (cq + ks)).min():.0f} | {row.cost_k1:.0f} | {row.cost_current_k:.0f} |"
        )


def speed_table():
    print("\n### Speed: confidence sequence of one log (grid step 0.001)\n")
    print(
        "| questions | confidence_sequence (s) | floor: one numpy capital update per question "
        "(s) | ratio |"
    )
    print("|---:|---:|---:|---:|")
    rng = np.random.default_rng(0)
    for n in (2000, 10_000, 50_000):
        d = rng.choice([-1.0, 0.0, 1.0], p=[0.1, 0.75, 0.15], size=n)
        t0 = time.perf_counter()
        confidence_sequence(d)
        t_cs = time.perf_counter() - t0
        near = np.array([-0.001, 0.0, 0.001])
        t0 = time.perf_counter()
        acc = np.zeros_like(near)
        for x in d:  # any per-question update in Python: one numpy call on the live values
            acc += np.log1p(0.1 * (x - near))
        t_floor = time.perf_counter() - t0
        print(f"| {n} | {t_cs:.2f} | {t_floor:.2f} | {t_cs / t_floor:.1f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    u = population(np.random.default_rng(2024), 20_000)
    print(f"population: per-question correlation at K = 1 {np.corrcoef(u)[0, 1]:.2f} (of u)")
    gate_table(u, args.reps)
    sequential_table(u, args.reps)
    planner_table(u, 2000)
    speed_table()
    print(f"\nreplicates {args.reps}")


if __name__ == "__main__":
    main()
