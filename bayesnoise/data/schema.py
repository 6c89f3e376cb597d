"""The dataset contract: one ``xarray.Dataset`` per benchmark, and the one validator of counts.

Every reader ends in :func:`from_arrays`, so every dataset has dims ``(model, question)`` and:

``correct``  (float64)  sum of the sample scores in the cell (the number correct for 0/1 scores)
``samples``  (int64)    number of samples K in the cell; 0 means the model has no result there
``sum_sq``   (float64)  sum of the squared sample scores (equal to ``correct`` for 0/1 scores)

(``samples`` was called ``count`` in bayesnoise 0.1, a name hidden by ``ds.count``, xarray's
``Dataset.count`` method; :func:`bayesnoise.load` renames it in NetCDF files written then.)

With factor columns (``factors=["template"]`` when loading; prompt template, run, judge, ...)
the three variables have one more dim per factor, ``(model, question, template, ...)``, named
as the factor, and the attribute ``factors`` lists them; ``samples == 0`` marks a missing cell.
Only the commands that model factors take such a dataset (:func:`factor_dims`,
:func:`refuse_factors`): the levels of a factor are never pooled as samples.

and attributes (defaults in :data:`ATTR_DEFAULTS`, set here only) ``benchmark``, ``source``,
``binary`` (all scores are 0/1) and ``counts_known`` (False when the input gave only a
fractional ``pass1`` per question, without the number of samples behind it; each such cell is
then kept as one draw whose expected score is ``pass1``).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import xarray as xr

from bayesnoise._common import name_list

__all__ = [
    "DataError",
    "attr",
    "beta_binomial_counts",
    "check_counts",
    "check_dataset",
    "clusters_with_factor",
    "factor_dims",
    "from_arrays",
    "refuse_clusters_with_factors",
    "refuse_factors",
    "renamed_legacy",
]

MODEL, QUESTION, SAMPLE = "model", "question", "sample"

#: Name of the ``samples`` variable in bayesnoise 0.1 (read, never written).
LEGACY_SAMPLES = "count"
#: Dataset attributes and their defaults (a dataset built elsewhere is read with these).
ATTR_DEFAULTS = {"benchmark": "benchmark", "source": "data", "binary": True, "counts_known": True}


class DataError(ValueError):
    """Input that cannot be analysed as it is; the message says where and why."""


def attr(ds: xr.Dataset, key: str):
    """A dataset attribute, with the contract's default when it is absent."""
    return ds.attrs.get(key, ATTR_DEFAULTS[key])


def check_counts(
    correct, count, *, source: str = "counts", require_answered: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The one validator of ``(correct, count)`` cells, used by every layer.

    Parameters
    ----------
    correct, count : array_like
        Sum of scores and number of samples per cell; broadcast together; last axis =
        questions. ``count == 0`` marks a cell without a result (its ``correct`` must be 0).
    source : str
        Named in error messages (a file name or ``"counts"``).
    require_answered : bool
        Also refuse a leading-axis entry (a model) with no answered question.

    Returns
    -------
    correct : numpy.ndarray of float
    count : numpy.ndarray of int64

    Raises
    ------
    DataError
        Non-finite values, counts that are not whole numbers >= 0, ``correct`` outside
        ``[0, count]``. Nothing is clipped.

    Examples
    --------
    >>> c, k = check_counts([[3, 1]], 4)
    >>> k.tolist()
    [[4, 4]]
    """
    c = np.asarray(correct, dtype=float)
    k = np.asarray(count, dtype=float)
    try:
        c, k = np.broadcast_arrays(c, k)
    except ValueError:
        raise DataError(
            f"{source}: correct {c.shape} and count {k.shape} do not broadcast together"
        ) from None
    if c.ndim == 0 or c.shape[-1] == 0:
        raise DataError(f"{source}: no questions (the last axis must hold the questions)")
    if not np.all(np.isfinite(c)):
        raise DataError(f"{source}: correct has NaN or infinite entries; nothing is imputed")
    if not np.all(np.isfinite(k)) or np.any(k < 0) or np.any(k != np.round(k)):
        raise DataError(f"{source}: count must hold whole numbers >= 0 (0 = no result)")
    bad = (c < 0) | (c > k)
    if bad.any():
        cell = tuple(int(i) for i in np.argwhere(bad)[0])
        raise DataError(
            f"{source}: cell {cell}: correct={c[cell]:g} is outside [0, count={k[cell]:g}]"
        )
    if require_answered:
        empty = ~(k > 0).any(axis=-1)
        if empty.any():
            first = tuple(int(i) for i in np.argwhere(empty)[0])
            raise DataError(
                f"{source}: model {first} has no answered question (count == 0 everywhere); "
                "drop it first"
            )
    return c.copy(), k.astype(np.int64)


def beta_binomial_counts(
    ds: xr.Dataset, *, needed_by: str = "the Beta-Binomial model"
) -> tuple[np.ndarray, np.ndarray]:
    """``(correct, count)`` arrays of whole numbers correct out of K, or a clear refusal.

    The Beta-Binomial likelihood (and pass@k) needs whole numbers correct out of K samples: a
    dataset of fractional ``pass1`` values without counts, or of fractional sample scores, is
    refused (the frequentist noise estimators accept both). ``needed_by`` names what needs the
    counts, in the message.

    Examples
    --------
    >>> import numpy as np
    >>> c, k = beta_binomial_counts(from_arrays(np.array([[2, 1]]), np.array([[2, 2]])))
    >>> c.tolist()
    [[2.0, 1.0]]
    """
    source = attr(ds, "source")
    if not attr(ds, "counts_known"):
        raise DataError(
            f"{source}: the scores are fractional pass1 values without the number of samples "
            f"behind them; {needed_by} needs counts (correct out of K). Load a count "
            "table or per-sample rows, or use the frequentist commands (noise, pairs), which "
            "treat each value as one draw."
        )
    c, k = check_counts(
        ds["correct"].transpose(MODEL, QUESTION).values,
        ds["samples"].transpose(MODEL, QUESTION).values,
        source=source,
    )
    if not attr(ds, "binary") or np.any(c != np.round(c)):
        raise DataError(
            f"{source}: sample scores are not all 0/1 (partial credit); {needed_by} needs "
            "whole numbers correct out of K. Turn graded scores into success / failure with "
            "--threshold T (threshold=T; a score >= T is a success, --success below for a "
            "distance), or use the frequentist commands (noise, pairs), which handle "
            "fractional scores."
        )
    return c, k


def from_arrays(
    correct,
    count,
    *,
    models: Iterable[str] | None = None,
    questions: Iterable[str] | None = None,
    sum_sq=None,
    benchmark: str = ATTR_DEFAULTS["benchmark"],
    source: str = "arrays",
    counts_known: bool = True,
    factors: dict[str, Iterable[str]] | None = None,
) -> xr.Dataset:
    """Build the standard dataset from (model, question) arrays of correct counts and samples.

    Parameters
    ----------
    correct : array_like, shape (M, N) or (N,)
        Sum of scores per cell (number correct for 0/1 scores).
    count : array_like, same shape
        Number of samples per cell (the ``samples`` variable); 0 marks a cell with no result.
    models, questions : iterable of str, optional
        Coordinate labels; default ``m0, m1, ...`` and ``q0, q1, ...``.
    sum_sq : array_like, optional
        Sum of squared scores per cell; defaults to ``correct`` (0/1 scores).
    benchmark, source : str
        Stored as attributes.
    counts_known : bool
        False when ``count`` is not the real number of samples (see module docs).
    factors : dict, optional
        Factor name -> its level labels, in the order of the arrays' trailing axes: the arrays
        are then ``(M, N, L1, ...)`` and the dataset gets those dims.

    Returns
    -------
    xarray.Dataset
        Variables ``correct``, ``samples``, ``sum_sq`` over ``(model, question)``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> ds = from_arrays(np.array([[3, 1], [2, 2]]), np.array([[4, 4], [4, 4]]), models=["a", "b"])
    >>> ds.sizes["question"]
    2
    """
    correct = np.atleast_2d(np.asarray(correct, dtype=float))
    count = np.atleast_2d(np.asarray(count))
    if correct.shape != count.shape:
        raise DataError(f"{source}: correct has shape {correct.shape} but count has {count.shape}")
    factors = {str(k): [str(v) for v in levels] for k, levels in (factors or {}).items()}
    if correct.ndim != 2 + len(factors):
        raise DataError(
            f"{source}: arrays of shape {correct.shape} for dims (model, question"
            + "".join(f", {f}" for f in factors)
            + ")"
        )
    correct, count = check_counts(correct, count, source=source)
    sum_sq = correct.copy() if sum_sq is None else np.atleast_2d(np.asarray(sum_sq, dtype=float))
    binary = bool(np.all(sum_sq == correct) and np.all(correct == np.round(correct)))
    n_models, n_questions = correct.shape[:2]
    dims = (MODEL, QUESTION, *factors)
    ds = xr.Dataset(
        {"correct": (dims, correct), "samples": (dims, count), "sum_sq": (dims, sum_sq)},
        coords={
            MODEL: name_list(models, n_models, "m"),
            QUESTION: name_list(questions, n_questions, "q"),
            **factors,
        },
        attrs={
            "benchmark": benchmark,
            "source": source,
            "binary": binary,
            "counts_known": bool(counts_known),
        },
    )
    ds["correct"].attrs["description"] = "sum of sample scores (number correct for 0/1 scores)"
    ds["samples"].attrs["description"] = "number of samples K; 0 = no result for this cell"
    ds["sum_sq"].attrs["description"] = "sum of squared sample scores"
    if factors:
        ds.attrs["factors"] = list(factors)
    return ds


def factor_dims(ds: xr.Dataset) -> list[str]:
    """The factor dims of a dataset (dims of ``correct`` besides model and question).

    Examples
    --------
    >>> import numpy as np
    >>> ds = from_arrays(np.ones((1, 2, 3)), np.ones((1, 2, 3)), factors={"template": "abc"})
    >>> factor_dims(ds)
    ['template']
    """
    return [d for d in ds["correct"].dims if d not in (MODEL, QUESTION)]


def refuse_factors(ds: xr.Dataset, command: str | None = None) -> xr.Dataset:
    """``ds`` unchanged if it has no factor dims; else a :class:`DataError` saying which
    command models factors and how to analyse one level with the others (never pooled)."""
    dims = factor_dims(ds)
    if not dims:
        return ds
    sizes = ", ".join(f"{d} ({ds.sizes[d]} levels)" for d in dims)
    first = dims[0]
    level = str(ds[first].values[0])
    what = f"`{command}`" if command else "this command"
    raise DataError(
        f"{attr(ds, 'source')}: the scores vary by {sizes} as well as by question; {what} "
        f"treats one score per (model, question, sample) and would count those levels as "
        f"samples. `bayesnoise noises --factor {first}` (bn.noises) measures the {first} "
        f"noise (`--method mcmc` for the Bayesian crossed model); `pairs`, `compare` and "
        f"`check` take --factor {first} too; to analyse one level here, select it first "
        f"(ds.sel({first}={level!r}), or filter the table) and load without --factor"
    )


def clusters_with_factor(where: str, factor: str, cluster: str = "cluster") -> DataError:
    """The error for questions in clusters (``cluster``: the cluster column, CLI
    ``--cluster-col``) on data with a factor: the cluster-robust columns (``se_clustered``,
    ``design_effect``, ...) take one score per (model, question, sample), and no estimator
    here yet crosses question clusters with a factor. Never left out silently.

    Examples
    --------
    >>> print(clusters_with_factor("t.csv", "template", "topic"))  # doctest: +ELLIPSIS
    t.csv: questions in clusters (column 'topic') and the factor 'template' ...
    """
    return DataError(
        f"{where}: questions in clusters (column {cluster!r}) and the factor {factor!r} "
        f"together are not supported yet: the clustered columns (se_clustered, "
        f"design_effect, ...) take one score per (model, question, sample) and would count "
        f"the {factor} levels as samples, and no estimator here crosses question clusters "
        f"with a factor. Either leave out the cluster column (--cluster-col, columns="
        f"{{'cluster': ...}}): the crossed estimator of `bayesnoise noises --factor "
        f"{factor}` (`--by pair` for differences; pairs, compare, check and plan use it) "
        f"already accounts for the {factor} (its {factor} and question x {factor} parts, "
        f"for a pair the model x {factor} interaction), with questions independent; or keep "
        f"the clusters for one {factor} at a time: select it (filter the table, or "
        f"ds.sel({factor}=...)) and load without --factor"
    )


def refuse_clusters_with_factors(ds: xr.Dataset) -> xr.Dataset:
    """``ds`` unchanged unless it has both factor dims and a ``cluster`` coordinate
    (question clusters); then :func:`clusters_with_factor`'s error."""
    dims = factor_dims(ds)
    if dims and "cluster" in ds.coords:
        raise clusters_with_factor(str(attr(ds, "source")), dims[0])
    return ds


def check_dataset(ds: xr.Dataset) -> xr.Dataset:
    """Check that ``ds`` follows the contract (variables and dims); return it unchanged.

    Factor dims besides ``(model, question)`` pass here; :func:`refuse_factors` is where a
    command that does not model them stops.

    Parameters
    ----------
    ds : xarray.Dataset
        The dataset to check.

    Returns
    -------
    xarray.Dataset
        ``ds``, unchanged.
    """
    missing = {"correct", "samples", "sum_sq"} - set(ds.data_vars)
    if "samples" in missing and LEGACY_SAMPLES in ds.data_vars:
        raise DataError(
            f"{attr(ds, 'source')}: the variable {LEGACY_SAMPLES!r} is now called 'samples' "
            "(xarray's Dataset.count method hides the old name); rename it with "
            f"ds.rename({{{LEGACY_SAMPLES!r}: 'samples'}}), or pass the dataset to "
            "bayesnoise.load, which renames it"
        )
    if missing or not {MODEL, QUESTION} <= set(ds["correct"].dims):
        raise DataError(
            "Dataset needs variables correct, samples, sum_sq over (model, question); "
            f"missing {sorted(missing)}"
        )
    for name in ("samples", "sum_sq"):
        if set(ds[name].dims) != set(ds["correct"].dims):
            raise DataError(f"{attr(ds, 'source')}: {name} and correct have different dims")
    return ds


def renamed_legacy(ds: xr.Dataset) -> xr.Dataset:
    """``ds`` with the variable ``count`` of bayesnoise 0.1 datasets renamed ``samples``.

    Examples
    --------
    >>> import numpy as np
    >>> old = from_arrays(np.array([[1, 2]]), np.array([[2, 2]])).rename(samples="count")
    >>> sorted(renamed_legacy(old).data_vars)
    ['correct', 'samples', 'sum_sq']
    """
    if LEGACY_SAMPLES in ds.data_vars and "samples" not in ds.data_vars:
        return ds.rename({LEGACY_SAMPLES: "samples"})
    return ds
