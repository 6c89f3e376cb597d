"""Compact letter display: groups of models that the pairwise tests cannot tell apart.

Each model gets one or more letters so that two models share a letter exactly when their
difference is not significant. The letters come from Piepho's insert-absorb algorithm
(Piepho 2004, J. Comput. Graph. Stat. 13: 456-466): start with one letter for all models; for
each significant pair, split every letter holding both into one without the first and one
without the second, and drop letters whose models all sit in another letter (absorb). A final
sweep removes a model from a letter when every partner there shares another letter with it.
Letters are assigned best model first, so the best model has ``a``.

Given the models' scores, the letters and the top group are read from one separation, ordered
by score (:func:`ordered_separation`): a better model i is shown apart from a worse model k
only when every model scoring at least as high as i is separated from every model scoring at
most as high as k. Those pairs are a subset of the separated pairs, so the family-wise error of
the tests carries over; the groups become runs of consecutive models in score order, and
letter ``a`` is exactly the top group (:func:`top_group`).
"""

from __future__ import annotations

import string

import numpy as np
import pandas as pd

__all__ = [
    "compact_letters",
    "letters_from_pairs",
    "ordered_separation",
    "pvalue_matrix",
    "top_group",
]

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


def _separated(pvalues, alpha: float) -> np.ndarray:
    """Boolean (M, M): the pairs whose p-value is below ``alpha`` (NaN: not separated)."""
    p = np.asarray(pvalues, dtype=float)
    m = p.shape[0] if p.ndim else 0
    if p.shape != (m, m):
        raise ValueError(f"pvalues must be a square (M, M) matrix, got shape {p.shape}")
    with np.errstate(invalid="ignore"):
        sig = (p < alpha) & (p.T < alpha)  # NaN compares False: not significant
    np.fill_diagonal(sig, False)
    return sig


def _scores(scores, m: int) -> np.ndarray:
    x = np.asarray(scores, dtype=float)
    if x.shape != (m,):
        raise ValueError(f"scores must have one value per model ({m}), got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("scores must be finite: a model without a score cannot be ordered")
    return x


def ordered_separation(pvalues, scores, *, alpha: float = 0.05) -> np.ndarray:
    """The pairs shown apart in score order: the largest set of separated pairs that respects it.

    A better model i (higher score) and a worse model k are shown apart when every model
    scoring at least as high as i has a p-value below ``alpha`` against every model scoring at
    most as high as k. This keeps only separated pairs, so any family-wise error rate the
    p-values control (e.g. Holm-adjusted) holds for these pairs too, and it is monotone: a
    model separated from k is separated from every model below k, and every model above a
    model separated from k is too. The groups of models not shown apart are therefore runs
    of consecutive models in score order. Models with equal scores are never shown apart.

    Parameters
    ----------
    pvalues : array_like, shape (M, M)
        Pairwise (adjusted) p-values, symmetric; the diagonal is ignored, NaN counts as not
        significant.
    scores : array_like, shape (M,)
        The models' scores (e.g. accuracies); higher is better.
    alpha : float, default 0.05

    Returns
    -------
    numpy.ndarray of bool, shape (M, M)
        Symmetric; True where the pair is shown apart.

    Examples
    --------
    Model 0 is separated from model 2 but not from the worse model 3 (a noisier pair):
    0 and 2 are not shown apart, because 0 and 3 are not.

    >>> p = np.full((4, 4), 0.5)
    >>> p[0, 2] = p[2, 0] = 0.01
    >>> ordered_separation(p, [0.8, 0.7, 0.6, 0.5])[0].tolist()
    [False, False, False, False]
    >>> p[0, 3] = p[3, 0] = 0.01
    >>> ordered_separation(p, [0.8, 0.7, 0.6, 0.5])[0].tolist()
    [False, False, True, True]
    """
    sig = _separated(pvalues, alpha)
    m = sig.shape[0]
    x = _scores(scores, m)
    order = np.argsort(-x, kind="stable")
    xs = x[order]
    # row (better) separated from column (strictly worse), models best first
    s = sig[np.ix_(order, order)] & (xs[:, None] > xs[None, :])
    # c[a, b]: every pair with the better one in positions 0..a and the worse in b..M-1
    c = np.logical_and.accumulate(s, axis=0)
    c = np.logical_and.accumulate(c[:, ::-1], axis=1)[:, ::-1]
    # "at least as high" reaches the end of a model's block of equal scores, "at most" its start
    last = np.searchsorted(-xs, -xs, side="right") - 1
    first = np.searchsorted(-xs, -xs, side="left")
    apart = c[np.ix_(last, first)] if m else c
    apart = apart | apart.T
    out = np.zeros((m, m), dtype=bool)
    out[np.ix_(order, order)] = apart
    return out


def top_group(pvalues, scores, *, alpha: float = 0.05) -> np.ndarray:
    """The models not shown worse than the best: a run of the best-scoring models.

    A model is in the top group when no model is shown apart from it and better in
    :func:`ordered_separation`; by its monotonicity that is: the models down to the lowest-
    scoring one that the best-scoring model is not separated from, and every model scoring
    above it. If the p-values control the family-wise error at ``alpha`` (e.g. Holm-adjusted
    over all pairs), the model with the highest true score is in the group with probability
    at least 1 - ``alpha``: it leaves only when a pair with it as the better-or-equal side
    is wrongly separated. The group is the letter ``a`` of
    ``compact_letters(pvalues, scores=scores)``.

    Parameters
    ----------
    pvalues : array_like, shape (M, M)
    scores : array_like, shape (M,)
    alpha : float, default 0.05

    Returns
    -------
    numpy.ndarray of bool, shape (M,)

    Examples
    --------
    >>> p = np.full((4, 4), 0.5)
    >>> p[0, 2] = p[2, 0] = p[0, 3] = p[3, 0] = 0.01
    >>> top_group(p, [0.8, 0.7, 0.6, 0.5]).tolist()
    [True, True, False, False]
    """
    apart = ordered_separation(pvalues, scores, alpha=alpha)
    x = np.asarray(scores, dtype=float)
    return ~apart[int(np.argmax(x))] if x.size else np.zeros(0, dtype=bool)


def compact_letters(
    pvalues, *, alpha: float = 0.05, order=None, max_letters: int = 500, scores=None
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
        Model indices from best to worst (default: as given, or by ``scores`` when given).
        Letters are assigned in this order, so the first model has ``a``.
    max_letters : int, default 500
        Give up (``ValueError``) when the display needs more letters: with many models and
        significance patterns far from a ranking the number of letters can grow exponentially,
        and such a display would not be readable anyway.
    scores : array_like, shape (M,), optional
        The models' scores: two models then share a letter iff :func:`ordered_separation`
        does not show them apart; the letters are the maximal runs of consecutive models in
        score order (ties in the order of ``order``) not shown apart, best run first, so
        ``a`` is the :func:`top_group` (at most M letters; ``max_letters`` does not apply).

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

    With the scores, a pair is shown apart only when the pairs around it in score order are:
    if the first is not separated from the fourth (a noisier pair), it is not shown apart
    from the third either, and the second model is then not apart from the fourth.

    >>> p[0, 3] = p[3, 0] = 0.5
    >>> compact_letters(p), compact_letters(p, scores=[0.8, 0.7, 0.6, 0.5])
    (['ab', 'ac', 'cd', 'bd'], ['a', 'a', 'a', 'a'])
    """
    if scores is None:
        sig = _separated(pvalues, alpha)
    else:
        sig = ordered_separation(pvalues, scores, alpha=alpha)
    m = sig.shape[0]
    order = np.arange(m) if order is None else np.asarray(order, dtype=int)
    if sorted(order.tolist()) != list(range(m)):
        raise ValueError("order must be a permutation of the model indices 0..M-1")
    rank = np.empty(m, dtype=int)
    rank[order] = np.arange(m)
    if scores is not None:
        # the groups are runs in score order (ties in ``order``): the letters are the maximal
        # runs [r, e(r)], e(r) the last model not shown apart from the r-th, best run first
        seq = np.lexsort((rank, -_scores(scores, m)))
        near = ~sig[np.ix_(seq, seq)]
        end = [int(np.flatnonzero(near[r]).max()) for r in range(m)]
        runs = [seq[r : end[r] + 1] for r in range(m) if r == 0 or end[r] > end[r - 1]]
        return _display([[int(i) for i in run] for run in runs], m)
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
    return _display(members, m)


def _display(members: list[list[int]], m: int) -> list[str]:
    """Each model's letters, given the members of each letter in letter order."""
    labels = _labels(len(members))
    sep = "." if len(members) > len(_ALPHABET) else ""
    return [
        sep.join(lab for lab, col in zip(labels, members, strict=True) if i in col)
        for i in range(m)
    ]


def pvalue_matrix(pairs: pd.DataFrame, models, *, column: str = "p_value_adjusted") -> np.ndarray:
    """The (M, M) p-value matrix of a tidy pairs table, NaN for pairs it lacks.

    Parameters
    ----------
    pairs : pandas.DataFrame
        Columns ``model_a``, ``model_b`` and ``column``, one row per unordered pair.
    models : sequence of str
        The models, in the order of the matrix's rows.
    column : str, default "p_value_adjusted"

    Returns
    -------
    numpy.ndarray, shape (M, M)

    Examples
    --------
    >>> pairs = pd.DataFrame({"model_a": ["x"], "model_b": ["y"], "p_value_adjusted": [0.2]})
    >>> pvalue_matrix(pairs, ["y", "x"])[0, 1].item()
    0.2
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
    return p


def letters_from_pairs(
    pairs: pd.DataFrame,
    models,
    *,
    alpha: float = 0.05,
    column: str = "p_value_adjusted",
    max_letters: int = 500,
    scores=None,
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
    scores : array_like, optional
        The models' scores in the order of ``models``: letters from
        :func:`ordered_separation` (see :func:`compact_letters`).

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
    p = pvalue_matrix(pairs, models, column=column)
    order = None if scores is None else np.arange(p.shape[0])
    return compact_letters(p, alpha=alpha, max_letters=max_letters, scores=scores, order=order)
