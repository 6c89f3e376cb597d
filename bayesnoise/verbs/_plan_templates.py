"""``plan`` on a crossed factor (``factors=["template"]``): how many templates, questions and
runs to pay for (:mod:`bayesnoise.decide.plan_templates`), from the pilot's components as
:func:`bayesnoise.noises` estimates them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from bayesnoise._common import by_caller, did_you_mean, option
from bayesnoise.data import MODEL, DataError, attr

from ._inputs import dataset
from ._result import _attrs, to_result
from .factors import _cells, _check_design, _crossed_factor, _fit_model, _fit_pair

#: What needs two levels of the factor in ``plan`` (the DataError of one level).
_NEED = "planning how many {f}s to buy"

COLUMNS = [
    "factor",
    "questions",
    "templates",
    "runs_per_cell",
    "se_current_design",
    "optimal_questions",
    "optimal_templates",
    "optimal_samples_per_question",
    "se_planned",
    "df_planned",
    "power_planned",
    "cost_planned",
    "questions_current_design",
    "cost_current_design",
]


def template_plan(
    data, *, pair, opts, cost_template, max_templates, factors, progress, read
) -> xr.Dataset:
    """Per model (``target_se``: its accuracy over the template population) or for ``pair``
    (its difference): the cost-optimal (N, T, K) and the pilot's design beside it."""
    from bayesnoise.decide.plan_templates import (
        optimal_template_design,
        questions_needed,
        template_design_se,
    )

    if cost_template is None or not np.isfinite(float(cost_template)) or cost_template <= 0:
        raise DataError(
            f"{option('cost_template')} must be a number > 0 (a cost), got {cost_template}"
        )
    if int(max_templates) < 2:
        raise DataError(f"{option('max_templates')} must be >= 2, got {max_templates}")
    ds = dataset(data, progress=progress, factors_ok=True, factors=factors, **read)
    source = attr(ds, "source")
    if opts["difference"] is not None and not pair:
        raise DataError(
            f"{source}: a difference to detect needs the pair it is between: "
            f"{option('pair', by_caller('(A, B)', 'A B'))}; without a pair, "
            f"{option('target_se')} plans each model's accuracy"
        )
    factor, replicates = _crossed_factor(ds, factors)
    correct, samples, sum_sq = _cells(ds, factor, replicates)
    models = [str(m) for m in ds[MODEL].values]
    present = samples > 0
    split = bool(np.all(samples[present] >= 2))
    fits, keys = [], []
    if pair:
        a, b = (str(m) for m in pair)
        for m in (a, b):
            if m not in models:
                raise DataError(f"{source}: pair: {did_you_mean(m, models)}")
        i, j = models.index(a), models.index(b)
        what = f"pair {a!r} - {b!r}"
        _check_design(present[i] & present[j], what, factor, source, _NEED.format(f=factor))
        fit, runs = _fit_pair(
            (correct[i], samples[i], sum_sq[i]), (correct[j], samples[j], sum_sq[j]), split
        )
        fits.append((fit, runs))
        keys.append((a, b))
    else:
        for i, m in enumerate(models):
            need = _NEED.format(f=factor)
            _check_design(present[i], f"model {m!r}", factor, source, need)
            fit = _fit_model(correct[i], samples[i], sum_sq[i], split)
            fits.append((fit, fit.mean_runs))
            keys.append(m)
    search = {
        "cost_question": opts["cost_question"],
        "cost_sample": opts["cost_sample"],
        "cost_template": float(cost_template),
        "target_se": opts["target_se"],
        "difference": opts["difference"],
        "power": opts["power"],
        "alpha": opts["alpha"],
        "alternative": opts["alternative"],
        "max_questions": opts["max_questions"],
        "max_templates": int(max_templates),
        "max_samples": opts["max_samples"],
    }
    target = {k: search[k] for k in ("target_se", "difference", "power", "alpha", "alternative")}
    rows, comps = [], []
    for fit, runs in fits:
        n, t = fit.n_questions, fit.n_templates
        k = runs if split else 1.0
        comp = fit.components.copy()
        best = optimal_template_design(comp, **search)
        n_now = questions_needed(comp, t, k, max_questions=opts["max_questions"], **target)
        cost_now = (
            search["cost_question"] * n_now
            + search["cost_template"] * t
            + search["cost_sample"] * n_now * t * k
        )
        rows.append(
            {
                "factor": factor,
                "questions": n,
                "templates": t,
                "runs_per_cell": runs,
                "se_current_design": float(template_design_se(comp, n, t, k)),
                **best,
                "questions_current_design": n_now,
                "cost_current_design": cost_now,
            }
        )
        comps.append(comp if split else comp[:3])
    table = pd.DataFrame(rows)[COLUMNS]
    if pair:
        table.insert(0, "model_b", [b for _, b in keys])
        table.insert(0, "model_a", [a for a, _ in keys])
        dim = "pair"
    else:
        table.insert(0, "model", keys)
        dim = "model"
    out = to_result(table, dim)
    keys_cols = ["model_a", "model_b"] if pair else ["model"]
    labels = ["question", factor if not pair else f"model x {factor}", f"question x {factor}"]
    labels += ["sampling"] if split else []
    if not split:
        labels[2] += " + sampling"
    out["variance_component"] = xr.Variable(
        (dim, "component"), np.array(comps), attrs=_attrs("variance_component")
    )
    out = out.assign_coords(component=labels)
    what = "A - B" if pair else "each model's accuracy"
    notes = []
    if not split:
        notes.append(
            "one run per cell somewhere in the pilot: the sampling part is not separated from "
            "question x template, so K is fixed at 1 (a pilot with >= 2 runs per cell plans K)"
        )
    if any(np.any(f.components[[0, 2, 3]] < 0) for f, _ in fits):
        notes.append(
            "a question, question x template or sampling component was estimated below 0 "
            "(by chance): the plan counts it as 0, so se_planned at the pilot's design can "
            "exceed se_current_design"
        )
    if not all(f.balanced for f, _ in fits):
        notes.append(
            "the pilot has missing cells: se_current_design is the balanced design's SE at its "
            "N, T and mean K (bayesnoise noises prints the pilot's own)"
        )
    out.attrs.update(
        {
            "factor": factor,
            "target": f"SE of {what} over the {factor} population",
            "cost": "cost_question N + cost_template T + cost_sample N T K",
            "columns": [*keys_cols, "component", *COLUMNS, "variance_component"],
        }
    )
    if notes:
        out.attrs["assumption"] = "; ".join(notes)
    return out
