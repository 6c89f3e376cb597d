"""Closed-form ``ubar`` intervals against MCMC on near-deterministic models (issue 37 item 7).

Data: all-the-noises ``lowk_temp1`` human_eval_plus (51 models, K 2-13 samples per question),
read from ``../shared/data`` (third-party, not in the package). Two steps:

``mcmc``
    ``bn.posterior(..., method="mcmc", draws=2500, tune=1000, chains=4)`` once; the table is
    saved to ``benchmarks/results/kappa_floor_mcmc.csv`` (slow: tens of minutes on 2 cores).
``compare``
    the closed form (``bn.posterior(..., ubar_prior="beta")``, the same Beta population as the
    MCMC model) against the saved MCMC widths: ratio of ``ubar`` interval widths, kappa medians
    and ``kappa_status``, written to ``benchmarks/results/kappa_floor_<label>.csv``.

Run from the repository root::

    PYTHONPATH=. nice -n 10 python -m studies.kappa_floor mcmc
    PYTHONPATH=. python -m studies.kappa_floor compare --label after

The MCMC interval ends are Monte Carlo estimates: with 10,000 draws (ESS of a few thousand)
the width of a 95% interval has a relative MCSE of roughly 1-2%.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

import bayesnoise as bn

DATA = Path("../shared/data/all-the-noises/lowk_temp1/input_table_human_eval_plus.csv")
OUT = Path("benchmarks/results")
MCMC_CSV = OUT / "kappa_floor_mcmc.csv"


def _mcmc(draws=2500, tune=1000, chains=4, rng=0):
    t0 = time.time()
    r = bn.posterior(
        DATA, method="mcmc", draws=draws, tune=tune, chains=chains, rng=rng, progress=False
    )
    df = r.to_dataframe().reset_index()
    df.attrs = {}
    OUT.mkdir(parents=True, exist_ok=True)
    with open(MCMC_CSV, "w") as fh:
        fh.write(
            f"# PYTHONPATH=. nice -n 10 python -m studies.kappa_floor mcmc "
            f"(draws={draws}, tune={tune}, chains={chains}, rng={rng}; "
            f"{time.time() - t0:.0f} s)\n"
        )
        df.to_csv(fh, index=False)
    print(f"wrote {MCMC_CSV} in {time.time() - t0:.0f} s")


def _compare(label):
    mc = pd.read_csv(MCMC_CSV, comment="#")
    r = bn.posterior(DATA, ubar_prior="beta", progress=False)
    cf = r.to_dataframe().reset_index()
    out = pd.DataFrame(
        {
            "model": cf["model"],
            "accuracy": cf["accuracy"],
            "kappa_median": cf["kappa_median"],
            "kappa_status": cf["kappa_status"],
            "ubar_low": cf["ubar_low"],
            "ubar_high": cf["ubar_high"],
        }
    ).merge(mc[["model", "kappa_median_mcmc", "ubar_mcmc_low", "ubar_mcmc_high"]], on="model")
    out["width_ratio"] = (out["ubar_high"] - out["ubar_low"]) / (
        out["ubar_mcmc_high"] - out["ubar_mcmc_low"]
    )
    path = OUT / f"kappa_floor_{label}.csv"
    with open(path, "w") as fh:
        fh.write(f"# PYTHONPATH=. python -m studies.kappa_floor compare --label {label}\n")
        out.to_csv(fh, index=False, float_format="%.6g")
    far = out[(out["width_ratio"] - 1).abs() > 0.10]
    print(
        f"{label}: width ratio closed/MCMC min {out['width_ratio'].min():.3f} "
        f"max {out['width_ratio'].max():.3f}; {len(far)} of {len(out)} models off by > 10%; "
        f"'at lower bound': {(out['kappa_status'] == 'at lower bound').sum()}"
    )
    print(out.sort_values("width_ratio").tail(6).to_string(index=False))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("step", choices=("mcmc", "compare"))
    p.add_argument("--label", default="after")
    p.add_argument("--draws", type=int, default=2500)
    p.add_argument("--chains", type=int, default=4)
    a = p.parse_args(argv)
    if not DATA.exists():
        sys.exit(f"{DATA}: not found (reference data beside the project)")
    if a.step == "mcmc":
        _mcmc(draws=a.draws, chains=a.chains)
    else:
        _compare(a.label)


if __name__ == "__main__":
    main()
