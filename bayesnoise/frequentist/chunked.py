"""Blockwise statistics: in-memory arrays block by block of questions, Dask-backed ones lazily.

The frequentist estimators need only per-model sums over the questions and, for all pairs, one
M x M Gram matrix of the per-question scores: both are sums over question blocks. In-memory
arrays are reduced in one pass over blocks of questions, with cache-sized temporaries and closed
forms where a block allows them; a dataset chunked over questions and/or models (an optional
extra: ``pip install bayesnoise[dask]``) is reduced block by block by Dask (on a
``dask.distributed`` cluster when a client is active) and never gathered as an M x N array in
one process. Dask is imported here only, when a chunked input arrives.
"""

from __future__ import annotations

import numpy as np

from bayesnoise._common import require

__all__ = ["block_gram", "compute", "gram_row_sums", "row_sums", "tiled_row_sums"]

BLOCK = 4096  # questions per block: 0/1 products summed in float32 stay exact (<= 4096 < 2^24)
_TILE = 1 << 17  # cells per tile of the elementwise sums (1 MiB of float64: stays in cache)


def lazy(*arrays) -> bool:
    """True when an input is a chunked (Dask) array: the sums are then computed blockwise."""
    return any(type(x).__module__.startswith("dask") for x in arrays if x is not None)


def row_sums(p, w, k) -> dict:
    """Per-model sums over the answered questions: all that the per-model components need.

    Works on numpy arrays and, lazily, on Dask arrays (one blockwise pass; nothing (M, N) is
    gathered). Keys: ``n`` (answered), ``s1`` (sum p), ``s2`` (sum p^2), ``sw`` (sum w; w =
    p (1 - p) when ``w`` is None), ``sk`` (sum K), ``sinvk`` (sum 1/K), ``sb`` (sum w / (K - 1),
    NaN-free: cells with K < 2 count 0), ``kmin``, ``kmax`` and ``scale`` (max |p|).

    Examples
    --------
    >>> import numpy as np
    >>> sums = row_sums(np.array([[1.0, 0.5]]), None, np.array([[2, 2]]))
    >>> float(sums["s2"][0]), float(sums["sw"][0])
    (1.25, 0.25)
    """
    answered = k > 0
    pz = np.where(answered, p, 0.0)
    wz = pz * (1.0 - pz) if w is None else np.where(answered, w, 0.0)
    kf = np.where(answered, k, 1).astype(float)
    big = np.iinfo(np.int64).max
    return {
        "n": answered.sum(axis=-1),
        "s1": pz.sum(axis=-1),
        "s2": (pz * pz).sum(axis=-1),
        "sw": wz.sum(axis=-1),
        "sk": np.where(answered, k, 0).sum(axis=-1),
        "sinvk": np.where(answered, 1.0 / kf, 0.0).sum(axis=-1),
        "sb": np.where(kf >= 2, wz / np.maximum(kf - 1.0, 1.0), 0.0).sum(axis=-1),
        "kmin": np.where(answered, k, big).min(axis=-1),
        "kmax": k.max(axis=-1),
        "scale": np.abs(pz).max(axis=-1),
    }


def _merge(a: dict | None, b: dict) -> dict:
    """Combine :func:`row_sums` of two blocks of questions (``a=None``: the first block)."""
    if a is None:
        return b
    out = {key: a[key] + b[key] for key in a}
    out["kmin"] = np.minimum(a["kmin"], b["kmin"])
    for key in ("kmax", "scale"):
        out[key] = np.maximum(a[key], b[key])
    return out


def tiled_row_sums(p, w, k) -> dict:
    """:func:`row_sums` of numpy arrays tile by tile: blocks of :data:`BLOCK` questions, each
    cut into groups of models of about 2^17 cells, so every temporary stays in cache.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.random.default_rng(0).random((3, 10_000))
    >>> k = np.full(p.shape, 2)
    >>> bool(np.allclose(tiled_row_sums(p, None, k)["sw"], row_sums(p, None, k)["sw"]))
    True
    """
    out = None
    for j0 in range(0, p.shape[-1], BLOCK):
        sl = slice(j0, j0 + BLOCK)
        out = _merge(out, _block_sums(p[:, sl], None if w is None else w[:, sl], k[:, sl]))
    return out


def _block_sums(p, w, k) -> dict:
    """:func:`row_sums` of one block of questions, in groups of models (rows are independent)."""
    rows = max(1, _TILE // max(p.shape[-1], 1))
    parts = [
        row_sums(p[r : r + rows], None if w is None else w[r : r + rows], k[r : r + rows])
        for r in range(0, p.shape[0], rows)
    ]
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


def _closed_sums(p, w, k_row, binary: bool, s2) -> dict:
    """:func:`row_sums` of a complete block with one K per model (``k_row``) in closed form:
    sum K = B K, sum 1/K = B / K, sum w / (K - 1) = (sum w) / (K - 1), and w = 0 for 0/1 scores."""
    b = p.shape[-1]
    sw = np.zeros(p.shape[0]) if w is None else w.sum(axis=-1)
    hi = p.max(axis=-1)
    return {
        "n": np.full(p.shape[0], b),
        "s1": p.sum(axis=-1),
        "s2": s2,
        "sw": sw,
        "sk": b * k_row,
        "sinvk": b / k_row,
        "sb": np.where(k_row >= 2, sw / np.maximum(k_row - 1.0, 1.0), 0.0),
        "kmin": k_row,
        "kmax": k_row,
        "scale": hi if binary else np.maximum(hi, -p.min(axis=-1)),
    }


def is_binary(block) -> bool:
    """True when every entry is exactly 0 or 1 (then float32 products are exact)."""
    return bool(((block == 0) | (block == 1)).all())


def block_gram(block) -> tuple[np.ndarray, bool]:
    """``block @ block.T`` (float64) and whether ``block`` holds only 0s and 1s: such a block
    is multiplied in float32, exactly while it has at most 2^24 columns (every partial sum is
    then a whole number below 2^24); any other block in float64.

    Examples
    --------
    >>> import numpy as np
    >>> gram, binary = block_gram(np.array([[1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]))
    >>> gram.tolist(), binary
    ([[2.0, 1.0], [1.0, 2.0]], True)
    """
    binary = block.shape[-1] <= 2**24 and is_binary(block)
    blk = np.ascontiguousarray(block, dtype=np.float32 if binary else np.float64)
    return (blk @ blk.T).astype(np.float64, copy=False), binary


def gram_row_sums(p, w, k, *, progress=None) -> tuple[np.ndarray, dict, bool]:
    """Gram matrix ``p @ p.T`` and :func:`row_sums` of complete numpy arrays in one pass.

    One pass over blocks of :data:`BLOCK` questions. A block of 0/1 scores is multiplied in
    float32: every partial sum is a whole number <= 4096 < 2^24, so its product is exact, and
    the blocks are added in float64 (exact below 2^53); other blocks are multiplied in float64.
    Where a block has one K per model and either 0/1 scores or a given ``w``, the sums are closed
    forms (:func:`_closed_sums`); otherwise they are taken tile by tile (:func:`tiled_row_sums`).
    Nothing of size (M, N) is allocated.

    Parameters
    ----------
    p, w, k : numpy.ndarray, shape (M, N)
        Per-cell means, within-cell variances (None for 0/1 scores) and sample counts.
    progress : bayesnoise._progress.Progress, optional
        Told about each block.

    Returns
    -------
    gram : numpy.ndarray, shape (M, M)
    sums : dict
        As :func:`row_sums`; ``s2`` is the Gram diagonal.
    binary : bool
        True when every score is 0 or 1 (then ``s1[a] - gram[a, b]`` counts the questions a got
        right and b wrong, exactly).

    Raises
    ------
    ValueError
        A cell with ``k <= 0`` (pairs need every model to answer every question).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    >>> gram, sums, binary = gram_row_sums(p, None, np.ones((2, 3), int))
    >>> sums["s1"].tolist(), sums["s2"].tolist(), binary
    ([2.0, 2.0], [2.0, 2.0], True)
    """
    n_models, n = p.shape
    gram = np.zeros((n_models, n_models))
    sums, binary, n_blocks = None, True, -(-n // BLOCK)
    for j, j0 in enumerate(range(0, n, BLOCK)):
        if progress is not None:
            progress.step("Gram matrix and sums", j, n_blocks)
        sl = slice(j0, j0 + BLOCK)
        pb, kb = p[:, sl], k[:, sl]
        wb = None if w is None else w[:, sl]
        kmin = kb.min(axis=-1)
        if kmin.min(initial=1) <= 0:
            raise ValueError(
                "pair_components needs complete data (every model answered every question)"
            )
        prod, block_binary = block_gram(pb)
        binary &= block_binary
        gram += prod
        s2 = np.diagonal(prod).copy()
        if (block_binary or wb is not None) and np.array_equal(kmin, kb.max(axis=-1)):
            part = _closed_sums(pb, wb, kmin, block_binary, s2)
        else:
            part = _block_sums(pb, wb, kb)
            part["s2"] = s2
        sums = _merge(sums, part)
    return gram, sums, binary


def compute(tree):
    """Compute a nest of (lazy) arrays in one Dask pass and return numpy arrays.

    Parameters
    ----------
    tree : dict, tuple or array
        Dask arrays (numpy arrays pass through).

    Returns
    -------
    The same structure with numpy arrays.

    Examples
    --------
    >>> import numpy as np
    >>> compute({"a": np.ones(2)})["a"].tolist()
    [1.0, 1.0]
    """
    require("dask", "dask", "chunked (Dask) datasets")
    import dask

    (out,) = dask.compute(tree)
    if isinstance(out, dict):
        return {key: np.asarray(val) for key, val in out.items()}
    if isinstance(out, tuple):
        return tuple(
            {k: np.asarray(v) for k, v in x.items()} if isinstance(x, dict) else np.asarray(x)
            for x in out
        )
    return np.asarray(out)
