"""The crossed logit model in PyMC (bn.noises(method="mcmc")) against the frequentist twin."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesnoise as bn

pytestmark = [pytest.mark.mcmc, pytest.mark.slow]


def test_mcmc_accuracies_agree_with_the_frequentist_estimates():
    # ~30 s (nutpie compiles the model). The posterior means must lie within 3 frequentist
    # SEs of the frequentist estimates (same data; prior and model differences are small at
    # N = 60 next to the SE), and the diagnostics are reported in attrs.
    from studies.noises import simulate

    rng = np.random.default_rng(41)
    cells, _ = simulate(rng, 60, 4, 2, 0.0)
    rows = [
        (m, f"q{q}", f"t{t}", r, int(r < cells[m][0][q, t]))
        for m in ("A", "B")
        for q in range(60)
        for t in range(4)
        for r in range(2)
    ]
    df = pd.DataFrame(rows, columns=["model", "question", "template", "run", "score"])
    freq = bn.noises(df, factors="template")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # short chains: ESS below 400 is expected here
        bayes = bn.noises(
            df, factors="template", method="mcmc", draws=300, tune=300, progress=False
        )
    for model in ("A", "B"):
        est = float(freq["accuracy_templates"].sel(model=model))
        se = float(freq["se_templates"].sel(model=model))
        got = float(bayes["accuracy_templates_mcmc"].sel(model=model))
        assert abs(got - est) < 3 * se
        low = float(bayes["accuracy_templates_mcmc_low"].sel(model=model))
        high = float(bayes["accuracy_templates_mcmc_high"].sel(model=model))
        assert low < got < high
    assert bayes.attrs["divergences"] >= 0 and bayes.attrs["r_hat_max"] < 1.1
    assert list(bayes["component"].values)[-1] == "model x question"
