"""``noises``: the noise of a crossed factor (prompt templates) beside questions and runs."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import xarray as xr

from bayesnoise._common import (
    MCMC_CHAINS,
    MCMC_DRAWS,
    MCMC_TUNE,
    by_caller,
    one_line,
    option,
    see_warnings,
)
from bayesnoise.data import MODEL, QUESTION, DataError, attr, factor_dims
from bayesnoise.frequentist.crossed import (
    FALLBACK_NOT_POSITIVE,
    FALLBACK_TWO_LEVELS,
    MISSINGNESS_LEVEL,
    ZERO_VARIANCE,
)

from ._inputs import check_value, dataset, fill_docs, interval_level, select_pair
from ._result import _attrs
from .choices import BY, NOISES_METHODS

__all__ = ["noises", "template_accuracies"]

METHODS = NOISES_METHODS
#: Factor names read as replicates (runs) of a cell rather than as a crossed factor.
REPLICATES = ("run", "runs", "seed", "epoch", "repeat", "trial", "sample")

_MODEL_COLUMNS = [
    "factor",
    "questions",
    "templates",
    "cells",
    "runs_per_cell",
    "{est}_templates",
    "{est}_templates_low",
    "{est}_templates_high",
    "se_templates",
    "df_templates",
    "{est}_these_templates",
    "{est}_these_templates_low",
    "{est}_these_templates_high",
    "se_these_templates",
    "df_these_templates",
]
_PAIR_TESTS = ["p_value_templates", "p_value_these_templates"]
_COMPONENT_COLUMNS = ["variance_component", "variance_part", "variance_share"]


def _crossed_factor(ds, factors) -> tuple[str, list[str]]:
    """The one crossed factor and the other factor dims (summed over: runs, and crossed
    factors with one level in the whole dataset, which selecting pools nothing)."""
    dims = factor_dims(ds)
    asked = [factors] if isinstance(factors, str) else list(factors or dims)
    crossed = [f for f in asked if f not in REPLICATES]
    source = attr(ds, "source")
    if not crossed:
        raise DataError(
            f"{source}: noises needs a crossed factor such as a prompt template "
            f"(--factor template); {', '.join(asked) or 'no factor'} "
            f"{'are' if len(asked) > 1 else 'is'} read as runs of one question, which "
            "`bayesnoise noise` already measures (prediction noise)"
        )
    varied = [f for f in crossed if ds.sizes[f] > 1]
    if len(varied) > 1:
        sizes = ", ".join(f"{f} ({ds.sizes[f]} levels)" for f in varied)
        raise DataError(
            f"{source}: the crossed estimator (noises; pairs, compare, check with --factor) "
            f"takes one crossed factor, plus runs as replicates (a factor named "
            f"{', '.join(REPLICATES)}); got {sizes}. Keep one level of all but one: filter "
            f"the rows to one {varied[1]} (ds.sel({varied[1]}=...)) and leave it out of "
            f"--factor, or run once per {varied[1]}"
        )
    factor = varied[0] if varied else crossed[0]
    return factor, [d for d in dims if d != factor]


def _cells(ds, factor: str, replicates: list[str]):
    """(M, N, T) arrays of sums per (model, question, template), runs summed."""
    out = []
    for name in ("correct", "samples", "sum_sq"):
        v = ds[name]
        if replicates:
            v = v.sum(replicates)
        out.append(v.transpose(MODEL, QUESTION, factor).values.astype(float))
    return out


def _check_design(present, what: str, factor: str, source: str, need: str = "") -> None:
    """At least 2 questions with results; with 2 levels or more, a question under 2 levels
    and a level with 2 questions (else the components are not identified). One level is
    allowed (the template-population columns are then NaN: :func:`warn_edges`) unless
    ``need`` says what needs 2 levels."""
    questions = int(present.any(axis=1).sum())
    levels = int(present.any(axis=0).sum())
    if need and levels < 2:
        raise DataError(
            f"{source}: {what} has results under {levels} {factor} level; {need} needs the "
            f"{factor} noise, measured from 2 {factor}s or more (the same questions under each)"
        )
    if questions < 2:
        raise DataError(
            f"{source}: {what} has results for {questions} question"
            f"{'' if questions == 1 else 's'} (under {levels} {factor} level"
            f"{'' if levels == 1 else 's'}); the noise of a mean over questions needs at least "
            "2 questions"
        )
    if levels < 2:
        return
    if present.sum(axis=1).max() < 2:
        raise DataError(
            f"{source}: {what} has each of its {questions} questions under one {factor} only "
            f"({levels} {factor}s): the questions are nested in the {factor}s, not crossed, so "
            f"the {factor} noise cannot be told from the question noise. Run the same "
            f"questions under several {factor}s; if a question has a different id under each "
            f"{factor} (e.g. 'q1-cot', 'q1-plain'), give it one id (Inspect, whose sample ids "
            f"differ within a log: one eval per {factor}, -T {factor}=..., or the {factor} set "
            f"per epoch in the sample metadata)"
        )
    if present.sum(axis=0).max() < 2:
        raise DataError(
            f"{source}: {what} has one question under each of its {levels} {factor}s: the "
            f"{factor} noise cannot be told from the question x {factor} noise. Run several "
            f"questions under the same {factor}"
        )


def _fit_model(c, k, sq, split: bool):
    from bayesnoise.frequentist.crossed import cell_means, crossed_fit

    y, eta, obs = cell_means(c, k, sq)
    return crossed_fit(y, eta if split else None, obs, k)


def _fit_pair(cells_a, cells_b, split: bool):
    from bayesnoise.frequentist.crossed import cell_means, crossed_fit

    ya, ea, oa = cell_means(*cells_a)
    yb, eb, ob = cell_means(*cells_b)
    obs = oa & ob
    eta = (ea + eb) if split else None
    # missing cells set against the question's difficulty (both models' mean score)
    fit = crossed_fit(ya - yb, eta, obs, difficulty=(ya + yb) / 2)
    if split:  # sampling variance of one run's difference: v_A + v_B per cell, averaged
        v = (ea * cells_a[1] + eb * cells_b[1])[obs]
        fit.components[3] = float(v.mean())
    return fit, float(((cells_a[1] + cells_b[1]) / 2)[obs].mean())


#: The range of a score (scores are in [0, 1]) and of a difference of two: where the crossed
#: intervals' ends are clipped (:func:`warn_edges` says when).
SCORE_RANGE, DIFFERENCE_RANGE = (0.0, 1.0), (-1.0, 1.0)


def _row(fit, confidence_level: float, est: str, factor: str, runs: float, pair: bool) -> dict:
    bounds = DIFFERENCE_RANGE if pair else SCORE_RANGE
    low, high = fit.interval(confidence_level, bounds=bounds)
    low_f, high_f = fit.interval(confidence_level, fixed=True, bounds=bounds)
    row = {
        "factor": factor,
        "questions": fit.n_questions,
        "templates": fit.n_templates,
        "cells": fit.n_cells,
        "runs_per_cell": runs,
        f"{est}_templates": fit.estimate,
        f"{est}_templates_low": low,
        f"{est}_templates_high": high,
        "se_templates": fit.se_random,
        "df_templates": fit.df_random,
        f"{est}_these_templates": fit.estimate,
        f"{est}_these_templates_low": low_f,
        f"{est}_these_templates_high": high_f,
        "se_these_templates": fit.se_fixed,
        "df_these_templates": fit.df_fixed,
    }
    if pair:
        row["p_value_templates"] = fit.p_value()
        row["p_value_these_templates"] = fit.p_value(fixed=True)
    return row


def warn_edges(fits, names, factor: str, unit: str = "model(s)", confidence_level=None) -> None:
    """One warning line per kind of edge among ``fits`` (named ``names``): one level of the
    factor, an SE of 0, an SE that is not estimable (module docs of
    :mod:`bayesnoise.frequentist.crossed`, "Edges"), the few-levels fallback of the
    template-population interval, ends clipped to the score's range (at ``confidence_level``)
    and missing cells that go with the question's score (docs/warnings.md)."""
    one, zero, empty, two, at_zero, clipped, missing = [], [], [], [], [], [], []
    bounds = DIFFERENCE_RANGE if unit.startswith("pair") else SCORE_RANGE
    for name, fit in zip(names, fits, strict=True):
        if fit.n_templates < 2:
            one.append(name)
        elif fit.se_fixed == 0 or fit.se_random == 0:
            zero.append(name)
        if fit.n_templates >= 2 and not all(
            se == 0 or (se > 0 and df >= 1)
            for se, df in ((fit.se_fixed, fit.df_fixed), (fit.se_random, fit.df_random))
        ):
            empty.append(name)
        if fit.fallback == FALLBACK_TWO_LEVELS:
            two.append(name)
        elif fit.fallback == FALLBACK_NOT_POSITIVE:
            at_zero.append(name)
        if (
            confidence_level is not None
            and fit.fallback != FALLBACK_TWO_LEVELS
            and any(fit.clipped(confidence_level, bounds, fixed=x) for x in (False, True))
        ):
            clipped.append(name)
        if fit.p_value_missing < MISSINGNESS_LEVEL:
            missing.append(name)
    f = factor
    low, high = bounds
    notes = [
        (
            one,
            f"1 {f} level for {{who}}: no {f}-population SE (*_templates empty); the one over "
            f"this {f} is given; {see_warnings('one-level')}",
        ),
        (
            zero,
            "SE 0 for {who}: no spread across questions (intervals of zero width, df, "
            f"p-values and shares empty); {see_warnings('zero-se')}",
        ),
        (
            empty,
            "no interval for {who}: SE estimate < 0 or < 1 Satterthwaite df (mean squares "
            f"that cancel); add questions or {f}s; {see_warnings('no-interval')}",
        ),
        (
            two,
            f"2 {f}s for {{who}}: the {f}-population interval is on 1 df (wide, ends cut to "
            f"[{low:g}, {high:g}]); run 3 or more; {see_warnings('two-levels')}",
        ),
        (
            at_zero,
            f"{f} component <= 0 for {{who}}: counted as 0, df of its T - 1, not N - 1 "
            f"(*_templates wider); {see_warnings('component-at-zero')}",
        ),
        (
            clipped,
            f"interval ends cut to the score's range [{low:g}, {high:g}] for {{who}}; "
            f"{see_warnings('clipped')}",
        ),
        (
            missing,
            f"missing cells go with question score for {{who}} (Kendall p < "
            f"{MISSINGNESS_LEVEL:g}): additive question + {f} fit used; "
            f"{see_warnings('missing-by-question')}",
        ),
    ]
    for who, text in notes:
        if who:
            warnings.warn(one_line(text, who, unit), UserWarning, stacklevel=3)


def warn_unshared(names, present_a, present_b, factor: str) -> None:
    """One warning line when pairs leave out cells that only one of their models has (a
    difference needs both; each model's own row keeps them): ``present_*`` are the pairs'
    ``(N, T)`` masks of cells with results."""
    left = [int((a ^ b).sum()) for a, b in zip(present_a, present_b, strict=True)]
    who = [n for n, k in zip(names, left, strict=True) if k]
    if who:
        text = (
            f"{sum(left)} cells of one model only left out of {{who}}: a difference needs both "
            f"models' (question, {factor}) cell; {see_warnings('unshared-cells')}"
        )
        warnings.warn(one_line(text, who, "pair(s)"), UserWarning, stacklevel=3)


def _components(fit, split: bool) -> dict[str, np.ndarray]:
    parts = fit.parts_random.copy()
    parts[1] = max(parts[1], 0.0)  # as in se_templates: a negative template part counts 0
    comp = fit.components.copy()
    if not split:
        parts, comp = parts[:3], comp[:3]
    total = parts.sum()
    if total > ZERO_VARIANCE * np.abs(parts).sum():
        share = parts / total
    else:  # no variance (or not estimable): no shares of it (warn_edges says why)
        share = np.full(parts.shape, np.nan)
    return {"variance_component": comp, "variance_part": parts, "variance_share": share}


def noises(
    data,
    *,
    factors=None,
    by="model",
    confidence_level=0.95,
    pair=None,
    method="frequentist",
    draws=MCMC_DRAWS,
    tune=MCMC_TUNE,
    chains=MCMC_CHAINS,
    rng=0,
    progress=True,
    **read,
):
    """Each model's accuracy over prompt templates and its noise split into question,
    template, question x template and sampling parts (``bayesnoise noises``).

    The scores are cells of a crossed design: question x template (any factor named with
    ``factors``), runs as replicates. The components are unbiased method-of-moments
    estimates (ANOVA when every cell is present, pairwise U-statistics when cells are
    missing; :mod:`bayesnoise.frequentist.crossed`); the intervals are t intervals with
    Satterthwaite degrees of freedom, so that 3 templates count as about 3 draws of a
    template, not as 3 N samples. Two estimands, one point estimate: the accuracy over the
    template population (templates a random draw, ``*_templates``) and over these templates
    (``*_these_templates``).

    Parameters
    ----------
    {input}
    factors : list of str or str, optional
        The factor columns (CLI: ``--factor NAME``, repeatable): one crossed factor such as a
        prompt template, and optionally runs (a factor named run, seed, epoch, repeat, trial
        or sample is read as replicates of a cell). Default: the dataset's factor dims.
    by : {{"model", "pair"}}, default "model"
        Per model, or per pair of models (paired differences on the cells both have; the
        template part is then the model x template interaction).
    confidence_level : float, default 0.95
        Level of the intervals.
    pair : (str, str), optional
        With ``by="pair"``: only the pair A - B, in that order, and (frequentist)
        ``attrs["verdict"]``, one line in ``check``'s words on ``difference_templates`` with
        the row's interval (as :func:`pairs` with factors).
    method : {{"frequentist", "mcmc"}}
        ``"mcmc"``: the crossed logit model in PyMC (:mod:`bayesnoise.mcmc.crossed`; 0/1
        scores): posterior means and equal-tailed intervals of the same two accuracies (and
        differences, with P(A > B) over the template population), the posterior means of
        the random-effect scales on the logit scale per component, and r_hat / ESS /
        divergence checks (a ConvergenceWarning when out of bounds).
    draws, tune, chains : int
        MCMC draws and tuning steps per chain, and chains (``method="mcmc"``).
    rng : int or numpy.random.Generator, default 0
        Seed of the MCMC sampler (unused by the frequentist method).
    progress : bool, default True
        Progress display while reading large files.

    Returns
    -------
    xarray.Dataset
        Dims ``model`` (or ``pair``) and ``component``: per model ``questions, templates,
        cells, runs_per_cell, accuracy_templates[_low, _high], se_templates, df_templates,
        accuracy_these_templates[_low, _high], se_these_templates, df_these_templates``
        (per pair ``difference_*`` and ``p_value_*``), per component ``variance_component,
        variance_part, variance_share``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import bayesnoise as bn
    >>> rng = np.random.default_rng(0)
    >>> rows = [(m, q, t, r, int(rng.random() < 0.7)) for m in "AB" for q in range(30)
    ...         for t in ("t1", "t2", "t3") for r in range(2)]
    >>> df = pd.DataFrame(rows, columns=["model", "question", "template", "run", "score"])
    >>> out = bn.noises(df, factors=["template"])
    >>> out.sizes["component"], int(out["templates"].sel(model="A"))
    (4, 3)
    """
    check_value("noises", "by", by, BY)
    check_value("noises", "method", method, METHODS)
    level = interval_level("noises", confidence_level)
    np.random.default_rng(rng)  # checked here; used by the Bayesian method
    ds = dataset(data, progress=progress, factors_ok=True, factors=factors, **read)
    if pair is not None and by != "pair":
        raise DataError(
            f"{option('pair')} compares two models: use it with {option('by', repr('pair'))}"
        )
    if pair:
        ds = select_pair(ds, pair)
    factor, replicates = _crossed_factor(ds, factors)
    correct, samples, sum_sq = _cells(ds, factor, replicates)
    if method == "mcmc":
        return _mcmc(
            ds, factor, correct, samples, sum_sq, by, level, draws, tune, chains, rng, progress
        )
    present = samples > 0
    split = bool(np.all(samples[present] >= 2))
    models = [str(m) for m in ds[MODEL].values]
    labels = ["question", factor, f"question x {factor}", "sampling"]
    if not split:
        labels = [*labels[:2], f"question x {factor} + sampling"]
    rows, comps, keys, fits = [], [], [], []
    if by == "model":
        for i, model in enumerate(models):
            _check_design(present[i], f"model {model!r}", factor, attr(ds, "source"))
            fit = _fit_model(correct[i], samples[i], sum_sq[i], split)
            rows.append(_row(fit, level, "accuracy", factor, fit.mean_runs, pair=False))
            comps.append(_components(fit, split))
            keys.append(model)
            fits.append(fit)
    else:
        if len(models) < 2:
            raise DataError(
                f"{attr(ds, 'source')}: {option('by', repr('pair'))} needs two models or more; "
                f"it holds one ({models[0]!r}): "
                + by_caller("use by='model'", "leave out --by pair")
            )
        labels[1] = f"model x {factor}"
        shared_a, shared_b = [], []
        for i in range(len(models)):
            for j in range(i + 1, len(models)):
                what = f"pair {models[i]!r} - {models[j]!r} (cells both have)"
                _check_design(present[i] & present[j], what, factor, attr(ds, "source"))
                fit, runs = _fit_pair(
                    (correct[i], samples[i], sum_sq[i]),
                    (correct[j], samples[j], sum_sq[j]),
                    split,
                )
                rows.append(_row(fit, level, "difference", factor, runs, pair=True))
                comps.append(_components(fit, split))
                keys.append((models[i], models[j]))
                fits.append(fit)
                shared_a.append(present[i])
                shared_b.append(present[j])
    names = [k if by == "model" else f"{k[0]} - {k[1]}" for k in keys]
    warn_edges(fits, names, factor, "model(s)" if by == "model" else "pair(s)", level)
    if by == "pair":
        warn_unshared(names, shared_a, shared_b, factor)
    out = _result(rows, comps, keys, labels, by, factor, level)
    if pair:
        from ._factor_tables import pair_verdict

        frame = pd.DataFrame(rows).assign(
            model_a=[a for a, _ in keys], model_b=[b for _, b in keys]
        )
        out.attrs["verdict"] = pair_verdict(frame, pair, level)
    return out


def _result(
    rows, comps, keys, labels, by, factor, confidence_level, per_component=None
) -> xr.Dataset:
    dim = by
    per_component = per_component or _COMPONENT_COLUMNS
    data = {}
    for name in rows[0]:
        values = np.array([r[name] for r in rows])
        data[name] = xr.Variable(dim, values, attrs=_attrs(name))
    for name in per_component:
        values = np.array([c[name] for c in comps])
        data[name] = xr.Variable((dim, "component"), values, attrs=_attrs(name))
    if by == "model":
        coords = {"model": list(keys)}
    else:
        coords = {
            "pair": [f"{a} - {b}" for a, b in keys],
            "model_a": ("pair", [a for a, _ in keys]),
            "model_b": ("pair", [b for _, b in keys]),
        }
    coords["component"] = labels
    out = xr.Dataset(data, coords=coords)
    for k in coords:
        if k != "pair":
            out[k].attrs.update(_attrs(k))
    key_cols = ["model"] if by == "model" else ["model_a", "model_b"]
    out.attrs.update(
        {
            "factor": factor,
            "confidence_level": confidence_level,
            "method": "frequentist",
            "columns": [*key_cols, "component", *rows[0], *per_component],
        }
    )
    return out


fill_docs(noises)


def template_accuracies(data, *, factors=None, progress=True, **read) -> xr.DataArray:
    """Each model's accuracy under each level of the crossed factor: the mean over questions
    of the cell means (runs averaged), over the cells the model has.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"model": ["a"] * 4, "question": [1, 1, 2, 2],
    ...                    "template": ["x", "y", "x", "y"], "score": [1, 0, 1, 1]})
    >>> template_accuracies(df, factors="template").values.tolist()
    [[1.0, 0.5]]
    """
    ds = dataset(data, progress=progress, factors_ok=True, factors=factors, **read)
    factor, replicates = _crossed_factor(ds, factors)
    correct, samples, _ = _cells(ds, factor, replicates)
    present = samples > 0
    means = np.where(present, correct / np.where(present, samples, 1), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = means.sum(axis=1) / present.sum(axis=1)
    return xr.DataArray(
        values,
        dims=(MODEL, factor),
        coords={MODEL: ds[MODEL].values, factor: ds[factor].values},
        name="accuracy",
    )


_MCMC_SCALES = {
    "question": "question",
    "template": "{f}",
    "question_template": "question x {f}",
    "model_template": "model x {f}",
    "model_question": "model x question",
}


def binary_cells(correct, sum_sq) -> bool:
    """Whether the cells hold 0/1 scores (each cell's sum of squares is its sum, a whole
    number): what the binomial likelihood of ``method="mcmc"`` needs."""
    return bool(np.array_equal(sum_sq, correct) and np.all(correct == np.round(correct)))


def _mcmc(
    ds, factor, correct, samples, sum_sq, by, confidence_level, draws, tune, chains, rng, progress
):
    from bayesnoise.mcmc.crossed import EFFECTS, sample_crossed

    source = attr(ds, "source")
    if not binary_cells(correct, sum_sq):
        raise DataError(
            f"{source}: method='mcmc' needs 0/1 scores (a binomial likelihood); these have "
            "partial credit. Use method='frequentist', which handles graded scores."
        )
    advice = (
        f"Raise {option('draws')} (now {draws}), {option('tune')} ({tune}) or "
        f"{option('chains')} ({chains})"
    )
    fit = sample_crossed(
        correct,
        samples,
        draws=draws,
        tune=tune,
        chains=chains,
        rng=rng,
        progress=progress,
        advice=advice,
    )
    models = [str(m) for m in ds[MODEL].values]
    tail = (1 - confidence_level) / 2
    report = fit["diagnostics"]
    labels = [_MCMC_SCALES[e].format(f=factor) for e in EFFECTS]
    scales = np.array([fit["sigmas"][e].mean() for e in EFFECTS])
    rows, keys = [], []
    if by == "model":
        draws_of = {"templates": fit["population"], "these_templates": fit["these"]}
        for i, model in enumerate(models):
            row = {"factor": factor}
            for scope, values in draws_of.items():
                name = f"accuracy_{scope}_mcmc"
                row[name] = float(values[:, i].mean())
                row[f"{name}_low"], row[f"{name}_high"] = np.quantile(
                    values[:, i], [tail, 1 - tail]
                )
            rows.append(row)
            keys.append(model)
    else:
        for i in range(len(models)):
            for j in range(i + 1, len(models)):
                row = {"factor": factor}
                for scope, values in (
                    ("templates", fit["population"]),
                    ("these_templates", fit["these"]),
                ):
                    d = values[:, i] - values[:, j]
                    name = f"difference_{scope}_mcmc"
                    row[name] = float(d.mean())
                    row[f"{name}_low"], row[f"{name}_high"] = np.quantile(d, [tail, 1 - tail])
                d = fit["population"][:, i] - fit["population"][:, j]
                row["prob_a_better_templates_mcmc"] = float(np.mean(d > 0))
                rows.append(row)
                keys.append((models[i], models[j]))
    comps = [{"sd_logit_mcmc": scales} for _ in rows]
    out = _result(rows, comps, keys, labels, by, factor, confidence_level, ["sd_logit_mcmc"])
    out.attrs.update(
        {
            "method": "mcmc",
            "r_hat_max": float(report.table["r_hat_max"].max()),
            "ess_bulk_min": float(report.table["ess_bulk_min"].min()),
            "divergences": int(report.divergences),
            "converged": bool(report.ok),
            "seconds": float(fit["seconds"]),
        }
    )
    return out
