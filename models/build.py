"""Rebuild the reference noise models of public benchmarks from ../shared/data.

For every benchmark with question-level results it writes one row per model to
``models/reference_models.csv`` (frequentist components and the empirical-Bayes Beta-Binomial fit)
and one row per benchmark to ``models/reference_benchmarks.csv`` (size, the characteristic paired
total noise of close pairs, and the benchmark's pooled kappa for the Beta theory curve).

Run: .venv/bin/python models/build.py [path/to/shared/data]     (about a minute)
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import bayesnoise as bn
from bayesnoise import conjugate, frequentist
from bayesnoise.conjugate import benchmark_kappa, theory_se_difference

HERE = Path(__file__).resolve().parent
SOURCES = {
    "all-the-noises/highk_temp0.7": "input_table_*.csv",
    "all-the-noises/lowk_temp0.7": "input_table_*.csv",
    "all-the-noises/lowk_temp1": "input_table_*.csv",
    "all-the-noises/main": "input_table_*.csv",
    "eval-arena": "*.jsonl",
    "swebench-terminalbench": "*.jsonl",
}


def benchmark_rows(path: Path, run: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # K = 1 splits, kappa boundaries: recorded in the columns
        ds = bn.complete(bn.load(path), on_missing="intersect")
        single = frequentist.model_noise(ds)
        fit = conjugate.fit_empirical_bayes(ds["correct"].values, ds["samples"].values)
        pairs = frequentist.pair_noise(ds)
        kappa, _ = benchmark_kappa(ds["correct"].values, ds["samples"].values)
    name = ds.attrs["benchmark"]
    models = single.assign(
        run=run, file=path.name, benchmark=name, mu=fit.mu, mu_se=fit.mu_se, kappa=fit.kappa,
        kappa_se=fit.kappa_se, kappa_status=np.asarray(fit.kappa_status).astype(str),
    )  # fmt: skip
    close = pairs[np.abs(pairs["difference"]) < 5 * pairs["se_total"]]
    theory = theory_se_difference(
        (close["accuracy_a"] + close["accuracy_b"]) / 2, ds.sizes["question"], kappa
    )
    bench = {
        "run": run, "file": path.name, "benchmark": name, "models": ds.sizes["model"],
        "questions": ds.sizes["question"], "samples_per_question": float(np.median(single["samples_per_question"])),
        "close_pairs": len(close), "median_se_total_close": float(np.median(close["se_total"])),
        "median_se_data_close": float(np.nanmedian(close["se_data"])) if close["se_data"].notna().any() else np.nan,
        "median_se_prediction_close": float(np.nanmedian(close["se_prediction"])) if close["se_prediction"].notna().any() else np.nan,
        "benchmark_kappa": kappa,
        "median_ratio_to_theory": float(np.median(close["se_total"] / theory)),
    }  # fmt: skip
    return models, bench


def main(shared: Path) -> None:
    model_tables, bench_rows = [], []
    for run, pattern in SOURCES.items():
        for path in sorted((shared / run).glob(pattern)):
            models, bench = benchmark_rows(path, run)
            model_tables.append(models)
            bench_rows.append(bench)
            print(f"{run}/{bench['benchmark']}: M={bench['models']} N={bench['questions']}")
    cols = ["run", "file", "benchmark", "model", "questions", "samples_per_question", "accuracy", "se_total",
            "se_data", "se_prediction", "se_mean", "mu", "mu_se", "kappa", "kappa_se", "kappa_status"]  # fmt: skip
    pd.concat(model_tables)[cols].to_csv(
        HERE / "reference_models.csv", index=False, float_format="%.6g"
    )
    pd.DataFrame(bench_rows).to_csv(
        HERE / "reference_benchmarks.csv", index=False, float_format="%.6g"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent.parent / "shared" / "data")
