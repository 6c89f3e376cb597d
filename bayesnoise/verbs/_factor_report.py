"""``report`` with a crossed factor (``factors=["template"]``): a section per input with the
``noises`` tables, the variance-decomposition figure and the model x template heat map."""

from __future__ import annotations

import warnings
from pathlib import Path

from bayesnoise.data import MODEL

from ._inputs import dataset, report_items

NOTE = (
    "The per-question sections (noise, pairs, ranks, benchmark quality) are left out: they "
    "take one score per (model, question, sample) and would count the {factor}s as samples. "
    "To report on one {factor} alone, select it and run the report without --factor."
)


def _frames(result, keys):
    """(main table, component table) of a noises result."""
    dim = "model" if "model" in result.dims else "pair"
    cols = [c for c in result.attrs["columns"] if c not in ("component", "variance_component")]
    cols = [c for c in cols if c not in ("variance_part", "variance_share")]
    main = result[[c for c in cols if c in result.data_vars]].to_dataframe().reset_index()
    main = main[[*keys, *[c for c in cols if c not in keys]]]
    parts = ["variance_component", "variance_part", "variance_share"]
    comp = result[parts].to_dataframe().reset_index()
    if dim == "pair":
        comp = comp.rename(columns={"pair": "model"})
    return main, comp[["model", "component", *parts]]


def factor_report(data, *, output, title, confidence_level, factors, progress, read) -> Path:
    """Write the report of a crossed-factor eval (see :func:`bayesnoise.report`)."""
    import matplotlib.pyplot as plt

    from bayesnoise.plots.factors import plot_template_heatmap, plot_variance_parts
    from bayesnoise.reporting.factors import (
        factor_section_html,
        png_data_uri,
        slug,
        write_sections,
    )

    from .factors import noises, template_accuracies

    output, items = report_items(data, output)
    sections, index = [], []
    for name, item in items:
        ds = dataset(item, progress=progress, factors_ok=True, factors=factors, **read)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            models = noises(ds, factors=factors, confidence_level=confidence_level)
            pairs = None
            if ds.sizes[MODEL] > 1:
                pairs = noises(ds, factors=factors, by="pair", confidence_level=confidence_level)
            heat = template_accuracies(ds, factors=factors)
        factor = models.attrs["factor"]
        model_rows, components = _frames(models, ["model"])
        pair_rows = None if pairs is None else _frames(pairs, ["model_a", "model_b"])[0]
        figures = {
            "noises": (
                png_data_uri(plot_variance_parts(models).figure),
                f"Each model's squared SE over the {factor} population, split into its "
                f"question, {factor}, question x {factor} and sampling parts.",
            ),
            "templates": (
                png_data_uri(plot_template_heatmap(heat).figure),
                f"Each model's accuracy under each {factor} (mean over questions).",
            ),
        }
        plt.close("all")
        named = Path(str(item)).name if isinstance(item, str | Path) else None
        label = name or str(ds.attrs.get("benchmark") or named or ds.attrs.get("source", "data"))
        label = f"{label}: {factor}s"
        notes = [NOTE.format(factor=factor)]
        notes += list(dict.fromkeys(str(w.message) for w in caught))
        sections.append(
            factor_section_html(
                model_rows,
                components,
                pair_rows,
                factor=factor,
                title=label,
                source=str(ds.attrs.get("source", "")),
                notes=notes,
                confidence_level=confidence_level,
                figures=figures,
            )
        )
        index.append(
            {
                "id": slug(label),
                "title": label,
                "models": ds.sizes[MODEL],
                "questions": ds.sizes["question"],
            }
        )
    return write_sections(output, sections, index=index, title=title)
