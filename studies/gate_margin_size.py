"""Size and power of ``check --margin`` (issue 37 item 2): the fixed-N margin tests against the
betting test they replace.

Null replicates at the margin: :func:`studies.ci_decisions.population` (correlated Beta
difficulties) with the candidate moved on the logit scale so that the population difference is
exactly ``-margin`` (:func:`studies.ci_decisions.shifted`), margin 0.01, two shapes (mean
accuracy 0.6, kappa 1; 0.9, kappa 3: most questions tied at K = 1), N = 30, 100, 500
questions, K = 1 and 5 samples. The gate is :func:`bayesnoise.decide.regression_tests.
paired_regression_test` as ``check`` calls it (alpha 0.05; K = 1 with ``binary=True``). Size
must be at most ``alpha + 2 MCSE``, MCSE = ``sqrt(alpha (1 - alpha) / R)``. Power: the same
with the population difference ``-margin - 0.05``. Beside it, the betting test (the last
always-valid p-value of :func:`bayesnoise.decide.sequential.always_valid_pvalues`, questions
in a random order: what ``check`` used before) on the first ``R_BETTING`` replicates.

At K = 1 the exact unconditional test rejects exactly when Tango's Z is at most a critical
value (its p-value grows with the observed Z: the tail region only grows), found by bisection
over the attainable Z values; the study uses it (checked against the gate on the first 30
replicates of each cell) and also reports the test's exact size at the margin, the largest
over the nuisance of ``P(Z <= critical)`` (``exact_size_sup``), and the same for Tango's score
test with the normal critical value (``score_size_sup``), which is why the exact test decides
up to ``EXACT_N`` questions.

Run: ``nice -n 10 python -m studies.gate_margin_size`` (about 6 min on a loaded 2-core
machine); writes ``benchmarks/results/gate_margin_size.csv`` and ``.md``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special

from bayesnoise.decide.regression_tests import paired_regression_test
from bayesnoise.decide.sequential import always_valid_pvalues
from bayesnoise.frequentist.margin_tests import (
    _tail_probability,
    _tail_thresholds,
    paired_proportions_exact_test,
    paired_proportions_score,
)

from .ci_decisions import draw, population, shifted

ALPHA = 0.05
MARGIN = 0.01
SHAPES = {"mu 0.6, kappa 1": (0.6, 1.0), "mu 0.9, kappa 3": (0.9, 3.0)}
R_K1, R_K5, R_BOOT, R_BETTING = 2000, 2000, 1000, 400


def exact_critical(n: int, null: float) -> float:
    """Largest attainable Z whose exact unconditional p-value is below ALPHA (-inf: none)."""
    s_all, w_all = np.tril_indices(n + 1)
    z_all = paired_proportions_score(w_all, s_all - w_all, n, null)
    order = np.argsort(z_all, kind="stable")
    z = z_all[order]
    lo, hi = -1, z.size - 1  # p(z[lo]) < ALPHA (lo = -1: none)

    def p(i):
        j = order[i]
        return paired_proportions_exact_test(w_all[j], s_all[j] - w_all[j], n, null)["p_value"]

    if p(hi) < ALPHA:
        return float(z[hi])
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if p(mid) < ALPHA:
            lo = mid
        else:
            hi = mid
    return float(z[lo]) if lo >= 0 else -np.inf


def size_sup(n: int, null: float, critical: float) -> float:
    """max over the nuisance of P(Z <= critical) on the null boundary (exact)."""
    k, regions = _tail_thresholds(n, null, critical)
    qs = np.linspace(max(0.0, -null), (1.0 - null) / 2.0, 2000)
    return float(_tail_probability(qs, n, null, k, regions).max())


def betting_flags(d: np.ndarray, rng) -> np.ndarray:
    out = []
    for x in d:
        order = rng.permutation(x)
        p = always_valid_pvalues(order, null=-MARGIN, alternative="less")[0][-1]
        out.append(p < ALPHA)
    return np.array(out)


def cell(shape, n, k, delta, crit_cache) -> dict:
    mu, kappa = SHAPES[shape]
    u = shifted(population(np.random.default_rng(20370537), 20_000, mu=mu, kappa=kappa), delta)
    seed = [n, k, round(-delta * 1000), int(mu * 10)]
    reps = R_K1 if k == 1 else R_K5
    p = draw(np.random.default_rng(seed), u, reps, n, k)
    d = p[1] - p[0]
    tests = []
    if k == 1:
        if n not in crit_cache:
            crit_cache[n] = exact_critical(n, -MARGIN)
        crit = crit_cache[n]
        wins, losses = (d > 0).sum(1), (d < 0).sum(1)
        z = paired_proportions_score(wins, losses, n, -MARGIN)
        flags = z <= crit + 1e-9 * max(1.0, abs(crit))
        for x, f in zip(d[:30], flags[:30], strict=True):  # the shortcut is the gate
            r = paired_regression_test(x, margin=MARGIN, binary=True)
            assert (r["p_value_regression"] < ALPHA) == f, (n, shape)
        tests = ["exact unconditional"] * reps
    else:
        flags, tests = [], []
        for i, x in enumerate(d):
            if i >= R_BOOT and tests and tests[0] == "studentized bootstrap":
                break
            r = paired_regression_test(x, margin=MARGIN, binary=False, n_resamples=4000)
            flags.append(r["p_value_regression"] < ALPHA)
            tests.append(r["test"])
        flags = np.array(flags)
    reps = flags.size
    bet = betting_flags(d[:R_BETTING], np.random.default_rng([*seed, 1]))
    out = {
        "shape": shape,
        "N": n,
        "K": k,
        "delta": delta,
        "replicates": reps,
        "rejection": flags.mean(),
        "mcse": np.sqrt(flags.mean() * (1 - flags.mean()) / reps),
        "limit_alpha_2mcse": ALPHA + 2 * np.sqrt(ALPHA * (1 - ALPHA) / reps),
        "tests": ", ".join(f"{t} {c}" for t, c in pd.Series(tests).value_counts().items()),
        "betting_replicates": bet.size,
        "betting_rejection": bet.mean(),
    }
    if k == 1 and delta == -MARGIN:
        out["exact_size_sup"] = size_sup(n, -MARGIN, crit_cache[n])
        out["score_size_sup"] = size_sup(n, -MARGIN, float(special.ndtri(ALPHA)) - 1e-9)
    return out


def main() -> None:
    start = time.time()
    rows, crit = [], {}
    for delta in (-MARGIN, -MARGIN - 0.05):
        for k in (1, 5):
            for n in (30, 100, 500):
                for shape in SHAPES:
                    rows.append(cell(shape, n, k, delta, crit))
                    print(rows[-1], f"{time.time() - start:.0f} s", file=sys.stderr)
    out = pd.DataFrame(rows)
    folder = Path(__file__).resolve().parents[1] / "benchmarks" / "results"
    out.to_csv(folder / "gate_margin_size.csv", index=False)
    null = out[out["delta"] == -MARGIN]
    ok = bool((null["rejection"] <= null["limit_alpha_2mcse"]).all())
    head = (
        "# check --margin: size at the margin and power (issue 37 item 2)\n\n"
        "Written by `nice -n 10 python -m studies.gate_margin_size` "
        f"({time.time() - start:.0f} s). Margin {MARGIN}, alpha {ALPHA}. Rows with delta "
        f"{-MARGIN} are null replicates at the margin (size), delta {-MARGIN - 0.05:.2f} power. "
        "`rejection`: the gate (the test it picked in `tests`); `betting_rejection`: the "
        "betting test it replaced, on the first `betting_replicates`. `exact_size_sup` / "
        "`score_size_sup`: exact size at the margin, the largest over the nuisance, of the "
        "exact unconditional test and of Tango's score test at the same N (K = 1).\n\n"
        f"Every null cell within alpha + 2 MCSE: {ok}.\n\n"
    )
    (folder / "gate_margin_size.md").write_text(
        head + out.to_markdown(index=False, floatfmt=".4f") + "\n"
    )


if __name__ == "__main__":
    main()
