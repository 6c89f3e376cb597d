"""numpy core of the frequentist estimators. Knows nothing of xarray.

Arrays are (M, N): M models, N questions. ``p`` is the mean score per cell, ``w`` the within-cell
variance of the samples (ddof=0), ``k`` the number of samples; cells a model did not answer are
NaN in ``p`` and ``w`` and 0 in ``k``. ``w=None`` stands for 0/1 scores, where w = p (1 - p) and
the estimators need only row sums of it (no per-cell array). All variances use ddof=0.
"""

from __future__ import annotations

import numpy as np
from scipy import special


def cell_means(correct, count) -> np.ndarray:
    """Per-cell mean score ``p = correct / count`` (NaN where ``count == 0``); lazy for Dask."""
    if _lazy(correct, count):
        return correct / np.where(count > 0, count, np.nan)
    count = np.asarray(count)
    if np.all(count > 0):
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


def _lazy(*arrays) -> bool:
    """True when an input is a chunked (Dask) array: the sums are then computed blockwise."""
    return any(type(x).__module__.startswith("dask") for x in arrays if x is not None)


def row_sums(p, w, k) -> dict:
    """Per-model sums over the answered questions: all that :func:`model_components` needs.

    Works on numpy arrays and, lazily, on Dask arrays (one blockwise pass; nothing (M, N) is
    gathered). Keys: ``n`` (answered), ``s1`` (sum p), ``s2`` (sum p^2), ``sw`` (sum w),
    ``sk`` (sum K), ``sinvk`` (sum 1/K), ``sb`` (sum w / (K - 1), NaN-free: cells with K < 2
    count 0), ``kmin``, ``kmax`` and ``scale`` (max |p|).

    Examples
    --------
    >>> import numpy as np
    >>> sums = row_sums(np.array([[1.0, 0.5]]), None, np.array([[2, 2]]))
    >>> float(sums["s2"][0]), float(sums["sw"][0])
    (1.25, 0.25)
    """
    answered = k > 0
    pz = np.where(answered, p, 0.0)
    wz = pz * (1.0 - pz) if w is None else np.where(answered, w, 0.0)
    kf = np.where(answered, k, 1).astype(float)
    big = np.iinfo(np.int64).max
    return {
        "n": answered.sum(axis=-1),
        "s1": pz.sum(axis=-1),
        "s2": (pz * pz).sum(axis=-1),
        "sw": wz.sum(axis=-1),
        "sk": np.where(answered, k, 0).sum(axis=-1),
        "sinvk": np.where(answered, 1.0 / kf, 0.0).sum(axis=-1),
        "sb": np.where(kf >= 2, wz / np.maximum(kf - 1.0, 1.0), 0.0).sum(axis=-1),
        "kmin": np.where(answered, k, big).min(axis=-1),
        "kmax": k.max(axis=-1),
        "scale": np.abs(pz).max(axis=-1),
    }


def _merge(a: dict, b: dict) -> dict:
    """Combine :func:`row_sums` of two blocks of questions."""
    out = {key: a[key] + b[key] for key in a}
    out["kmin"] = np.minimum(a["kmin"], b["kmin"])
    for key in ("kmax", "scale"):
        out[key] = np.maximum(a[key], b[key])
    return out


def blocked_row_sums(p, w, k, block: int | None = None) -> dict:
    """:func:`row_sums` of numpy arrays, block by block of questions (bounded temporaries)."""
    step = block or _BLOCK * 4
    out = None
    for j0 in range(0, p.shape[-1], step):
        sl = slice(j0, j0 + step)
        part = row_sums(p[:, sl], None if w is None else w[:, sl], k[:, sl])
        out = part if out is None else _merge(out, part)
    return out


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
            sums = blocked_row_sums(p, w, k)
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


def pair_components(p, w, k, *, correction: bool = True, progress: bool = True) -> dict:
    """All-pairs paired components from one M x M Gram matrix of the per-question means.

    ``p, w, k`` must be complete (every model answered every question). Returns M x M arrays
    ``difference`` (row minus column), ``total``, ``data``, ``prediction``, ``var_mean``
    (var_i(p_A - p_B)), ``correlation``, ``wins`` (expected wins sum_i p_a (1 - p_b)), and the
    (M,) per-model dict under ``"model"``. Cost: one symmetric (M, N) x (N, M) product
    in blocks of questions (blockwise for Dask arrays); ``progress`` shows the blocks on
    standard error once the product has run for a second.
    """
    p, k = np.atleast_2d(p), np.atleast_2d(k)
    if bool(np.any(k <= 0)):
        raise ValueError(
            "pair_components needs complete data (every model answered every question)"
        )
    n = p.shape[-1]
    w = None if w is None else np.atleast_2d(w)
    if _lazy(p, w, k):
        from bayesnoise.frequentist.chunked import compute

        gram, sums = compute((p @ p.T, row_sums(p, w, k)))
    else:
        from bayesnoise._progress import Progress

        bar = Progress("bayesnoise pairs", enabled=progress)
        sums = blocked_row_sums(p, w, k)
        gram = _gram(p, progress=bar)
        bar.close()
    sums["s2"] = np.diag(gram).copy()  # the same sums of squares as the Gram diagonal
    single = model_components(None, None, None, correction=correction, sums=sums)
    acc = single["accuracy"]
    cov = gram / n - np.outer(acc, acc)
    var = single["var_mean"]
    np.fill_diagonal(cov, var)
    var_mean = np.maximum(var[:, None] + var[None, :] - 2.0 * cov, 0.0)
    np.fill_diagonal(var_mean, 0.0)
    total_single = single["total"]
    total = total_single[:, None] + total_single[None, :] - 2.0 * cov
    mean_w = single["mean_w"]
    b = single["b"]
    data = var_mean - (b[:, None] + b[None, :])
    prediction = mean_w[:, None] + mean_w[None, :] + b[:, None] + b[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(var)
        correlation = cov / (sd[:, None] * sd[None, :])
    wins = n * acc[:, None] - gram
    return {
        "difference": acc[:, None] - acc[None, :],
        "total": total,
        "data": data,
        "prediction": prediction,
        "var_mean": var_mean,
        "correlation": correlation,
        "wins": wins,
        "n": n,
        "model": single,
    }


_BLOCK = 4096  # questions per block of the Gram matrix


def _gram(p: np.ndarray, progress=None) -> np.ndarray:
    """p @ p.T in blocks of questions (BLAS syrk per block, one triangle).

    0/1 scores are multiplied in float32: every partial sum is a whole number below 2^24, so
    the result is exact and takes half the memory and time; other scores stay float64.
    """
    p = np.asarray(p)
    n_models, n = p.shape
    binary = n <= 2**24 and bool(np.all((p == 0) | (p == 1)))
    dtype = np.float32 if binary else np.float64
    if n <= _BLOCK and not binary:
        p = np.ascontiguousarray(p, dtype=np.float64)
        return p @ p.T
    gram = np.zeros((n_models, n_models))
    for j, j0 in enumerate(range(0, n, _BLOCK)):
        if progress is not None:
            progress.step("Gram matrix", j, -(-n // _BLOCK))
        blk = np.ascontiguousarray(p[:, j0 : j0 + _BLOCK], dtype=dtype)
        gram += blk @ blk.T
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
    snapped = np.where(
        np.abs(x - np.round(x)) <= 1e-11 * np.maximum(1.0, np.abs(x)), np.round(x), x
    )
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
    k = _whole(wa)
    n = _whole(wa + wb)
    if wa.ndim == 2 and wa.shape[0] == wa.shape[1] and np.array_equal(wb, wa.T):
        # An all-pairs win matrix: where the counts of (a, b) and (b, a) add up to their total
        # (always for 0/1 scores) the test is symmetric; compute the upper triangle only.
        iu = np.triu_indices(wa.shape[0], k=1)
        if np.array_equal(k[iu] + k.T[iu], n[iu]):
            out = np.ones_like(wa)
            out[iu] = out.T[iu] = _binom_two_sided(k[iu], n[iu])
            return out
    return _binom_two_sided(k, n)


def _binom_two_sided(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """2 P(X <= min(k, n - k)) for X ~ Binomial(n, 1/2), capped at 1 (whole-number inputs)."""
    low = np.minimum(k, n - k).astype(np.int64)
    n = np.asarray(n).astype(np.int64)
    # Many pairs share (low, n): evaluate the binomial cdf once per distinct pair.
    n_max = int(n.max(initial=0)) + 1
    key = low * n_max + n
    uniq = np.unique(key)
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


def bootstrap_means(p, *, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Paired bootstrap draws of the M models' mean scores, shape (M, n_boot).

    Each replicate draws multinomial question weights once and takes every model's mean as one
    matrix product (weights @ p.T / N), so all models see the same resampled questions; the
    replicates are made in blocks of about 2^21 weights to bound memory.

    Examples
    --------
    >>> p = np.array([[1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]])
    >>> draws = bootstrap_means(p, n_boot=500, rng=np.random.default_rng(0))
    >>> draws.shape, bool(np.all(draws[0] >= draws[1]))
    ((2, 500), True)
    """
    p = np.atleast_2d(np.asarray(p, dtype=float))
    n = p.shape[-1]
    out = np.empty((p.shape[0], n_boot))
    chunk = max(1, 2**21 // max(n, 1))
    for start in range(0, n_boot, chunk):
        rows = min(chunk, n_boot - start)
        weights = rng.multinomial(n, np.full(n, 1.0 / n), size=rows).astype(float)
        out[:, start : start + rows] = (weights @ p.T).T / n
    return out


def bootstrap_cov(p, *, n_boot: int = 1000, rng: np.random.Generator) -> np.ndarray:
    """Covariance (M x M) of the models' mean scores under resampling questions with replacement
    (paired: :func:`bootstrap_means`). The bootstrap SE of a difference is
    sqrt(C_aa + C_bb - 2 C_ab)."""
    p = np.atleast_2d(p)
    means = bootstrap_means(p, n_boot=n_boot, rng=rng)
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
