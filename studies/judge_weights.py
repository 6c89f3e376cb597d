"""Judge labels drawn with known unequal probabilities, every label the same, and the
random-subset check (issue 37, item 12): coverage before/after, by simulation.

Designs (seeded; R replicates per cell):

- ``stratified``: 3 models on 1,000 questions, 30% hard. Accuracy on easy questions 0.85,
  0.80, 0.75, on hard 0.30, 0.35, 0.40; the judge's sensitivity 0.9, specificity 0.7 on easy
  questions and 0.6 on hard ones (``SP_HARD``: with it the "before" numbers are the audit's of
  issue 37 -- unweighted PPI++ of the middle model covering about 0.15 with bias -0.10, the
  old per-model check firing in about 40% of data sets). The same questions are labelled for every model, hard ones
  with probability 0.35 and easy ones 0.10.
- ``verdict``: the same, but a question is labelled with probability 0.35 when the judge
  fails any model's answer to it, else 0.10.
- ``random``: the same, each question labelled with probability 0.175 (a simple random
  subset): the check's false-alarm rate.
- ``all_same``: one model at 0.94 on 1,000 questions, a random 30 labelled, judge Se 0.9,
  Sp 0.7: about a fifth of the data sets have all 30 labels right.

``check_power`` adds the check alone (cheap, more replicates): its firing rate at p < 0.01 and
p < 0.05 on the stratified and random designs for a judge with specificity 0.5, 0.6 and 0.7
on the hard questions (the lower, the less the judge's verdicts see the difficulty).

The truth is the population accuracy (0.3 hard + 0.7 easy). "before": ppi_py's unweighted
PPI++ (what ``judge`` printed), the unweighted exact misclassification posterior, and the
per-model judge-mean check; "after": what ``bn.judge`` with ``label_prob_col`` computes
(inverse-probability weighted PPI++ with the rectifier's SE floor, the stratified Bayes
posterior, called directly for speed) and the check with its question-level test. Run::

    nice -n 10 python -m studies.judge_weights --replicates 200 --check-replicates 1000

It writes ``benchmarks/results/judge_weights.csv``, ``judge_weights_check.csv`` and
``judge_weights.md``.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

EASY = np.array([0.85, 0.80, 0.75])
HARD = np.array([0.30, 0.35, 0.40])
SHARE_HARD = 0.3
SP_HARD = 0.6
M = 1000
OUT = Path(__file__).resolve().parents[1] / "benchmarks" / "results"


def draw(rng, design, sp_hard=SP_HARD):
    """One data set of ``design`` (module docs): labels ``y`` and judge verdicts ``j``
    (models x questions), the labelled mask, inclusion probabilities and the true accuracies."""
    if design == "all_same":
        y = (rng.random((1, M)) < 0.94) * 1.0
        j = np.where(y == 1, rng.random(y.shape) < 0.9, rng.random(y.shape) > 0.7) * 1.0
        lab = np.zeros(M, bool)
        lab[rng.choice(M, 30, replace=False)] = True
        return y, j, lab, np.full(M, 30 / M), np.array([0.94])
    hard = rng.random(M) < SHARE_HARD
    p = np.where(hard, HARD[:, None], EASY[:, None])
    y = (rng.random(p.shape) < p) * 1.0
    sp = np.where(hard, sp_hard, 0.7)
    j = np.where(y == 1, rng.random(y.shape) < 0.9, rng.random(y.shape) > sp) * 1.0
    if design == "stratified":
        pi = np.where(hard, 0.35, 0.10)
    elif design == "verdict":
        pi = np.where((j == 0).any(axis=0), 0.35, 0.10)
    else:
        pi = np.full(M, 0.175)
    lab = rng.random(M) < pi
    truth = SHARE_HARD * HARD + (1 - SHARE_HARD) * EASY
    return y, j, lab, pi, truth


def _unused_frame(y, j, lab, pi):
    k = y.shape[0]
    return pd.DataFrame(
        {
            "model": np.repeat([f"m{i}" for i in range(k)], M),
            "question": np.tile([f"q{i}" for i in range(M)], k),
            "judge_score": j.ravel(),
            "human": np.where(np.tile(lab, k), y.ravel(), np.nan),
            "label_prob": np.tile(pi, k),
        }
    )


def _old_check(lab, j):
    ps = []
    for m in range(j.shape[0]):
        a, b = j[m, lab], j[m, ~lab]
        se = np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
        ps.append(2 * stats.norm.sf(abs(a.mean() - b.mean()) / se))
    return min(1.0, min(ps) * len(ps))


def run(design, replicates, seed, bayes=True):
    import ppi_py

    from bayesnoise.conjugate.judge import rate_posterior_exact, stratified_posterior
    from bayesnoise.frequentist.ppi import (
        LABELLING_CHECK_LEVEL,
        inclusion_weights,
        labelling_checks,
        ppi_mean,
        ppi_paired_difference,
    )

    rng = np.random.default_rng(seed)
    rows = []
    for r in range(replicates):
        y, j, lab, pi, truth = draw(rng, design)
        k = y.shape[0]
        w, wu = inclusion_weights(pi, lab)
        checks = labelling_checks(np.broadcast_to(lab, j.shape), j)
        for m in range(k):
            yl, jl, ju = y[m, lab], j[m, lab], j[m, ~lab]
            lo, hi = (float(np.squeeze(x)) for x in ppi_py.ppi_mean_ci(yl, jl, ju, alpha=0.05))
            est = float(np.squeeze(ppi_py.ppi_mean_pointestimate(yl, jl, ju)))
            after = ppi_mean(yl, jl, ju, w=w, w_unlabelled=wu)
            human = ppi_mean(yl, jl, ju, lam=0.0, w=w, w_unlabelled=wu)
            t = truth[m]
            row = {
                "design": design,
                "replicate": r,
                "model": m,
                "truth": t,
                "labels": int(lab.sum()),
                "all_labels_same": bool(np.all(yl == yl[0])),
                "ppi_before_est": est,
                "ppi_before_cover": lo <= t <= hi,
                "ppi_after_est": after.estimate,
                "ppi_after_cover": after.low <= t <= after.high,
                "human_after_cover": human.low <= t <= human.high,
                "check_before": _old_check(lab, j) < 0.01 if k > 1 else np.nan,
                "check_after": checks["p_judge_mean"] < LABELLING_CHECK_LEVEL if k > 1 else np.nan,
            }
            if bayes:
                tp = int(((yl == 1) & (jl == 1)).sum())
                fn = int(((yl == 1) & (jl == 0)).sum())
                fp = int(((yl == 0) & (jl == 1)).sum())
                tn = int(((yl == 0) & (jl == 0)).sum())
                post = rate_posterior_exact(tp, fn, fp, tn, int(ju.sum()), int((1 - ju).sum()))
                blo, bhi = post.interval(0.95)
                draws = stratified_posterior(
                    np.where(lab, y[m], np.nan)[None], j[m][None], pi, draws=2000, rng=rng
                )[:, 1]
                alo, ahi = np.quantile(draws, [0.025, 0.975])
                row.update(
                    bayes_before_est=post.mean,
                    bayes_before_cover=blo <= t <= bhi,
                    bayes_after_est=float(draws.mean()),
                    bayes_after_cover=alo <= t <= ahi,
                )
            if k > 1 and m < k - 1:  # pairs m0 - m1, m0 - m2
                pr = ppi_paired_difference(
                    np.where(lab, y[0], np.nan),
                    np.where(lab, y[m + 1], np.nan),
                    j[0],
                    j[m + 1],
                    label_prob=pi,
                )
                td = truth[0] - truth[m + 1]
                row["pair_after_cover"] = pr.low <= td <= pr.high
            rows.append(row)
    return pd.DataFrame(rows)


def check_power(replicates, seed):
    """The check's firing rates (old per-model Welch tests, new question-level Mann-Whitney)."""
    from bayesnoise.frequentist.ppi import labelling_checks

    rng = np.random.default_rng(seed)
    out = []
    for sp_hard in (0.5, 0.6, 0.7):
        for design in ("stratified", "random"):
            old, new = [], []
            for _ in range(replicates):
                _, j, lab, _, _ = draw(rng, design, sp_hard)
                old.append(_old_check(lab, j))
                new.append(labelling_checks(np.broadcast_to(lab, j.shape), j)["p_judge_mean"])
            old, new = np.array(old), np.array(new)
            for level in (0.01, 0.05):
                out.append(
                    {
                        "design": design,
                        "sp_hard": sp_hard,
                        "level": level,
                        "replicates": replicates,
                        "old_rate": float(np.mean(old < level)),
                        "new_rate": float(np.mean(new < level)),
                        "mcse_new": float(
                            np.sqrt(np.mean(new < level) * (1 - np.mean(new < level)) / replicates)
                        ),
                        "mcse_at_level": float(np.sqrt(level * (1 - level) / replicates)),
                    }
                )
    return pd.DataFrame(out)


def summarise(df):
    out = []
    for (design, model), g in df.groupby(["design", "model"]):
        n = len(g)
        rec = {"design": design, "model": model, "replicates": n, "truth": g["truth"].iloc[0]}
        for col in (
            "ppi_before_cover",
            "ppi_after_cover",
            "human_after_cover",
            "bayes_before_cover",
            "bayes_after_cover",
            "pair_after_cover",
            "check_before",
            "check_after",
            "all_labels_same",
        ):
            if col in g and g[col].notna().any():
                rec[col] = float(g[col].dropna().astype(float).mean())
        for est in ("ppi_before", "ppi_after", "bayes_before", "bayes_after"):
            if f"{est}_est" in g:
                rec[f"{est}_bias"] = float((g[f"{est}_est"] - g["truth"]).mean())
        rec["mcse_095"] = float(np.sqrt(0.95 * 0.05 / n))
        out.append(rec)
    return pd.DataFrame(out)


def _markdown(table):
    cols = list(table.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, r in table.iterrows():
        cells = [f"{v:.3f}" if isinstance(v, float) else str(v) for v in r]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicates", type=int, default=300)
    ap.add_argument("--seed", type=int, default=20240537)
    ap.add_argument("--check-replicates", type=int, default=1000)
    ap.add_argument("--designs", default="stratified,verdict,random,all_same")
    args = ap.parse_args()
    power = check_power(args.check_replicates, args.seed + 99)
    print(power.to_string())
    frames = [run(d, args.replicates, args.seed + i) for i, d in enumerate(args.designs.split(","))]
    raw = pd.concat(frames, ignore_index=True)
    table = summarise(raw)
    OUT.mkdir(parents=True, exist_ok=True)
    cmd = (
        f"nice -n 10 python -m studies.judge_weights --replicates {args.replicates} "
        f"--check-replicates {args.check_replicates} --seed {args.seed}"
    )
    power.to_csv(OUT / "judge_weights_check.csv", index=False, float_format="%.4f")
    table.to_csv(OUT / "judge_weights.csv", index=False, float_format="%.4f")
    (OUT / "judge_weights.md").write_text(
        f"# Judge labels with unequal inclusion probabilities\n\nWritten by `{cmd}`.\n"
        "Coverage of 95% intervals of each model's accuracy (pair: m0 - m1, m0 - m2), bias of "
        "the estimates, and how often the random-subset check fired (check_before: the old "
        "per-model Welch tests at p < 0.01; check_after: the Mann-Whitney test at p < 0.05). "
        "Designs: "
        "studies/judge_weights.py's docstring. Monte Carlo SE of a coverage near 0.95: "
        f"{float(table['mcse_095'].iloc[0]):.3f}.\n\n"
        + _markdown(table)
        + "\n## The random-subset check alone\n\nFiring rates of the old check (per-model "
        "Welch z-tests, Bonferroni) and the new one (Mann-Whitney on the questions' judge "
        "means) at two levels; `stratified` rows are power, `random` rows false alarms. "
        "sp_hard: the judge's specificity on the hard questions.\n\n" + _markdown(power)
    )
    print(table.to_string())


if __name__ == "__main__":
    main()
