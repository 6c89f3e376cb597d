"""bayesnoise ``noises`` beside evalstats' seed-variance decomposition (issue 31).

evalstats (0.3.3, not a dependency: pass the folder of an unpacked wheel with ``--evalstats``,
e.g. after ``pip download evalstats``) decomposes, per prompt template t,

    seed_var_t  = mean_i var_r(X_itr)      (ddof = 1: unbiased within-cell variance)
    input_var_t = var_i(mean_r X_itr)      (ddof = 1, no small-K correction)

Where the definitions match:

* mean_t seed_var_t is bayesnoise's s2_e (``variance_component`` of ``sampling``): equal in a
  balanced design;
* mean_t input_var_t estimates s2_q + s2_qt + s2_e / R, not the question variance within a
  template s2_q + s2_qt: bayesnoise's s2_q + s2_qt equals mean_t input_var_t - mean_t
  seed_var_t / R exactly (the paper's small-K correction), so evalstats' input variance is
  biased upward by s2_e / R, which does not shrink with more inputs.

Data are made in evalstats' layout (model, prompt, input, run, score) from the logit model of
:mod:`studies.noises`, read by ``bn.load`` without a mapping. Run:
``python -m studies.noises_evalstats --evalstats /tmp/evalstats_dl/x``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special

import bayesnoise as bn

from .noises import ALPHA, SU, SV, SW, SX, component_truths


def one_model_table(rng, n=200, t=4, r=5) -> pd.DataFrame:
    u = rng.normal(0, SU, (n, 1))
    v = rng.normal(0, np.hypot(SV, SX), (1, t))
    p = special.expit(ALPHA["A"] + u + v + rng.normal(0, SW, (n, t)))
    x = (rng.random((n, t, r)) < p[..., None]).astype(int)
    i, tt, rr = np.meshgrid(np.arange(n), np.arange(t), np.arange(r), indexing="ij")
    return pd.DataFrame(
        {
            "model": "model-a",
            "prompt": np.array([f"template {k}" for k in range(t)])[tt.ravel()],
            "input": [f"ex_{k}" for k in i.ravel()],
            "run": rr.ravel(),
            "score": x.ravel(),
        }
    )


def side_by_side(df: pd.DataFrame, seed_variance_decomposition):
    ours = bn.noises(df)  # evalstats' layout: prompt is the factor, run the replicate
    comp = ours["variance_component"].isel(model=0).to_series()
    df = df.drop(columns="model")
    prompts = sorted(df["prompt"].unique())
    inputs = sorted(df["input"].unique())
    cube = (
        df.set_index(["prompt", "input", "run"])["score"]
        .unstack("run")
        .reindex(pd.MultiIndex.from_product([prompts, inputs]))
        .to_numpy()
        .reshape(len(prompts), len(inputs), -1)
        .astype(float)
    )
    theirs = seed_variance_decomposition(cube, prompts)
    runs = cube.shape[2]
    return {
        "s2_e (bayesnoise sampling)": float(comp["sampling"]),
        "mean seed_var (evalstats)": float(np.mean(theirs.seed_var)),
        "s2_q + s2_qt (bayesnoise)": float(comp["question"] + comp["question x prompt"]),
        "mean input_var (evalstats)": float(np.mean(theirs.input_var)),
        "mean input_var - mean seed_var / R": float(
            np.mean(theirs.input_var) - np.mean(theirs.seed_var) / runs
        ),
        "s2_t (bayesnoise prompt)": float(comp["prompt"]),
    }


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--evalstats", type=Path, required=True, help="unpacked evalstats wheel")
    p.add_argument("--reps", type=int, default=200)
    p.add_argument("--out", type=Path, default=Path("benchmarks/results/noises_evalstats.md"))
    args = p.parse_args(argv)
    sys.path.insert(0, str(args.evalstats))
    from evalstats.core.variance import seed_variance_decomposition

    rng = np.random.default_rng(0)
    rows = [
        side_by_side(one_model_table(rng), seed_variance_decomposition) for _ in range(args.reps)
    ]
    df = pd.DataFrame(rows)
    truth = component_truths(ALPHA["A"])
    runs = 5
    want = {
        "s2_e (bayesnoise sampling)": truth[3],
        "mean seed_var (evalstats)": truth[3],
        "s2_q + s2_qt (bayesnoise)": truth[0] + truth[2],
        "mean input_var (evalstats)": truth[0] + truth[2],
        "mean input_var - mean seed_var / R": truth[0] + truth[2],
        "s2_t (bayesnoise prompt)": truth[1],
    }
    first = rows[0]
    lines = [
        "# bayesnoise noises beside evalstats 0.3.3 seed_variance_decomposition",
        "",
        "One model, 200 inputs x 4 prompts x R = 5 runs of 0/1 scores (logit model of "
        "studies/noises.py), in evalstats' layout (model, prompt, input, run, score), read by "
        "bn.noises without a mapping; evalstats' function run on the same scores. "
        f"{args.reps} replicates; truth by quadrature (the target of both columns in a row).",
        "",
        "| quantity | first data set | mean over replicates | MCSE | truth |",
        "|---|---|---|---|---|",
    ]
    for key in first:
        mean = df[key].mean()
        mcse = df[key].std(ddof=1) / np.sqrt(len(df))
        lines.append(f"| {key} | {first[key]:.6f} | {mean:.6f} | {mcse:.6f} | {want[key]:.6f} |")
    same_e = float(np.max(np.abs(df.iloc[:, 0] - df.iloc[:, 1])))
    same_q = float(np.max(np.abs(df.iloc[:, 2] - df.iloc[:, 4])))
    lines += [
        "",
        f"- s2_e and evalstats' mean seed_var: the same number (max |difference| {same_e:.1e}).",
        f"- bayesnoise's s2_q + s2_qt = evalstats' mean input_var - mean seed_var / R (max "
        f"|difference| {same_q:.1e}): evalstats' input variance keeps the runs' noise s2_e / R "
        f"= {truth[3] / runs:.4f} (bias {df.iloc[:, 3].mean() - want['mean input_var (evalstats)']:+.4f} "
        "here), the bias the paper's small-K correction removes.",
        "- evalstats reports no template variance in this function (its mixed-model route "
        "needs R via pymer4); bayesnoise's s2_t is the variance of the template effect.",
    ]
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
