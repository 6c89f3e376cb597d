"""The answer a report section opens with: the top group and its test, the smallest difference
the benchmark resolves, the most suspect questions; and the report's links to the docs.

Every number comes from the estimators (:func:`bayesnoise.decide.rank_table`,
:func:`bayesnoise.frequentist.power_table`, :func:`bayesnoise.frequentist.question_quality`);
this module words them. Sentences are lists of parts, each plain text or a ``(text, href)``
link, so the template escapes the text and writes real ``<a href>`` links.
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from bayesnoise._common import few

from ._html_render import slug

__all__ = ["docs_url", "headline", "linked", "split_note"]

#: Environment variable naming the base URL of the built documentation (the Sphinx site); the
#: report links ``<base>/<page>.html#anchor``. Unset: the page in this copy of the repository.
DOCS_ENV = "BAYESNOISE_DOCS_URL"
#: Suspect questions named in the headline (the quality block lists more).
HEADLINE_SUSPECTS = 3
_DOCS = Path(__file__).resolve().parents[2] / "docs"
_DOC_PATH = re.compile(r"docs/([A-Za-z0-9_./-]+?)\.md(#[A-Za-z0-9_-]+)?")


def docs_url(page: str, anchor: str = "") -> str:
    """The address of a docs page (``page`` as in ``docs/<page>.md``) for a link.

    One scheme for every link of the report: ``$BAYESNOISE_DOCS_URL/<page>.html#anchor`` when
    that variable names the built site; otherwise the page of this copy of the repository, built
    (``docs/_build/html/<page>.html``) if it is there, else its source ``docs/<page>.md``, as a
    ``file:`` URI; the plain relative path ``docs/<page>.md`` when neither exists (an installed
    wheel without the docs).

    Examples
    --------
    >>> os.environ[DOCS_ENV] = "https://example.org/bn/"
    >>> docs_url("warnings", "split")
    'https://example.org/bn/warnings.html#split'
    >>> del os.environ[DOCS_ENV]
    """
    tail = f"#{anchor}" if anchor else ""
    base = os.environ.get(DOCS_ENV, "").strip()
    if base:
        return f"{base.rstrip('/')}/{page}.html{tail}"
    for path in (_DOCS / "_build" / "html" / f"{page}.html", _DOCS / f"{page}.md"):
        if path.is_file():
            return path.as_uri() + tail
    return f"docs/{page}.md{tail}"


def linked(text: str) -> list:
    """``text`` as sentence parts, each ``docs/<page>.md#anchor`` in it a link (:func:`docs_url`).

    Examples
    --------
    >>> parts = linked("empty; see docs/warnings.md#split")
    >>> parts[0], parts[1][0]
    ('empty; see ', 'docs/warnings.md#split')
    """
    parts: list = []
    last = 0
    for match in _DOC_PATH.finditer(text):
        parts.append(text[last : match.start()])
        anchor = (match.group(2) or "").lstrip("#")
        parts.append((match.group(0), docs_url(match.group(1), anchor)))
        last = match.end()
    parts.append(text[last:])
    return [p for p in parts if p]


def split_note(models: pd.DataFrame) -> list | None:
    """The K = 1 note of the report: what the package did where the split is not identified.

    Examples
    --------
    >>> t = pd.DataFrame({"model": ["a", "b"], "samples_per_question": [1, 4]})
    >>> "".join(p if isinstance(p, str) else p[0] for p in split_note(t))[:46]
    '1 model(s) (a) have one sample per question (K'
    """
    k1 = models.loc[models["samples_per_question"].to_numpy(float) <= 1, "model"].astype(str)
    if k1.empty:
        return None
    who = f"{len(k1)} model(s) ({few(k1, 60)})" if len(k1) < len(models) else "Every model"
    verb = "has" if who == "Every model" else "have"
    return [
        f"{who} {verb} one sample per question (K = 1), so the data and prediction parts of "
        "the noise are not identified. The report therefore leaves out se_data, se_prediction, "
        "the frequentist interval for these questions and kappa; ubar (these questions) is the "
        "K = 1 binomial bound, which holds whatever the questions' difficulties, and dbar the "
        "narrower of that bound and the population interval (",
        ("K = 1", docs_url("warnings", "split")),
        ").",
    ]


def _top_sentence(ranks: pd.DataFrame, confidence_level: float) -> list:
    level = confidence_level
    acc = ranks["accuracy"].to_numpy(float)
    top = ranks["in_top_group"].to_numpy(bool)
    best = str(ranks["model"].iloc[0])
    family = int(ranks.attrs.get("family_size", len(ranks) * (len(ranks) - 1) // 2))
    alpha = f"{1 - level:.0%}"
    test = (
        f"paired t tests of every pair of models, Holm-adjusted over all {family} pairs at "
        f"{alpha} family-wise error, read in accuracy order ("
    )
    link = ("the top group", docs_url("decisions"))
    if top.sum() == 1:
        return [
            f"Best model: {best} (accuracy {acc[0]:.3f}); every other model is shown worse by "
            + test,
            link,
            ").",
        ]
    names = few(ranks.loc[top, "model"].astype(str), 160)
    return [
        f"Top group: {int(top.sum())} of {len(ranks)} models, accuracy {acc[0]:.3f} to "
        f"{acc[top].min():.3f}, are not shown worse than the most accurate, {best}: {names}. "
        f"It holds the truly best model with {level:.0%} confidence; the test: " + test,
        link,
        ").",
    ]


def _resolve_sentence(paired_ds, close: pd.DataFrame, alpha: float, power: float) -> list:
    from bayesnoise.frequentist import power_table

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # said once in the data notes
        table = power_table(paired_ds, alpha=alpha, power=power)
    if close is not None and len(close):
        keep = close[["model_a", "model_b"]]
        table = table.merge(keep, on=["model_a", "model_b"], how="inner")
        which = f"the median over the {len(table)} close pairs"
    else:
        which = f"the median over all {len(table)} pairs"
    mdd = table["paired_min_difference"].to_numpy(float)
    mdd = mdd[np.isfinite(mdd)]
    if not mdd.size:
        return []
    n = int(paired_ds.sizes["question"])
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
    return [
        f"Smallest difference this benchmark resolves: {np.median(mdd):.3f} "
        f"({100 * np.median(mdd):.1f} points; {mdd.min():.3f} to {mdd.max():.3f} over the "
        f"pairs), {which}: a true gap this large is detected with {power:.0%} power by a "
        f"two-sided paired test at {alpha:.0%} on these {n} questions "
        f"({z:.2f} paired SEs; ",
        ("plan a budget", docs_url("howto/plan-budget")),
        "). Smaller gaps between two models are mostly noise here.",
    ]


def _suspect_sentence(paired_ds, sid: str) -> list:
    from bayesnoise.frequentist import question_quality

    table = question_quality(paired_ds)
    anchor = {q: f"{sid}-q-{slug(q)}-{i}" for i, q in enumerate(table["question"].astype(str))}
    ranked = table.dropna(subset=["suspect_rank"]).sort_values("suspect_rank")
    ranked = ranked[ranked["kendall_tau"] < 0].head(HEADLINE_SUSPECTS)
    if ranked.empty:
        return ["Suspect questions: none (no question's scores fall as model accuracy rises)."]
    parts: list = [f"Most suspect question{'s' if len(ranked) > 1 else ''}: "]
    pairs = zip(ranked["question"].astype(str), ranked["kendall_tau"], strict=True)
    for j, (q, tau) in enumerate(pairs):
        parts += [(q, f"#{anchor[q]}"), f" (tau {tau:.2f})"]
        parts.append(", " if j < len(ranked) - 1 else "")
    parts.append(
        ": the better models do worse on them (negative Kendall tau with the models' "
        "accuracies); check their reference answers."
    )
    return parts


def headline(section, paired_ds, confidence_level: float, *, power: float = 0.8) -> list:
    """The section's opening sentences, each a list of parts (text or ``(text, href)``).

    Parameters
    ----------
    section : Section
        With ``ranks`` and ``data["close"]`` computed.
    paired_ds : xarray.Dataset or None
        The questions every model answered (None: one model, no headline but the K = 1 note).
    confidence_level : float
    power : float, default 0.8

    Returns
    -------
    list of list
    """
    out = []
    alpha = 1.0 - confidence_level
    if section.ranks is not None:
        out.append(_top_sentence(section.ranks, confidence_level))
    if paired_ds is not None:
        resolve = _resolve_sentence(paired_ds, section.data.get("close"), alpha, power)
        if resolve:
            out.append(resolve)
        if paired_ds.sizes["model"] >= 3:
            out.append(_suspect_sentence(paired_ds, slug(section.title)))
    return out
