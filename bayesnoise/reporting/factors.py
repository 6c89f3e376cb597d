"""The crossed-factor section of the HTML report (``bayesnoise report FILE --factor template``):
each model's accuracy over the templates, its variance components, the stacked parts of its
SE and the model x template heat map. The numbers come from :func:`bayesnoise.noises`'s
tables; this module arranges them."""

from __future__ import annotations

from pathlib import Path

from bayesnoise.vocabulary import label

from ._html_blocks import _iv, column
from ._html_render import Column, Table, count, environment, num, png_data_uri, slug, text

__all__ = ["factor_section_html", "png_data_uri", "slug", "write_sections"]

_SECTION = """{% from "macros.html.j2" import table %}
<section id="{{ id }}" data-section="factors">
<h2>{{ title }}</h2>
<p class="muted">{{ source }}</p>
{% for n in notes %}<p class="note">{{ n }}</p>{% endfor %}
<h3>Accuracy over {{ factor }}s</h3>
<p>Each model's mean over {{ factor }}s of each {{ factor }}'s mean score, with two intervals:
for new questions under new {{ factor }}s like these ({{ factor }}s a random draw) and for new
questions under these {{ factor }}s. t intervals with Satterthwaite degrees of freedom: a few
{{ factor }}s give a few degrees of freedom. Hover a header for its definition.</p>
{{ table(models) }}
<h3>Where the SE comes from</h3>
<p>Unbiased variance components (method of moments) and each one's part of the squared SE
over the {{ factor }} population; the parts add up to it.</p>
{{ table(components) }}
{% if pairs %}<h3>Paired differences over {{ factor }}s</h3>
<p>A - B on the cells both models have; the {{ factor }} part is the model x {{ factor }}
interaction.</p>
{{ table(pairs) }}{% endif %}
<div class="figures">
{% for name, fig in figures.items() %}<figure data-figure="{{ name }}"><img src="{{ fig[0] }}"
alt="{{ fig[1] }}"><figcaption>{{ fig[1] }}</figcaption></figure>
{% endfor %}</div>
</section>
"""


def _main_table(df, keys, stem, confidence_level, extra=()) -> Table:
    columns = [column(k, "t name") for k in keys]
    columns += [column(c) for c in ("questions", "templates", "cells", "runs_per_cell")]
    rows = []
    for scope in ("templates", "these_templates"):
        columns += [column(f"{stem}_{scope}")]
        name = f"{stem}_{scope}"
        head = f"{label(name)}, {confidence_level:.0%} interval"
        columns += [Column(head, column(name).title, "iv")]
        columns += [column(f"se_{scope}"), column(f"df_{scope}")]
    columns += [column(c) for c in extra]
    for r in df.to_dict("records"):
        row = [text(r[k], "t name") for k in keys]
        row += [count(r[c]) for c in ("questions", "templates", "cells", "runs_per_cell")]
        for scope in ("templates", "these_templates"):
            row += [num(r[f"{stem}_{scope}"], 4), _iv(r, f"{stem}_{scope}")]
            row += [num(r[f"se_{scope}"], 4), num(r[f"df_{scope}"], 1)]
        row += [num(r[c], 3) for c in extra]
        rows.append(row)
    return Table(columns, rows, "sortable factor-table", f"{stem} over templates")


def _component_table(df, keys) -> Table:
    columns = [column(k, "t name") for k in keys] + [column("component", "t")]
    columns += [column(c) for c in ("variance_component", "variance_part", "variance_share")]
    rows = []
    for r in df.to_dict("records"):
        row = [text(r[k], "t name") for k in keys] + [text(r["component"])]
        row += [num(r["variance_component"], 5), num(r["variance_part"], 6)]
        row += [num(r["variance_share"], 3)]
        rows.append(row)
    return Table(columns, rows, "sortable component-table", "variance components")


def factor_section_html(
    models,
    components,
    pairs=None,
    *,
    factor="template",
    title="prompt templates",
    source="",
    notes=(),
    confidence_level=0.95,
    figures=None,
) -> str:
    """One report section of a crossed factor.

    ``models``: the per-model table of ``bn.noises`` without the component columns;
    ``components``: one row per (model, component) with ``variance_component``,
    ``variance_part``, ``variance_share``; ``pairs``: the per-pair table of ``bn.noises(...,
    by="pair")`` without its components; ``figures``: name -> (data URI, caption).

    Examples
    --------
    >>> import pandas as pd
    >>> m = pd.DataFrame({"model": ["a"], "questions": [30], "templates": [3], "cells": [90],
    ...     "runs_per_cell": [2.0], **{f"{s}_{e}": [0.5] for s in ("accuracy_templates",
    ...     "accuracy_these_templates") for e in ("", "low", "high")}})
    >>> m = m.rename(columns=lambda c: c.rstrip("_"))
    >>> m[["se_templates", "df_templates", "se_these_templates", "df_these_templates"]] = 1.0
    >>> c = pd.DataFrame({"model": ["a"], "component": ["question"], "variance_component":
    ...     [0.04], "variance_part": [0.001], "variance_share": [1.0]})
    >>> 'data-section="factors"' in factor_section_html(m, c)
    True
    """
    template = environment().from_string(_SECTION)
    pair_table = None
    if pairs is not None and len(pairs):
        pair_table = _main_table(
            pairs,
            ["model_a", "model_b"],
            "difference",
            confidence_level,
            ("p_value_templates", "p_value_these_templates"),
        )
    return template.render(
        id=slug(title),
        title=title,
        source=source,
        notes=list(notes),
        factor=factor,
        models=_main_table(models, ["model"], "accuracy", confidence_level),
        components=_component_table(components, ["model"]),
        pairs=pair_table,
        figures=dict(figures or {}),
    )


def write_sections(path, sections, *, index=(), title="bayesnoise report") -> Path:
    """A self-contained HTML page of already rendered sections (the report's page and style).

    ``index``: dicts ``id, title, models, questions`` for the page's index (shown with two
    sections or more)."""
    from bayesnoise import __version__

    from ._html_render import render_template

    out = Path(path)
    page = render_template(
        "report.html.j2",
        title=title,
        version=__version__,
        index=list(index),
        sections=list(sections),
    )
    out.write_text(page)
    return out
