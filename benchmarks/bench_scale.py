"""Speed at scale: all-pairs and per-model steps against a numpy floor measured in the same run.

Run: .venv/bin/python benchmarks/bench_scale.py [case ...]   (all cases: ~10 minutes on 2 cores;
the frequentist 4000 x 50000 case needs ~8 GiB)

Each case runs in its own subprocess, which reports the wall time of the bayesnoise step, the
floor (one M x M Gram matrix of the per-question scores plus the closed-form formulas on it,
float64, same process) and its peak resident memory (VmHWM). Columns: case, bayesnoise s,
floor s, ratio, peak MiB (of the whole subprocess, data included).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1].parent / "shared/data"
FILES = {
    "humaneval": DATA / "all-the-noises/main/input_table_humaneval.csv",
    "math500": DATA / "all-the-noises/highk_temp0.7/input_table_math500_cot.csv",
}
CASES = {
    "conjugate pairs humaneval 78x164": ("pairs", "humaneval"),
    "conjugate pairs math500 48x500": ("pairs", "math500"),
    "conjugate pairs synthetic 300x3000 K=1": ("pairs", (300, 3000)),
    "conjugate pairs synthetic 1000x10000 K=1": ("pairs", (1000, 10_000)),
    "conjugate posterior_table 1000x10000 K=1": ("models", (1000, 10_000)),
    "frequentist pair components 4000x50000 K=1": ("core", (4000, 50_000)),
    "frequentist pair_noise_dataset 1000x10000 K=1": ("freq", (1000, 10_000)),
    "frequentist pair_noise_dataset 4000x50000 K=1": ("freq", (4000, 50_000)),
}


def synthetic(m, n, seed=1):
    """0/1 results: shared question difficulty plus model-specific noise."""
    from bayesnoise.data import from_arrays

    rng = np.random.default_rng(seed)
    base = rng.beta(0.7, 0.7, (1, n))
    c = np.empty((m, n), np.int8)
    for r0 in range(0, m, 250):  # in blocks of models, to keep the generator's memory small
        r1 = min(m, r0 + 250)
        u = np.clip(base + rng.normal(0, 0.15, (r1 - r0, n)), 0, 1)
        c[r0:r1] = rng.random(u.shape) < u
    return from_arrays(c, np.ones((m, n), np.int8))


def floor(ds, dtype=np.float64):
    """One M x M Gram of the scores in ``dtype`` and the variance formulas on it (float64).

    float64 is the table's floor. The frequentist cases also report the float32 floor: for 0/1
    scores with N < 2^24 one float32 Gram is exact, and is what bayesnoise multiplies in.
    The scores are formed before the clock starts.
    """
    p = (ds["correct"] / ds["samples"]).values.astype(dtype, copy=False)
    t0 = time.perf_counter()
    gram = (p @ p.T).astype(np.float64, copy=False)
    s = p.sum(axis=1, dtype=np.float64)
    n = p.shape[1]
    cov = gram / n - np.outer(s, s) / n / n
    v = np.diag(cov)
    var = v[:, None] + v[None, :] - 2 * cov
    np.sqrt(np.maximum(var, 0) / n)
    return time.perf_counter() - t0


def peak_mib():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run_case(name):
    warnings.simplefilter("ignore")
    import bayesnoise as bn
    from bayesnoise.conjugate import posterior_pairs_table, posterior_table
    from bayesnoise.frequentist import _core, pair_noise_dataset

    kind, what = CASES[name]
    ds = bn.load(FILES[what]) if isinstance(what, str) else synthetic(*what)
    step = {
        "pairs": lambda: posterior_pairs_table(ds, progress=False),
        "models": lambda: posterior_table(ds, progress=False),
        "freq": lambda: pair_noise_dataset(ds),
        # Gram matrix, per-model sums and every M x M variance matrix of the pair table
        "core": lambda: _core.pair_components(
            _core.cell_means(ds["correct"].values, ds["samples"].values),
            None,
            ds["samples"].values,
            progress=False,
        ),
    }[kind]
    t0 = time.perf_counter()
    step()
    elapsed = time.perf_counter() - t0
    out = {"time": elapsed, "floor": floor(ds), "peak": peak_mib()}
    if kind in ("freq", "core"):  # the float32 floor too (exact for these 0/1 scores)
        out["floor32"] = floor(ds, np.float32)
    return out


def main(names):
    head = ("case", "bayesnoise s", "floor s", "ratio", "peak MiB")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name in names:
        out = subprocess.run(
            [sys.executable, __file__, "--child", name], capture_output=True, text=True
        )
        if out.returncode:
            print(f"| {name} | failed: {out.stderr.strip().splitlines()[-1]} | | | |")
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        ratio = r["time"] / r["floor"]
        print(f"| {name} | {r['time']:.3f} | {r['floor']:.3f} | {ratio:.1f} | {r['peak']:.0f} |")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        print(json.dumps(run_case(sys.argv[2])))
    else:
        chosen = [c for c in CASES if not sys.argv[1:] or any(a in c for a in sys.argv[1:])]
        main(chosen)
