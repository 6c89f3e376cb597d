"""Sums of log rising factorials: the Beta-Binomial likelihood in logit mu at fixed kappa.

For whole-number counts ``log B(a + c, b + K - c) - log B(a, b) = r(a, c) + r(b, K - c) -
r(a + b, K)`` with ``r(x, n) = log Gamma(x + n) - log Gamma(x) = sum_{i<n} log(x + i)``. Each
model's counts are collected once per term (x = a, b, a + b) as

- counts below a threshold ``t``: ``sum_j w_j r(x, n_j) = sum_{i<t} C_i log(x + i)`` with
  ``C_i`` the weight of the counts above ``i`` (likewise ``1/(x + i)`` and ``1/(x + i)^2`` for
  the derivatives): a dense sum of ``t`` entries, no special functions;
- counts from ``t`` on: the asymptotic series of log Gamma, digamma and trigamma at
  ``x + n >= t >= 16`` (truncation error below 1e-17 there), one evaluation per distinct count.

``t`` is chosen per term from the counts, so that the estimated work (dense entries plus
``_SERIES_COST`` times the series evaluations) is least: K = 1 to ~30 data are all dense sums,
K ~ 1000 with a few hundred distinct counts per model is almost all series.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
from scipy import special

__all__ = [
    "CountTerms",
    "count_terms",
    "terms_gradient",
    "terms_loglik",
]

SERIES_FROM = 16  # the series are used only at arguments of at least this
# one series evaluation (log Gamma, digamma, trigamma) costs about this many dense entries (a
# log, a reciprocal and three weighted sums); measured on blocks of 10^4-10^5 entries
_SERIES_COST = 3.5
_BLOCK = 100_000  # (row, count) entries per block of rows (0.8 MB per temporary): measured best
_LGAMMA_C = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360)
_PSI_C = (-1 / 12, 1 / 120, -1 / 252, 1 / 240, -1 / 132, 691 / 32760)
_TRIGAMMA_C = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)
_HALF_LOG_2PI = 0.5 * np.log(2.0 * np.pi)


class CountTerms(NamedTuple):
    """Per model and term (a, b, a + b) the counts of its rising factorials.

    Attributes
    ----------
    dense : tuple of numpy.ndarray, shape (M, t_k)
        Per term, ``C_i`` = weight of the counts ``i < n < t_k``.
    series_n, series_w : tuple of numpy.ndarray, shape (M, L_k)
        Per term, the distinct counts ``n >= t_k`` and their weights (padding: weight 0).
    series_from : tuple of int
        Per term, the threshold ``t_k``.
    """

    dense: tuple
    series_n: tuple
    series_w: tuple
    series_from: tuple


def _padded(row, n, wt, n_rows, pad):
    """Merge equal (row, n) entries, then one row of (n, weight) per row padded with (pad, 0)."""
    base = int(n.max(initial=0)) + 1
    key, inv = np.unique(row * base + n, return_inverse=True)
    wsum = np.bincount(inv.ravel(), weights=wt, minlength=key.size)
    r = key // base
    per_row = np.bincount(r, minlength=n_rows)
    width = int(per_row.max(initial=0))
    slot = np.arange(key.size) - np.repeat(np.cumsum(per_row) - per_row, per_row)
    out_n = np.full((n_rows, width), pad, dtype=float)
    out_w = np.zeros((n_rows, width))
    out_n[r, slot] = key % base
    out_w[r, slot] = wsum
    return out_n, out_w


def _threshold(n_sorted, n_models):
    """Threshold t >= SERIES_FROM with the least work per model: dense entries (the largest
    count below t) plus ``_SERIES_COST`` per distinct count from t on. Returns (t, width)."""
    if n_sorted.size == 0:
        return SERIES_FROM, 0
    cand = np.unique(np.maximum(np.r_[0, n_sorted] + 1, SERIES_FROM))
    below = np.searchsorted(n_sorted, cand, side="left")
    width = np.where(below > 0, n_sorted[np.maximum(below - 1, 0)], 0)
    cost = width + _SERIES_COST * (n_sorted.size - below) / n_models
    best = int(np.argmin(cost))
    return int(cand[best]), int(width[best])


def count_terms(cu, ku, w) -> CountTerms:
    """The rising-factorial counts of each model's cells (see :class:`CountTerms`).

    Parameters
    ----------
    cu, ku : numpy.ndarray, shape (U,) or (M, U)
        Cells (c, K) shared by all models or per model.
    w : numpy.ndarray, shape (M, U)
        How many questions of each model have each cell.

    Returns
    -------
    CountTerms

    Examples
    --------
    >>> import numpy as np
    >>> t = count_terms(np.array([[0, 1, 3]]), np.array([[3, 3, 3]]), np.array([[2.0, 1.0, 1.0]]))
    >>> [d[0].tolist() for d in t.dense]  # weight of the counts above 0, 1, 2
    [[2.0, 1.0, 1.0], [3.0, 3.0, 2.0], [4.0, 4.0, 4.0]]
    """
    n_models = w.shape[0]
    ci = np.broadcast_to(np.asarray(cu), w.shape).astype(np.int64)
    ki = np.broadcast_to(np.asarray(ku), w.shape).astype(np.int64)
    rows = np.broadcast_to(np.arange(n_models)[:, None], w.shape)
    dense, series_n, series_w, series_from = [], [], [], []
    for n in (ci, ki - ci, ki):
        use = (n > 0) & (w > 0)
        base = int(n.max(initial=0)) + 1
        t, width = _threshold(np.sort(np.unique(rows[use] * base + n[use]) % base), n_models)
        low = use & (n < t)
        # C_i = sum of w over the counts n > i, i < width
        hist = np.zeros((n_models, width + 1))
        np.add.at(hist, (rows[low], n[low]), w[low])
        dense.append(np.cumsum(hist[:, :0:-1], axis=1)[:, ::-1].copy())
        high = use & (n >= t)
        pn, pw = _padded(rows[high], n[high], w[high], n_models, float(t))
        series_n.append(pn)
        series_w.append(pw)
        series_from.append(t)
    return CountTerms(tuple(dense), tuple(series_n), tuple(series_w), tuple(series_from))


def _horner(r2, coef):
    out = np.full_like(r2, coef[-1])
    for c in coef[-2::-1]:
        out *= r2
        out += c
    return out


@functools.cache
def _coefficients(t):
    """The series terms that matter at arguments >= t: a term is dropped when it is below
    1e-18 of the function's size there (log Gamma > t, digamma > 1, trigamma > 1/t); the
    first dropped term bounds the truncation error of these series."""
    out = []
    for coef, first, scale in ((_LGAMMA_C, 1, t), (_PSI_C, 2, 1.0), (_TRIGAMMA_C, 3, 1 / t)):
        keep = [abs(c) * float(t) ** -(first + 2 * j) >= 1e-18 * scale for j, c in enumerate(coef)]
        out.append(coef[: max(1, sum(keep))])
    return tuple(out)


def _rising_series(x, n, wt, derivatives, t):
    """Sums over j of wt_j times r(x, n_j), its x-derivative and minus its second derivative,
    by the series at y = x + n >= t. Rows with x >= 16 take the difference of the two Stirling
    forms, ``(x - 1/2) log1p(n / x) + n (log y - 1) + S(y) - S(x)``, which does not lose the
    digits of log Gamma(x) ~ x log x; smaller x subtract scipy's log Gamma(x)."""
    c_lg, c_psi, c_tri = _coefficients(int(t))
    big = bool(x.min(initial=np.inf) >= SERIES_FROM)
    tot = wt.sum(axis=1)
    y = x[:, None] + n
    r = 1.0 / y
    r2 = r * r
    ly = np.log(y)
    acc = _horner(r2, c_lg)
    acc *= r
    if big:
        rx = 1.0 / x
        s_x = rx * _horner(rx * rx, _LGAMMA_C)
        acc += (x[:, None] - 0.5) * np.log1p(n * rx[:, None])
        acc += n * (ly - 1.0)
        s0 = np.einsum("ij,ij->i", wt, acc) - tot * s_x
    else:
        acc -= y
        acc += (y - 0.5) * ly
        s0 = np.einsum("ij,ij->i", wt, acc) + tot * (_HALF_LOG_2PI - special.gammaln(x))
    if not derivatives:
        return s0, 0.0, 0.0
    acc = _horner(r2, c_psi)
    acc *= r2
    acc += ly
    r *= 0.5
    acc -= r
    s1 = np.einsum("ij,ij->i", wt, acc) - tot * special.digamma(x)
    r *= 2.0
    acc = _horner(r2, c_tri)
    acc *= r
    acc += 0.5
    acc *= r2
    acc += r
    return s0, s1, tot * special.polygamma(1, x) - np.einsum("ij,ij->i", wt, acc)


def _series(x, n, wt, derivatives, t=SERIES_FROM):
    """:func:`_rising_series` on the rows with x >= 16 and on the others separately."""
    big = x >= SERIES_FROM
    if big.all() or not big.any():
        return _rising_series(x, n, wt, derivatives, t)
    out = [np.zeros(x.size) for _ in range(3)]
    for rows in (big, ~big):
        part = _rising_series(x[rows], n[rows], wt[rows], derivatives, t)
        for o, p in zip(out, part, strict=True):
            o[rows] = p
    return tuple(out) if derivatives else (out[0], 0.0, 0.0)


def _term(x, dense, n, wt, t, derivatives):
    """sum_j w_j r(x, n_j) and its first derivative and minus its second derivative in x."""
    s0, s1, s2 = np.zeros(x.size), 0.0, 0.0
    if dense.shape[1]:
        z = x[:, None] + np.arange(dense.shape[1])
        s0 = np.einsum("ij,ij->i", dense, np.log(z))
        if derivatives:
            inv = 1.0 / z
            s1 = np.einsum("ij,ij->i", dense, inv)
            s2 = np.einsum("ij,ij->i", dense, inv * inv)
    if n.shape[1]:
        l0, l1, l2 = _series(x, n, wt, derivatives, t)
        s0, s1, s2 = s0 + l0, s1 + l1, s2 + l2
    return s0, s1, s2


def _series_gradient(x, n, wt, t):
    """The x-derivative part (``s1``) of :func:`_rising_series` alone, by the same operations
    (the same numbers, to the last bit): the root finding of logit mu needs no log Gamma."""
    c_psi = _coefficients(int(t))[1]
    y = x[:, None] + n
    r = 1.0 / y
    acc = _horner(r * r, c_psi)
    acc *= r * r
    acc += np.log(y)
    r *= 0.5
    acc -= r
    return np.einsum("ij,ij->i", wt, acc) - wt.sum(axis=1) * special.digamma(x)


def _term_gradient(x, dense, n, wt, t):
    """The first derivative of :func:`_term` alone."""
    s1 = np.zeros(x.size)
    if dense.shape[1]:
        s1 = np.einsum("ij,ij->i", dense, 1.0 / (x[:, None] + np.arange(dense.shape[1])))
    if n.shape[1]:
        s1 = s1 + _series_gradient(x, n, wt, t)
    return s1


def terms_gradient(eta, lam, terms, rows=None, prior=(0.0, 0.0)):
    """``g_eta`` of :func:`terms_loglik` alone (the same numbers, about a third of the work).

    Parameters
    ----------
    eta, lam : numpy.ndarray, shape (R,)
    terms : CountTerms
    rows : numpy.ndarray of int, shape (R,), optional
    prior : (a0, b0), default (0, 0)

    Returns
    -------
    numpy.ndarray, shape (R,)

    Examples
    --------
    >>> import numpy as np
    >>> t = count_terms(np.array([[1, 40]]), np.array([[50, 50]]), np.ones((1, 2)))
    >>> eta, lam, rows = np.array([0.3, -1.0]), np.log([2.0, 5.0]), np.zeros(2, int)
    >>> g = terms_gradient(eta, lam, t, rows, (1.0, 1.0))
    >>> bool(np.array_equal(g, terms_loglik(eta, lam, t, rows, (1.0, 1.0))[1]))
    True
    """
    rows = np.arange(eta.size) if rows is None else np.asarray(rows)
    width = sum(
        d.shape[1] + n.shape[1] for d, n in zip(terms.dense[:2], terms.series_n[:2], strict=True)
    )
    step = max(1, _BLOCK // max(width, 1))
    if eta.size > step:
        return np.concatenate(
            [
                terms_gradient(
                    eta[i : i + step], lam[i : i + step], terms, rows[i : i + step], prior
                )
                for i in range(0, eta.size, step)
            ]
        )
    m = special.expit(eta)
    kap = np.exp(lam)
    a, b = m * kap, (1.0 - m) * kap
    d = [
        _term_gradient(
            x,
            terms.dense[j][rows],
            terms.series_n[j][rows],
            terms.series_w[j][rows],
            terms.series_from[j],
        )
        for j, x in enumerate((a, b))
    ]
    a0, b0 = prior
    s = m * (1.0 - m)
    return kap * s * (d[0] - d[1]) + a0 * (1.0 - m) - b0 * m


def terms_loglik(eta, lam, terms, rows=None, prior=(0.0, 0.0), *, derivatives=True):
    """Penalised Beta-Binomial log likelihood and its derivatives in eta = logit mu.

    Row ``i`` evaluates model ``rows[i]`` of ``terms`` at ``(eta[i], lam[i])``,
    ``lam = log kappa`` held fixed; the penalty is ``a0 log mu + b0 log(1 - mu)``.

    Parameters
    ----------
    eta, lam : numpy.ndarray, shape (R,)
    terms : CountTerms
    rows : numpy.ndarray of int, shape (R,), optional
        Default: row ``i`` is model ``i``.
    prior : (a0, b0), default (0, 0)
    derivatives : bool, default True

    Returns
    -------
    ll, g_eta, h_ee : numpy.ndarray, shape (R,)
        Only ``ll`` when ``derivatives=False``.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.special import comb
    >>> from scipy.stats import betabinom
    >>> t = count_terms(np.array([[1, 40]]), np.array([[50, 50]]), np.ones((1, 2)))
    >>> ll = terms_loglik(np.zeros(2), np.log([2.0, 5.0]), t, np.zeros(2, int), derivatives=False)
    >>> ref = [betabinom.logpmf([1, 40], 50, k / 2, k / 2).sum() for k in (2.0, 5.0)]
    >>> bool(np.allclose(ll, np.array(ref) - np.log(comb(50, [1, 40])).sum(), rtol=1e-13))
    True
    """
    rows = np.arange(eta.size) if rows is None else np.asarray(rows)
    width = sum(d.shape[1] + n.shape[1] for d, n in zip(terms.dense, terms.series_n, strict=True))
    step = max(1, _BLOCK // max(width, 1))
    if eta.size > step:
        parts = [
            terms_loglik(
                eta[i : i + step],
                lam[i : i + step],
                terms,
                rows[i : i + step],
                prior,
                derivatives=derivatives,
            )
            for i in range(0, eta.size, step)
        ]
        if not derivatives:
            return np.concatenate(parts)
        return tuple(np.concatenate(x) for x in zip(*parts, strict=True))
    m = special.expit(eta)
    kap = np.exp(lam)
    a, b = m * kap, (1.0 - m) * kap
    per = [
        _term(x, d[rows], n[rows], wt[rows], t, derivatives and j < 2)
        for j, (x, d, n, wt, t) in enumerate(zip((a, b, kap), *terms, strict=True))
    ]
    a0, b0 = prior
    ll = per[0][0] + per[1][0] - per[2][0] + a0 * np.log(m) + b0 * np.log1p(-m)
    if not derivatives:
        return ll
    # a + b = kappa does not move with eta: only the a and b terms enter the derivatives
    d1 = per[0][1] - per[1][1]
    d2 = per[0][2] + per[1][2]
    s = m * (1.0 - m)
    ks = kap * s
    g_eta = ks * d1 + a0 * (1.0 - m) - b0 * m
    h_ee = -ks * ks * d2 + ks * (1.0 - 2.0 * m) * d1
    return ll, g_eta, h_ee - (a0 + b0) * s
