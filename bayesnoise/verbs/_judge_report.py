"""``report --human-col``: the judge section of the HTML report."""

from __future__ import annotations

import warnings

from bayesnoise.data import DataError

from .judge import judge


def judge_report(
    data,
    *,
    output,
    title="bayesnoise report",
    confidence_level=0.95,
    judge_col=None,
    human_col=None,
    human=None,
    progress=True,
    **read,
):
    """The HTML report of a judge-graded eval (``bayesnoise report FILE --judge-col ...``):
    per model and per pair, the judge-only, human-only and PPI++ numbers, the judge's
    agreement with the humans, and the figure of :func:`bayesnoise.plot.judge`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "judge.html"
    >>> judge_report("examples/data/judge_graded.csv", output=out, human_col="human").exists()
    True
    """
    from pathlib import Path

    from bayesnoise.plots.judge import plot_judge_intervals
    from bayesnoise.reporting.judge import judge_section_html, png_data_uri, write_judge_report

    from ._result import tidy

    output = Path(output)
    if output.suffix.lower() not in (".html", ".htm"):
        raise DataError(f"{output}: the report file must end in .html")
    kw = {"judge_col": judge_col, "human_col": human_col, "human": human}
    kw.update(confidence_level=confidence_level, progress=progress, **read)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        models = judge(data, **kw)
        pairs = judge(data, by="pair", **kw) if models.sizes["model"] > 1 else None
    if "judge" in models.dims:  # several judges: the first one's section
        models, pairs = models.isel(judge=0), None if pairs is None else pairs.isel(judge=0)
        models.attrs["columns"] = models.attrs["columns"][1:]
        if pairs is not None:
            pairs.attrs["columns"] = pairs.attrs["columns"][1:]
    model_rows = tidy(models)
    fig = plot_judge_intervals(model_rows, confidence_level=confidence_level).figure
    notes = list(dict.fromkeys(str(w.message) for w in caught))
    html = judge_section_html(
        model_rows,
        None if pairs is None else tidy(pairs),
        title=f"LLM judge: {models.attrs['source']}",
        source=f"{models.attrs['source']}, judge {models.attrs['judges'][0]}",
        note=models.attrs["note"],
        notes=notes,
        confidence_level=confidence_level,
        figure_uri=png_data_uri(fig),
    )
    return write_judge_report(output, html, title=title)
