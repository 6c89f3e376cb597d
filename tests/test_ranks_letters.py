"""Compact letter display (insert-absorb) and the ``group`` column of the rank table."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

from bayesnoise.data import from_arrays
from bayesnoise.decide import (
    compact_letters,
    letters_from_pairs,
    ordered_separation,
    rank_table,
    top_group,
)


def _pmatrix(m, significant):
    """p = 0.001 for the listed pairs, 0.5 otherwise."""
    p = np.full((m, m), 0.5)
    for i, j in significant:
        p[i, j] = p[j, i] = 0.001
    return p


def _check_invariant(p, letters, alpha=0.05):
    """Two models share a letter exactly when their p-value is not below alpha; every model
    has at least one letter."""
    many = any(ch.isdigit() for x in letters for ch in x)  # > 52 letters: "a1.b2" tokens
    sets = [set(x.split(".")) if many else set(x) for x in letters]
    assert all(sets)
    for i, j in itertools.combinations(range(len(letters)), 2):
        significant = bool(p[i, j] < alpha)
        assert bool(sets[i] & sets[j]) == (not significant), (i, j, letters)


# Displays worked out by hand with insert-absorb (models listed best first).
HAND = [
    # nothing significant: one group
    (4, [], ["a", "a", "a", "a"]),
    # everything significant: one letter each, in rank order
    (4, list(itertools.combinations(range(4), 2)), ["a", "b", "c", "d"]),
    # the staircase: 1 differs from 3 and 4, 2 from 4 -> a, ab, bc, c
    (4, [(0, 2), (0, 3), (1, 3)], ["a", "ab", "bc", "c"]),
    # multcompView's help example (A-B, A-C not significant, B-C significant): ab, a, b
    (3, [(1, 2)], ["ab", "a", "b"]),
    # two disjoint significant pairs: the not-significant pairs form the 4-cycle 1-3-2-4-1,
    # which has no triangle, so each of its 4 edges needs its own letter:
    # {1,3}=a, {1,4}=b, {2,3}=c, {2,4}=d
    (4, [(0, 1), (2, 3)], ["ab", "cd", "ac", "bd"]),
    # five models, the best separated from the last three, the second from the last: the
    # not-significant pairs 12, 23, 24, 34, 35, 45 are covered by the maximal groups {1,2},
    # {2,3,4}, {3,4,5} (2 and 5 differ, so no larger one): a, ab, bc, bc, c
    (5, [(0, 2), (0, 3), (0, 4), (1, 4)], ["a", "ab", "bc", "bc", "c"]),
]


@pytest.mark.parametrize(("m", "significant", "expected"), HAND)
def test_hand_worked_displays(m, significant, expected):
    p = _pmatrix(m, significant)
    letters = compact_letters(p)
    assert letters == expected
    _check_invariant(p, letters)


def test_order_decides_which_model_gets_a():
    p = _pmatrix(4, [(0, 2), (0, 3), (1, 3)])
    # the same matrix with the models listed worst first: the display is mirrored
    assert compact_letters(p, order=[3, 2, 1, 0]) == ["c", "bc", "ab", "a"]


def test_nan_counts_as_not_significant_and_bad_input():
    p = _pmatrix(3, [(0, 1), (0, 2)])
    p[1, 2] = p[2, 1] = np.nan  # e.g. two models with identical scores
    assert compact_letters(p) == ["a", "b", "b"]
    with pytest.raises(ValueError, match="square"):
        compact_letters(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="permutation"):
        compact_letters(p, order=[0, 0, 1])


def test_invariant_on_random_significance_patterns():
    rng = np.random.default_rng(11)
    for _ in range(300):
        m = int(rng.integers(2, 9))
        p = rng.uniform(0, 0.1, size=(m, m))
        p = np.triu(p, 1) + np.triu(p, 1).T
        order = rng.permutation(m)
        letters = compact_letters(p, order=order)
        _check_invariant(p, letters)
        assert "a" in letters[order[0]]  # the first model listed has a


def test_many_letters_are_separated():
    m = 60  # more than a-z A-Z letters: numbered tokens joined by "."
    p = np.full((m, m), 0.001)
    p[0, 1] = p[1, 0] = p[0, 2] = p[2, 0] = 0.5  # model 0 shares a letter with 1 and with 2
    letters = compact_letters(p)
    assert letters[0].count(".") == 1 and len(set(letters)) == m
    _check_invariant(p, letters)


def test_letters_from_pairs_matches_the_matrix():
    pairs = pd.DataFrame(
        {
            "model_a": ["x", "x", "y"],
            "model_b": ["y", "z", "z"],
            "p_value_adjusted": [0.2, 0.01, 0.3],
        }
    )
    assert letters_from_pairs(pairs, ["x", "y", "z"]) == ["a", "ab", "b"]
    assert letters_from_pairs(pairs, ["z", "y", "x"]) == ["a", "ab", "b"]  # z first now


def _brute_apart(p, x, alpha):
    """ordered_separation by its definition, O(M^4): i better than k is shown apart when every
    model at least as accurate as i is separated (p < alpha) from every model at most as
    accurate as k."""
    m = len(x)
    sig = (p < alpha) & (p.T < alpha)
    out = np.zeros((m, m), dtype=bool)
    for i, k in itertools.permutations(range(m), 2):
        if x[i] > x[k]:
            above = [j for j in range(m) if x[j] >= x[i]]
            below = [j for j in range(m) if x[j] <= x[k]]
            out[i, k] = out[k, i] = all(sig[a, b] and a != b for a in above for b in below)
    return out


def _runs(letters, order):
    """Every letter's models are consecutive in ``order``."""
    for lab in set("".join(letters)):
        pos = [r for r, i in enumerate(order) if lab in letters[i]]
        assert pos == list(range(pos[0], pos[-1] + 1)), (lab, letters)


def test_ordered_separation_top_group_and_letters_against_brute_force():
    rng = np.random.default_rng(14)
    for _ in range(300):
        m = int(rng.integers(2, 8))
        p = rng.uniform(0, 0.1, size=(m, m))
        p = np.triu(p, 1) + np.triu(p, 1).T
        p[rng.uniform(size=(m, m)) < 0.1] = np.nan  # untestable pairs: not separated
        x = np.round(rng.uniform(0.5, 0.6, m), 2)  # ties in the scores
        apart = ordered_separation(p, x)
        np.testing.assert_array_equal(apart, _brute_apart(p, x, 0.05))
        top = top_group(p, x)
        best = x.max()
        # no model shown apart from a better one, by brute force over all pairs
        unbeaten = ~np.array([any(apart[j, k] and x[j] > x[k] for j in range(m)) for k in range(m)])
        np.testing.assert_array_equal(top, unbeaten)
        assert top[x == best].all()
        # a prefix in score order: the lowest member's score bounds it from below
        assert np.array_equal(top, x >= x[top].min())
        letters = compact_letters(p, scores=x)
        _check_invariant(np.where(apart, 0.0, 1.0), letters)
        np.testing.assert_array_equal(["a" in lab for lab in letters], top)
        _runs(letters, np.argsort(-x, kind="stable"))


def _holm(raw):
    """Holm's step-down adjustment by its textbook formula, vectorised over the last axis:
    the i-th smallest p times (P - i + 1), running maximum, capped at 1; NaN stays NaN (not
    counted in P)."""
    raw = np.asarray(raw, dtype=float)
    out = np.full(raw.shape, np.nan)
    for idx in np.ndindex(raw.shape[:-1]):
        row = raw[idx]
        ok = np.flatnonzero(np.isfinite(row))
        order = ok[np.argsort(row[ok], kind="stable")]
        scaled = (len(ok) - np.arange(len(ok))) * row[order]
        out[(*idx, order)] = np.minimum(np.maximum.accumulate(scaled), 1.0)
    return out


def test_hand_holm_is_statsmodels_holm():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(16)
    for _ in range(3):
        raw = rng.uniform(0, 0.2, 15)
        np.testing.assert_allclose(_holm(raw), multipletests(raw, method="holm")[1], rtol=1e-12)


def _holm_t(scores):
    """Independent oracle: paired t tests (scipy) of every pair, Holm-adjusted (:func:`_holm`);
    NaN (identical per-question scores) is not separated. ``scores`` (..., M, N)."""
    from scipy import stats

    m = scores.shape[-2]
    ia, ib = np.triu_indices(m, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw = stats.ttest_rel(scores[..., ia, :], scores[..., ib, :], axis=-1).pvalue
    adj = _holm(raw)
    p = np.full((*scores.shape[:-2], m, m), np.nan)
    p[..., ia, ib] = p[..., ib, ia] = adj
    return p


def _check_rank_table(ds):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = rank_table(ds, n_resamples=500)
    order = [list(ds["model"].values.astype(str)).index(m) for m in df["model"]]
    scores = (ds["correct"] / ds["samples"]).values[order]
    p = _holm_t(scores)
    x = df["accuracy"].to_numpy()
    assert np.all(np.diff(x) <= 0)  # printed best accuracy first
    top = df["in_top_group"].to_numpy()
    np.testing.assert_array_equal(top, top_group(p, x))
    # letter a is the top group, which is the first rows of the table
    np.testing.assert_array_equal(["a" in g for g in df["group"]], top)
    assert top[: top.sum()].all()
    _check_invariant(np.where(_brute_apart(p, x, 0.05), 0.0, 1.0), list(df["group"]))
    _runs(list(df["group"]), range(len(df)))
    return df


def test_rank_table_group_and_top_group_are_one_answer():
    rng = np.random.default_rng(12)
    n = 400
    base = rng.beta(1, 1, size=n)
    u = np.stack([base, base, 0.97 * base, 0.8 * base, 0.5 * base])
    ds = from_arrays(rng.binomial(6, u), np.full((5, n), 6), models=list("abcde"))
    df = _check_rank_table(ds)
    assert df["model"].iloc[0] in ("a", "b") and "a" in df["group"].iloc[0]


def test_mbpp_plus_top_group_is_letter_a_and_contiguous(shared_data):
    """Eval-Arena mbpp+ (K = 1): before, letter a went to 12 models and in_top_group to 14,
    not contiguous in accuracy (starcoder2-15b-oci 0.6376 in, starchat2-15b 0.6481 out)."""
    import bayesnoise as bn

    ds = bn.load(shared_data / "eval-arena" / "mbpp+.jsonl", progress=False)
    df = _check_rank_table(ds)
    assert df["in_top_group"].sum() >= 2


def test_top_group_holds_the_best_and_separation_controls_fwer():
    """Simulated paired 0/1 results (a shared question difficulty, M = 6, N = 150): the truly
    best models (two tied) stay in the top group, and no pair is shown apart in the wrong
    direction or where the models are equal, in >= 95% of data sets. The p-values are the
    independent oracle's (scipy paired t, statsmodels Holm); the separation is checked against
    the brute force above. R = 1500: the Monte Carlo SE of a rate near 0.05 is 0.0056, and
    the bound allows 2 of them."""
    rng = np.random.default_rng(15)
    m, n, reps, alpha = 6, 150, 1500, 0.05
    true = np.array([0.62, 0.62, 0.6, 0.58, 0.58, 0.5])
    z = rng.normal(size=(reps, 1, n))  # question difficulty shared by the models
    logit = np.log(true / (1 - true))[:, None] + z + rng.normal(0, 0.8, (reps, m, n))
    y = (rng.uniform(size=(reps, m, n)) < 1 / (1 + np.exp(-logit))).astype(float)
    pvalues = _holm_t(y)
    miss_best = wrong = 0
    for p, x in zip(pvalues, y.mean(axis=2), strict=True):
        apart = ordered_separation(p, x, alpha=alpha)
        miss_best += not top_group(p, x, alpha=alpha)[:2].all()
        shown = apart & (x[:, None] > x[None, :])  # row shown better than column
        wrong += bool(np.any(shown & (true[:, None] <= true[None, :])))
    mcse = np.sqrt(alpha * (1 - alpha) / reps)
    assert miss_best / reps <= alpha + 2 * mcse
    assert wrong / reps <= alpha + 2 * mcse


def test_a_display_too_large_to_read_is_refused():
    rng = np.random.default_rng(13)
    m = 40  # a random half of the pairs significant: no ranking, the letters explode
    p = rng.uniform(0, 0.1, size=(m, m))
    p = np.triu(p, 1) + np.triu(p, 1).T
    with pytest.raises(ValueError, match="more than 20 letters"):
        compact_letters(p, max_letters=20)
