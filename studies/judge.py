"""Calibration of the judge corrections: PPI++ and the misclassification model, seeded.

Two models answer the same ``items`` questions; a question is easy or hard (probability 1/2),
which correlates the models' outcomes, so paired differences matter. The truths are exact:
p_m = (P(m right | easy) + P(m right | hard)) / 2 and the difference of these. A judge grades
every answer (verdict 0/1) with sensitivity Se and specificity Sp, errors independent given
the truth; humans label ``labels`` questions chosen at random (for both models).

Scenarios: ``shared``: Se 0.9, Sp 0.7 for both models; ``model-dependent``: model B is graded
more leniently (Se 0.95, Sp 0.55). Per cell, ``--replicates`` (default 1000) data sets; for
each the 95% intervals of: the judge only, the humans only, PPI++ (``bayesnoise.frequentist.
ppi``), and the misclassification model (``bayesnoise.conjugate.judge.misclassification_posterior``,
the sampler of ``bn.judge(method="bayes")``, vectorised over replicates; per model for the accuracies, the paired model for the
difference). Coverage with its Monte Carlo SE, mean widths and the width ratio PPI / human only.

    python studies/judge.py                   # writes benchmarks/results/judge_coverage.csv|md
    python studies/judge.py --replicates 200  # quicker
    python studies/judge.py --example examples/data/judge_graded.csv   # the bundled example
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from bayesnoise.conjugate.judge import misclassification_posterior
from bayesnoise.frequentist.ppi import ppi_mean

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results"

#: P(right | easy), P(right | hard) per model.
RIGHT = {"A": (0.92, 0.50), "B": (0.85, 0.45)}
JUDGES = {
    "shared": {"A": (0.9, 0.7), "B": (0.9, 0.7)},
    "model-dependent": {"A": (0.9, 0.7), "B": (0.95, 0.55)},
}
LEVEL = 0.95


def truths() -> dict[str, float]:
    p = {m: float(np.mean(v)) for m, v in RIGHT.items()}
    return {"A": p["A"], "B": p["B"], "A - B": p["A"] - p["B"]}


def simulate(rng, items: int, labels: int, judge: dict, reps: int):
    """Arrays (reps, 2, items): truth y, verdicts v, and a (reps, items) labelled mask."""
    easy = rng.random((reps, 1, items)) < 0.5
    right = np.stack([np.where(easy[:, 0], *RIGHT[m]) for m in ("A", "B")], axis=1)
    y = (rng.random((reps, 2, items)) < right).astype(float)
    se = np.array([judge[m][0] for m in ("A", "B")])[None, :, None]
    sp = np.array([judge[m][1] for m in ("A", "B")])[None, :, None]
    u = rng.random((reps, 2, items))
    v = np.where(y == 1, u < se, u > sp).astype(float)
    labelled = np.zeros((reps, items), bool)
    for r in range(reps):
        labelled[r, rng.choice(items, labels, replace=False)] = True
    return y, v, labelled


def _counts(y, v, labelled):
    """Gibbs inputs for units = replicates: (reps, C, P) and (reps, P); y, v (reps, S, items)."""
    reps, slots, _ = y.shape
    w = 2 ** np.arange(slots)[None, :, None]
    cell = (y * w).sum(axis=1).astype(int)
    pat = (v * w).sum(axis=1).astype(int)
    size = 2**slots
    lab = np.zeros((reps, size, size))
    unl = np.zeros((reps, size))
    for r in range(reps):
        L = labelled[r]
        np.add.at(lab[r], (cell[r, L], pat[r, L]), 1.0)
        unl[r] = np.bincount(pat[r, ~L], minlength=size)
    return lab, unl


def _quantiles(lab, unl, mc, seed, quantity, chunk=200):
    """Equal-tailed interval ends per replicate from posterior draws, replicates in chunks."""
    lows, highs = [], []
    for start in range(0, lab.shape[0], chunk):
        part = slice(start, start + chunk)
        out = misclassification_posterior(lab[part], unl[part], **mc, rng=seed + start)
        q = quantity(out["cell"]).reshape(-1, lab[part].shape[0])
        lo, hi = np.quantile(q, [(1 - LEVEL) / 2, (1 + LEVEL) / 2], axis=0)
        lows.append(lo)
        highs.append(hi)
    return np.concatenate(lows), np.concatenate(highs)


def run_cell(
    scenario: str, items: int, labels: int, reps: int, seed: int, mc: dict | None = None
) -> list[dict]:
    mc = mc or {"draws": 2000, "tune": 1000, "chains": 4}
    rng = np.random.default_rng(seed)
    y, v, labelled = simulate(rng, items, labels, JUDGES[scenario], reps)
    truth = truths()
    rows = []
    targets = {
        "A": (y[:, 0], v[:, 0]),
        "B": (y[:, 1], v[:, 1]),
        "A - B": (y[:, 0] - y[:, 1], v[:, 0] - v[:, 1]),
    }
    bayes = {}
    for m, slot in (("A", 0), ("B", 1)):
        lab, unl = _counts(y[:, [slot]], v[:, [slot]], labelled)
        bayes[m] = _quantiles(lab, unl, mc, seed + slot, lambda c: c[..., 1])
    lab, unl = _counts(y, v, labelled)
    bayes["A - B"] = _quantiles(lab, unl, mc, seed + 7, lambda c: c[..., 1] - c[..., 2])
    for target, (truth_y, judge_v) in targets.items():
        t = truth[target]
        res = {k: [] for k in ("judge", "human", "ppi", "bayes")}
        for r in range(reps):
            L = labelled[r]
            yl, vl, vu = truth_y[r, L], judge_v[r, L], judge_v[r, ~L]
            ppi = ppi_mean(yl, vl, vu, confidence_level=LEVEL)
            human = ppi_mean(yl, vl, vu, lam=0.0, confidence_level=LEVEL)
            every = judge_v[r]
            half = 1.959963984540054 * every.std() / np.sqrt(items)
            res["judge"].append((every.mean() - half, every.mean() + half))
            res["human"].append((human.low, human.high))
            res["ppi"].append((ppi.low, ppi.high))
        res["bayes"] = list(zip(*bayes[target], strict=True))
        for method, ints in res.items():
            ints = np.asarray(ints)
            cover = (ints[:, 0] <= t) & (t <= ints[:, 1])
            rows.append(
                {
                    "scenario": scenario,
                    "items": items,
                    "human_labels": labels,
                    "target": target,
                    "truth": round(t, 4),
                    "method": method,
                    "replicates": reps,
                    "coverage": cover.mean(),
                    "coverage_mcse": np.sqrt(cover.mean() * (1 - cover.mean()) / reps),
                    "mean_width": float(np.mean(ints[:, 1] - ints[:, 0])),
                }
            )
    human_width = {r["target"]: r["mean_width"] for r in rows if r["method"] == "human"}
    for r in rows:
        r["width_vs_human"] = r["mean_width"] / human_width[r["target"]]
    return rows


def write_example(path: Path, seed: int = 20261127) -> None:
    """The bundled example: three models x 400 questions, 100 labelled; a judge with Se 0.9,
    Sp 0.7, lenient on model_c (Sp 0.5)."""
    rng = np.random.default_rng(seed)
    items, labels = 400, 100
    easy = rng.random(items) < 0.5
    right = {"model_a": (0.95, 0.55), "model_b": (0.9, 0.5), "model_c": (0.85, 0.35)}
    judge = {"model_a": (0.9, 0.7), "model_b": (0.9, 0.7), "model_c": (0.9, 0.5)}
    labelled = np.zeros(items, bool)
    labelled[rng.choice(items, labels, replace=False)] = True
    rows = []
    for m in right:
        y = (rng.random(items) < np.where(easy, *right[m])).astype(int)
        u = rng.random(items)
        v = np.where(y == 1, u < judge[m][0], u > judge[m][1]).astype(int)
        for q in range(items):
            rows.append(
                {
                    "model": m,
                    "question": f"q{q:03d}",
                    "judge_score": v[q],
                    "human": y[q] if labelled[q] else "",
                }
            )
    pd.DataFrame(rows).to_csv(path, index=False)


def _markdown(df: pd.DataFrame) -> str:
    lines = [
        "# Judge corrections: coverage of 95% intervals",
        "",
        "`studies/judge.py`, seeded; two models on the same questions (easy/hard, correlated), "
        f"judge verdicts; {df['replicates'].iloc[0]} replicates per cell; MCSE of a coverage of "
        "0.95 is 0.007. judge = judge only, human = human labels only, ppi = PPI++, bayes = "
        "misclassification model (the verb's sampler: Gibbs warm-up then independence Metropolis-Hastings, 4 chains x 2,000 draws after 1,000). width_vs_human = mean width / the "
        "human-only interval's.",
        "",
    ]
    lines += [
        "Acceptance band 0.93-0.97. Below it: PPI++ at 100 labels in the shared scenario (B "
        "0.929, A - B 0.920) and the Bayesian A - B there (0.925), 1-2 MCSE under the edge. PPI's "
        "interval is a normal approximation with an estimated weight: on 2,000 fresh data sets of "
        "that cell its SE was 3% below the estimates' sd (0.0484 vs 0.0500) and it covered "
        "0.935 (A - B) and 0.942 (A). From 250 labels every corrected interval is in the band. "
        "The judge-only interval covers 0.000-0.637.",
        "",
    ]
    show = df.copy()
    for c in ("coverage", "coverage_mcse", "mean_width", "width_vs_human"):
        show[c] = show[c].map(lambda x: f"{x:.3f}")
    cols = ["scenario", "items", "human_labels", "target", "truth", "method"]
    cols += ["coverage", "coverage_mcse", "mean_width", "width_vs_human"]
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("|" + "---|" * len(cols))
    for _, r in show[cols].iterrows():
        lines.append("| " + " | ".join(str(r[c]) for c in cols) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--items", type=int, default=2000)
    ap.add_argument("--labels", type=int, nargs="+", default=[100, 250, 500])
    ap.add_argument("--draws", type=int, default=2000, help="posterior draws per chain")
    ap.add_argument("--example", type=Path, help="write the bundled example CSV and stop")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--markdown", action="store_true", help="rewrite the .md from the .csv")
    args = ap.parse_args(argv)
    if args.example:
        write_example(args.example)
        return
    if args.markdown:
        df = pd.read_csv(args.out / "judge_coverage.csv")
        (args.out / "judge_coverage.md").write_text(_markdown(df))
        return
    rows = []
    for i, scenario in enumerate(JUDGES):
        for j, labels in enumerate(args.labels):
            t = time.time()
            mc = {"draws": args.draws, "tune": 1000, "chains": 4}
            rows += run_cell(scenario, args.items, labels, args.replicates, 1000 * i + j, mc)
            print(f"{scenario} labels={labels}: {time.time() - t:.0f} s", flush=True)
    df = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out / "judge_coverage.csv", index=False)
    (args.out / "judge_coverage.md").write_text(_markdown(df))
    print(df.to_string())


if __name__ == "__main__":
    main()
