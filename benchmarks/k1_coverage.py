"""Issue 20 item 3: ``ubar`` / ``dbar`` coverage at K = 1, before and after the binomial bound.

"Before" is ``ubar_prior="beta"`` (the Beta population with kappa integrated over its prior,
which K = 1 data cannot check: the default before the bound); "after" is the default
``ubar_prior="auto"`` (the binomial bound at K = 1: Jeffreys posterior of each model's ubar,
the difference of two of them for dbar). Cells: difficulty shape {beta, twopoint, mixture,
2pl} x mu {0.05, 0.5, 0.9} x kappa {0.5, 1, 5, 100} x N {100, 500, 2000}, K = 1, R replicates
per cell; machinery in ``studies/k1.py``. MCSE of a coverage p from R replicates:
sqrt(p (1 - p) / R) (0.011 at p = 0.95, R = 400). Prints one markdown table per quantity with
coverage (MCSE), median width and the after / before width ratio, and writes the rows to CSV.

Usage::

    python benchmarks/k1_coverage.py --prior auto --csv /tmp/after.csv     # one arm
    python benchmarks/k1_coverage.py --prior beta --csv /tmp/before.csv
    python benchmarks/k1_coverage.py --table /tmp/before.csv /tmp/after.csv  # the tables
    python benchmarks/k1_coverage.py --replicates 100 --ns 100 --shapes beta  # quick
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from studies import k1 as study  # noqa: E402

BAND = (0.93, 0.97)


def run(prior, shapes, mus, kappas, ns, replicates, log):
    rows = []
    t0 = time.time()
    for shape in shapes:
        for mu in mus:
            for kappa in kappas:
                for n in ns:
                    base = {"shape": shape, "mu": mu, "kappa": kappa, "n": n, "prior": prior}
                    base["implied_kappa"] = study.implied_kappa(shape, mu, kappa)
                    for what, fn in (("ubar", study.ubar_cell), ("dbar", study.pair_cell)):
                        out = fn(shape, mu, kappa, n, replicates, ubar_prior=prior)
                        rows.append({**base, "quantity": what, "replicates": replicates, **out})
                    print(
                        f"{time.time() - t0:7.0f}s {prior} {shape} mu={mu} kappa={kappa} N={n}: "
                        f"ubar {rows[-2]['coverage']:.3f} dbar {rows[-1]['coverage']:.3f}",
                        file=log,
                        flush=True,
                    )
    return pd.DataFrame(rows)


def table(before: pd.DataFrame, after: pd.DataFrame) -> str:
    keys = ["quantity", "shape", "mu", "kappa", "n"]
    m = before.merge(after, on=keys, suffixes=("_b", "_a"))
    lines = []
    for what, grp in m.groupby("quantity", sort=False):
        lines += [
            f"\n### {what} at K = 1 (coverage (MCSE), median width; target {BAND[0]}-{BAND[1]})\n",
            "| shape | mu | kappa (implied) | N | before: coverage | before: width "
            "| after: coverage | after: width | width after / before |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for _, r in grp.iterrows():
            flag = (
                ""
                if BAND[0] <= r.coverage_a <= BAND[1]
                else (" (over)" if r.coverage_a > BAND[1] else " (UNDER)")
            )
            lines.append(
                f"| {r['shape']} | {r.mu:g} | {r.kappa:g} ({r.implied_kappa_a:.3g}) | {r.n} "
                f"| {r.coverage_b:.3f} ({r.mcse_b:.3f}) | {r.width_b:.4f} "
                f"| {r.coverage_a:.3f} ({r.mcse_a:.3f}){flag} | {r.width_a:.4f} "
                f"| {r.width_a / r.width_b:.2f} |"
            )
        a = grp.coverage_a
        lines.append(
            f"\n{what}: after, {((a >= BAND[0]) & (a <= BAND[1])).sum()} of {a.size} cells in "
            f"[{BAND[0]}, {BAND[1]}], {(a > BAND[1]).sum()} above, {(a < BAND[0]).sum()} below "
            f"(min {a.min():.3f}, max {a.max():.3f}); before: "
            f"{((grp.coverage_b >= BAND[0]) & (grp.coverage_b <= BAND[1])).sum()} in band, "
            f"min {grp.coverage_b.min():.3f}, max {grp.coverage_b.max():.3f}"
        )
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--prior", choices=("auto", "beta"), default="auto")
    p.add_argument("--replicates", type=int, default=400)
    p.add_argument("--shapes", nargs="+", default=list(study.SHAPES))
    p.add_argument("--mus", nargs="+", type=float, default=list(study.MUS))
    p.add_argument("--kappas", nargs="+", type=float, default=list(study.KAPPAS))
    p.add_argument("--ns", nargs="+", type=int, default=list(study.NS))
    p.add_argument("--csv", type=Path, help="write the rows here")
    p.add_argument("--table", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = p.parse_args(argv)
    if args.table:
        print(table(pd.read_csv(args.table[0]), pd.read_csv(args.table[1])))
        return
    df = run(args.prior, args.shapes, args.mus, args.kappas, args.ns, args.replicates, sys.stderr)
    if args.csv:
        df.to_csv(args.csv, index=False)
    print(df.round(4).to_string(index=False))


if __name__ == "__main__":
    main()
