"""Per-model posteriors of Dask-backed datasets, one block of models at a time.

Every per-model number of the Beta-Binomial layer depends on that model's counts only. A
dataset chunked over models and/or questions is therefore cut into blocks of whole model rows
(its own model chunks, split further when a block would exceed ``block_bytes``); each block is
fitted where it is built (a ``dask.distributed`` worker when a client is active) and only the
per-model results come back: no process ever holds more than one block of the M x N counts.
Dask is an optional extra (``pip install bayesnoise[dask]``), imported here only.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd

from bayesnoise._common import require, seed_of
from bayesnoise._progress import Progress
from bayesnoise.data import MODEL, QUESTION, from_arrays

from .empirical_bayes import KAPPA_BOUNDS, fit_empirical_bayes, merge_fits
from .kappa_grid import DEFAULT_KAPPA_PRIOR
from .notes import kappa_notes

__all__ = [
    "fit_dataset",
    "posterior_table_chunked",
]

BLOCK_BYTES = 1 << 25  # largest block of (model, question) cells, as float64 (32 MiB)


def _row_blocks(ds, block_bytes):
    """Delayed (correct, count) blocks of whole model rows, and the model range of each."""
    require("dask", "dask", "chunked (Dask) datasets")
    import dask.array as da

    arrays = [da.asarray(ds[v].transpose(MODEL, QUESTION).data) for v in ("correct", "samples")]
    n_q = arrays[0].shape[1]
    most = max(1, int(block_bytes) // (8 * max(n_q, 1)))
    rows = []
    for size in arrays[0].chunks[0]:
        rows += [min(most, size - i) for i in range(0, size, most)]
    arrays = [a.rechunk((tuple(rows), n_q)) for a in arrays]
    edges = np.cumsum([0, *rows])
    blocks = [a.to_delayed()[:, 0] for a in arrays]
    return list(zip(*blocks, strict=True)), list(itertools.pairwise(edges.tolist()))


def _fit_block(c, k, kwargs):
    return fit_empirical_bayes(c, k, warn=False, **kwargs)


def fit_dataset(ds, *, block_bytes: int = BLOCK_BYTES, warn: bool = True, **kwargs):
    """:func:`~bayesnoise.conjugate.fit_empirical_bayes` of a (Dask-backed) dataset, by blocks.

    Parameters
    ----------
    ds : xarray.Dataset
        Dims ``model``, ``question``; ``correct`` and ``samples`` may be Dask arrays chunked
        over either dim.
    block_bytes : int, default 32 MiB
        Largest block of counts one task holds (as float64).
    warn : bool, default True
    **kwargs
        Passed on to :func:`~bayesnoise.conjugate.fit_empirical_bayes` (``kappa``,
        ``mu_prior``, ``kappa_prior``, ``kappa_bounds``, ``max_iter``, ``tol``).

    Returns
    -------
    EmpiricalBayesFit
        Equal to the fit of the whole in-memory dataset.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> c, k = np.array([[3, 4, 1, 5], [0, 2, 2, 1]]), np.full((2, 4), 5)
    >>> fit = fit_dataset(from_arrays(c, k).chunk({"model": 1}), warn=False)
    >>> bool(np.array_equal(fit.mu, fit_empirical_bayes(c, k, warn=False).mu))
    True
    """
    import dask

    blocks, _ = _row_blocks(ds, block_bytes)
    fits = dask.compute(*[dask.delayed(_fit_block)(c, k, kwargs) for c, k in blocks])
    bounds = kwargs.get("kappa_bounds", KAPPA_BOUNDS)
    return merge_fits(fits, kappa_bounds=bounds, names=ds[MODEL].values, warn=warn)


def _table_block(c, k, models, attrs, kwargs):
    """posterior_table of one block of models, with the warnings it raised."""
    from .tables import posterior_table

    block = from_arrays(c, k, models=models, source=str(attrs.get("source", "dataset")))
    block.attrs.update(attrs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = posterior_table(block, progress=False, **kwargs)
    return df, [(w.category, str(w.message)) for w in caught]


def posterior_table_chunked(
    ds,
    *,
    confidence_level: float = 0.95,
    kappa=None,
    rng=0,
    progress: bool = True,
    block_bytes: int = BLOCK_BYTES,
    ubar_prior: str = "auto",
) -> pd.DataFrame:
    """:func:`~bayesnoise.conjugate.posterior_table` of a Dask-backed dataset, by model blocks.

    Each block of models is tabulated where it is built; the rows, the per-model attributes and
    the notes are joined in model order. Exact columns equal the in-memory table; the Monte
    Carlo interval ends use an independent random stream per block (``rng`` spawns
    them), so they agree within their Monte Carlo error (``attrs["mc_se"]``).

    Parameters
    ----------
    ds : xarray.Dataset
        Dask-backed dataset (dims ``model``, ``question``).
    confidence_level, kappa, rng, progress, ubar_prior
        As for :func:`~bayesnoise.conjugate.posterior_table`.
    block_bytes : int, default 32 MiB
        Largest block of counts one task holds (as float64).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> ds = from_arrays(rng.binomial(5, rng.beta(2, 2, (4, 50))), np.full((4, 50), 5))
    >>> df = posterior_table_chunked(ds.chunk({"model": 2}), progress=False)
    >>> len(df), list(df["model"]) == list(ds["model"].values)
    (4, True)
    """
    import dask

    bar = Progress("bayesnoise posterior (Dask)", enabled=progress)
    blocks, ranges = _row_blocks(ds, block_bytes)
    seeds = np.random.SeedSequence(seed_of(rng)).spawn(len(blocks))
    kw = {"confidence_level": confidence_level, "kappa": kappa, "ubar_prior": ubar_prior}
    names = ds[MODEL].values
    tasks = [
        dask.delayed(_table_block)(c, k, names[a:b], dict(ds.attrs), {**kw, "rng": s})
        for (c, k), (a, b), s in zip(blocks, ranges, seeds, strict=True)
    ]
    bar.step(f"{len(tasks)} block(s) of models")
    parts = dask.compute(*tasks)
    df = pd.concat([p[0] for p in parts], ignore_index=True)
    status = np.asarray(df["kappa_status"], dtype=str)
    acc = df["accuracy"].to_numpy()
    notes = kappa_notes(
        status,
        KAPPA_BOUNDS,
        DEFAULT_KAPPA_PRIOR,
        status.shape,
        df["model"].to_numpy(),
        extreme=(acc == 0) | (acc == 1),
        high=acc == 1,
    )
    kappa_texts = {n for p in parts for n in p[0].attrs["notes"]}
    seen = set()
    for category, message in [w for p in parts for w in p[1]]:
        if message not in kappa_texts and (category, message) not in seen:
            seen.add((category, message))
            warnings.warn(message, category, stacklevel=2)
    for note in notes:
        warnings.warn(note, UserWarning, stacklevel=2)
    attrs = dict(parts[0][0].attrs)
    attrs.update(
        kappa_status=list(status),
        notes=list(notes),
        mc_se=max(p[0].attrs["mc_se"] for p in parts),
        **{
            key: [x for p in parts for x in p[0].attrs[key]]
            for key in ("mu_shift", "ubar_prior", "beta_fit_lr", "beta_fit_threshold")
        },
    )
    df.attrs = attrs
    bar.close()
    return df
