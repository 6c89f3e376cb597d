"""Issue 8 calibration grid: coverage (with Monte Carlo SE) of every interval, cell by cell.

Cells: difficulty shape {beta, logitnormal, mixture, twopoint} x N {30, 100, 500} x K {1, 5, 20}
x accuracy mu {0.05, 0.5, 0.9} x kappa {0.5, 1, 5}; two paired models (corr(u_A, u_B) = 0.8),
R replicated pairs per cell. The machinery and the list of intervals with their truths are in
``studies/grid.py``. Prints one table (coverage and MCSE per interval, the fraction of null
replicates with P(A > B) > 0.95), then a summary of the cells that miss issue 8's targets.

MCSE of a coverage p from R replicates: sqrt(p (1 - p) / R).

Usage::

    python benchmarks/calibration_grid.py --quick                 # a few cells, ~1 min
    python benchmarks/calibration_grid.py --replicates 300 --out grid.csv
    python benchmarks/calibration_grid.py --shapes beta --ns 30 100 --out beta.csv   # a slice
    python benchmarks/calibration_grid.py --parts pairs --out pairs.csv   # the pair intervals only
    python benchmarks/calibration_grid.py --from-csv a.csv b.csv  # table + summary of saved runs
    python benchmarks/calibration_grid.py --shapes 2pl --ns 2000 --ks 5  # 2PL items, N = 2000

Issue 20's acceptance grid (width and power ratios against the paired t interval, p-value
sizes, the 2PL shape) has its own runner: ``benchmarks/acceptance_grid.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studies import grid

QUICK = [
    ("beta", 100, 5, 0.5, 1.0),
    ("beta", 30, 5, 0.05, 1.0),
    ("beta", 100, 1, 0.05, 1.0),
    ("logitnormal", 100, 20, 0.9, 5.0),
    ("twopoint", 100, 5, 0.5, 0.5),
]
LOW, HIGH = 0.93, 0.97  # issue 8 target for a 95% interval
P_LOW, P_HIGH = 0.04, 0.06  # target for the fraction of null replicates with P(A > B) > 0.95


def run(cells, replicates, replicates_large, seed, out=None, parts=None) -> pd.DataFrame:
    rows = []
    t0 = time.perf_counter()
    kw = {} if parts is None else {"parts": tuple(parts)}
    for i, cell in enumerate(cells):
        r = replicates_large if cell["n_questions"] >= 500 and replicates_large else replicates
        try:
            res = grid.simulate_cell(**cell, replicates=r, seed=seed, **kw)
        except Exception as err:  # keep the grid going; the row records the failure
            print(f"cell {cell} failed: {err!r}", file=sys.stderr, flush=True)
            keys = ("shape", "N", "K", "mu", "kappa")
            vals = (cell["shape"], cell["n_questions"], cell["samples"], cell["mu"], cell["kappa"])
            rows.append({**dict(zip(keys, vals, strict=True)), "R": r, "error": repr(err)})
            continue
        rows.append(res.row())
        print(
            f"[{i + 1}/{len(cells)}] {cell} R={r}: {res.info['seconds']} s "
            f"(total {time.perf_counter() - t0:.0f} s)",
            file=sys.stderr,
            flush=True,
        )
        if out:  # write as we go, so a long run that is stopped keeps its cells
            pd.DataFrame(rows).to_csv(out, index=False)
    return pd.DataFrame(rows)


def _fails(df, name, low=LOW, high=HIGH):
    """Cells where the estimate is outside [low, high] by more than 2 MCSE.

    The MCSE used for the decision is the binomial one at the nearest end of the target,
    sqrt(b (1 - b) / R) with b = low or high: the estimate's own sqrt(p (1 - p) / R) is 0 at
    p = 0 or 1 and would flag any such cell however few the replicates.
    """
    v, r = df[name], df["R"]
    se_low, se_high = np.sqrt(low * (1 - low) / r), np.sqrt(high * (1 - high) / r)
    return df[v.notna() & ((v < low - 2 * se_low) | (v > high + 2 * se_high))]


def summary(df: pd.DataFrame) -> str:
    keys = ["shape", "N", "K", "mu", "kappa"]
    lines = []
    target = grid.in_target(df)
    k1_wrong = (df["K"] == 1) & (df["kappa"] != 1.0) & (df["N"] >= 100)
    main = df[target & ~k1_wrong]
    lines.append(
        "Cells outside 93-97% by more than 2 MCSE, among N >= 30 & K >= 5 and N >= 100 & K = 1 "
        "(K = 1: kappa is assumed to be 1; the cells whose true kappa is not 1 are listed "
        "separately below)."
    )
    names = [n for n in grid.INTERVALS if n in df.columns]
    for name in names:
        bad = _fails(main, name)
        n_ok = int(main[name].notna().sum())
        lines.append(f"\n{name}: {len(bad)} of {n_ok} target cells fail")
        if len(bad):
            lines.append(bad[[*keys, name, f"{name}_mcse"]].round(3).to_string(index=False))
    lines.append("\nK = 1, N >= 100, true kappa != 1 (the assumed kappa = 1 is wrong):")
    wrong = df[k1_wrong]
    for name in names:
        bad = _fails(wrong, name)
        if len(bad):
            lines.append(f"\n{name}: {len(bad)} of {int(wrong[name].notna().sum())} cells fail")
            lines.append(bad[[*keys, name, f"{name}_mcse"]].round(3).to_string(index=False))
    for name in grid.REFERENCE:
        if name in df.columns:
            bad = _fails(main, name)
            lines.append(
                f"\n{name} (reference, not printed by the CLI): {len(bad)} of "
                f"{int(main[name].notna().sum())} target cells outside 93-97%; range "
                f"{main[name].min():.3f}-{main[name].max():.3f}"
            )
    for name in grid.PROBABILITIES:
        if name not in df.columns or df[name].isna().all():
            lines.append(f"\n{name}: not provided by the package")
            continue
        if name == "p_here_gt95":  # P(A > B) about these questions: no population target
            lines.append(
                f"\n{name} (prob_a_better, about these questions; the null is about the "
                "population, so it has no 4-6% target and is shown for contrast): range "
                f"{df[name].min():.3f}-{df[name].max():.3f}, median {df[name].median():.3f}"
            )
            continue
        bad = _fails(df[target], name, P_LOW, P_HIGH)
        lines.append(
            f"\n{name} (fraction of null replicates with P > 0.95, target 4-6%): {len(bad)} of "
            f"{int(df[target][name].notna().sum())} target cells outside by more than 2 MCSE; "
            f"range over all cells {df[name].min():.3f}-{df[name].max():.3f}"
        )
        if len(bad):
            lines.append(bad[[*keys, name, f"{name}_mcse"]].round(3).to_string(index=False))
    return "\n".join(lines)


def table(df: pd.DataFrame) -> str:
    keys = ["shape", "N", "K", "mu", "kappa", "R", "rho"]
    cols = [*keys]
    for name in (*grid.INTERVALS, *grid.REFERENCE, *grid.PROBABILITIES):
        if name in df.columns:
            cols += [name, f"{name}_mcse"]
    if "kappa_at_lower" in df.columns:
        cols += ["kappa_at_lower", "kappa_at_upper"]
    show = df[[c for c in cols if c in df.columns]].copy()
    show.columns = [c.replace("_mcse", "_se") for c in show.columns]
    with pd.option_context(
        "display.width", 10_000, "display.max_columns", None, "display.max_rows", None
    ):
        return show.round(3).to_string(index=False)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--replicates", type=int, default=300, help="replicated pairs per cell")
    p.add_argument(
        "--replicates-large",
        type=int,
        default=None,
        help="replicates for N >= 500 cells (default: --replicates)",
    )
    p.add_argument("--quick", action="store_true", help="a handful of cells")
    p.add_argument("--shapes", nargs="+", default=list(grid.SHAPES), choices=grid.ALL_SHAPES)
    p.add_argument("--ns", nargs="+", type=int, default=list(grid.N_GRID))
    p.add_argument("--ks", nargs="+", type=int, default=list(grid.K_GRID))
    p.add_argument("--mus", nargs="+", type=float, default=list(grid.MU_GRID))
    p.add_argument("--kappas", nargs="+", type=float, default=list(grid.KAPPA_GRID))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--parts",
        nargs="+",
        choices=("models", "fresh", "pairs", "pvalues"),
        default=None,
        help="simulate only these interval groups (default: all)",
    )
    p.add_argument("--out", type=Path, default=None, help="write the results as CSV here")
    p.add_argument("--from-csv", nargs="+", type=Path, help="print table + summary of saved runs")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    if args.from_csv:
        df = pd.concat([pd.read_csv(f) for f in args.from_csv], ignore_index=True)
        # runs saved before the rename: acc_se_mean was the Wald reference, now acc_wald
        df = df.rename(columns=lambda c: c.replace("acc_se_mean", "acc_wald"))
    else:
        if args.quick:
            cells = [
                dict(zip(("shape", "n_questions", "samples", "mu", "kappa"), c, strict=True))
                for c in QUICK
            ]
        else:
            cells = grid.grid_cells(args.shapes, args.ns, args.ks, args.mus, args.kappas)
        df = run(cells, args.replicates, args.replicates_large, args.seed, args.out, args.parts)
    print(table(df))
    print()
    print(summary(df))
    print(
        f"\n{len(df)} cells, {time.perf_counter() - t0:.0f} s"
        + (f" (sum of cell times {df['seconds'].sum():.0f} s)" if "seconds" in df else "")
    )
    if args.out and not args.from_csv:
        df.to_csv(args.out, index=False)
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
