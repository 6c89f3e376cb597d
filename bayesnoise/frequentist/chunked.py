"""Blockwise statistics of Dask-backed datasets (an optional extra: ``pip install bayesnoise[dask]``).

The frequentist estimators need only per-model sums over the questions and, for all pairs, one
M x M Gram matrix of the per-question scores: both are sums over question blocks, so a dataset
chunked over questions and/or models is reduced block by block (on a ``dask.distributed``
cluster when a client is active) and never gathered as an M x N array in one process. Dask is
imported here only, when a chunked input arrives.
"""

from __future__ import annotations

import numpy as np

from bayesnoise._common import require

__all__ = ["compute", "is_chunked"]


def is_chunked(ds) -> bool:
    """True when a dataset's ``correct`` variable is a Dask array.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> is_chunked(from_arrays(np.ones((1, 2), int), np.ones((1, 2), int)))
    False
    """
    return type(ds["correct"].data).__module__.startswith("dask")


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
