"""Cost of ``import bayesnoise`` against its floor, ``import numpy, scipy.stats, pandas, xarray``.

Each import runs in a fresh interpreter (``python -X importtime`` is not needed: wall time of
``python -c``), repeated; the table prints the median and the ratio to the floor measured in the
same run, and whether PyMC was imported (it must not be).

Run: ``python benchmarks/bench_import.py [--repeats 7]``
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

CASES = {
    "python (empty)": "pass",
    "floor: numpy, scipy.stats, pandas, xarray": "import numpy, scipy.stats, pandas, xarray",
    "import bayesnoise": "import bayesnoise",
    "import bayesnoise + all estimators": (
        "import bayesnoise, bayesnoise.frequentist, bayesnoise.conjugate, bayesnoise.mcmc, "
        "bayesnoise.decide, bayesnoise.cli"
    ),
}


def _time(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    for code in CASES.values():  # warm the file cache once
        _time(code)
    rows = {}
    for name, code in CASES.items():
        rows[name] = statistics.median(_time(code) for _ in range(args.repeats))
    floor = rows["floor: numpy, scipy.stats, pandas, xarray"]
    check = "import sys, bayesnoise; print('pymc' in sys.modules)"
    pymc = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    print(f"{'case':45s} {'median s':>9s} {'x floor':>8s}")
    for name, seconds in rows.items():
        print(f"{name:45s} {seconds:9.3f} {seconds / floor:8.2f}")
    print(f"pymc imported by 'import bayesnoise': {pymc.stdout.strip()}  (target: False)")
    print("target: import bayesnoise <= 1.5 x floor")


if __name__ == "__main__":
    main()
