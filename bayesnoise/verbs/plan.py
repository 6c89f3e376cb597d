"""How many questions and samples to pay for: :func:`plan`, the cost-optimal design from a
pilot run or a reference noise model."""

from __future__ import annotations

import warnings

import numpy as np

from bayesnoise.data import MODEL, QUESTION, DataError, attr

from ._inputs import check_value, dataset, fill_docs, select_pair
from ._result import to_result
from .gate import _check_alpha

__all__ = ["plan"]


def _empty(data) -> bool:
    return data is None or (isinstance(data, list | tuple) and len(data) == 0)


def _reference_components(name):
    from .outputs import reference

    ref = reference(name).to_dataframe().reset_index(drop=True)
    usable = ref[
        np.isfinite(ref["se_difference_data_median_close"])
        & np.isfinite(ref["se_difference_prediction_median_close"])
    ]
    if usable.empty:
        raise DataError(
            f"reference {name!r}: its runs have one sample per question, so the data and "
            "prediction noise of a difference are not separated; plan from a pilot with K >= 2"
        )
    n = usable["questions"].to_numpy(float)
    return (
        usable,
        usable["se_difference_data_median_close"].to_numpy() ** 2 * n,
        (usable["se_difference_prediction_median_close"].to_numpy() ** 2 * n),
    )


def plan(
    data=None,
    *,
    difference=None,
    target_se=None,
    power=0.8,
    alpha=0.05,
    alternative="two-sided",
    cost_question=1.0,
    cost_sample=1.0,
    pair=None,
    max_samples=100,
    max_questions=None,
    resample=None,
    reference=None,
    progress=True,
    **read,
):
    """The cost-optimal number of questions N and samples per question K (``bayesnoise plan``).

    From a pilot's measured data and prediction variance of each pair's difference (or a
    public benchmark's typical ones, ``reference=``): the N and K that reach the target at
    the least cost ``N (cost_question + K cost_sample)``, with ``K* = sqrt(cost_question *
    prediction / (cost_sample * data))`` beside the exact whole-number optimum
    (:mod:`bayesnoise.decide.plan`), compared with K = 1 and with the pilot's K. With
    ``resample``: instead, which questions of the pilot to sample again, and how often.

    Parameters
    ----------
    {input}
    difference : float, optional
        Difference to detect (0.02 = 2 points) at ``power``; or
    target_se : float, optional
        The standard error of the difference to reach. Exactly one of the two.
    power, alpha : float
        Power and level (default 0.8, 0.05).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The test planned for, as scipy spells it; ``"less"`` (candidate - baseline < 0) for
        a gate (:func:`check` asks that one-sided question). Either one-sided test needs
        the same N and K.
    cost_question, cost_sample : float, default 1
        Cost of a new question (curation) and of one sample of it (inference of the models
        compared), > 0, in any one unit.
    pair : (str, str), optional
        Only the pair A - B.
    max_samples : int, default 100
        Largest K considered.
    max_questions : int, optional
        Largest N available.
    resample : int, optional
        Adaptive K: allocate this many extra samples to the pilot's questions (needs one
        pair and whole-number counts); returns the list, most useful first.
    reference : str, optional
        Plan from the reference noise of a public benchmark (``bayesnoise reference``)
        instead of ``data``.
    progress : bool, default True
        Progress display on standard error while reading.

    Returns
    -------
    xarray.Dataset
        Dim ``pair`` (``model_a, model_b`` and the ``PLAN_COLUMNS``: ``k_star``,
        ``optimal_questions``, ``optimal_samples_per_question``, ``se_planned``,
        ``power_planned``, ``cost_planned``, ``questions_k1``, ``cost_k1``,
        ``current_samples_per_question``, ``questions_current_k``, ``cost_current_k``); dim
        ``run`` for a reference (one per run that measured it); dim ``priority`` for
        ``resample`` (the order in which to add the samples, 1 first: ``question, model,
        samples_per_question, extra_samples, question_prediction_variance``).

    Examples
    --------
    >>> import bayesnoise as bn
    >>> f = "examples/data/cruxeval_output_temp0.8.csv.gz"
    >>> r = bn.plan(f, pair=("phind", "codellama-34b"), target_se=0.01, cost_question=20)
    >>> int(r["optimal_samples_per_question"][0]) > 1
    True
    """
    from bayesnoise.decide.plan import optimal_design

    for name, value in (("cost_question", cost_question), ("cost_sample", cost_sample)):
        if value is None or not np.isfinite(float(value)) or float(value) <= 0:
            raise DataError(f"{name} must be a number > 0 (a cost), got {value}")
    if (difference is None) == (target_se is None) and resample is None:
        raise DataError("give exactly one target: difference= (with power) or target_se=")
    for name, value in (("difference", difference), ("target_se", target_se)):
        if value is not None and not float(value) > 0:
            raise DataError(f"{name} must be > 0, got {value}")
    if not 0 < float(power) < 1:
        raise DataError(f"power must be in (0, 1), got {power}")
    _check_alpha(alpha, 1.0)
    check_value("plan", "alternative", alternative, ("two-sided", "greater", "less"))
    opts = {
        "cost_question": float(cost_question),
        "cost_sample": float(cost_sample),
        "target_se": target_se,
        "difference": difference,
        "power": power,
        "alpha": alpha,
        "alternative": "two-sided" if alternative == "two-sided" else "one-sided",
        "max_samples": int(max_samples),
        "max_questions": max_questions,
    }
    if reference is not None:
        if not _empty(data):
            raise DataError("give a pilot (data) or reference=, not both")
        rows, dat, pred = _reference_components(reference)
        table = optimal_design(dat, pred, current_samples=rows["samples_per_question"], **opts)
        table.insert(0, "benchmark", rows["benchmark"].to_numpy())
        table.insert(0, "run", rows["run"].to_numpy())
        return to_result(table, "run")
    if _empty(data):
        raise DataError("plan needs a pilot (a results file) or reference=BENCHMARK")
    from bayesnoise import frequentist

    ds = dataset(data, progress=progress, **read)
    if pair:
        ds = select_pair(ds, pair)
    if ds.sizes[MODEL] < 2:
        raise DataError(f"{attr(ds, 'source')}: plan needs two models (a pair) or more")
    if resample is not None:
        return _resample(ds, resample)
    pt = frequentist.power_table(ds, on_missing="raise")
    if pt[["data", "prediction"]].isna().all(axis=None):
        raise DataError(
            f"{attr(ds, 'source')}: one sample per question, so the data and prediction noise "
            "of a difference are not separated; plan from a pilot with K >= 2 samples on some "
            "questions, or from reference=BENCHMARK"
        )
    table = optimal_design(
        pt["data"], pt["prediction"], current_samples=pt["planned_samples_per_question"], **opts
    )
    table.insert(0, "model_b", pt["model_b"].to_numpy())
    table.insert(0, "model_a", pt["model_a"].to_numpy())
    if table["optimal_samples_per_question"].eq(max_samples).any():
        warnings.warn(
            f"plan: the optimum reaches max_samples = {max_samples} for some pairs (little or "
            "no data noise measured): more samples would still pay; raise max_samples",
            UserWarning,
            stacklevel=2,
        )
    return to_result(table, "pair")


def _resample(ds, budget):
    from bayesnoise.data import beta_binomial_counts, complete
    from bayesnoise.decide.plan import resample_plan

    if ds.sizes[MODEL] != 2:
        raise DataError(
            f"{attr(ds, 'source')}: resample works on one pair; name it with pair=(A, B) "
            f"(CLI: --pair A B); models are {', '.join(map(str, ds[MODEL].values[:20]))}"
        )
    if int(budget) < 1:
        raise DataError(f"resample must be a whole number of samples >= 1, got {budget}")
    ds = complete(ds, on_missing="raise")
    c, k = beta_binomial_counts(ds, needed_by="adaptive K (resample)")
    models = [str(m) for m in ds[MODEL].values]
    table = resample_plan(c, k, int(budget), models=models, questions=ds[QUESTION].values)
    out = to_result(table, "priority")
    out.attrs.update({"model_a": models[0], "model_b": models[1], "budget": int(budget)})
    return out


fill_docs(plan)
