"""Decision accuracy: the signal-and-noise definition with its ties, the bootstrap over
models, the expected value under the measured noise, and bad input.

The reference ``decision_acc_fast`` is written here from allenai/signal-and-noise
``snr/metrics.py`` (called there on scores sorted by model name); the noise ceiling is checked
against its closed form for normal noise, the model bootstrap against a brute-force expansion
of the resampled models.
"""

import io
import string
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

import bayesnoise as bn
from bayesnoise.cli import main
from bayesnoise.data import DataError
from bayesnoise.frequentist.decision import (
    agreement,
    decision_accuracy,
    model_bootstrap,
    noise_ceiling,
)


def seed_decision_acc_fast(scores_small, scores_target):
    """allenai/signal-and-noise snr/metrics.py ``decision_acc_fast``."""
    scores_small = np.array(scores_small)
    scores_target = np.array(scores_target)
    small_diffs = scores_small[:, np.newaxis] > scores_small[np.newaxis, :]
    target_diffs = scores_target[:, np.newaxis] > scores_target[np.newaxis, :]
    mask = np.triu(np.ones_like(small_diffs), k=1).astype(bool)
    agreements = (small_diffs == target_diffs)[mask]
    return np.mean(agreements)


def _random_tables(rng, m):
    """Scores on a coarse grid (many ties) for models whose names do not sort in the order
    they are listed."""
    names = ["".join(rng.choice(list(string.ascii_lowercase), 6)) for _ in range(m)]
    names = list(dict.fromkeys(names))
    small = rng.integers(0, 5, len(names)) / 10  # ties on purpose
    target = rng.integers(0, 5, len(names)) / 10
    return names, small, target


def test_core_equals_seed_with_ties():
    rng = np.random.default_rng(0)
    for _ in range(200):
        s = rng.integers(0, 4, rng.integers(2, 30)).astype(float)
        t = rng.integers(0, 4, s.size).astype(float)
        assert decision_accuracy(s, t) == seed_decision_acc_fast(s, t)


def test_verb_orders_by_name_as_the_seed():
    rng = np.random.default_rng(1)
    for _ in range(50):
        names, small, target = _random_tables(rng, int(rng.integers(3, 25)))
        frame = pd.DataFrame({"model": names, "small": small, "target": target})
        ref = seed_decision_acc_fast(
            frame.sort_values("model")["small"], frame.sort_values("model")["target"]
        )
        got = bn.decision_accuracy(
            dict(zip(names, small, strict=True)),
            dict(zip(names, target, strict=True)),
            n_resamples=0,
        )
        assert float(got["decision_accuracy"]) == ref
        assert int(got["model_pairs"]) == len(names) * (len(names) - 1) // 2


def test_name_order_matters_with_ties_as_in_the_seed():
    # tied on the small side: the pair agrees when the later (by name) model leads the target
    small = {"a": 0.5, "b": 0.5, "c": 0.9}
    later_leads = bn.decision_accuracy(small, {"a": 0.1, "b": 0.2, "c": 0.3}, n_resamples=0)
    earlier_leads = bn.decision_accuracy(small, {"a": 0.2, "b": 0.1, "c": 0.3}, n_resamples=0)
    assert float(later_leads["decision_accuracy"]) == 1.0
    assert float(earlier_leads["decision_accuracy"]) == pytest.approx(2 / 3)


def test_model_bootstrap_equals_brute_force_expansion():
    rng = np.random.default_rng(4)
    m = 9
    s, t = rng.integers(0, 5, m).astype(float), rng.integers(0, 5, m).astype(float)
    agree = agreement(s, t)
    reps = 30
    got = model_bootstrap(agree, reps, np.random.default_rng(7))
    draw = np.random.default_rng(7)  # the same stream: one block of replicates
    counts = draw.multinomial(m, np.full(m, 1.0 / m), size=reps)
    for r in range(reps):
        drawn = np.repeat(np.arange(m), counts[r])
        hits = total = 0
        for i in range(drawn.size):
            for j in range(i + 1, drawn.size):
                a, b = sorted((drawn[i], drawn[j]))
                if a == b:
                    continue  # a model against its own copy: no ranking
                hits += agree[a, b]
                total += 1
        assert got[r] == pytest.approx(hits / total, rel=1e-12)


def test_noise_ceiling_equals_normal_closed_form():
    """With independent normal noise of sd sigma per model on each side, a pair (i, j) agrees
    with probability q_s q_t + (1 - q_s)(1 - q_t), q = Phi(delta / (sigma sqrt 2))."""
    rng = np.random.default_rng(9)
    m, reps = 7, 20_000
    s = np.sort(rng.uniform(0.2, 0.5, m))
    t = np.sort(rng.uniform(0.4, 0.8, m))  # same order: the truth is a perfect proxy
    sig_s, sig_t = 0.03, 0.05
    e_s = rng.normal(0, sig_s, (reps, m))
    e_t = rng.normal(0, sig_t, (reps, m))
    got = noise_ceiling(s, t, e_s, e_t)
    i, j = np.triu_indices(m, k=1)
    q_s = stats.norm.cdf((s[j] - s[i]) / (sig_s * np.sqrt(2)))
    q_t = stats.norm.cdf((t[j] - t[i]) / (sig_t * np.sqrt(2)))
    expected = np.mean(q_s * q_t + (1 - q_s) * (1 - q_t))
    # each replicate's decision accuracy is in [0, 1]: its SD is at most 0.5, so the mean of
    # 20,000 replicates is within 4 * 0.5 / sqrt(20,000) = 0.014 with room to spare
    assert abs(got - expected) < 4 * 0.5 / np.sqrt(reps)
    assert noise_ceiling(s, t, np.zeros((3, m)), None) == 1.0  # no noise: every pair agrees
    assert np.isnan(noise_ceiling(s, t, None, None))


def _question_results(rng, abilities, n=300, k=1):
    difficulty = rng.normal(0, 1.2, n)
    prob = special.expit(np.asarray(abilities)[:, None] - difficulty[None, :])
    return rng.binomial(k, prob)


def test_question_level_files(tmp_path, capsys):
    rng = np.random.default_rng(12)
    names = [f"mix-{c}" for c in "qwertyuiop"]
    ability = np.linspace(-1, 1, len(names))
    frames = {}
    for side, shift in (("small", -0.8), ("target", 0.0)):
        correct = _question_results(rng, ability + shift + rng.normal(0, 0.3, len(names)))
        frames[side] = pd.DataFrame(
            {
                "model": np.repeat(names, correct.shape[1]),
                "example_id": np.tile(np.arange(correct.shape[1]), len(names)),
                "correct": correct.ravel(),
            }
        )
        frames[side].to_csv(tmp_path / f"{side}.csv", index=False)
    small, target = str(tmp_path / "small.csv"), str(tmp_path / "target.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = bn.tidy(bn.decision_accuracy(small, target, n_resamples=300))
    acc = {side: f.groupby("model")["correct"].mean().sort_index() for side, f in frames.items()}
    ref = seed_decision_acc_fast(acc["small"].to_numpy(), acc["target"].to_numpy())
    assert r["decision_accuracy"][0] == pytest.approx(ref, abs=1e-15)
    assert r["decision_accuracy_low"][0] <= ref <= r["decision_accuracy_high"][0]
    assert 0.5 < r["expected_decision_accuracy"][0] <= 1.0
    # the same from one score per model (no question column): no measured noise
    scores = tmp_path / "small_scores.csv"
    acc["small"].rename("score").reset_index().to_csv(scores, index=False)
    r2 = bn.tidy(bn.decision_accuracy(str(scores), acc["target"], n_resamples=50))
    assert r2["decision_accuracy"][0] == pytest.approx(ref, abs=1e-15)
    assert np.isnan(r2["expected_decision_accuracy"][0])
    # the command line
    code = main(
        [
            "decision-accuracy",
            small,
            target,
            "--n-resamples",
            "300",
            "--format",
            "csv",
            "--no-progress",
        ]
    )
    assert code == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out))
    np.testing.assert_allclose(printed["decision_accuracy"], r["decision_accuracy"], rtol=1e-9)
    np.testing.assert_allclose(
        printed["expected_decision_accuracy"], r["expected_decision_accuracy"], rtol=1e-9
    )


def test_bootstrap_is_seeded_and_level_sets_width():
    rng = np.random.default_rng(3)
    names, small, target = _random_tables(rng, 20)
    small_d, target_d = dict(zip(names, small, strict=True)), dict(zip(names, target, strict=True))
    a = bn.tidy(bn.decision_accuracy(small_d, target_d, rng=5))
    b = bn.tidy(bn.decision_accuracy(small_d, target_d, rng=5))
    assert a.equals(b)
    narrow = bn.tidy(bn.decision_accuracy(small_d, target_d, rng=5, confidence_level=0.5))
    assert (narrow["decision_accuracy_high"][0] - narrow["decision_accuracy_low"][0]) <= (
        a["decision_accuracy_high"][0] - a["decision_accuracy_low"][0]
    )


# --- bad input ---------------------------------------------------------------------------------


def test_model_missing_on_one_side_is_named(tmp_path, capsys):
    small = {"a": 0.1, "b": 0.2, "c": 0.3, "d": 0.4}
    target = {"a": 0.1, "b": 0.2, "c": 0.3, "e": 0.5}
    with pytest.raises(DataError, match=r"in the small scores but not in the target scores: 'd'"):
        bn.decision_accuracy(small, target)
    with pytest.raises(DataError, match=r"in the target scores but not in the small scores: 'e'"):
        bn.decision_accuracy(small, target)
    pd.Series(small, name="score").rename_axis("model").reset_index().to_csv(
        tmp_path / "s.csv", index=False
    )
    pd.Series(target, name="score").rename_axis("model").reset_index().to_csv(
        tmp_path / "t.csv", index=False
    )
    assert main(["decision-accuracy", str(tmp_path / "s.csv"), str(tmp_path / "t.csv")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "'d'" in err and "'e'" in err
    ok = bn.decision_accuracy(small, target, models="a,b,c", n_resamples=10)
    assert int(ok["models"]) == 3


def test_fewer_than_three_models_and_bad_scores():
    with pytest.raises(DataError, match="at least 3 models"):
        bn.decision_accuracy({"a": 0.1, "b": 0.2}, {"a": 0.3, "b": 0.1})
    with pytest.raises(DataError, match="not a finite number"):
        bn.decision_accuracy({"a": 0.1, "b": None, "c": 0.2}, {"a": 0.3, "b": 0.1, "c": 0.2})
    twice = pd.DataFrame({"model": ["a", "a", "b", "c"], "score": [0.1, 0.2, 0.3, 0.4]})
    with pytest.raises(DataError, match="more than one score"):
        bn.decision_accuracy(twice, {"a": 0.3, "b": 0.1, "c": 0.2})


def test_a_side_with_one_score_for_all_models_is_stated():
    with pytest.warns(UserWarning, match="ranks no pair"):
        r = bn.decision_accuracy(
            {"a": 0.0, "b": 0.0, "c": 0.0}, {"a": 0.1, "b": 0.3, "c": 0.2}, n_resamples=10
        )
    # (a, b): t_a < t_b agrees with the tie; (a, c) agrees; (b, c): t_b > t_c disagrees
    assert float(r["decision_accuracy"]) == pytest.approx(2 / 3)


def test_help_names_both_files(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["decision-accuracy", "--help"])
    assert exit_.value.code == 0
    assert "SMALL TARGET" in capsys.readouterr().out
