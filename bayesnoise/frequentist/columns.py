"""Interval columns of the per-model and per-pair tables, from their variance components."""

from __future__ import annotations

import numpy as np
import xarray as xr

from bayesnoise.frequentist.intervals import (
    accuracy_interval,
    difference_interval,
    here_accuracy_interval,
    here_difference_interval,
)


def model_intervals(comps: dict, *, confidence_level: float, method: str = "wilson") -> dict:
    """Per-model intervals from the variance components of ``_core.model_components``.

    Parameters
    ----------
    comps : dict
        Needs ``accuracy``, ``questions``, ``var_mean``, ``mean_k``, ``var_here`` and
        ``harmonic_k`` ((M,) arrays; variances per question).
    confidence_level : float
    method : {"wilson", "wald"}

    Returns
    -------
    dict of numpy.ndarray
        ``accuracy_low``, ``accuracy_high`` (population: :func:`accuracy_interval`) and
        ``here_low``, ``here_high`` (these questions: :func:`here_accuracy_interval`).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.frequentist import _core
    >>> comps = _core.model_components(np.array([[0.0, 0.5, 1.0, 1.0]]), None, np.full((1, 4), 2))
    >>> out = model_intervals(comps, confidence_level=0.95)
    >>> bool(out["accuracy_low"][0] < out["here_low"][0] < 0.625 < out["here_high"][0])
    True
    """
    acc, n = comps["accuracy"], comps["questions"]
    kw = {"confidence_level": confidence_level, "method": method}
    low, high = accuracy_interval(
        acc, comps["var_mean"], n, samples_per_question=comps["mean_k"], **kw
    )
    here_low, here_high = here_accuracy_interval(
        acc, comps["var_here"], n, comps["harmonic_k"], **kw
    )
    return {
        "accuracy_low": low,
        "accuracy_high": high,
        "here_low": here_low,
        "here_high": here_high,
    }


def pair_intervals(mat: xr.Dataset, ia, ib, *, confidence_level: float, method: str = "tango"):
    """Intervals for the pairs ``(ia[j], ib[j])`` (difference a - b) of a pair dataset.

    Parameters
    ----------
    mat : xarray.Dataset
        From :func:`pair_noise_dataset`.
    ia, ib : array_like of int
        Model indices of each pair.
    confidence_level : float
    method : {"tango", "newcombe", "wald"}
        Population method (:func:`difference_interval`); the these-questions interval is
        Newcombe's combination with correlation 0 (:func:`here_difference_interval`), or Wald
        when ``method="wald"``.

    Returns
    -------
    dict of numpy.ndarray
        ``difference_low``, ``difference_high`` (population) and ``here_low``, ``here_high``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> ds = from_arrays(rng.binomial(4, 0.5, (2, 60)), np.full((2, 60), 4), models=["a", "b"])
    >>> from bayesnoise.frequentist import pair_noise_dataset
    >>> out = pair_intervals(pair_noise_dataset(ds), [0], [1], confidence_level=0.95)
    >>> bool(out["difference_low"][0] < out["here_low"][0] < out["here_high"][0])
    True
    """
    n = mat.attrs["questions"]
    acc, var = mat["accuracy"].values, mat["var_mean_model"].values
    here, hk = mat["var_here_model"].values, mat["harmonic_k_model"].values
    k = mat["samples_per_question_model"].values
    level = {"confidence_level": confidence_level}
    low, high = difference_interval(
        acc[ia],
        acc[ib],
        var[ia],
        var[ib],
        mat["var_mean"].values[ia, ib],
        n,
        samples_per_question=np.minimum(k[ia], k[ib]),
        method=method,
        **level,
    )
    method_here = "wald" if method == "wald" else "newcombe"
    here_low, here_high = here_difference_interval(
        acc[ia], acc[ib], here[ia], here[ib], n, hk[ia], hk[ib], method=method_here, **level
    )
    return {
        "difference_low": low,
        "difference_high": high,
        "here_low": here_low,
        "here_high": here_high,
    }
