"""Issue 8 on real data: per-model fits whose kappa sits at a bound, and what integrating over
kappa did to their intervals.

For every (table, model) of the 53 all-the-noises tables in ``../shared/data``: the conjugate
per-model posterior as the package computes it (kappa integrated on its grid under its prior,
``kappa_status`` telling where the likelihood peaks), against the plug-in the package used to
print: kappa fixed at the grid node of highest likelihood (the maximum-likelihood kappa,
bounded to [0.01, 10,000]; at a bound fit it is that bound) and the rest of the table computed
the same way. Printed: how many fits are at each bound, and for those the ratio new / plug-in of
the width of the ``ubar`` and ``mu`` intervals (median and range). ``mu`` is the model-free
Dirichlet posterior, which does not depend on kappa, so its ratio is 1 by construction; the
``ubar`` ratio is the change.

Run: .venv/bin/python benchmarks/real_kappa_bounds.py   (~2 minutes on 2 cores)
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import bayesnoise as bn
from bayesnoise.conjugate import fit_empirical_bayes, posterior_table
from bayesnoise.data import beta_binomial_counts

DATA = Path(__file__).resolve().parents[1].parent / "shared/data/all-the-noises"
LOG_SD = 1.5  # the default prior of log kappa, N(0, 1.5^2): removed to get the likelihood


def plug_in_kappa(fit) -> np.ndarray:
    """Per model, the grid node of log kappa with the highest likelihood (prior removed)."""
    lam, w = fit.grid_lam, fit.grid_weight
    with np.errstate(divide="ignore"):
        loglik = np.log(w) + 0.5 * (lam / LOG_SD) ** 2
    return np.exp(lam[np.arange(lam.shape[0]), np.argmax(loglik, axis=1)])


def one_table(path: Path) -> pd.DataFrame:
    ds = bn.load(path, progress=False)
    new = posterior_table(ds, progress=False)
    c, k = beta_binomial_counts(ds)
    fit = fit_empirical_bayes(c, k, warn=False)
    kappa_old = plug_in_kappa(fit)
    rows = []
    for m, status in enumerate(new["kappa_status"]):
        if status not in ("at lower bound", "at upper bound"):
            rows.append({"status": status})
            continue
        old = posterior_table(ds.isel(model=[m]), kappa=float(kappa_old[m]), progress=False)
        n, o = new.iloc[m], old.iloc[0]
        rows.append(
            {
                "status": status,
                "table": f"{path.parent.name}/{path.name}",
                "model": n["model"],
                "accuracy": n["accuracy"],
                "kappa_plug_in": kappa_old[m],
                "ubar_ratio": (n.ubar_high - n.ubar_low) / (o.ubar_high - o.ubar_low),
                "mu_ratio": (n.mu_high - n.mu_low) / (o.mu_high - o.mu_low),
            }
        )
    return pd.DataFrame(rows)


def main() -> None:
    t0 = time.perf_counter()
    files = sorted(DATA.glob("*/input_table_*.csv"))
    if not files:
        raise SystemExit(f"no tables under {DATA}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the per-model kappa notes; the status is the column
        df = pd.concat([one_table(f) for f in files], ignore_index=True)
    print(f"{len(df)} (table, model) fits on {len(files)} tables")
    print(df["status"].value_counts().to_string())
    print("\n| status | fits | ubar width new / plug-in: median (min-max) | mu width ratio |")
    print("|---|---|---|---|")
    for status in ("at lower bound", "at upper bound"):
        sel = df[df["status"] == status]
        if sel.empty:
            continue
        u, m = sel["ubar_ratio"], sel["mu_ratio"]
        print(
            f"| {status} | {len(sel)} | {u.median():.2f} ({u.min():.2f}-{u.max():.2f}) | "
            f"{m.median():.2f} ({m.min():.2f}-{m.max():.2f}) |"
        )
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
