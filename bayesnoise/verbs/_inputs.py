"""The one way a verb turns its ``data`` argument and input options into a dataset."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from bayesnoise._common import (
    RETIRED_ALTERNATIVES,
    calling,
    check_confidence_level,
    did_you_mean,
    few,
    option,
    reject_renamed,
    seed_of,
)
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
    "threshold": None,
    "success": "above",
}

_COLUMN_ROLES = ("model", "question", "score", "sample", "count", "benchmark", "cluster")


#: Old option values -> new, per keyword: an old value is a :class:`ValueError` naming the new.
RENAMED_VALUES = {
    "method": {"conjugate": "bayes", "freq": "frequentist"},
    "alternative": {k: "' or '".join(v) for k, v in RETIRED_ALTERNATIVES.items()},
}


def check_value(verb: str, name: str, value, choices) -> None:
    """A :class:`ValueError` unless ``value`` is one of ``choices``; an old value names the new."""
    if value in choices:
        return
    new = RENAMED_VALUES.get(name, {}).get(value) if isinstance(value, str) else None
    if new is not None:
        raise ValueError(f"{verb}(): {name}={value!r} is now {name}='{new}'")
    raise ValueError(
        f"{verb}(): {name} must be one of {', '.join(map(repr, choices))}, got {value!r}"
    )


def _at_default(value, default) -> bool:
    """True when ``value`` is ``default`` (a DataFrame or an array never is, unless it is it)."""
    if value is default:
        return True
    if default is None:
        return False
    try:
        return bool(value == default)
    except (TypeError, ValueError):  # an array or a table: not a scalar default
        return False


def check_mode_options(verb: str, func, mode: str, given: dict, modes: dict) -> None:
    """A :class:`~bayesnoise.data.DataError` (a :class:`ValueError`, so that the command line
    says it in one line) for the first option of ``given`` that mode ``mode`` of ``verb``
    does not take: an option is given when its value differs from ``func``'s signature default
    (:func:`inspect.signature`; the input options of ``**read`` from :data:`READ_OPTIONS`).

    ``modes`` maps each mode of the verb to ``(uses, harmless)``: the options it uses, and
    those it accepts without their changing its result (a progress display, the seed of a
    method this input does not draw with). The message names the option in the caller's
    language (:func:`bayesnoise._common.option`), the mode in use and the modes that take it.

    Examples
    --------
    >>> def f(data, *, pair=None, cost=1.0):
    ...     pass
    >>> modes = {"pairs": ({"pair", "cost"}, set()), "reference": ({"cost"}, set())}
    >>> check_mode_options("f", f, "pairs", {"pair": ("a", "b"), "cost": 1.0}, modes)
    >>> check_mode_options("f", f, "reference", {"pair": ("a", "b")}, modes)
    Traceback (most recent call last):
    ...
    bayesnoise.data.schema.DataError: f: pair= does not apply to mode 'reference' (it is ignored there); the mode(s) that take it: 'pairs'
    """
    import inspect

    params = inspect.signature(func).parameters.values()
    defaults = {**READ_OPTIONS, **{p.name: p.default for p in params if p.kind is p.KEYWORD_ONLY}}
    uses, harmless = modes[mode]
    for name, value in given.items():
        if name in uses or name in harmless or name not in defaults:
            continue
        if _at_default(value, defaults[name]):
            continue
        takes = [repr(m) for m, (u, h) in modes.items() if name in u or name in h]
        raise DataError(
            f"{verb}: {option(name)} does not apply to mode {mode!r} (it is ignored there); "
            f"the mode(s) that take it: {', '.join(takes) or 'none'}"
        )


#: ``rng`` (an int seed, None or a :class:`numpy.random.Generator`, SPEC 7) as what the lower
#: functions take: the package's one check, :func:`bayesnoise._common.seed_of` (an int stays
#: as it is, a Generator gives one draw of a seed, so a script's one generator drives every verb).
as_seed = seed_of


def interval_level(verb: str, confidence_level, what: str = "intervals") -> float:
    """``confidence_level`` checked to be a level, for a verb whose output is its intervals
    (``None`` would mean no interval columns, which such a verb cannot give)."""
    if confidence_level is None:
        raise ValueError(f"{verb}(): confidence_level=None means no intervals; {what} need one")
    return check_confidence_level(confidence_level, verb)


def drop_intervals(df, confidence_level):
    """``df`` without its ``*_low`` / ``*_high`` columns when ``confidence_level`` is None."""
    if confidence_level is not None:
        return df
    return df[[c for c in df.columns if not c.endswith(("_low", "_high"))]]


def check_read_options(read: dict, verb: str | None = None) -> dict:
    """``read`` with defaults filled in; an unknown option is a :class:`TypeError` (an old
    spelling names its new one)."""
    reject_renamed(verb, read)
    unknown = sorted(set(read) - set(READ_OPTIONS))
    if "columns" in unknown:
        raise TypeError(
            "columns= is bayesnoise.load's; a verb names the columns with model_col=, "
            "question_col=, score_col= (also sample_col=, count_col=, benchmark_col=, "
            "cluster_col=)"
        )
    if unknown:
        raise TypeError(
            f"unknown option(s) {', '.join(unknown)}; input options are {', '.join(READ_OPTIONS)}"
        )
    return {**READ_OPTIONS, **read}


def judge_graded(data, read: dict) -> bool:
    """True when ``data`` is one judge-graded table that ``judge`` reads without options (its
    judge-score and human-label columns found by :func:`bayesnoise.io.judge.judge_columns`,
    the detection ``judge`` uses) and no option says to read it otherwise (``score_col``,
    ``count_col``, ``factors``): ``check``, ``plan`` and ``report`` then read it as ``judge``
    does."""
    from bayesnoise.io.judge import judge_columns

    if any(read.get(k) for k in ("score_col", "count_col", "sample_col", "factors")):
        return False
    if isinstance(data, list | tuple):
        if len(data) != 1:
            return False
        data = data[0]
    return judge_columns(data) is not None


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

    opts = check_read_options(read)
    columns = {
        role: opts[f"{role}_col"] for role in _COLUMN_ROLES if opts[f"{role}_col"] is not None
    }
    if isinstance(data, np.ndarray):
        data = _array_scores(data)
    # The reader thresholds each sample's score before the samples of a cell are summed
    # (a loaded Dataset keeps one sum per cell: _thresholded below, where it can).
    read_cut = not isinstance(data, xr.Dataset) and opts["threshold"] is not None
    if isinstance(data, xr.Dataset):
        skip = ("benchmark", "models", "intersect", "factors", "threshold", "success")
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
        with calling("verb"):  # errors say score_col= (a verb's option), not columns=
            ds = _load(data, opts, columns, progress)
    _check_factors(ds, opts["factors"], factors_ok)
    wanted = _model_list(opts["models"])
    if wanted:
        ds = select_models(ds, wanted)
    if opts["intersect"]:  # only the questions every model answered
        from bayesnoise.data import complete

        ds = complete(ds, on_missing="intersect")
    return by_accuracy(_thresholded(ds, opts["threshold"], opts["success"], read_cut))


def _load(data, opts, columns, progress):
    """:func:`bayesnoise.load` of ``data`` with a verb's input options."""
    from bayesnoise.io import load

    return load(
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
        threshold=opts["threshold"],
        success=opts["success"],
        progress=None if progress else False,
    )


def by_accuracy(ds):
    """``ds`` with its models best first: accuracy (mean over the questions a model answered
    of its mean score) descending, ties (equal to 12 decimals, so that the order in which
    the rows were summed does not matter) by model name. Every per-model table then
    lists the best model first, and every pair table (pairs ``i < j`` of this order) takes
    the higher minus the lower: the differences are >= 0 when the models answered the
    same questions (``pair=(A, B)`` selects afterwards, so it keeps the order asked)."""
    if ds.sizes[MODEL] < 2:
        return ds
    answered = ds["samples"] > 0
    per_question = (ds["correct"] / ds["samples"].where(answered)).where(answered)
    cells = [d for d in per_question.dims if d != MODEL]  # question (and factor dims)
    accuracy = np.asarray(per_question.mean(cells, skipna=True).values, dtype=float)
    key = np.round(np.nan_to_num(accuracy, nan=-np.inf), 12)
    names = np.array([str(m) for m in ds[MODEL].values])
    order = np.lexsort((names, -key))  # the file's row order never decides a tie
    if (order == np.arange(order.size)).all():
        return ds
    return ds.isel({MODEL: order})


def _thresholded(ds, threshold, success, done: bool):
    """A graded score becomes success / failure (``threshold=``, ``success=``); ``done``: the
    reader thresholded each sample's score (:func:`bayesnoise.load`'s ``threshold=``)."""
    from bayesnoise.data import threshold_dataset, threshold_note

    if threshold is None:
        if success != "above":
            raise DataError(
                "success= (--success) says which side of threshold= is a success; give a threshold"
            )
        return ds
    if not done:
        return threshold_dataset(ds, threshold, success)
    t = float(threshold)
    ds.attrs.update(threshold=t, success=success, threshold_note=threshold_note(t, success))
    return ds


def says_threshold(verb):
    """``verb`` whose result (a Dataset) says how graded scores were turned into successes:
    attrs ``threshold``, ``success`` and ``threshold_note`` when ``threshold=`` was given."""
    import functools

    @functools.wraps(verb)
    def wrapped(*args, **kwargs):
        out = verb(*args, **kwargs)
        t = kwargs.get("threshold")
        if t is not None and hasattr(out, "attrs") and "threshold_note" not in out.attrs:
            from bayesnoise.data import threshold_note

            s = kwargs.get("success", "above")
            out.attrs.update(threshold=float(t), success=s, threshold_note=threshold_note(t, s))
        return out

    return wrapped


def _check_factors(ds, factors, factors_ok: bool) -> None:
    """Factor dims only where the verb models them, and the ones asked for; never beside
    question clusters (refused, not left out: :func:`~bayesnoise.data.clusters_with_factor`)."""
    from bayesnoise.data import factor_dims, refuse_clusters_with_factors, refuse_factors

    if not factors_ok:
        refuse_factors(ds)
    refuse_clusters_with_factors(ds)
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
            raise DataError(f"{attr(ds, 'source')}: pair: {did_you_mean(name, models)}")
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
    prompt template or run that become dims; ``noises`` measures them, ``pairs``,
    ``compare`` and ``check`` use its crossed estimator, other commands stop)."""
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


_FIGURE_DOC = {
    "fit": "fit : path or arviz DataTree\n    An MCMC fit: the file written by "
    '``bn.posterior(..., method="mcmc", save=path)``, or the fit itself.',
    "statistic": 'statistic : str, default "z"\n    The pair column that colours the '
    "matrix (one of :data:`bayesnoise.verbs.plot.STATISTICS`).",
    "bins": "bins : int, default 5\n    Model groups by accuracy, one CDF panel each.",
    "confidence_level": "confidence_level : float, default 0.95\n    Level of the intervals drawn.",
    "rng": "rng : int or numpy.random.Generator, default 0\n    Seed (or generator) of the "
    "Monte Carlo intervals.",
    "progress": "progress : bool, default True\n    Progress display on standard error.",
}


def _entries(doc: str) -> dict[str, str]:
    """name -> its numpydoc ``Parameters`` entry (``a, b : int`` gives one entry each)."""
    import inspect
    import re

    text = inspect.cleandoc(doc or "")
    m = re.search(r"^Parameters\n-+\n(.*?)(?=^\w[\w ]*\n-+\n|\Z)", text, re.S | re.M)
    out: dict[str, str] = {}
    if not m:
        return out
    head, body = None, []
    for line in [*m.group(1).splitlines(), "END"]:
        if line and not line.startswith(" "):
            if head is not None:
                names, _, kind = head.partition(" : ")
                for name in (n.strip() for n in names.split(",")):
                    entry = f"{name} : {kind}" if kind else name
                    out.setdefault(name, "\n".join([entry, *body]).rstrip())
            head, body = line, []
        elif head is not None:
            body.append(line)
    return out


def document_figures(figures, verbs) -> None:
    """Give each figure function without a ``Parameters`` section one: each parameter as the
    verbs document it (``data`` and ``**read`` as every verb, ``confidence_level`` as
    :func:`bayesnoise.compare`, ...), and a ``Returns`` section."""
    import inspect

    known = {**_entries(_INPUT_DOC), **_FIGURE_DOC}
    for verb in verbs:
        for name, entry in _entries(verb.__doc__).items():
            known.setdefault(name, entry)
    for fig in figures:
        doc = inspect.cleandoc(fig.__doc__ or "")
        if "\nParameters\n" in doc:
            continue
        params = inspect.signature(fig).parameters.values()
        names = [("**" + p.name) if p.kind is p.VAR_KEYWORD else p.name for p in params]
        entries = [known[n] for n in names if n in known]
        returns = "matplotlib.figure.Figure or arviz-plots collection\n    The figure drawn."
        sections = (
            "Parameters\n----------\n" + "\n".join(entries) + f"\n\nReturns\n-------\n{returns}"
        )
        head, examples, tail = doc.partition("\nExamples\n--------\n")
        if examples:  # numpydoc's order: Parameters, Returns, then Examples
            fig.__doc__ = f"{head.rstrip()}\n\n{sections}\n{examples}{tail}\n"
        else:
            fig.__doc__ = f"{doc}\n\n{sections}\n"


def gate_model(ds, model, role: str) -> str:
    """The ``role`` ("baseline" or "candidate") model of ``check``: ``model`` when ``ds`` has
    it, the only model when ``model`` is None; else a DataError saying what to pass."""
    models = [str(m) for m in ds[MODEL].values]
    source = attr(ds, "source")
    if model is None:
        if len(models) != 1:
            raise DataError(
                f"{source}: holds {len(models)} models ({few(models)}); name the "
                f"{role} with {option(role, repr('MODEL'))}"
            )
        return models[0]
    if str(model) not in models:
        raise DataError(f"{source}: {did_you_mean(model, models, role=role)}")
    return str(model)


def report_items(data, output) -> tuple[Path, list]:
    """``report``'s output path (checked: .html) and its inputs as (name or None, input)
    pairs: a dict's items, a list's or one input's entries unnamed."""
    output = Path(output)
    if output.suffix.lower() not in (".html", ".htm"):
        raise DataError(f"{output}: the report file must end in .html")
    if isinstance(data, dict):
        return output, list(data.items())
    return output, [(None, d) for d in (data if isinstance(data, list | tuple) else [data])]
