"""Graded scores become success / failure: ``score >= T`` (``success="above"``, T inclusive) or
``score <= T`` (``success="below"``, e.g. a distance), before anything else is computed.

Two entry points: :func:`threshold_samples` for per-sample scores (a numpy array, NaN = not
drawn; the readers of per-sample tables and logs threshold each row with it, or with
:func:`passes`, before summing) and :func:`threshold_dataset` for a loaded dataset. A dataset
keeps per cell only the sum and the sum of squares of its K sample scores, which fixes every
sample's score when K = 1, when the scores are 0/1, or when the K scores of the cell are equal;
a cell of K > 1 different graded scores (:func:`summed_graded`) is refused (its samples' scores
are not in the dataset any more), never guessed.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from bayesnoise._common import by_caller, option

from .schema import DataError, attr

__all__ = [
    "check_range",
    "check_threshold",
    "mark_thresholded",
    "passes",
    "summed_graded",
    "threshold_dataset",
    "threshold_note",
    "threshold_samples",
]

#: Which side of the threshold is a success.
SUCCESS = ("above", "below")
# Relative tolerance for "the K scores of a cell are equal": K sum_sq == correct^2.
_EQUAL_TOL = 1e-9


def check_threshold(threshold, success: str) -> float:
    """``threshold`` as a float, after checking it and ``success``.

    Examples
    --------
    >>> check_threshold("0.7", "above")
    0.7
    """
    if success not in SUCCESS:
        raise DataError(f"success must be 'above' or 'below', got {success!r}")
    try:
        value = float(threshold)
    except (TypeError, ValueError):
        raise DataError(f"threshold must be a number, got {threshold!r}") from None
    if not np.isfinite(value):
        raise DataError(f"threshold must be a finite number, got {threshold!r}")
    return value


def threshold_note(threshold: float, success: str) -> str:
    """The one line that says how scores were turned into successes.

    Examples
    --------
    >>> threshold_note(0.7, "above")
    'scores >= 0.7 count as success (threshold 0.7, success above)'
    """
    sign = ">=" if success == "above" else "<="
    return (
        f"scores {sign} {threshold:g} count as success (threshold {threshold:g}, success {success})"
    )


def passes(values, threshold: float, success: str):
    """Boolean array: which ``values`` are successes (``>= threshold`` above, ``<=`` below).

    Examples
    --------
    >>> passes(np.array([0.2, 0.7, 0.9]), 0.7, "below").tolist()
    [True, True, False]
    """
    return values >= threshold if success == "above" else values <= threshold


def mark_thresholded(ds: xr.Dataset, threshold: float, success: str) -> xr.Dataset:
    """``ds`` (whose scores were thresholded sample by sample) with the attributes that say so:
    ``binary``, ``counts_known``, ``threshold``, ``success`` and ``threshold_note``."""
    t = float(threshold)
    ds.attrs.update(
        binary=True,
        counts_known=True,
        threshold=t,
        success=success,
        threshold_note=threshold_note(t, success),
    )
    return ds


def check_range(low: float, high: float, threshold: float, source: str) -> None:
    """A :class:`DataError` when ``threshold`` is outside ``[low, high]``, the scores' range."""
    if threshold < low or threshold > high:
        raise DataError(
            f"{source}: threshold {threshold:g} is outside the scores' range [{low:g}, {high:g}]: "
            "every answer would be counted the same (all successes or all failures); choose a "
            "threshold inside the range (scores must be in [0, 1])"
        )


def threshold_samples(values, threshold, success: str = "above", *, source: str = "scores"):
    """Per-sample scores as 1.0 (success) / 0.0 (failure); NaN (not drawn) stays NaN.

    Parameters
    ----------
    values : array_like
        Scores; NaN marks a sample that was not drawn.
    threshold : float
        Inclusive threshold, inside the observed range of the scores.
    success : {"above", "below"}, default "above"
    source : str
        Named in error messages.

    Returns
    -------
    numpy.ndarray of float

    Raises
    ------
    DataError
        A threshold outside the scores' range (everything would be one class).

    Examples
    --------
    >>> threshold_samples([0.2, 0.7, float("nan"), 0.9], 0.7).tolist()
    [0.0, 1.0, nan, 1.0]
    """
    t = check_threshold(threshold, success)
    v = np.asarray(values, dtype=float)
    drawn = ~np.isnan(v)
    if not drawn.any():
        raise DataError(f"{source}: no scores to threshold")
    check_range(float(v[drawn].min()), float(v[drawn].max()), t, source)
    return np.where(drawn, passes(v, t, success).astype(float), np.nan)


def threshold_dataset(ds: xr.Dataset, threshold, success: str = "above") -> xr.Dataset:
    """The dataset with every sample score replaced by 1 (success) or 0 (failure).

    Parameters
    ----------
    ds : xarray.Dataset
        The package's dataset (``correct``, ``samples``, ``sum_sq``); a fractional ``pass1``
        without counts is one graded value per question.
    threshold : float
        Inclusive threshold, inside the observed range of the scores.
    success : {"above", "below"}, default "above"
        ``"above"``: a score ``>= threshold`` is a success; ``"below"``: ``<= threshold``.

    Returns
    -------
    xarray.Dataset
        0/1 scores (``binary=True``), attributes ``threshold``, ``success`` and
        ``threshold_note``.

    Raises
    ------
    DataError
        A threshold outside the scores' range; a cell whose K > 1 graded scores differ (the
        dataset holds only their sum: give the per-sample scores, see the message).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> s = np.array([[0.4, 0.8, 0.65]])
    >>> ds = from_arrays(s, np.ones((1, 3)), sum_sq=s**2)
    >>> threshold_dataset(ds, 0.65)["correct"].values.tolist()
    [[0.0, 1.0, 1.0]]
    """
    t = check_threshold(threshold, success)
    source = attr(ds, "source")
    # A fractional pass1 without its counts (counts_known=False) is one graded value per
    # question (samples = 1): thresholding it is Eval-Arena's "solved" (pass1 > 0.5), and the
    # result is one known 0/1 outcome per question.
    dims = ds["correct"].dims
    c = ds["correct"].values.astype(float)
    k = ds["samples"].transpose(*dims).values.astype(float)
    sq = ds["sum_sq"].transpose(*dims).values.astype(float)
    answered = k > 0
    if not answered.any():
        raise DataError(f"{source}: no answered question to threshold")
    kk = np.where(answered, k, 1.0)
    bad = _summed_cells(c, k, sq) if not attr(ds, "binary") else None
    if bad is not None and bad.any():
        cell = np.argwhere(bad)[0]
        where = ", ".join(
            f"{d} {ds[d].values[i]}" if d in ds.coords else f"{d} {i}"
            for d, i in zip(dims, cell, strict=True)
        )
        raise DataError(
            f"{source}: {where}: {int(k[tuple(cell)])} graded samples were summed before the "
            "threshold (a count table, a NetCDF file or a loaded dataset keeps one sum per "
            "cell), so their scores cannot be thresholded one by one; threshold where the "
            "per-sample scores are: read the per-sample table or log with "
            f"{option('threshold', 'T')}"
            + by_caller(
                ", or give a (model, question, sample) array (bn.rate(array, threshold=...))", ""
            )
        )
    if attr(ds, "binary"):
        # 0/1 samples: c ones and K - c zeros in each cell.
        ones, zeros = answered & (c > 0), answered & (c < k)
        low = 0.0 if zeros.any() else 1.0
        high = 1.0 if ones.any() else 0.0
        check_range(low, high, t, source)
        new = c * float(passes(1.0, t, success)) + (k - c) * float(passes(0.0, t, success))
    else:
        value = c / kk  # the score of each sample where the cell's samples are equal
        check_range(float(value[answered].min()), float(value[answered].max()), t, source)
        new = np.where(answered, k * passes(value, t, success), 0.0)
    out = ds.copy()
    out["correct"] = (dims, new.astype(float))
    out["sum_sq"] = (dims, new.astype(float))
    return mark_thresholded(out, t, success)


def _summed_cells(c, k, sq):
    """Cells whose K > 1 graded scores differ (sum of squares above sum^2 / K)."""
    kk = np.where(k > 0, k, 1.0)
    equal = (k <= 1) | np.isclose(kk * sq, c * c, rtol=_EQUAL_TOL, atol=1e-12)
    return ~equal


def summed_graded(ds: xr.Dataset) -> bool:
    """Whether some cell of ``ds`` holds K > 1 graded scores that differ: then only the
    per-sample scores (not the dataset) can be thresholded.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> summed_graded(from_arrays(np.array([[1.3]]), np.array([[2]]), sum_sq=np.array([[0.85]])))
    True
    """
    if attr(ds, "binary"):
        return False
    dims = ds["correct"].dims
    c = ds["correct"].values.astype(float)
    k = ds["samples"].transpose(*dims).values.astype(float)
    sq = ds["sum_sq"].transpose(*dims).values.astype(float)
    return bool(_summed_cells(c, k, sq).any())
