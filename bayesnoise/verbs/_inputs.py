"""The one way a verb turns its ``data`` argument and input options into a dataset."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from bayesnoise.data import MODEL, DataError, attr

#: Input options every data verb takes (the command line's shared input flags), with defaults.
READ_OPTIONS = {
    "benchmark": None,
    "models": None,
    "model_col": None,
    "question_col": None,
    "score_col": None,
    "sample_col": None,
    "count_col": None,
    "benchmark_col": None,
    "cluster_col": None,
    "scorer": None,
    "score_key": None,
    "use_scored": False,
    "merge_duplicates": False,
    "metric": None,
    "filter": None,
    "samples_per_question": None,
    "intersect": False,
    "factors": None,
}

_COLUMN_ROLES = ("model", "question", "score", "sample", "count", "benchmark", "cluster")


def check_read_options(read: dict) -> dict:
    """``read`` with defaults filled in; an unknown option is a :class:`TypeError`."""
    unknown = sorted(set(read) - set(READ_OPTIONS))
    if unknown:
        raise TypeError(
            f"unknown option(s) {', '.join(unknown)}; input options are {', '.join(READ_OPTIONS)}"
        )
    return {**READ_OPTIONS, **read}


def _model_list(models) -> list[str] | None:
    if models is None:
        return None
    if isinstance(models, str):
        models = [m.strip() for m in models.split(",")]
    out = [str(m) for m in models if str(m).strip()]
    return out or None


def dataset(data, *, progress: bool = True, factors_ok: bool = False, **read):
    """The dataset that ``data`` and the input options describe.

    ``data`` is anything :func:`bayesnoise.load` reads (a path, a glob, several paths, a
    DataFrame, a DataArray of scores), a loaded dataset, or a numpy array of 0/1 scores shaped
    ``(model, question)`` (one sample each) or ``(model, question, sample)``. A dataset with
    factor dims (``factors=``) is refused unless the verb models them (``factors_ok``).
    """
    import xarray as xr

    from bayesnoise.data import select_models
    from bayesnoise.io import load

    opts = check_read_options(read)
    columns = {
        role: opts[f"{role}_col"] for role in _COLUMN_ROLES if opts[f"{role}_col"] is not None
    }
    if isinstance(data, np.ndarray):
        data = _array_scores(data)
    if isinstance(data, xr.Dataset):
        skip = ("benchmark", "models", "intersect", "factors")
        given = [k for k, v in opts.items() if v and k not in skip]
        if given:
            raise DataError(
                f"options {', '.join(given)} say how to read a file; the input is already a "
                "loaded dataset"
            )
        ds = data
    else:
        if isinstance(data, list | tuple) and len(data) == 1:
            data = data[0]
        ds = load(
            data,
            benchmark=opts["benchmark"],
            columns=columns or None,
            scorer=opts["scorer"],
            score_key=opts["score_key"],
            metric=opts["metric"],
            filter=opts["filter"],
            samples_per_question=opts["samples_per_question"],
            incomplete="use-scored" if opts["use_scored"] else "error",
            duplicates="merge" if opts["merge_duplicates"] else "error",
            factors=opts["factors"],
            progress=None if progress else False,
        )
    _check_factors(ds, opts["factors"], factors_ok)
    wanted = _model_list(opts["models"])
    if wanted:
        ds = select_models(ds, wanted)
    if opts["intersect"]:  # only the questions every model answered
        from bayesnoise.data import complete

        ds = complete(ds, on_missing="intersect")
    return ds


def _check_factors(ds, factors, factors_ok: bool) -> None:
    """Factor dims only where the verb models them, and the ones asked for."""
    from bayesnoise.data import factor_dims, refuse_factors

    if not factors_ok:
        refuse_factors(ds)
    asked = [factors] if isinstance(factors, str) else list(factors or [])
    missing = [f for f in asked if f not in factor_dims(ds)]
    if missing:
        raise DataError(
            f"{attr(ds, 'source')}: factors {missing} asked for, but the dataset's factor dims "
            f"are {factor_dims(ds) or 'none'}"
        )


def _array_scores(a: np.ndarray):
    import xarray as xr

    if a.ndim == 2:
        a = a[:, :, None]
    if a.ndim != 3:
        raise DataError(
            f"a score array must be (model, question) or (model, question, sample); got shape "
            f"{a.shape}"
        )
    return xr.DataArray(
        a.astype(float),
        dims=(MODEL, "question", "sample"),
        coords={MODEL: [f"model_{i}" for i in range(a.shape[0])]},
    )


def select_pair(ds, names):
    """The dataset restricted to the two models of ``pair=(A, B)``, in that order."""
    names = [str(n) for n in names]
    if len(names) != 2:
        raise DataError(f"pair names two models, got {len(names)}: {names}")
    models = list(map(str, ds[MODEL].values))
    for name in names:
        if name not in models:
            raise DataError(
                f"{attr(ds, 'source')}: pair names model {name!r}, which is not in the file; "
                f"models are {', '.join(models)}"
            )
    if names[0] == names[1]:
        raise DataError(f"pair names the same model twice ({names[0]!r}); give two models")
    return ds.sel({MODEL: names})


def source_name(path) -> str:
    return Path(str(path)).name


_INPUT_DOC = """data : path, list of paths, xarray.Dataset, DataFrame or numpy array
    Results (anything :func:`bayesnoise.load` reads, or a loaded dataset).
**read
    Input options, as on the command line: ``benchmark``, ``models`` (comma-separated or
    a list), ``model_col``, ``question_col``, ``score_col``, ``sample_col``,
    ``count_col``, ``benchmark_col``, ``cluster_col``, ``scorer``, ``score_key``,
    ``use_scored``, ``merge_duplicates``, ``metric``, ``filter``, ``intersect`` (when models
    cover different questions, keep those every model answered; without it, paired
    analyses stop with an error naming the questions), ``factors`` (columns such as a
    prompt template or run that become dims; ``noises`` measures them, other commands stop)."""
# The verbs' docstrings replace their ``{input}`` line by this block. Python >= 3.13 strips a
# docstring's indentation at compile time, earlier versions keep 4 spaces: indent the block's
# continuation lines like the docstring they go into.
if sys.version_info < (3, 13):
    _INPUT_DOC = _INPUT_DOC.replace("\n", "\n    ")
_READ_DOC = "**read" + _INPUT_DOC.split("**read", 1)[1]


def fill_docs(*verbs) -> None:
    """Fill each verb's docstring template: ``{input}`` (the data and ``**read`` entries),
    ``{read}`` (the ``**read`` entry alone) and doubled braces ``{{ }}`` (literal braces)."""
    for verb in verbs:
        doc = verb.__doc__.replace("{input}", _INPUT_DOC).replace("{read}", _READ_DOC)
        verb.__doc__ = doc.replace("{{", "{").replace("}}", "}")
