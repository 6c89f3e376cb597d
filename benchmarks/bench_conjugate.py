"""Timing of the closed-form layer and the Bayes-vs-frequentist paired widths on real data.

Run: ``.venv/bin/python benchmarks/bench_conjugate.py`` (reads ../shared/data when present).

1. Empirical-Bayes fit + all closed-form posteriors (ubar, V_pred, V_x moments integrated over
   the Laplace posterior of (mu, kappa); population mu, data/prediction variance) for
   M = 100 models x N = 1000 questions (target < 1 s); the Monte Carlo intervals separately.
2. All-pairs paired posteriors for the M = 78 real humaneval models (target < 2 s).
3. Width of the Bayesian population-level paired interval vs the frequentist
   +- z * se_difference on every all-the-noises benchmark (median ratio over close pairs), and the
   rejected alternative (Bayesian bootstrap over posterior *draws* of u) for comparison.
"""

from __future__ import annotations

import glob
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from bayesnoise._common import z_from_level
from bayesnoise.conjugate import (
    all_pairs_difference,
    beta_central_moments,
    finite_sample_posterior,
    fit_empirical_bayes,
    integrated_moments,
    population_difference,
    population_posterior,
    posterior_pairs_table,
    question_posteriors,
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def timed(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def synthetic(m=100, n=1000, seed=0):
    rng = np.random.default_rng(seed)
    mu = rng.uniform(0.1, 0.9, m)
    kap = rng.uniform(0.5, 5, m)
    k = rng.integers(1, 11, size=(m, n))  # ragged K = 1..10
    u = rng.beta((mu * kap)[:, None], ((1 - mu) * kap)[:, None], (m, n))
    c = rng.binomial(k, u)
    k[rng.random((m, n)) < 0.02] = 0  # 2% missing cells
    c[k == 0] = 0
    return c, k


def closed_form_all(c, k):
    fit = fit_empirical_bayes(c, k, warn=False)
    mom = integrated_moments(c, k, fit)
    pop = population_posterior(fit, n_resamples=1000)
    return fit, mom, pop


def paired_all(c, k):
    fit = fit_empirical_bayes(c, k, warn=False)
    mom = integrated_moments(c, k, fit)
    pairs = all_pairs_difference(mom.ubar_mean, mom.ubar_var)  # exact moments, normal P(A > B)
    pop = population_difference(c / k, n_resamples=2000)
    return pairs, pop


def bench():
    rows = []
    c, k = synthetic()
    t, _ = timed(lambda: fit_empirical_bayes(c, k, warn=False))
    rows.append(("EB fit, M=100 x N=1000 (ragged K, 2% missing)", t, "-"))
    t, _ = timed(lambda: closed_form_all(c, k))
    rows.append(("EB fit + all closed-form posteriors, M=100 x N=1000", t, "< 1 s"))
    t, _ = timed(lambda: finite_sample_posterior(c, k, n_resamples=200, rng=0), repeat=1)
    rows.append(("  + MC intervals ubar/V_pred/V_x (200 draws)", t, "-"))
    hum = DATA / "all-the-noises" / "main" / "input_table_humaneval.csv"
    if hum.exists():
        from bayesnoise import load

        ds = load(hum)
        ch, kh = ds["correct"].values, ds["samples"].values
        t, _ = timed(lambda: paired_all(ch, kh))
        rows.append((f"all-pairs paired posteriors, humaneval M={ch.shape[0]}", t, "< 2 s"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t, _ = timed(lambda: posterior_pairs_table(ds), repeat=1)
        rows.append(("  posterior_pairs_table (MC, 1000 draws)", t, "-"))
    print(f"{'task':62s} {'seconds':>8s}  target")
    for name, sec, target in rows:
        print(f"{name:62s} {sec:8.3f}  {target}")


def _posterior_draw_bb_sd(c, k):
    """SD of a Bayesian bootstrap over posterior draws of u_A - u_B (closed form; rejected)."""
    fit = fit_empirical_bayes(c, k, warn=False)
    m, v, _, _ = beta_central_moments(*question_posteriors(c, k, fit.mu, fit.kappa))
    n = c.shape[1]
    mc = m - m.mean(axis=1, keepdims=True)
    cov = mc @ mc.T / n
    var_m = np.diag(cov)[:, None] + np.diag(cov)[None, :] - 2 * cov
    vbar = v.mean(axis=1)
    vs = vbar[:, None] + vbar[None, :]
    return np.sqrt((var_m + (1 - 1 / n) * vs) / (n + 1) + vs / n)


def compare_widths():
    from bayesnoise import complete, load
    from bayesnoise.frequentist import pair_noise

    files = sorted(glob.glob(str(DATA / "all-the-noises" / "*" / "input_table_*.csv")))
    if not files:
        print("(no shared data: skipping the real-data comparison)")
        return
    print()
    print(
        "Population paired interval (Bayesian bootstrap) vs frequentist +- z se_difference, close pairs"
    )
    print("(|difference| < 5 se_total); ratio = Bayes width / frequentist width; 'draws' = the")
    print("rejected bootstrap over posterior draws of u (independent per-model posteriors)")
    head = ["median", "q10", "q90", "draws"]
    print(f"{'run/benchmark':42s} {'M':>3s} {'N':>5s} {'Kmed':>5s} {'pairs':>5s} " + _cols(head))
    summary = []
    for f in files:
        name = f.split("all-the-noises/")[1].replace("input_table_", "").replace(".csv", "")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ds = complete(load(f), on_missing="intersect")
            if ds.sizes["model"] < 2 or ds.sizes["question"] < 2:
                continue
            fr = pair_noise(ds)
        c, k = ds["correct"].values.astype(float), ds["samples"].values.astype(float)
        pop = population_difference(c / k, n_resamples=4000, rng=0)
        ia, ib = np.triu_indices(c.shape[0], k=1)
        bw = (pop["high"] - pop["low"])[ia, ib]
        fw = 2 * z_from_level(0.95) * fr["se_difference"].to_numpy()
        close = (np.abs(fr["difference"].to_numpy()) < 5 * fr["se_total"].to_numpy()) & (fw > 0)
        if close.sum() == 0:
            continue
        ratio = bw[close] / fw[close]
        draws_sd = _posterior_draw_bb_sd(c, k)[ia, ib]
        draws_ratio = (2 * z_from_level(0.95) * draws_sd)[close] / fw[close]
        n = c.shape[1]
        kmed = float(np.median(k))
        summary.append((name, n, float(np.median(ratio))))
        stats = [np.median(ratio), np.quantile(ratio, 0.1), np.quantile(ratio, 0.9)]
        stats.append(np.median(draws_ratio))
        row = f"{name:42s} {c.shape[0]:3d} {n:5d} {kmed:5.0f} {close.sum():5d} "
        print(row + _cols(stats, ".3f"))
    big = [r for _, n, r in summary if n >= 400]
    within = all(abs(r - 1) < 0.15 for r in big)
    print(
        f"N >= 400: {len(big)} benchmarks, median ratios in [{min(big):.3f}, {max(big):.3f}]; "
        f"all within 15%: {within}"
    )


def _cols(values, fmt="s"):
    """Columns of width 7, 6, 6, 6 (the table layout of :func:`compare_widths`)."""
    return " ".join(f"{v:>{w}{fmt}}" for v, w in zip(values, (7, 6, 6, 6), strict=True))


if __name__ == "__main__":
    bench()
    if "--no-data" not in sys.argv:
        compare_widths()
