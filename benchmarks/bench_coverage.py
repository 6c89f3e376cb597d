"""The coverage self-check (``bayesnoise coverage``): wall time against a floor and a loop.

Target: 200 replicates x 3 populations of the bundled 8-model x 800-question file in about a
minute. Floor, measured in the same run: drawing the replicate evals alone (numpy resampling
and binomial draws, no interval computed). Loop: the package's table functions called the
plain way, one replicate eval at a time (``compare_models`` and ``compare_pairs`` on each),
timed on a few replicates and extrapolated.

Run: .venv/bin/python benchmarks/bench_coverage.py --label after [--runs 5] [--files MBPP]
(whole ``bayesnoise coverage FILE`` processes on the shared files with the default options, in
turn with the import floor; table appended to ``benchmarks/results/coverage.md``; target
<= 60 s each, issue 33). ``--inprocess [--shared]``: the older in-process table (floor = the
replicate draws alone, loop = the table functions one replicate at a time).
``--trees BEFORE AFTER [--runs 3] [--out DIR]``: the same command from two source trees (e.g.
``git archive`` exports; ``PYTHONPATH`` picks the package), alternating before / after, median
CPU (user + system) and wall seconds per file; each run's CSV is kept in ``DIR`` to compare
the tables.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

import bayesnoise as bn
from bayesnoise.data import from_arrays
from bayesnoise.decide import compare_models, compare_pairs

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = ROOT / "examples/data/cruxeval_output_temp0.8.csv.gz"
SHARED = ROOT.parent / "shared/data/cruxeval-samples/cruxeval_output_temp0.8.csv"
REPLICATES, POPULATIONS = 200, 3


def floor(ds, evals, rng):
    """Seconds to draw ``evals`` replicate evals: resample questions, draw binomial counts."""
    k = ds["samples"].values
    p = ds["correct"].values / k
    t0 = time.perf_counter()
    for _ in range(evals):
        idx = rng.integers(0, k.shape[1], k.shape[1])
        rng.binomial(k, p[:, idx])
    return time.perf_counter() - t0


def loop(ds, evals, rng, timed=3):
    """Seconds for ``evals`` replicates one at a time (``timed`` of them, extrapolated)."""
    k = ds["samples"].values
    p = ds["correct"].values / k
    t0 = time.perf_counter()
    for _ in range(timed):
        idx = rng.integers(0, k.shape[1], k.shape[1])
        sim = from_arrays(rng.binomial(k, p[:, idx]), k)
        compare_models(sim, progress=False)
        compare_pairs(sim)
    return (time.perf_counter() - t0) * evals / timed


def main_inprocess():
    rows = [case("bundled CRUXEval extract", BUNDLED)]
    if "--shared" in sys.argv and SHARED.exists():  # 31 models: several minutes
        rows.append(case("CRUXEval output (shared)", SHARED))
    head = ("case", "M", "N", "pairs checked", "replicate evals", "coverage s", "floor s",
            "x floor", "loop s (extrapolated)", "speed-up vs loop")  # fmt: skip
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]:.1f} | {r[6]:.2f} | "
              f"{r[7]:.0f} | {r[8]:.0f} | {r[9]:.1f} |")  # fmt: skip


def case(name, path):
    ds = bn.load(path, progress=False)
    m, n = ds.sizes["model"], ds.sizes["question"]
    evals = REPLICATES * POPULATIONS
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    out = bn.coverage(ds, n_resamples=REPLICATES, progress=False)
    t_cov = time.perf_counter() - t0
    t_floor, t_loop = floor(ds, evals, rng), loop(ds, evals, rng)
    pairs = int(out["units"].values[out["interval"].values == "dbar"][0])
    return (name, m, n, pairs, evals, t_cov, t_floor, t_cov / t_floor, t_loop, t_loop / t_cov)


FILES = {  # the shared files the issue timed, and the bundled extract
    "bundled CRUXEval output 8 x 800, K = 10": BUNDLED,
    "HumanEval+ 49 x 164, K = 1": ROOT.parent / "shared/data/all-the-noises/main/input_table_humaneval+.csv",
    "MBPP 35 x 500, K <= 15": ROOT.parent / "shared/data/all-the-noises/lowk_temp0.7/input_table_mbpp.csv",
    "CRUXEval output 31 x 800, K = 10": SHARED,
    "MATH500 48 x 500, K = 1,100": ROOT.parent / "shared/data/all-the-noises/highk_temp0.7/input_table_math500_cot.csv",
}  # fmt: skip


def main_trees(before, after, runs, files, out):
    """``bayesnoise coverage FILE`` (defaults) from two source trees, alternating."""
    import os
    import statistics
    import subprocess

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    code = "import sys; from bayesnoise.cli import main; sys.exit(main())"
    print("| file | before CPU s (wall s) | after CPU s (wall s) | CPU ratio |")
    print("|---|---|---|---|")
    for name, path in FILES.items():
        if not path.exists() or (files and not any(f in name for f in files)):
            continue
        got = {"before": [], "after": []}
        for i in range(runs):
            for label, tree in (("before", before), ("after", after)):
                csv = out / f"{path.stem}.{label}.{i}.csv"
                cmd = [sys.executable, "-c", code, "coverage", str(path), "--no-progress"]
                cmd += ["--format", "csv", "-o", str(csv)]
                tree = Path(tree).resolve()
                env = dict(os.environ, PYTHONPATH=str(tree))
                t0 = time.perf_counter()  # run in the tree: ``python -c`` puts the cwd first
                proc = subprocess.Popen(cmd, env=env, cwd=tree, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)  # fmt: skip
                _, status, usage = os.wait4(proc.pid, 0)
                if status:
                    raise RuntimeError(f"exit status {status >> 8}: {label} {name}")
                cpu = usage.ru_utime + usage.ru_stime
                got[label].append((cpu, time.perf_counter() - t0))
                print(f"  {name} {label} run {i + 1}: {cpu:.1f} s CPU", file=sys.stderr)
        med = {k: [statistics.median(x[j] for x in v) for j in (0, 1)] for k, v in got.items()}
        ratio = med["after"][0] / med["before"][0]
        print(f"| {name} | {med['before'][0]:.1f} ({med['before'][1]:.1f}) | "
              f"{med['after'][0]:.1f} ({med['after'][1]:.1f}) | {ratio:.2f} |", flush=True)  # fmt: skip


def main():
    """Whole ``bayesnoise coverage FILE`` runs (default options) vs the import floor."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _versus import CLI, IMPORT_FLOOR, parser, versus, write

    p = parser(__doc__)
    p.set_defaults(runs=1)
    p.add_argument("--inprocess", action="store_true", help="the in-process floor/loop table")
    p.add_argument("--files", nargs="+", help="substrings of the case names to run (default all)")
    p.add_argument("--trees", nargs=2, metavar=("BEFORE", "AFTER"), help="two source trees")
    p.add_argument("--out", default="coverage-trees", help="--trees: folder for the CSVs")
    args = p.parse_args()
    if args.inprocess:
        return main_inprocess()
    if args.trees:
        return main_trees(*args.trees, args.runs, args.files, args.out)
    rows = []
    for name, path in FILES.items():
        if not path.exists() or (args.files and not any(f in name for f in args.files)):
            continue
        cmd = [CLI, "coverage", str(path), "--no-progress", "--format", "csv"]
        rows.append(versus(f"coverage {name}", cmd, IMPORT_FLOOR, runs=args.runs, warmup=0))
    write("coverage", args.label, rows, "import floor",
          "Default options. Target: <= 60 s (command s) on every file.")  # fmt: skip


if __name__ == "__main__":
    main()
