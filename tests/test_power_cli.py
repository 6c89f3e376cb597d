"""``bayesnoise power`` and ``bayesnoise ranks`` on the bundled data."""

import io

import numpy as np
import pandas as pd
import pytest

from bayesnoise import load
from bayesnoise.cli import main
from bayesnoise.frequentist import (
    NEEDED_COLUMNS,
    POWER_COLUMNS,
    minimum_detectable_difference,
    model_noise,
    pair_noise,
    required_questions,
    required_samples,
)

RANKS = [
    "model",
    "accuracy",
    "prob_best",
    "expected_rank",
    "rank_low",
    "rank_high",
    "in_top_group",
    "group",
]


@pytest.fixture
def crux(bundled_data):
    return str(bundled_data / "cruxeval_output_temp0.8.csv.gz")


def _csv(capsys, *args):
    assert main([*args, "--format", "csv"]) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out))


def test_power_uses_the_files_components(capsys, crux):
    a, b = "deepseek-base-6.7b", "mixtral-8x7b"
    out = _csv(capsys, "power", crux, "--pair", a, b, "--difference", "0.02")
    assert list(out.columns) == POWER_COLUMNS + NEEDED_COLUMNS and len(out) == 1
    row = out.iloc[0]
    ds = load(crux)
    pair = pair_noise(ds.sel(model=[a, b])).iloc[0]
    single = model_noise(ds).set_index("model")
    assert row.planned_questions == 800 and row.planned_samples_per_question == 10
    # paired: the pair's own data and prediction variances; unpaired: the models' sums
    kw = {"data": max(pair.data, 0), "prediction": pair.prediction}
    assert row.paired_min_difference == pytest.approx(
        minimum_detectable_difference(800, k=10, **kw), rel=1e-9
    )
    # at the file's N and K the detectable difference is (z_.975 + z_.8) se_difference
    assert row.paired_min_difference == pytest.approx(2.8015852 * pair.se_difference, rel=1e-6)
    assert row.paired_questions_needed == required_questions(0.02, k=10, **kw)
    assert row.paired_samples_needed == required_samples(0.02, n=800, **kw)
    un = {
        "data": single.loc[a, "data"] + single.loc[b, "data"],
        "prediction": single.loc[a, "prediction"] + single.loc[b, "prediction"],
    }
    assert row.unpaired_questions_needed == required_questions(0.02, k=10, **un)
    assert row.paired_min_difference < row.unpaired_min_difference


def test_power_n_and_k_and_one_sample_files(capsys, crux, tmp_path):
    out = _csv(
        capsys, "power", crux, "--planned-questions", "3200", "--planned-samples-per-question", "40"
    )
    base = _csv(capsys, "power", crux)
    assert len(out) == 28 and "paired_questions_needed" not in out.columns
    assert (out.planned_questions == 3200).all() and (out.planned_samples_per_question == 40).all()
    assert (out.paired_min_difference < base.paired_min_difference).all()
    path = tmp_path / "k1.csv"
    rows = ["model,example_id,count,correct"]
    rows += [
        f"{m},q{i},1,{(i * (j + 2)) % 3 == 0:d}" for j, m in enumerate("ab") for i in range(60)
    ]
    path.write_text("\n".join(rows) + "\n")
    k1 = _csv(capsys, "power", str(path), "--difference", "0.1").iloc[0]
    # K = 1: the total stands for data + prediction at K = 1; more samples are not computable
    assert np.isfinite(k1.paired_min_difference) and np.isnan(k1.paired_samples_needed)


def test_ranks_command(capsys, crux):
    df = _csv(capsys, "ranks", crux, "--n-resamples", "500")
    assert list(df.columns) == RANKS and len(df) == 8
    assert df["prob_best"].sum() == pytest.approx(1.0)
    assert df["expected_rank"].is_monotonic_increasing
    bayes = _csv(capsys, "ranks", crux, "--model", "bayes", "--n-resamples", "500")
    # these questions carry only prediction noise: the top is at least as clear
    assert bayes["prob_best"].max() >= df["prob_best"].max() - 3 * np.sqrt(0.25 / 500)
