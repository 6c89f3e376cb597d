"""The Dask checks of tests/test_dask.py at the size the workers cannot hold (issue 33).

tests/test_dask.py runs the checks on a small dataset so that the suite stays fast; this script
runs the same functions on data larger than the workers' memory and writes
``benchmarks/results/dask.md``:

- model and pair components of 40 models x 800,000 questions (3 float64 variables, 732 MiB) on 2
  worker processes of 300 MiB each, equal to the in-memory tables to 1e-10;
- the Beta-Binomial posterior table of 100 models x 200,000 questions (458 MiB) by blocks of 2
  models on 2 workers of 400 MiB each, exact columns equal to 1e-10 and Monte Carlo interval
  ends within 6 Monte Carlo SEs of the in-memory table.

Each check raises when a number differs; the table records the wall time of the Dask run.

    python benchmarks/bench_dask.py
"""

from __future__ import annotations

import os
import platform
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
sys.path.insert(0, str(TESTS))
# the worker processes unpickle the block generators from test_dask
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(TESTS), str(ROOT), os.environ.get("PYTHONPATH")) if p
)

import test_dask as t  # noqa: E402


def _cpu():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def main() -> int:
    rows = []
    mib = 2**20
    for name, fn, nbytes, memory in (
        (
            f"model + pair components, {t.MODELS} x {t.QUESTIONS:,}",
            t.check_dask_equals_in_memory,
            3 * t.MODELS * t.QUESTIONS * 8,
            t.WORKER_MEMORY,
        ),
        (
            f"posterior_table, {t.CONJUGATE_SHAPE[0]} x {t.CONJUGATE_SHAPE[1]:,}",
            t.check_dask_conjugate_posterior_equals_in_memory,
            3 * t.CONJUGATE_SHAPE[0] * t.CONJUGATE_SHAPE[1] * 8,
            t.CONJUGATE_WORKER_MEMORY,
        ),
    ):
        c0, w0 = _cpu(), time.perf_counter()
        dask_seconds = fn()
        rows.append(
            f"| {name} | {nbytes / mib:.0f} MiB | 2 x {memory} | equal | {dask_seconds:.1f} | "
            f"{time.perf_counter() - w0:.1f} | {_cpu() - c0:.1f} |"
        )
        print(rows[-1], flush=True)
    load = os.getloadavg()[0]
    text = "\n".join(
        [
            "# Dask checks on data the workers cannot hold (benchmarks/bench_dask.py)",
            "",
            f"{platform.node()}, {os.cpu_count()} cores, load average {load:.1f} at the end; "
            "'equal': every assertion of tests/test_dask.py's check passed.",
            "",
            "| check | data | workers | result | Dask run s | whole check s | CPU s |",
            "|---|---|---|---|---|---|---|",
            *rows,
            "",
        ]
    )
    out = ROOT / "benchmarks" / "results" / "dask.md"
    out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
