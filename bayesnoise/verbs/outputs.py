"""The output verbs: :func:`report` (an HTML page), :func:`reference` (a public benchmark's
typical noise) and :func:`columns` (the column registry)."""

from __future__ import annotations

from pathlib import Path

from bayesnoise.data import DataError

from ._inputs import as_seed, dataset, fill_docs, interval_level, judge_graded, report_items
from ._result import to_result

__all__ = ["columns", "reference", "report"]


def report(
    data,
    *,
    output,
    title="bayesnoise report",
    models_dir=None,
    confidence_level=0.95,
    rng=0,
    judge_col=None,
    human_col=None,
    human=None,
    progress=True,
    **read,
):
    """Write one self-contained HTML report, a section per input (``bayesnoise report``).

    Parameters
    ----------
    data : path, list of paths, xarray.Dataset, or mapping of section title -> either
        One section per file or dataset.
    output : path
        The ``.html`` file to write.
    title : str, default "bayesnoise report"
        The page's title.
    models_dir : path, optional
        Folder of the reference noise tables (default: the packaged copy).
    confidence_level : float, default 0.95
        Level of every interval in the report (a level is needed: None is an error).
    rng : int or numpy.random.Generator, default 0
        Seed (or generator) of the Monte Carlo intervals.
    progress : bool, default True
        Progress lines on standard error.
    judge_col, human_col, human : optional
        A judge-graded table (as in :func:`judge`): the report is its judge section
        (judge-only, human-only and PPI++ numbers per model and pair, the figure).
    **read
        Input options (see :func:`bayesnoise.noise`). With ``factors`` (CLI ``--factor
        template``), each input's section is its crossed factor's instead: the tables of
        :func:`noises` (per model and per pair, the variance components and their parts of
        the SE), the stacked parts of each model's SE (plot kind ``noises``) and the model x
        template heat map (plot kind ``templates``); the per-question sections are left out
        (they would count the templates as samples).

    Returns
    -------
    pathlib.Path
        The file written.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> bn.report("examples/data/cruxeval_output_temp0.8.csv.gz", output="r.html")  # doctest: +SKIP
    PosixPath('r.html')
    """
    from bayesnoise.reporting.html import write_report

    judged = judge_col is not None or human_col is not None or human is not None
    if judged or judge_graded(data, read):  # found as judge finds it
        from ._judge_report import judge_report

        return judge_report(
            data,
            output=output,
            title=title,
            confidence_level=confidence_level,
            judge_col=judge_col,
            human_col=human_col,
            human=human,
            progress=progress,
            **read,
        )
    level = interval_level("report", confidence_level, "the report's intervals")
    if read.get("factors"):  # a crossed factor: the noises section per input
        from ._factor_report import factor_report

        factors = read.pop("factors")
        return factor_report(
            data,
            output=output,
            title=title,
            confidence_level=level,
            factors=factors,
            progress=progress,
            read=read,
        )
    output, items = report_items(data, output)
    inputs = {}
    for name, item in items:
        ds = dataset(item, progress=progress, **read)
        title_ = name or str(ds.attrs.get("benchmark") or Path(str(item)).name)
        if title_ in inputs:  # two inputs with the same benchmark name: use the file names
            title_ = f"{title_} ({Path(str(item)).name})"
        inputs[title_] = ds
    return write_report(
        inputs,
        output,
        title=title,
        confidence_level=level,
        rng=as_seed(rng),
        on_missing="raise",
        progress=progress,
        models_dir=models_dir,
    )


def reference(benchmark, *, accuracy=None, models_dir=None):
    """The typical noise of a public benchmark, from the bundled reference tables
    (``bayesnoise reference``).

    Parameters
    ----------
    benchmark : str
        Benchmark name, e.g. ``"humaneval+"`` or ``"math500_cot"``.
    accuracy : float, optional
        Add the Beta-theory SEs of a model at this accuracy.
    models_dir : path, optional
        Folder of the reference tables (default: the packaged copy).

    Returns
    -------
    xarray.Dataset
        Dim ``run``: one per run that measured the benchmark.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> r = bn.reference("humaneval+")
    >>> sorted(set(r["benchmark"].values.tolist()))
    ['humaneval+']
    """
    from bayesnoise.reporting.html import reference_table

    return to_result(reference_table(benchmark, accuracy=accuracy, models_dir=models_dir), "run")


def columns(*, command=None):
    """The column registry: every column name the package prints, what it means, its unit,
    grouped by the command that prints it (``bayesnoise columns``).

    Parameters
    ----------
    command : str, optional
        Only the columns this command prints (``"pairs"``, ``"check"``, ...), in its order.
        Default: every registered column once, under the first command that prints it
        (``other``: printed by no command).

    Returns
    -------
    xarray.Dataset
        Dim ``column`` (the column names, interval ends included): ``command, label,
        description, unit, scope, method``.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> c = bn.columns()
    >>> str(c["scope"].sel(column="prob_a_better_population").values)
    'question population'
    >>> bn.columns(command="questions")["column"].values.tolist()[:3]
    ['question', 'question_accuracy', 'solved_by']
    """
    import numpy as np
    import xarray as xr

    from bayesnoise.vocabulary import command_rows

    try:
        rows = command_rows(command)
    except KeyError as err:
        raise DataError(str(err.args[0])) from None
    fields = ["command", "label", "description", "unit", "scope", "method"]
    ds = xr.Dataset(
        {f: ("column", np.asarray([r[f] for r in rows], dtype=str)) for f in fields},
        coords={"column": np.asarray([r["name"] for r in rows], dtype=str)},
    )
    ds.attrs["columns"] = ["column", *fields]
    return ds


fill_docs(report)
