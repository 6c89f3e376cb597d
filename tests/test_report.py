"""Side-by-side report and rendering."""

import json

import numpy as np
import pandas as pd
import pytest

import bayesnoise as bn
from bayesnoise.compare import compare_models, compare_pairs
from bayesnoise.report import render


@pytest.fixture(scope="module")
def crux(bundled_data):
    return bn.load(bundled_data / "cruxeval_output_temp0.8.csv.gz")


def test_compare_models_keeps_the_two_questions_apart(crux):
    out = compare_models(crux)
    assert len(out) == 8
    here = out["here_bayes_high"] - out["here_bayes_low"]
    pop = out["population_bayes_high"] - out["population_bayes_low"]
    # these 800 questions (prediction noise only) are known better than the population
    assert (here < pop).all()
    assert (
        (out["here_freq_low"] < out["accuracy"]) & (out["accuracy"] < out["here_freq_high"])
    ).all()
    # K = 10, N = 800: frequentist and Bayesian widths for the same question agree (issue 3 asks
    # 15% on N >= 400); the Bayesian ubar interval also carries the (mu, kappa) uncertainty.
    here_ratio = here / (out["here_freq_high"] - out["here_freq_low"])
    pop_ratio = pop / (out["population_freq_high"] - out["population_freq_low"])
    assert here_ratio.between(0.85, 1.15).all() and pop_ratio.between(0.85, 1.15).all()


def test_compare_pairs(crux):
    out = compare_pairs(crux, max_difference=0.02)
    assert 0 < len(out) < 28 and (out["difference"].abs() <= 0.02).all()
    width_b = out["population_bayes_high"] - out["population_bayes_low"]
    width_f = out["population_freq_high"] - out["population_freq_low"]
    assert np.median(width_b / width_f) == pytest.approx(1.0, abs=0.15)
    # P(a > b) is high exactly when the 'these questions' interval lies above 0
    above = out["here_bayes_low"] > 0
    assert (out.loc[above, "p_a_better"] > 0.95).all()


def test_render_formats():
    df = pd.DataFrame({"model": ["a", "b"], "x": [0.123456789, np.nan], "n": [1, 2]})
    assert render(df, "table").splitlines()[1].split() == ["a", "0.1235", "1"]
    assert render(df, "csv").splitlines()[2] == "b,,2"
    assert json.loads(render(df, "json"))[1] == {"model": "b", "x": None, "n": 2}
    with pytest.raises(ValueError, match="format"):
        render(df, "xml")
