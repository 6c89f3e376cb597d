"""The table verbs: :func:`noise`, :func:`pairs`, :func:`arena`, :func:`compare`,
:func:`posterior`; each returns what its command prints, as a Dataset."""

from __future__ import annotations

from bayesnoise._common import MCMC_CHAINS, MCMC_DRAWS, MCMC_TUNE, option
from bayesnoise.data import DataError

from ._factor_tables import (
    FACTOR_ESTIMAND,
    has_factors,
    model_table,
    pair_table,
    pair_verdict,
    refuse_pair_options,
)
from ._inputs import as_seed, check_value, dataset, drop_intervals, fill_docs, select_pair
from ._result import to_result
from .choices import BY, COMPARE_METHODS, RESAMPLING

__all__ = ["arena", "compare", "noise", "pairs", "posterior"]


def _level(confidence_level):
    """The level to compute at; with None the interval columns are dropped afterwards."""
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
    simultaneous=None,
    one_sample_tests=False,
    n_resamples=0,
    resampling="both",
    max_difference=None,
    rng=0,
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
        Only the pair A - B, in that order (a family of one: ``p_value_adjusted =
        p_value``), and ``attrs["verdict"]``: one line in ``check``'s words, e.g. "A
        scores 0.031 higher than B: A - B = 0.031 [0.012, 0.050] (95% interval), p = 0.002
        (two-sided paired t): A is better", the interval the row's, for A - B (the interval at ``confidence_level``, 0.95 when None), or "no difference
        observed" when every per-question difference is 0.
    adjust : {{"holm", "bh", "bonferroni", "none"}}, default "holm"
        ``p_value_adjusted`` over all pairs of the file, before ``max_difference`` filters rows.
    simultaneous : {{None, "max-t", "bonferroni"}}
        Add ``p_value_simultaneous`` and, with ``confidence_level``, ``simultaneous_low/high``.
    one_sample_tests : bool, default False
        Add Eval-Arena's ``p_value_sign_one_sample``, ``p_value_mcnemar_one_sample``: tests for one
        sample per question (at K > 1, on expected win counts, they almost never reject:
        size 0.000 on the acceptance grid; use ``p_value``).
    n_resamples : int, default 0
        Resamples of the columns ``resampling`` names: ``se_bootstrap`` (paired bootstrap over
        questions) and ``p_value_permutation`` (sign flips of the per-question differences).
    resampling : {{"both", "bootstrap", "permutation"}}, default "both"
        Which of the two ``n_resamples`` adds.
    max_difference : float, optional
        Keep pairs with ``|difference| <= max_difference``.
    rng : int or numpy.random.Generator, default 0
        Seed (or generator) of the bootstrap, the permutations and the max-t draws.
    progress : bool, default True
        Progress display on standard error.

    Returns
    -------
    xarray.Dataset
        Dim ``pair`` (labels ``"A - B"``, coords ``model_a``, ``model_b``): every pair once,
        the model with the higher accuracy as A (differences >= 0 on shared questions),
        pairs of the best model first.
        With factor columns (``factors=["template"]``, CLI ``--factor template``): the rows
        of ``bayesnoise noises --by pair`` (crossed question x template cells, runs as
        replicates): ``difference_templates`` (over the template population: its SE has the
        model x template part, its t interval and ``p_value_templates`` Satterthwaite's
        df), ``p_value_templates_adjusted`` (``adjust``), and the same for these templates
        (``*_these_templates``); ``attrs["estimand"]`` says which is which.
        ``simultaneous``, ``one_sample_tests`` and ``n_resamples`` are refused there.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> f = "examples/data/cruxeval_output_temp0.8.csv.gz"
    >>> r = bn.pairs(f)
    >>> r.sizes["pair"], str(r["model_a"].values[0]), bool((r["difference"] >= 0).all())
    (28, 'deepseek-instruct-6.7b', True)
    >>> print(bn.pairs(f, pair=("codellama-13b", "phind")).attrs["verdict"])
    codellama-13b scores 0.028 lower than phind: codellama-13b - phind = -0.028 [-0.048, -0.008] (95% interval), p = 0.006 (two-sided paired t): codellama-13b is worse
    """
    from bayesnoise import frequentist

    check_value("pairs", "resampling", resampling, RESAMPLING)
    ds = dataset(data, progress=progress, factors_ok=True, **read)
    if pair:
        ds = select_pair(ds, pair)
    if has_factors(ds):
        refuse_pair_options(
            simultaneous=simultaneous, one_sample_tests=one_sample_tests, n_resamples=n_resamples
        )
        return _factor_pairs(
            ds, read.get("factors"), confidence_level, pair, adjust, max_difference
        )
    rng = as_seed(rng)
    df = frequentist.pair_noise(
        ds,
        on_missing="raise",
        max_difference=max_difference,
        n_resamples=n_resamples,
        resampling=resampling,
        rng=rng,
        confidence_level=_level(confidence_level) if pair else confidence_level,
        adjust=adjust,
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
            rng=rng,
            on_missing="raise",
        )
        keep = [*keys, "simultaneous_low", "simultaneous_high", "p_value_simultaneous"]
        if confidence_level is None:  # no interval columns; the p-value needs no level
            keep = [*keys, "p_value_simultaneous"]
        df = df.merge(sim[keep], on=keys, how="left", validate="one_to_one")
    if "cluster" in ds.coords:
        df = _clustered_pairs(ds, df, adjust)
    verdict = _one_pair_verdict(df, pair, _level(confidence_level), ds.sizes["question"])
    out = to_result(drop_intervals(df, confidence_level), "pair")
    if verdict:
        out.attrs["verdict"] = verdict
    return out


def _factor_pairs(ds, factors, confidence_level, pair, adjust, max_difference):
    """``pairs`` / ``compare --by pair`` on factor dims: the crossed rows (``noises --by pair``)."""
    df = pair_table(ds, factors=factors, confidence_level=_level(confidence_level), adjust=adjust)
    if max_difference is not None:
        df = df[df["difference_templates"].abs() <= max_difference].reset_index(drop=True)
    verdict = pair_verdict(df, pair, _level(confidence_level))
    out = to_result(drop_intervals(df, confidence_level), "pair")
    out.attrs["estimand"] = FACTOR_ESTIMAND.format(factor=df["factor"].iloc[0] if len(df) else "")
    if verdict:
        out.attrs["verdict"] = verdict
    return out


def _one_pair_verdict(df, pair, confidence_level, questions):
    """The sentence on the one pair asked for (``pair=``), in ``check``'s words; else None."""
    if not pair or len(df) != 1:
        return None
    from bayesnoise.decide.verdicts import pair_sentence

    return pair_sentence(df.iloc[0], confidence_level=confidence_level, questions=questions)


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
    progress : bool, default True
        Progress display on standard error while reading.

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
    by="model",
    method="bayes",
    confidence_level=0.95,
    pair=None,
    max_difference=None,
    draws=MCMC_DRAWS,
    tune=MCMC_TUNE,
    chains=MCMC_CHAINS,
    rng=0,
    progress=True,
    **read,
):
    """Frequentist and Bayesian intervals side by side (``bayesnoise compare``).

    Per model (or per pair with ``by="pair"``), for *these questions* and for the *question
    population*; every column has the name, and the number, it has in :func:`noise`,
    :func:`pairs` and :func:`posterior`.

    Parameters
    ----------
    {input}
    by : {{"model", "pair"}}, default "model"
        One row per model, or per pair of models (A - B).
    method : {{"bayes", "mcmc"}}, default "bayes"
        The Bayesian side: ``"bayes"``, the closed forms of :func:`posterior` (on factor
        data the crossed model has none: the frequentist crossed rows alone, in about a
        second); ``"mcmc"``, on factor data only, adds the crossed logit model's
        ``*_mcmc`` twins (``noises(..., method="mcmc")``, PyMC: 30 s or more).
    confidence_level : float or None, default 0.95
        Level of every interval; None: no interval columns.
    pair : (str, str), optional
        With ``by="pair"``: only the pair A - B, in that order, and ``attrs["verdict"]``,
        one line in ``check``'s words (as :func:`pairs`).
    max_difference : float, optional
        With ``by="pair"``: keep pairs with ``|difference| <= max_difference``.
    draws, tune, chains : int
        ``method="mcmc"``: MCMC draws and tuning steps per chain, and chains.
    rng : int or numpy.random.Generator, default 0
        Seed (or generator) of the Monte Carlo parts of the Bayesian intervals (with
        ``method="mcmc"``: of the MCMC sampler).
    progress : bool, default True
        Progress display on standard error.

    Returns
    -------
    xarray.Dataset
        Dim ``model`` (best accuracy first) or ``pair`` (the higher accuracy as A).
        With factor columns (``factors=``): the frequentist crossed columns of
        ``bayesnoise noises`` (per model ``accuracy_templates``, per pair
        ``difference_templates``, each also over these templates; :func:`pairs`); with
        ``method="mcmc"`` each followed by its Bayesian twin on the same row, in the same
        orientation A - B, from one fit of the crossed logit model
        (``noises(..., method="mcmc")``: ``chains`` chains of ``draws`` draws after ``tune``
        tuning steps, seeded by ``rng``): per model
        ``accuracy_templates_mcmc`` and ``accuracy_these_templates_mcmc``, per pair
        ``difference_templates_mcmc``, ``prob_a_better_templates_mcmc`` and
        ``difference_these_templates_mcmc`` (posterior means; ``_low`` / ``_high``:
        equal-tailed intervals); in ``attrs`` the fit's ``r_hat_max``, ``ess_bulk_min``,
        ``divergences`` and ``converged``. The Bayesian model needs 0/1 scores: on graded
        scores only the frequentist columns, and ``attrs["note"]`` says why.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> r = bn.compare("examples/data/cruxeval_output_temp0.8.csv.gz")
    >>> bool((r["mu_low"] < r["accuracy"]).all() and (r["accuracy"] < r["mu_high"]).all())
    True
    """
    from bayesnoise import decide

    check_value("compare", "by", by, BY)
    check_value("compare", "method", method, COMPARE_METHODS)
    mcmc = {"draws": draws, "tune": tune, "chains": chains}
    if method != "mcmc":
        defaults = {"draws": MCMC_DRAWS, "tune": MCMC_TUNE, "chains": MCMC_CHAINS}
        given = [k for k, v in mcmc.items() if v != defaults[k]]
        if given:
            raise DataError(
                f"{option(given[0])} sets the MCMC sampler; it applies with "
                f"{option('method', repr('mcmc'))} (the crossed model of factor data)"
            )
    ds = dataset(data, progress=progress, factors_ok=True, **read)
    if pair is not None and by != "pair":
        raise DataError(
            f"{option('pair')} compares two models: use it with {option('by', repr('pair'))}"
        )
    if pair:
        ds = select_pair(ds, pair)
    if method == "mcmc" and not has_factors(ds):
        raise DataError(
            f"{option('method', repr('mcmc'))} in compare fits the crossed model of factor data "
            f"({option('factors', repr('template'))}); for MCMC per model use posterior with "
            f"{option('method', repr('mcmc'))}"
        )
    if has_factors(ds):  # the crossed rows of noises, frequentist and Bayesian side by side
        from ._compare_factors import mcmc_note, with_mcmc

        if by == "pair":
            out = _factor_pairs(
                ds, read.get("factors"), confidence_level, pair, "holm", max_difference
            )
        else:
            df = model_table(
                ds, factors=read.get("factors"), confidence_level=_level(confidence_level)
            )
            out = to_result(drop_intervals(df, confidence_level), "model")
            out.attrs["estimand"] = FACTOR_ESTIMAND.format(factor=df["factor"].iloc[0])
        if method != "mcmc":
            out.attrs["note"] = mcmc_note()
            return out
        return with_mcmc(out, ds, read.get("factors"), by, confidence_level, rng, progress, **mcmc)
    rng = as_seed(rng)
    level = _level(confidence_level)
    if by == "pair":
        df = decide.compare_pairs(
            ds,
            confidence_level=level,
            rng=rng,
            on_missing="raise",
            max_difference=max_difference,
            progress=progress,
        )
        verdict = _one_pair_verdict(df, pair, level, ds.sizes["question"])
        out = to_result(drop_intervals(df, confidence_level), "pair")
        if verdict:
            out.attrs["verdict"] = verdict
        return out
    df = decide.compare_models(ds, confidence_level=level, rng=rng, progress=progress)
    return to_result(drop_intervals(df, confidence_level), "model")


def posterior(
    data,
    *,
    by="model",
    method="bayes",
    kappa=None,
    ubar_prior="auto",
    sampler="auto",
    draws=MCMC_DRAWS,
    tune=MCMC_TUNE,
    chains=MCMC_CHAINS,
    save=None,
    confidence_level=0.95,
    rng=0,
    progress=True,
    **read,
):
    """Bayesian Beta-Bernoulli posterior per model or pair (``bayesnoise posterior``).

    Parameters
    ----------
    {input}
    by : {{"model", "pair"}}, default "model"
        One row per model, or the paired differences of every pair of models.
    method : {{"bayes", "mcmc"}}, default "bayes"
        Closed forms with empirical Bayes, or full Bayes by MCMC (PyMC; the MCMC columns say
        so in their names: ``mu_beta``, ``ubar_mcmc``, ...).
    kappa : float, optional
        ``method="bayes"`` only: fix the Beta concentration for every model.
    ubar_prior : {{"auto", "beta", "nonparametric", "binomial"}}, default "auto"
        ``method="bayes"`` only: the prior of the question accuracies behind ``ubar`` and ``dbar``
        (the ``ubar_prior`` column says which each model got). ``"auto"``: the fitted Beta
        population, a nonparametric prior where a likelihood-ratio test rejects the Beta,
        and at K = 1 (one sample per question, kappa not identified) the binomial bound
        that holds whatever kappa; ``"beta"`` keeps the kappa-dependent Beta interval at
        K = 1; ``"nonparametric"``; ``"binomial"`` (the K = 1 bound; data with a question
        answered more than once raise :class:`~bayesnoise.data.DataError`). See
        :func:`bayesnoise.conjugate.posterior_table`.
    sampler : {{"auto", "pymc", "nutpie", "numpyro"}}, default "auto"
        MCMC: the NUTS implementation.
    draws, tune, chains : int
        MCMC draws and tuning steps per chain, and chains.
    save : path, optional
        Save the MCMC fit (NetCDF).
    confidence_level : float or None, default 0.95
        Level of the intervals; None: no interval columns.
    rng : int or numpy.random.Generator, default 0
        Seed (or generator) of the Monte Carlo intervals and of MCMC.
    progress : bool, default True
        Progress display on standard error.

    Returns
    -------
    xarray.Dataset
        Dim ``model`` (``mu``, ``ubar``, ``kappa`` ...) or ``pair`` (``dbar``, ``prob_a_better``,
        ``mu_difference``, ``prob_a_better_population``).

    Examples
    --------
    >>> import bayesnoise as bn
    >>> r = bn.posterior("examples/data/cruxeval_output_temp0.8.csv.gz", by="pair")
    >>> r.sizes["pair"]
    28
    """
    from bayesnoise import conjugate
    from bayesnoise.data import complete

    check_value("posterior", "by", by, BY)
    check_value("posterior", "method", method, ("bayes", "mcmc"))
    ds = dataset(data, progress=progress, **read)
    rng = as_seed(rng)
    level = _level(confidence_level)
    dim = by
    pairs = by == "pair"
    if pairs and ds.sizes["model"] < 2:
        raise DataError(
            f"{ds.attrs.get('source', 'the input')}: pairs need at least two models; it has "
            f"one: {ds['model'].values[0]}"
        )
    if method == "bayes":
        kw = {"confidence_level": level, "rng": rng, "kappa": kappa, "progress": progress}
        kw["ubar_prior"] = ubar_prior
        if pairs:
            df = conjugate.posterior_pairs_table(ds, on_missing="raise", **kw)
        else:
            df = conjugate.posterior_table(ds, **kw)
        return to_result(drop_intervals(df, confidence_level), dim)
    if kappa is not None:
        raise DataError("kappa applies to method='bayes'; MCMC fits kappa with its prior")
    if ubar_prior != "auto":
        raise DataError(
            "ubar_prior applies to method='bayes'; the MCMC models have a Beta population"
        )
    from bayesnoise import mcmc

    if pairs:
        ds = complete(ds, on_missing="raise")
    df = mcmc.posterior_table_mcmc(
        ds,
        by=by,
        confidence_level=level,
        sampler=sampler,
        draws=draws,
        tune=tune,
        chains=chains,
        rng=rng,
        save=save,
        progress=progress,
    )
    return to_result(drop_intervals(df, confidence_level), dim)


fill_docs(noise, pairs, arena, compare, posterior)
