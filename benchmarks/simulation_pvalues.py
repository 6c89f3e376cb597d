"""Acceptance simulation of the decision tables: size and power of every p-value the ``pairs``
table prints, family-wise error of Holm and of the simultaneous intervals (P(best) calibration:
benchmarks/simulation_ranks.py).

Models are correlated through a shared per-question difficulty: logit u_m,i = theta_i + e_m,i +
s_m, theta_i ~ Normal(0, 1.5^2), e_m,i ~ Normal(0, 1.5^2 (1 - rho) / rho), rho = 0.8 (the logit
correlation of two models); questions are drawn afresh from this population in each replicate,
so the target is the population difference. Under the null the models are exchangeable (s equal),
so every test's null (mean, median, symmetry of d_i) holds. Each rate is printed with its binomial
Monte Carlo SE; a test rejects when p <= 0.05.

"before" columns recompute what the package did before the small-sample fixes, in the same
replicates: the normal reference of z (ddof-0 SE) and max-|Z| over the joint normal with the
ddof-0 SEs.

Vectorised: the p-value table stacks ``--block`` independent replicates as 2 x block models of
one pair table and reads only each replicate's own pair (rows 2 r, 2 r + 1); the permutation
test's random sign vectors are shared within a block (each replicate's p-value is still exact).

Run: timeout 3000 .venv/bin/python benchmarks/simulation_pvalues.py [--reps R] [--family-reps F]
"""

import argparse
import os
import time
import warnings

import numpy as np
from scipy import stats

from bayesnoise.data import from_arrays
from bayesnoise.decide import adjust_pvalues, max_abs_t_draws, simultaneous_intervals
from bayesnoise.frequentist import pair_noise_dataset

RHO, SD_THETA = 0.8, 1.5
PERMUTATIONS = 199  # (1 + hits) / 200 <= 0.05 exactly when hits <= 9: an exact 5% test
# printed by default, with --permutations, with --one-sample-tests; then the old reference of z
TESTS = (
    "p_value",
    "p_value_sign_questions",
    "p_value_permutation",
    "p_value_sign_one_sample",
    "p_value_mcnemar_one_sample",
    "z normal (before)",
)


def expit(x):
    return 1 / (1 + np.exp(-x))


def draw_u(rng, shifts, n, reps):
    """Expected accuracies (reps, M, n) of models with logit shifts ``shifts``."""
    theta = rng.normal(0, SD_THETA, size=(reps, 1, n))
    own = rng.normal(0, SD_THETA * np.sqrt((1 - RHO) / RHO), size=(reps, len(shifts), n))
    return expit(theta + own + np.asarray(shifts)[None, :, None])


def population_means(shifts, rng, size=2_000_000):
    """Population accuracies of the models (MC with 2e6 questions: SE of a difference < 1e-4)."""
    return draw_u(rng, shifts, size, 1)[0].mean(axis=-1)


def shift_for(difference):
    """Logit shift s giving model a a population accuracy ``difference`` above model b."""
    lo, hi = 0.0, 2.0
    for _ in range(30):
        mid = (lo + hi) / 2
        gap = np.diff(population_means([0.0, mid], np.random.default_rng(1), 400_000))[0]
        lo, hi = (mid, hi) if gap < difference else (lo, mid)
    return (lo + hi) / 2


def rate(hits, reps):
    p = hits / reps
    return f"{p:.4f} ± {np.sqrt(max(p * (1 - p), 1e-12) / reps):.4f}"


def pair_pvalues(rng, shifts, n, k, reps, block):
    """All TESTS' p-values of ``reps`` independent pairs, (len(TESTS), reps)."""
    out = []
    for start in range(0, reps, block):
        r = min(block, reps - start)
        correct = rng.binomial(k, draw_u(rng, shifts, n, r)).reshape(2 * r, n)
        mat = pair_noise_dataset(
            from_arrays(correct, np.full(correct.shape, k)),
            n_resamples=PERMUTATIONS,
            resampling="permutation",
            rng=int(rng.integers(2**31)),
        )
        ia, ib = np.arange(0, 2 * r, 2), np.arange(1, 2 * r, 2)
        cols = [mat[name].values[ia, ib] for name in TESTS[:-1]]
        cols.append(2 * stats.norm.sf(np.abs(mat["z"].values[ia, ib])))
        out.append(np.stack(cols))
    return np.concatenate(out, axis=1)


def pvalue_table(reps, block, rng):
    print(f"Size and power at p <= 0.05, {reps} replicates per row (exchangeable null; power at")
    print("the stated population difference). Columns: printed by default (p_value,")
    print(
        "p_value_sign_questions), with --permutations (p_value_permutation, 199 sign flips), with"
    )
    print("--one-sample-tests (Eval-Arena's one-sample-level tests); last: the normal reference")
    print("of z that p_value used before.\n")
    print("| K | N | truth | " + " | ".join(TESTS) + " |")
    print("|---|---|---|" + "---|" * len(TESTS))
    for k in (1, 10):
        for n in (100, 800):
            delta = 0.06 if n == 100 else 0.02
            s = shift_for(delta)
            for label, shifts in (("null", [0.0, 0.0]), (f"diff {delta}", [s, 0.0])):
                p = pair_pvalues(rng, shifts, n, k, reps, block)
                hits = np.sum(p <= 0.05, axis=1)
                cells = " | ".join(rate(h, reps) for h in hits)
                print(f"| {k} | {n} | {label} | {cells} |", flush=True)


def family_table(reps, draws, rng, ns=(100, 800)):
    """Five models, shifts (0, 0, 0, 0.15, 0.3): three null pairs among ten."""
    shifts = [0.0, 0.0, 0.0, 0.15, 0.3]
    truth = population_means(shifts, np.random.default_rng(2))
    ia, ib = np.triu_indices(5, k=1)
    true_diff = truth[ia] - truth[ib]
    null = np.array([shifts[a] == shifts[b] for a, b in zip(ia, ib, strict=True)])
    print(f"\nFamily-wise error, 5 models (logit shifts {shifts}), {reps} replicates per row;")
    print(f"critical values from {draws} seeded draws per replicate. Holm: any of the 3 null pairs")
    print("rejected (Holm over the 10 p_value). Non-coverage: any of the 10 intervals misses its")
    print("population difference. max-T (before): max-|Z| over the joint normal, ddof-0 SEs.\n")
    print(
        "| K | N | Holm FWER | max-T non-coverage | max-T (before) | Bonferroni non-coverage | "
        "c max-T ± its MC SE / Bonferroni (t scale) |"
    )
    print("|---|---|---|---|---|---|---|")
    for k in (1, 10):
        for n in ns:
            correct = rng.binomial(k, draw_u(rng, shifts, n, reps))
            holm = maxt = before = bonf = 0
            cs, mcses = [], []
            for r in range(reps):
                ds = from_arrays(correct[r], np.full((5, n), k))
                mat = pair_noise_dataset(ds)
                p = adjust_pvalues(mat["p_value"].values[ia, ib], "holm")
                holm += bool(np.any(p[null] <= 0.05))
                out = simultaneous_intervals(ds, n_resamples=draws, rng=r)
                diff, se = out["difference"].to_numpy(), out["se_difference"].to_numpy()
                error = np.abs(diff - true_diff)
                maxt += bool(np.any(error > (out["simultaneous_high"] - diff)))
                scale = out.attrs["se_scale"]
                bonf += bool(np.any(error > out.attrs["bonferroni_critical_value"] * scale * se))
                cs.append(out.attrs["critical_value"])
                mcses.append(out.attrs["critical_value_mcse"])
                # before: c from max |Z| with known covariance, the ddof-0 covariance of the means
                score = correct[r] / k
                cov = np.cov(score, ddof=0) / n
                z_max = max_abs_t_draws(cov, n_resamples=draws, rng=np.random.default_rng(r))
                before += bool(np.any(error > np.quantile(z_max, 0.95) * se))
            cb = out.attrs["bonferroni_critical_value"]
            print(
                f"| {k} | {n} | {rate(holm, reps)} | {rate(maxt, reps)} | {rate(before, reps)} | "
                f"{rate(bonf, reps)} | {np.mean(cs):.3f} ± {np.mean(mcses):.3f} / {cb:.3f} |",
                flush=True,
            )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=10_000)
    ap.add_argument("--block", type=int, default=100, help="replicates per stacked pair table")
    ap.add_argument("--family-reps", type=int, default=2000)
    ap.add_argument("--draws", type=int, default=5000, help="max-T draws per replicate")
    ap.add_argument("--skip-pvalues", action="store_true")
    ap.add_argument("--family-n", type=int, nargs="+", default=[100, 800])
    args = ap.parse_args()
    rng = np.random.default_rng(20240611)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # K = 1: the split is not identifiable (irrelevant here)
        if not args.skip_pvalues:
            pvalue_table(args.reps, args.block, rng)
        family_table(args.family_reps, args.draws, rng, args.family_n)
    load = os.getloadavg()[0]
    print(f"\n{time.perf_counter() - start:.0f} s (load average {load:.1f}, 2 cores)")


if __name__ == "__main__":
    main()
