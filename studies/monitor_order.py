"""Ever-reject rate of ``monitor`` on null logs listed in three orders (issue 28 item 2).

Null logs: baseline and candidate exchangeable on every question
(:func:`studies.ci_decisions.population`, correlated Beta difficulties, mean 0.6; the population
difference is exactly 0), N questions with K samples each. Each log is listed three ways:

``by id``
    question ids assigned from the easiest to the hardest question (ids that follow
    difficulty, as in a benchmark whose authors numbered the questions by source);
``by outcome``
    sorted by the observed difference candidate - baseline (ties first, then the baseline's
    wins, then the candidate's): an order that depends on the results;
``shuffled``
    a random order.

``bn.monitor`` runs with its default options (random replay order, ``rng=0``, alpha 0.05,
two-sided, adaptive stakes, stop at the first rejection) on a dataset holding the log in that
order; a replicate "ever rejects" when the monitor stops. The acceptance: ever-reject rate
<= alpha + 2 MCSE, MCSE = sqrt(alpha (1 - alpha) / R). For contrast, ``order="file"`` on the
same logs (valid only when the file order is independent of the results).

Run: ``nice -n 10 python -m studies.monitor_order [R]`` (R = 500: about 10 min on one core);
writes ``benchmarks/results/monitor_order.csv`` and ``.md``.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import bayesnoise as bn
from bayesnoise.data import DataError, from_arrays

from .check_size import markdown
from .ci_decisions import population

ALPHA = 0.05
ORDERS = ("by id", "by outcome", "shuffled")


def _listing(order: str, u_base: np.ndarray, d: np.ndarray, rng) -> np.ndarray:
    if order == "by id":
        return np.argsort(-u_base, kind="stable")  # easiest first
    if order == "by outcome":
        rank = np.where(d == 0, 0, np.where(d < 0, 1, 2))
        return np.lexsort((d, rank))
    return rng.permutation(d.size)


def _stops(ds, order):
    try:
        r = bn.monitor(ds, baseline="base", candidate="cand", order=order, progress=False)
    except DataError as err:  # an empty sequence before any stop: counted as a rejection
        assert "empty" in str(err)
        return True
    return r.attrs["stopped_at"] > 0


def run(reps: int = 500, seed: int = 20261127) -> pd.DataFrame:
    u = population(np.random.default_rng(seed), 20_000)
    rows = []
    for k, n in ((1, 200), (5, 100)):
        rng = np.random.default_rng([seed, k, n])
        hits = {(o, m): 0 for o in ORDERS for m in ("random", "file")}
        start = time.perf_counter()
        for _ in range(reps):
            idx = rng.integers(0, u.shape[1], n)
            c = rng.binomial(k, u[:, idx])
            d = (c[1] - c[0]) / k
            for order in ORDERS:
                at = _listing(order, u[0, idx], d, rng)
                ds = from_arrays(
                    c[:, at],
                    np.full((2, n), k),
                    models=["base", "cand"],
                    questions=[f"q{i:04d}" for i in range(n)]
                    if order == "by id"
                    else [f"q{j:04d}" for j in at],
                )
                for mode in ("random", "file"):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        hits[(order, mode)] += _stops(ds, None if mode == "random" else "file")
        secs = time.perf_counter() - start
        mcse = np.sqrt(ALPHA * (1 - ALPHA) / reps)
        for (order, mode), h in hits.items():
            rows.append(
                {
                    "samples_per_question": k,
                    "questions": n,
                    "listing": order,
                    "monitor_order": "random (default)" if mode == "random" else "file",
                    "replicates": reps,
                    "ever_reject": h / reps,
                    "mcse": mcse,
                    "limit": ALPHA + 2 * mcse,
                    "seconds": secs,
                }
            )
            print(rows[-1], file=sys.stderr)
    out = pd.DataFrame(rows)
    out["ok"] = out["ever_reject"] <= out["limit"]
    return out


def main() -> None:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    out = run(reps)
    folder = Path(__file__).resolve().parents[1] / "benchmarks" / "results"
    out.to_csv(folder / "monitor_order.csv", index=False)
    head = (
        "# monitor: ever-reject rate on null logs in three listings (issue 28 item 2)\n\n"
        f"{reps} null logs per cell, alpha = {ALPHA}; limit = alpha + 2 MCSE. "
        "monitor_order 'random (default)': bn.monitor with default options; 'file': "
        "order='file' on the same logs, for contrast (its guarantee needs a file order "
        "independent of the results; 'by outcome' breaks it). seconds: the whole cell (both "
        "modes, three listings). ok: ever_reject <= limit; the acceptance is on the default rows, the file rows show what the default prevents. Generated by `python -m studies.monitor_order`.\n\n"
    )
    (folder / "monitor_order.md").write_text(head + markdown(out) + "\n")
    print(out.to_string())


if __name__ == "__main__":
    main()
