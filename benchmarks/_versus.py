"""Shared timing for the headline-ratio scripts: a command against its floor, back to back.

Each measurement is a whole process started afresh (``subprocess`` + ``os.wait4``: wall
seconds, user + system CPU seconds and the peak resident memory the kernel recorded). The two
commands run in turn, A B A B ..., after one warm-up pair; the ratio is taken pair by pair and
its median quoted, so that a drift of the shared machine's speed cancels. Results are appended
as a markdown table to ``benchmarks/results/<name>.md`` with the commit, the date, a label
(``--label before``/``after``) and the load average. The CPU ratio (user + system seconds of
the whole processes) is quoted beside the wall-time ratio because it moves less when the
machine is loaded; with ``inner`` timing (the load) it still covers the whole processes.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks/results"
SHARED = ROOT.parent / "shared/data"
PYTHON = sys.executable
CLI = str(Path(sys.executable).with_name("bayesnoise"))
IMPORT_FLOOR = [PYTHON, "-c", "import numpy, pandas, scipy.stats, xarray"]


@dataclass
class Run:
    wall: float
    cpu: float
    mb: float


def run_once(cmd: list[str], inner: bool = False) -> Run:
    """Wall, CPU seconds and peak MB of one fresh process running ``cmd``.

    With ``inner``, the process prints the seconds of the step it times (imports excluded) as
    the first word of its standard output, and that is the run's wall time.
    """
    t0 = time.perf_counter()
    out = subprocess.PIPE if inner else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, text=True)
    text = proc.stdout.read() if inner else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if inner:
        proc.stdout.close()
    if status != 0:
        raise RuntimeError(f"exit status {status >> 8}: {' '.join(cmd)}")
    if inner:
        wall = float(text.split()[0])
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


@dataclass
class Versus:
    case: str
    a: list[Run]
    b: list[Run]

    @property
    def wall_ratio(self) -> float:
        return statistics.median(x.wall / y.wall for x, y in zip(self.a, self.b, strict=True))

    @property
    def cpu_ratio(self) -> float:
        return statistics.median(x.cpu / y.cpu for x, y in zip(self.a, self.b, strict=True))

    @property
    def mem_ratio(self) -> float:
        return statistics.median(x.mb / y.mb for x, y in zip(self.a, self.b, strict=True))

    def median(self, side: str, field: str) -> float:
        return statistics.median(getattr(r, field) for r in getattr(self, side))


def versus(
    case: str, cmd: list[str], floor: list[str], runs: int = 5, warmup: int = 1, inner=False
) -> Versus:
    """``cmd`` and ``floor`` in turn, ``runs`` counted pairs after ``warmup`` pairs."""
    a, b = [], []
    for i in range(warmup + runs):
        ra, rb = run_once(cmd, inner), run_once(floor, inner)
        if i >= warmup:
            a.append(ra)
            b.append(rb)
        print(
            f"  {case}: run {i + 1 - warmup}: {ra.wall:.2f} s vs {rb.wall:.2f} s", file=sys.stderr
        )
    return Versus(case, a, b)


def parser(doc: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--label", default="run", help="before / after / any tag for the table")
    p.add_argument("--runs", type=int, default=5, help="counted pairs (median quoted)")
    return p


def commit() -> str:
    """The commit of the code measured (``PYTHONPATH`` may point at an exported older tree)."""
    tree = os.environ.get("PYTHONPATH", "").split(os.pathsep)[0] or str(ROOT)
    out = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    here = out.stdout.strip() or "?"
    return here if tree == str(ROOT) else f"{here} (code from {tree})"


def write(name: str, label: str, rows: list[Versus], floor_name: str, note: str = "") -> str:
    """Append the table of ``rows`` to ``results/<name>.md`` and return it."""
    load = os.getloadavg()[0]
    head = (
        f"\n### {label}: commit {commit()}, {datetime.datetime.now():%Y-%m-%d %H:%M}, "
        f"load average {load:.1f}, median of {len(rows[0].a) if rows else 0} pairs\n\n"
        f"| case | command s | {floor_name} s | time ratio | CPU ratio | command MB | floor MB | "
        "memory ratio |\n|---|---|---|---|---|---|---|---|\n"
    )
    body = "".join(
        f"| {v.case} | {v.median('a', 'wall'):.2f} | {v.median('b', 'wall'):.2f} | "
        f"{v.wall_ratio:.2f} | {v.cpu_ratio:.2f} | {v.median('a', 'mb'):.0f} | {v.median('b', 'mb'):.0f} | "
        f"{v.mem_ratio:.2f} |\n"
        for v in rows
    )
    text = head + body + (f"\n{note}\n" if note else "")
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.md"
    with path.open("a") as fh:
        fh.write(text)
    print(text)
    return text
