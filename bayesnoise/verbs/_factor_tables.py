"""``pairs`` / ``compare`` / ``check`` on a dataset with factor dims (prompt templates, runs).

The paired differences come from the crossed estimator of ``bayesnoise noises --by pair``
(:mod:`bayesnoise.frequentist.crossed` on the question x template cells both models have,
runs as replicates): the same rows, the same names, the same numbers. The default estimand
is the difference over the template population (templates a random draw): its SE counts the
model x template interaction and its t reference has Satterthwaite's degrees of freedom, so
a pair that swaps places under another template gets the wide interval it deserves. The
``*_these_templates`` columns (templates fixed) are the interval that pooling the templates
as samples gives on a balanced design.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesnoise.data import MODEL, DataError, attr, factor_dims

__all__ = [
    "crossed_cells",
    "has_factors",
    "model_table",
    "pair_table",
]

#: What a Bayesian command says on a dataset with factor dims.
BAYES_REFUSAL = (
    "{source}: the scores vary by {factor} as well as by question; the closed-form posteriors "
    "treat one score per (model, question, sample). The Bayesian crossed model is `bayesnoise "
    "noises --factor {factor} --method mcmc` (bn.noises(..., method='mcmc')); the frequentist "
    "`pairs`, `compare` and `check` take --factor {factor}"
)

#: ``attrs["estimand"]`` of a pairs / compare result on factor dims.
FACTOR_ESTIMAND = (
    "difference_templates / accuracy_templates: over the {factor} population ({factor}s a "
    "random draw; SE with the model x {factor} part, Satterthwaite df); *_these_templates: "
    "over these {factor}s (fixed)"
)

#: Options of ``pairs`` that need one score per (model, question): refused with factors.
_PAIR_OPTIONS = {
    "simultaneous": "simultaneous intervals",
    "one_sample_tests": "one-sample tests",
    "n_resamples": "the bootstrap and permutation columns",
}

PAIR_COLUMNS = [
    "model_a",
    "model_b",
    "factor",
    "questions",
    "templates",
    "cells",
    "runs_per_cell",
    "accuracy_a",
    "accuracy_b",
    "difference_templates",
    "difference_templates_low",
    "difference_templates_high",
    "se_templates",
    "df_templates",
    "p_value_templates",
    "p_value_templates_adjusted",
    "difference_these_templates",
    "difference_these_templates_low",
    "difference_these_templates_high",
    "se_these_templates",
    "df_these_templates",
    "p_value_these_templates",
]


def has_factors(ds) -> bool:
    """Whether ``ds`` has factor dims (loaded with ``factors=``)."""
    return bool(factor_dims(ds))


def crossed_cells(ds, factors=None):
    """(factor, models, correct, samples, sum_sq): ``(M, N, T)`` sums per (model, question,
    level of the crossed factor), runs summed (as ``bn.noises``)."""
    from .factors import _cells, _crossed_factor

    factor, replicates = _crossed_factor(ds, factors)
    correct, samples, sum_sq = _cells(ds, factor, replicates)
    return factor, [str(m) for m in ds[MODEL].values], correct, samples, sum_sq


def _split(samples) -> bool:
    present = samples > 0
    return bool(np.all(samples[present] >= 2))


def _accuracy(correct, samples, observed) -> float:
    """The point estimate of ``accuracy_templates`` restricted to a pair's shared
    ``observed`` cells (the additive fit's weights, so that accuracy_a - accuracy_b is the
    pair's difference_templates)."""
    from bayesnoise.frequentist.crossed import additive_weights

    keep_q, keep_t = observed.any(axis=1), observed.any(axis=0)
    obs = observed[keep_q][:, keep_t]
    y = (correct / np.where(observed, samples, 1.0))[keep_q][:, keep_t]
    return float(np.sum(additive_weights(obs) * np.where(obs, y, 0.0)))


def pair_fit(cells_a, cells_b, split: bool, what: str, factor: str, source: str):
    """The crossed fit of A - B on the cells both have (``noises --by pair``) and the runs
    per cell."""
    from .factors import _check_design, _fit_pair

    _check_design((cells_a[1] > 0) & (cells_b[1] > 0), what, factor, source)
    return _fit_pair(cells_a, cells_b, split)


def pair_table(ds, *, factors=None, confidence_level=0.95, adjust="holm") -> pd.DataFrame:
    """One row per pair (``i < j`` in the dataset's model order, as ``noises --by pair``):
    :data:`PAIR_COLUMNS`, ``p_value_templates_adjusted`` over all pairs (``adjust``)."""
    from bayesnoise.frequentist import adjust_pvalues

    from .factors import _row, warn_edges, warn_unshared

    factor, models, correct, samples, sum_sq = crossed_cells(ds, factors)
    if len(models) < 2:
        raise DataError(
            f"{attr(ds, 'source')}: a pair needs two models or more; it holds one ({models[0]!r})"
        )
    split = _split(samples)
    rows, fits = [], []
    for i in range(len(models)):
        for j in range(i + 1, len(models)):
            a = (correct[i], samples[i], sum_sq[i])
            b = (correct[j], samples[j], sum_sq[j])
            what = f"pair {models[i]!r} - {models[j]!r} (cells both have)"
            fit, runs = pair_fit(a, b, split, what, factor, attr(ds, "source"))
            shared = (samples[i] > 0) & (samples[j] > 0)
            row = {
                "model_a": models[i],
                "model_b": models[j],
                "accuracy_a": _accuracy(correct[i], samples[i], shared),
                "accuracy_b": _accuracy(correct[j], samples[j], shared),
            }
            row.update(_row(fit, confidence_level, "difference", factor, runs, pair=True))
            rows.append(row)
            fits.append(fit)
    names = [f"{r['model_a']} - {r['model_b']}" for r in rows]
    warn_edges(fits, names, factor, "pair(s)", confidence_level)
    pairs = [(models.index(r["model_a"]), models.index(r["model_b"])) for r in rows]
    warn_unshared(
        names, [samples[i] > 0 for i, _ in pairs], [samples[j] > 0 for _, j in pairs], factor
    )
    df = pd.DataFrame(rows)
    df["p_value_templates_adjusted"] = adjust_pvalues(df["p_value_templates"], adjust)
    return df[PAIR_COLUMNS]


def model_table(ds, *, factors=None, confidence_level=0.95) -> pd.DataFrame:
    """One row per model: the per-model rows of ``bn.noises`` (no component columns)."""
    from .factors import _check_design, _fit_model, _row, warn_edges

    factor, models, correct, samples, sum_sq = crossed_cells(ds, factors)
    split = _split(samples)
    rows, fits = [], []
    for i, model in enumerate(models):
        _check_design(samples[i] > 0, f"model {model!r}", factor, attr(ds, "source"))
        fit = _fit_model(correct[i], samples[i], sum_sq[i], split)
        rows.append(
            {
                "model": model,
                **_row(fit, confidence_level, "accuracy", factor, fit.mean_runs, False),
            }
        )
        fits.append(fit)
    warn_edges(fits, models, factor, confidence_level=confidence_level)
    return pd.DataFrame(rows)


def refuse_pair_options(**given) -> None:
    """A :class:`DataError` naming the ``pairs`` options that need one score per question."""
    bad = [name for name, value in given.items() if value]
    if bad:
        what = ", ".join(f"{n} ({_PAIR_OPTIONS[n]})" for n in bad)
        raise DataError(
            f"{what}: not available with factors (--factor); the pair rows use the crossed "
            "estimator (bayesnoise noises --by pair). Drop the option, or select one level "
            "of the factor and load without --factor"
        )


def pair_verdict(df, pair, confidence_level) -> str | None:
    """The one-line verdict on ``pair=``, in ``check``'s words, over the template population."""
    if not pair or len(df) != 1:
        return None
    from bayesnoise.decide.verdicts import pair_sentence

    r = df.iloc[0]
    one = int(r["templates"]) < 2  # no template population: the verdict over this level
    scope = "these_templates" if one else "templates"
    se = float(r[f"se_{scope}"])
    row = {
        "model_a": r["model_a"],
        "model_b": r["model_b"],
        "difference": r[f"difference_{scope}"],
        "difference_low": r[f"difference_{scope}_low"],
        "difference_high": r[f"difference_{scope}_high"],
        "p_value": r[f"p_value_{scope}"],
        "z": r[f"difference_{scope}"] / se if se > 0 else np.nan,
    }
    text = pair_sentence(row, confidence_level=confidence_level, questions=int(r["questions"]))
    if one:
        return text.replace(
            "(two-sided paired t)",
            f"(two-sided paired t, {float(r['df_these_templates']):.0f} df; over this one "
            f"{r['factor']} only: its population needs 2 {r['factor']}s or more)",
        )
    return text.replace(
        "(two-sided paired t)",
        f"(two-sided t, {float(r['df_templates']):.1f} Satterthwaite df; "
        f"{int(r['templates'])} {r['factor']}s as a random draw)",
    )
