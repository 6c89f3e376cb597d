"""Compact letter display (insert-absorb) and the ``group`` column of the rank table."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

from bayesnoise.data import from_arrays
from bayesnoise.decide import compact_letters, letters_from_pairs, rank_table
from bayesnoise.frequentist import pair_noise


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


def test_rank_table_group_follows_holm_pairs():
    rng = np.random.default_rng(12)
    n = 400
    base = rng.beta(1, 1, size=n)
    u = np.stack([base, base, 0.8 * base, 0.5 * base])
    ds = from_arrays(rng.binomial(6, u), np.full((4, n), 6), models=["a", "b", "c", "d"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = rank_table(ds, n_resamples=1000).set_index("model")
    pairs = pair_noise(ds, adjust="holm")
    for row in pairs.itertuples():
        shared = set(df.loc[row.model_a, "group"]) & set(df.loc[row.model_b, "group"])
        assert bool(shared) == (not row.p_value_adjusted < 0.05)
    assert "a" in df["group"].iloc[0]  # the best model has a


def test_a_display_too_large_to_read_is_refused():
    rng = np.random.default_rng(13)
    m = 40  # a random half of the pairs significant: no ranking, the letters explode
    p = rng.uniform(0, 0.1, size=(m, m))
    p = np.triu(p, 1) + np.triu(p, 1).T
    with pytest.raises(ValueError, match="more than 20 letters"):
        compact_letters(p, max_letters=20)
