"""Issue 20 item 1: ``ubar`` / ``dbar`` coverage under non-Beta difficulties, before and after.

"Before" is ``ubar_prior="beta"`` (every model's question accuracies shrunk towards the fitted
Beta population, the only prior before this change); "after" is the default
``ubar_prior="auto"`` (the nonparametric prior where a likelihood-ratio test rejects the Beta
population). Cells: difficulty shape {twopoint (0.95 for 95% of the questions, 0.01 for 5%),
three-component mixture, Beta} x N {100, 500, 2000} x K {5, 20}, R replicates per cell, every
replicate a model (``ubar``) or a pair (``dbar``) of one vectorised table call; machinery in
``studies/ubar_nonbeta.py``. MCSE of a coverage p from R replicates: sqrt(p (1 - p) / R).

Then the speed of ``posterior_table`` and ``posterior_pairs_table`` on the bundled file and on
a 50-model all-the-noises file (52 models x 800 questions, ragged K, where 16 models get the
nonparametric prior), best of 5 runs, with the Beta-only run as the floor measured in the same
process.

Usage::

    python benchmarks/calibration_ubar_nonbeta.py                      # ~6 min
    python benchmarks/calibration_ubar_nonbeta.py --replicates 200 --no-pairs --ns 500
    python benchmarks/calibration_ubar_nonbeta.py --timing-only
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import bayesnoise as bn  # noqa: E402
from bayesnoise import conjugate  # noqa: E402
from studies import ubar_nonbeta as study  # noqa: E402

BUNDLED = ROOT / "examples" / "data" / "cruxeval_output_temp0.8.csv.gz"
SHARED = ROOT.parent / "shared" / "data" / "all-the-noises"
FIFTY = SHARED / "lowk_temp0.7" / "input_table_cruxeval_output_cot.csv"
LOW, HIGH = 0.93, 0.97


def markdown(df: pd.DataFrame, digits: int = 3) -> str:
    """A pandas table as a markdown table (numbers rounded to ``digits``)."""

    def cell(x):
        return f"{x:.{digits}f}" if isinstance(x, float) else str(x)

    lines = ["| " + " | ".join(map(str, df.columns)) + " |"]
    lines.append("|" + "|".join("---" for _ in df.columns) + "|")
    lines += ["| " + " | ".join(cell(x) for x in row) + " |" for row in df.itertuples(False)]
    return "\n".join(lines)


def _mark(p, se):
    """'ok' inside [0.93, 0.97], 'MCSE' outside by less than 2 MCSE, 'MISS' otherwise."""
    if LOW <= p <= HIGH:
        return "ok"
    return "MCSE" if (LOW - 2 * se <= p <= HIGH + 2 * se) else "MISS"


def coverage_table(shapes, ns, ks, n_resamples, pairs):
    rows = []
    for shape in shapes:
        for n in ns:
            for k in ks:
                row = {"shape": shape, "N": n, "K": k}
                for prior, tag in (("beta", "before"), ("auto", "after")):
                    got = study.coverage_cell(shape, n, k, n_resamples, ubar_prior=prior)
                    row[f"ubar {tag}"] = got["coverage"]
                    row[f"ubar {tag} se"] = got["mcse"]
                    row[f"width {tag}"] = got["width"]
                    if prior == "auto":
                        row["nonparametric"] = got["nonparametric"]
                    if pairs:
                        pg = study.pair_coverage_cell(shape, n, k, n_resamples, ubar_prior=prior)
                        row[f"dbar {tag}"] = pg["coverage"]
                        row[f"dbar {tag} se"] = pg["mcse"]
                row["after"] = _mark(row["ubar after"], row["ubar after se"])
                rows.append(row)
                print(f"{shape} N={n} K={k} done", file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


def _best(fn, repeat=5):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def timing_table():
    files = [("bundled cruxeval (8 x 800, K = 10)", BUNDLED)]
    if FIFTY.exists():
        files.append(("all-the-noises lowk cruxeval_output (52 x 800, K 9-21)", FIFTY))
    rows = []
    for label, path in files:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ds = bn.complete(bn.load(path), on_missing="intersect")
            for name, fn in (
                ("posterior_table", conjugate.posterior_table),
                ("posterior_pairs_table", conjugate.posterior_pairs_table),
            ):
                floor = _best(lambda fn=fn, ds=ds: fn(ds, progress=False, ubar_prior="beta"))
                after = _best(lambda fn=fn, ds=ds: fn(ds, progress=False))
                df = fn(ds, progress=False)
                prior = df.attrs["ubar_prior"]
                prior = list(prior.values()) if isinstance(prior, dict) else prior
                rows.append(
                    {
                        "file": label,
                        "function": name,
                        "Beta only (floor) s": floor,
                        "default s": after,
                        "ratio": after / floor,
                        "nonparametric models": sum(p == "nonparametric" for p in prior),
                    }
                )
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--replicates", type=int, default=400)
    p.add_argument("--shapes", nargs="+", default=["twopoint", "mixture", "beta"],
                   choices=study.SHAPES)  # fmt: skip
    p.add_argument("--ns", nargs="+", type=int, default=[100, 500, 2000])
    p.add_argument("--ks", nargs="+", type=int, default=[5, 20])
    p.add_argument("--no-pairs", action="store_true", help="ubar only (dbar takes longer)")
    p.add_argument("--timing-only", action="store_true")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    if not args.timing_only:
        df = coverage_table(args.shapes, args.ns, args.ks, args.replicates, not args.no_pairs)
        print(f"## Coverage of the 95% intervals, R = {args.replicates} per cell\n")
        print(markdown(df))
        print(
            "\n'after': ok = inside [0.93, 0.97]; MCSE = outside by less than 2 MCSE; MISS = "
            "outside by more. 'nonparametric': share of replicates whose ubar used the "
            "nonparametric prior.\n"
        )
    print("## Speed (best of 5; the Beta-only run is the floor)\n")
    print(markdown(timing_table()))
    print(f"\n{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
