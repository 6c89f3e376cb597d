"""The signal-to-noise verb :func:`signal` (``bayesnoise signal``): is the benchmark worth
running, and which of its subtasks?"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bayesnoise._common import one_line, see_warnings
from bayesnoise.data import MODEL, DataError
from bayesnoise.io.frames import peek_columns, read_table

from ._inputs import check_read_options, fill_docs
from ._result import to_result
from ._signal_inputs import signal_parts

__all__ = ["signal"]

_MEASURED = ["noise_se_total", "snr_se_total", "noise_se_prediction", "snr_se_prediction"]


def signal(
    data,
    *,
    checkpoint_column=None,
    last=30,
    noise_model=None,
    group_column=None,
    families=None,
    progress=True,
    **read,
):
    """Signal-to-noise ratio of a benchmark, per subtask, or of model families
    (``bayesnoise signal``).

    Two forms, never printed under each other's name. Both share the **signal**, the spread
    of the models' scores relative to their mean: ``signal = max_{j,k} |m_j - m_k| / mean(m)``.

    * With ``checkpoint_column`` (the signal-and-noise definition): m_j is every model's score
      at its latest checkpoint; the noise of a model with a checkpoint series is
      ``noise_checkpoints = std(last n scores) / mean(last n scores)`` (ddof 0) and
      ``snr_checkpoints = signal / noise_checkpoints``. Models evaluated once appear with one
      checkpoint and count in the signal only.
    * Without checkpoints (this package's measured noise): m_j is every model's accuracy;
      ``noise_se_total = se_total / accuracy`` (a fresh draw of questions and answers, one
      sample per question) and ``noise_se_prediction = se_prediction / accuracy`` (fresh
      answers to these questions, the closer analogue of checkpoint noise; empty at K = 1),
      with ``snr_se_total`` and ``snr_se_prediction`` = signal / noise. With question-level
      checkpoint data these are added for the noise model's final checkpoint.

    With ``families``: Eval-Arena's family SNR instead, for each bigger model A and the next
    smaller model B of one series, ``family_snr = (acc_A - acc_B) / se_difference /
    log2(size_A / size_B)`` = ``z / size_doublings`` (``z`` and ``se_difference`` as in ``pairs``).

    Parameters
    ----------
    {input}
    checkpoint_column : str, optional
        Column of the training checkpoint (step) of each row: numbers, or labels sorted in
        natural order. The input is then a table (file or DataFrame), either per question
        (models, questions, scores as usual) or one score per model and checkpoint (no
        question column; the score column is ``score_col`` or one of ``score``,
        ``primary_score``, ``accuracy``, ``pass1``, ``correct``).
    last : int, default 30
        The noise uses each series' last ``last`` checkpoints (the seed's large-scale SNR).
    noise_model : str, optional
        The one model whose noise to use (default: every model with a checkpoint series, or
        without checkpoints every model), one row each.
    group_column : str, optional
        A column naming the subtask of each question (e.g. MMLU subjects, or a benchmark
        column): one result per subtask, so that low-SNR subtasks can be dropped. Needs a
        table, or a loaded dataset with this coordinate along ``question``.
    families : str or pandas.DataFrame, optional
        Model series: a table (path or DataFrame) with columns ``model, family, size``, or a
        regular expression with a group named ``size`` (and optionally ``family``; without it
        the family is the name with the size replaced by ``*``), e.g.
        ``"(?P<size>\\d+(\\.\\d+)?)[bB]"``. Models that match no family are named in a warning.
    progress : bool, default True

    Returns
    -------
    xarray.Dataset
        Dim ``subtask`` (with ``group_column``; else ``noise_model``, one row), or ``pair``
        (families; labels ``"A - B"``, prefixed ``"subtask: "`` with groups). Checkpoints: ``[subtask,] noise_model, models, checkpoints, signal,
        noise_checkpoints, snr_checkpoints`` (+ the measured-noise columns for
        question-level data). Without: ``[subtask,] noise_model, models, signal,
        noise_se_total, snr_se_total, noise_se_prediction, snr_se_prediction``. Families:
        ``[subtask,] model_a, model_b, family, size_a, size_b, accuracy_a, accuracy_b,
        difference, se_difference, z, size_doublings, family_snr``. Attribute ``form``
        (``checkpoints``, ``measured`` or ``families``).

    Examples
    --------
    >>> import bayesnoise as bn
    >>> r = bn.signal("examples/data/cruxeval_output_temp0.8.csv.gz", noise_model="phind")
    >>> round(float(r["signal"][0]), 3), round(float(r["snr_se_total"][0]), 1)
    (0.115, 2.6)
    """
    opts = check_read_options(read)
    if int(last) != last or last < 2:
        raise DataError(f"last must be a whole number >= 2 (checkpoints in the noise), not {last}")
    if families is not None and checkpoint_column is not None:
        raise DataError(
            "families compares finished models of one series; leave out checkpoint_column "
            "(or keep only the final checkpoints)"
        )
    parts = signal_parts(data, checkpoint_column, group_column, opts, progress)
    spec = _family_spec(families) if families is not None else None
    tables = []
    for group, part in parts:
        where = part["where"]
        if spec is not None:
            table = _families(part["ds"], spec, opts, where)
            form = "families"
        elif checkpoint_column is not None:
            table = _checkpoints(part, last, noise_model, where)
            form = "checkpoints"
        else:
            table = _measured(part["ds"], noise_model, where)
            form = "measured"
        if group_column is not None:
            table.insert(0, "subtask", str(group))
        tables.append(table)
    out = pd.concat(tables, ignore_index=True)
    out.attrs.update(form=form, checkpoint_column=checkpoint_column or "", last=int(last))
    if group_column is not None:
        out.attrs["group_column"] = str(group_column)
    if form == "families":
        return to_result(out, "pair")
    return to_result(out, "subtask" if group_column is not None else "noise_model")


fill_docs(signal)


# --- the three forms -----------------------------------------------------------------------


def _model_count(n: int, where: str) -> None:
    if n < 2:
        raise DataError(
            f"{where}: the signal needs at least two models (it is the spread of their "
            f"scores); found {n}"
        )
    if n == 2:
        warnings.warn(
            f"{where}: only two models: the signal is their one difference over their mean",
            UserWarning,
            stacklevel=4,
        )


def _all_zero(scores, where: str) -> None:
    if np.all(np.asarray(scores, dtype=float) == 0):
        raise DataError(
            f"{where}: every model scored 0 on every question (all questions unsolved): the "
            "signal (max - min) / mean score is 0 / 0 and the relative noise undefined"
        )


def _noise_frame(ds, where):
    from bayesnoise import frequentist

    with warnings.catch_warnings():  # the K = 1 split note is stated once below instead
        warnings.filterwarnings("ignore", message="data/prediction split not identifiable")
        table = frequentist.model_noise(ds)
    empty = table["se_prediction"].isna().to_numpy()
    if empty.any():
        text = (  # one line: no file path (it can be long); the command names the file
            "noise_se_prediction is empty for {who} with K = 1 (or pass1 without counts): run "
            f"K >= 2; {see_warnings('split')}"
        )
        warnings.warn(
            one_line(text, table["model"][empty]),
            UserWarning,
            stacklevel=4,
        )
    return table


def _zero_accuracy(models, accuracy, where):
    zero = [m for m, a in zip(models, accuracy, strict=True) if a == 0]
    if zero:
        warnings.warn(
            f"{where}: {len(zero)} model(s) scored 0 ({', '.join(zero[:5])}"
            f"{', ...' if len(zero) > 5 else ''}): their relative noise (SE / accuracy) is "
            "undefined and left empty",
            UserWarning,
            stacklevel=4,
        )


def _measured(ds, noise_model, where) -> pd.DataFrame:
    from bayesnoise.frequentist.signal import measured_signal

    _model_count(ds.sizes[MODEL], where)
    table = _noise_frame(ds, where)
    _all_zero(table["accuracy"], where)
    out = measured_signal(
        table["model"], table["accuracy"], table["se_total"], table["se_prediction"]
    )
    if noise_model is not None:
        if str(noise_model) not in set(out["noise_model"]):
            raise DataError(
                f"{where}: noise model {noise_model!r} is not in the results; models are "
                f"{', '.join(out['noise_model'])}"
            )
        out = out[out["noise_model"] == str(noise_model)]
    accuracy = table.set_index("model").loc[out["noise_model"], "accuracy"].to_numpy()
    _zero_accuracy(list(out["noise_model"]), accuracy, where)
    return out.reset_index(drop=True)


def _checkpoints(part, last, noise_model, where) -> pd.DataFrame:
    from bayesnoise.frequentist.signal import (
        CHECKPOINT_COLUMNS,
        checkpoint_order,
        checkpoint_signal,
    )

    chosen = None if noise_model is None else [str(noise_model)]
    if "scores" in part:
        rows = part["scores"]
        _model_count(rows["model"].nunique(), where)
        _all_zero(rows["score"], where)
        return checkpoint_signal(
            rows["model"],
            rows["checkpoint"],
            rows["score"],
            last=last,
            noise_models=chosen,
            where=where,
        )
    ds, base = part["ds"], part["base"]
    table = _noise_frame(ds, where)
    labels = table["model"].to_list()
    model = [base[lab][0] for lab in labels]
    step = [base[lab][1] for lab in labels]
    _model_count(len(set(model)), where)
    _all_zero(table["accuracy"], where)
    out = checkpoint_signal(
        model, step, table["accuracy"], last=last, noise_models=chosen, where=where
    )
    # the measured noise of each noise model's final checkpoint, beside the checkpoint noise
    order = checkpoint_order(step)
    frame = table.assign(base=model, order=order).sort_values(["base", "order"], kind="stable")
    final = frame.groupby("base", sort=False).tail(1).set_index("base")
    rows = final.loc[out["noise_model"]]
    acc = rows["accuracy"].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        for kind in ("total", "prediction"):
            noise = np.where(acc > 0, rows[f"se_{kind}"].to_numpy(float) / acc, np.nan)
            out[f"noise_se_{kind}"] = noise
            out[f"snr_se_{kind}"] = out["signal"].to_numpy(float) / noise
    return out[[*CHECKPOINT_COLUMNS, *_MEASURED]]


def _family_spec(families):
    if isinstance(families, pd.DataFrame | re.Pattern):
        return families
    text = str(families)
    columns = peek_columns(text) if Path(text).is_file() else None
    if columns is not None:
        frame, _, _ = read_table(text, "families")
        frame.attrs["name"] = text
        return frame
    try:
        return re.compile(text)
    except re.error as err:
        raise DataError(
            f"families {text!r} is neither a table file (model, family, size) nor a regular "
            f"expression ({err})"
        ) from None


def _families(ds, spec, opts, where) -> pd.DataFrame:
    from bayesnoise.frequentist.families import family_signal, family_table

    name = (
        spec.attrs.get("name", "families table")
        if isinstance(spec, pd.DataFrame)
        else (f"families {getattr(spec, 'pattern', spec)!r}")
    )
    table = family_table(list(map(str, ds[MODEL].values)), spec, where=name)
    unmatched = table.attrs["unmatched"]
    if unmatched:
        shown = ", ".join(unmatched[:8]) + (", ..." if len(unmatched) > 8 else "")
        warnings.warn(
            f"{where}: {len(unmatched)} of {ds.sizes[MODEL]} models belong to no family "
            f"({name}) and are left out of the family SNR: {shown}",
            UserWarning,
            stacklevel=3,
        )
    return family_signal(ds, table, on_missing="intersect" if opts["intersect"] else "raise")
