"""The judge section of the HTML report: judge-only, human-only and corrected numbers."""

from __future__ import annotations

from pathlib import Path

from ._html_blocks import _iv, column, interval_column
from ._html_render import Table, count, environment, num, png_data_uri, slug, text

__all__ = ["judge_section_html", "png_data_uri", "write_judge_report"]

_SECTION = """{% from "macros.html.j2" import table %}
<section id="{{ id }}">
<h2>{{ title }}</h2>
<p class="muted">{{ source }}</p>
<p><b>Assumption:</b> {{ note }}.</p>
{% for n in notes %}<p class="note">{{ n }}</p>{% endfor %}
<h3>Accuracy per model</h3>
<p>The judge's mean taken as truth, the human labels alone, and the corrected accuracy
({{ method }}). Effective human labels: how many labels alone would give the corrected
interval's width. Sensitivity, specificity and kappa: the judge against the humans on the
labelled items. Hover a header for its definition.</p>
{{ table(models) }}
{% if pairs %}<h3>Paired differences (shared questions)</h3>
{{ table(pairs) }}{% endif %}
{% if figure %}<div class="figures"><figure data-figure="judge"><img src="{{ figure }}"
alt="{{ caption }}"><figcaption>{{ caption }}</figcaption></figure></div>{% endif %}
</section>
"""

_MODEL_STEMS = (
    "accuracy_judge",
    "accuracy_human",
    "accuracy_ppi",
    "accuracy_corrected",
    "accuracy_corrected_mcmc",
)
_PAIR_STEMS = (
    "difference_judge",
    "difference_human",
    "difference_ppi",
    "difference_corrected",
    "difference_corrected_mcmc",
)


def _table(df, keys, stems, extra, confidence_level) -> Table:
    present = [s for s in stems if f"{s}_low" in df.columns]
    more = [c for c in extra if c in df.columns]
    columns = [column(k, "t name") for k in keys]
    columns += [column("human_labels")]
    for s in present:
        columns += [column(s), interval_column(s, confidence_level)]
    columns += [column(c) for c in more]
    rows = []
    for _, r in df.iterrows():
        row = [text(r[k], "t name") for k in keys] + [count(r["human_labels"])]
        for s in present:
            row += [num(r[s], 4), _iv(r, s)]
        row += [num(r[c], 3) for c in more]
        rows.append(row)
    return Table(columns, rows, "sortable", "")


def judge_section_html(
    models,
    pairs=None,
    *,
    title="LLM judge",
    source="",
    note="",
    notes=(),
    method="PPI++",
    confidence_level=0.95,
    figure_uri=None,
) -> str:
    """One report section for a judge-graded eval.

    ``models`` / ``pairs``: the tidy tables of ``bn.judge(..., by="model")`` and
    ``by="pair"`` (one judge); ``figure_uri``: a data URI of ``bn.plot.judge``'s figure.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"model": ["a"], "human_labels": [50], "accuracy_ppi": [0.6],
    ...                   "accuracy_ppi_low": [0.5], "accuracy_ppi_high": [0.7]})
    >>> "accuracy (PPI)" in judge_section_html(t)
    True
    """
    extra = ("ppi_lambda", "effective_human_labels", "accuracy_rogan_gladen")
    extra += ("judge_sensitivity", "judge_specificity", "judge_kappa")
    model_table = _table(models, ["model"], _MODEL_STEMS, extra, confidence_level)
    pair_table = None
    if pairs is not None and len(pairs):
        pair_extra = ("p_value_ppi", "effective_human_labels", "prob_a_better_corrected")
        pair_table = _table(
            pairs, ["model_a", "model_b"], _PAIR_STEMS, pair_extra, confidence_level
        )
    template = environment().from_string(_SECTION)
    return template.render(
        id=slug(title),
        title=title,
        source=source,
        note=note,
        notes=list(notes),
        method=method,
        models=model_table,
        pairs=pair_table,
        figure=figure_uri,
        caption="Each model's accuracy: judge only (grey), human labels only (blue), "
        "corrected (red); the judge-only interval is centred on the judge's bias.",
    )


def write_judge_report(path, section_html: str, *, title="bayesnoise report") -> Path:
    """A self-contained HTML page holding one judge section (the report's page and style)."""
    from bayesnoise import __version__

    from ._html_render import render_template

    out = Path(path)
    page = render_template(
        "report.html.j2", title=title, version=__version__, index=[], sections=[section_html]
    )
    out.write_text(page)
    return out
