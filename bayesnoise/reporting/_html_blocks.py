"""What one benchmark section shows, as data for the templates: tables, summary, notes.

Headers and their tooltips come from the column registry (:mod:`bayesnoise.vocabulary`), so a
column is called the same in the report, the CLI tables and the docs. Cells are plain text:
the templates escape them.
"""

from __future__ import annotations

import numpy as np

from bayesnoise.vocabulary import describe, label

from ._html_headline import linked, split_note
from ._html_render import (
    Cell,
    Column,
    Table,
    count,
    count_text,
    fmt,
    interval,
    num,
    render_template,
    slug,
    sort_value,
    text,
)

#: Interval columns of the model table (the stem of ``<stem>_low`` / ``<stem>_high``), in order.
MODEL_INTERVALS = ("accuracy_here", "ubar", "accuracy", "mu")

_SCOPE_WORDS = {"these questions": "these questions", "question population": "population"}


def column(name: str, css: str = "", suffix: str = "") -> Column:
    """The header of a registered column: its label, and its description as the tooltip."""
    entry = describe(name)
    notes = [f"{k}: {entry[k]}" for k in ("scope", "method", "unit") if entry[k]]
    title = entry["description"] + (f" ({'; '.join(notes)})" if notes else "")
    return Column(entry["label"] + suffix, title, css)


def interval_column(stem: str, confidence_level: float) -> Column:
    """Header of the interval ``<stem>_low`` - ``<stem>_high``: the label with its scope."""
    entry = describe(stem)
    scope = _SCOPE_WORDS.get(entry["scope"], entry["scope"])
    head = entry["label"]
    if scope and scope not in head:
        head += f" ({scope}, {entry['method']})" if entry["method"] else f" ({scope})"
    col = column(stem)
    return Column(f"{head}, {confidence_level:.0%} interval", col.title, "iv")


def _iv(row, stem: str) -> Cell:
    low, high = row.get(f"{stem}_low", np.nan), row.get(f"{stem}_high", np.nan)
    return Cell(interval(low, high), sort_value(low), "iv")


def summary_rows(summary: dict) -> list[tuple[str, str]]:
    """(name, text) of the headline numbers; whole numbers print without decimals."""
    out = []
    for key, value in summary.items():
        if isinstance(value, float) and float(value).is_integer() and "SE" not in key:
            out.append((key, count_text(value)))
        else:
            out.append((key, fmt(value, 4) if isinstance(value, float) else fmt(value)))
    return out


def model_table(models, confidence_level: float) -> Table:
    """One row per model, by accuracy: sizes, SEs, the four intervals, kappa."""
    df = models.sort_values("accuracy", ascending=False, kind="stable")
    present = [s for s in MODEL_INTERVALS if f"{s}_low" in df.columns]
    kappa = "kappa_median" in df.columns
    columns = [
        column("model", "t name"),
        column("questions"),
        column("samples_per_question"),
        column("accuracy"),
        column("se_total"),
        column("se_mean"),
        *[interval_column(s, confidence_level) for s in present],
    ]
    columns += [column("kappa_median"), column("kappa_status", "t")] if kappa else []
    rows = []
    for _, r in df.iterrows():
        row = [text(r["model"], "t name", span="model")]
        row += [count(r["questions"]), count(r["samples_per_question"]), num(r["accuracy"], 4)]
        row += [num(r["se_total"], 4), num(r["se_mean"], 4)]
        row += [_iv(r, s) for s in present]
        if kappa:
            row += [num(r["kappa_median"], 2), text(r["kappa_status"])]
        rows.append(row)
    if kappa and df["kappa_status"].astype(str).str.startswith("not identified").all():
        # K = 1 everywhere: kappa is the prior's; the data notes say so once
        columns, rows = columns[:-2], [row[:-2] for row in rows]
    # a column empty on every row says nothing: leave it out (the notes say why it is empty)
    keep = [j for j in range(len(columns)) if any(row[j].text for row in rows)] if rows else []
    columns = [columns[j] for j in keep] if rows else columns
    rows = [[row[j] for j in keep] for row in rows]
    return Table(columns, rows, "sortable model-table", "models")


def pair_table(close, confidence_level: float, adjust: str = "holm") -> Table:
    """The close pairs: difference and its interval, tests, Bayesian P(A > B), verdict."""
    bayes = "prob_a_better" in close.columns
    method = "Benjamini-Hochberg" if adjust == "bh" else str(adjust).title()
    columns = [
        column("model_a", "t name"),
        column("model_b", "t name"),
        column("difference"),
        interval_column("difference", confidence_level),
        column("z"),
        column("p_value"),
        column("p_value_adjusted", suffix=f" ({method})"),
    ]
    columns += [column("prob_a_better"), column("prob_a_better_population")] if bayes else []
    columns.append(
        Column(
            "verdict",
            f"the pair called on its {method}-adjusted p-value of the paired t test (alpha 5%); "
            "otherwise the questions (or samples per question) needed for 80% power",
            "t verdict",
        )
    )
    rows = []
    for r in close.to_dict("records"):  # dicts: a Series per row costs ~50 us (M^2 / 2 rows)
        p_adj = r.get("p_value_adjusted", np.nan)
        row = [text(r["model_a"], "t name"), text(r["model_b"], "t name")]
        row += [num(r["difference"], 4), _iv(r, "difference")]
        row += [num(r["z"], 2), num(r.get("p_value", np.nan), 3), num(p_adj, 3)]
        if bayes:
            row += [num(r["prob_a_better"], 3), num(r["prob_a_better_population"], 3)]
        sig = "sig" if np.isfinite(p_adj) and p_adj < 0.05 else ""
        row.append(text(r["verdict"], "t verdict", span=sig))
        rows.append(row)
    return Table(columns, rows, "sortable pair-table", "close pairs")


def rank_table_view(ranks, confidence_level: float) -> Table:
    """:func:`bayesnoise.decide.rank_table` as a table: P(best), ranks, tie-group letters."""
    columns = [
        column("model", "t name"),
        column("accuracy"),
        column("prob_best"),
        column("expected_rank"),
        Column(f"{label('rank')}, {confidence_level:.0%} interval", column("rank").title, "iv"),
        column("in_top_group", "t"),
        column("group", "t letters"),
    ]
    rows = []
    for _, r in ranks.iterrows():
        low, high = float(r["rank_low"]), float(r["rank_high"])
        span = count_text(low) if low == high else f"{count_text(low)} – {count_text(high)}"
        rows.append(
            [
                text(r["model"], "t name"),
                num(r["accuracy"], 4),
                num(r["prob_best"], 3),
                num(r["expected_rank"], 1),
                Cell(span, sort_value(low), "iv"),
                text("yes" if bool(r["in_top_group"]) else "no"),
                text("" if r["group"] is None else r["group"], "t letters"),
            ]
        )
    return Table(columns, rows, "sortable rank-table", "ranks")


def reference_view(refs, here: dict) -> Table:
    """This file against the reference runs of the same benchmark."""
    columns = [
        Column("source", "run / benchmark of the reference tables", "t name"),
        column("questions"),
        column("samples_per_question"),
        column("close_pairs"),
        column("se_difference_median_close"),
        column("se_difference_data_median_close"),
        column("se_difference_prediction_median_close"),
        column("benchmark_kappa"),
    ]
    rows = [
        [
            text("this file", "t name", span="here"),
            count(here["questions"]),
            text(here["k"], ""),
            count(here["close"]),
            num(here["se"], 4),
            num(here["se_data"], 4),
            num(here["se_prediction"], 4),
            num(here["kappa"], 2),
        ]
    ]
    for _, r in refs.iterrows():
        rows.append(
            [
                text(f"{r['run']} / {r['benchmark']}", "t name"),
                count(r["questions"]),
                count(r["samples_per_question"]),
                count(r["close_pairs"]),
                num(r["se_difference_median_close"], 4),
                num(r["se_difference_data_median_close"], 4),
                num(r["se_difference_prediction_median_close"], 4),
                num(r["benchmark_kappa"], 2),
            ]
        )
    return Table(columns, rows, "reference", "reference noise")


def notes(section) -> list[list]:
    """The data notes as sentence parts (docs paths become links); the K = 1 split warning is
    replaced by one note saying what the report did instead (:func:`split_note`)."""
    out = []
    k1 = split_note(section.models)
    for note in section.notes:
        said = ("data/prediction split not", "kappa is not identifiable")  # in the K = 1 note
        if k1 is not None and note.startswith(said) and "(K = 1)" in note:
            continue
        out.append(linked(note))
    return ([k1] if k1 is not None else []) + out


def section_context(section, confidence_level: float) -> dict:
    """Everything ``section.html.j2`` needs for one benchmark."""
    close = section.data.get("close")
    pairs = section.pairs
    ranks = getattr(section, "ranks", None)
    context = {
        "id": slug(section.title),
        "title": section.title,
        "source": section.source,
        "level": f"{confidence_level:.0%}",
        "summary": summary_rows(section.summary),
        "references": None,
        "models": model_table(section.models, confidence_level),
        "ranks": None,
        "close": None,
        "blocks": list(getattr(section, "blocks", []) or []),
        "figures": [(name, uri, cap) for name, (uri, cap) in section.figures.items()],
        "notes": notes(section),
        "headline": section.data.get("headline", []),
    }
    if section.references is not None:
        context["references"] = reference_view(section.references, section.data["here"])
    if ranks is not None:
        context["ranks"] = {
            "table": rank_table_view(ranks, confidence_level),
            "method": ranks.attrs.get("model", ""),
            "about": ranks.attrs.get("about", ""),
            "draws": ranks.attrs.get("n_resamples", ""),
            "tau": fmt(ranks.attrs["tau"], 3) if "tau" in ranks.attrs else "",
            "top": int(ranks["in_top_group"].sum()),
            "alpha": fmt(1.0 - confidence_level, 2),
        }
    if close is not None and pairs is not None:
        adjust = str(pairs.attrs.get("adjust", "holm"))
        context["close"] = {
            "table": pair_table(close, confidence_level, adjust),
            "n": len(close),
            "all": len(pairs),
            "adjust": "Benjamini-Hochberg" if adjust == "bh" else adjust.title(),
            "family": pairs.attrs.get("family_size", len(pairs)),
        }
    return context


def section_html(section, confidence_level: float) -> str:
    """The HTML of one section (``section.html.j2``)."""
    return render_template("section.html.j2", s=section_context(section, confidence_level))
