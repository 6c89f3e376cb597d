"""The decision verbs: :func:`ranks` (which model is best), :func:`power` (how many questions
and samples) and :func:`passk` (pass@k per model or pair)."""

from __future__ import annotations

from bayesnoise.data import DataError

from ._inputs import (
    as_seed,
    check_value,
    dataset,
    drop_intervals,
    fill_docs,
    reject_renamed,
    select_pair,
)
from ._result import to_result
from .choices import RANK_MODELS

__all__ = ["passk", "power", "ranks"]


def ranks(
    data,
    *,
    model="hierarchical",
    n_resamples=4000,
    confidence_level=0.95,
    rng=0,
    progress=True,
    **read,
):
    """Per model: P(best), expected rank, rank interval, tie groups (``bayesnoise ranks``).

    Parameters
    ----------
    {input}
    model : {{"hierarchical", "bootstrap", "bayes"}}, default "hierarchical"
        How the accuracies are modelled: a normal hierarchy over the models (shrinks the
        leader's luck; calibrated P(best)), the paired bootstrap over questions, or the
        conjugate posterior on these questions.
    n_resamples : int, default 4000
        Monte Carlo draws (posterior draws or bootstrap replicates) behind every column.
    confidence_level : float or None, default 0.95
        Level of the rank interval and of the top group; None: no ``rank_low/high``,
        ``in_top_group`` or ``group``.
    rng : int or numpy.random.Generator, default 0
        Seed (or generator) of the draws.
    progress : bool, default True
        Progress display on standard error while reading.

    Returns
    -------
    xarray.Dataset
        Dim ``model``: ``accuracy, prob_best, expected_rank, rank_low, rank_high, in_top_group,
        group``.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> r = bn.ranks("examples/data/cruxeval_output_temp0.8.csv.gz")
    >>> round(float(r["prob_best"].sum()), 6)
    1.0
    """
    from bayesnoise import decide

    reject_renamed("ranks", read, {"method": "model= (values hierarchical, bootstrap, bayes)"})
    check_value("ranks", "model", model, RANK_MODELS)
    ds = dataset(data, progress=progress, **read)
    df = decide.rank_table(
        ds,
        model=model,
        n_resamples=n_resamples,
        confidence_level=0.95 if confidence_level is None else confidence_level,
        rng=as_seed(rng),
        on_missing="raise",
    )
    if confidence_level is None:  # level-derived columns: the interval and the top group
        df = drop_intervals(df, None).drop(columns=["in_top_group", "group"], errors="ignore")
    return to_result(df, "model")


def power(
    data,
    *,
    difference=None,
    planned_questions=None,
    planned_samples_per_question=None,
    alpha=0.05,
    power=0.8,
    pair=None,
    progress=True,
    **read,
):
    """Smallest detectable difference, questions and samples needed (``bayesnoise power``).

    Parameters
    ----------
    {input}
    difference : float, optional
        True difference to detect (0.02 = 2 points): adds the questions and samples needed.
    planned_questions, planned_samples_per_question : int, optional
        Questions and samples per question of the planned eval (default: the file's; the
        output columns of the same names). ``samples_per_question`` is the input option of
        Eval-Arena pass1 tables, not the plan.
    alpha : float, default 0.05
        Two-sided level of the test.
    power : float, default 0.8
        Power at ``difference``.
    pair : (str, str), optional
        Only the pair A - B.
    progress : bool, default True
        Progress display on standard error while reading.

    Returns
    -------
    xarray.Dataset
        Dim ``pair``.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> r = bn.power("examples/data/cruxeval_output_temp0.8.csv.gz", difference=0.05)
    >>> bool((r["paired_min_difference"] <= r["unpaired_min_difference"]).all())
    True
    """
    from bayesnoise import frequentist

    reject_renamed("power", read, {"n": "planned_questions=", "k": "planned_samples_per_question="})
    ds = dataset(data, progress=progress, **read)
    if pair:
        ds = select_pair(ds, pair)
    opts = {"difference": difference, "alpha": alpha, "power": power}
    opts |= {"n": planned_questions, "k": planned_samples_per_question}
    df = frequentist.power_table(ds, on_missing="raise", **opts)
    needed = [c for c in frequentist.NEEDED_COLUMNS if c in df.columns]
    shown = df[frequentist.POWER_COLUMNS + needed]
    if "cluster" in ds.coords:  # questions in groups: the cluster-aware numbers beside
        cl = frequentist.cluster_power_table(ds, "cluster", on_missing="raise", base=df, **opts)
        shown = shown.merge(cl, on=["model_a", "model_b"], how="left", validate="one_to_one")
    return to_result(shown, "pair")


def passk(
    data,
    *,
    k,
    by="model",
    method="frequentist",
    confidence_level=None,
    rng=0,
    progress=True,
    **read,
):
    """pass@k per model or pair (``bayesnoise passk``).

    Parameters
    ----------
    {input}
    k : int
        k of pass@k (at most the samples per question).
    by : {{"model", "pair"}}, default "model"
        One row per model, or every pair: difference, its SE and the paired t test
        (frequentist only).
    method : {{"frequentist", "bayes"}}, default "frequentist"
        The unbiased estimator with its SE across questions, or the Beta-Binomial posterior
        for these questions and the population.
    confidence_level : float, optional
        Add interval columns at this level (None: none, with either method).
    rng : int or numpy.random.Generator, default 0
        Seed (or generator) of the posterior draws (bayes).
    progress : bool, default True
        Progress display on standard error while reading.

    Returns
    -------
    xarray.Dataset
        Dim ``model`` or ``pair``.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> r = bn.passk("examples/data/cruxeval_output_temp0.8.csv.gz", k=1)
    >>> bool(abs(r["pass_at_k"] - bn.noise("examples/data/cruxeval_output_temp0.8.csv.gz")["accuracy"]).max() < 1e-12)
    True
    """
    from bayesnoise import conjugate, frequentist

    check_value("passk", "by", by, ("model", "pair"))
    check_value("passk", "method", method, ("frequentist", "bayes"))
    ds = dataset(data, progress=progress, **read)
    if method == "bayes":
        if by == "pair":
            raise DataError("passk pairs are frequentist; use method='frequentist'")
        level = 0.95 if confidence_level is None else confidence_level
        df = conjugate.posterior_passk_table(ds, k, confidence_level=level, rng=as_seed(rng))
        return to_result(drop_intervals(df, confidence_level), "model")
    if by == "pair":
        df = frequentist.passk_pairs(ds, k, on_missing="raise", confidence_level=confidence_level)
        return to_result(df, "pair")
    return to_result(frequentist.passk_table(ds, k, confidence_level=confidence_level), "model")


fill_docs(ranks, power, passk)
