"""Signal-to-noise ratios of a benchmark, in two forms that measure different noises.

**Checkpoint SNR** (the signal-and-noise definition, allenai/signal-and-noise ``snr/metrics.py``).
With m_j the final score of model j and s_1..s_n the scores of one model over its last n
training checkpoints::

    signal = max_{j,k} |m_j - m_k| / mean_j(m_j)          (= (max - min) / mean)
    noise  = std(s_1..s_n) / mean(s_1..s_n)               (std with ddof = 0, as numpy)
    snr_checkpoints = signal / noise

The noise is how much the score moves between neighbouring checkpoints of one training run
(:func:`checkpoint_signal`).

**Measured-noise SNR** (this package's noise, for results without checkpoints). The same signal,
over the models' accuracies, divided by one model's standard error relative to its accuracy::

    noise_se_total      = se_total / accuracy        snr_se_total      = signal / noise_se_total
    noise_se_prediction = se_prediction / accuracy   snr_se_prediction = signal / noise_se_prediction

``se_total`` is the SE of a run with one sample per question (data + prediction noise: a
fresh draw of questions and of answers); ``se_prediction`` its prediction-noise part (fresh
answers to these questions), the closer analogue of checkpoint-to-checkpoint noise. Neither
is the checkpoint noise, so the columns carry different names (:func:`measured_signal`).

Eval-Arena's family SNR (bigger against smaller models of one series) is in
:mod:`bayesnoise.frequentist.families`. The cores take plain arrays and know nothing of xarray.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from bayesnoise.data import DataError

__all__ = [
    "checkpoint_order",
    "checkpoint_signal",
    "measured_signal",
    "relative_spread",
    "relative_std",
]

CHECKPOINT_COLUMNS = [
    "noise_model",
    "models",
    "checkpoints",
    "signal",
    "noise_checkpoints",
    "snr_checkpoints",
]
MEASURED_COLUMNS = [
    "noise_model",
    "models",
    "signal",
    "noise_se_total",
    "snr_se_total",
    "noise_se_prediction",
    "snr_se_prediction",
]


def _divide(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(a, dtype=float) / np.asarray(b, dtype=float)


def relative_spread(scores) -> float:
    """The signal: ``max_{j,k} |m_j - m_k| / mean(m)``, the models' score range over their mean.

    Equal to the signal-and-noise ``dispersion / np.mean(signal_scores)`` (the largest pairwise
    absolute difference is max - min, computed by the same float subtraction). NaN when the mean
    is 0 (every model scored 0).

    Examples
    --------
    >>> relative_spread([0.25, 0.5, 0.75])
    1.0
    """
    m = np.asarray(scores, dtype=float).ravel()
    if m.size == 0:
        raise ValueError("relative_spread needs at least one score")
    return float(_divide(m.max() - m.min(), m.mean()))


def relative_std(scores) -> float:
    """The checkpoint noise: ``np.std(s) / np.mean(s)`` (ddof = 0), NaN when the mean is 0.

    Examples
    --------
    >>> round(relative_std([0.5, 0.6, 0.7]), 6)
    0.136083
    """
    s = np.asarray(scores, dtype=float).ravel()
    if s.size == 0:
        raise ValueError("relative_std needs at least one score")
    return float(_divide(np.std(s), np.mean(s)))


def _natural_key(text: str) -> tuple:
    return tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part.lower())
        for part in re.split(r"(\d+)", text)
        if part
    )


def checkpoint_order(labels) -> np.ndarray:
    """Sort keys (floats) of checkpoint labels: their numbers when every label is a number
    (``1000``, ``"2e4"``), else their rank in natural order (``step900`` < ``step1000``).

    Examples
    --------
    >>> checkpoint_order(["step1000", "step900", "step20"]).tolist()
    [2.0, 1.0, 0.0]
    >>> checkpoint_order([300, "20", 1e3]).tolist()
    [300.0, 20.0, 1000.0]
    """
    values = pd.Series(list(labels), dtype=object)
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    if np.isfinite(numbers).all():
        return numbers
    text = [str(v) for v in values]
    distinct = sorted(set(text), key=_natural_key)
    rank = {label: float(i) for i, label in enumerate(distinct)}
    return np.array([rank[t] for t in text], dtype=float)


def checkpoint_signal(
    models,
    checkpoints,
    scores,
    *,
    last: int = 30,
    noise_models: Sequence[str] | None = None,
    where: str = "input",
) -> pd.DataFrame:
    """The signal-and-noise SNR of every model with a checkpoint series (or of the chosen ones).

    Parameters
    ----------
    models : array_like of str, shape (R,)
        Model of each row (one row per model and checkpoint).
    checkpoints : array_like, shape (R,)
        Checkpoint of each row; ordered by :func:`checkpoint_order` (numbers, else natural
        order of the labels).
    scores : array_like of float, shape (R,)
        The model's benchmark score at that checkpoint.
    last : int, default 30
        Noise from the last ``last`` checkpoints of a series (all of them when it is shorter).
    noise_models : sequence of str, optional
        Models whose series give the noise (default: every model with two or more checkpoints).
    where : str
        Name of the input, for error messages.

    Returns
    -------
    pandas.DataFrame
        One row per noise model: ``noise_model``, ``models`` (models in the signal), ``checkpoints``
        (checkpoints in the noise), ``signal`` (:func:`relative_spread` of every model's score at
        its latest checkpoint), ``noise_checkpoints`` (:func:`relative_std` of the noise model's
        last ``checkpoints`` scores) and ``snr_checkpoints`` = signal / noise. ``attrs["final"]``
        maps each model to its final score.

    Raises
    ------
    DataError
        One checkpoint value in every row; no model with two checkpoints; a model and
        checkpoint twice; a chosen noise model missing or without a series; fewer than two
        models; non-finite scores.

    Examples
    --------
    >>> t = checkpoint_signal(["a", "a", "a", "b"], [1, 2, 3, 3], [0.5, 0.6, 0.7, 0.2])
    >>> t[["noise_model", "checkpoints", "signal"]].values.tolist()
    [['a', 3, 1.1111111111111112]]
    """
    if int(last) != last or last < 2:
        raise ValueError(f"last must be a whole number >= 2, got {last!r}")
    df = pd.DataFrame(
        {
            "model": np.asarray(models, dtype=object).astype(str),
            "label": np.asarray(checkpoints, dtype=object),
            "score": np.asarray(scores, dtype=float),
        }
    )
    if df.empty:
        raise DataError(f"{where}: no rows")
    bad = ~np.isfinite(df["score"].to_numpy())
    if bad.any():
        row = df[bad].iloc[0]
        raise DataError(
            f"{where}: model {row['model']!r} has no finite score at checkpoint {row['label']!r}"
        )
    labels = df["label"].astype(str)
    if labels.nunique() == 1:
        raise DataError(
            f"{where}: the checkpoint column holds the one value {labels.iloc[0]!r} in every row, "
            "so there is no series of checkpoints to take the noise from; without checkpoints, "
            "leave the checkpoint column out to get the noise this package measures "
            "(noise_se_total, noise_se_prediction)"
        )
    twice = df.assign(label=labels).duplicated(["model", "label"], keep=False)
    if twice.any():
        row = df[twice].iloc[0]
        raise DataError(
            f"{where}: model {row['model']!r} has checkpoint {row['label']!r} more than once "
            f"({int(twice.sum())} such rows); give one score per model and checkpoint"
        )
    df["order"] = checkpoint_order(df["label"])
    df = df.sort_values(["model", "order"], kind="stable")
    series = {m: g["score"].to_numpy() for m, g in df.groupby("model", sort=False)}
    final = {m: s[-1] for m, s in series.items()}
    if len(final) < 2:
        raise DataError(
            f"{where}: the signal needs at least two models (it is their score range); found "
            f"{', '.join(final)}"
        )
    with_series = [m for m, s in series.items() if s.size >= 2]
    if noise_models is None:
        chosen = with_series
        if not chosen:
            raise DataError(
                f"{where}: no model has two or more checkpoints, so there is no series to take "
                "the noise from (each model appears at one checkpoint)"
            )
    else:
        chosen = [str(m) for m in noise_models]
        for m in chosen:
            if m not in series:
                raise DataError(
                    f"{where}: noise model {m!r} is not in the input; models with a checkpoint "
                    f"series: {', '.join(with_series) or 'none'}"
                )
            if series[m].size < 2:
                raise DataError(
                    f"{where}: noise model {m!r} has one checkpoint; the noise needs a series "
                    f"(models with one: {', '.join(with_series) or 'none'})"
                )
    signal = relative_spread(np.array(list(final.values())))
    rows = []
    for m in chosen:
        tail = series[m][-int(last) :]
        noise = relative_std(tail)
        rows.append((m, len(final), tail.size, signal, noise, float(_divide(signal, noise))))
    table = pd.DataFrame(rows, columns=CHECKPOINT_COLUMNS)
    table.attrs["final"] = {m: float(v) for m, v in final.items()}
    return table


def measured_signal(models, accuracy, se_total, se_prediction) -> pd.DataFrame:
    """SNR with this package's measured noise, one row per model (the noise model).

    Parameters
    ----------
    models : array_like of str, shape (M,)
    accuracy, se_total, se_prediction : array_like, shape (M,)
        Per model, as in ``bayesnoise noise`` (``se_prediction`` NaN when not identifiable).

    Returns
    -------
    pandas.DataFrame
        ``noise_model, models, signal, noise_se_total, snr_se_total, noise_se_prediction,
        snr_se_prediction``: ``signal`` is :func:`relative_spread` of all accuracies, the noises
        are the model's SE over its accuracy (NaN at accuracy 0), the SNRs signal / noise.

    Examples
    --------
    >>> t = measured_signal(["a", "b"], [0.4, 0.6], [0.05, 0.05], [0.03, 0.04])
    >>> t["noise_se_total"].round(4).tolist(), round(float(t["signal"][0]), 3)
    ([0.125, 0.0833], 0.4)
    """
    acc = np.asarray(accuracy, dtype=float)
    if acc.size < 2:
        raise ValueError("the signal needs at least two models")
    signal = relative_spread(acc)
    with np.errstate(divide="ignore", invalid="ignore"):
        noise_total = np.where(acc > 0, _divide(se_total, acc), np.nan)
        noise_pred = np.where(acc > 0, _divide(se_prediction, acc), np.nan)
    return pd.DataFrame(
        {
            "noise_model": np.asarray(models, dtype=object).astype(str),
            "models": acc.size,
            "signal": signal,
            "noise_se_total": noise_total,
            "snr_se_total": _divide(signal, noise_total),
            "noise_se_prediction": noise_pred,
            "snr_se_prediction": _divide(signal, noise_pred),
        },
        columns=MEASURED_COLUMNS,
    )
