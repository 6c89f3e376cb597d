"""How many questions and samples to pay for: :func:`plan`, the cost-optimal design from a
pilot run or a reference noise model."""

from __future__ import annotations

import warnings

import numpy as np

from bayesnoise._common import by_caller, option
from bayesnoise._defaults import ALTERNATIVES
from bayesnoise.data import MODEL, QUESTION, DataError, attr

from ._inputs import (
    READ_OPTIONS,
    check_mode_options,
    check_value,
    dataset,
    fill_docs,
    judge_graded,
    select_pair,
)
from ._result import to_result
from .gate import _check_alpha

__all__ = ["plan"]

_TARGET = {"difference", "target_se", "power", "alpha"}
_DESIGN = _TARGET | {"alternative", "cost_question", "cost_sample", "max_samples", "max_questions"}
_READ = set(READ_OPTIONS)
#: Each mode of :func:`plan` -> (the options it uses, those it accepts that never change its
#: result); any other option given is a ValueError naming the modes that take it. ``progress``
#: is accepted everywhere: it only shows (or not) a display of the reading. The judge pilot
#: takes the input options as ``judge`` does (which checks them); a reference reads no file.
PLAN_MODES = {
    "judge pilot": (
        _TARGET | {"human_cost", "judge_col", "human_col", "human", "label_prob_col"} | _READ,
        {"progress"},
    ),
    "reference": (_DESIGN | {"reference"}, {"progress"}),
    "template plan": (_DESIGN | {"cost_template", "pair", "max_templates"} | _READ, {"progress"}),
    "resample": ({"resample", "pair"} | _READ, {"progress"}),
    "one model": (_DESIGN | _READ, {"progress"}),
    "pairs": (_DESIGN | {"pair"} | _READ, {"progress"}),
}


def _named(name: str) -> str:
    """An option as the caller spells it: ``cost_question`` or ``--cost-question``."""
    return option(name).removesuffix("=")


def _empty(data) -> bool:
    return data is None or (isinstance(data, list | tuple) and len(data) == 0)


def _reference_components(name):
    """(rows, data, prediction) per question of each run's close-pair difference; rows get
    ``total`` (from the total SE), which plans N at K = 1 where a run has K = 1 (data and
    prediction NaN there)."""
    from .outputs import reference

    ref = reference(name).to_dataframe().reset_index()  # the run names are the dim
    n = ref["questions"].to_numpy(float)
    ref["total"] = ref["se_difference_median_close"].to_numpy(float) ** 2 * n
    usable = ref[np.isfinite(ref["total"])].reset_index(drop=True)
    if usable.empty:
        raise DataError(
            f"reference {name!r}: no run measured the SE of a close pair's difference; plan "
            "from a pilot instead ("
            + by_caller("plan(DATA, difference=D)", "bayesnoise plan FILE --difference D")
            + ")"
        )
    n = usable["questions"].to_numpy(float)
    return (
        usable,
        usable["se_difference_data_median_close"].to_numpy(float) ** 2 * n,
        usable["se_difference_prediction_median_close"].to_numpy(float) ** 2 * n,
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
    cost_template=1.0,
    pair=None,
    max_samples=100,
    max_templates=50,
    max_questions=None,
    resample=None,
    reference=None,
    human_cost=None,
    judge_col=None,
    human_col=None,
    human=None,
    label_prob_col=None,
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

    With ``factors`` (a crossed factor, e.g. ``factors=["template"]``): how many templates T,
    questions N and runs per cell K reach ``target_se`` for each model's accuracy over the
    template population (with ``pair``: for the pair's difference, or ``difference`` at
    ``power`` by a t test on the planned Satterthwaite df), ``SE^2 = s2_q / N + s2_t / T +
    s2_qt / (N T) + s2_e / (N T K)`` from the components :func:`noises` estimates, cheapest
    at ``cost_question N + cost_template T + cost_sample N T K`` (exact search over whole T,
    K and N); dim ``model`` or ``pair`` and ``component`` (the pilot's
    ``variance_component``), with ``optimal_templates``, ``df_planned``, the pilot's design
    (``questions``, ``templates``, ``runs_per_cell``, ``se_current_design``) and the N
    needed at the pilot's T and K (``questions_current_design``, ``cost_current_design``).

    One model (a pilot holding one, or ``models="NAME"``): ``target_se`` is the SE of its
    accuracy, ``SE^2 = data / N + prediction / (N K)`` from its own components; ``difference``
    plans a comparison with a second model like it, independent of it question by question
    (``SE[A - B]^2 = 2 (data + prediction / K) / N``: the conservative rho = 0; the assumption
    is in ``attrs["assumption"]`` and printed by the command). A pair with one sample per
    question on one side is planned from the side with K > 1 (its prediction share of the
    total taken for the other model; said in ``attrs["assumption"]``); with K = 1 on both
    sides, or a reference measured at K = 1, N is planned at K = 1 from the total variance
    (``data``, ``prediction``, ``k_star`` NaN).

    Parameters
    ----------
    {input}
    difference : float, optional
        Difference to detect (0.02 = 2 points) at ``power``; or
    target_se : float, optional
        The standard error to reach: of the difference (pairs), of the accuracy (one model).
        Exactly one of the two.
    power, alpha : float
        Power and level (default 0.8, 0.05).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The test planned for, as scipy spells it; ``"less"`` (candidate - baseline < 0) for
        a gate (:func:`check` asks that one-sided question). Either one-sided test needs
        the same N and K.
    cost_question, cost_sample : float, default 1
        Cost of a new question (curation) and of one sample of it (inference of the models
        compared), > 0, in any one unit.
    cost_template : float, default 1
        With ``factors`` (a crossed factor such as a prompt template, CLI ``--factor
        template``): the cost of adding one template (writing and validating it), > 0. Every
        template is a full pass over the N questions with K runs each, so a design costs
        ``cost_question N + cost_template T + cost_sample N T K``
        (:mod:`bayesnoise.decide.plan_templates`).
    pair : (str, str), optional
        Only the pair A - B (with ``factors``: plan its difference over templates).
    max_samples : int, default 100
        Largest K considered.
    max_templates : int, default 50
        With ``factors``: largest number of templates T considered (at least 2).
    max_questions : int, optional
        Largest N available.
    resample : int, optional
        Adaptive K: allocate this many extra samples to the pilot's questions (needs one
        pair and whole-number counts); returns the list, most useful first.
    reference : str, optional
        Plan from the reference noise of a public benchmark (``bayesnoise reference``)
        instead of ``data``.
    judge_col, human_col, human : optional
        The judge-graded pilot's columns or human labels, as in :func:`judge` (with
        ``human_cost``).
    label_prob_col : str, optional
        The judge-graded pilot's inclusion-probability column, as in :func:`judge`: its
        variances are then 1/p-weighted (the plan is for a simple random subset to buy).
    human_cost : float, optional
        A judge-graded pilot (``judge_col``, ``human_col`` or ``human`` as in
        :func:`judge`, or a table whose judge-score and human-label columns ``judge`` finds
        on its own): instead, per model, how many human labels reach ``target_se`` for the
        PPI++ accuracy, at this cost per label (default 1 there: the cost in labels;
        :func:`bayesnoise.verbs._judge_plan.judge_plan`).
    progress : bool, default True
        Progress display on standard error while reading.

    Returns
    -------
    xarray.Dataset
        Dim ``pair`` (dim ``model`` for one model; ``model_a, model_b`` and the
        ``PLAN_COLUMNS``: ``data``, ``prediction``, ``k_star``,
        ``optimal_questions``, ``optimal_samples_per_question``, ``se_planned``,
        ``power_planned``, ``cost_planned``, ``questions_k1``, ``cost_k1``,
        ``current_samples_per_question``, ``questions_current_k``, ``cost_current_k``); dim
        ``run`` for a reference (one per run that measured it); dim ``priority`` for
        ``resample`` (the order in which to add the samples, 1 first: ``question, model,
        samples_per_question, extra_samples, question_prediction_variance``). Attrs
        ``assumption`` where the plan rests on one (one model's difference, K = 1 sides).

    Examples
    --------
    >>> import bayesnoise as bn
    >>> f = "examples/data/cruxeval_output_temp0.8.csv.gz"
    >>> r = bn.plan(f, pair=("phind", "codellama-34b"), target_se=0.01, cost_question=20)
    >>> int(r["optimal_samples_per_question"][0]) > 1
    True
    >>> one = bn.plan(f, models="phind", target_se=0.01, cost_question=20)  # one model
    >>> one.attrs["target"], int(one["optimal_samples_per_question"][0]) > 1
    ("SE of the model's accuracy", True)
    >>> import numpy as np, pandas as pd  # prompt templates: T, N and K to buy
    >>> rng = np.random.default_rng(0)
    >>> rows = [("A", q, t, r, int(rng.random() < 0.6)) for q in range(40)
    ...         for t in ("t1", "t2", "t3") for r in range(2)]
    >>> df = pd.DataFrame(rows, columns=["model", "question", "template", "run", "score"])
    >>> p = bn.plan(df, factors=["template"], target_se=0.03, cost_template=20)
    >>> p.attrs["cost"], bool(p["se_planned"][0] <= 0.03)
    ('cost_question N + cost_template T + cost_sample N T K', True)
    """
    given = {**locals(), **read}  # the options as called (check_mode_options)
    named = (judge_col, human_col, human, label_prob_col)
    judged = any(x is not None for x in named)
    if human_cost is not None or judged or judge_graded(data, read):
        # a judge-graded pilot (found as judge finds it): human labels to buy, each costing
        # human_cost (default 1: the cost counted in labels)
        from ._judge_plan import judge_plan

        check_mode_options("plan", plan, "judge pilot", given, PLAN_MODES)
        return judge_plan(
            data,
            target_se=target_se,
            difference=difference,
            power=power,
            alpha=alpha,
            human_cost=1.0 if human_cost is None else human_cost,
            judge_col=judge_col,
            human_col=human_col,
            human=human,
            label_prob_col=label_prob_col,
            **read,
        )
    from bayesnoise.decide.plan import optimal_design

    mode = _mode(reference, resample, read)
    if mode:  # a pilot's plan: its mode (one model or pairs) once it is read
        check_mode_options("plan", plan, mode, given, PLAN_MODES)
    opts = _design_options(
        difference, target_se, power, alpha, alternative, cost_question, cost_sample, resample
    )
    opts.update(max_samples=int(max_samples), max_questions=max_questions)
    if reference is not None:
        if not _empty(data):
            raise DataError(
                f"give a pilot ({by_caller('data', 'a FILE')}) or "
                f"{option('reference', 'NAME')}, not both"
            )
        rows, dat, pred = _reference_components(reference)
        table = optimal_design(dat, pred, current_samples=rows["samples_per_question"], **opts)
        single = ~(np.isfinite(dat) & np.isfinite(pred))
        if single.any():  # runs with K = 1: their total plans N at K = 1
            k_now = rows["samples_per_question"].to_numpy(float)[single]
            k1 = _k1_design(rows["total"].to_numpy()[single], **opts, current_samples=k_now)
            table[single] = k1.to_numpy()
            warnings.warn(
                f"plan: reference {reference!r} has runs with one sample per question: those "
                "rows plan N at K = 1 (a pilot with K >= 2 plans K too; see docs/decide-in-ci.md)",
                UserWarning,
                stacklevel=2,
            )
        table.insert(0, "benchmark", rows["benchmark"].to_numpy())
        table.insert(0, "run", rows["run"].to_numpy())
        return to_result(table, "run")
    if _empty(data):
        raise DataError(
            "plan needs a pilot (a results file) or a public benchmark's reference noise: "
            f"{option('reference', repr('NAME'))} (e.g. {option('reference', repr('mbpp+'))}; "
            "an unknown NAME lists the known ones)"
        )
    if read.get("factors"):
        from ._plan_templates import template_plan

        factors = read.pop("factors")
        return template_plan(
            data,
            pair=pair,
            opts=opts,
            cost_template=cost_template,
            max_templates=max_templates,
            factors=factors,
            progress=progress,
            read=read,
        )
    ds = dataset(data, progress=progress, **read)
    if pair:
        ds = select_pair(ds, pair)
    if resample is not None:
        if ds.sizes[MODEL] < 2:
            raise DataError(
                f"{attr(ds, 'source')}: resample chooses questions to resample for a pair; the "
                "data hold one model ("
                + by_caller(
                    "give data with two models and pair=(A, B)",
                    "a FILE with two models and --pair A B",
                )
                + ")"
            )
        return _resample(ds, resample)
    if ds.sizes[MODEL] == 1:
        check_mode_options("plan", plan, "one model", given, PLAN_MODES)
        return _one_model(ds, opts, max_samples)
    check_mode_options("plan", plan, "pairs", given, PLAN_MODES)
    table, notes = _pairs(ds, opts)
    if table["optimal_samples_per_question"].eq(max_samples).any():
        warnings.warn(
            f"plan: the optimum reaches max_samples = {max_samples} for some pairs (little or "
            "no data noise measured): more samples would still pay; raise "
            f"{_named('max_samples')}",
            UserWarning,
            stacklevel=2,
        )
    out = to_result(table, "pair")
    if notes:
        out.attrs["assumption"] = "; ".join(notes)
    return out


def _mode(reference, resample, read) -> str | None:
    """The mode of a plan not from a judge-graded pilot, known before reading; None for a
    pilot's plan (one model or pairs, known once it is read)."""
    if reference is not None:
        return "reference"
    if read.get("factors"):
        return "template plan"
    return None if resample is None else "resample"


def _design_options(
    difference, target_se, power, alpha, alternative, cost_question, cost_sample, resample
) -> dict:
    """The checked target and costs of a design, as :func:`optimal_design` takes them."""
    for name, value in (("cost_question", cost_question), ("cost_sample", cost_sample)):
        if value is None or not np.isfinite(float(value)) or float(value) <= 0:
            raise DataError(f"{_named(name)} must be a number > 0 (a cost), got {value}")
    if (difference is None) == (target_se is None) and resample is None:
        raise DataError(
            f"give exactly one target: {option('difference', 'D')} or "
            f"{option('target_se', 'SE')} (a difference is detected with {_named('power')})"
        )
    for name, value in (("difference", difference), ("target_se", target_se)):
        if value is not None and not float(value) > 0:
            raise DataError(f"{_named(name)} must be > 0, got {value}")
    if not 0 < float(power) < 1:
        raise DataError(f"{_named('power')} must be in (0, 1), got {power}")
    _check_alpha(alpha, 1.0)
    check_value("plan", "alternative", alternative, ALTERNATIVES)
    return {
        "cost_question": float(cost_question),
        "cost_sample": float(cost_sample),
        "target_se": target_se,
        "difference": difference,
        "power": power,
        "alpha": alpha,
        "alternative": alternative,  # the lower layers take scipy's spelling
    }


def _k1_design(total, **opts):
    """The plan at K = 1 from the total variance per question (the split unknown): N only;
    ``data``, ``prediction`` and ``k_star`` NaN."""
    from bayesnoise.decide.plan import optimal_design

    table = optimal_design(total, 0.0, **{**opts, "max_samples": 1})
    table[["data", "prediction", "k_star"]] = np.nan
    return table


def _one_model(ds, opts, max_samples):
    """Plan one model's accuracy (``target_se``: the SE of its accuracy) or a difference with a
    second model like it (``difference``: SE[A - B] from this model's own components)."""
    from bayesnoise import frequentist
    from bayesnoise.decide.plan import optimal_design

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="data/prediction split not identifiable")
        noise = frequentist.model_noise(ds)
    data = np.array(noise["data"], dtype=float)
    pred = np.array(noise["prediction"], dtype=float)
    notes = []
    if opts["difference"] is not None:
        # A second model with this one's data and prediction noise, its question effects
        # independent of this one's: var(u_A - u_B) = 2 data, prediction 2 w (rho = 0; models
        # that agree on which questions are hard need fewer questions).
        data, pred = 2.0 * data, 2.0 * pred
        notes.append(
            "one model: SE[A - B] assumes a second model with this model's data and prediction "
            "noise, independent of it question by question (rho = 0; correlated models need "
            "fewer questions)"
        )
    k_now = noise["samples_per_question"].to_numpy(float)
    if np.isfinite(data).all() and np.isfinite(pred).all():
        table = optimal_design(data, pred, current_samples=k_now, **opts)
    else:  # K = 1 somewhere: the total, N at K = 1
        total = noise["total"].to_numpy(float) * (2.0 if opts["difference"] is not None else 1.0)
        table = _k1_design(total, **{**opts, "current_samples": k_now})
        notes.append(
            "one sample per question on some questions: N is planned at K = 1 (a pilot with "
            "K >= 2 on every question plans K too)"
        )
    if table["optimal_samples_per_question"].eq(max_samples).any():
        warnings.warn(
            f"plan: the optimum reaches max_samples = {max_samples} (little or no data noise "
            "measured): more samples would still pay; raise "
            f"{_named('max_samples')}",
            UserWarning,
            stacklevel=2,
        )
    table.insert(0, "model", noise["model"].to_numpy())
    out = to_result(table, "model")
    out.attrs["target"] = (
        "SE of the model's accuracy" if opts["difference"] is None else "SE of A - B"
    )
    if notes:
        out.attrs["assumption"] = "; ".join(notes)
    return out


def _pairs(ds, opts):
    """Each pair's plan; a pair with K = 1 on one side is planned from the side with K > 1,
    with K = 1 on both sides at K = 1. Returns (table, notes)."""
    from bayesnoise import frequentist
    from bayesnoise.decide.plan import optimal_design

    with warnings.catch_warnings():  # K = 1 pairs are handled below, with their own note
        warnings.filterwarnings("ignore", message="data/prediction split not identifiable")
        pt = frequentist.power_table(ds, on_missing="raise")
        noise = frequentist.model_noise(ds).set_index("model")
    data = np.array(pt["data"], dtype=float)
    pred = np.array(pt["prediction"], dtype=float)
    k_now = pt["planned_samples_per_question"].to_numpy(float)
    notes, k1_rows = [], []
    for r, (a, b) in enumerate(zip(pt["model_a"], pt["model_b"], strict=True)):
        if np.isfinite(data[r]) and np.isfinite(pred[r]):
            continue
        split = [m for m in (a, b) if np.isfinite(noise.loc[m, "prediction"])]
        var_d = float(ds_pair_variance(ds, a, b))
        if not split:
            k1_rows.append((r, var_d))
            continue
        side = split[0]
        share = float(noise.loc[side, "prediction"] / noise.loc[side, "total"])
        pred_ab, left = 0.0, var_d
        for m in (a, b):
            w = (
                float(noise.loc[m, "prediction"])
                if m in split
                else share * float(noise.loc[m, "total"])
            )
            pred_ab += w
            left -= w * float(_mean_inverse_k(ds, m))
        data[r], pred[r] = max(left, 0.0), pred_ab
        other = b if side == a else a
        notes.append(
            f"{a} - {b}: {other} has one sample per question on some questions; planned from "
            f"{side} (K > 1): {other}'s prediction noise taken as {side}'s share of its total "
            f"({share:.2f})"
        )
    table = optimal_design(data, pred, current_samples=k_now, **opts)
    for r, var_d in k1_rows:
        table.iloc[r] = _k1_design(var_d, **{**opts, "current_samples": k_now[r]}).iloc[0]
    if k1_rows:
        notes.append(
            f"{len(k1_rows)} pair(s) with one sample per question on both sides: N planned "
            "at K = 1 (a pilot with K >= 2 on some questions plans K too)"
        )
    table.insert(0, "model_b", pt["model_b"].to_numpy())
    table.insert(0, "model_a", pt["model_a"].to_numpy())
    return table, notes


def ds_pair_variance(ds, a, b) -> float:
    """var_i(d_i) (ddof 0, as the noise tables) of the K-averaged difference a - b on the
    questions both answered."""
    from bayesnoise.data import scores

    p = scores(ds.sel({MODEL: [a, b]})).transpose(MODEL, QUESTION).values
    both = np.isfinite(p).all(axis=0)
    d = p[0, both] - p[1, both]
    return float(d.var())


def _mean_inverse_k(ds, m) -> float:
    k = ds["samples"].sel({MODEL: m}).values.astype(float)
    k = k[k > 0]
    return float((1.0 / k).mean())


def _resample(ds, budget):
    from bayesnoise.data import beta_binomial_counts, complete
    from bayesnoise.decide.plan import resample_plan

    if ds.sizes[MODEL] != 2:
        raise DataError(
            f"{attr(ds, 'source')}: resample works on one pair; name it with "
            f"{option('pair', by_caller('(A, B)', 'A B'))}; models are {', '.join(map(str, ds[MODEL].values[:20]))}"
        )
    if int(budget) < 1:
        raise DataError(
            f"{_named('resample')} must be a whole number of samples >= 1, got {budget}"
        )
    ds = complete(ds, on_missing="raise")
    c, k = beta_binomial_counts(ds, needed_by="adaptive K (resample)")
    models = [str(m) for m in ds[MODEL].values]
    table = resample_plan(c, k, int(budget), models=models, questions=ds[QUESTION].values)
    out = to_result(table, "priority")
    out.attrs.update({"model_a": models[0], "model_b": models[1], "budget": int(budget)})
    return out


fill_docs(plan)
