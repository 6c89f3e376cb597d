"""Acceptance simulation of the decision tables: size and power of every p-value the ``pairs``
table prints, family-wise error of Holm and of the simultaneous max-|T| intervals, and
calibration of P(best) from ``ranks``.

Models are correlated through a shared per-question difficulty: logit u_m,i = theta_i + e_m,i +
s_m, theta_i ~ Normal(0, 1.5^2), e_m,i ~ Normal(0, 1.5^2 (1 - rho) / rho), rho = 0.8 (the logit
correlation of two models); questions are drawn afresh from this population in each replicate,
so the target is the population difference. Under the null the models are exchangeable (s equal),
so every test's null (mean, median, symmetry of d_i) holds. Each rate is printed with its binomial
Monte Carlo SE; a test rejects when p <= 0.05. Run: .venv/bin/python benchmarks/simulation_pvalues.py [--reps R]
"""

import argparse
import itertools
import time
import warnings

import numpy as np

from bayesnoise.compare import adjust_pvalues, rank_table, simultaneous_intervals
from bayesnoise.data import from_arrays
from bayesnoise.frequentist import pair_noise_dataset

RHO, SD_THETA = 0.8, 1.5
TESTS = ("p_value", "p_sign_questions", "p_permutation")
PERMUTATIONS = 199  # (1 + hits) / 200 <= 0.05 exactly when hits <= 9: an exact 5% test


def expit(x):
    return 1 / (1 + np.exp(-x))


def draw_u(rng, shifts, n, reps):
    """Expected accuracies (reps, M, n) of models with logit shifts ``shifts``."""
    theta = rng.normal(0, SD_THETA, size=(reps, 1, n))
    own = rng.normal(0, SD_THETA * np.sqrt((1 - RHO) / RHO), size=(reps, len(shifts), n))
    return expit(theta + own + np.asarray(shifts)[None, :, None])


def population_means(shifts, rng, size=2_000_000):
    """Population accuracies of the models (MC with 2e6 questions: SE < 3e-4)."""
    return draw_u(rng, shifts, size, 1)[0].mean(axis=-1)


def shift_for(difference, rng):
    """Logit shift s giving model a a population accuracy ``difference`` above model b."""
    lo, hi = 0.0, 2.0
    for _ in range(30):
        mid = (lo + hi) / 2
        gap = np.diff(population_means([0.0, mid], np.random.default_rng(1), 400_000))[0]
        lo, hi = (mid, hi) if gap < difference else (lo, mid)
    return (lo + hi) / 2


def rate(hits, reps):
    p = hits / reps
    return f"{p:.3f} ± {np.sqrt(max(p * (1 - p), 1e-12) / reps):.3f}"


def pvalue_table(reps, rng):
    print("| K | N | truth | " + " | ".join(TESTS) + " |")
    print("|---|---|---|" + "---|" * len(TESTS))
    for k in (1, 10):
        for n in (100, 800):
            delta = 0.06 if n == 100 else 0.02
            s = shift_for(delta, rng)
            for label, shifts in (("null", [0.0, 0.0]), (f"diff {delta}", [s, 0.0])):
                u = draw_u(rng, shifts, n, reps)
                correct = rng.binomial(k, u)
                hits = dict.fromkeys(TESTS, 0)
                for r in range(reps):
                    mat = pair_noise_dataset(
                        from_arrays(correct[r], np.full((2, n), k)),
                        n_permutations=PERMUTATIONS,
                        random_seed=r,
                    )
                    for name in TESTS:
                        hits[name] += float(mat[name][0, 1]) <= 0.05
                cells = " | ".join(rate(hits[t], reps) for t in TESTS)
                print(f"| {k} | {n} | {label} | {cells} |", flush=True)


def family_table(reps, rng):
    """Five models, shifts (0, 0, 0, 0.15, 0.3): three null pairs among ten."""
    shifts = [0.0, 0.0, 0.0, 0.15, 0.3]
    truth = population_means(shifts, np.random.default_rng(2))
    ia, ib = np.triu_indices(5, k=1)
    true_diff = truth[ia] - truth[ib]
    null = np.array([shifts[a] == shifts[b] for a, b in zip(ia, ib, strict=True)])
    print(
        "\n| K | N | Holm FWER (3 null pairs of 10) | max-T non-coverage (all 10) | "
        "Bonferroni non-coverage | mean c max-T / Bonferroni |"
    )
    print("|---|---|---|---|---|---|")
    for k in (1, 10):
        for n in (100, 800):
            u = draw_u(rng, shifts, n, reps)
            correct = rng.binomial(k, u)
            holm = maxt = bonf = 0
            cs = []
            for r in range(reps):
                ds = from_arrays(correct[r], np.full((5, n), k))
                mat = pair_noise_dataset(ds)
                p = adjust_pvalues(mat["p_value"].values[ia, ib], "holm")
                holm += bool(np.any(p[null] <= 0.05))
                for method in ("max-t", "bonferroni"):
                    out = simultaneous_intervals(ds, method=method, n_draws=20_000, random_seed=r)
                    miss = np.any(
                        (out["simultaneous_low"] > true_diff)
                        | (out["simultaneous_high"] < true_diff)
                    )
                    if method == "max-t":
                        maxt += bool(miss)
                        cs.append(out.attrs["critical_value"])
                    else:
                        bonf += bool(miss)
                        cb = out.attrs["critical_value"]
            print(
                f"| {k} | {n} | {rate(holm, reps)} | {rate(maxt, reps)} | {rate(bonf, reps)} | "
                f"{np.mean(cs):.3f} / {cb:.3f} |",
                flush=True,
            )


def calibration_table(reps, rng, n=200, k=5, draws=1000):
    """P(best) of all models pooled, binned, against how often the model is the true best."""
    edges = np.array([0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0 + 1e-9])
    print(f"\nP(best) calibration, 4 models, N = {n}, K = {k}, logit shifts ~ Normal(0, 0.15^2)")
    print("| method | truth | bin | models | mean P(best) | frequency best |")
    print("|---|---|---|---|---|---|")
    for method in ("bootstrap", "bayes"):
        pred, hit = [], []
        for r in range(reps):
            shifts = rng.normal(0, 0.15, size=4)
            u = draw_u(rng, shifts, n, 1)[0]
            correct = rng.binomial(k, u)
            if method == "bootstrap":
                best = np.argmax(population_means(shifts, rng, 200_000))
            else:
                best = np.argmax(u.mean(axis=-1))  # on these questions
            names = [f"m{j}" for j in range(4)]
            table = (
                rank_table(
                    from_arrays(correct, np.full((4, n), k), models=names),
                    method=method,
                    draws=draws,
                    random_seed=r,
                )
                .set_index("model")
                .loc[names]
            )
            pred.extend(table["p_best"])
            hit.extend(np.arange(4) == best)
        pred, hit = np.array(pred), np.array(hit, dtype=float)
        about = "population" if method == "bootstrap" else "these questions"
        for lo, hi in itertools.pairwise(edges):
            sel = (pred >= lo) & (pred < hi)
            if sel.sum():
                print(
                    f"| {method} | {about} | [{lo:.1f}, {min(hi, 1):.1f}) | {sel.sum()} | "
                    f"{pred[sel].mean():.3f} | {rate(hit[sel].sum(), sel.sum())} |"
                )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--family-reps", type=int, default=1000)
    ap.add_argument("--calibration-reps", type=int, default=500)
    args = ap.parse_args()
    rng = np.random.default_rng(20240611)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # K = 1: the split is not identifiable (irrelevant here)
        pvalue_table(args.reps, rng)
        family_table(args.family_reps, rng)
        calibration_table(args.calibration_reps, rng)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
