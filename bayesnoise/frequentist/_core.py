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
    """Per-cell mean score ``p = correct / count`` (NaN where ``count == 0``)."""
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
    # E[A^2] - E[A]^2 per cell; clamp the float rounding (exactly 0 for 0/1 data in maths).
    w = p * p
    second = p if sum_sq is None else np.asarray(sum_sq, dtype=float) / np.asarray(count)
    np.subtract(second, w, out=w)
    np.maximum(w, 0.0, out=w)
    return p, w


def _row_mean(x: np.ndarray, complete: bool) -> np.ndarray:
    return x.mean(axis=-1) if complete else np.nanmean(x, axis=-1)


def correction_terms(w, k: np.ndarray, mean_w: np.ndarray | None = None, p=None) -> np.ndarray:
    """Small-K correction b = mean_i(w_i / (K_i - 1)) per model (NaN when any answered K_i < 2).

    E[w_i / (K_i - 1)] = Var_e(A_i) / K_i, the prediction noise left in the K-sample mean p_i, so
    var_i(p_i) - b estimates the data variance without the 1/(K-1) bias (paper eq. 22-23).
    With the row means ``mean_w`` given, models with one K for all questions take the shortcut
    b = mean_w / (K - 1). ``w=None`` (0/1 scores) needs ``p``.
    """
    answered = k > 0
    complete = bool(answered.all())
    k_min = (
        k.min(axis=-1) if complete else np.where(answered, k, np.iinfo(np.int64).max).min(axis=-1)
    )
    k_max = k.max(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        if mean_w is not None and np.all(k_min == k_max):
            b = mean_w / (k_max - 1.0)
        else:
            w = p * (1.0 - p) if w is None else w
            b = _row_mean(w / (k - 1.0), complete)  # NaN cells (k = 0) are skipped
    return np.where(k_min >= 2, b, np.nan)


def model_components(p, w, k, *, correction: bool = True, mean_sq=None) -> dict[str, np.ndarray]:
    """Per-model variance components over the questions each model answered.

    ``mean_sq`` (row means of p**2, complete data only) lets a caller that already has them
    (the all-pairs Gram diagonal) skip a pass: var_i(p_i) = mean_sq - accuracy**2.

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
    p, k = np.atleast_2d(p), np.atleast_2d(k)
    w = None if w is None else np.atleast_2d(w)
    answered = k > 0
    complete = bool(answered.all())
    n = answered.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = _row_mean(p, complete)
        if mean_sq is not None and complete:
            var_mean = np.maximum(mean_sq - accuracy * accuracy, 0.0)
            # for 0/1 scores mean_i p_i (1 - p_i) = mean_i p_i - mean_i p_i^2
            mean_w = np.maximum(accuracy - mean_sq, 0.0) if w is None else _row_mean(w, complete)
        else:
            centred = p - accuracy[:, None]
            var_mean = _row_mean(centred * centred, complete)
            mean_w = _row_mean(p * (1.0 - p) if w is None else w, complete)
        mean_k = np.where(answered, k, 0).sum(axis=-1) / np.where(n > 0, n, np.nan)
        harmonic_k = n / np.where(answered, 1.0 / np.where(answered, k, 1), 0.0).sum(axis=-1)
        scale = np.nanmax(np.abs(np.where(answered, p, np.nan)), axis=-1, initial=0.0)
    total = var_mean + mean_w
    splittable = np.where(answered, k, 2).min(axis=-1) >= 2
    var_here = correction_terms(w, k, mean_w, p)  # mean_i w_i / (K_i - 1); NaN if a K_i < 2
    b = var_here if correction else np.zeros_like(total)
    data = np.where(splittable, var_mean - b, np.nan)
    prediction = np.where(splittable, mean_w + b, np.nan)
    return {
        "questions": n,
        "accuracy": accuracy,
        "total": total,
        "data": data,
        "prediction": prediction,
        "var_mean": var_mean,
        "mean_w": mean_w,
        "b": b,
        "mean_k": mean_k,
        "harmonic_k": harmonic_k,
        "var_here": var_here,
        "scale": scale,
    }


def pair_components(p, w, k, *, correction: bool = True) -> dict[str, np.ndarray]:
    """All-pairs paired components from one M x M Gram matrix of the per-question means.

    ``p, w, k`` must be complete (every model answered every question). Returns M x M arrays
    ``difference`` (row minus column), ``total``, ``data``, ``prediction``, ``var_mean``
    (var_i(p_A - p_B)), ``correlation``, ``wins`` (expected wins sum_i p_a (1 - p_b)), and the
    (M,) per-model dict under ``"model"``. Cost: one symmetric (M, N) x (N, M) product.
    """
    p, k = np.atleast_2d(p), np.atleast_2d(k)
    if np.any(k <= 0):
        raise ValueError(
            "pair_components needs complete data (every model answered every question)"
        )
    n = p.shape[-1]
    gram = _gram(p)
    single = model_components(p, w, k, correction=correction, mean_sq=np.diag(gram) / n)
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


def _gram(p: np.ndarray) -> np.ndarray:
    """p @ p.T (numpy hands ``a @ a.T`` to BLAS syrk, which computes one triangle)."""
    p = np.ascontiguousarray(p, dtype=np.float64)
    return p @ p.T


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


def bootstrap_cov(p, *, n_boot: int = 1000, rng: np.random.Generator) -> np.ndarray:
    """Covariance (M x M) of the models' mean scores under resampling questions with replacement.

    All models are resampled on the same questions (paired). Vectorised: the resamples are a
    (n_boot, N) matrix of multinomial counts, and the resampled means are one matrix product.
    The bootstrap SE of a difference is sqrt(C_aa + C_bb - 2 C_ab).
    """
    p = np.atleast_2d(p)
    n = p.shape[-1]
    counts = rng.multinomial(n, np.full(n, 1.0 / n), size=n_boot).astype(float)
    means = counts @ p.T / n  # (n_boot, M)
    return np.cov(means, rowvar=False, ddof=1).reshape(p.shape[0], p.shape[0])


def se(var, n) -> np.ndarray:
    """Standard error sqrt(max(var, 0) / n); NaN stays NaN.

    A moment estimate of a variance component (the paired data variance after the small-K
    correction) can come out negative when the true component is near 0; its SE is then reported
    as 0, the usual truncation of variance-component estimators (and what the all-the-noises
    tables do). The signed variance itself is kept in the ``data`` columns.
    """
    var = np.asarray(var, dtype=float)
    return np.sqrt(np.maximum(var, 0.0) / n)
