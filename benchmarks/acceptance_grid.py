"""Issue 20 acceptance grid: coverage, width ratio, power ratio and p-value size, cell by cell.

Cells: difficulty shape {beta, twopoint, mixture, 2pl} x N {30, 100, 500, 2000} x K {1, 5, 20}
x mu {0.5, 0.9} (kappa 1 for the Beta-family shapes; the 2PL shape has its own variance, see
``studies.grid.TwoPL``), R = 400 replicated (A, B_null, B_shift) triplets per cell. Everything
is measured through the package's public functions (``studies/grid.py``, parts models, fresh,
pairs, pvalues). Bands (issue 20, widened by nothing; the MCSE is printed beside each value so
a reader sees which misses are Monte Carlo noise):

* coverage of every printed interval in [0.93, 0.97] in the cells with N >= 30 and K >= 5, or
  N >= 100 at K = 1;
* median width of the population-difference intervals (``pop_diff`` Bayes, ``pop_diff_freq``)
  <= 1.3 x the paired t interval's, every cell, under both the null and the shift design;
* power of those intervals under the shift >= 0.9 x the paired t test's, every cell;
* size (fraction p < 0.05 under the null) of every p-value in [0.035, 0.065], every cell.

MCSE: binomial sqrt(p (1 - p) / R) for coverages, powers and sizes; bootstrap over replicates
for a median width ratio; delta method (with the two tests' covariance) for a power ratio.

Resumable: each finished cell is added to ``--out`` (CSV, rewritten atomically) and cells
already in it (same shape, N, K, mu, kappa, R, seed) are skipped. The package measured is the
``bayesnoise`` found first on PYTHONPATH (recorded per row in ``package``); ``studies`` always
comes from this checkout. Usage::

    python benchmarks/acceptance_grid.py --ns 30 100 500 --out benchmarks/results/a.csv
    PYTHONPATH=/tmp/before:$PWD python benchmarks/acceptance_grid.py --out before.csv
    python benchmarks/acceptance_grid.py --from-csv benchmarks/results/acceptance_before.csv
    python benchmarks/acceptance_grid.py --compare before.csv after.csv   # per-cell summary
    python benchmarks/acceptance_grid.py --quick      # 2 small cells, R = 40, a smoke test
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path

import bayesnoise  # first, so that PYTHONPATH decides which package is measured

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # studies/ from this checkout (after bayesnoise is imported)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from studies import grid  # noqa: E402

if Path(grid.__file__).resolve().parent != ROOT / "studies":  # pragma: no cover
    raise SystemExit(f"studies imported from {grid.__file__}, expected {ROOT / 'studies'}")

SHAPES = ("beta", "twopoint", "mixture", "2pl")
NS = grid.ACCEPTANCE_N
KS = (1, 5, 20)
MUS = (0.5, 0.9)
KAPPA = 1.0
R = 400
PARTS = ("models", "fresh", "pairs", "pvalues")
KEYS = ["shape", "N", "K", "mu", "kappa", "R", "seed"]
COV_BAND = (0.93, 0.97)
WIDTH_MAX = 1.3
POWER_MIN = 0.9
SIZE_BAND = (0.035, 0.065)
WIDTHS = [f"width_ratio_{b}_{d}" for b in grid.PAIR_POPULATION for d in ("null", "shift")]
POWERS = [f"power_ratio_{b}" for b in grid.PAIR_POPULATION]
SIZES = [f"size_{p}" for p in grid.PVALUES]


def package_id() -> str:
    """Path of the measured bayesnoise and a hash of its .py sources (before/after differ)."""
    root = Path(bayesnoise.__file__).resolve().parent
    h = hashlib.sha1()
    for f in sorted(root.rglob("*.py")):
        h.update(f.relative_to(root).as_posix().encode())
        h.update(f.read_bytes())
    return f"{root}@{h.hexdigest()[:10]}"


def cells(shapes, ns, ks, mus, kappa) -> list[dict]:
    """Cells ordered by N (cheap cells first, so a stopped run has the small-N grid)."""
    return [
        dict(shape=s, n_questions=n, samples=k, mu=m, kappa=kappa)
        for n in sorted(ns)
        for s in shapes
        for k in ks
        for m in mus
    ]


def _key(shape, n, k, mu, kappa, r, seed) -> tuple:
    return (
        str(shape),
        int(n),
        int(k),
        round(float(mu), 6),
        round(float(kappa), 6),
        int(r),
        int(seed),
    )


def _done(out: Path) -> set:
    if not out or not out.exists():
        return set()
    df = pd.read_csv(out)
    if "error" in df.columns:  # failed cells are run again
        df = df[df["error"].isna()]
    return {_key(*row) for row in df[KEYS].itertuples(index=False)}


def _append(out: Path, row: dict) -> None:
    """Add one row to the CSV (columns may differ between rows), atomically."""
    old = pd.read_csv(out) if out.exists() else pd.DataFrame()
    if "error" in old.columns and len(old):  # a re-run cell replaces its failed row
        same = np.ones(len(old), bool)
        for k in KEYS:
            same &= old[k].astype(str).to_numpy() == str(row[k])
        old = old[~same]
    df = pd.concat([old, pd.DataFrame([row])], ignore_index=True)
    tmp = out.with_suffix(out.suffix + ".tmp")
    df.to_csv(tmp, index=False)
    os.replace(tmp, out)


def _run_one(args) -> dict:
    cell, r, seed, pkg, parts = args
    np.seterr(all="ignore")
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        res = grid.simulate_cell(**cell, replicates=r, seed=seed, parts=parts)
        row = res.row()
    except Exception as err:  # keep the grid going; the row records the failure
        row = {
            "shape": cell["shape"],
            "N": cell["n_questions"],
            "K": cell["samples"],
            "mu": cell["mu"],
            "kappa": cell["kappa"],
            "R": r,
            "error": repr(err),
            "seconds": round(time.perf_counter() - t0, 2),
        }
    row["seed"] = seed
    row["package"] = pkg
    row["cpu_seconds"] = round(time.process_time() - c0, 2)  # wall time depends on the load
    return row


def run(todo, r, seed, out, workers, log, parts=PARTS) -> None:
    pkg = package_id()
    done = _done(out)
    jobs = [
        (c, r, seed, pkg, tuple(parts))
        for c in todo
        if _key(c["shape"], c["n_questions"], c["samples"], c["mu"], c["kappa"], r, seed)
        not in done
    ]
    print(
        f"package {pkg}; {len(todo) - len(jobs)} of {len(todo)} cells already in {out}",
        file=log,
        flush=True,
    )
    t0 = time.perf_counter()
    if workers > 1:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(workers) as pool:
            results = pool.imap_unordered(_run_one, jobs)
            for i, row in enumerate(results):
                _append(out, row)
                _progress(log, i, len(jobs), row, t0)
    else:
        for i, job in enumerate(jobs):
            row = _run_one(job)
            _append(out, row)
            _progress(log, i, len(jobs), row, t0)


def _progress(log, i, n, row, t0):
    err = f" ERROR {row['error']}" if isinstance(row.get("error"), str) else ""
    print(
        f"[{i + 1}/{n}] {row['shape']} N={row['N']} K={row['K']} mu={row['mu']}: "
        f"{row.get('seconds')} s (total {time.perf_counter() - t0:.0f} s){err}",
        file=log,
        flush=True,
    )


# ----------------------------------------------------------------------------- tables


def _fmt(v, se):
    if pd.isna(v):
        return "n/a"
    return f"{v:.3f} ({se:.3f})" if pd.notna(se) else f"{v:.3f}"


def _md(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(str(x) for x in row) + " |")
    return "\n".join(lines)


def _cell_label(df):
    return df[["shape", "N", "K", "mu"]].astype(str).agg(lambda r: " ".join(r), axis=1)


def in_scope(df: pd.DataFrame) -> pd.Series:
    """Cells where the coverage band applies: N >= 30 and K >= 5, or N >= 100 at K = 1."""
    return grid.in_target(df)


def _table(df, names, short=None) -> str:
    short = short or {}
    out = df[["shape", "N", "K", "mu"]].copy()
    for n in names:
        if n in df.columns:
            se = df.get(f"{n}_mcse", pd.Series(np.nan, index=df.index))
            out[short.get(n, n)] = [_fmt(v, s) for v, s in zip(df[n], se, strict=True)]
    return _md(out)


def coverage_names(df) -> list[str]:
    return [n for n in grid.INTERVALS if n in df.columns]


def out_of_band(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (cell, column) outside its band (no widening; MCSE alongside)."""
    rows = []
    lab = _cell_label(df)
    scope = in_scope(df)

    def add(mask, name, band):
        for i in df.index[mask.fillna(False).to_numpy(bool)]:
            rows.append(
                {
                    "cell": lab[i],
                    "column": name,
                    "value": round(float(df.at[i, name]), 3),
                    "mcse": round(float(df.at[i, f"{name}_mcse"]), 3)
                    if pd.notna(df.at[i, f"{name}_mcse"])
                    else np.nan,
                    "band": band,
                    "R": int(df.at[i, "R"]),
                }
            )

    for n in coverage_names(df):
        v = df[n]
        add(scope & v.notna() & ((v < COV_BAND[0]) | (v > COV_BAND[1])), n, "coverage 0.93-0.97")
    for n in WIDTHS:
        if n in df.columns:
            add(df[n] > WIDTH_MAX, n, f"width ratio <= {WIDTH_MAX}")
    for n in POWERS:
        if n in df.columns:
            add(df[n] < POWER_MIN, n, f"power ratio >= {POWER_MIN}")
    for n in SIZES:
        if n in df.columns:
            v = df[n]
            add(v.notna() & ((v < SIZE_BAND[0]) | (v > SIZE_BAND[1])), n, "size 0.035-0.065")
    out = pd.DataFrame(rows, columns=["cell", "column", "value", "mcse", "band", "R"])
    if len(out):
        # distance to the band in MCSE (< 2: plausibly Monte Carlo noise). For a coverage or a
        # size the binomial MCSE at the nearest band edge, sqrt(b (1 - b) / R) (the estimate's
        # own is 0 at p = 0 or 1); for a ratio its own MCSE.
        lo_hi = out["band"].str.extract(r"([0-9.]+)-([0-9.]+)$").astype(float)
        v = out["value"].to_numpy(float)
        lo, hi = lo_hi[0].to_numpy(), lo_hi[1].to_numpy()
        edge = np.where(v < lo, lo, hi)
        dist = np.where(v < lo, lo - v, v - hi) / np.sqrt(edge * (1 - edge) / out["R"])
        with np.errstate(all="ignore"):
            ratio_se = out["mcse"].to_numpy(float)
            ratio_se = np.where(ratio_se > 0, ratio_se, np.nan)
            width = (v - WIDTH_MAX) / ratio_se
            power = (POWER_MIN - v) / ratio_se
        kind = out["band"].str.split().str[0]
        dist = np.where(kind == "width", width, np.where(kind == "power", power, dist))
        out["mcse_outside"] = np.round(dist, 1)
    out = out.drop(columns="R")
    return out


def report(df: pd.DataFrame) -> str:
    df = df[df.get("error", pd.Series(np.nan, index=df.index)).isna()].copy()
    df = df.sort_values(["N", "shape", "K", "mu"]).reset_index(drop=True)
    parts = []
    pk = sorted(df["package"].dropna().unique()) if "package" in df else []
    parts.append(f"package(s) measured: {', '.join(pk) or 'unknown'}; {len(df)} cells")
    parts.append(
        "\n### Coverage of every printed interval (MCSE); band 0.93-0.97 in scope "
        "(N >= 30 & K >= 5, N >= 100 & K = 1)\n"
    )
    parts.append(_table(df, coverage_names(df) + list(grid.T_INTERVALS)))
    parts.append("\n### Population difference vs the paired t interval / test (MCSE)\n")
    parts.append(
        _table(
            df,
            [*WIDTHS, "power_paired_t", "power_pop_diff", "power_pop_diff_freq", *POWERS],
            {w: w.replace("width_ratio_", "w/t ") for w in WIDTHS}
            | {p: p.replace("power_ratio_", "pow/t ") for p in POWERS},
        )
    )
    parts.append("\n### Size of every p-value under the null (fraction p < 0.05, MCSE)\n")
    parts.append(_table(df, SIZES, {s: s.replace("size_", "") for s in SIZES}))
    bad = out_of_band(df)
    parts.append(
        f"\n### Outside the band: {len(bad)} (cell, column) entries; mcse_outside = distance "
        "to the band in MCSE (< 2: plausibly Monte Carlo noise)\n"
    )
    if len(bad):
        parts.append(_md(bad))
        parts.append(
            "\nby column: " + ", ".join(f"{k} {v}" for k, v in bad["column"].value_counts().items())
        )
    return "\n".join(parts)


def cell_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell: coverage range over the printed intervals, the worst ratios, p_value's size,
    and the number of (column) entries outside their band."""
    df = df[df.get("error", pd.Series(np.nan, index=df.index)).isna()].copy()
    cov = df[coverage_names(df)]
    out = df[["shape", "N", "K", "mu"]].copy()
    out["scope"] = in_scope(df).map({True: "yes", False: "no"})
    out["cov_min"] = cov.min(axis=1).round(3)
    out["cov_max"] = cov.max(axis=1).round(3)
    out["width_max"] = df[[w for w in WIDTHS if w in df]].max(axis=1).round(2)
    out["power_ratio_min"] = df[[p for p in POWERS if p in df]].min(axis=1).round(2)
    out["size_p_value"] = df.get("size_p_value", pd.Series(np.nan, index=df.index)).round(3)
    bad = out_of_band(df)
    lab = _cell_label(df)
    counts = bad["cell"].value_counts()
    out["out_of_band"] = [int(counts.get(x, 0)) for x in lab]
    return out


def compare(before: pd.DataFrame, after: pd.DataFrame) -> str:
    """Before/after per cell (the closing note's table)."""
    keys = ["shape", "N", "K", "mu"]
    b, a = cell_summary(before), cell_summary(after)
    m = b.merge(a, on=[*keys, "scope"], how="outer", suffixes=(" before", " after"))
    m = m.sort_values(["N", "shape", "K", "mu"])
    cols = [*keys, "scope"]
    for c in ("cov_min", "cov_max", "width_max", "power_ratio_min", "size_p_value", "out_of_band"):
        cols += [f"{c} before", f"{c} after"]
    return _md(m[cols].round(3))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=grid.ALL_SHAPES)
    p.add_argument("--ns", nargs="+", type=int, default=list(NS))
    p.add_argument("--ks", nargs="+", type=int, default=list(KS))
    p.add_argument("--mus", nargs="+", type=float, default=list(MUS))
    p.add_argument("--kappa", type=float, default=KAPPA)
    p.add_argument("--replicates", type=int, default=R)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "acceptance.csv")
    p.add_argument("--log", type=Path, default=None, help="progress log (default: stderr)")
    p.add_argument("--quick", action="store_true", help="2 small cells at R = 40 (smoke test)")
    p.add_argument(
        "--parts",
        nargs="+",
        default=list(PARTS),
        choices=PARTS,
        help="what to measure (default all; leaving out 'fresh', the predictive intervals of "
        "conjugate.fresh_run_predictive, saves about 80%% of an N = 2000 cell)",
    )
    p.add_argument("--from-csv", nargs="+", type=Path, help="print the report of saved runs")
    p.add_argument(
        "--compare",
        nargs=2,
        type=Path,
        metavar=("BEFORE", "AFTER"),
        help="print the per-cell before/after summary of two saved runs",
    )
    args = p.parse_args(argv)
    if args.compare:
        print(compare(pd.read_csv(args.compare[0]), pd.read_csv(args.compare[1])))
        return 0
    if args.from_csv:
        df = pd.concat([pd.read_csv(f) for f in args.from_csv], ignore_index=True)
    else:
        todo = cells(args.shapes, args.ns, args.ks, args.mus, args.kappa)
        r = args.replicates
        if args.quick:
            todo = cells(["2pl", "twopoint"], [30], [5], [0.9], args.kappa)
            r = 40
        args.out.parent.mkdir(parents=True, exist_ok=True)
        log = open(args.log, "a") if args.log else sys.stderr
        try:
            run(todo, r, args.seed, args.out, args.workers, log, args.parts)
        finally:
            if args.log:
                log.close()
        df = pd.read_csv(args.out)
        keys = {_key(c["shape"], c["n_questions"], c["samples"], c["mu"], c["kappa"], r, args.seed)
                for c in todo}  # fmt: skip
        df = df[[_key(*row) in keys for row in df[KEYS].itertuples(index=False)]]
    print(report(df))
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
