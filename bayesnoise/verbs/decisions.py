"""The decision verbs: :func:`ranks` (which model is best), :func:`power` (how many questions
and samples) and :func:`passk` (pass@k per model or pair)."""

from __future__ import annotations

from bayesnoise.data import DataError

from ._inputs import dataset, fill_docs, select_pair
from ._result import to_result

__all__ = ["passk", "power", "ranks"]


def ranks(
    data,
    *,
    method="hierarchical",
    draws=4000,
    confidence_level=0.95,
    seed=0,
    progress=True,
    **read,
):
    """Per model: P(best), expected rank, rank interval, tie groups (``bayesnoise ranks``).

    Parameters
    ----------
    {input}
    method : {{"hierarchical", "bootstrap", "bayes"}}, default "hierarchical"
        Normal hierarchy over the models (shrinks the leader's luck; calibrated P(best)), the
        paired bootstrap over questions, or the conjugate posterior on these questions.
    draws : int, default 4000
    confidence_level : float, default 0.95
        Level of the rank interval and of the top group.
    seed : int, default 0

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

    ds = dataset(data, progress=progress, **read)
    df = decide.rank_table(
        ds,
        method=method,
        draws=draws,
        confidence_level=0.95 if confidence_level is None else confidence_level,
        random_seed=seed,
        on_missing="raise",
    )
    return to_result(df, "model")


def power(
    data,
    *,
    difference=None,
    n=None,
    k=None,
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
    n, k : int, optional
        Questions and samples per question of the planned eval (default: the file's).
    alpha : float, default 0.05
        Two-sided level.
    power : float, default 0.8
    pair : (str, str), optional
        Only the pair A - B.

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

    ds = dataset(data, progress=progress, **read)
    if pair:
        ds = select_pair(ds, pair)
    opts = {"difference": difference, "n": n, "k": k, "alpha": alpha, "power": power}
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
    pairs=False,
    method="frequentist",
    confidence_level=None,
    seed=0,
    progress=True,
    **read,
):
    """pass@k per model or pair (``bayesnoise passk``).

    Parameters
    ----------
    {input}
    k : int
        k of pass@k (at most the samples per question).
    pairs : bool, default False
        All pairs: difference, its SE and the paired t test (frequentist only).
    method : {{"frequentist", "conjugate"}}, default "frequentist"
        The unbiased estimator with its SE across questions, or the Beta-Binomial posterior
        for these questions and the population.
    confidence_level : float, optional
        Add interval columns (conjugate: default 0.95).
    seed : int, default 0

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

    ds = dataset(data, progress=progress, **read)
    if method == "conjugate":
        if pairs:
            raise DataError("passk pairs are frequentist; use method='frequentist'")
        level = 0.95 if confidence_level is None else confidence_level
        df = conjugate.posterior_passk_table(ds, k, confidence_level=level, random_seed=seed)
        return to_result(df, "model")
    if pairs:
        df = frequentist.passk_pairs(ds, k, on_missing="raise", confidence_level=confidence_level)
        return to_result(df, "pair")
    return to_result(frequentist.passk_table(ds, k, confidence_level=confidence_level), "model")


fill_docs(ranks, power, passk)
