"""Crossed designs where users step off the grid of ``studies/noises.py`` (issue 37, item 12):
two or three templates, a template component estimated at or below 0, and cells missing more
often for hard questions. Coverage and bias before and after the fallback and the additive
estimate of :mod:`bayesnoise.frequentist.crossed`.

Simulation machinery, not library API. Two models, 0/1 scores from the logit model of
``studies/noises.py`` (alpha_A = 0.6, alpha_B = 0.3, question / template / model x template /
question x template SDs 1.2 / 0.4 / 0.25 / 0.6 on the logit scale; truths by Gauss-Hermite
quadrature). Missing cells (``missing`` = "question" or "cell", 30% on average): a cell is
missing with probability ``expit(logit(0.3) - 1.2 z)``, z the question's standardised logit
effect u_q / 1.2 ("question": hard questions lose more cells) or the cell's standardised
logit u_q + v_t + x_t + w_qt ("cell": hard cells are lost more); "random": 30% at random. Each
model loses its own cells (a pair uses the cells both have); every question keeps one cell.

Before: the mean of template means; over the template population the Satterthwaite t
interval on the untruncated variance where the template component is > 0, else the
these-templates SE and df (N - 1); no clipping. After: the package (additive estimate with
missing cells; T = 2 on 1 df; component <= 0: the template term's df; ends clipped to [0, 1]
or [-1, 1]). Per-question-first (each question's mean over its cells, then the mean over
questions) is shown for its bias. Monte Carlo SE of a coverage p over R replicates:
sqrt(p (1 - p) / R); of a bias: sd / sqrt(R).

Run: ``nice -n 10 python -m studies.crossed_edges --reps 400 --out benchmarks/results/crossed_edges``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special, stats

from bayesnoise.frequentist.crossed import (
    MISSINGNESS_LEVEL,
    anova_mean_squares,
    cell_means,
    crossed_fit,
    satterthwaite_df,
)
from studies.noises import ALPHA, SU, SV, SW, SX, _expect, population_mean

LEVEL = 0.95
MISSING_RATE = 0.3
MISSING_SLOPE = 1.2
SCOPES = ("A", "B", "A - B")


def simulate(rng, n, t, k, missing):
    """Per model (y, eta, observed, runs), the per-model truths over these templates, and
    the question x template logits (for the missing-cell designs)."""
    u = rng.normal(0, SU, (n, 1))
    v = rng.normal(0, SV, (1, t))
    total = np.sqrt(SU**2 + SV**2 + SX**2 + SW**2)
    cells, fixed = {}, {}
    for m, alpha in ALPHA.items():
        x = rng.normal(0, SX, (1, t))
        effect = u + v + x + rng.normal(0, SW, (n, t))
        correct = rng.binomial(k, special.expit(alpha + effect)).astype(float)
        count = np.full((n, t), k)
        if missing != "none":
            if missing == "question":
                z = u / SU + np.zeros((1, t))
            elif missing == "cell":
                z = effect / total
            else:
                z = np.zeros((n, t))
            p = special.expit(special.logit(MISSING_RATE) - MISSING_SLOPE * z)
            if missing == "random":
                p = np.full((n, t), MISSING_RATE)
            lost = rng.random((n, t)) < p
            lost[np.arange(n), rng.integers(0, t, n)] = False
            count = np.where(lost, 0, count)
            correct = np.where(lost, 0.0, correct)
        y, eta, obs = cell_means(correct, count, correct)
        cells[m] = (y, eta, obs, count)
        fixed[m] = float(_expect(alpha + v[0] + x[0], np.hypot(SU, SW)).mean())
    return cells, fixed


def before_interval(fit, y, obs):
    """The template-population interval before issue 37 (module docs), unclipped."""
    s2_t = fit.components[1]
    if not s2_t > 0:
        se, df = fit.se_fixed, fit.df_fixed
    elif fit.fallback == "":
        se, df = fit.se_random, fit.df_random
    else:  # T = 2, s2_t > 0: Satterthwaite on the untruncated sum (balanced designs only)
        n, t = y.shape
        ms_q, ms_t, ms_qt = anova_mean_squares(y)
        var = (ms_q + ms_t - ms_qt) / (n * t)
        dfs = [n - 1, t - 1, (n - 1) * (t - 1)]
        df = satterthwaite_df([1, 1, -1], [ms_q, ms_t, ms_qt], dfs)
        se = np.sqrt(var) if var > 0 else np.nan
    if not (se > 0 and df >= 1):
        return np.nan, np.nan
    half = stats.t.ppf(0.5 + LEVEL / 2, df) * se
    return fit.estimate - half, fit.estimate + half


def _cover(interval, truth):
    low, high = interval
    return bool(low <= truth <= high)  # NaN: not covered (no interval)


def run_cell(n, t, k, missing, reps, seed):
    rng = np.random.default_rng(seed)
    mu = {m: population_mean(a) for m, a in ALPHA.items()}
    mu["A - B"] = mu["A"] - mu["B"]
    rec = []
    for _ in range(reps):
        cells, fixed = simulate(rng, n, t, k, missing)
        fixed["A - B"] = fixed["A"] - fixed["B"]
        ya, ea, oa, ka = cells["A"]
        yb, eb, ob, kb = cells["B"]
        both = oa & ob
        inputs = {
            "A": (ya, ea, oa, ka, None, (0.0, 1.0)),
            "B": (yb, eb, ob, kb, None, (0.0, 1.0)),
            "A - B": (
                ya - yb,
                None if ea is None else ea + eb,
                both,
                None,
                (ya + yb) / 2,
                (-1.0, 1.0),
            ),
        }
        for scope, (y, eta, obs, runs, diff, bounds) in inputs.items():
            old = crossed_fit(y, eta, obs, runs, estimator="template_means")
            new = crossed_fit(y, eta, obs, runs, difficulty=diff)
            keep = obs.any(axis=1)
            per_q = (np.where(obs, y, 0).sum(1)[keep] / obs.sum(1)[keep]).mean()
            low, high = new.interval(LEVEL, bounds=bounds)
            before = before_interval(old, y, obs)
            rec.append(
                {
                    "scope": scope,
                    "bias_before": old.estimate - mu[scope],
                    "bias_after": new.estimate - mu[scope],
                    "bias_per_question": per_q - mu[scope],
                    "cover_before": _cover(before, mu[scope]),
                    "cover_after": _cover((low, high), mu[scope]),
                    "cover_these_before": _cover(old.interval(LEVEL, fixed=True), fixed[scope]),
                    "cover_these_after": _cover(
                        new.interval(LEVEL, fixed=True, bounds=bounds), fixed[scope]
                    ),
                    "width_before": before[1] - before[0],
                    "width_after": high - low,
                    "component_le_0": not old.components[1] > 0,
                    "clipped": new.clipped(LEVEL, bounds),
                    "warn_missing": new.p_value_missing < MISSINGNESS_LEVEL,
                }
            )
    df = pd.DataFrame(rec)
    rows = []
    for scope in SCOPES:
        d = df[df.scope == scope]
        row = {"N": n, "T": t, "K": k, "missing": missing, "reps": reps, "scope": scope}
        for c in ("bias_before", "bias_after", "bias_per_question"):
            row[c] = d[c].mean()
            row[c.replace("bias", "mcse")] = d[c].std(ddof=1) / np.sqrt(reps)
        for c in ("cover_before", "cover_after", "cover_these_before", "cover_these_after"):
            row[c] = d[c].mean()
        row["width_before_median"] = d["width_before"].median()  # NaN: no interval
        row["width_after_median"] = d["width_after"].median()
        for c in ("component_le_0", "clipped", "warn_missing"):
            row[f"share_{c}"] = d[c].mean()
        rows.append(row)
    return rows


GRID = (
    (100, 2, 1, "none"),
    (500, 2, 5, "none"),
    (100, 3, 1, "none"),
    (100, 5, 1, "none"),
    (200, 4, 1, "random"),
    (200, 4, 1, "question"),
    (200, 4, 1, "cell"),
)


def _markdown(df, reps, seconds, command):
    mc = np.sqrt(0.95 * 0.05 / reps)
    lines = [
        "# crossed designs off the grid: T = 2, 3, 5 and cells missing by difficulty",
        "",
        f"Command: `{command}` (studies/crossed_edges.py; its docstring gives the generator).",
        f"R = {reps} replicates per cell, seeded; MCSE of a coverage at 0.95: {mc:.4f}. "
        f"Wall time {seconds:.0f} s. Coverage of the 0.95 intervals over the template "
        "population (`cover_*`) and these templates (`cover_these_*`); bias of the point "
        "estimate (mcse: its Monte Carlo SE); `share_component_le_0`: the template (for A - B "
        "model x template) component estimated <= 0; `share_clipped`: interval ends cut to "
        f"the score's range; `share_warn_missing`: Kendall missingness p < {MISSINGNESS_LEVEL}.",
        "",
    ]
    show = df.copy()
    for c in show.columns:
        if c.startswith(("bias", "mcse")):
            show[c] = show[c].map(lambda v: f"{v:+.4f}")
        elif c.startswith(("cover", "share", "width")):
            show[c] = show[c].map(lambda v: f"{v:.3f}")
    cols = list(show.columns)
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("|" + "---|" * len(cols))
    for _, r in show.iterrows():
        lines.append("| " + " | ".join(str(r[c]) for c in cols) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=400)
    p.add_argument("--out", type=Path, default=Path("benchmarks/results/crossed_edges"))
    args = p.parse_args(argv)
    command = "nice -n 10 python -m studies.crossed_edges " + " ".join(argv or sys.argv[1:])
    start = time.time()
    rows = []
    for i, (n, t, k, missing) in enumerate(GRID):
        for row in run_cell(n, t, k, missing, args.reps, seed=3700 + i):
            rows.append(row)
            print({c: (round(v, 4) if isinstance(v, float) else v) for c, v in row.items()})
    df = pd.DataFrame(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out.with_suffix(".csv"), index=False)
    args.out.with_suffix(".md").write_text(_markdown(df, args.reps, time.time() - start, command))


if __name__ == "__main__":
    main()
