"""Signal-to-noise ratios: the signal-and-noise checkpoint SNR, the measured-noise SNR and
Eval-Arena's family SNR.

References are written here independently: the seed's ``signal_to_noise_ratio`` (copied from
allenai/signal-and-noise ``snr/metrics.py``, with its large-scale use: noise from the last 30
checkpoints sorted by step), the paper's variance estimators in numpy, and the per-question
paired difference for the family SNR.
"""

import io
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import special

import bayesnoise as bn
from bayesnoise.cli import main
from bayesnoise.data import DataError
from bayesnoise.frequentist.families import family_pairs, family_table
from bayesnoise.frequentist.signal import (
    checkpoint_order,
    relative_spread,
    relative_std,
)


def seed_signal_to_noise_ratio(signal_scores, noise_scores):
    """allenai/signal-and-noise snr/metrics.py, verbatim apart from the name."""
    dispersion = np.max([np.abs(mj - mk) for mj in signal_scores for mk in signal_scores])
    signal = dispersion / np.mean(signal_scores)
    noise = np.std(noise_scores) / np.mean(noise_scores)
    snr = signal / noise
    return snr


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _checkpoint_scores(seed=0):
    """Per-checkpoint score table: two training runs (40 and 12 checkpoints, rows shuffled)
    and four models evaluated once."""
    rng = np.random.default_rng(seed)
    rows = []
    for model, steps in (("run-a", 40), ("run-b", 12)):
        for s in range(steps):
            rows.append((model, 1000 * (s + 1), 0.3 + 0.005 * s + rng.normal(0, 0.01)))
    for i, score in enumerate(rng.uniform(0.2, 0.6, 4)):
        rows.append((f"final-{i}", 50_000, score))
    df = pd.DataFrame(rows, columns=["model", "step", "score"])
    return df.sample(frac=1.0, random_state=1).reset_index(drop=True)


def _seed_reference(df, noise_model, last=30):
    """The seed's large-scale SNR: signal over every model's final score, noise over the
    noise model's last `last` scores sorted by step."""
    final = df.sort_values("step").groupby("model")["score"].last()
    noise = list(df[df.model == noise_model].sort_values("step")["score"])[-last:]
    return seed_signal_to_noise_ratio(list(final), noise)


# --- checkpoint SNR equals the seed's formula -----------------------------------------------


def test_core_equals_seed_formula():
    rng = np.random.default_rng(3)
    for _ in range(20):
        signal = rng.uniform(0.1, 0.9, rng.integers(2, 12))
        noise = rng.uniform(0.3, 0.5, rng.integers(2, 40))
        ref = seed_signal_to_noise_ratio(signal, noise)
        # checkpoint_signal's snr is relative_spread / relative_std: the same float operations
        # up to the order of the pair maximum, a few ulps
        assert relative_spread(signal) / relative_std(noise) == pytest.approx(ref, rel=1e-13)
        assert relative_spread(signal) == pytest.approx(
            np.max(np.abs(signal[:, None] - signal[None, :])) / signal.mean(), rel=1e-13
        )


@pytest.mark.parametrize("noise_model", ["run-a", "run-b"])
def test_score_table_snr_equals_seed(noise_model):
    df = _checkpoint_scores()
    r = bn.tidy(bn.signal(df, checkpoint_column="step", noise_model=noise_model))
    assert len(r) == 1 and r["noise_model"][0] == noise_model
    ref = _seed_reference(df, noise_model)
    assert r["snr_checkpoints"][0] == pytest.approx(ref, rel=1e-12)
    assert r["models"][0] == 6
    assert r["checkpoints"][0] == (30 if noise_model == "run-a" else 12)  # a short run: all


def test_every_series_model_gets_a_row_and_last_is_used():
    df = _checkpoint_scores()
    r = bn.tidy(bn.signal(df, checkpoint_column="step", last=10))
    assert r["noise_model"].tolist() == ["run-a", "run-b"]  # the models with a series
    for _, row in r.iterrows():
        assert row["snr_checkpoints"] == pytest.approx(
            _seed_reference(df, row["noise_model"], last=10), rel=1e-12
        )


def test_question_level_checkpoint_file_equals_seed(tmp_path):
    """Per-question results with a step column: each checkpoint's score is its accuracy."""
    rng = np.random.default_rng(5)
    n = 150
    difficulty = rng.normal(0, 1.5, n)
    rows = []
    runs = {"olmo": 35, "pythia": 8, "llama": 1, "qwen": 1, "gemma": 1}
    for m, (model, steps) in enumerate(runs.items()):
        for s in range(steps):
            ability = 0.2 * m + 0.02 * s
            right = rng.random(n) < special.expit(ability - difficulty)
            for q in range(n):
                rows.append((model, f"step{s * 500 + 500}", f"q{q}", int(right[q])))
    df = pd.DataFrame(rows, columns=["model", "step", "example_id", "correct"])
    path = tmp_path / "ckpt.csv"
    df.sample(frac=1.0, random_state=0).to_csv(path, index=False)
    got = bn.tidy(_quiet(bn.signal, str(path), checkpoint_column="step", noise_model="olmo"))
    # reference: accuracy per (model, checkpoint) by pandas, steps in numeric order
    acc = df.groupby(["model", "step"])["correct"].mean().reset_index(name="score")
    acc["step"] = acc["step"].str.removeprefix("step").astype(int)
    assert got["snr_checkpoints"][0] == pytest.approx(_seed_reference(acc, "olmo"), rel=1e-12)
    # the measured noise of the noise model's final checkpoint, beside it (K = 1: total only)
    final = acc[(acc.model == "olmo")].sort_values("step")["score"].iloc[-1]
    se_total = np.sqrt(final * (1 - final) / n)  # K = 1: var_i(p) + mean(w) = pbar (1 - pbar)
    assert got["noise_se_total"][0] == pytest.approx(se_total / final, rel=1e-12)
    assert np.isnan(got["noise_se_prediction"][0])
    # the command line prints the same numbers
    code = main(
        [
            "signal",
            str(path),
            "--checkpoint-column",
            "step",
            "--noise-model",
            "olmo",
            "--format",
            "csv",
            "--no-progress",
        ]
    )
    assert code == 0


def test_cli_prints_the_verbs_table(tmp_path, capsys):
    df = _checkpoint_scores()
    path = tmp_path / "scores.csv"
    df.to_csv(path, index=False)
    assert main(["signal", str(path), "--checkpoint-column", "step", "--format", "csv"]) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out))
    expected = bn.tidy(bn.signal(str(path), checkpoint_column="step"))
    assert list(printed.columns) == list(expected.columns)
    np.testing.assert_allclose(printed["snr_checkpoints"], expected["snr_checkpoints"], rtol=1e-9)


def test_checkpoint_labels_sort_naturally():
    assert checkpoint_order(["step900", "step1000", "step20"]).tolist() == [1.0, 2.0, 0.0]
    df = _checkpoint_scores()
    labelled = df.assign(step="step" + df["step"].astype(str))
    a = bn.tidy(bn.signal(df, checkpoint_column="step", noise_model="run-a"))
    b = bn.tidy(bn.signal(labelled, checkpoint_column="step", noise_model="run-a"))
    assert a["snr_checkpoints"][0] == b["snr_checkpoints"][0]


# --- the measured-noise form ------------------------------------------------------------------


def _measured_reference(correct, k):
    """signal and per-model (se_total, se_prediction) / accuracy from the estimator formulas:
    total = var_i(p) + mean(w), prediction = mean(w) + mean(w / (K - 1)), w = p (1 - p)."""
    p = correct / k
    w = p * (1 - p)
    acc = p.mean(axis=1)
    n = p.shape[1]
    total = p.var(axis=1) + w.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):  # K = 1: not identifiable (NaN)
        prediction = w.mean(axis=1) + (w / (k - 1)).mean(axis=1)
    signal = (acc.max() - acc.min()) / acc.mean()
    return signal, np.sqrt(total / n) / acc, np.sqrt(prediction / n) / acc


def test_measured_form_equals_formulas():
    rng = np.random.default_rng(11)
    m, n, k = 6, 300, 8
    u = rng.beta(1, 1.5, n)
    correct = rng.binomial(k, np.clip(u[None, :] + np.linspace(-0.1, 0.1, m)[:, None], 0, 1))
    ds = bn.from_arrays(correct, np.full((m, n), k), models=[f"m{i}" for i in range(m)])
    r = bn.tidy(bn.signal(ds))
    signal, noise_total, noise_pred = _measured_reference(correct.astype(float), k)
    best_first = np.argsort(-correct.mean(axis=1), kind="stable")
    assert r["noise_model"].tolist() == [f"m{i}" for i in best_first]  # best model first
    r = r.set_index("noise_model").loc[[f"m{i}" for i in range(m)]]
    np.testing.assert_allclose(r["signal"], signal, rtol=1e-12)
    np.testing.assert_allclose(r["noise_se_total"], noise_total, rtol=1e-10)
    np.testing.assert_allclose(r["noise_se_prediction"], noise_pred, rtol=1e-10)
    np.testing.assert_allclose(r["snr_se_total"], signal / noise_total, rtol=1e-10)
    np.testing.assert_allclose(r["snr_se_prediction"], signal / noise_pred, rtol=1e-10)
    assert "noise_checkpoints" not in r.columns  # never under the checkpoint name
    one = bn.tidy(bn.signal(ds, noise_model="m2"))
    assert one["noise_model"].tolist() == ["m2"]


def test_group_column_gives_one_result_per_subtask(tmp_path):
    rng = np.random.default_rng(2)
    rows = []
    subjects = {"algebra": 120, "biology": 80}
    for subject, n in subjects.items():
        for m in range(4):
            right = rng.random(n) < 0.3 + 0.1 * m + (0.2 if subject == "biology" else 0)
            rows += [(f"m{m}", f"{q}", subject, int(right[q])) for q in range(n)]  # ids repeat
    df = pd.DataFrame(rows, columns=["model", "example_id", "subject", "correct"])
    path = tmp_path / "mmlu.csv"
    df.to_csv(path, index=False)
    r = bn.tidy(_quiet(bn.signal, str(path), group_column="subject", noise_model="m1"))
    assert r["subtask"].tolist() == ["algebra", "biology"]
    for _, row in r.iterrows():
        sub = df[df.subject == row["subtask"]].pivot(
            index="model", columns="example_id", values="correct"
        )
        signal, noise_total, _ = _measured_reference(sub.to_numpy(float), 1)
        assert row["signal"] == pytest.approx(signal, rel=1e-12)
        assert row["noise_se_total"] == pytest.approx(noise_total[1], rel=1e-10)


# --- family SNR --------------------------------------------------------------------------------


def test_family_table_and_pairs():
    models = ["llama-7b", "llama-13b", "llama-70b", "qwen-1.5b-chat", "qwen-7b-chat", "gpt-4o"]
    t = family_table(models, r"(?P<size>\d+(\.\d+)?)b")
    assert t.attrs["unmatched"] == ["gpt-4o"]
    assert dict(zip(t.model, t.family, strict=True))["qwen-7b-chat"] == "qwen-*b-chat"
    assert family_pairs(t) == [
        ("llama-70b", "llama-13b"),
        ("llama-13b", "llama-7b"),
        ("qwen-7b-chat", "qwen-1.5b-chat"),
    ]
    # Eval-Arena's own pattern: two unnamed groups (family, size)
    t2 = family_table(models[:3], r"(.*)[-_x](\d+\.?\d?)[bB]")
    assert set(t2.family) == {"llama"} and t2["size"].tolist() == [7.0, 13.0, 70.0]


def test_family_snr_equals_paired_z_per_doubling(tmp_path):
    rng = np.random.default_rng(8)
    n = 400
    difficulty = rng.normal(0, 1.5, n)
    ability = {"fam-7b": 0.0, "fam-14b": 0.4, "fam-56b": 0.9, "other-3b": 0.2, "solo": 0.5}
    p = np.array([rng.random(n) < special.expit(a - difficulty) for a in ability.values()])
    ds = bn.from_arrays(p.astype(int), np.ones(p.shape), models=list(ability))
    r = bn.tidy(_quiet(bn.signal, ds, families=r"(?P<size>\d+)b"))
    assert list(zip(r.model_a, r.model_b, strict=True)) == [
        ("fam-56b", "fam-14b"),
        ("fam-14b", "fam-7b"),
    ]
    idx = {m: i for i, m in enumerate(ability)}
    for _, row in r.iterrows():
        d = p[idx[row.model_a]].astype(float) - p[idx[row.model_b]]
        z = d.mean() / np.sqrt(d.var() / n)
        doublings = np.log2(row.size_a / row.size_b)
        assert row.size_doublings == pytest.approx(doublings, rel=1e-14)
        assert row.family_snr == pytest.approx(z / doublings, rel=1e-10)
    pairs = bn.tidy(_quiet(bn.pairs, ds, pair=("fam-56b", "fam-14b")))
    assert r.z[0] == pytest.approx(pairs.z[0], rel=1e-12)  # the same z as `pairs`
    with pytest.warns(UserWarning, match="belong to no family"):
        bn.signal(ds, families=r"(?P<size>\d+)b")
    spec = pd.DataFrame({"model": ["fam-7b", "fam-56b"], "family": ["f", "f"], "size": [7, 56]})
    spec_path = tmp_path / "families.csv"
    spec.to_csv(spec_path, index=False)
    r2 = bn.tidy(_quiet(bn.signal, ds, families=str(spec_path)))
    assert r2[["model_a", "model_b", "size_doublings"]].values.tolist() == [
        ["fam-56b", "fam-7b", 3.0]
    ]


# --- bad input ---------------------------------------------------------------------------------


def test_constant_checkpoint_column_is_an_error(tmp_path):
    df = _checkpoint_scores().assign(step=1000)
    with pytest.raises(DataError, match="one value '1000' in every row"):
        bn.signal(df, checkpoint_column="step")
    path = tmp_path / "flat.csv"
    df.drop_duplicates("model").to_csv(path, index=False)
    assert main(["signal", str(path), "--checkpoint-column", "step"]) == 2


def test_no_series_duplicates_and_unknown_noise_model():
    df = _checkpoint_scores()
    finals = df.sort_values("step").groupby("model").tail(1)
    with pytest.raises(DataError, match="no model has two or more checkpoints"):
        bn.signal(finals, checkpoint_column="step")
    with pytest.raises(DataError, match="more than once"):
        bn.signal(pd.concat([df, df.head(1)]), checkpoint_column="step")
    with pytest.raises(DataError, match="noise model 'nobody' is not in the input"):
        bn.signal(df, checkpoint_column="step", noise_model="nobody")
    with pytest.raises(DataError, match="'final-0' has one checkpoint"):
        bn.signal(df, checkpoint_column="step", noise_model="final-0")
    with pytest.raises(DataError, match="no column 'epoch'"):
        bn.signal(df, checkpoint_column="epoch")
    with pytest.raises(DataError, match="not a finite number"):
        bn.signal(
            df.assign(score=df["score"].astype(object).where(df.index != 3, "n/a")),
            checkpoint_column="step",
        )


def test_too_few_models_and_all_unsolved():
    rng = np.random.default_rng(0)
    one = bn.from_arrays(rng.integers(0, 2, (1, 50)), np.ones((1, 50)), models=["a"])
    with pytest.raises(DataError, match="at least two models"):
        bn.signal(one)
    two = bn.from_arrays(rng.integers(0, 2, (2, 50)), np.ones((2, 50)), models=["a", "b"])
    with pytest.warns(UserWarning, match="only two models"):
        _quiet_split(bn.signal, two)
    zero = bn.from_arrays(np.zeros((3, 50)), np.ones((3, 50)), models=["a", "b", "c"])
    with pytest.raises(DataError, match="all questions unsolved"):
        _quiet_split(bn.signal, zero)
    df = _checkpoint_scores().assign(score=0.0)
    with pytest.raises(DataError, match="all questions unsolved"):
        bn.signal(df, checkpoint_column="step")


def test_a_model_at_zero_has_no_relative_noise():
    correct = np.array([[0] * 40, [1] * 10 + [0] * 30, [1] * 20 + [0] * 20])
    ds = bn.from_arrays(correct, np.ones(correct.shape), models=["zero", "b", "c"])
    with pytest.warns(UserWarning, match="scored 0"):
        r = bn.tidy(_quiet_split(bn.signal, ds))
    noise = r.set_index("noise_model")["noise_se_total"]
    assert np.isnan(noise["zero"]) and np.isfinite(noise["b"])


def _quiet_split(fn, *args, **kwargs):
    """Run ``fn`` ignoring only the K = 1 notes (the warnings under test still reach pytest)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*noise_se_prediction is empty")
        warnings.filterwarnings("ignore", message=".*only .* questions")
        return fn(*args, **kwargs)


def test_families_with_checkpoints_and_bad_regex():
    df = _checkpoint_scores()
    with pytest.raises(DataError, match="leave out checkpoint_column"):
        bn.signal(df, checkpoint_column="step", families=r"(?P<size>\d+)b")
    rng = np.random.default_rng(1)
    ds = bn.from_arrays(rng.integers(0, 2, (3, 60)), np.ones((3, 60)), models=["x", "y", "z"])
    with pytest.raises(DataError, match="neither a table file"):
        bn.signal(ds, families="(unclosed")
    with pytest.raises(DataError, match="no family has models of two sizes"):
        _quiet(bn.signal, ds, families=r"(?P<size>\d+)b")
