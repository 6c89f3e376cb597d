"""The one-pass all-pairs kernel (Gram matrix and per-model sums per block of questions, float32
for 0/1 blocks, closed forms for blocks with one K per model) against a straightforward per-pair
loop over the cells, on data that spans several blocks and mixes the block kinds."""

import functools
import warnings

import numpy as np
import pytest
from scipy import stats

from bayesnoise.data import from_arrays
from bayesnoise.frequentist import _core, pair_noise, pair_noise_dataset
from bayesnoise.frequentist.chunked import BLOCK, gram_row_sums, row_sums
from bayesnoise.frequentist.columns import question_sign_counts

EPS = np.finfo(float).eps
N = 3 * BLOCK + 17  # four blocks, the last one short


def _cells(kind, seed, m=7, n=N):
    """(correct, count, sum_sq) of M x N cells; ``sum_sq=None`` for 0/1 samples."""
    rng = np.random.default_rng(seed)
    u = np.clip(rng.beta(0.8, 0.8, (1, n)) + rng.normal(0, 0.2, (m, n)), 0, 1)
    if kind == "k1":  # 0/1 scores, one sample: every block binary, closed-form sums
        return (rng.random((m, n)) < u).astype(float), np.ones((m, n), int), None
    if kind == "mixed":  # block 0: K = 1 (binary, closed form); later blocks: K varies (tiled)
        k = rng.integers(2, 7, (m, n))
        k[:, :BLOCK] = 1
        return rng.binomial(k, u).astype(float), k, None
    if kind == "one_fraction":  # 0/1 scores except one cell: that block multiplies in float64
        c, k = (rng.random((m, n)) < u).astype(float), np.full((m, n), 2)
        c *= 2
        c[3, BLOCK + 5] = 1.0
        return c, k, None
    # fractional scores with their sum of squares (w given), one K per model and block
    k = np.repeat(rng.integers(2, 5, (m, 1)), n, axis=1)
    draws = rng.random((m, n, 4)) * (rng.random((m, n, 4)) < u[..., None])
    used = np.arange(4) < k[..., None]
    return (draws * used).sum(-1), k, (draws**2 * used).sum(-1)


def _oracle(correct, count, sum_sq):
    """Per-pair loop on the cells: the paper's paired estimators with numpy's var/cov."""
    p = correct / count
    w = (correct if sum_sq is None else sum_sq) / count - p * p
    b = np.mean(w / (count - 1.0), axis=1) if count.min() > 1 else np.full(len(p), np.nan)
    m = len(p)
    out = {key: np.zeros((m, m)) for key in ("var_mean", "total", "data", "prediction")}
    out["wins"], out["above"], out["correlation"] = (np.zeros((m, m)) for _ in range(3))
    for a in range(m):
        for c in range(m):
            d = p[a] - p[c]
            cov = np.cov(p[a], p[c], ddof=0)[0, 1]
            out["var_mean"][a, c] = np.var(d) if a != c else 0.0
            tot = np.var(p[a]) + np.var(p[c]) + np.mean(w[a]) + np.mean(w[c])
            out["total"][a, c] = tot - 2 * cov if a != c else 2 * np.mean(w[a])
            out["data"][a, c] = out["var_mean"][a, c] - b[a] - b[c]
            out["prediction"][a, c] = np.mean(w[a]) + np.mean(w[c]) + b[a] + b[c]
            out["wins"][a, c] = np.sum(p[a] * (1 - p[c]))
            out["above"][a, c] = np.sum(d > 1e-12)
            out["correlation"][a, c] = np.corrcoef(p[a], p[c])[0, 1]
    return p, out


@pytest.mark.parametrize("kind", ["k1", "mixed", "one_fraction", "fractional"])
def test_all_pairs_equal_the_per_pair_loop(kind):
    correct, count, sum_sq = _cells(kind, seed=len(kind))
    p, ref = _oracle(correct, count, sum_sq)
    ds = from_arrays(correct, count, sum_sq=sum_sq)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # K = 1: the split is not identifiable (tested elsewhere)
        mat = pair_noise_dataset(ds, progress=False)
    # Counts are exact: 0/1 products are summed in float32 per block of 4096 (whole numbers
    # < 2^24) and in float64 across blocks; sign counts of K-averaged scores are integers.
    np.testing.assert_array_equal(mat["questions_a_above"].values, ref["above"])
    if kind == "k1":
        np.testing.assert_array_equal(mat["wins_a"].values, ref["wins"])
    # Variances: float64 sums of N terms in [0, 1] (pairwise within a block, sequential across
    # the 4 blocks) and float64 BLAS dot products of <= 4096 terms have a worst-case error of
    # about 4096 eps = 9e-13 of the sums (each <= 1 per question); the loop's own error is
    # smaller. So every variance agrees to 1e-12 of the largest one.
    scale = np.nanmax(np.abs(ref["total"]))
    for key in ("var_mean", "total", "data", "prediction", "wins"):
        want = ref[key] if key != "wins" else ref[key] / N  # wins: compare per question
        got = mat["wins_a"].values / N if key == "wins" else mat[key].values
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * scale, err_msg=key)
    # correlation = cov / (sd_a sd_b): the same error divided by the smallest variance
    var_min = np.min(np.var(p, axis=1))
    np.testing.assert_allclose(
        mat["correlation"].values, ref["correlation"], atol=1e-12 * scale / var_min
    )
    # the sign test p-values are scipy's binomtest on these counts (a few pairs). binomtest
    # sums pmf terms from log-gamma values of size ~ n log n, so each carries a relative error
    # of about eps n log n (1e-11 at n = 5000); allow 10 times that.
    above = ref["above"]
    for a, c in [(0, 1), (2, 5), (6, 3)]:
        k, n = int(above[a, c]), int(above[a, c] + above[c, a])
        want = stats.binomtest(k, n, 0.5).pvalue if n else 1.0
        rel = 10 * EPS * max(n, 2) * np.log(max(n, 2))
        assert float(mat["p_value_sign_questions"][a, c]) == pytest.approx(want, rel=rel)


@pytest.mark.parametrize("kind", ["k1", "mixed", "one_fraction", "fractional"])
def test_gram_row_sums_equal_the_unblocked_sums(kind):
    # 40 models: more than one group of models per tile (2^17 cells / 4096 questions = 32)
    correct, count, sum_sq = _cells(kind, seed=10 + len(kind), m=40)
    p = correct / count
    w = None if sum_sq is None else np.maximum(sum_sq / count - p * p, 0.0)
    gram, sums, binary = gram_row_sums(p, w, count)
    assert binary == (kind == "k1")
    full = row_sums(p, w, count)  # one unblocked pass: the definition
    for key in ("n", "sk", "kmin", "kmax"):  # integers: exact
        np.testing.assert_array_equal(sums[key], full[key], err_msg=key)
    # float sums of N terms <= 1 (or <= 1 / (K - 1)): blocked vs unblocked summation order
    # differ by at most ~ (log2 N + N / 4096) eps of the sum, far below 1e-13 relative
    for key in ("s1", "s2", "sw", "sinvk", "sb", "scale"):
        np.testing.assert_allclose(sums[key], full[key], rtol=1e-13, atol=1e-13, err_msg=key)
    if kind == "k1":  # float32 products of 0/1 blocks are exact
        np.testing.assert_array_equal(gram, p @ p.T)
    else:  # float64 dot products of <= 4096 terms: worst case 4096 eps relative (9e-13)
        np.testing.assert_allclose(gram, p @ p.T, rtol=1e-12)
    bad = count.copy()
    bad[2, -1] = 0
    with pytest.raises(ValueError, match="complete data"):
        gram_row_sums(p, w, bad)


def test_model_components_on_tiles_equal_the_direct_formulas():
    rng = np.random.default_rng(8)
    k = rng.integers(0, 5, (40, N))  # missing cells (K = 0) and mixed K, 40 models
    p = np.where(k > 0, rng.binomial(np.maximum(k, 1), 0.4) / np.maximum(k, 1), np.nan)
    comps = _core.model_components(p, None, k)
    for m in (0, 33, 39):
        x, kk = p[m, k[m] > 0], k[m, k[m] > 0]
        # sums of N terms in [0, 1] in blocks: error ~ (log2 4096 + N / 4096) eps, far below
        assert comps["var_mean"][m] == pytest.approx(x.var(), rel=1e-12)
        assert comps["mean_w"][m] == pytest.approx(np.mean(x * (1 - x)), rel=1e-12)
        assert comps["harmonic_k"][m] == pytest.approx(x.size / np.sum(1 / kk), rel=1e-12)


def test_binary_sign_counts_come_from_the_gram():
    correct, count, _ = _cells("k1", seed=3, m=6)
    comps = _core.pair_components(correct, None, count, progress=False)
    loop = np.array([[np.sum(a > b) for b in correct] for a in correct], dtype=float)
    np.testing.assert_array_equal(comps["above"], loop)
    # question_sign_counts (two levels: one symmetric product per block) gives the same counts
    np.testing.assert_array_equal(question_sign_counts(correct), loop)
    # not 0/1: no shortcut, the counts are left to question_sign_counts
    assert _core.pair_components(correct / 2, None, count * 2, progress=False)["above"] is None


def test_sign_test_symmetric_path_equals_elementwise():
    rng = np.random.default_rng(4)
    wins = rng.integers(0, 40, (9, 9)).astype(float)
    np.fill_diagonal(wins, 0)
    fast = _core.sign_test_pvalue(wins, wins.T)
    for a in range(9):
        for b in range(9):
            n = int(wins[a, b] + wins[b, a])
            want = stats.binomtest(int(wins[a, b]), n, 0.5).pvalue if n else 1.0
            assert fast[a, b] == pytest.approx(want, rel=1e-12)
    # one model: no pair, nothing to test (the key de-duplication handles empty input)
    assert _core.sign_test_pvalue(np.zeros((1, 1)), np.zeros((1, 1))).tolist() == [[1.0]]


def test_cell_means_of_one_sample_is_the_scores_without_a_copy():
    correct = np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    p = _core.cell_means(correct, np.ones((2, 3), int))
    assert np.shares_memory(p, correct) and not p.flags.writeable
    np.testing.assert_array_equal(p, correct)
    np.testing.assert_array_equal(_core.cell_means(correct, np.full((2, 3), 2)), correct / 2)


def test_progress_goes_to_stderr_and_is_silent_when_off(capsys, monkeypatch):
    import bayesnoise.frequentist.noise as noise_module
    from bayesnoise._progress import Progress

    # show every step at once (the default waits a second, longer than this small run)
    monkeypatch.setattr(noise_module, "Progress", functools.partial(Progress, delay=0.0))
    ds = from_arrays(*_cells("one_fraction", seed=5, m=4)[:2])  # K = 2: no warning
    pair_noise(ds, progress=True)
    shown = capsys.readouterr()
    assert shown.out == ""
    assert "bayesnoise pairs: Gram matrix and sums 0/4" in shown.err
    assert "bayesnoise pairs: p-values" in shown.err and "bayesnoise pairs: done" in shown.err
    pair_noise(ds, progress=False)
    assert capsys.readouterr().err == ""
