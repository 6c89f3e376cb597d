"""HTML blocks of one benchmark section: summary, reference, model and pair tables, notes."""

from __future__ import annotations

from html import escape

import numpy as np

from ._html_render import figure_html, fmt, interval, num, slug, table_html

_MODEL_INTERVALS = (
    ("these questions, frequentist", "accuracy_here_low", "accuracy_here_high"),
    ("these questions, Bayesian (ubar)", "ubar_low", "ubar_high"),
    ("population, frequentist", "accuracy_low", "accuracy_high"),
    ("population, Bayesian (mu)", "mu_low", "mu_high"),
)


def _iv(row, low, high):
    if low not in row or high not in row:
        return ("", None)
    return (interval(row[low], row[high]), float(row[low]))


def summary_html(summary: dict) -> str:
    rows = "".join(
        f'<tr><th class="t">{escape(k)}</th><td>{fmt(v, 4) if isinstance(v, float) else fmt(v)}</td></tr>'
        for k, v in summary.items()
    )
    return f"<table>{rows}</table>"


def model_table_html(models, level: float) -> str:
    df = models.sort_values("accuracy", ascending=False, kind="stable")
    present = [iv for iv in _MODEL_INTERVALS if iv[1] in df.columns]
    columns = ["model", "questions", "K", "accuracy", "SE one sample", "SE observed"]
    columns += [f"{name} ({level:.0%})" for name, _, _ in present]
    columns += ["kappa", "kappa status"] if "kappa" in df.columns else []
    rows = []
    for _, r in df.iterrows():
        row = [(f'<span class="model">{escape(str(r["model"]))}</span>', None)]
        row += [num(r["questions"], 0), num(r["samples_per_question"], 1), num(r["accuracy"], 4)]
        row += [num(r["se_total"], 4), num(r["se_mean"], 4)]
        row += [_iv(r, lo, hi) for _, lo, hi in present]
        if "kappa" in df.columns:
            row += [num(r["kappa"], 2), (escape(str(r["kappa_status"])), None)]
        rows.append(row)
    n_text = (1, len(columns)) if "kappa" in df.columns else (1,)
    return table_html(columns, rows, css="sortable model-table", text_cols=n_text)


def pair_table_html(close, level: float, verdicts) -> str:
    bayes = "p_a_better" in close.columns
    columns = ["model A", "model B", "A - B", f"{level:.0%} interval", "z", "p", "Holm p"]
    columns += ["P(A>B) these questions", "P(A>B) population"] if bayes else []
    columns += ["verdict"]
    rows = []
    for (_, r), text in zip(close.iterrows(), verdicts, strict=True):
        p_adj = r.get("p_adjusted", np.nan)
        strong = ' class="sig"' if np.isfinite(p_adj) and p_adj < 0.05 else ""
        row = [(escape(str(r["model_a"])), None), (escape(str(r["model_b"])), None)]
        row += [num(r["difference"], 4), _iv(r, "difference_low", "difference_high")]
        row += [num(r["z"], 2), num(r.get("p_value", np.nan), 3), num(p_adj, 3)]
        if bayes:
            row += [num(r["p_a_better"], 3), num(r["p_a_better_population"], 3)]
        row += [(f"<span{strong}>{escape(text)}</span>", None)]
        rows.append(row)
    return table_html(columns, rows, text_cols=(1, 2, len(columns)))


def reference_html(refs, here: dict) -> str:
    columns = ["source", "N", "K", "close pairs", "SE(A-B)", "data SE", "prediction SE", "kappa"]
    rows = [
        [
            ("<b>this file</b>", None),
            num(here["questions"], 0),
            (escape(here["k"]), None),
            num(here["close"], 0),
            num(here["se"], 4),
            num(here["se_data"], 4),
            num(here["se_prediction"], 4),
            num(here["kappa"], 2),
        ]
    ]
    for _, r in refs.iterrows():
        rows.append(
            [
                (escape(f"{r['run']} / {r['benchmark']}"), None),
                num(r["questions"], 0),
                num(r["samples_per_question"], 0),
                num(r["close_pairs"], 0),
                num(r["se_difference"], 4),
                num(r["se_difference_data"], 4),
                num(r["se_difference_prediction"], 4),
                num(r["benchmark_kappa"], 2),
            ]
        )
    return table_html(columns, rows, css="reference", text_cols=(1, 3))


def notes_html(notes) -> str:
    if not notes:
        return "<p>No data notes: nothing was dropped, every estimate was identified.</p>"
    return '<ul class="notes">' + "".join(f"<li>{escape(n)}</li>" for n in notes) + "</ul>"


def section_html(section, level: float) -> str:
    """The HTML of one section."""
    sid = slug(section.title)
    parts = [
        f'<section id="{sid}"><h2>{escape(section.title)}</h2>',
        f'<p class="muted">{escape(section.source)}</p><h3>Summary</h3>',
        summary_html(section.summary),
    ]
    if section.references is not None:
        parts += [
            "<h3>Against the reference noise models</h3><p>The same benchmark measured by "
            "others (models/ reference tables): median paired SEs of close pairs.</p>",
            reference_html(section.references, section.data["here"]),
        ]
    parts += [
        "<h3>Models</h3><p>Accuracy with intervals for <i>these questions</i> (prediction "
        "noise only) and for <i>the population</i> of questions like these (data + prediction "
        "noise). SE one sample: a run with one sample per question; SE observed: the score "
        "as averaged over its K samples.</p>",
        model_table_html(section.models, level),
    ]
    close = section.data.get("close")
    if close is not None:
        adjust = section.pairs.attrs.get("adjust", "holm")
        family = section.pairs.attrs.get("family_size", len(section.pairs))
        parts += [
            f"<h3>Close pairs ({len(close)} of {len(section.pairs)})</h3><p>Pairs with "
            f"|A - B| &lt; 5 paired SEs. p: two-sided paired t test of the difference (N - 1 "
            f"df); Holm p: adjusted ({escape(str(adjust))}) over all {family} pairs, and the "
            "verdict is called on it, so a pair whose unadjusted p or interval excludes 0 can "
            "still be 'not distinguishable' once the other pairs are accounted for. Questions "
            "or samples needed: for 80% power at 5% two-sided, before adjustment. P(A&gt;B): "
            "Bayesian, on these questions and on the population.</p>",
            pair_table_html(close, level, close["verdict"]),
        ]
    if section.figures:
        parts.append("<h3>Figures</h3>")
        parts += [figure_html(name, uri, cap) for name, (uri, cap) in section.figures.items()]
    parts += ["<h3>Data notes</h3>", notes_html(section.notes), "</section>"]
    return "\n".join(parts)
