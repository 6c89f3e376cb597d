"""Arranging library results for drawing: filtering, sorting, binning, reshaping. No statistics.

Every number these functions return was computed by an estimator; they only pick rows, order
them, group them or lay a tidy pair table out as a matrix.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesnoise.data import MODEL, QUESTION, scores

__all__ = [
    "heatmap_matrix",
    "pair_matrix",
    "pooled_counts",
]


def heatmap_matrix(ds, accuracy) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-question scores, questions sorted easiest first and models by accuracy.

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.load`.
    accuracy : array_like, shape (M,)
        Each model's accuracy in the dataset's model order (e.g. ``model_noise(ds)["accuracy"]``).

    Returns
    -------
    matrix : numpy.ndarray, shape (N, M)
        ``scores(ds)`` (correct / count; NaN where a model has no result), rows = questions
        from the highest mean score over models to the lowest, columns = models from the
        lowest accuracy to the highest. Ties keep the dataset's order (stable sort).
    question_order, model_order : numpy.ndarray
        The index permutations applied.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> ds = from_arrays(np.array([[0, 2], [1, 2]]), np.full((2, 2), 2), models=["a", "b"])
    >>> m, q, o = heatmap_matrix(ds, [0.5, 0.75])
    >>> m.tolist(), q.tolist(), o.tolist()
    ([[1.0, 1.0], [0.0, 0.5]], [1, 0], [0, 1])
    """
    p = scores(ds).transpose(MODEL, QUESTION).values
    model_order = np.argsort(np.asarray(accuracy, float), kind="stable")
    with np.errstate(invalid="ignore"):
        ease = np.nanmean(p, axis=0) if p.size else np.zeros(p.shape[1])
    question_order = np.argsort(-np.nan_to_num(ease, nan=-1.0), kind="stable")
    return p[np.ix_(model_order, question_order)].T, question_order, model_order


def pooled_counts(correct, count, groups) -> tuple[np.ndarray, np.ndarray]:
    """Correct and sample counts per question summed over the models of each group.

    Examples
    --------
    >>> import numpy as np
    >>> c, k = pooled_counts(np.array([[1, 0], [2, 1]]), np.full((2, 2), 2), [np.array([0, 1])])
    >>> c.tolist(), k.tolist()
    ([[3, 1]], [[4, 4]])
    """
    c, k = np.asarray(correct), np.asarray(count)
    return (
        np.array([c[g].sum(axis=0) for g in groups]),
        np.array([k[g].sum(axis=0) for g in groups]),
    )


def pair_matrix(pairs: pd.DataFrame, column: str, order=None) -> tuple[np.ndarray, list[str]]:
    """Lay one column of a tidy pair table out as an M x M matrix.

    Entry ``[a, b]`` is the row (a, b)'s value; the mirror entry ``[b, a]`` gets the same value
    for symmetric columns and the negated value for antisymmetric ones (``difference``, ``z``)
    or one minus it for probabilities of "a better" (``prob_a_better*``). The diagonal is NaN.

    Parameters
    ----------
    pairs : pandas.DataFrame
        With ``model_a``, ``model_b`` and ``column``.
    column : str
    order : sequence of str, optional
        Model order of rows and columns (default: first appearance).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"model_a": ["x"], "model_b": ["y"], "z": [2.0]})
    >>> pair_matrix(t, "z")[0].tolist()
    [[nan, 2.0], [-2.0, nan]]
    """
    names = (
        list(order)
        if order is not None
        else list(dict.fromkeys([*pairs["model_a"], *pairs["model_b"]]))
    )
    pos = {name: i for i, name in enumerate(names)}
    mat = np.full((len(names), len(names)), np.nan)
    ia = pairs["model_a"].map(pos).to_numpy()
    ib = pairs["model_b"].map(pos).to_numpy()
    values = pairs[column].to_numpy(dtype=float)
    if column in ("difference", "z") or column.endswith("difference"):
        mirror = -values
    elif column.startswith("prob_a_better"):
        mirror = 1.0 - values
    else:
        mirror = values
    mat[ia, ib] = values
    mat[ib, ia] = mirror
    return mat, names
