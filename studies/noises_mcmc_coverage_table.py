"""The table of ``benchmarks/results/noises_mcmc_coverage.md`` from the study's runs.

Input: ``benchmarks/results/noises_mcmc_coverage_runs.csv`` (one row per run of
``studies/noises_mcmc_coverage.py``, its ``--out`` CSVs concatenated) and
``noises_mcmc_coverage_freq2000.csv`` (the ``--no-mcmc --reps 2000`` run).
Run: ``python -m studies.noises_mcmc_coverage_table``.
"""

from pathlib import Path

import pandas as pd

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results"


def main():
    raw = pd.read_csv(RESULTS / "noises_mcmc_coverage_runs.csv")
    # Runs of one cell with different seeds pooled: means weighted by replicates.
    rows = []
    for (n, t, k), g in raw.groupby(["N", "T", "K"], sort=False):
        w = g["reps"].to_numpy(float)
        row = {"N": n, "T": t, "K": k, "reps": int(w.sum())}
        for c in g.columns:
            if c.startswith(("cover_", "width_")):
                row[c] = float((g[c] * w).sum() / w.sum())
        row["r_hat_max"] = g["r_hat_max"].max()
        row["r_hat_over_101"] = int(g["r_hat_over_101"].sum())
        row["ess_bulk_min"] = g["ess_bulk_min"].min()
        row["divergent_fits"] = int(g["divergent_fits"].sum())
        row["seconds_median"] = float((g["seconds_median"] * w).sum() / w.sum())
        rows.append(row)
    df = pd.DataFrame(rows)
    ref = pd.read_csv(RESULTS / "noises_mcmc_coverage_freq2000.csv")

    def cell(r, key, src):
        p = r[f"cover_{key}_{src}"]
        return f"{p:.3f}"

    lines = []
    lines.append(
        "# Crossed Bayesian model: coverage beside its frequentist twin (studies/noises_mcmc_coverage.py)\n"
    )
    lines.append(
        'Two models, N questions x T templates x K runs, 0/1 scores drawn from the model the Bayesian fit assumes (question, template, question x template, model x template and model x question effects, SDs 1.2, 0.4, 0.6, 0.25, 0.3 on the logit scale; alpha 0.6 and 0.3); `bn.noises(method="mcmc")`\'s sampler and defaults (nutpie, 2 chains x 1000 draws after 1000 tuning, target_accept 0.9; one compiled model per cell refitted to each replicate) and the frequentist `bn.noises` on the same replicates. Equal-tailed 0.95 posterior intervals; the frequentist t intervals with Satterthwaite df. Coverage of the truth (Gauss-Hermite) per model (accuracy: 2 x R intervals, the two models of a replicate share its questions and templates) and of A - B (R intervals). Monte Carlo SE of a coverage of 0.95: sqrt(0.95 x 0.05 / R) = 0.015 at R = 200, 0.022 at R = 100 (the accuracy rows are correlated pairs: between that and 1/sqrt(2) of it).\n'
    )
    lines.append(
        "| N | T | K | R | acc. over templates: Bayes / freq. | acc. over these templates | A - B over templates | A - B over these templates | mean width Bayes / freq. (acc. over templates) | fits with r_hat > 1.01 | min bulk ESS | fits with divergences | median s per fit |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for _, r in df.iterrows():
        lines.append(
            f"| {int(r.N)} | {int(r['T'])} | {int(r.K)} | {int(r.reps)} | "
            + " | ".join(
                f"{cell(r, k, 'mcmc')} / {cell(r, k, 'freq')}"
                for k in ("acc_pop", "acc_these", "diff_pop", "diff_these")
            )
            + f" | {r.width_acc_pop_mcmc:.3f} / {r.width_acc_pop_freq:.3f} | {int(r.r_hat_over_101)} of {int(r.reps)} | {r.ess_bulk_min:.0f} | {int(r.divergent_fits)} | {r.seconds_median:.1f} |"
        )
    lines.append("")
    lines.append(
        "The N = 100, T = 5, K = 1 cell's frequentist columns are from a `--no-mcmc` rerun with the same seed (the same replicates): its first run read `noises`' rows by position, and `noises` lists the better model first.\n"
    )
    lines.append(
        "Cells run in more than one process (other seeds) are pooled, weighted by replicates; each run is a row of `noises_mcmc_coverage_runs.csv`. Median seconds per fit: the replicate-weighted mean of the runs' medians (the 2 cores were shared with other jobs in some runs).\n"
    )
    lines.append(
        "The frequentist intervals on 2,000 replicates of the same generator (`--no-mcmc --reps 2000 --first-seed 5100`), for scale (MCSE 0.005):\n"
    )
    lines.append(
        "| N | T | K | acc. over templates | over these templates | A - B over templates | A - B over these templates |"
    )
    lines.append("|---|---|---|---|---|---|---|")
    for _, r in ref.iterrows():
        lines.append(
            f"| {int(r.N)} | {int(r['T'])} | {int(r.K)} | {r.cover_acc_pop_freq:.4f} | {r.cover_acc_these_freq:.4f} | {r.cover_diff_pop_freq:.4f} | {r.cover_diff_these_freq:.4f} |"
        )
    (RESULTS / "noises_mcmc_coverage.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
