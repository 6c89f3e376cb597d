"""Fit a real benchmark both ways -- closed forms (empirical Bayes) and full Bayes by MCMC.

Uses the bundled CRUXEval-output extract (8 models x 800 questions, K = 10 samples each;
MIT licence, see examples/data/NOTICE). Prints, per model, the population accuracy mu, the
expected accuracy on these questions ubar and the concentration kappa from
``bayesnoise.conjugate.posterior_table`` next to ``bayesnoise.mcmc.posterior_table_mcmc``
(marginal Beta-Binomial model, NUTS), then the same for the paired differences of the first
few pairs (conjugate: independent per-model posteriors plus a Bayesian bootstrap over questions;
MCMC: the joint model with shared question difficulties).

Run:  python examples/compare_conjugate_mcmc.py [--by pair] [--sampler nutpie] [--draws 1000]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

import bayesnoise as bn
from bayesnoise import conjugate
from bayesnoise.mcmc import posterior_table_mcmc

DATA = Path(__file__).resolve().parent / "data" / "cruxeval_output_temp0.8.csv.gz"


def side_by_side(cf: pd.DataFrame, mc: pd.DataFrame, keys: list[str], cols: dict[str, str]):
    """Closed-form columns (keys of ``cols``) beside their MCMC counterparts (values)."""
    merged = cf[keys + list(cols)].merge(mc[keys + list(cols.values())], on=keys)
    return merged[keys + [c for pair in cols.items() for c in pair]]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--by", choices=("model", "pair"), default="model", help="pair: also paired differences"
    )
    ap.add_argument("--sampler", default="pymc", choices=("pymc", "nutpie", "numpyro"))
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--rng", type=int, default=0)
    args = ap.parse_args(argv)
    ds = bn.load(DATA)
    print(
        f"{ds.attrs['benchmark']}: {ds.sizes['model']} models x {ds.sizes['question']} questions\n"
    )
    pd.set_option("display.width", 200)
    pd.set_option("display.float_format", "{:.4f}".format)

    t = time.perf_counter()
    cf = conjugate.posterior_table(ds, rng=args.rng)
    t_cf = time.perf_counter() - t
    t = time.perf_counter()
    mc = posterior_table_mcmc(
        ds, sampler=args.sampler, draws=args.draws, rng=args.rng, progress=False
    )
    t_mc = time.perf_counter() - t
    print(
        f"Per model (closed forms {t_cf:.2f} s, MCMC {t_mc:.1f} s, "
        f"MCMC diagnostics ok: {mc.attrs['converged']})"
    )
    print(
        side_by_side(
            cf,
            mc,
            ["model"],
            {
                "mu": "mu_beta",
                "mu_low": "mu_beta_low",
                "mu_high": "mu_beta_high",
                "ubar": "ubar_mcmc",
                "ubar_low": "ubar_mcmc_low",
                "ubar_high": "ubar_mcmc_high",
                "kappa_median": "kappa_median_mcmc",
            },
        ).to_string(index=False)
    )

    if args.by == "pair":
        t = time.perf_counter()
        cfp = conjugate.posterior_pairs_table(ds, rng=args.rng)
        t_cf = time.perf_counter() - t
        t = time.perf_counter()
        mcp = posterior_table_mcmc(
            ds,
            by="pair",
            sampler=args.sampler,
            draws=args.draws,
            rng=args.rng,
            progress=False,
        )
        t_mc = time.perf_counter() - t
        print(
            f"\nPairs (closed forms {t_cf:.2f} s, joint-model MCMC {t_mc:.1f} s, "
            f"diagnostics ok: {mcp.attrs['converged']})"
        )
        cols = {
            "dbar": "dbar_mcmc",
            "dbar_low": "dbar_mcmc_low",
            "dbar_high": "dbar_mcmc_high",
            "prob_a_better": "prob_a_better_mcmc",
            "mu_difference_low": "mu_beta_difference_low",
            "mu_difference_high": "mu_beta_difference_high",
        }
        print(side_by_side(cfp, mcp, ["model_a", "model_b"], cols).head(10).to_string(index=False))


if __name__ == "__main__":
    main()
