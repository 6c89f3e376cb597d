"""xarray/pandas wrappers: per-model and all-pairs noise tables from a loaded dataset."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import xarray as xr

from bayesnoise._common import (
    new_spellings,
    one_line,
    option,
    pair_table,
    reject_old,
    see_warnings,
    triu_pairs,
)
from bayesnoise._progress import Progress
from bayesnoise.data import MODEL, DataError, attr, complete
from bayesnoise.frequentist import _core, _score
from bayesnoise.frequentist.columns import model_intervals, pair_intervals, pair_pvalues

MODEL_A, MODEL_B = "model_a", "model_b"


def _arrays(ds: xr.Dataset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if attr(ds, "binary"):  # w = p (1 - p): the estimators need only its row sums
        return _core.cell_means(ds["correct"].data, ds["samples"].data), None, ds["samples"].data
    p, w = _core.cell_moments(ds["correct"].data, ds["samples"].data, ds["sum_sq"].data)
    return p, w, ds["samples"].data


# Below this many questions the normal approximation behind SE-based intervals and z is poor
# (the paper: N > 100 is "moderately large"; with 30 the tails are already off).
SMALL_N = 30


def _warn_small_n(ds: xr.Dataset, n: int) -> None:
    if n < SMALL_N:
        warnings.warn(
            f"{ds.attrs.get('benchmark', 'benchmark')}: only {n} questions; normal-theory SEs, "
            f"intervals and z are unreliable below {SMALL_N}; {see_warnings('small-n')}",
            UserWarning,
            stacklevel=3,
        )


def _split_note(ds: xr.Dataset, comps: dict) -> str | None:
    """Why the data/prediction split is missing for some models (one line), or None."""
    bad = np.isnan(comps["data"])
    if not bad.any():
        return None
    if not attr(ds, "counts_known"):
        why, todo = "pass1 without sample counts", f"pass {option('samples_per_question')}"
    else:
        why, todo = "K = 1", "run K >= 2"
    text = (
        f"data/prediction split not identifiable for {{who}} ({why}): se_data, se_prediction, "
        f"*_here intervals empty; {todo}; {see_warnings('split')}"
    )
    return one_line(text, ds[MODEL].values[bad])


def deterministic_note(ds: xr.Dataset, p, w, k) -> str | None:
    """One line naming the models that answered each question the same way on every one of
    its K >= 2 samples (within-question variance 0 everywhere: all right or all wrong per
    question), whose ``se_prediction`` 0 is then a measurement, not a gap; or None.
    ``p, w, k``: cell means, within-cell variances (None for 0/1 scores: p (1 - p)) and
    sample counts, as the estimators take them."""
    p, k = np.asarray(p, float), np.asarray(k, float)
    w = p * (1.0 - p) if w is None else np.asarray(w, float)
    repeated = k >= 2
    det = repeated.any(axis=-1) & np.all(~repeated | (np.abs(w) <= 1e-12), axis=-1)
    if not det.any():
        return None
    text = (
        "{who} answered each question the same way on all its samples (deterministic at K > 1): "
        f"prediction noise and se_prediction are 0; {see_warnings('deterministic')}"
    )
    return one_line(text, ds[MODEL].values[det])


MODEL_COLUMNS = [
    "model",
    "questions",
    "samples_per_question",
    "accuracy",
    "se_total",
    "se_data",
    "se_prediction",
    "se_mean",
]


@new_spellings
def model_noise(
    ds: xr.Dataset, *, correction: bool = True, confidence_level: float | None = None, **old
) -> pd.DataFrame:
    """Per-model accuracy and total / data / prediction noise.

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.load`. Each model is measured on the questions it answered.
    correction : bool, default True
        Apply the small-K correction (paper eq. 22-23). ``False`` gives the uncorrected estimators
        data = var_i(p_i), prediction = mean_i(w_i) (what the all-the-noises model tables report;
        biased by a 1/(K-1) share of the prediction variance).
    confidence_level : float, optional
        Add ``accuracy_low``, ``accuracy_high``, a Wilson-type interval for the accuracy on the
        population of questions (:func:`accuracy_interval`), and ``accuracy_here_low``, ``accuracy_here_high``,
        one for the expected accuracy on these questions (:func:`here_accuracy_interval`; NaN
        with K = 1, the reason in ``df.attrs["note"]``).

    Returns
    -------
    pandas.DataFrame
        One row per model: ``model, questions, samples_per_question, accuracy, total, data,
        prediction, se_total, se_data, se_prediction, se_mean``. Variances are per question;
        ``se_x = sqrt(x / N)``; ``se_mean = sqrt(var_i(p_i) / N)`` is the SE of the observed score
        averaged over its samples (= sqrt((data + prediction / K) / N) for constant K). With K = 1
        only the total is identifiable: data, prediction and their SEs are NaN, and the reason is
        warned and stored in ``df.attrs["note"]``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> from bayesnoise.frequentist import model_noise
    >>> ds = from_arrays(np.array([[4, 1, 3, 2]]), np.full((1, 4), 4), models=["a"])
    >>> row = model_noise(ds).iloc[0]
    >>> bool(np.isclose(row.data + row.prediction, row.total))
    True
    """
    reject_old("model_noise", old)
    p, w, k = _arrays(ds)
    comps = _core.model_components(p, w, k, correction=correction)
    n = comps["questions"]
    _warn_small_n(ds, int(n.min(initial=SMALL_N)))
    df = pd.DataFrame(
        {
            "model": ds[MODEL].values.astype(str),
            "questions": n,
            "samples_per_question": comps["mean_k"],
            "accuracy": comps["accuracy"],
            "total": comps["total"],
            "data": comps["data"],
            "prediction": comps["prediction"],
            "se_total": _core.se(comps["total"], n),
            "se_data": _core.se(comps["data"], n),
            "se_prediction": _core.se(comps["prediction"], n),
            "se_mean": _core.se(comps["var_mean"], n),
        }
    )
    if confidence_level is not None:
        df = df.assign(**model_intervals(comps, confidence_level=confidence_level))
    note = _split_note(ds, comps)
    if note:
        warnings.warn(note, UserWarning, stacklevel=2)
        df.attrs["note"] = note
    same = deterministic_note(ds, p, w, k)
    if same:
        warnings.warn(same, UserWarning, stacklevel=2)
        df.attrs["note"] = f"{note}; {same}" if note else same
    return df


def pair_noise_dataset(
    ds: xr.Dataset,
    *,
    on_missing: str = "raise",
    correction: bool = True,
    n_resamples: int = 0,
    resampling: str = "both",
    rng: int | None = 0,
    progress: bool = True,
) -> xr.Dataset:
    """All-pairs paired noise as M x M matrices with dims ``(model_a, model_b)``.

    Built from one M x M covariance of the per-question mean scores (no loop over pairs).
    Entry (a, b) describes ``a - b``. Variables: ``difference``, ``total``, ``data``,
    ``prediction``, ``var_mean``, ``se_total``, ``se_data``, ``se_prediction``, ``se_difference``,
    ``z`` (difference / se_difference), ``correlation`` and the p-values:

    * of the comparison measured, the K-averaged per-question differences d_i: ``p_value``
      (paired t test: t = z sqrt((N - 1) / N) against Student t with N - 1 degrees of freedom),
      ``p_value_sign_questions`` (exact sign test on the signs of d_i, ties
      dropped; ``questions_a_above`` counts d_i > 0) and, with ``n_resamples > 0`` and
      ``resampling`` "both" or "permutation",
      ``p_value_permutation`` (sign-flip permutation test of sum_i d_i, seeded by ``rng``);
    * Eval-Arena's one-sample-level tests on the expected win counts ``wins_a``
      (sum_i p_a (1 - p_b)): ``p_value_sign_one_sample`` and ``p_value_mcnemar_one_sample``. At K > 1 they
      test a one-sample-per-question comparison and are nearly powerless for the averaged one.

    With ``n_resamples > 0`` and ``resampling`` "both" or "bootstrap" also ``se_bootstrap`` (paired bootstrap over questions, seeded by
    ``rng``). ``z`` is NaN, with the reason in ``attrs["note"]``, where var_i(p_a - p_b)
    is zero up to rounding (<= 1e-12 times the square of the largest |score| of the two models).

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.load`, with at least two models.
    on_missing : {"raise", "intersect"}
        What to do when models do not cover the same questions.
    correction : bool, default True
        Small-K correction of the paired data/prediction split.
    n_resamples : int, default 0
        Paired bootstrap replicates and random sign vectors of the permutation test, for the
        columns ``resampling`` names (0: no ``se_bootstrap``, no ``p_value_permutation``).
    resampling : {"both", "bootstrap", "permutation"}, default "both"
        Which resampling ``n_resamples`` counts: both, only the bootstrap or only the
        permutation test.
    rng : int or numpy.random.Generator, optional
        Seed of the bootstrap and of the permutations.
    progress : bool, default True
        Show the steps on standard error when they take more than a second.

    Returns
    -------
    xarray.Dataset
        The M x M matrices above, per-model ``accuracy`` and the per-model moments the interval
        functions use (``var_mean_model``, ``var_here_model``, ``harmonic_k_model``,
        ``samples_per_question_model``, ``scale_model``).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> from bayesnoise.frequentist import pair_noise_dataset
    >>> rng = np.random.default_rng(0)
    >>> ds = from_arrays(rng.integers(0, 2, (3, 50)), np.ones((3, 50)), models=["a", "b", "c"])
    >>> out = pair_noise_dataset(ds)
    >>> bool(np.allclose(out.difference, -out.difference.T))
    True
    """
    if ds.sizes[MODEL] < 2:
        raise DataError(
            f"{attr(ds, 'source')}: pairs need at least two models; it holds "
            f"{ds.sizes[MODEL]} ({', '.join(map(str, ds[MODEL].values))})"
        )
    if resampling not in ("both", "bootstrap", "permutation"):
        raise ValueError(f"resampling must be both, bootstrap or permutation; not {resampling!r}")
    n_boot = n_resamples if resampling in ("both", "bootstrap") else 0
    n_permutations = n_resamples if resampling in ("both", "permutation") else 0
    ds = complete(ds, on_missing=on_missing)
    _warn_small_n(ds, ds.sizes["question"])
    bar = Progress("bayesnoise pairs", enabled=progress)
    p, w, k = _arrays(ds)
    comps = _core.pair_components(p, w, k, correction=correction, progress=bar)
    n, wins = comps["n"], comps["wins"]
    scale = comps["model"]["scale"]
    se_mean, z, flat = _score.pair_z(comps["difference"], comps["var_mean"], n, scale)
    dims = (MODEL_A, MODEL_B)
    names = ds[MODEL].values.astype(str)
    gen = np.random.default_rng(rng) if n_permutations > 0 else None
    bar.step("p-values")
    tests = pair_pvalues(p, z, wins, n_resamples=n_permutations, rng=gen, above=comps["above"])
    out = xr.Dataset(
        {
            "difference": (dims, comps["difference"]),
            "total": (dims, comps["total"]),
            "data": (dims, comps["data"]),
            "prediction": (dims, comps["prediction"]),
            "var_mean": (dims, comps["var_mean"]),
            "se_total": (dims, _core.se(comps["total"], n)),
            "se_data": (dims, _core.se(comps["data"], n)),
            "se_prediction": (dims, _core.se(comps["prediction"], n)),
            "se_difference": (dims, se_mean),
            "z": (dims, z),
            "wins_a": (dims, wins),
            **{name: (dims, value) for name, value in tests.items()},
            "correlation": (dims, comps["correlation"]),
            "accuracy": (MODEL, comps["model"]["accuracy"]),
            "var_mean_model": (MODEL, comps["model"]["var_mean"]),
            "var_here_model": (MODEL, comps["model"]["var_here"]),
            "harmonic_k_model": (MODEL, comps["model"]["harmonic_k"]),
            "samples_per_question_model": (MODEL, comps["model"]["mean_k"]),
            "scale_model": (MODEL, scale),
        },
        coords={MODEL_A: names, MODEL_B: names, MODEL: names},
        attrs={
            "questions": int(n),
            "benchmark": ds.attrs.get("benchmark", ""),
            "correction": bool(correction),
        },
    )
    note = _split_note(ds, comps["model"])
    n_flat = int(np.triu(flat, k=1).sum())
    if n_flat:
        why = (
            f"z not computed for {n_flat} pair(s): the variance of the paired difference is zero "
            "up to rounding (<= 1e-12 * largest |score|^2; the models agree on every question "
            "or there is one question)"
        )
        note = f"{note}; {why}" if note else why
    if note:
        warnings.warn(note, UserWarning, stacklevel=2)
        out.attrs["note"] = note
    if n_boot > 0:
        bar.step("bootstrap")
        cov = _core.bootstrap_cov(p, n_resamples=n_boot, rng=np.random.default_rng(rng))
        var = np.diag(cov)
        out["se_bootstrap"] = (dims, np.sqrt(np.maximum(var[:, None] + var[None, :] - 2 * cov, 0)))
    if n_resamples > 0:
        out.attrs["n_resamples"] = int(n_resamples)
        out.attrs["resampling"] = resampling
    bar.close()
    return out


PAIR_COLUMNS = [
    "model_a",
    "model_b",
    "accuracy_a",
    "accuracy_b",
    "difference",
    "se_total",
    "se_data",
    "se_prediction",
    "se_difference",
    "z",
    "p_value",
    "p_value_adjusted",
    "p_value_sign_questions",
    "correlation",
]
# Eval-Arena's tests at the level of one sample per question: same as the sign test on the d_i
# (sign) or its chi-square approximation (McNemar) at K = 1, nearly powerless at K > 1.
ONE_SAMPLE_COLUMNS = ["p_value_sign_one_sample", "p_value_mcnemar_one_sample"]


def _pair_rows(mat: xr.Dataset, columns: list[str]) -> pd.DataFrame:
    """One row per unordered pair from :func:`pair_noise_dataset` matrices, attrs kept."""
    df = pair_table(
        mat[MODEL].values,
        {name: mat[name].values for name in columns},
        per_model={"accuracy": mat["accuracy"].values},
    )
    df.attrs.update({k: mat.attrs[k] for k in ("questions", "note") if k in mat.attrs})
    return df


@new_spellings
def pair_noise(
    ds: xr.Dataset,
    *,
    on_missing: str = "raise",
    correction: bool = True,
    max_difference: float | None = None,
    n_resamples: int = 0,
    resampling: str = "both",
    rng: int | None = 0,
    confidence_level: float | None = None,
    adjust: str = "holm",
    progress: bool = True,
    **old,
) -> pd.DataFrame:
    """Tidy table of all unordered model pairs (a before b in the dataset's model order).

    Parameters
    ----------
    ds : xarray.Dataset
    on_missing : {"raise", "intersect"}
        What to do when models do not cover the same questions (see :func:`bayesnoise.complete`).
    correction : bool, default True
        Small-K correction of the paired data/prediction split.
    max_difference : float, optional
        Keep only pairs with ``|difference| <= max_difference``.
    n_resamples : int, default 0
        Resamples of the columns ``resampling`` names, when > 0: ``se_bootstrap`` (paired
        bootstrap over questions) and ``p_value_permutation`` (a sign-flip permutation test on
        the d_i with this many seeded random sign vectors).
    resampling : {"both", "bootstrap", "permutation"}, default "both"
        Which of the two ``n_resamples`` adds.
    rng : int or numpy.random.Generator, optional
        Seed of the bootstrap and of the permutations.
    confidence_level : float, optional
        Add ``difference_low``, ``difference_high``, a score interval for the difference of the
        two models' accuracies on the population of questions (:func:`difference_interval`),
        and ``difference_here_low``, ``difference_here_high``, one for the difference of their expected accuracies on
        these questions (:func:`here_difference_interval`; NaN with K = 1).
    adjust : {"holm", "bh", "bonferroni", "none"}, default "holm"
        Multiplicity adjustment of ``p_value`` in ``p_value_adjusted``
        (:func:`bayesnoise.decide.adjust_pvalues`), over *all* M (M - 1) / 2 pairs, before the
        ``max_difference`` filter; ``"none"``: no ``p_value_adjusted`` column.
    progress : bool, default True
        Show the steps on standard error when they take more than a second.

    Returns
    -------
    pandas.DataFrame
        Columns ``model_a, model_b, accuracy_a, accuracy_b, difference, se_total, se_data,
        se_prediction, se_difference, z, p_value, p_value_adjusted, p_value_sign_questions, correlation`` (with
        ``p_value_permutation``) then ``p_value_sign_one_sample, p_value_mcnemar_one_sample`` and the variances
        ``total, data, prediction`` (and ``se_bootstrap``). ``p_value``, ``p_value_sign_questions``
        and ``p_value_permutation`` test the difference measured, of the K-averaged per-question
        scores d_i; the ``*_one_sample`` p-values are Eval-Arena's tests of one sample per
        question against another (see :func:`pair_noise_dataset`). ``attrs`` holds ``adjust``
        and ``family_size`` (the number of p-values adjusted together). ``se_total`` is the
        noise of a one-sample-per-question run (what the paper tabulates); ``se_difference`` is the SE
        of the difference actually observed, and ``z`` uses it. A negative estimated paired data
        variance (possible after the small-K correction) is kept, signed, in ``data``; its
        ``se_data`` is 0 (variance components are truncated at zero).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> from bayesnoise.frequentist import pair_noise
    >>> rng = np.random.default_rng(0)
    >>> ds = from_arrays(rng.integers(0, 2, (3, 50)), np.ones((3, 50)), models=["a", "b", "c"])
    >>> len(pair_noise(ds))
    3
    """
    reject_old("pair_noise", old)
    from .multiplicity import adjust_pvalues

    mat = pair_noise_dataset(
        ds,
        on_missing=on_missing,
        correction=correction,
        n_resamples=n_resamples,
        resampling=resampling,
        rng=rng,
        progress=progress,
    )
    n_boot = n_resamples if resampling in ("both", "bootstrap") else 0
    n_permutations = n_resamples if resampling in ("both", "permutation") else 0
    tests = ["p_value_permutation"] if n_permutations > 0 else []
    extra = [*ONE_SAMPLE_COLUMNS, "total", "data", "prediction"]
    extra += ["se_bootstrap"] if n_boot > 0 else []
    names = [c for c in PAIR_COLUMNS[4:] if c != "p_value_adjusted"]
    df = _pair_rows(mat, [*names[:-1], *tests, names[-1], *extra])
    adjusted = adjust_pvalues(df["p_value"].to_numpy(), adjust)  # all pairs, before any filter
    if adjust != "none":
        df.insert(df.columns.get_loc("p_value") + 1, "p_value_adjusted", adjusted)
    df.attrs.update(adjust=adjust, family_size=int(np.isfinite(df["p_value"]).sum()))
    if confidence_level is not None:
        ia, ib = triu_pairs(mat.sizes[MODEL])
        df = df.assign(**pair_intervals(mat, ia, ib, confidence_level=confidence_level))
    if max_difference is not None:
        df = df[np.abs(df["difference"]) <= max_difference].reset_index(drop=True)
    return df
