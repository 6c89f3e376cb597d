"""Size of the rules that read ``prob_a_better`` as a verdict (issue 37, item 4).

Null design: per replicate, N questions with success probabilities ``u_i ~ Beta(2, 1.3)``
(mean 0.61; both models share them, so the these-questions difference ``mean_i (u_A,i -
u_B,i)`` and the population difference are exactly 0), and K independent 0/1 samples per model
and question. Two models ``a``, ``b`` named before the data are drawn.

Measured through :func:`bayesnoise.conjugate.posterior_pairs_table` (what ``posterior --by
pair`` and ``compare --by pair`` print), for ``prob_a_better`` (these questions) and
``prob_a_better_population``, with ``P = P(a better)`` in the fixed orientation and ``P* =``
the same probability in the orientation of the pair tables (the higher accuracy as A, i.e.
``P`` or ``1 - P``, fixed by the data):

- ``as_used``: ``P* > level`` -- "A better" on a table oriented by the data (the rule the docs
  quoted; it fires on either side, so it is a two-sided rule at twice the size);
- ``fixed``: ``P > level`` -- a direction fixed before the data (``pair=`` asked beforehand);
- ``two_sided``: ``max(P, 1 - P) > 1 - (1 - level) / 2`` -- the reading the verdicts use
  (:func:`bayesnoise.decide.verdicts.two_sided_threshold`), whatever the orientation.

level = 0.95, nominal size 0.05. MCSE: binomial ``sqrt(p (1 - p) / R)``.

Run: ``nice -n 10 python -m studies.prob_rule_size`` (about 3 min at R = 1,000 per cell on one
core); writes ``benchmarks/results/prob_rule_size.csv`` and the markdown table beside it.
:func:`cell` at small R is what ``tests/test_verdicts_read_as_tables.py`` runs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import bayesnoise as bn
from bayesnoise import conjugate
from bayesnoise.decide.verdicts import two_sided_threshold

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "prob_rule_size.csv"
KS = (1, 5)
NS = (50, 200, 800)
LEVEL = 0.95
SHAPE = (2.0, 1.3)
GROUP = 10  # replicates per posterior_pairs_table call: 20 models, 190 pairs
COLUMNS = ("prob_a_better", "prob_a_better_population")


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def draws(n: int, k: int, reps: int, rng) -> np.ndarray:
    """(reps, 2, N) correct counts out of k of two models with the same question
    probabilities."""
    u = rng.beta(*SHAPE, size=(reps, 1, n))
    return rng.binomial(k, np.broadcast_to(u, (reps, 2, n)))


def probabilities(c: np.ndarray, k: int, seed: int) -> pd.DataFrame:
    """Per replicate: ``prob_a_better`` and ``prob_a_better_population`` of a - b (the fixed
    orientation) and the observed difference of accuracies."""
    rows = []
    for g0 in range(0, c.shape[0], GROUP):
        block = c[g0 : g0 + GROUP]
        g, n = block.shape[0], block.shape[2]
        names = [f"r{i}{s}" for i in range(g) for s in "ab"]
        ds = bn.from_arrays(block.reshape(2 * g, n), np.full((2 * g, n), k), models=names)
        df = _quiet(
            conjugate.posterior_pairs_table,
            ds,
            confidence_level=LEVEL,
            rng=seed + g0,
            progress=False,
        )
        df = df.set_index(["model_a", "model_b"])
        for i in range(g):
            a, b = f"r{i}a", f"r{i}b"
            if (a, b) in df.index:
                r, sign = df.loc[(a, b)], 1
            else:  # listed as b - a: the complement
                r, sign = df.loc[(b, a)], -1
            out = {col: float(r[col]) if sign > 0 else 1.0 - float(r[col]) for col in COLUMNS}
            out["difference"] = float(block[i, 0].mean() - block[i, 1].mean()) / k
            rows.append(out)
    return pd.DataFrame(rows)


def _fraction(x) -> tuple[float, float]:
    p = float(np.mean(x))
    return p, float(np.sqrt(p * (1 - p) / len(x)))


def rules(p: np.ndarray, difference: np.ndarray, level: float = LEVEL) -> dict:
    """Rejection indicators of the three rules (module docs) for P(a better) = ``p``."""
    oriented = np.where(difference >= 0, p, 1.0 - p)  # the table's A: the higher accuracy
    cut = two_sided_threshold(level)
    return {
        "as_used": oriented > level,
        "fixed": p > level,
        "two_sided": np.maximum(p, 1.0 - p) > cut,
    }


def cell(n: int, k: int, reps: int, seed: int = 0) -> dict:
    """One (N, K) cell: the size and MCSE of each rule on each column."""
    rng = np.random.default_rng([seed, n, k])
    c = draws(n, k, reps, rng)
    df = probabilities(c, k, seed)
    out = {"N": n, "K": k, "R": reps}
    for col in COLUMNS:
        tag = "here" if col == "prob_a_better" else "population"
        for rule, hit in rules(df[col].to_numpy(), df["difference"].to_numpy()).items():
            out[f"size_{rule}_{tag}"], out[f"mcse_{rule}_{tag}"] = _fraction(hit)
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rows = []
    for k in KS:
        for n in NS:
            t0 = time.perf_counter()
            rows.append(cell(n, k, args.reps, args.seed))
            rows[-1]["seconds"] = round(time.perf_counter() - t0, 1)
            print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(OUT, index=False)
    cols = ["N", "K", "R"]
    for tag in ("here", "population"):
        for rule in ("as_used", "fixed", "two_sided"):
            cols.append(f"size_{rule}_{tag}")
    lines = [
        "# Size of the prob_a_better rules under the null (nominal 0.05)",
        "",
        f"`python -m studies.prob_rule_size --reps {args.reps} --seed {args.seed}`; see the "
        "module docstring. here = `prob_a_better` (these questions), population = "
        "`prob_a_better_population`. as_used: P(A better) > 0.95 with A the higher accuracy; "
        "fixed: P(a better) > 0.95, a named before the data; two_sided: max(P, 1 - P) > 0.975. "
        f"MCSE <= {df.filter(like='mcse').to_numpy().max():.4f}.",
        "",
        "| " + " | ".join(cols) + " |",
        "|" + "---|" * len(cols),
    ]
    for r in df.itertuples(index=False):
        d = r._asdict()
        lines.append(
            "| "
            + " | ".join(f"{d[c]:.3f}" if c.startswith("size") else str(d[c]) for c in cols)
            + " |"
        )
    OUT.with_suffix(".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
