"""Reading the reference noise models of public benchmarks (the repository's ``models/``).

The two tables are built by ``models/build.py`` and ship inside the wheel as package data
(``bayesnoise/_models/``), so an installed bayesnoise finds them without a checkout.
"""

from __future__ import annotations

import os
import re
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from bayesnoise._common import option
from bayesnoise.data import DataError

BENCHMARKS_FILE = "reference_benchmarks.csv"
MODELS_FILE = "reference_models.csv"

#: Folder of the packaged copy inside ``bayesnoise`` (hatch ``force-include`` in pyproject.toml).
PACKAGED = "_models"


def _source_dir() -> Path:
    """``models/`` of the source checkout next to the package (editable installs)."""
    return Path(__file__).resolve().parents[2] / "models"


def _packaged_dir():
    """The copy shipped in the wheel, or None (e.g. an editable install of the repository)."""
    try:
        folder = resources.files("bayesnoise") / PACKAGED
        return folder if (folder / BENCHMARKS_FILE).is_file() else None
    except (ModuleNotFoundError, OSError):  # pragma: no cover - unusual importers
        return None


def models_dir(path=None):
    """The folder of the reference tables.

    In order: ``path``; ``$BAYESNOISE_MODELS``; the copy packaged in the wheel
    (``importlib.resources.files("bayesnoise") / "_models"``); the repository's ``models/``
    next to the package. An explicit ``path`` or ``$BAYESNOISE_MODELS`` must hold the tables
    (no silent fall-back). Returns a :class:`pathlib.Path` or, for the packaged copy, an
    :mod:`importlib.resources` traversable.
    """
    if path is None:
        env = os.environ.get("BAYESNOISE_MODELS")
        if env:
            path, origin = Path(env), "BAYESNOISE_MODELS"
        else:
            packaged = _packaged_dir()
            if packaged is not None:
                return packaged
            path, origin = _source_dir(), None
    else:
        path, origin = Path(path), "the path given"
    if not (path / BENCHMARKS_FILE).is_file():
        where = f" (from {origin})" if origin else ""
        raise DataError(
            f"reference noise models not found: {path / BENCHMARKS_FILE}{where} does not exist. "
            "They ship inside the bayesnoise wheel and live in the models/ folder of the "
            "source repository; pass a folder holding them "
            f"({option('models_dir')}, or set BAYESNOISE_MODELS)."
        )
    return path


def normalise(name: str) -> str:
    """Benchmark name for matching: lower case, without spaces, ``_`` and ``-``, and ``temp``
    before a number spelled ``t``; every other character (``+``, ``.``) is kept.

    Examples
    --------
    >>> normalise("CRUXEval-output-T0.8") == normalise("cruxeval_output_temp0.8")
    True
    >>> normalise("humaneval+") == normalise("HumanEval")
    False
    """
    text = re.sub(r"[\s_-]+", "", str(name).strip().lower())
    return re.sub(r"temp(?=\.?\d)", "t", text)


def read_references(path=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(benchmarks, models) reference tables."""
    folder = models_dir(path)
    with (folder / BENCHMARKS_FILE).open("rb") as fh:
        benches = pd.read_csv(fh)
    models = None
    if (folder / MODELS_FILE).is_file():
        with (folder / MODELS_FILE).open("rb") as fh:
            models = pd.read_csv(fh)
    return benches, models


def matching(benches: pd.DataFrame, benchmark: str) -> pd.DataFrame:
    """Rows whose benchmark (or file name without ``input_table_``) equals ``benchmark`` after
    :func:`normalise`: an exact match, so ``humaneval+`` does not select ``humaneval``."""
    key = normalise(benchmark)
    by_name = benches["benchmark"].map(normalise) == key
    by_file = benches["file"].map(
        lambda f: normalise(Path(str(f)).stem.removeprefix("input_table_"))
    )
    return benches[by_name | (by_file == key)].reset_index(drop=True)


def reference_rows(benchmark: str, accuracy=None, path=None) -> pd.DataFrame:
    """The reference noise of a public benchmark, one row per run that measured it.

    Columns: ``run, benchmark, models, questions, samples_per_question, close_pairs,
    se_difference_median_close`` (median paired total SE of close pairs), ``se_difference_data_median_close``,
    ``se_difference_prediction_median_close``, ``benchmark_kappa``, ``ratio_to_theory``, ``se_model`` (median
    per-model total SE of the run's models) and, with ``accuracy``, the Beta-theory values at that
    accuracy with the benchmark's kappa: ``se_model_theory`` (= sqrt(p (1 - p) / N)),
    ``se_model_data_theory``, ``se_model_prediction_theory``, ``se_difference_theory``.
    """
    benches, models = read_references(path)
    rows = matching(benches, benchmark)
    if rows.empty:
        known = ", ".join(sorted(set(benches["benchmark"].astype(str)), key=str.lower))
        raise DataError(
            f"no reference noise model for benchmark {benchmark!r} (matching ignores only case, "
            f"spaces, '_', '-' and temp/T); known: {known}"
        )
    out = pd.DataFrame(
        {
            "run": rows["run"],
            "benchmark": rows["benchmark"],
            "models": rows["models"],
            "questions": rows["questions"],
            "samples_per_question": rows["samples_per_question"],
            "close_pairs": rows["close_pairs"],
            "se_difference_median_close": rows["median_se_total_close"],
            "se_difference_data_median_close": rows["median_se_data_close"],
            "se_difference_prediction_median_close": rows["median_se_prediction_close"],
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
