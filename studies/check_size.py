"""Size of ``check`` (the one-sided regression gate) on null evals with few questions.

Issue 28 item 1: over 1,000 null replicates at N = 10, 20, 30 questions and K = 1 and 5
samples per question, the gate (as ``bn.check`` calls it: :func:`bayesnoise.decide.gate.gate`,
margin 0, alpha 0.05) must flag a regression at most ``alpha + 2 MCSE`` of the time, MCSE =
``sqrt(alpha (1 - alpha) / R)``. Null: the baseline and the candidate are exchangeable
(:func:`studies.ci_decisions.population`: correlated Beta difficulties held in both orders,
population difference exactly 0); two shapes: mean accuracy 0.6 (kappa 1) and 0.9 (kappa 3,
most questions tied at K = 1). Beside the gate: the paired t test alone (what ``check`` did
before), and the share of replicates the exact tests decided.

A margin row: at the boundary ``delta = -margin`` (candidate shifted on the logit scale,
:func:`studies.ci_decisions.shifted`), margin 0.05, where the fixed-N margin tests decide
(K = 1: the exact unconditional test; K > 1: max(t, bootstrap-t) below 100 questions; the
betting test decided here before issue 37). The full margin study:
``studies/gate_margin_size.py``.

Run: ``nice -n 10 python -m studies.check_size`` (about 1 min); writes
``benchmarks/results/check_size.csv`` and ``.md``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special

from bayesnoise.decide.gate import gate

from .ci_decisions import draw, population, shifted

ALPHA = 0.05
SHAPES = {"mu 0.6, kappa 1": (0.6, 1.0), "mu 0.9, kappa 3": (0.9, 3.0)}


def t_flags(d: np.ndarray, margin: float) -> np.ndarray:
    """The one-sided paired t test alone (reps, n): what ``check`` used everywhere before;
    zero variance counted as the old code did (p = 0 when every difference is negative)."""
    n = d.shape[1]
    mean, sd = d.mean(1), d.std(1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean + margin) / (sd / np.sqrt(n))
    p = np.where(sd > 0, special.stdtr(n - 1, t), np.where(mean + margin < 0, 0.0, 1.0))
    return p < ALPHA


def run(reps: int = 1000, seed: int = 20261127) -> pd.DataFrame:
    rows = []
    for shape, (mu, kappa) in SHAPES.items():
        u0 = population(np.random.default_rng(seed), 20_000, mu=mu, kappa=kappa)
        for margin in (0.0, 0.05):
            u = u0 if margin == 0 else shifted(u0, -margin)
            for k in (1, 5):
                for n in (10, 20, 30):
                    rng = np.random.default_rng([seed, n, k, int(margin * 100), int(mu * 10)])
                    p = draw(rng, u, reps, n, k)
                    d = p[1] - p[0]
                    start = time.perf_counter()
                    res = [gate(x, margin=margin, alpha=ALPHA, rng=i) for i, x in enumerate(d)]
                    secs = time.perf_counter() - start
                    flags = np.array([r.regression for r in res])
                    exact = np.array([r.test != "t" for r in res])
                    rate = flags.mean()
                    rows.append(
                        {
                            "shape": shape,
                            "margin": margin,
                            "samples_per_question": k,
                            "questions": n,
                            "replicates": reps,
                            "flag_rate": rate,
                            "mcse": np.sqrt(ALPHA * (1 - ALPHA) / reps),
                            "limit": ALPHA + 2 * np.sqrt(ALPHA * (1 - ALPHA) / reps),
                            "flag_rate_t_only": t_flags(d, margin).mean(),
                            "share_exact": exact.mean(),
                            "tests": ",".join(sorted({r.test for r in res})),
                            "ms_per_gate": 1000 * secs / reps,
                        }
                    )
                    print(rows[-1], file=sys.stderr)
    out = pd.DataFrame(rows)
    out["ok"] = out["flag_rate"] <= out["limit"]
    return out


def markdown(df: pd.DataFrame) -> str:
    """A markdown table (floats to 4 decimals) without the optional tabulate."""

    def cell(v):
        return f"{v:.4f}" if isinstance(v, float) else str(v)

    lines = ["| " + " | ".join(df.columns) + " |", "|" + "---|" * df.shape[1]]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(False)]
    return "\n".join(lines)


def main() -> None:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    out = run(reps)
    folder = Path(__file__).resolve().parents[1] / "benchmarks" / "results"
    out.to_csv(folder / "check_size.csv", index=False)
    head = (
        "# check: size on null evals with few questions (issue 28 item 1)\n\n"
        f"{reps} null replicates per cell, alpha = {ALPHA}, limit = alpha + 2 MCSE = "
        f"{out['limit'].iloc[0]:.4f}. flag_rate: the gate as `check` runs it; "
        "flag_rate_t_only: the paired t test alone (the gate before issue 28); share_exact: "
        "replicates decided by an exact test. Generated by `python -m studies.check_size`.\n\n"
    )
    (folder / "check_size.md").write_text(head + markdown(out) + "\n")
    print(out.to_string())


if __name__ == "__main__":
    main()
