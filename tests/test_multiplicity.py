"""Adjusted p-values against statsmodels' multipletests (test oracle only)."""

import numpy as np
import pytest

from bayesnoise.decide import adjust_pvalues

multitest = pytest.importorskip("statsmodels.stats.multitest")


@pytest.mark.parametrize(
    ("ours", "theirs"), [("holm", "holm"), ("bh", "fdr_bh"), ("bonferroni", "bonferroni")]
)
@pytest.mark.parametrize("seed", range(5))
def test_matches_statsmodels(ours, theirs, seed):
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=40) ** 3
    p[:3] = p[3]  # ties
    expected = multitest.multipletests(p, method=theirs)[1]
    np.testing.assert_allclose(adjust_pvalues(p, ours), expected, rtol=0, atol=1e-12)


def test_nan_stays_nan_and_is_not_counted():
    p = np.array([0.01, np.nan, 0.02])
    out = adjust_pvalues(p, "holm")
    assert np.isnan(out[1])
    np.testing.assert_allclose(out[[0, 2]], [0.02, 0.02])


def test_bad_input():
    with pytest.raises(ValueError, match="method"):
        adjust_pvalues([0.1], "sidak")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        adjust_pvalues([1.5], "holm")
