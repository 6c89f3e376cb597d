"""Which SE for weighted PPI++ (issue 37, item 12): candidates on the same replicates.

The designs are ``studies/judge_weights.py``'s ``stratified`` (hard questions labelled with
probability 0.35, easy ones 0.10) and ``verdict`` (0.35 when the judge fails any model's answer,
else 0.10): 3 models on 1,000 questions, about 175 labels, Kish's effective number about 125.
Each replicate draws one data set; the estimate and ``lam`` are ``ppi_mean``'s (equal to
``ppi_py``'s) and every candidate SE is computed from the same data, so the candidates differ
only by their SE and quantile. ``r = y - lam yhat`` on the labelled items (weights ``w`` of
mean 1), ``yhat_U`` on the unlabelled ones (weights ``w_U`` of mean 1):

- ``ppi_py``: ``ppi_py``'s SE, ``sd(w r) / sqrt(n)`` and ``lam sd(w_U yhat_U) / sqrt(N)``
  (ddof 0), the spread of the weighted values; z quantile.
- ``centred``: the Hajek means' linearised SE, ``sd`` of ``w (r - mean(w r))`` and of
  ``w_U lam (yhat_U - mean(w_U yhat_U))`` (ddof 0, statsmodels' WLS HC0); z quantile.
- ``centred_t``: the same with ``n / (n - 1)`` and ``N / (N - 1)`` on the two variance terms
  (statsmodels' HC1, the survey packages' with-replacement linearisation) and a t quantile
  with ``n_eff - 1`` degrees of freedom, ``n_eff = (sum w)^2 / sum w^2`` over the labelled.
- ``jackknife``: the delete-one jackknife of each Hajek mean (``lam`` fixed); z quantile.

Diagnostics: ``se_ratio`` is the ``centred`` SE's mean over the estimate's Monte Carlo SD;
``lam0_cover`` / ``lam1_cover`` the ``centred`` intervals at a fixed ``lam`` (0: the weighted
human-only mean, 1: PPI), untuned, on the same data sets.

The rectifier's SE floor (``rectifier_se_floor``) is applied to every candidate but
``ppi_py``'s; the column ``floor_active`` says how often it binds. Pairs are m0 - m1 and
m0 - m2 (``ppi_paired_difference``). Every other replicate's first model is checked against
``ppi_py.ppi_mean_ci`` (the ``ppi_py`` candidate's interval to 1e-8). Run::

    nice -n 10 python -m studies.judge_weights_se --replicates 2000

It writes ``benchmarks/results/judge_weights_se.csv`` (per cell) and ``judge_weights_se.md``.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import pandas as pd
from scipy import special, stats

from studies.judge_weights import OUT, draw

CANDIDATES = ("ppi_py", "centred", "centred_t", "jackknife")
Z = float(special.ndtri(0.975))


def _jack_var(w, x):
    """Delete-one jackknife variance of the Hajek mean ``sum(w x) / sum(w)``."""
    s1, s0 = np.sum(w * x), np.sum(w)
    h = (s1 - w * x) / (s0 - w)
    n = x.size
    return (n - 1) / n * np.sum((h - h.mean()) ** 2)


def candidate_intervals(y, yhat, yu, w, wu, lam, estimate, floor):
    """Each candidate's (low, high) for one data set (weights of mean 1)."""
    n, big_n = y.size, yu.size
    r = y - lam * yhat
    zl = w * (r - np.mean(w * r))
    zu = wu * lam * (yu - np.mean(wu * yu))
    n_eff = w.sum() ** 2 / np.sum(w**2)
    var = {
        "ppi_py": (np.var(w * r) / n, np.var(wu * lam * yu) / big_n, Z, False),
        "centred": (np.mean(zl**2) / n, np.mean(zu**2) / big_n, Z, True),
        "centred_t": (
            np.sum(zl**2) / (n * (n - 1)),
            np.sum(zu**2) / (big_n * (big_n - 1)),
            float(stats.t.ppf(0.975, n_eff - 1)),
            True,
        ),
        "jackknife": (_jack_var(w, r), lam**2 * _jack_var(wu, yu), Z, True),
    }
    out = {}
    for name, (vl, vu, q, floored) in var.items():
        se_l = max(np.sqrt(vl), floor) if floored else np.sqrt(vl)
        se = np.sqrt(vu + se_l**2)
        out[name] = (estimate - q * se, estimate + q * se, np.sqrt(vl) < floor)
    return out


def run(design, replicates, seed, check_every=2):
    import ppi_py

    from bayesnoise.frequentist.ppi import inclusion_weights, ppi_mean, rectifier_se_floor

    rng = np.random.default_rng(seed)
    rows = []
    for rep in range(replicates):
        y, j, lab, pi, truth = draw(rng, design)
        w, wu = inclusion_weights(pi, lab)
        w, wu = w / w.mean(), wu / wu.mean()
        n_eff = w.sum() ** 2 / np.sum(w**2)
        floor = rectifier_se_floor(n_eff, 0.95)
        targets = [(f"m{m}", y[m], j[m], truth[m]) for m in range(3)]
        targets += [(f"m0-m{m}", y[0] - y[m], j[0] - j[m], truth[0] - truth[m]) for m in (1, 2)]
        for name, yy, jj, t in targets:
            yl, jl, ju = yy[lab], jj[lab], jj[~lab]
            fit = ppi_mean(yl, jl, ju, w=w, w_unlabelled=wu)
            fixed = {
                f"lam{lam:g}": ppi_mean(yl, jl, ju, lam=lam, w=w, w_unlabelled=wu)
                for lam in (0.0, 1.0)
            }
            ints = candidate_intervals(yl, jl, ju, w, wu, fit.lam, fit.estimate, floor)
            if name == "m0" and rep % check_every == 0:
                lo, hi = ppi_py.ppi_mean_ci(yl, jl, ju, alpha=0.05, w=w, w_unlabeled=wu)
                assert abs(ints["ppi_py"][0] - float(np.squeeze(lo))) < 1e-8
                assert abs(ints["ppi_py"][1] - float(np.squeeze(hi))) < 1e-8
            row = {
                "design": design,
                "replicate": rep,
                "target": name,
                "truth": t,
                "labels": int(lab.sum()),
                "n_eff": n_eff,
                "lam": fit.lam,
                "error": fit.estimate - t,
            }
            for c, (lo, hi, fl) in ints.items():
                row[f"{c}_cover"] = lo <= t <= hi
                row[f"{c}_width"] = hi - lo
                row[f"{c}_floor"] = fl
            for c, f in fixed.items():  # the package's (centred) SE at a fixed lam
                row[f"{c}_cover"] = f.low <= t <= f.high
                row[f"{c}_width"] = f.high - f.low
            rows.append(row)
    return pd.DataFrame(rows)


def summarise(raw):
    out = []
    for (design, target), g in raw.groupby(["design", "target"], sort=False):
        n = len(g)
        rec = {
            "design": design,
            "target": target,
            "replicates": n,
            "truth": g["truth"].iloc[0],
            "bias": g["error"].mean(),
            "sd_estimate": g["error"].std(),
            "median_labels": g["labels"].median(),
            "median_n_eff": g["n_eff"].median(),
            "median_lam": g["lam"].median(),
        }
        for c in CANDIDATES:
            rec[f"{c}_cover"] = g[f"{c}_cover"].mean()
        for c in CANDIDATES:
            rec[f"{c}_width"] = g[f"{c}_width"].median()
        rec["floor_active"] = g["centred_floor"].mean()
        rec["se_ratio"] = g["centred_width"].mean() / (2 * Z * g["error"].std())
        for c in ("lam0", "lam1"):
            rec[f"{c}_cover"] = g[f"{c}_cover"].mean()
        rec["mcse_095"] = np.sqrt(0.95 * 0.05 / n)
        out.append(rec)
    return pd.DataFrame(out)


def _markdown(table, digits=3):
    cols = list(table.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, r in table.iterrows():
        cells = [f"{v:.{digits}f}" if isinstance(v, float) else str(v) for v in r]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicates", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20240612)
    ap.add_argument("--designs", default="stratified,verdict")
    args = ap.parse_args()
    frames = [run(d, args.replicates, args.seed + i) for i, d in enumerate(args.designs.split(","))]
    raw = pd.concat(frames, ignore_index=True)
    table = summarise(raw)
    pooled = []
    for c in CANDIDATES:
        models = raw[~raw["target"].str.contains("-")]
        pooled.append(
            {
                "candidate": c,
                "min_cell": table[f"{c}_cover"].min(),
                "max_cell": table[f"{c}_cover"].max(),
                "pooled_models": models[f"{c}_cover"].mean(),
                "pooled_pairs": raw.loc[raw["target"].str.contains("-"), f"{c}_cover"].mean(),
                "median_width_models": models[f"{c}_width"].median(),
                "width_vs_centred": (models[f"{c}_width"] / models["centred_width"]).median(),
            }
        )
    pooled = pd.DataFrame(pooled)
    OUT.mkdir(parents=True, exist_ok=True)
    cmd = (
        f"nice -n 10 python -m studies.judge_weights_se --replicates {args.replicates} "
        f"--seed {args.seed} --designs {args.designs}"
    )
    table.to_csv(OUT / "judge_weights_se.csv", index=False, float_format="%.5f")
    n_models = int((~raw["target"].str.contains("-")).sum())
    (OUT / "judge_weights_se.md").write_text(
        "# Weighted PPI++: which SE\n\n"
        f"Written by `{cmd}`.\n"
        "Coverage of two-sided 95% intervals and their median widths for four SEs of the same "
        "weighted PPI++ estimate, on the same data sets (candidates: studies/judge_weights_se.py's "
        "docstring). Targets m0-m2 are each model's accuracy, m0-m1 and m0-m2 the paired "
        f"differences. Monte Carlo SE of a coverage near 0.95 per cell: "
        f"{float(table['mcse_095'].iloc[0]):.4f}; pooled over the {n_models} model intervals "
        f"(6 cells): {np.sqrt(0.95 * 0.05 / n_models):.4f} (cells of one data set are "
        "correlated, so this is a lower bound).\n\n"
        "## Per cell\n\n" + _markdown(table) + "\n## Summary\n\n" + _markdown(pooled, 4)
    )
    print(table.to_string())
    print(pooled.to_string())


if __name__ == "__main__":
    main()
