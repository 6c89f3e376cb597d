"""K = 1 these-questions difference (issue 28, item 8): coverage and width of ``dbar`` and of
``prob_a_better`` on real difficulty shapes.

Pools of real per-question success probabilities: the all-the-noises ``highk_temp0.7`` tables
(K ~ 1,100 samples per question, so ``u = correct / count`` is each model's success
probability on each question to +- 0.015): human_eval_plus (164 questions), math500 (500) and
AIME 2024 + 2025 (60). A *pair* is two models adjacent in the pool's accuracy ranking (close
pairs: where these-question differences are small and the interval matters). One replicate
draws N questions from the pool with replacement and one 0/1 sample per model and question
(K = 1). Truths: the these-questions difference ``mean_i (u_A,i - u_B,i)`` over the drawn
questions. Null design for the size of ``prob_a_better``: the same model on both sides (two
independent K = 1 runs, so the these-questions difference is exactly 0).

Measured through :func:`bayesnoise.conjugate.posterior_pairs_table` (what ``posterior --by
pair`` and ``compare --by pair`` print): coverage of ``dbar_low/high`` and of
``mu_difference_low/high`` for the these-questions truth, their median width over the paired t
interval's (``mean(d) +- t_{N-1} sd(d) / sqrt(N)`` on the per-question differences d), the
size P(prob_a_better > 0.95) under the null (nominal 0.05) and the power P(prob_a_better >
0.95 or < 0.05) on the real pairs. MCSE: binomial sqrt(p (1 - p) / R).

Run: ``nice -n 10 python -m studies.k1_difference --label before`` (about 2 min at R = 400);
appends to ``benchmarks/results/k1_difference.csv`` and rewrites the markdown table beside it.
:func:`cell` at small R is what ``tests/test_k1_difference.py`` runs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

import bayesnoise as bn
from bayesnoise import conjugate

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "all-the-noises" / "highk_temp0.7"
POOLS = {
    "human_eval_plus": ("input_table_human_eval_plus.csv",),
    "math500": ("input_table_math500_cot.csv",),
    "aime": ("input_table_aime2024_cot.csv", "input_table_aime2025_cot.csv"),
}
NS = (30, 100, 500)
LEVEL = 0.95
GROUP = 15  # replicates (pairs) per posterior_pairs_table call: 30 models, 435 pairs
OUT = ROOT / "benchmarks" / "results" / "k1_difference.csv"


def pool(name: str, data: Path = DATA) -> tuple[np.ndarray, list[str]]:
    """(M, Q) success probabilities of the pool's models (complete questions only), models
    sorted by accuracy, and their names."""
    parts = []
    for i, f in enumerate(POOLS[name]):
        df = pd.read_csv(data / f, usecols=["model", "example_id", "count", "correct"])
        df["question"] = f"{i}:" + df["example_id"].astype(str)
        parts.append(df)
    df = pd.concat(parts)
    df = df.groupby(["model", "question"])[["correct", "count"]].sum()
    u = (df["correct"] / df["count"]).unstack("question").dropna(axis=1)
    u = u.loc[u.mean(axis=1).sort_values().index]
    return u.to_numpy(float), [str(m) for m in u.index]


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _draw(u, pairs, n, reps, rng):
    """(reps, 2, N) 0/1 samples and (reps,) these-questions truths for random pairs."""
    which = rng.integers(0, len(pairs), reps)
    a, b = pairs[which, 0], pairs[which, 1]
    q = rng.integers(0, u.shape[1], (reps, n))
    ua, ub = u[a[:, None], q], u[b[:, None], q]
    c = np.stack([rng.random(ua.shape) < ua, rng.random(ub.shape) < ub], axis=1).astype(int)
    return c, (ua - ub).mean(axis=1)


def _intervals(c, seed):
    """posterior_pairs_table rows of the within-replicate pairs, GROUP replicates per call."""
    rows = []
    for g0 in range(0, c.shape[0], GROUP):
        block = c[g0 : g0 + GROUP]
        g, n = block.shape[0], block.shape[2]
        names = [f"r{i}{s}" for i in range(g) for s in "ab"]
        ds = bn.from_arrays(block.reshape(2 * g, n), np.ones((2 * g, n), int), models=names)
        df = _quiet(
            conjugate.posterior_pairs_table,
            ds,
            confidence_level=LEVEL,
            rng=seed + g0,
            progress=False,
        ).set_index(["model_a", "model_b"])
        rows.append(df.loc[[(f"r{i}a", f"r{i}b") for i in range(g)]].reset_index(drop=True))
    return pd.concat(rows, ignore_index=True)


def _t_width(c):
    d = (c[:, 0] - c[:, 1]).astype(float)
    n = d.shape[1]
    return 2 * stats.t.ppf(0.5 + LEVEL / 2, n - 1) * d.std(axis=1, ddof=1) / np.sqrt(n)


def _fraction(x):
    p = float(np.mean(x))
    return p, float(np.sqrt(p * (1 - p) / len(x)))


def cell(name: str, n: int, reps: int, seed: int = 0, data: Path = DATA) -> dict:
    """One (pool, N) cell: coverage, width ratio, size and power at K = 1."""
    u, _ = pool(name, data)
    rng = np.random.default_rng([seed, n, sum(map(ord, name))])
    close = np.stack([np.arange(u.shape[0] - 1), np.arange(1, u.shape[0])], axis=1)
    c, truth = _draw(u, close, n, reps, rng)
    df = _intervals(c, seed)
    tw = _t_width(c)
    ok = tw > 0  # a replicate with no discordant question has no t width
    out = {"pool": name, "N": n, "K": 1, "R": reps}
    for label, col in (("dbar", "dbar"), ("mu_difference", "mu_difference")):
        low, high = df[f"{col}_low"].to_numpy(), df[f"{col}_high"].to_numpy()
        out[f"coverage_{label}"], out[f"mcse_{label}"] = _fraction((low <= truth) & (truth <= high))
        out[f"width_ratio_{label}"] = float(np.median((high - low)[ok] / tw[ok]))
    p = df["prob_a_better"].to_numpy()
    out["power_prob_a_better"] = _fraction((p > 0.95) | (p < 0.05))[0]
    same = np.stack([np.arange(u.shape[0])] * 2, axis=1)  # null: a model against itself
    c0, _ = _draw(u, same, n, reps, rng)
    df0 = _intervals(c0, seed + 7)
    tw0 = _t_width(c0)
    ok0 = tw0 > 0
    for label, col in (("dbar", "dbar"), ("mu_difference", "mu_difference")):
        low, high = df0[f"{col}_low"].to_numpy(), df0[f"{col}_high"].to_numpy()
        out[f"null_coverage_{label}"] = _fraction((low <= 0) & (0 <= high))[0]
        out[f"null_width_ratio_{label}"] = float(np.median((high - low)[ok0] / tw0[ok0]))
    p0 = df0["prob_a_better"].to_numpy()
    out["size_prob_a_better"], out["mcse_size"] = _fraction(p0 > 0.95)
    if "dbar_method" in df:
        out["dbar_method"] = "; ".join(
            f"{k} {v}" for k, v in df["dbar_method"].value_counts().items()
        )
    return out


def _markdown(df: pd.DataFrame) -> str:
    """A pipe table (no tabulate dependency), floats to 3 decimals."""
    cells = [[f"{v:.3f}" if isinstance(v, float) else str(v) for v in row] for row in df.values]
    lines = ["| " + " | ".join(df.columns) + " |", "|" + "---|" * len(df.columns)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in cells]) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", required=True, help="before / after (a column of the output)")
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--ns", type=int, nargs="+", default=list(NS))
    ap.add_argument("--pools", nargs="+", default=list(POOLS))
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    rows = []
    for name in args.pools:
        for n in args.ns:
            t0 = time.perf_counter()
            row = {"label": args.label, **cell(name, n, args.reps)}
            row["seconds"] = round(time.perf_counter() - t0, 1)
            rows.append(row)
            print(row, file=sys.stderr, flush=True)
    new = pd.DataFrame(rows)
    if args.out.exists():
        old = pd.read_csv(args.out)
        old = old[old["label"] != args.label]
        new = pd.concat([old, new], ignore_index=True)
    new.to_csv(args.out, index=False)
    cols = [
        "label", "pool", "N", "R", "coverage_dbar", "width_ratio_dbar", "coverage_mu_difference",
        "width_ratio_mu_difference", "null_coverage_dbar", "null_width_ratio_dbar",
        "null_width_ratio_mu_difference", "size_prob_a_better", "power_prob_a_better",
    ]  # fmt: skip
    md = args.out.with_suffix(".md")
    md.write_text(
        "# K = 1 these-questions difference on real difficulty shapes (issue 28, item 8)\n\n"
        "`python -m studies.k1_difference --label <label>`; see the module docstring. "
        "Coverage of the these-questions truth (nominal 0.95, MCSE <= 0.011 at R = 400) and "
        "median width / paired t width on close real pairs (adjacent in accuracy); the same "
        "under the null (a model against itself: truth 0, the most correlated pair); size of "
        "prob_a_better > 0.95 under the null (nominal 0.05); power (prob_a_better > 0.95 or "
        "< 0.05) on the close pairs. before = the binomial bound at K = 1; after = the "
        "narrower of it and the population interval (dbar_method).\n\n"
        + _markdown(new[[c for c in cols if c in new]])
    )


if __name__ == "__main__":
    main()
