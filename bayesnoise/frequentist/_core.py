"""numpy core of the frequentist estimators. Knows nothing of xarray.

Arrays are (M, N): M models, N questions. ``p`` is the mean score per cell, ``w`` the within-cell
variance of the samples (ddof=0), ``k`` the number of samples; cells a model did not answer are
NaN in ``p`` and ``w`` and 0 in ``k``. ``w=None`` stands for 0/1 scores, where w = p (1 - p) and
the estimators need only row sums of it (no per-cell array). All variances use ddof=0.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from bayesnoise.frequentist.chunked import BLOCK as _BLOCK
from bayesnoise.frequentist.chunked import block_gram, gram_row_sums, row_sums, tiled_row_sums
from bayesnoise.frequentist.chunked import lazy as _lazy


def cell_means(correct, count) -> np.ndarray:
    """Per-cell mean score ``p = correct / count`` (NaN where ``count == 0``); lazy for Dask."""
    if _lazy(correct, count):
        return correct / np.where(count > 0, count, np.nan)
    count = np.asarray(count)
    if count.size and count.min() > 0:
        if count.max() == 1:  # one sample per cell: the scores themselves (read-only, no copy)
            p = np.asarray(correct, dtype=float).view()
            p.flags.writeable = False
            return p
        return np.asarray(correct, dtype=float) / count
    k = count.astype(float)
    k[count <= 0] = np.nan
    return np.asarray(correct, dtype=float) / k


def cell_moments(correct, count, sum_sq=None) -> tuple[np.ndarray, np.ndarray]:
    """Per-cell mean ``p`` and within-cell variance ``w`` (NaN where ``count == 0``).

    ``sum_sq=None`` means 0/1 scores (sum of squares equals ``correct``), so w = p (1 - p).

    Examples
    --------
    >>> import numpy as np
    >>> p, w = cell_moments(np.array([[3.0]]), np.array([[4]]), np.array([[3.0]]))
    >>> float(p[0, 0]), float(w[0, 0])
    (0.75, 0.1875)
    """
    p = cell_means(correct, count)
    if _lazy(correct, count):
        return p, np.maximum(sum_sq / np.where(count > 0, count, np.nan) - p * p, 0.0)
    # E[A^2] - E[A]^2 per cell; clamp the float rounding (exactly 0 for 0/1 data in maths).
    w = p * p
    second = p if sum_sq is None else np.asarray(sum_sq, dtype=float) / np.asarray(count)
    np.subtract(second, w, out=w)
    np.maximum(w, 0.0, out=w)
    return p, w


def model_components(p, w, k, *, correction: bool = True, sums=None) -> dict[str, np.ndarray]:
    """Per-model variance components over the questions each model answered.

    ``sums`` (:func:`row_sums`, e.g. computed blockwise or sharing the all-pairs Gram
    diagonal) replaces ``p, w, k``.

    Returns a dict of (M,) arrays: ``questions`` (N_m), ``accuracy``, ``total``, ``data``,
    ``prediction``, ``var_mean`` (variance of the K-averaged per-question score, so that
    ``var_mean / N`` is the squared SE of the observed score), ``mean_w``, ``b`` (the small-K
    correction, 0 without correction), ``mean_k``, ``harmonic_k`` (N / sum_i 1 / K_i),
    ``var_here`` (mean_i w_i / (K_i - 1) whatever ``correction``: N times the unbiased variance
    of the accuracy around its expectation on these questions; NaN where a K_i < 2) and
    ``scale`` (largest |p_i|, for the zero-variance tolerance).
    ``data`` and ``prediction`` are NaN where any K_i < 2 (the split is not identifiable);
    ``total`` is always defined. ``data + prediction == total`` up to rounding.
    """
    if sums is None:
        p, k = np.atleast_2d(p), np.atleast_2d(k)
        w = None if w is None else np.atleast_2d(w)
        if _lazy(p, w, k):
            from bayesnoise.frequentist.chunked import compute

            sums = compute(row_sums(p, w, k))
        else:
            sums = tiled_row_sums(p, w, k)
    n = sums["n"]
    with np.errstate(invalid="ignore", divide="ignore"):
        nn = np.where(n > 0, n, np.nan)
        accuracy = sums["s1"] / nn
        # var_i(p_i) = mean p^2 - accuracy^2 (0 up to rounding when every p_i is equal)
        var_mean = np.maximum(sums["s2"] / nn - accuracy * accuracy, 0.0)
        mean_w = np.maximum(sums["sw"] / nn, 0.0)
        mean_k = sums["sk"] / nn
        harmonic_k = n / sums["sinvk"]
        kmin, kmax = sums["kmin"], sums["kmax"]
        # mean_i w_i / (K_i - 1): E = Var_e(A_i) / K_i, the prediction noise left in p_i
        var_here = np.where(kmin == kmax, mean_w / (kmax - 1.0), sums["sb"] / nn)
    splittable = kmin >= 2
    var_here = np.where(splittable, var_here, np.nan)
    total = var_mean + mean_w
    b = var_here if correction else np.zeros_like(total)
    return {
        "questions": n,
        "accuracy": accuracy,
        "total": total,
        "data": np.where(splittable, var_mean - b, np.nan),
        "prediction": np.where(splittable, mean_w + b, np.nan),
        "var_mean": var_mean,
        "mean_w": mean_w,
        "b": b,
        "mean_k": mean_k,
        "harmonic_k": harmonic_k,
        "var_here": var_here,
        "scale": np.asarray(sums["scale"], dtype=float),
    }


def pair_components(p, w, k, *, correction: bool = True, progress=True) -> dict:
    """All-pairs paired components from one M x M Gram matrix of the per-question means.

    ``p, w, k`` must be complete (every model answered every question). Returns M x M arrays
    ``difference`` (row minus column), ``total``, ``data``, ``prediction``, ``var_mean``
    (var_i(p_A - p_B)), ``correlation``, ``wins`` (expected wins sum_i p_a (1 - p_b)),
    ``above`` (for 0/1 scores the questions a got right and b wrong, which equals ``wins``
    exactly; None otherwise), and the (M,) per-model dict under ``"model"``. Cost: one
    symmetric (M, N) x (N, M) product and the per-model sums in one pass over blocks of
    questions (:func:`bayesnoise.frequentist.chunked.gram_row_sums`; blockwise by Dask for Dask
    arrays). ``progress`` (bool or a ``Progress`` display to report to) shows the blocks on
    standard error once the pass has run for a second.
    """
    from bayesnoise._progress import Progress

    p, k = np.atleast_2d(p), np.atleast_2d(k)
    n = p.shape[-1]
    w = None if w is None else np.atleast_2d(w)
    binary = False
    if _lazy(p, w, k):
        from bayesnoise.frequentist.chunked import compute

        if bool(np.any(k <= 0)):
            raise ValueError(
                "pair_components needs complete data (every model answered every question)"
            )
        gram, sums = compute((p @ p.T, row_sums(p, w, k)))
    else:
        own = not isinstance(progress, Progress)
        bar = Progress("bayesnoise pairs", enabled=progress) if own else progress
        gram, sums, binary = gram_row_sums(p, w, k, progress=bar)
        if own:
            bar.close()
    sums["s2"] = np.diag(gram).copy()  # the same sums of squares as the Gram diagonal
    single = model_components(None, None, None, correction=correction, sums=sums)
    acc = single["accuracy"]
    wins = sums["s1"][:, None] - gram  # sum_i p_a (1 - p_b); whole numbers for 0/1 scores
    cov = gram  # the Gram matrix is not needed any more: its buffer becomes the covariance
    cov /= n
    cov -= np.outer(acc, acc)
    var = single["var_mean"]
    np.fill_diagonal(cov, var)
    var_mean = _pair_sum(var, -2.0 * cov)
    np.maximum(var_mean, 0.0, out=var_mean)
    np.fill_diagonal(var_mean, 0.0)
    total = _pair_sum(single["total"], -2.0 * cov)
    b = single["b"]
    data = var_mean - _pair_sum(b)
    prediction = _pair_sum(single["mean_w"] + b)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(var)
        cov /= sd[:, None]
        cov /= sd[None, :]
    return {
        "difference": acc[:, None] - acc[None, :],
        "total": total,
        "data": data,
        "prediction": prediction,
        "var_mean": var_mean,
        "correlation": cov,
        "wins": wins,
        "above": wins.copy() if binary else None,
        "n": n,
        "model": single,
    }


def _pair_sum(x, extra=None) -> np.ndarray:
    """M x M matrix x_a + x_b (+ ``extra``, added in place)."""
    out = np.add.outer(x, x)
    if extra is not None:
        out += extra
    return out


def _gram(p: np.ndarray) -> np.ndarray:
    """p @ p.T in blocks of questions (BLAS syrk per block, one triangle).

    Blocks of 0/1 scores are multiplied in float32: every partial sum is a whole number <= 4096
    < 2^24, so the result is exact and takes half the memory and time; other blocks stay
    float64 (:func:`bayesnoise.frequentist.chunked.block_gram`).
    """
    p = np.atleast_2d(p)
    gram = np.zeros((p.shape[0], p.shape[0]))
    for j0 in range(0, p.shape[-1], _BLOCK):
        gram += block_gram(p[:, j0 : j0 + _BLOCK])[0]
    return gram


def expected_wins(p) -> np.ndarray:
    """M x M expected win counts: entry (a, b) is sum_i p_a,i (1 - p_b,i).

    For 0/1 scores this is the number of questions a got right and b got wrong.
    """
    p = np.atleast_2d(p)
    return p.sum(axis=-1)[:, None] - _gram(p)


def _whole(x: np.ndarray) -> np.ndarray:
    """Truncate non-negative counts, first snapping values within float rounding of a whole number
    to it, so that the result does not depend on summation order (question order)."""
    rounded = np.round(x)
    if np.array_equal(rounded, x):  # whole numbers already (0/1 scores): nothing to snap
        return rounded
    snapped = np.where(np.abs(x - rounded) <= 1e-11 * np.maximum(1.0, np.abs(x)), rounded, x)
    return np.trunc(snapped)


def sign_test_pvalue(wins_a, wins_b) -> np.ndarray:
    """Exact two-sided sign test on discordant counts, vectorised ``binomtest(k, n, 0.5)``.

    For 0/1 scores ``wins_a`` and ``wins_b`` are the questions only A, only B got right, and this
    is the textbook sign test. For fractional scores they are expected win counts
    sum_i p_A,i (1 - p_B,i); following Eval-Arena, ``k = trunc(wins_a)`` and
    ``n = trunc(wins_a + wins_b)`` (so p(A, B) and p(B, A) can differ by one truncation step);
    a count within float summation error (1e-11 relative) of a whole number counts as that number.
    No discordant question gives p = 1.

    Examples
    --------
    >>> round(float(sign_test_pvalue(10, 2)), 6)
    0.038574
    """
    wa = np.asarray(wins_a, dtype=float)
    wb = np.asarray(wins_b, dtype=float)
    if wa.ndim == 2 and wa.shape[0] == wa.shape[1] and np.array_equal(wb, wa.T):
        # An all-pairs win matrix: where the counts of (a, b) and (b, a) add up to their total
        # (always for 0/1 scores) the test is symmetric; compute the upper triangle only.
        iu = np.triu_indices(wa.shape[0], k=1)
        upper, lower = wa[iu], wb[iu]
        k_ab, n = _whole(upper), _whole(upper + lower)
        if np.array_equal(k_ab + _whole(lower), n):
            out = np.ones_like(wa)
            out[iu] = _binom_two_sided(k_ab, n)
            return np.minimum(out, out.T)  # the lower triangle mirrors the upper one
    return _binom_two_sided(_whole(wa), _whole(wa + wb))


def _binom_two_sided(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """2 P(X <= min(k, n - k)) for X ~ Binomial(n, 1/2), capped at 1 (whole-number inputs)."""
    low = np.minimum(k, n - k).astype(np.int64)
    n = np.asarray(n).astype(np.int64)
    # Many pairs share (low, n): evaluate the binomial cdf once per distinct pair.
    n_max = int(n.max(initial=0)) + 1
    key = low * n_max + n
    uniq = np.sort(key, axis=None)  # unique keys by sorting (np.unique hashes: far slower here)
    uniq = uniq[np.diff(uniq, prepend=uniq[:1] - 1) != 0]
    cdf = special.bdtr(uniq // n_max, uniq % n_max, 0.5)
    return np.minimum(1.0, 2.0 * cdf[np.searchsorted(uniq, key)])


def mcnemar_statistic(wins_a, wins_b, *, continuity: bool = True) -> np.ndarray:
    """McNemar chi-square statistic on discordant counts, with Edwards' continuity correction
    (0 when there is no discordant question).

    Examples
    --------
    >>> float(mcnemar_statistic(10, 2))
    4.083333333333333
    """
    wa = np.asarray(wins_a, dtype=float)
    wb = np.asarray(wins_b, dtype=float)
    n = wa + wb
    diff = np.abs(wa - wb)
    if continuity:
        diff = np.maximum(diff - 1.0, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, diff**2 / n, 0.0)


def mcnemar_pvalue(wins_a, wins_b, *, continuity: bool = True) -> np.ndarray:
    """McNemar chi-square test (1 df) on discordant counts, with Edwards' continuity correction.

    Examples
    --------
    >>> round(float(mcnemar_pvalue(10, 2)), 6)
    0.043308
    """
    chi2 = mcnemar_statistic(wins_a, wins_b, continuity=continuity)
    return special.erfc(np.sqrt(chi2 / 2.0))  # chi-square(1) survival function


def bootstrap_means(p, *, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Paired bootstrap draws of the M models' mean scores, shape (M, n_boot).

    Each replicate draws multinomial question weights once and takes every model's mean as one
    matrix product (weights @ p.T / N), so all models see the same resampled questions; the
    replicates are made in blocks of about 2^21 weights to bound memory.

    Examples
    --------
    >>> p = np.array([[1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]])
    >>> draws = bootstrap_means(p, n_resamples=500, rng=np.random.default_rng(0))
    >>> draws.shape, bool(np.all(draws[0] >= draws[1]))
    ((2, 500), True)
    """
    p = np.atleast_2d(np.asarray(p, dtype=float))
    n = p.shape[-1]
    out = np.empty((p.shape[0], n_resamples))
    chunk = max(1, 2**21 // max(n, 1))
    for start in range(0, n_resamples, chunk):
        rows = min(chunk, n_resamples - start)
        weights = rng.multinomial(n, np.full(n, 1.0 / n), size=rows).astype(float)
        out[:, start : start + rows] = (weights @ p.T).T / n
    return out


def bootstrap_cov(p, *, n_resamples: int = 1000, rng: np.random.Generator) -> np.ndarray:
    """Covariance (M x M) of the models' mean scores under resampling questions with replacement
    (paired: :func:`bootstrap_means`). The bootstrap SE of a difference is
    sqrt(C_aa + C_bb - 2 C_ab)."""
    p = np.atleast_2d(p)
    means = bootstrap_means(p, n_resamples=n_resamples, rng=rng)
    return np.cov(means, ddof=1).reshape(p.shape[0], p.shape[0])


def se(var, n) -> np.ndarray:
    """Standard error sqrt(max(var, 0) / n); NaN stays NaN.

    A moment estimate of a variance component (the paired data variance after the small-K
    correction) can come out negative when the true component is near 0; its SE is then reported
    as 0, the usual truncation of variance-component estimators (and what the all-the-noises
    tables do). The signed variance itself is kept in the ``data`` columns.
    """
    var = np.asarray(var, dtype=float)
    return np.sqrt(np.maximum(var, 0.0) / n)
