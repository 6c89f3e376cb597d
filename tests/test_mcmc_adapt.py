"""Adaptive draws: a fit whose diagnostics are out of bounds is sampled once more, and says so."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from bayesnoise.mcmc.diagnostics import ConvergenceReport
from bayesnoise.mcmc.samplers import MAX_DRAW_FACTOR, raised_draws


def _report(ess_bulk, ess_tail=1e4, r_hat=1.0, divergences=0):
    table = pd.DataFrame(
        {"r_hat_max": [r_hat], "ess_bulk_min": [ess_bulk], "ess_tail_min": [ess_tail]}
    )
    return ConvergenceReport(False, divergences, {"x": "out"}, table)


@pytest.mark.parametrize(
    ("ess", "factor"),
    [(380.0, 2), (300.0, 2), (150.0, 4), (10.0, MAX_DRAW_FACTOR), (np.nan, 2)],
)
def test_draws_rise_with_the_ess_shortfall(ess, factor):
    # ESS grows in proportion to the draws: 1.2 x 400 / ESS, between 2 and 4 times
    draws, tune, accept = raised_draws(_report(ess), 1000, 500, None)
    assert (draws, tune, accept) == (1000 * factor, 1000, None)


def test_divergences_raise_target_accept_once():
    assert raised_draws(_report(1e4, divergences=2), 1000, 1000, None)[2] == 0.95
    assert raised_draws(_report(1e4, divergences=2), 1000, 1000, 0.99)[2] == 0.99


@pytest.mark.mcmc
def test_fit_samples_again_with_more_draws_and_says_so():
    from bayesnoise.mcmc import ConvergenceWarning, fit, marginal_model

    rng = np.random.default_rng(0)
    correct = rng.binomial(5, rng.beta(1.0, 1.0, size=(2, 60)))
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        tree = fit(marginal_model(correct, 5), draws=60, tune=60, chains=2, progress=False)
    conv = [w for w in rec if issubclass(w.category, ConvergenceWarning)]
    assert len(conv) == 1, [str(w.message) for w in conv]  # one warning tells both runs
    assert "sampled again with draws=" in str(conv[0].message)
    assert tree.attrs["draws"] > 60 and tree.attrs["tune"] == 120
    assert tree["posterior"].sizes["draw"] == tree.attrs["draws"]
    once = fit(marginal_model(correct, 5), draws=60, tune=60, chains=2, progress=False,
               adapt=False, check=False)  # fmt: skip
    assert once.attrs["draws"] == 60
