"""pass@k: the chance that at least one of k samples is right, estimated without bias.

From n samples of a question with c correct, the unbiased estimator of pass@k (k <= n) is the
share of the k-subsets of the n samples that hold at least one correct sample (Chen et al. 2021)::

    pass@k_i = 1 - C(n - c, k) / C(n, k) = 1 - prod_{j=0}^{k-1} (n - c - j) / (n - j)

computed as the product (no large binomial coefficients). A model's pass@k is the mean over
questions; its standard error across questions, ``se_pass_at_k`` = sqrt(var_i(pass@k_i) / N),
carries the data noise and what is left of the prediction noise (at k = 1, where pass@1 is the
accuracy, it is the noise table's ``se_mean``). Pairs are paired on the same questions and
tested by the paired t test on the per-question estimates, as ``pairs`` tests the accuracies.
Column names say pass@k (``se_pass_at_k``, ``pass_at_k_difference``, ...) so that they are not
read as the accuracy columns of ``noise`` and ``pairs``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from bayesnoise._common import fmt_value, pair_table, triu_pairs
from bayesnoise.data import (
    MODEL,
    QUESTION,
    DataError,
    attr,
    beta_binomial_counts,
    check_counts,
    complete,
)
from bayesnoise.frequentist import _core, _score
from bayesnoise.frequentist.intervals import accuracy_interval, difference_interval

__all__ = [
    "pass_at_k",
    "passk_pairs",
    "passk_table",
]


def _check_k(k) -> int:
    if isinstance(k, bool) or int(k) != k or k < 1:
        raise ValueError(f"k must be a whole number >= 1, got {k!r}")
    return int(k)


def pass_at_k(correct, count, k, *, models=None, questions=None, source="counts") -> np.ndarray:
    """Unbiased pass@k per cell from ``correct`` out of ``count`` samples (numpy core).

    Parameters
    ----------
    correct, count : array_like, shape (..., N)
        Correct samples c and samples n per cell (whole numbers; ``count == 0``: no result;
        at least one question).
    k : int
        Samples per attempt, 1 <= k <= n for every answered cell.
    models, questions : sequence of str, optional
        Labels of the leading (model) axis and the last axis, for error messages.
    source : str
        Named in error messages.

    Returns
    -------
    numpy.ndarray
        ``1 - prod_{j<k} (n - c - j) / (n - j)`` per cell (1 when n - c < k), NaN where
        ``count == 0``. With k = 1 it is c / n.

    Raises
    ------
    DataError
        Counts that :func:`bayesnoise.data.check_counts` refuses, fractional ``correct``
        (pass@k needs 0/1 samples), or a cell with fewer than k samples (naming it).

    Examples
    --------
    3 correct out of 5: 1 - C(2, 2) / C(5, 2) = 0.9; none correct: 0.

    >>> pass_at_k([3, 0], [5, 5], 2).round(12).tolist()
    [0.9, 0.0]
    """
    k = _check_k(k)
    c, n = check_counts(correct, count, source=source)
    if np.any(c != np.round(c)):
        raise DataError(f"{source}: pass@k needs whole numbers correct out of n samples")
    short = (n > 0) & (n < k)
    if short.any():
        cell = tuple(int(i) for i in np.argwhere(short)[0])
        m = "" if models is None or c.ndim < 2 else f"model {fmt_value(models[cell[0]])}, "
        q = cell[-1] if questions is None else fmt_value(questions[cell[-1]])
        raise DataError(
            f"{source}: {m}question {q}: k = {k} but only {n[cell]} samples "
            f"({int(short.sum())} such cells); the unbiased pass@k needs k <= n samples per "
            f"question: choose k <= {int(n[n > 0].min())} or drop those questions"
        )
    answered = n > 0
    den = np.where(answered, n, k + 1).astype(float)
    wrong = n - c
    none_right = np.ones(c.shape)
    for j in range(k):
        none_right *= np.maximum(wrong - j, 0.0) / (den - j)
    return np.where(answered, 1.0 - none_right, np.nan)


def _passk_cells(ds: xr.Dataset, k: int) -> tuple[np.ndarray, np.ndarray]:
    correct, count = beta_binomial_counts(ds, needed_by="pass@k")
    values = pass_at_k(
        correct,
        count,
        k,
        models=ds[MODEL].values,
        questions=ds[QUESTION].values,
        source=attr(ds, "source"),
    )
    return values, count


PASSK_COLUMNS = ["model", "questions", "k", "pass_at_k", "se_pass_at_k"]


def passk_table(ds: xr.Dataset, k: int, *, confidence_level: float | None = None):
    """Per model: pass@k (mean of the unbiased per-question estimates) and its SE.

    Parameters
    ----------
    ds : xarray.Dataset
        0/1 samples with their counts (:func:`bayesnoise.load`); each model on the questions
        it answered.
    k : int
        Samples per attempt; every answered question needs at least k samples.
    confidence_level : float, optional
        Add ``pass_at_k_low``, ``pass_at_k_high``: the Wilson interval at the effective number
        of questions (:func:`accuracy_interval`; per-question values lie in [0, 1]).

    Returns
    -------
    pandas.DataFrame
        ``model, questions, k, pass_at_k, se_pass_at_k`` with ``se_pass_at_k =
        sqrt(var_i(pass@k_i) / N)`` (ddof 0). With k = 1, ``pass_at_k`` is the accuracy and
        ``se_pass_at_k`` the noise table's ``se_mean``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> ds = from_arrays(np.array([[0, 1, 5, 2]]), np.full((1, 4), 5), models=["a"])
    >>> passk_table(ds, 2)[["model", "k", "pass_at_k"]]
      model  k  pass_at_k
    0     a  2      0.525
    """
    k = _check_k(k)
    values, count = _passk_cells(ds, k)
    comps = _core.model_components(values, np.zeros(values.shape), count)
    n = comps["questions"]
    df = pd.DataFrame(
        {
            "model": ds[MODEL].values.astype(str),
            "questions": n,
            "k": k,
            "pass_at_k": comps["accuracy"],
            "se_pass_at_k": _core.se(comps["var_mean"], n),
        }
    )
    if confidence_level is not None:
        low, high = accuracy_interval(
            comps["accuracy"], comps["var_mean"], n, confidence_level=confidence_level
        )
        df["pass_at_k_low"], df["pass_at_k_high"] = low, high
    return df


PASSK_PAIR_COLUMNS = [
    "model_a",
    "model_b",
    "k",
    "pass_at_k_a",
    "pass_at_k_b",
    "pass_at_k_difference",
    "se_pass_at_k_difference",
    "t_pass_at_k",
    "p_value_pass_at_k",
]


def passk_pairs(
    ds: xr.Dataset, k: int, *, on_missing: str = "raise", confidence_level: float | None = None
):
    """All unordered pairs: the paired difference of pass@k on the same questions.

    Parameters
    ----------
    ds : xarray.Dataset
        At least two models.
    k : int
        Samples per attempt.
    on_missing : {"raise", "intersect"}
        What to do when models do not cover the same questions.
    confidence_level : float, optional
        Add ``pass_at_k_difference_low``, ``pass_at_k_difference_high`` (Tango-type score
        interval, :func:`difference_interval`).

    Returns
    -------
    pandas.DataFrame
        ``model_a, model_b, k, pass_at_k_a, pass_at_k_b, pass_at_k_difference,
        se_pass_at_k_difference, t_pass_at_k, p_value_pass_at_k``: the difference of the mean
        per-question estimates d_i = pass@k_ai - pass@k_bi, its SE ``sqrt(var_i(d_i) / N)``
        (ddof 0), the paired t statistic ``difference / sqrt(var_i(d_i) / (N - 1))`` and its
        two-sided p-value against Student t with N - 1 degrees of freedom: exactly
        ``scipy.stats.ttest_rel`` on the per-question estimates, and the same function as the
        ``p_value`` of ``pairs`` (:func:`bayesnoise.frequentist._score.paired_t_pvalue`), which
        it equals at k = 1. t and p are NaN where var_i(d_i) is zero up to rounding. All pairs
        come from one M x M Gram matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> ds = from_arrays(rng.binomial(4, 0.4, (3, 80)), np.full((3, 80), 4), models=list("abc"))
    >>> passk_pairs(ds, 2)[["model_a", "model_b"]].values.tolist()
    [['a', 'b'], ['a', 'c'], ['b', 'c']]
    """
    k = _check_k(k)
    if ds.sizes[MODEL] < 2:
        raise DataError(f"{attr(ds, 'source')}: pairs need at least two models")
    ds = complete(ds, on_missing=on_missing)
    values, count = _passk_cells(ds, k)
    comps = _core.pair_components(values, np.zeros(values.shape), count)
    n = comps["n"]
    se, z, _ = _score.pair_z(comps["difference"], comps["var_mean"], n, comps["model"]["scale"])
    acc = comps["model"]["accuracy"]
    df = pair_table(
        ds[MODEL].values,
        {
            "pass_at_k_difference": comps["difference"],
            "se_pass_at_k_difference": se,
            "t_pass_at_k": _score.paired_t_statistic(z, n),
            "p_value_pass_at_k": _score.paired_t_pvalue(z, n),  # as pairs' p_value
        },
        per_model={"pass_at_k": acc},
    )
    df.insert(2, "k", k)
    if confidence_level is not None:
        ia, ib = triu_pairs(acc.size)
        var = comps["model"]["var_mean"]
        low, high = difference_interval(
            acc[ia],
            acc[ib],
            var[ia],
            var[ib],
            comps["var_mean"][ia, ib],
            n,
            confidence_level=confidence_level,
        )
        df["pass_at_k_difference_low"], df["pass_at_k_difference_high"] = low, high
    return df
