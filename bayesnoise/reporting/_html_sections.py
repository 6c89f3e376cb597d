"""The numbers and words of one benchmark's section of the HTML report (all from estimators)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from bayesnoise.data import DataError
from bayesnoise.decide.verdicts import ALPHA

from ._html_render import count_text


@dataclass
class Section:
    """Everything shown for one benchmark."""

    title: str
    source: str
    summary: dict
    models: pd.DataFrame
    pairs: pd.DataFrame | None
    notes: list[str] = field(default_factory=list)
    figures: dict[str, tuple[str, str]] = field(default_factory=dict)
    references: pd.DataFrame | None = None
    data: dict = field(default_factory=dict)
    #: :func:`bayesnoise.decide.rank_table` of the questions every model answered (or None).
    ranks: pd.DataFrame | None = None
    #: More blocks after the tables: ``(heading, html)`` pairs or whole HTML strings, written
    #: by this package (inserted as they are, not escaped).
    blocks: list = field(default_factory=list)


def _record(caught, notes: list[str]) -> None:
    for w in caught:
        text = str(w.message)
        if text not in notes:
            notes.append(text)


def _pairs_part(ds, confidence_level, rng, notes, show):
    """Pair table (pair_noise + Bayesian columns + verdicts) of the questions all models answered."""
    from bayesnoise import conjugate, frequentist

    pairs = frequentist.pair_noise(ds, confidence_level=confidence_level)
    if "p_value_adjusted" not in pairs.columns and "p_value" in pairs.columns:
        from bayesnoise.decide import adjust_pvalues

        pairs["p_value_adjusted"] = adjust_pvalues(pairs["p_value"].to_numpy(), "holm")
    try:
        bayes = conjugate.posterior_pairs_table(
            ds, confidence_level=confidence_level, rng=rng, progress=show
        )
        cols = ["prob_a_better", "prob_a_better_population"]
        pairs = pairs.merge(bayes[["model_a", "model_b", *cols]], on=["model_a", "model_b"])
    except DataError as err:
        notes.append(f"Bayesian pair columns left out: {err}")
    return pairs


def compute_section(ds, *, title, confidence_level=0.95, rng=0, on_missing="raise", progress=None):
    """Compute the tables and notes of one benchmark (figures are added by the renderer)."""
    from bayesnoise import decide, frequentist
    from bayesnoise.data import complete

    step = progress or (lambda text: None)
    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step("per-model noise and intervals")
        single = frequentist.model_noise(ds, confidence_level=confidence_level)
        try:
            step("Bayesian per-model posterior")
            models = decide.compare_models(
                ds, confidence_level=confidence_level, rng=rng, progress=progress is not None
            )
            models = single.merge(
                models[[c for c in models.columns if c not in single.columns or c == "model"]],
                on="model",
            )
        except DataError as err:
            notes.append(f"Bayesian intervals left out: {err}")
            models = single
        pairs, paired_ds = None, None
        if ds.sizes["model"] >= 2:
            paired_ds = complete(ds, on_missing=on_missing)
            step("all pairs")
            pairs = _pairs_part(paired_ds, confidence_level, rng, notes, progress is not None)
    _record(caught, notes)
    return models, pairs, paired_ds, notes


def ranks_part(ds, confidence_level, rng, notes, progress=None):
    """:func:`bayesnoise.decide.rank_table` (the ``ranks`` command's default method) or None
    with a note when it cannot be computed; its warnings become notes."""
    from bayesnoise.decide import rank_table

    if progress is not None:
        progress("ranks")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            ranks = rank_table(ds, confidence_level=confidence_level, rng=rng)
        except (DataError, ValueError) as err:
            notes.append(f"ranks left out: {err}")
            ranks = None
    _record(caught, notes)
    return ranks


def forest_pages(models: pd.DataFrame) -> list[tuple[list[int], tuple | None, str]]:
    """Split the forest plot into figures of at most ``FOREST_MAX_MODELS`` models.

    Returns (row positions in ``models``, common x limits or None, caption part) per figure,
    best models first; one figure (no limits, no caption part) when the models fit in one.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"accuracy": [0.2, 0.9, 0.5], "accuracy_low": [0.1, 0.8, 0.4],
    ...                   "accuracy_high": [0.3, 1.0, 0.6]})
    >>> forest_pages(t)[0][0]
    [0, 1, 2]
    """
    from bayesnoise.plots import FOREST_MAX_MODELS, FOREST_SERIES

    m = len(models)
    if m <= FOREST_MAX_MODELS:
        return [(list(range(m)), None, "")]
    order = np.argsort(-models["accuracy"].to_numpy(float), kind="stable")
    chunks = np.array_split(order, int(np.ceil(m / FOREST_MAX_MODELS)))
    ends = [c for s in FOREST_SERIES for c in s[:2] if c in models.columns] + ["accuracy"]
    values = models[ends].to_numpy(float)
    lo, hi = np.nanmin(values), np.nanmax(values)
    pad = 0.03 * max(hi - lo, 1e-3)
    out, first = [], 1
    for chunk in chunks:
        last = first + len(chunk) - 1
        out.append(
            (chunk.tolist(), (lo - pad, hi + pad), f" (models {first}-{last} of {m} by accuracy)")
        )
        first = last + 1
    return out


def summary(ds, models, pairs, close) -> dict:
    """The benchmark's headline numbers (medians are over the close pairs / the models)."""
    k = models["samples_per_question"].to_numpy(float)
    out = {
        "models": int(ds.sizes["model"]),
        "questions": int(ds.sizes["question"]),
        "samples per question (K)": count_text(k.min())
        if k.min() == k.max()
        else f"{count_text(k.min())}-{count_text(k.max())}",
        "typical SE of a model, one sample per question (median se_total)": float(
            np.median(models["se_total"])
        ),
        "typical SE of a model's observed score (median se_mean)": float(
            np.median(models["se_mean"])
        ),
    }
    if pairs is None:
        return out
    out["questions every model answered"] = int(pairs.attrs.get("questions", ds.sizes["question"]))
    out["pairs / close pairs (|A-B| < 5 se_total)"] = f"{len(pairs)} / {len(close)}"
    if len(close):
        out["typical SE(A-B), close pairs, one sample per question (median se_total)"] = float(
            np.median(close["se_total"])
        )
        out["typical SE(A-B) of the observed scores, close pairs (median se_difference)"] = float(
            np.median(close["se_difference"])
        )
    if "p_value_adjusted" in pairs.columns:
        sig = pairs[pairs["p_value_adjusted"] < ALPHA]
        out["smallest significant difference (Holm-adjusted p < 0.05)"] = (
            float(np.abs(sig["difference"]).min()) if len(sig) else "none"
        )
    return out


def typical_components(close: pd.DataFrame) -> dict[str, float]:
    """Median data, prediction and total variance of the close pairs (NaN when not identified).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"data": [0.01, 0.03], "prediction": [0.2, 0.4], "total": [0.2, 0.4]})
    >>> typical_components(t)["data"]
    0.02
    """
    out = {}
    for name in ("data", "prediction", "total"):
        values = close[name].to_numpy(float)
        out[name] = (
            float(np.median(values)) if np.isfinite(values).all() and values.size else np.nan
        )
    return out
