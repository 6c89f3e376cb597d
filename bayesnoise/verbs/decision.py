"""The decision-accuracy verb :func:`decision_accuracy` (``bayesnoise decision-accuracy``):
does a small-scale eval rank models the way the target eval does?"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from bayesnoise._common import option
from bayesnoise.data import MODEL, DataError
from bayesnoise.io.frames import (
    has_question_column,
    model_column,
    numeric_scores,
    peek_columns,
    read_table,
)

from ._inputs import (
    _model_list,
    as_seed,
    check_read_options,
    dataset,
    drop_intervals,
    fill_docs,
)
from ._result import to_result

__all__ = ["decision_accuracy"]


def decision_accuracy(
    small,
    target,
    *,
    n_resamples=1000,
    confidence_level=0.95,
    rng=0,
    progress=True,
    **read,
):
    """Fraction of model pairs that two score tables rank the same way
    (``bayesnoise decision-accuracy SMALL TARGET``).

    The signal-and-noise definition (``decision_acc_fast``): the models of both tables are
    matched by name and ordered by name; over every pair i < j,
    ``decision_accuracy = mean[(s_i > s_j) == (t_i > t_j)]``, with ties treated exactly as
    there (a tie counts as "not greater" on its side). Typical use: SMALL holds small-scale
    or early-checkpoint models, TARGET the same training recipes at the target scale.

    Parameters
    ----------
    small, target : path, DataFrame, dataset, array, dict or pandas.Series
        Each either per-question results (anything the other verbs read; the model's score is
        its ``accuracy``, rounded to 12 decimals so that equal totals tie exactly) or one score
        per model: a table without a question column (``model`` and a score column: ``score``,
        ``primary_score``, ``accuracy``, ``pass1``, ``correct`` or ``score_col``), a dict or a
        Series indexed by model.
    n_resamples : int, default 1000
        Replicates of the bootstrap over models (interval) and of the bootstrap over questions
        of each side with per-question results (expected value).
    confidence_level : float or None, default 0.95
        Level of ``decision_accuracy_low/high``; None: no interval columns.
    rng : int or numpy.random.Generator, default 0
        Seed (or generator) of the bootstraps.
    progress : bool, default True
        Progress display on standard error while reading.
    {read}

    Returns
    -------
    xarray.Dataset
        One answer, as scalar variables (no dim; :func:`bayesnoise.tidy`: one row):
        ``models``, ``model_pairs``, ``decision_accuracy`` with
        ``decision_accuracy_low/high`` (percentile bootstrap over models: models resampled with
        replacement, pairs of two different models, weighted by how often both were drawn) and
        ``expected_decision_accuracy``: the decision accuracy the measured noise alone allows,
        i.e. its mean when the small side ranks the models exactly as the target and both are
        re-measured with their bootstrap-over-questions noise (empty when neither side has
        per-question results). Attributes ``measured_noise`` (which sides) and
        ``bootstrap_single_model`` (replicates that drew one model, left out).

    Raises
    ------
    DataError
        A model in one table and not the other (named), fewer than 3 models, a model twice.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> small = {"a": 0.31, "b": 0.35, "c": 0.40, "d": 0.38}
    >>> target = {"a": 0.52, "b": 0.55, "c": 0.61, "d": 0.63}
    >>> r = bn.decision_accuracy(small, target, n_resamples=200)
    >>> round(float(r["decision_accuracy"]), 4), int(r["model_pairs"])
    (0.8333, 6)
    """
    from bayesnoise.frequentist.decision import decision_table

    opts = check_read_options(read, "decision_accuracy")
    s, p_small, name_small = _side(small, "small", opts, progress)
    t, p_target, name_target = _side(target, "target", opts, progress)
    only_small = sorted(set(s.index) - set(t.index))
    only_target = sorted(set(t.index) - set(s.index))
    if only_small or only_target:
        parts = []
        if only_small:
            parts.append(f"in {name_small} but not in {name_target}: {_names(only_small)}")
        if only_target:
            parts.append(f"in {name_target} but not in {name_small}: {_names(only_target)}")
        raise DataError(
            "decision accuracy compares the same models in both tables; models "
            + "; ".join(parts)
            + f" (restrict both with {option('models', '...')})"
        )
    names = sorted(s.index)
    if len(names) < 3:
        raise DataError(
            f"decision accuracy needs at least 3 models shared by both tables (with fewer there "
            f"is at most one pair and nothing to resample); found {len(names)}: {_names(names)}"
        )
    for side, scores in ((name_small, s), (name_target, t)):
        if scores.loc[names].nunique() == 1:
            warnings.warn(
                f"{str(side)[-40:]}: every model has the same score ({scores.iloc[0]:g}), so it "
                "ranks no pair (a tie is 'not greater'): decision accuracy then only counts "
                "the other side's backward pairs",
                UserWarning,
                stacklevel=2,
            )
    table = decision_table(
        names,
        s.loc[names].to_numpy(),
        t.loc[names].to_numpy(),
        small_p=None if p_small is None else p_small.loc[names].to_numpy(),
        target_p=None if p_target is None else p_target.loc[names].to_numpy(),
        n_resamples=n_resamples,
        confidence_level=0.95 if confidence_level is None else confidence_level,
        rng=as_seed(rng),
    )
    table.attrs.update(small=name_small, target=name_target)
    return to_result(drop_intervals(table, confidence_level), None)  # one answer: no dim


fill_docs(decision_accuracy)


def _names(models) -> str:
    shown = ", ".join(map(repr, models[:8]))
    return shown + (f", ... ({len(models)} in all)" if len(models) > 8 else "")


def _side(data, which, opts, progress):
    """(scores by model, per-question score frame or None, name) of one side."""
    import xarray as xr

    from bayesnoise.data import scores
    from bayesnoise.frequentist.quality import model_accuracy

    if isinstance(data, dict | pd.Series):
        series = pd.Series(data, dtype=object)
        name = f"the {which} scores"
        values = numeric_scores(series.to_numpy(), name, [f"model {m!r}" for m in series.index])
        return _restrict(pd.Series(values, index=series.index.astype(str)), opts, name), None, name
    columns = None if isinstance(data, xr.Dataset | np.ndarray) else peek_columns(data)
    if columns is not None and not has_question_column(columns, opts["question_col"]):
        frame, name, _ = read_table(data, "a per-model score table")
        frame.columns = [str(c) for c in frame.columns]
        mcol = model_column(list(frame.columns), opts["model_col"], name)
        from bayesnoise.io.frames import score_column

        scol = score_column(list(frame.columns), opts["score_col"], name)
        models = frame[mcol].astype(str).to_numpy()
        twice = pd.Series(models)[pd.Series(models).duplicated()]
        if not twice.empty:
            raise DataError(
                f"{name}: model {twice.iloc[0]!r} has more than one score; a score table has "
                "one row per model"
            )
        values = numeric_scores(frame[scol].to_numpy(), name, [f"model {m!r}" for m in models])
        return _restrict(pd.Series(values, index=models), opts, name), None, name
    ds = dataset(data, progress=progress, **opts)
    from bayesnoise.data import complete

    ds = complete(ds, on_missing="raise")
    p = scores(ds).values
    models = ds[MODEL].values.astype(str)
    name = str(ds.attrs.get("source", which))
    acc = pd.Series(model_accuracy(p), index=models)
    return acc, pd.DataFrame(p, index=models), name


def _restrict(series, opts, name):
    wanted = _model_list(opts["models"])
    if not wanted:
        return series
    missing = [m for m in wanted if m not in series.index]
    if missing:
        raise DataError(f"{name}: model(s) {_names(missing)} not found")
    return series.loc[wanted]
