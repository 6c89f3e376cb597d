"""The table verbs: :func:`noise`, :func:`pairs`, :func:`arena`, :func:`compare`,
:func:`posterior`; each returns what its command prints, as a Dataset."""

from __future__ import annotations

from bayesnoise.data import DataError

from ._inputs import dataset, fill_docs, select_pair
from ._result import to_result

__all__ = ["arena", "compare", "noise", "pairs", "posterior"]


def _level(confidence_level):
    return 0.95 if confidence_level is None else confidence_level


def _present(df, *columns):
    return [c for c in columns if c in df.columns]


def noise(data, *, confidence_level=None, correction=True, progress=True, **read):
    """Per model: accuracy and its noise components (``bayesnoise noise``).

    Parameters
    ----------
    {input}
    confidence_level : float, optional
        Add ``accuracy_low`` / ``accuracy_high`` (score interval for the population accuracy).
    correction : bool, default True
        The small-K corrected estimators (False: uncorrected, as the paper's site tables).
    progress : bool, default True
        Progress display on standard error while reading large files.

    Returns
    -------
    xarray.Dataset
        Dim ``model``; ``questions, samples_per_question, accuracy, se_total, se_data,
        se_prediction, se_mean`` (see ``bayesnoise columns``); with ``cluster_col`` also
        ``clusters, se_clustered, design_effect, icc``.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> r = bn.noise("examples/data/cruxeval_output_temp0.8.csv.gz")
    >>> r.sizes["model"], round(float(r["accuracy"].sel(model="phind")), 3)
    (8, 0.389)
    """
    from bayesnoise import frequentist

    ds = dataset(data, progress=progress, **read)
    df = frequentist.model_noise(ds, correction=correction, confidence_level=confidence_level)
    df = df[frequentist.MODEL_COLUMNS + _present(df, "accuracy_low", "accuracy_high")]
    if "cluster" in ds.coords:  # questions in groups: cluster-robust SEs beside the iid ones
        cl = frequentist.cluster_noise(ds, "cluster", confidence_level=confidence_level)
        cl = cl.rename(columns={"accuracy_low": "clustered_low", "accuracy_high": "clustered_high"})
        keep = ["model", "clusters", "se_clustered", "design_effect", "icc"]
        keep += _present(cl, "clustered_low", "clustered_high")
        df = df.merge(cl[keep], on="model", how="left", validate="one_to_one")
    return to_result(df, "model")


def pairs(
    data,
    *,
    confidence_level=None,
    pair=None,
    adjust="holm",
    permutations=0,
    simultaneous=None,
    one_sample_tests=False,
    bootstrap=0,
    max_difference=None,
    seed=0,
    progress=True,
    **read,
):
    """Every pair of models: paired difference, its noise and tests (``bayesnoise pairs``).

    Parameters
    ----------
    {input}
    confidence_level : float, optional
        Add ``difference_low`` / ``difference_high`` (paired score interval, population).
    pair : (str, str), optional
        Only the pair A - B (a family of one: ``p_value_adjusted = p_value``).
    adjust : {{"holm", "bh", "bonferroni", "none"}}, default "holm"
        ``p_value_adjusted`` over all pairs of the file, before ``max_difference`` filters rows.
    permutations : int, default 0
        Add ``p_value_permutation`` with this many sign flips.
    simultaneous : {{None, "max-t", "bonferroni"}}
        Add ``simultaneous_low/high`` and ``p_value_simultaneous``.
    one_sample_tests : bool, default False
        Add Eval-Arena's ``p_value_sign_one_sample``, ``p_value_mcnemar_one_sample``: tests for one
        sample per question (at K > 1, on expected win counts, they almost never reject:
        size 0.000 on the acceptance grid; use ``p_value``).
    bootstrap : int, default 0
        Add ``se_bootstrap`` with this many resamples.
    max_difference : float, optional
        Keep pairs with ``|difference| <= max_difference``.
    seed : int, default 0
    progress : bool, default True

    Returns
    -------
    xarray.Dataset
        Dim ``pair`` (labels ``"A - B"``, coords ``model_a``, ``model_b``).

    Examples
    --------
    >>> import bayesnoise as bn
    >>> r = bn.pairs("examples/data/cruxeval_output_temp0.8.csv.gz")
    >>> r.sizes["pair"], str(r["model_a"].values[0])
    (28, 'codellama-13b')
    """
    from bayesnoise import frequentist

    ds = dataset(data, progress=progress, **read)
    if pair:
        ds = select_pair(ds, pair)
    df = frequentist.pair_noise(
        ds,
        on_missing="raise",
        max_difference=max_difference,
        n_boot=bootstrap,
        random_seed=seed,
        confidence_level=confidence_level,
        adjust=adjust,
        n_permutations=permutations,
        progress=progress,
    )
    tests = _present(df, "p_value_permutation")
    if one_sample_tests:
        tests += frequentist.ONE_SAMPLE_COLUMNS
    extra = _present(df, "se_bootstrap", "difference_low", "difference_high")
    columns = [c for c in frequentist.PAIR_COLUMNS if c in df.columns]
    df = df[[*columns[:-1], *tests, columns[-1], *extra]]
    keys = ["model_a", "model_b"]
    if simultaneous:
        from bayesnoise import decide

        sim = decide.simultaneous_intervals(
            ds,
            confidence_level=_level(confidence_level),
            method=simultaneous,
            random_seed=seed,
            on_missing="raise",
        )
        keep = [*keys, "simultaneous_low", "simultaneous_high", "p_value_simultaneous"]
        df = df.merge(sim[keep], on=keys, how="left", validate="one_to_one")
    if "cluster" in ds.coords:
        df = _clustered_pairs(ds, df, adjust)
    return to_result(df, "pair")


def _clustered_pairs(ds, df, adjust):
    """Cluster-robust columns; the adjusted p-value is over all pairs, like ``p_value_adjusted``."""
    from bayesnoise import frequentist

    cp = frequentist.cluster_pair_noise(ds, "cluster", on_missing="raise")
    cp = cp.rename(
        columns={
            "design_effect": "design_effect_pair",
            "z": "z_clustered",
            "p_value": "p_value_clustered",
        }
    )
    cp["p_value_clustered_adjusted"] = frequentist.adjust_pvalues(cp["p_value_clustered"], adjust)
    keep = ["model_a", "model_b", "se_clustered", "design_effect_pair", "z_clustered"]
    keep += ["p_value_clustered", "p_value_clustered_adjusted"]
    return df.merge(cp[keep], on=["model_a", "model_b"], how="left", validate="one_to_one")


def arena(data, *, progress=True, **read):
    """Eval-Arena's summary: the smallest significant gap (``bayesnoise arena``).

    Parameters
    ----------
    {input}

    Returns
    -------
    xarray.Dataset
        Dim ``benchmark``: ``models, questions, p5_min, p5_max, p5_min_count, p5_max_count``.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> int(bn.arena("examples/data/cruxeval_output_temp0.8.csv.gz")["models"][0])
    8
    """
    from bayesnoise import frequentist

    ds = dataset(data, progress=progress, **read)
    df = frequentist.arena_summary(ds, on_missing="raise")
    return to_result(df, "benchmark")


def compare(
    data,
    *,
    pairs=False,
    confidence_level=0.95,
    max_difference=None,
    seed=0,
    progress=True,
    **read,
):
    """Frequentist and Bayesian intervals side by side (``bayesnoise compare``).

    Per model (or per pair with ``pairs=True``), for *these questions* and for the *question
    population*; every column has the name, and the number, it has in :func:`noise`,
    :func:`pairs` and :func:`posterior`.

    Parameters
    ----------
    {input}
    pairs : bool, default False
    confidence_level : float, default 0.95
    max_difference : float, optional
        With ``pairs=True``: keep pairs with ``|difference| <= max_difference``.
    seed : int, default 0
        Seed of the Monte Carlo parts of the Bayesian intervals.

    Returns
    -------
    xarray.Dataset
        Dim ``model`` or ``pair``.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> r = bn.compare("examples/data/cruxeval_output_temp0.8.csv.gz")
    >>> bool((r["mu_low"] < r["accuracy"]).all() and (r["accuracy"] < r["mu_high"]).all())
    True
    """
    from bayesnoise import decide

    ds = dataset(data, progress=progress, **read)
    level = _level(confidence_level)
    if pairs:
        df = decide.compare_pairs(
            ds,
            confidence_level=level,
            random_seed=seed,
            on_missing="raise",
            max_difference=max_difference,
        )
        return to_result(df, "pair")
    df = decide.compare_models(ds, confidence_level=level, random_seed=seed, progress=progress)
    return to_result(df, "model")


def posterior(
    data,
    *,
    pairs=False,
    method="conjugate",
    kappa=None,
    ubar_prior="auto",
    sampler="auto",
    draws=1000,
    tune=1000,
    chains=2,
    save=None,
    confidence_level=0.95,
    seed=0,
    progress=True,
    **read,
):
    """Bayesian Beta-Bernoulli posterior per model or pair (``bayesnoise posterior``).

    Parameters
    ----------
    {input}
    pairs : bool, default False
        Paired differences for all pairs.
    method : {{"conjugate", "mcmc"}}, default "conjugate"
        Closed forms with empirical Bayes, or full Bayes by MCMC (PyMC; the MCMC columns say
        so in their names: ``mu_beta``, ``ubar_mcmc``, ...).
    kappa : float, optional
        Conjugate only: fix the Beta concentration for every model.
    ubar_prior : {{"auto", "beta", "nonparametric", "binomial"}}, default "auto"
        Conjugate only: the prior of the question accuracies behind ``ubar`` and ``dbar``
        (the ``ubar_prior`` column says which each model got). ``"auto"``: the fitted Beta
        population, a nonparametric prior where a likelihood-ratio test rejects the Beta,
        and at K = 1 (one sample per question, kappa not identified) the binomial bound
        that holds whatever kappa; ``"beta"`` keeps the kappa-dependent Beta interval at
        K = 1; ``"nonparametric"``; ``"binomial"`` (the K = 1 bound; data with a question
        answered more than once raise :class:`~bayesnoise.data.DataError`). See
        :func:`bayesnoise.conjugate.posterior_table`.
    sampler : {{"auto", "pymc", "nutpie", "numpyro"}}, default "auto"
    draws, tune, chains : int
        MCMC draws and tuning steps per chain, and chains.
    save : path, optional
        Save the MCMC fit (NetCDF).
    confidence_level : float, default 0.95
    seed : int, default 0
    progress : bool, default True

    Returns
    -------
    xarray.Dataset
        Dim ``model`` (``mu``, ``ubar``, ``kappa`` ...) or ``pair`` (``dbar``, ``prob_a_better``,
        ``mu_difference``, ``prob_a_better_population``).

    Examples
    --------
    >>> import bayesnoise as bn
    >>> r = bn.posterior("examples/data/cruxeval_output_temp0.8.csv.gz", pairs=True)
    >>> r.sizes["pair"]
    28
    """
    from bayesnoise import conjugate
    from bayesnoise.data import complete

    ds = dataset(data, progress=progress, **read)
    level = _level(confidence_level)
    dim = "pair" if pairs else "model"
    if pairs and ds.sizes["model"] < 2:
        raise DataError(
            f"{ds.attrs.get('source', 'the input')}: pairs need at least two models; it has "
            f"one: {ds['model'].values[0]}"
        )
    if method == "conjugate":
        kw = {"confidence_level": level, "random_seed": seed, "kappa": kappa, "progress": progress}
        kw["ubar_prior"] = ubar_prior
        if pairs:
            df = conjugate.posterior_pairs_table(ds, on_missing="raise", **kw)
        else:
            df = conjugate.posterior_table(ds, **kw)
        return to_result(df, dim)
    if method != "mcmc":
        raise ValueError(f"method must be 'conjugate' or 'mcmc', got {method!r}")
    if kappa is not None:
        raise DataError("kappa applies to method='conjugate'; MCMC fits kappa with its prior")
    if ubar_prior != "auto":
        raise DataError(
            "ubar_prior applies to method='conjugate'; the MCMC models have a Beta population"
        )
    from bayesnoise import mcmc

    if pairs:
        ds = complete(ds, on_missing="raise")
    df = mcmc.posterior_table_mcmc(
        ds,
        pairs=pairs,
        confidence_level=level,
        sampler=sampler,
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=seed,
        save=save,
        progressbar=progress,
    )
    return to_result(df, dim)


fill_docs(noise, pairs, arena, compare, posterior)
