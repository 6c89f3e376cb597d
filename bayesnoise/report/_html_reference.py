"""Reading the reference noise models of public benchmarks (the repository's ``models/``)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from bayesnoise.data import DataError

BENCHMARKS_FILE = "reference_benchmarks.csv"
MODELS_FILE = "reference_models.csv"


def models_dir(path=None) -> Path:
    """The folder of the reference tables: ``path``, ``$BAYESNOISE_MODELS`` or ``models/``."""
    if path is None:
        env = os.environ.get("BAYESNOISE_MODELS")
        path = Path(env) if env else Path(__file__).resolve().parents[2] / "models"
    path = Path(path)
    if not (path / BENCHMARKS_FILE).is_file():
        raise DataError(
            f"reference noise models not found: {path / BENCHMARKS_FILE} does not exist. They "
            "live in the models/ folder of the bayesnoise source repository; pass its path "
            "(CLI: --models-dir, or set BAYESNOISE_MODELS)."
        )
    return path


def normalise(name: str) -> str:
    """Benchmark name for matching: lower case, letters and digits only, 'temp' -> 't'."""
    return re.sub(r"[^a-z0-9]", "", str(name).lower()).replace("temp", "t")


def read_references(path=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(benchmarks, models) reference tables."""
    folder = models_dir(path)
    benches = pd.read_csv(folder / BENCHMARKS_FILE)
    models_path = folder / MODELS_FILE
    models = pd.read_csv(models_path) if models_path.is_file() else None
    return benches, models


def matching(benches: pd.DataFrame, benchmark: str) -> pd.DataFrame:
    """Rows whose benchmark (or file name) matches ``benchmark`` after :func:`normalise`."""
    key = normalise(benchmark)
    by_name = benches["benchmark"].map(normalise) == key
    by_file = benches["file"].map(
        lambda f: normalise(Path(str(f)).stem.removeprefix("input_table_"))
    )
    return benches[by_name | (by_file == key)].reset_index(drop=True)


def reference_rows(benchmark: str, accuracy=None, path=None) -> pd.DataFrame:
    """The reference noise of a public benchmark, one row per run that measured it.

    Columns: ``run, benchmark, models, questions, samples_per_question, close_pairs,
    se_difference`` (median paired total SE of close pairs), ``se_difference_data``,
    ``se_difference_prediction``, ``benchmark_kappa``, ``ratio_to_theory``, ``se_model`` (median
    per-model total SE of the run's models) and, with ``accuracy``, the Beta-theory values at that
    accuracy with the benchmark's kappa: ``se_model_theory`` (= sqrt(p (1 - p) / N)),
    ``se_model_data_theory``, ``se_model_prediction_theory``, ``se_difference_theory``.
    """
    benches, models = read_references(path)
    rows = matching(benches, benchmark)
    if rows.empty:
        known = ", ".join(sorted(set(benches["benchmark"].astype(str))))
        raise DataError(f"no reference noise model for benchmark {benchmark!r}; known: {known}")
    out = pd.DataFrame(
        {
            "run": rows["run"],
            "benchmark": rows["benchmark"],
            "models": rows["models"],
            "questions": rows["questions"],
            "samples_per_question": rows["samples_per_question"],
            "close_pairs": rows["close_pairs"],
            "se_difference": rows["median_se_total_close"],
            "se_difference_data": rows["median_se_data_close"],
            "se_difference_prediction": rows["median_se_prediction_close"],
            "benchmark_kappa": rows["benchmark_kappa"],
            "ratio_to_theory": rows["median_ratio_to_theory"],
        }
    )
    if models is not None:
        grouped = models.groupby(["run", "file"])["se_total"].median()
        keys = list(zip(rows["run"], rows["file"], strict=True))
        out["se_model"] = [grouped.get(key, np.nan) for key in keys]
    if accuracy is not None:
        out = out.assign(**_theory_columns(float(accuracy), rows))
    return out


def _theory_columns(p: float, rows: pd.DataFrame) -> dict:
    from bayesnoise.conjugate import theory_se_difference
    from bayesnoise.conjugate.posterior import population_variances

    if not 0 <= p <= 1:
        raise DataError(f"--accuracy must be in [0, 1], got {p}")
    n = rows["questions"].to_numpy(float)
    kappa = rows["benchmark_kappa"].to_numpy(float)
    data, prediction = population_variances(np.full_like(kappa, p), kappa)
    return {
        "accuracy": p,
        "se_model_theory": np.sqrt((data + prediction) / n),
        "se_model_data_theory": np.sqrt(data / n),
        "se_model_prediction_theory": np.sqrt(prediction / n),
        "se_difference_theory": theory_se_difference(p, n, kappa),
    }
