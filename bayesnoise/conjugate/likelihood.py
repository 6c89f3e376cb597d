"""The Beta-Binomial marginal likelihood of (mu, kappa) on the table of distinct (c, K) cells."""

from __future__ import annotations

import numpy as np
from scipy import special

from .beta import posterior_parameters
from .rising import count_terms, terms_loglik

__all__ = ["conditional_loglik", "group_cells", "marginal_loglik", "model_cells"]


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


def marginal_loglik(eta, lam, cu, ku, w, prior=(0.0, 0.0), *, derivatives=True):
    """Penalised Beta-Binomial marginal log likelihood, gradient and Hessian in (eta, lam).

    ``eta = logit mu``, ``lam = log kappa``; the penalty is the Beta(a0, b0) prior on mu,
    ``a0 log mu + b0 log(1 - mu)``.

    Parameters
    ----------
    eta, lam : numpy.ndarray, shape (M,)
    cu, ku : numpy.ndarray, shape (U,)
        Distinct cells (:func:`group_cells`).
    w : numpy.ndarray, shape (M, U)
        Cell weights per model.
    prior : (a0, b0), default (0, 0)
    derivatives : bool, default True

    Returns
    -------
    ll, g_eta, g_lam, h_ee, h_el, h_ll : numpy.ndarray, shape (M,)
        Only ``ll`` when ``derivatives=False``.

    Examples
    --------
    >>> import numpy as np
    >>> ll = marginal_loglik(np.zeros(1), np.zeros(1), np.array([1.0]), np.array([1.0]),
    ...                      np.ones((1, 1)), derivatives=False)
    >>> round(float(ll[0]), 6)  # log P(c = 1 | K = 1, mu = 0.5) = log 0.5
    -0.693147
    """
    m = special.expit(eta)[:, None]
    kap = np.exp(lam)[:, None]
    a = m * kap
    b = (1.0 - m) * kap
    ap, bp = posterior_parameters(m, kap, cu, ku)
    n = w.sum(axis=1)
    a1, b1 = a[:, 0], b[:, 0]
    ll = (w * special.betaln(ap, bp)).sum(axis=1) - n * special.betaln(a1, b1)
    a0, b0 = prior
    ll = ll + a0 * np.log(m[:, 0]) + b0 * np.log1p(-m[:, 0])
    if not derivatives:
        return ll

    def wsum(x):
        return (w * x).sum(axis=1)

    psi_t = special.digamma(ku + a + b)
    psi_ab = special.digamma(a1 + b1)
    g_a = wsum(special.digamma(ap) - psi_t) - n * (special.digamma(a1) - psi_ab)
    g_b = wsum(special.digamma(bp) - psi_t) - n * (special.digamma(b1) - psi_ab)
    tri_t = special.polygamma(1, ku + a + b)
    tri_ab = special.polygamma(1, a1 + b1)
    h_aa = wsum(special.polygamma(1, ap) - tri_t) - n * (special.polygamma(1, a1) - tri_ab)
    h_bb = wsum(special.polygamma(1, bp) - tri_t) - n * (special.polygamma(1, b1) - tri_ab)
    h_ab = -wsum(tri_t) + n * tri_ab
    m, a, b = m[:, 0], a1, b1
    s = m * (1.0 - m)
    ks = kap[:, 0] * s
    g_eta = ks * (g_a - g_b) + a0 * (1.0 - m) - b0 * m
    g_lam = a * g_a + b * g_b
    h_ee = ks * ks * (h_aa - 2.0 * h_ab + h_bb) + ks * (1.0 - 2.0 * m) * (g_a - g_b)
    h_ee = h_ee - (a0 + b0) * s
    h_el = ks * (a * h_aa + (b - a) * h_ab - b * h_bb + g_a - g_b)
    h_ll = a * a * h_aa + 2.0 * a * b * h_ab + b * b * h_bb + a * g_a + b * g_b
    return ll, g_eta, g_lam, h_ee, h_el, h_ll


def conditional_loglik(eta, lam, cu, ku, w, prior=(0.0, 0.0), *, derivatives=True):
    """:func:`marginal_loglik` and its first two derivatives in eta only (lam held fixed).

    For whole-number counts ``log B(a + c, b + K - c) - log B(a, b)`` is a sum of log rising
    factorials ``r(x, n) = sum_{j<n} log(x + j)``; each model's distinct counts are collected
    once (:func:`~bayesnoise.conjugate.rising.count_terms`): small counts are dense sums over
    ``j``, large ones the asymptotic series of log Gamma, digamma and trigamma, so the work per
    model grows with its distinct counts, not with the largest K.

    Parameters
    ----------
    eta, lam : numpy.ndarray, shape (M,)
    cu, ku : numpy.ndarray, shape (U,) or (M, U)
        Cells shared by all rows, or per row (:func:`model_cells`).
    w : numpy.ndarray, shape (M, U)
    prior : (a0, b0), default (0, 0)
    derivatives : bool, default True

    Returns
    -------
    ll, g_eta, h_ee : numpy.ndarray, shape (M,)
        Only ``ll`` when ``derivatives=False``.

    Examples
    --------
    >>> import numpy as np
    >>> args = (np.array([0.3]), np.array([0.5]), np.array([0.0, 2.0, 30.0]),
    ...         np.array([3.0, 3.0, 40.0]), np.array([[2.0, 5.0, 1.0]]))
    >>> ll, g, h = conditional_loglik(*args)
    >>> ref = marginal_loglik(*args)
    >>> bool(np.allclose([ll, g, h], [ref[0], ref[1], ref[3]], rtol=1e-12))
    True
    """
    terms = count_terms(cu, ku, w)
    return terms_loglik(eta, lam, terms, None, prior, derivatives=derivatives)
