"""Interval and question-level p-value columns of the per-model and per-pair tables.

The intervals come from the variance components. The p-values here test the comparison the user
made, the K-averaged per-question differences d_i = p_a,i - p_b,i: an exact sign test on the
signs of d_i and a sign-flip permutation test on their sum, for all pairs at once.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from bayesnoise.frequentist import _core, _score
from bayesnoise.frequentist.chunked import BLOCK
from bayesnoise.frequentist.intervals import (
    accuracy_interval,
    difference_interval,
    here_accuracy_interval,
    here_difference_interval,
)


def model_intervals(comps: dict, *, confidence_level: float, method: str = "wilson") -> dict:
    """Per-model intervals from the variance components of ``_core.model_components``.

    Parameters
    ----------
    comps : dict
        Needs ``accuracy``, ``questions``, ``var_mean``, ``mean_k``, ``var_here`` and
        ``harmonic_k`` ((M,) arrays; variances per question).
    confidence_level : float
    method : {"wilson", "wald"}

    Returns
    -------
    dict of numpy.ndarray
        ``accuracy_low``, ``accuracy_high`` (population: :func:`accuracy_interval`) and
        ``accuracy_here_low``, ``accuracy_here_high`` (these questions: :func:`here_accuracy_interval`).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.frequentist import _core
    >>> comps = _core.model_components(np.array([[0.0, 0.5, 1.0, 1.0]]), None, np.full((1, 4), 2))
    >>> out = model_intervals(comps, confidence_level=0.95)
    >>> bool(out["accuracy_low"][0] < out["accuracy_here_low"][0] < 0.625 < out["accuracy_here_high"][0])
    True
    """
    acc, n = comps["accuracy"], comps["questions"]
    kw = {"confidence_level": confidence_level, "method": method}
    low, high = accuracy_interval(
        acc, comps["var_mean"], n, samples_per_question=comps["mean_k"], **kw
    )
    here_low, here_high = here_accuracy_interval(
        acc, comps["var_here"], n, comps["harmonic_k"], **kw
    )
    return {
        "accuracy_low": low,
        "accuracy_high": high,
        "accuracy_here_low": here_low,
        "accuracy_here_high": here_high,
    }


def pair_intervals(mat: xr.Dataset, ia, ib, *, confidence_level: float, method: str = "tango"):
    """Intervals for the pairs ``(ia[j], ib[j])`` (difference a - b) of a pair dataset.

    Parameters
    ----------
    mat : xarray.Dataset
        From :func:`pair_noise_dataset`.
    ia, ib : array_like of int
        Model indices of each pair.
    confidence_level : float
    method : {"tango", "t", "union", "newcombe", "wald"}
        Population method (:func:`difference_interval`); the these-questions interval is
        Newcombe's combination with correlation 0 (:func:`here_difference_interval`), or Wald
        when ``method="wald"``.

    Returns
    -------
    dict of numpy.ndarray
        ``difference_low``, ``difference_high`` (population) and ``difference_here_low``, ``difference_here_high``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> ds = from_arrays(rng.binomial(4, 0.5, (2, 60)), np.full((2, 60), 4), models=["a", "b"])
    >>> from bayesnoise.frequentist import pair_noise_dataset
    >>> out = pair_intervals(pair_noise_dataset(ds), [0], [1], confidence_level=0.95)
    >>> bool(out["difference_low"][0] < out["difference_here_low"][0] < out["difference_here_high"][0])
    True
    """
    n = mat.attrs["questions"]
    acc, var = mat["accuracy"].values, mat["var_mean_model"].values
    here, hk = mat["var_here_model"].values, mat["harmonic_k_model"].values
    k = mat["samples_per_question_model"].values
    level = {"confidence_level": confidence_level}
    low, high = difference_interval(
        acc[ia],
        acc[ib],
        var[ia],
        var[ib],
        mat["var_mean"].values[ia, ib],
        n,
        samples_per_question=np.minimum(k[ia], k[ib]),
        method=method,
        **level,
    )
    method_here = "wald" if method == "wald" else "newcombe"
    here_low, here_high = here_difference_interval(
        acc[ia], acc[ib], here[ia], here[ib], n, hk[ia], hk[ib], method=method_here, **level
    )
    return {
        "difference_low": low,
        "difference_high": high,
        "difference_here_low": here_low,
        "difference_here_high": here_high,
    }


def question_sign_counts(p) -> np.ndarray:
    """M x M counts of questions on which model a's averaged score beats model b's.

    Entry (a, b) is #{i : p_a,i - p_b,i > tol}, tol = 1e-12 times the largest |p| (so that equal
    averages reached by different float sums count as ties). Ties are in neither (a, b) nor (b, a).

    Parameters
    ----------
    p : array_like, shape (M, N)
        Per-question mean scores (complete: no NaN).

    Returns
    -------
    numpy.ndarray, shape (M, M)
        Whole-number counts (float), zero diagonal.

    Examples
    --------
    >>> question_sign_counts(np.array([[1.0, 0.5, 0.2], [0.0, 0.5, 0.4]])).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    p = np.atleast_2d(np.asarray(p, dtype=float))
    m, n = p.shape
    tol = 1e-12 * max(float(p.max(initial=0.0)), -float(p.min(initial=0.0)))
    # Scores reached by averaging K samples take few distinct values: snap values within tol of
    # each other to one level, then count[a, b] = sum_v (p_a == v) . (p_b < v), one matrix
    # product per level and block of questions (float32 is exact: every partial sum is a whole
    # number <= the block size < 2^24). With two levels (0/1 scores) this is
    # sum_i h_a - (h h^T)_ab, h = (p == high level): one symmetric product.
    levels = np.unique(p)
    levels = levels[np.r_[True, np.diff(levels) > tol]]
    if levels.size > _MAX_LEVELS:
        return _sign_counts_pairwise(p, tol)
    out = np.zeros((m, m))
    for start in range(0, n, BLOCK):
        code = np.searchsorted(levels, p[:, start : start + BLOCK] + tol, side="right") - 1
        if levels.size == 2:
            high = (code == 1).astype(np.float32)
            out += high.sum(axis=-1, dtype=np.float64)[:, None] - high @ high.T
            continue
        for v in range(1, levels.size):
            equal = (code == v).astype(np.float32)
            below = (code < v).astype(np.float32)
            out += equal @ below.T
    np.fill_diagonal(out, 0.0)
    return out


def _sign_counts_pairwise(p, tol) -> np.ndarray:
    """:func:`question_sign_counts` of continuous scores: one (M - a - 1, N) comparison per row."""
    m = p.shape[0]
    out = np.zeros((m, m))
    for a in range(m - 1):
        d = p[a] - p[a + 1 :]
        out[a, a + 1 :] = (d > tol).sum(axis=-1)
        out[a + 1 :, a] = (d < -tol).sum(axis=-1)
    return out


_MAX_LEVELS = 64  # above this many distinct scores, compare pairwise


def sign_flip_pvalues(p, *, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """All-pairs sign-flip permutation p-values for the sum of the paired differences.

    Under the null that each d_i = p_a,i - p_b,i is symmetric about 0, flipping signs leaves
    the distribution of T = sum_i d_i unchanged. The same ``n_resamples`` random sign vectors
    s serve every pair: T* = s . p_a - s . p_b, so all models' flipped sums are one matrix product.
    Two-sided p = (1 + #{|T*| >= |T|}) / (1 + B), a valid p-value for any B; its Monte Carlo
    standard error is about sqrt(p (1 - p) / B).

    Parameters
    ----------
    p : array_like, shape (M, N)
        Per-question mean scores (complete: no NaN).
    n_resamples : int
        Number B of random sign vectors (>= 1).
    rng : numpy.random.Generator
        Source of the sign vectors (results depend on it only).

    Returns
    -------
    numpy.ndarray, shape (M, M)
        Symmetric p-values, 1 on the diagonal.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> p = np.stack([np.ones(12), np.zeros(12)])
    >>> bool(sign_flip_pvalues(p, n_resamples=999, rng=rng)[0, 1] < 0.01)  # exact: 2 / 2**12
    True
    """
    if n_resamples < 1:
        raise ValueError(f"n_permutations must be >= 1, got {n_resamples}")
    p = np.atleast_2d(np.asarray(p, dtype=float))
    m, n = p.shape
    chunk = max(1, 2**21 // max(n, 1))  # sign vectors drawn in blocks of <= 16 MB
    flipped = np.empty((n_resamples, m))
    for start in range(0, n_resamples, chunk):
        rows = min(chunk, n_resamples - start)
        signs = 2.0 * rng.integers(0, 2, size=(rows, n)) - 1.0
        flipped[start : start + rows] = signs @ p.T
    observed = p.sum(axis=-1)
    # |T*| >= |T| up to the rounding of sums of N terms (T lives on a grid far coarser than this)
    tol = 1e-10 * n * max(1.0, float(np.max(np.abs(p), initial=0.0)))
    out = np.ones((m, m))
    for a in range(m - 1):
        t_star = np.abs(flipped[:, [a]] - flipped[:, a + 1 :])
        t_obs = np.abs(observed[a] - observed[a + 1 :])
        hits = (t_star >= t_obs - tol).sum(axis=0)
        out[a, a + 1 :] = out[a + 1 :, a] = (1.0 + hits) / (1.0 + n_resamples)
    return out


def pair_pvalues(
    p, z, wins, *, n_resamples: int = 0, rng=None, above=None
) -> dict[str, np.ndarray]:
    """All-pairs p-value matrices of a pair table.

    Parameters
    ----------
    p : numpy.ndarray, shape (M, N)
        Per-question mean scores (complete).
    z : numpy.ndarray, shape (M, M)
        difference / se_difference (NaN where that variance is zero up to rounding).
    wins : numpy.ndarray, shape (M, M)
        Expected one-sample win counts sum_i p_a,i (1 - p_b,i).
    n_resamples : int, default 0
        Add ``p_value_permutation`` (:func:`sign_flip_pvalues`) when > 0, drawing from ``rng``.
    rng : numpy.random.Generator, optional
    above : numpy.ndarray, shape (M, M), optional
        :func:`question_sign_counts` of ``p`` when already known (for 0/1 scores they are the
        win counts, from the Gram matrix); computed from ``p`` otherwise.

    Returns
    -------
    dict of numpy.ndarray
        ``p_value`` (paired t test: z sqrt((N - 1) / N) referred to Student t with N - 1
        degrees of freedom, :func:`paired_t_pvalue`), ``questions_a_above``
        (:func:`question_sign_counts`), ``p_value_sign_questions`` (exact sign test on them, ties
        dropped), ``p_value_sign_one_sample`` and ``p_value_mcnemar_one_sample`` (Eval-Arena's tests on the
        expected win counts), and ``p_value_permutation``.

    Examples
    --------
    >>> p = np.array([[1.0, 1.0, 1.0, 0.5], [0.0, 0.0, 0.5, 0.5]])
    >>> out = pair_pvalues(p, np.array([[np.nan, 3.0], [-3.0, np.nan]]), p.sum(1) - p @ p.T)
    >>> float(out["p_value_sign_questions"][0, 1])  # three questions won, one tie: 2 / 2**3
    0.25
    """
    above = question_sign_counts(p) if above is None else above
    iu = np.triu_indices(wins.shape[0], k=1)
    mcnemar = np.ones_like(wins)
    mcnemar[iu] = mcnemar.T[iu] = _core.mcnemar_pvalue(wins[iu], wins.T[iu])  # symmetric
    sign = _core.sign_test_pvalue(above, above.T)
    same = np.array_equal(above, wins)  # 0/1 scores: one test serves both columns
    p_value = np.full_like(z, np.nan)  # symmetric in (a, b): the upper triangle, mirrored
    p_value[iu] = _score.paired_t_pvalue(z[iu], p.shape[-1])
    out = {
        "p_value": np.fmin(p_value, p_value.T),
        "questions_a_above": above,
        "p_value_sign_questions": sign,
        "p_value_sign_one_sample": sign.copy() if same else _core.sign_test_pvalue(wins, wins.T),
        "p_value_mcnemar_one_sample": mcnemar,
    }
    if n_resamples > 0:
        out["p_value_permutation"] = sign_flip_pvalues(p, n_resamples=n_resamples, rng=rng)
    return out
