"""Why the unbalanced crossed design uses moments, not REML: bias of statsmodels MixedLM REML
against the U-statistic moment estimators of :mod:`bayesnoise.frequentist.crossed`.

Gaussian cell means y_qt = mu + u_q + v_t + r_qt with 20% of the cells missing, N = 100
questions (``--n``), T = 3 or 5 templates; s2_q = 0.04, s2_t = 0.003 (small next to its SE with few
templates, so REML's estimate often sits on the boundary 0), residual 0.05. Mean of R
estimates and its Monte Carlo SE, and the time per fit. Run:
``python -m studies.noises_reml --reps 200``; writes benchmarks/results/noises_reml.md.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bayesnoise.frequentist.crossed import moment_components

TRUE = np.array([0.04, 0.003, 0.05])


def _reml(y, obs):
    import statsmodels.api as sm

    q, t = np.nonzero(obs)
    frame = pd.DataFrame({"y": y[q, t], "q": q, "t": t, "g": 1})
    model = sm.MixedLM.from_formula(
        "y ~ 1",
        groups="g",
        vc_formula={"q": "0 + C(q)", "t": "0 + C(t)"},
        re_formula="0",
        data=frame,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = model.fit(reml=True, method=["lbfgs"])
    return np.array([fit.vcomp[0], fit.vcomp[1], fit.scale])


def cell(n, t, reps, rng):
    est = {"reml": [], "moments": []}
    seconds = {"reml": 0.0, "moments": 0.0}
    for _ in range(reps):
        sd = np.sqrt(TRUE)
        y = 0.6 + rng.normal(0, sd[0], (n, 1)) + rng.normal(0, sd[1], (1, t))
        y = y + rng.normal(0, sd[2], (n, t))
        obs = rng.random((n, t)) >= 0.2
        start = time.perf_counter()
        est["reml"].append(_reml(y, obs))
        seconds["reml"] += time.perf_counter() - start
        start = time.perf_counter()
        est["moments"].append(moment_components(y, None, obs))
        seconds["moments"] += time.perf_counter() - start
    rows = []
    for method, values in est.items():
        values = np.array(values)
        mean = values.mean(0)
        mcse = values.std(0, ddof=1) / np.sqrt(reps)
        rows.append(
            {
                "T": t,
                "method": method,
                **{f"{c}_mean": m for c, m in zip(("s2_q", "s2_t", "resid"), mean, strict=True)},
                **{
                    f"{c}_z": z
                    for c, z in zip(("s2_q", "s2_t", "resid"), (mean - TRUE) / mcse, strict=True)
                },
                "ms_per_fit": 1000 * seconds[method] / reps,
                "s2_t_at_or_below_0": float(np.mean(values[:, 1] <= 1e-10)),
            }
        )
    return rows


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=200)
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--templates", type=int, nargs="+", default=[3, 5])
    p.add_argument("--out", type=Path, default=Path("benchmarks/results/noises_reml.md"))
    args = p.parse_args(argv)
    rng = np.random.default_rng(0)
    rows = [r for t in args.templates for r in cell(args.n, t, args.reps, rng)]
    lines = [
        "# REML (statsmodels MixedLM) against moments on unbalanced crossed designs",
        "",
        f"Gaussian, N = {args.n}, 20% of cells missing, truth s2_q = {TRUE[0]}, s2_t = {TRUE[1]}, "
        f"residual = {TRUE[2]}; R = {args.reps}; z = (mean - truth) / MCSE.",
        "",
        "| T | method | s2_q mean | z | s2_t mean | z | s2_t <= 0 | residual mean | z | ms per fit |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['T']} | {r['method']} | {r['s2_q_mean']:.5f} | {r['s2_q_z']:+.2f} | "
            f"{r['s2_t_mean']:.5f} | {r['s2_t_z']:+.2f} | {r['s2_t_at_or_below_0']:.2f} | "
            f"{r['resid_mean']:.5f} | "
            f"{r['resid_z']:+.2f} | {r['ms_per_fit']:.1f} |"
        )
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
