"""The table of distinct (c, K) cells the Beta-Binomial likelihood of (mu, kappa) is summed over
(the likelihood itself: :mod:`bayesnoise.conjugate.rising`)."""

from __future__ import annotations

import numpy as np

__all__ = ["group_cells", "model_cells"]


def group_cells(c, k, mask):
    """Distinct ``(c, K)`` cells over all answered cells and how often each model has them.

    The marginal likelihood and the posterior moments only depend on these counts, so work
    grows with the number of distinct cells, not with N.

    Parameters
    ----------
    c, k : numpy.ndarray, shape (..., N)
        Validated counts.
    mask : numpy.ndarray of bool, shape (..., N)
        Cells to count.

    Returns
    -------
    cu, ku : numpy.ndarray, shape (U,)
        Distinct cells.
    weight : numpy.ndarray, shape (M, U)
        Per flattened model, how many questions have each cell.

    Examples
    --------
    >>> import numpy as np
    >>> cu, ku, w = group_cells(np.array([[1, 1, 0]]), np.array([[2, 2, 2]]), np.ones((1, 3), bool))
    >>> cu.tolist(), w.tolist()
    ([0, 1], [[1.0, 2.0]])
    """
    m_shape = c.shape[:-1]
    n_models = int(np.prod(m_shape)) if m_shape else 1
    cf = c.reshape(n_models, -1)
    kf = k.reshape(n_models, -1)
    mf = mask.reshape(n_models, -1)
    rows, _ = np.nonzero(mf)
    pairs = np.stack([cf[mf], kf[mf]], axis=1)
    uniq, inv = np.unique(pairs, axis=0, return_inverse=True)
    inv = inv.ravel()
    n_u = uniq.shape[0]
    w = np.bincount(rows * n_u + inv, minlength=n_models * n_u).reshape(n_models, n_u)
    return uniq[:, 0], uniq[:, 1], w.astype(float)


def model_cells(c, k, mask):
    """Distinct ``(c, K)`` cells of each model, padded to the same length (weight 0).

    Like :func:`group_cells`, but each model keeps only its own cells: with many samples per
    question the cells of different models hardly overlap, and the work then grows with the
    cells per model instead of all cells of all models.

    Parameters
    ----------
    c, k : numpy.ndarray, shape (M, N)
        Validated counts.
    mask : numpy.ndarray of bool, shape (M, N)
        Cells to count.

    Returns
    -------
    cu, ku, weight : numpy.ndarray, shape (M, U)
        Per model its distinct cells and how many questions have each (0 = padding, where
        ``cu = 0`` and ``ku = 1``).

    Examples
    --------
    >>> import numpy as np
    >>> c, k = np.array([[1, 1, 0], [2, 2, 2]]), np.array([[2, 2, 2], [2, 2, 2]])
    >>> cu, ku, w = model_cells(c, k, np.ones((2, 3), bool))
    >>> cu.tolist(), w.tolist()
    ([[0, 1], [2, 0]], [[1.0, 2.0], [3.0, 0.0]])
    """
    n_models = c.shape[0]
    rows, cols = np.nonzero(mask)
    cv, kv = c[rows, cols].astype(np.int64), k[rows, cols].astype(np.int64)
    base = int(kv.max(initial=0)) + 1
    key = (rows.astype(np.int64) * base + kv) * base + cv
    if n_models * base * base <= 4 * max(key.size, 1):
        counts = np.bincount(key, minlength=n_models * base * base)
        uniq = np.flatnonzero(counts)
        counts = counts[uniq]
    else:
        uniq, counts = np.unique(key, return_counts=True)
    row = uniq // (base * base)
    per_row = np.bincount(row, minlength=n_models)
    width = max(int(per_row.max(initial=0)), 1)
    slot = np.arange(uniq.size) - np.repeat(np.cumsum(per_row) - per_row, per_row)
    cu = np.zeros((n_models, width), dtype=np.int64)
    ku = np.ones((n_models, width), dtype=np.int64)
    w = np.zeros((n_models, width))
    cu[row, slot] = uniq % base
    ku[row, slot] = (uniq // base) % base
    w[row, slot] = counts
    return cu, ku, w
