"""The "Benchmark quality" block of a report section: signal-to-noise, unsolved / one-solver /
suspect questions (linked to their rows in a table of the listed questions), win rate and Elo.

Every number comes from the estimators (:mod:`bayesnoise.frequentist.quality`,
:mod:`bayesnoise.frequentist.elo`, :mod:`bayesnoise.frequentist.signal`); this module words and
arranges them. The block is a ``(heading, html)`` pair for ``Section.blocks``, rendered with the
report's jinja2 environment (autoescaped) and its table macro.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from bayesnoise.data import DataError

from ._html_blocks import column, interval_column
from ._html_render import Table, count, environment, num, png_data_uri, slug, text

__all__ = [
    "quality_block",
    "quality_context",
    "quality_figures",
]

HEADING = "Benchmark quality"
#: Suspect questions listed (most negative Kendall tau first).
SUSPECTS = 10
#: At most this many questions in each list (the count is always given in full).
_LISTED = 60
#: Elo bootstrap replicates: the ``leaderboard`` default, so the numbers are the command's.
ELO_BOOTSTRAP = 1000
#: The block's figures, in order (``data-figure`` names; the first three are ``bn.plot`` kinds).
FIGURES = ("difference-sum", "p-values", "difficulty", "heatmap")

_TEMPLATE = """{% from "macros.html.j2" import table %}
<p>Signal-to-noise ratio with the noise this package measures: signal = (max - min) / mean of
the {{ q.snr.models }} models' accuracies = {{ q.snr.signal }}; a model's relative noise is its
SE / its accuracy. Median over the models: SE total {{ q.snr.noise_total }} (SNR
{{ q.snr.snr_total }}, models from {{ q.snr.snr_total_range }}){% if q.snr.noise_prediction %},
SE prediction {{ q.snr.noise_prediction }} (SNR {{ q.snr.snr_prediction }}){% endif %}. This is
not the signal-and-noise checkpoint noise (std / mean over a training run's last checkpoints):
<code>bayesnoise signal --checkpoint-column step</code> measures that from checkpoint results.
</p>
{% if q.questions %}
<p>{{ q.counts.questions }} questions: <b>{{ q.counts.unsolved }}</b> unsolved (no model scored),
<b>{{ q.counts.solved_by_one }}</b> solved by one model, <b>{{ q.counts.tau_negative }}</b> with
Kendall tau &lt; 0 (better models do worse on them){% if q.counts.tau_undefined %},
{{ q.counts.tau_undefined }} with tau undefined (every model scored the same){% endif %}.
Suspect: the most negative tau between a question's scores and the models' accuracies
(Eval-Arena); check them for a wrong reference answer or an underspecified task.
Question ids link to their row below.</p>
{% for name, items, total in q.lists %}
<p><b>{{ name }}</b> ({{ total }}){% if items %}: {% for qid, anchor, extra in items %}<a href="#{{ anchor }}">{{ qid }}</a>{% if extra %} ({{ extra }}){% endif %}{% if not loop.last %}, {% endif %}{% endfor %}{% if total > items|length %}, ... ({{ total - items|length }} more: <code>bayesnoise questions</code>){% endif %}{% else %}: none{% endif %}</p>
{% endfor %}
{% if q.rows %}
<div class="wrap" role="region" tabindex="0" aria-label="listed questions">
<table class="sortable questions">
<thead><tr>{% for c in q.columns %}<th class="{{ c.css }}" title="{{ c.title }}">{{ c.label }}</th>{% endfor %}</tr></thead>
<tbody>
{% for anchor, cells in q.rows %}
<tr id="{{ anchor }}">{% for cell in cells %}<td{% if cell.css %} class="{{ cell.css }}"{% endif %}{% if cell.value is not none %} data-v="{{ cell.value }}"{% endif %}>{{ cell.text }}</td>{% endfor %}</tr>
{% endfor %}
</tbody></table></div>
{% endif %}
{% else %}
<p>Question lists left out: {{ q.why }}</p>
{% endif %}
{% if q.leaderboard %}
<p>Win rate (Eval-Arena): the chance that the model passes and another fails a random
question; Elo: a Bradley-Terry fit of the expected win counts (a question both pass or both
fail is half a win for each, as in Chatbot Arena and Eval-Arena), 400 points per factor 10 in
odds, mean 1000, with a {{ q.level }} interval
from {{ q.bootstrap }} bootstrap resamples of the questions (<code>bayesnoise
leaderboard</code> prints the same numbers). Quote accuracy with its interval: it is the most
stable of the three on half-splits of the questions.</p>
{{ table(q.leaderboard) }}
{% endif %}
{% if q.figures %}
<div class="figures">
{% for name, uri, caption in q.figures %}
<figure data-figure="{{ name }}"><img src="{{ uri }}" alt="{{ caption }}"><figcaption>{{ caption }}</figcaption></figure>
{% endfor %}
</div>
{% endif %}
"""


def _median(x) -> float:
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    return float(np.median(x)) if x.size else np.nan


def _fmt(value, digits=3) -> str:
    return "" if not np.isfinite(value) else f"{value:.{digits}g}"


def _snr(ds) -> dict:
    from bayesnoise.frequentist import model_noise
    from bayesnoise.frequentist.signal import measured_signal

    noise = model_noise(ds)
    table = measured_signal(
        noise["model"], noise["accuracy"], noise["se_total"], noise["se_prediction"]
    )
    snr_total = table["snr_se_total"].to_numpy(float)
    finite = snr_total[np.isfinite(snr_total)]
    return {
        "models": len(table),
        "signal": _fmt(float(table["signal"].iloc[0]), 3),
        "noise_total": _fmt(_median(table["noise_se_total"]), 3),
        "snr_total": _fmt(_median(snr_total), 3),
        "snr_total_range": f"{_fmt(finite.min(), 3)} to {_fmt(finite.max(), 3)}"
        if finite.size
        else "",
        "noise_prediction": _fmt(_median(table["noise_se_prediction"]), 3),
        "snr_prediction": _fmt(_median(table["snr_se_prediction"]), 3),
    }


def _questions(ds, sid) -> dict:
    from bayesnoise.frequentist import question_quality, question_summary

    table = question_quality(ds)
    counts = question_summary(table)
    anchor = {q: f"{sid}-q-{slug(q)}-{i}" for i, q in enumerate(table["question"].astype(str))}
    by_id = table.assign(question=table["question"].astype(str)).set_index("question")
    unsolved = list(by_id.index[by_id["solved_by"] == 0])
    once = list(by_id.index[by_id["solved_by"] == 1])
    ranked = by_id.dropna(subset=["suspect_rank"]).sort_values("suspect_rank")
    suspects = list(ranked.index[:SUSPECTS])
    lists = [
        ("Unsolved", [(q, anchor[q], "") for q in unsolved[:_LISTED]], len(unsolved)),
        (
            "Solved by one model",
            [(q, anchor[q], str(by_id.at[q, "weakest_solver"])) for q in once[:_LISTED]],
            len(once),
        ),
        (
            f"Most suspect (top {SUSPECTS})",
            [(q, anchor[q], f"tau {by_id.at[q, 'kendall_tau']:.3f}") for q in suspects],
            len(suspects),
        ),
    ]
    listed = list(dict.fromkeys([*unsolved[:_LISTED], *once[:_LISTED], *suspects]))
    names = [
        "question",
        "question_accuracy",
        "solved_by",
        "weakest_solver",
        "kendall_tau",
        "suspect_rank",
    ]
    columns = [column(n, "t name" if n in ("question", "weakest_solver") else "") for n in names]
    rows = []
    for q in listed:
        r = by_id.loc[q]
        rank = r["suspect_rank"]
        rows.append(
            (
                anchor[q],
                [
                    text(q, "t name"),
                    num(r["question_accuracy"], 3),
                    count(r["solved_by"]),
                    text("" if pd.isna(r["weakest_solver"]) else r["weakest_solver"], "t name"),
                    num(r["kendall_tau"], 3),
                    count(float(rank) if pd.notna(rank) else np.nan),
                ],
            )
        )
    return {"counts": counts, "lists": lists, "columns": columns, "rows": rows, "table": table}


def _leaderboard(ds, confidence_level, rng) -> Table:
    from bayesnoise.frequentist import model_quality

    table = model_quality(ds, n_resamples=ELO_BOOTSTRAP, confidence_level=confidence_level, rng=rng)
    columns = [
        column("model", "t name"),
        column("accuracy"),
        column("win_rate"),
        column("elo"),
        interval_column("elo", confidence_level),
    ]
    rows = [
        [
            text(r["model"], "t name"),
            num(r["accuracy"], 4),
            num(r["win_rate"], 4),
            num(r["elo"], 0),
            text(
                ""
                if not np.isfinite(r["elo_low"])
                else f"{r['elo_low']:.0f} – {r['elo_high']:.0f}",
                "iv",
            ),
        ]
        for _, r in table.iterrows()
    ]
    return Table(columns, rows, "sortable leaderboard", "win rate and Elo")


def _captions(n_models: int, questions) -> dict[str, str]:
    """The figure captions, worded with the column registry's labels."""
    from bayesnoise.vocabulary import label

    pairs = n_models * (n_models - 1) // 2
    unsolved = "" if questions is None else f" ({int((questions['solved_by'] == 0).sum())})"
    return {
        "difference-sum": (
            f"Pair wins (Eval-Arena's difference against sum), one point per pair of the "
            f"{pairs} model pairs: |wins A - wins B| against wins A + wins B, where wins A counts "
            "the questions A passes and B fails (expected counts for fractional scores; the "
            f"{label('win_rate')} averages them). Pairs to the right of a curve differ by "
            "McNemar's test at p = 0.05, 0.1 or 0.2: the curve is the win difference a pair "
            "needs for its number of deciding questions."
        ),
        "p-values": (
            f"{label('p_value')} and {label('p_value_sign_questions')} (sign test on the questions) of "
            f"each of the {pairs} pairs against |{label('difference')}|, the accuracy difference, "
            "with the p = 0.05 line: the gap this benchmark needs before two models differ."
        ),
        "difficulty": (
            f"Question difficulty: histogram of each question's {label('question_accuracy')} "
            f"(mean over the models); the red bar apart counts the unsolved questions{unsolved} "
            f"({label('solved_by')} 0 models)."
        ),
        "heatmap": (
            "Question x model heat map: each question's score for each model, questions sorted "
            f"by their {label('accuracy')} over the models (easiest at the top) and models by "
            f"their {label('accuracy')} (best at the right); grey: no result (paper Figure 4)."
        ),
    }


def quality_figures(ds, *, questions=None, pairs=None, full=None, notes=None) -> list:
    """(name, PNG data URI, caption) of the block's figures (:data:`FIGURES`).

    ``questions`` (the question table) and ``pairs`` (the pair table of ``ds``) are reused
    when given; the heat map draws ``full`` (every result, missing cells grey) when given,
    else ``ds``. A figure that cannot be drawn is left out with a note."""
    from bayesnoise import plots
    from bayesnoise.plots import quality

    captions = _captions(ds.sizes["model"], questions)
    draw = {
        "difference-sum": lambda: quality.plot_difference_sum(ds),
        "p-values": lambda: quality.plot_pvalue_difference(pairs if pairs is not None else ds),
        "difficulty": lambda: quality.plot_difficulty(questions if questions is not None else ds),
        "heatmap": lambda: plots.plot_heatmap(full if full is not None else ds),
    }
    out = []
    for name in FIGURES:
        try:
            out.append((name, png_data_uri(draw[name]()), captions[name]))
        except (DataError, ValueError) as err:
            if notes is not None:
                notes.append(f"figure '{name}' left out: {err}")
    return out


def quality_context(
    ds,
    *,
    sid: str,
    confidence_level: float = 0.95,
    rng: int = 0,
    figures=False,
    pairs=None,
    full=None,
) -> tuple[dict, list]:
    """(template context, notes) of the block for a dataset whose models answered every
    question (the report's paired dataset); with ``figures``, the :func:`quality_figures`."""
    notes: list[str] = []
    q: dict = {
        "level": f"{confidence_level:.0%}",
        "bootstrap": ELO_BOOTSTRAP,
        "leaderboard": None,
        "figures": [],
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            q["snr"] = _snr(ds)
        except (DataError, ValueError) as err:
            q["snr"] = {k: "" for k in ("signal", "noise_total", "snr_total", "snr_total_range")}
            q["snr"]["models"] = ds.sizes["model"]
            notes.append(f"signal-to-noise left out: {err}")
        if ds.sizes["model"] < 3:
            q["questions"], q["why"] = (
                False,
                (f"Kendall tau ranks {ds.sizes['model']} model(s); it needs at least 3"),
            )
        else:
            q.update(_questions(ds, sid))
            q["questions"] = True
        if ds.sizes["model"] >= 2:
            try:
                q["leaderboard"] = _leaderboard(ds, confidence_level, rng)
            except (DataError, ValueError) as err:
                notes.append(f"win rate and Elo left out: {err}")
    for w in caught:
        message = f"benchmark quality: {w.message}"
        if "split not identifiable" not in message and message not in notes:
            notes.append(message)
    if figures:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the numbers' warnings are noted above
            q["figures"] = quality_figures(
                ds, questions=q.get("table"), pairs=pairs, full=full, notes=notes
            )
    return q, notes


def quality_block(
    ds,
    *,
    sid: str,
    confidence_level: float = 0.95,
    rng: int = 0,
    notes=None,
    progress=None,
    figures=False,
    pairs=None,
    full=None,
):
    """``(HEADING, html)`` of the block; its warnings are appended to ``notes``.

    With ``figures``, the block ends with Eval-Arena's pair-wins and p-value figures, the
    difficulty histogram and the question x model heat map (:func:`quality_figures`; ``pairs``
    and ``full`` as there).

    Examples
    --------
    >>> import numpy as np, bayesnoise as bn
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random((4, 50)) < np.linspace(0.3, 0.7, 4)[:, None]
    >>> heading, html = quality_block(bn.from_arrays(p.astype(int), np.ones((4, 50))), sid="x")
    >>> heading, "Unsolved" in html, "leaderboard" in html
    ('Benchmark quality', True, True)
    """
    if progress is not None:
        progress("benchmark quality")
    context, found = quality_context(
        ds,
        sid=sid,
        confidence_level=confidence_level,
        rng=rng,
        figures=figures,
        pairs=pairs,
        full=full,
    )
    if notes is not None:
        notes.extend(n for n in found if n not in notes)
    return HEADING, environment().from_string(_TEMPLATE).render(q=context)
