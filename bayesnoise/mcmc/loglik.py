"""Beta-Binomial log-likelihoods as PyTensor graphs: exact, and cheap for small counts.

The Beta-Binomial log-likelihood of ``c`` correct out of ``K`` is, up to the binomial
coefficient (a constant of the data),
``[lgamma(c + a) - lgamma(a)] + [lgamma(K - c + b) - lgamma(b)] - [lgamma(K + a + b) - lgamma(a + b)]``.
Each bracket is a log rising factorial ``log (x)_n = sum_{j < n} log(x + j)``. For the small
counts of LLM evals (K up to a few dozen) a product of ``n`` factors and one log per 8 of them is
exact and several times cheaper than ``lgamma`` with its digamma gradient (5x per gradient of
the joint model at 50 x 500, K = 10), and it fuses into one elementwise loop; larger counts use
``lgamma``. PyTensor is imported inside the functions.
"""

from __future__ import annotations

import numpy as np

__all__ = ["betabinom_loglik", "joint_betabinom_loglik", "log_rising_sum"]

#: Counts up to this are evaluated as products of ``(x + j)``; larger ones with ``lgamma``.
PRODUCT_MAX = 32
# Factors multiplied before taking a log: (x + j) < 1e38 keeps 8 of them below float64's max.
_BLOCK = 8


def log_rising_sum(x, n: np.ndarray):
    """``sum(log Gamma(x + n) - log Gamma(x))`` over all elements, exactly.

    Parameters
    ----------
    x : pytensor tensor
        Positive values, of ``n``'s shape.
    n : numpy.ndarray of int
        Whole numbers >= 0 (data); 0 contributes nothing.

    Returns
    -------
    pytensor scalar

    Examples
    --------
    >>> import numpy as np, pytensor.tensor as pt
    >>> from scipy.special import gammaln
    >>> n = np.array([0, 3, 40])
    >>> got = log_rising_sum(pt.as_tensor(np.array([0.5, 2.0, 1.5])), n).eval()
    >>> want = (gammaln(np.array([0.5, 5.0, 41.5])) - gammaln([0.5, 2.0, 1.5])).sum()
    >>> bool(np.isclose(got, want, rtol=1e-12))
    True
    """
    import pytensor.tensor as pt

    n = np.asarray(n, dtype=np.int64)
    x = pt.as_tensor(x)
    if x.ndim != n.ndim:
        raise ValueError(f"x must have the shape of n, {n.shape}; got a {x.ndim}-D tensor")
    small = np.where(n <= PRODUCT_MAX, n, 0)
    total = pt.as_tensor(0.0)
    n_small = int(small.max()) if small.size else 0
    n_const = pt.as_tensor(small)
    for start in range(0, n_small, _BLOCK):
        prod = None
        for j in range(start, min(start + _BLOCK, n_small)):
            factor = pt.switch(pt.gt(n_const, j), x + j, 1.0)
            prod = factor if prod is None else prod * factor
        total = total + pt.log(prod).sum()
    large = np.flatnonzero(n > PRODUCT_MAX)
    if large.size:
        xl = x.ravel()[large]
        total = total + (pt.gammaln(xl + n.ravel()[large]) - pt.gammaln(xl)).sum()
    return total


def betabinom_loglik(c, k, a, b):
    """Elementwise Beta-Binomial log-likelihood without the binomial coefficient (``lgamma`` form).

    Parameters
    ----------
    c, k : array_like of int
        Correct and samples per cell.
    a, b : pytensor tensor or array_like
        Beta parameters, broadcast against ``c``.

    Returns
    -------
    pytensor tensor
        One value per cell (0 where ``k == 0``).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import betabinom
    >>> from scipy.special import comb
    >>> got = betabinom_loglik(np.array([2]), np.array([5]), 1.5, 2.5).eval()
    >>> bool(np.isclose(got[0] + np.log(comb(5, 2)), betabinom.logpmf(2, 5, 1.5, 2.5)))
    True
    """
    from pytensor.tensor import gammaln

    return (
        gammaln(c + a)
        + gammaln(k - c + b)
        - gammaln(k + a + b)
        - gammaln(a)
        - gammaln(b)
        + gammaln(a + b)
    )


def joint_betabinom_loglik(p, phi, correct: np.ndarray, count: np.ndarray):
    """Summed log-likelihood of ``correct ~ BetaBinomial(count, p phi, (1 - p) phi)``.

    Over all cells (unanswered cells, ``count == 0``, contribute exactly 0), without binomial
    coefficients. ``p`` has shape ``(M, N)`` and ``phi`` shape ``(M,)``: since ``a + b = phi``
    depends on the model only, the normalising term is evaluated once per distinct
    ``(model, count)`` and weighted by its number of cells.

    Parameters
    ----------
    p : pytensor tensor, shape (M, N)
        Mean accuracy of each cell, in (0, 1).
    phi : pytensor tensor, shape (M,)
        Concentration of each model.
    correct, count : numpy.ndarray of int, shape (M, N)
        The data.

    Returns
    -------
    pytensor scalar

    Examples
    --------
    >>> import numpy as np, pytensor.tensor as pt
    >>> from scipy.stats import betabinom
    >>> from scipy.special import comb
    >>> c, k = np.array([[0, 3, 0]]), np.array([[4, 4, 0]])
    >>> p, phi = np.array([[0.2, 0.6, 0.5]]), np.array([3.0])
    >>> got = joint_betabinom_loglik(pt.as_tensor(p), pt.as_tensor(phi), c, k).eval()
    >>> want = (betabinom.logpmf(c, k, p * 3, (1 - p) * 3) - np.log(comb(k, c))).sum()
    >>> bool(np.isclose(got, want, rtol=1e-12))
    True
    """
    import pytensor.tensor as pt

    correct = np.asarray(correct, dtype=np.int64)
    count = np.asarray(count, dtype=np.int64)
    phi_col = phi[:, None]
    a = p * phi_col
    b = phi_col - a
    # Cells with small K: both rising factorials as ONE product of K factors, (a + j) for
    # j < c and (b + j - c) for c <= j < K, which halves the work of two separate products.
    small = count <= PRODUCT_MAX
    c_s = np.where(small, correct, 0)
    k_s = np.where(small, count, 0)
    c_t, k_t = pt.as_tensor(c_s), pt.as_tensor(k_s)
    b_shift = b - c_s.astype(float)
    total = pt.as_tensor(0.0)
    k_max = int(k_s.max()) if k_s.size else 0
    for start in range(0, k_max, _BLOCK):
        prod = None
        for j in range(start, min(start + _BLOCK, k_max)):
            factor = pt.switch(pt.gt(c_t, j), a + j, pt.switch(pt.gt(k_t, j), b_shift + j, 1.0))
            prod = factor if prod is None else prod * factor
        total = total + pt.log(prod).sum()
    large = np.flatnonzero(~small)
    if large.size:
        c_l, k_l = correct.ravel()[large], count.ravel()[large]
        total = total + log_rising_sum(a.ravel()[large], c_l)
        total = total + log_rising_sum(b.ravel()[large], k_l - c_l)
    values = np.unique(count[count > 0])
    if values.size:
        # weight[m, v] = number of cells of model m with count values[v]
        rows, cols = np.nonzero(count > 0)
        weight = np.zeros((count.shape[0], values.size))
        np.add.at(weight, (rows, np.searchsorted(values, count[rows, cols])), 1.0)
        norm = pt.gammaln(phi_col + values[None, :]) - pt.gammaln(phi_col)
        total = total - (weight * norm).sum()
    return total
