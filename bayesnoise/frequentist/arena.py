"""Eval-Arena style summary of a benchmark: the smallest gap that is significant."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import xarray as xr

from bayesnoise.data import MODEL, attr, complete
from bayesnoise.frequentist import _core

ARENA_COLUMNS = [
    "benchmark",
    "models",
    "questions",
    "p5_min",
    "p5_max",
    "p5_min_count",
    "p5_max_count",
]


def arena_summary(
    ds: xr.Dataset, *, on_missing: str = "raise", threshold: float = 0.5, significance: float = 0.05
) -> pd.DataFrame:
    """Eval-Arena's p5_min / p5_max for one benchmark.

    Each cell's mean score is thresholded (``score > threshold`` counts as solved), every pair
    gets an exact two-sided sign test on its discordant questions, and

    * ``p5_min_count``: the smallest ``|solved_A - solved_B|`` among pairs with p < ``significance``;
    * ``p5_max_count``: the largest ``|solved_A - solved_B|`` among pairs with p > ``significance``;

    also as fractions of N (``p5_min``, ``p5_max``). All pairs at once from two matrix products.

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.load`.
    on_missing : {"raise", "intersect"}
        What to do when models do not cover the same questions.
    threshold : float, default 0.5
        A cell counts as solved when its mean score exceeds this (scores in [0, 1]).
    significance : float, default 0.05
        Level of the two-sided sign test.

    Returns
    -------
    pandas.DataFrame
        One row: ``benchmark, models, questions, p5_min, p5_max, p5_min_count, p5_max_count``.
        Empty (NaN) entries mean no pair fell on that side of ``significance`` (with one
        model there are no pairs: both are empty, with a warning).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> from bayesnoise.frequentist import arena_summary
    >>> rng = np.random.default_rng(0)
    >>> ds = from_arrays(rng.random((5, 200)) < np.linspace(0.3, 0.7, 5)[:, None],
    ...                  np.ones((5, 200)))
    >>> list(arena_summary(ds).columns)[:3]
    ['benchmark', 'models', 'questions']
    """
    ds = complete(ds, on_missing=on_missing)
    if ds.sizes[MODEL] < 2:
        warnings.warn(
            f"arena: {attr(ds, 'source')} has one model ({ds[MODEL].values[0]}), so there are "
            "no pairs to compare: p5_min and p5_max are empty",
            UserWarning,
            stacklevel=2,
        )
    p = _core.cell_means(ds["correct"].values, ds["samples"].values)
    solved = (p > threshold).astype(float)
    wins = _core.expected_wins(solved)
    pvalue = _core.sign_test_pvalue(wins, wins.T)
    gap = np.abs(wins - wins.T)  # |solved_A - solved_B| = |W_A - W_B|
    iu = np.triu_indices(solved.shape[0], k=1)
    gap, pvalue = gap[iu], pvalue[iu]
    sig, nonsig = gap[pvalue < significance], gap[pvalue > significance]
    n = solved.shape[1]
    min_count = float(sig.min()) if sig.size else np.nan
    max_count = float(nonsig.max()) if nonsig.size else np.nan
    return pd.DataFrame(
        [
            [
                ds.attrs.get("benchmark", ""),
                solved.shape[0],
                n,
                min_count / n,
                max_count / n,
                min_count,
                max_count,
            ]
        ],
        columns=ARENA_COLUMNS,
    )
