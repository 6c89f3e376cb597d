"""Operations on a dataset: per-cell scores, the questions every model answered, selections."""

from __future__ import annotations

import warnings
from collections.abc import Iterable

import numpy as np
import xarray as xr

from bayesnoise._common import by_caller, did_you_mean, fmt_value

from .schema import MODEL, QUESTION, DataError, attr

__all__ = ["complete", "is_chunked", "scores", "select_models"]


def scores(ds: xr.Dataset) -> xr.DataArray:
    """Mean score per cell, ``correct / count`` (NaN where the model has no result).

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of the package's contract (:func:`bayesnoise.load`).

    Returns
    -------
    xarray.DataArray
        ``score`` per (model, question).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays, scores
    >>> scores(from_arrays(np.array([[1, 2]]), np.array([[2, 4]]))).values.tolist()
    [[0.5, 0.5]]
    """
    count = ds["samples"]
    return (ds["correct"] / count.where(count > 0)).rename("score")


def select_models(ds: xr.Dataset, models: Iterable[str]) -> xr.Dataset:
    """The dataset restricted to ``models`` (in that order); unknown names are an error.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of the package's contract (:func:`bayesnoise.load`).
    models : iterable of str
        The models to keep, in the order wanted.

    Returns
    -------
    xarray.Dataset
        ``ds`` with those models only.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> ds = from_arrays(np.ones((3, 2)), np.ones((3, 2)), models=["a", "b", "c"])
    >>> select_models(ds, ["c", "a"])["model"].values.tolist()
    ['c', 'a']
    """
    wanted = [str(m) for m in models]
    known = [str(m) for m in ds[MODEL].values]
    unknown = [m for m in wanted if m not in known]
    if unknown:
        raise DataError(f"{attr(ds, 'source')}: {did_you_mean(unknown[0], known)}")
    if len(set(wanted)) != len(wanted):
        raise DataError(f"a model is named twice in {wanted}")
    return ds.sel({MODEL: wanted})


def complete(ds: xr.Dataset, on_missing: str = "raise") -> xr.Dataset:
    """Restrict to questions that every model answered, as paired analysis needs.

    Parameters
    ----------
    ds : xarray.Dataset
    on_missing : {"raise", "intersect"}
        ``"raise"`` (default) errors when any model lacks a question, naming the models and
        questions; ``"intersect"`` keeps the questions all models answered and warns how many
        were dropped.

    Returns
    -------
    xarray.Dataset

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays, complete
    >>> ds = from_arrays(np.array([[1, 0], [1, 0]]), np.array([[1, 1], [1, 0]]), models=["a", "b"])
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     complete(ds, on_missing="intersect").sizes["question"]
    1
    """
    if on_missing not in ("raise", "intersect"):
        raise ValueError(f"on_missing must be 'raise' or 'intersect', not {on_missing!r}")
    answered = (ds["samples"] > 0).values
    full = answered.all(axis=0)
    if full.all():
        return ds
    n_total, n_keep = full.size, int(full.sum())
    if on_missing == "raise":
        lacking = np.flatnonzero(~answered.all(axis=1))
        details = []
        for m in lacking[:5]:
            missing_q = ds[QUESTION].values[~answered[m]]
            shown = ", ".join(map(str, missing_q[:3])) + (", ..." if missing_q.size > 3 else "")
            details.append(
                f"model {fmt_value(ds[MODEL].values[m])} lacks {missing_q.size} ({shown})"
            )
        more = f"; and {lacking.size - 5} more models" if lacking.size > 5 else ""
        raise DataError(
            f"{attr(ds, 'source')}: models do not cover the same questions: "
            + "; ".join(details)
            + more
            + ". Paired analysis needs the same questions; pass "
            + by_caller("on_missing='intersect'", "--intersect")
            + f" to use the {n_keep} of {n_total} questions all models answered"
        )
    if n_keep == 0:
        raise DataError("no question was answered by every model; nothing to pair")
    warnings.warn(
        f"on_missing='intersect': dropped {n_total - n_keep} of {n_total} questions that not every "
        f"model answered; {n_keep} remain",
        UserWarning,
        stacklevel=2,
    )
    return ds.isel({QUESTION: np.flatnonzero(full)})


def is_chunked(ds: xr.Dataset) -> bool:
    """True when a dataset's ``correct`` variable is a Dask array (computed blockwise).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> is_chunked(from_arrays(np.ones((1, 2), int), np.ones((1, 2), int)))
    False
    """
    return type(ds["correct"].data).__module__.startswith("dask")
