"""``power`` on awkward real-data shapes: negative data variances, ragged K (also with K = 1 on
some questions), checked against the formulas and a brute-force simulation of the paired design."""

import warnings

import numpy as np
import pytest
from scipy import special, stats

from bayesnoise.cli import main
from bayesnoise.data import from_arrays
from bayesnoise.frequentist import (
    cluster_power_table,
    minimum_detectable_difference,
    pair_noise,
    power_table,
    required_questions,
    required_samples,
)

Z = special.ndtri(0.975) + special.ndtri(0.8)  # two-sided 5 %, power 80 %


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _same_questions(seed, n=300, k=4, models="abc"):
    """Models with the same expected score on every question: the true paired data variance is
    0, so its estimate is negative for about half the pairs."""
    rng = np.random.default_rng(seed)
    u = rng.beta(1, 1, n)
    counts = np.full((len(models), n), k)
    return from_arrays(rng.binomial(counts, u), counts, models=list(models))


def test_negative_data_variance_is_clipped_with_one_warning_naming_the_pairs():
    ds = _same_questions(seed=2)
    raw = _quiet(pair_noise, ds, adjust="none")
    negative = raw[raw.data < 0]
    assert len(negative) == 2  # the seed gives both cases, and two pairs to list
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = power_table(ds, difference=0.03)
    said = [str(w.message) for w in caught if "data variance is negative" in str(w.message)]
    assert len(said) == 1  # one warning listing the pairs, said once
    for a, b in zip(raw.model_a, raw.model_b, strict=True):
        listed = f"{a} - {b}" in said[0]
        assert listed == (f"{a} - {b}" in set(negative.model_a + " - " + negative.model_b))
    assert "prediction noise explains all the spread" in said[0]
    assert "assumes data variance 0" in said[0] and len(said[0]) <= 200
    assert (out.data >= 0).all()
    rows = out.set_index(["model_a", "model_b"])
    for _, pair in negative.iterrows():
        row = rows.loc[(pair.model_a, pair.model_b)]
        assert row.data == 0.0
        kw = {"data": 0.0, "prediction": pair.prediction}
        assert row.paired_min_difference == pytest.approx(
            minimum_detectable_difference(300, k=4, **kw), rel=1e-12
        )
        assert row.paired_questions_needed == required_questions(0.03, k=4, **kw)
        assert row.paired_samples_needed == required_samples(0.03, n=300, **kw)


def test_cli_prints_the_clip_warning_once(capsys, tmp_path):
    ds = _same_questions(seed=2)
    path = tmp_path / "same.csv"
    rows = ["model,question,count,correct"]
    for m in ds.model.values:
        c = ds.correct.sel(model=m).values
        rows += [f"{m},q{i},4,{int(x)}" for i, x in enumerate(c)]
    path.write_text("\n".join(rows) + "\n")
    assert main(["power", str(path), "--format", "csv"]) == 0
    err = capsys.readouterr().err
    assert err.count("data variance is negative") == 1


def _ragged(seed, n, k_b_low=2, difference=0.04):
    """Paired design with ragged K: a draws 2 samples where it is least sure (u (1 - u) > 0.2)
    and 16 elsewhere, so K follows the difficulty; b draws K uniform on k_b_low..6. The true
    paired difference E[u_a - u_b] is ``difference`` and its data variance > 0."""
    rng = np.random.default_rng(seed)
    ua, v = rng.beta(2.0, 1.5, n), rng.beta(1.5, 2.0, n)  # means 4/7 and 3/7
    s = difference / (4 / 7 - 3 / 7)
    ub = (1 - s) * ua + s * v
    k = np.stack([np.where(ua * (1 - ua) > 0.2, 2, 16), rng.integers(k_b_low, 7, n)])
    return rng.binomial(k, np.stack([ua, ub])), k


def test_ragged_k_uses_the_observed_variance_of_the_mean():
    for k_b_low in (2, 1):  # with K = 1 on some questions the split is not identifiable
        c, k = _ragged(0, 400, k_b_low)
        ds = from_arrays(c, k, models=["a", "b"])
        row = _quiet(power_table, ds, difference=0.05).iloc[0]
        d = c[0] / k[0] - c[1] / k[1]
        var = d.var()  # brute force: var_i(d_i), each question with its own K (ddof 0)
        raw = _quiet(pair_noise, ds).iloc[0].data
        var += max(-raw, 0.0) if np.isfinite(raw) else 0.0  # what the clip at 0 adds
        assert np.isfinite(row.paired_questions_needed)  # was blank with K = 1 cells
        assert row.paired_questions_needed == np.ceil(var * (Z / 0.05) ** 2)
        assert row.paired_min_difference == pytest.approx(Z * np.sqrt(var / 400), rel=1e-9)
        if k_b_low == 2:  # the constant K with the same variance, shown in the table
            assert 2 < row.planned_samples_per_question < 16
            assert row.data + row.prediction / row.planned_samples_per_question == pytest.approx(
                var
            )
        else:
            assert np.isnan(row.data) and np.isnan(row.paired_samples_needed)
        # the clustered table plans on the same variance (groups of one question: icc 0)
        cl = _quiet(cluster_power_table, ds, np.arange(400), difference=0.05).iloc[0]
        assert cl.clustered_questions_needed == row.paired_questions_needed


def test_same_k_everywhere_keeps_the_files_k():
    rng = np.random.default_rng(4)
    u = rng.beta(1, 1, 300)
    k = np.full((2, 300), 7)
    ds = from_arrays(rng.binomial(k, np.stack([u, 0.9 * u])), k, models=["a", "b"])
    assert _quiet(power_table, ds).planned_samples_per_question.tolist() == [7.0]
    k = np.stack([np.full(300, 4), np.full(300, 8)])  # constant but different per model
    ds = from_arrays(rng.binomial(k, np.stack([u, 0.9 * u])), k, models=["a", "b"])
    row = _quiet(power_table, ds).iloc[0]
    assert 4 < row.planned_samples_per_question < 8
    planned = _quiet(power_table, ds, k=6).iloc[0]
    assert planned.planned_samples_per_question == 6
    assert planned.paired_min_difference == pytest.approx(
        minimum_detectable_difference(300, data=row.data, prediction=row.prediction, k=6)
    )


@pytest.mark.slow
@pytest.mark.parametrize("k_b_low", [2, 1])
def test_ragged_k_questions_needed_reach_the_power_in_simulation(k_b_low):
    difference, pilot_n, reps, batch = 0.04, 100_000, 10_000, 1000
    c, k = _ragged(2024, pilot_n, k_b_low, difference)
    pilot = from_arrays(c, k, models=["a", "b"])
    n = int(_quiet(power_table, pilot, difference=difference).paired_questions_needed.iloc[0])
    d = c[0] / k[0] - c[1] / k[1]
    rel_sd = np.std((d - d.mean()) ** 2) / d.var() / np.sqrt(pilot_n)  # sd of V^ / V
    # brute force: `reps` fresh evals of n fresh questions of the same design (K drawn by the
    # same rule), each tested by the two-sided paired t test at 5 %
    rejected = 0
    for seed in np.random.SeedSequence(7).spawn(reps // batch):
        c, k = _ragged(seed, batch * n, k_b_low, difference)
        d = (c[0] / k[0] - c[1] / k[1]).reshape(batch, n)
        rejected += int((stats.ttest_1samp(d, 0.0, axis=1).pvalue < 0.05).sum())
    power = rejected / reps
    # Tolerance. (1) Monte Carlo: the rejection count is Binomial(reps, pi), sd
    # sqrt(pi (1 - pi) / reps) = 0.004 at pi = 0.8. (2) The pilot: n comes from the pilot's
    # variance V^ of the d_i; the power at n is Phi(Z sqrt(V^ / V) - z_.975), about
    # 0.8 + phi(z_.8) Z / 2 (V^ / V - 1), and sd(V^ / V) = sd((d_i - dbar)^2) / (V sqrt(pilot_n))
    # (about 1.5 / 316), so this sd is about 0.39 x 0.0046 = 0.0018. (3) Rounding n up adds at
    # most 1 / n of the variance (+0.0005 power) and the t reference with n - 1 >= 600 df
    # instead of the normal costs less than 0.001: 0.002 covers both. Tolerance: 4 sd of
    # (1) and (2) combined, plus (3), about 0.02. (Planning at the smaller mean K, as before,
    # reached 0.71 here; a harmonic mean of K, which ignores that K follows the difficulty, 0.77.)
    slope = stats.norm.pdf(special.ndtri(0.8)) * Z / 2
    tol = 4 * np.sqrt(0.8 * 0.2 / reps + (slope * rel_sd) ** 2) + 0.002
    assert abs(power - 0.8) <= tol, (n, power, tol)
