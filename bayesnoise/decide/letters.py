"""Compact letter display: groups of models that the pairwise tests cannot tell apart.

Each model gets one or more letters so that two models share a letter exactly when their
difference is not significant. The letters come from Piepho's insert-absorb algorithm
(Piepho 2004, J. Comput. Graph. Stat. 13: 456-466): start with one letter for all models; for
each significant pair, split every letter holding both into one without the first and one
without the second, and drop letters whose models all sit in another letter (absorb). A final
sweep removes a model from a letter when every partner there shares another letter with it.
Letters are assigned best model first, so the best model has ``a``.
"""

from __future__ import annotations

import string

import numpy as np
import pandas as pd

__all__ = ["compact_letters", "letters_from_pairs"]

_ALPHABET = string.ascii_lowercase + string.ascii_uppercase


def _insert_absorb(columns: list[int], i: int, j: int) -> list[int]:
    """Split every column (a bitmask of models) holding both i and j into one without i and one
    without j, then drop the new columns that sit inside another column. An old column cannot
    sit inside a new one: it would have been inside the new one's parent, and so absorbed."""
    both = (1 << i) | (1 << j)
    keep = [c for c in columns if c & both != both]
    new = {c & ~(1 << k) for c in columns if c & both == both for k in (i, j)}
    others = keep + list(new)
    for c in sorted(new):
        if not any(o != c and c & ~o == 0 for o in others):
            keep.append(c)
    return keep


def _sweep(columns: list[int]) -> list[int]:
    """Remove a model from a column when every other member shares another column with it."""
    cols = list(columns)
    for c in range(len(cols)):
        for i in range(cols[c].bit_length()):
            bit = 1 << i
            if not cols[c] & bit:
                continue
            elsewhere = 0  # models sharing some other column with i
            for k, o in enumerate(cols):
                if k != c and o & bit:
                    elsewhere |= o
            if elsewhere and (cols[c] & ~bit) & ~elsewhere == 0:
                cols[c] &= ~bit
    return [c for c in cols if c]


def _labels(n: int) -> list[str]:
    if n <= len(_ALPHABET):
        return list(_ALPHABET[:n])
    return [f"{_ALPHABET[i % len(_ALPHABET)]}{i // len(_ALPHABET) + 1}" for i in range(n)]


def compact_letters(
    pvalues, *, alpha: float = 0.05, order=None, max_letters: int = 500
) -> list[str]:
    """Letters per model such that two models share a letter iff they do not differ significantly.

    Parameters
    ----------
    pvalues : array_like, shape (M, M)
        Pairwise (adjusted) p-values, symmetric; the diagonal is ignored. NaN (a test that could
        not be computed, e.g. two models with identical scores) counts as not significant.
    alpha : float, default 0.05
        A pair differs significantly when its p-value is below ``alpha``.
    order : array_like of int, optional
        Model indices from best to worst (default: as given). Letters are assigned in this
        order, so the first model has ``a``.
    max_letters : int, default 500
        Give up (``ValueError``) when the display needs more letters: with many models and
        significance patterns far from a ranking the number of letters can grow exponentially,
        and such a display would not be readable anyway.

    Returns
    -------
    list of str
        One string per model, in the input order: its letters in alphabetical order (``a-z``,
        then ``A-Z``; beyond 52 letters each is suffixed with a number and they are joined
        with ``.``).

    Examples
    --------
    Four models, best first; the first differs from the third and fourth, the second from
    the fourth:

    >>> p = np.full((4, 4), 0.5)
    >>> for i, j in [(0, 2), (0, 3), (1, 3)]:
    ...     p[i, j] = p[j, i] = 0.01
    >>> compact_letters(p)
    ['a', 'ab', 'bc', 'c']
    """
    p = np.asarray(pvalues, dtype=float)
    m = p.shape[0]
    if p.shape != (m, m):
        raise ValueError(f"pvalues must be a square (M, M) matrix, got shape {p.shape}")
    order = np.arange(m) if order is None else np.asarray(order, dtype=int)
    if sorted(order.tolist()) != list(range(m)):
        raise ValueError("order must be a permutation of the model indices 0..M-1")
    rank = np.empty(m, dtype=int)
    rank[order] = np.arange(m)
    with np.errstate(invalid="ignore"):
        sig = (p < alpha) & (p.T < alpha)  # NaN compares False: not significant
    np.fill_diagonal(sig, False)
    columns = [(1 << m) - 1]
    for a, b in zip(*np.nonzero(np.triu(sig[np.ix_(order, order)])), strict=True):
        columns = _insert_absorb(columns, int(order[a]), int(order[b]))
        if len(columns) > max_letters:
            raise ValueError(
                f"the letter display of these {m} models needs more than {max_letters} letters; "
                "read the pairwise table instead"
            )
    members = [[i for i in range(m) if c >> i & 1] for c in _sweep(columns)]
    members.sort(key=lambda c: sorted(rank[c].tolist()))
    labels = _labels(len(members))
    sep = "." if len(members) > len(_ALPHABET) else ""
    return [
        sep.join(lab for lab, col in zip(labels, members, strict=True) if i in col)
        for i in range(m)
    ]


def letters_from_pairs(
    pairs: pd.DataFrame,
    models,
    *,
    alpha: float = 0.05,
    column: str = "p_value_adjusted",
    max_letters: int = 500,
) -> list[str]:
    """Compact letter display from a tidy pairs table (e.g. :func:`pair_noise`'s ``p_value_adjusted``).

    Parameters
    ----------
    pairs : pandas.DataFrame
        Columns ``model_a``, ``model_b`` and ``column``, one row per unordered pair.
    models : sequence of str
        The models, best first: letters are assigned in this order.
    alpha : float, default 0.05
    column : str, default "p_value_adjusted"
        The p-values to use (Holm-adjusted by default in :func:`pair_noise`).
    max_letters : int, default 500
        See :func:`compact_letters`.

    Returns
    -------
    list of str
        Letters per model, in the order of ``models`` (see :func:`compact_letters`). A pair
        missing from the table counts as not significant.

    Examples
    --------
    >>> pairs = pd.DataFrame(
    ...     {"model_a": ["x", "x", "y"], "model_b": ["y", "z", "z"], "p_value_adjusted": [0.2, 0.01, 0.3]}
    ... )
    >>> letters_from_pairs(pairs, ["x", "y", "z"])
    ['a', 'ab', 'b']
    """
    names = [str(x) for x in models]
    index = {name: k for k, name in enumerate(names)}
    p = np.full((len(names), len(names)), np.nan)
    ia = pairs["model_a"].astype(str).map(index).to_numpy()
    ib = pairs["model_b"].astype(str).map(index).to_numpy()
    ok = ~(np.isnan(ia.astype(float)) | np.isnan(ib.astype(float)))
    ia, ib = ia[ok].astype(int), ib[ok].astype(int)
    values = pairs[column].to_numpy(dtype=float)[ok]
    p[ia, ib] = values
    p[ib, ia] = values
    return compact_letters(p, alpha=alpha, max_letters=max_letters)
