"""benchmarks/real_kappa_bounds.py on one real table (issue 8's real-data count stays runnable)."""

import importlib.util
import warnings

import numpy as np
from conftest import REPO

from bayesnoise import load


def _script():
    spec = importlib.util.spec_from_file_location(
        "real_kappa_bounds", REPO / "benchmarks" / "real_kappa_bounds.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bound_fits_on_aime_widen_at_the_lower_bound(shared_data):
    # AIME 2024 at temperature 1, few samples: 30 questions, where kappa's likelihood often
    # peaks at an edge of its grid for both reasons (all u_i alike, or each pinned by its data)
    path = shared_data / "all-the-noises/lowk_temp1/input_table_aime2024_cot.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = _script().one_table(path)
    counts = df["status"].value_counts()
    assert counts.get("at lower bound", 0) >= 1 and counts.get("at upper bound", 0) >= 1
    assert len(df) == load(path).sizes["model"]  # one row per model of the table, none dropped
    low = df[df["status"] == "at lower bound"]
    # kappa at its lower bound pins every u_i to its own data under the plug-in, so the ubar
    # interval collapses there; integrating over kappa must widen it for (nearly) every fit
    assert np.median(low["ubar_ratio"]) > 2 and (low["ubar_ratio"] > 0.9).all()
    # mu is the model-free Dirichlet posterior: kappa cannot change it (exact equality up to
    # the rounding of the same computation)
    np.testing.assert_allclose(df["mu_ratio"].dropna(), 1.0, rtol=1e-12)
