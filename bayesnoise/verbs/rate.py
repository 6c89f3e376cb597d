"""The success-rate verbs: :func:`rate` (``bayesnoise rate``) and the threshold sweep
:func:`threshold` (``bayesnoise threshold``)."""

from __future__ import annotations

import warnings

import numpy as np

from bayesnoise.data import DataError

from ._inputs import check_value, dataset, fill_docs, interval_level
from ._rate_priors import PRIOR_HELP, model_priors  # noqa: F401  (PRIOR_HELP: for the CLI)
from ._result import to_result
from .choices import BY

__all__ = ["exact_coverage", "parse_grid", "rate", "threshold"]


def _check(verb, by, alternative, target, confidence_level):
    from bayesnoise._defaults import ALTERNATIVES

    check_value(verb, "by", by, BY)
    check_value(verb, "alternative", alternative, ALTERNATIVES)
    interval_level(verb, confidence_level, "the credible intervals")
    if target is not None and not 0 < float(target) < 1:
        raise DataError(f"target must be in (0, 1), got {target}")


def _priors(ds, prior, priors):
    from bayesnoise.data import attr

    models = list(map(str, ds["model"].values))
    return model_priors(models, prior, priors, source=attr(ds, "source"))


def rate(
    data,
    *,
    prior="uniform",
    priors=None,
    target=None,
    confidence_level=0.95,
    by="model",
    alternative="greater",
    progress=True,
    **read,
):
    """Each model's success rate under a prior you choose, and a one-sided test against a
    target (``bayesnoise rate``).

    Scores must be 0/1; graded scores (a similarity in [0, 1]) become success / failure with
    ``threshold=T`` (and ``success="below"`` for a distance). At K = 1 (one answer per
    question) the posterior is the conjugate Beta(a + s, b + n - s); at K > 1 the samples of
    one question are not independent trials and the prior goes on the population mean of the
    Beta-Binomial hierarchy (``rate_model`` says which).

    Parameters
    ----------
    {input}
    prior : str, (a, b), dict or BetaPrior, default "uniform"
        Prior of every model's rate: ``"uniform"`` (Beta(1, 1)), ``"jeffreys"``
        (Beta(1/2, 1/2)), ``"a,b"``, ``"mean=M,sd=S"`` (needs 0 < M < 1 and S^2 < M (1 - M)).
        Each row reports its weight ``prior_weight`` (a + b) and ``p_value_prior``, the
        prior-predictive p-value of the observed count; below 0.01 (a prior with a or b > 1)
        a warning says the prior and the data disagree.
    priors : path, DataFrame or dict, optional
        Per-model priors: a table with columns ``model,a,b`` or ``model,mean,sd`` (a CSV path
        or a DataFrame) or a dict model -> prior; other models take ``prior``.
    target : float, optional
        p0: adds ``prob_rate_above`` (posterior P(rate > p0)) and, beside it, the frequentist
        test of H0: rate <= p0 (with ``alternative="greater"``); on one model (a one-model
        file, or ``models=``) also ``attrs["verdict"]``: one line with the row's rate, its
        credible interval, ``prob_rate_above`` and the test's p-value.
    confidence_level : float, default 0.95
        Level of the credible and frequentist intervals.
    by : {{"model", "pair"}}, default "model"
        ``"pair"``: every pair A - B, P(rate_A > rate_B) and the paired test.
    alternative : {{"greater", "less", "two-sided"}}, default "greater"
        Side of the frequentist tests and of their intervals (``rate_exact``, ``rate_t``).
    progress : bool, default True

    Returns
    -------
    xarray.Dataset
        Dim ``model``: ``questions, samples_per_question, successes, trials, accuracy,
        rate_model, prior_a, prior_b, prior_weight, p_value_prior, rate, rate_sd, rate_var,
        rate_low/high,
        rate_hpd_low/high``; with ``target``: ``target, prob_rate_above`` and at K = 1
        ``p_value_binomial, z_rate, p_value_score, lr_statistic, p_value_lr``; at K = 1
        ``rate_exact_low/high`` (Clopper-Pearson), at K > 1 ``p_value_t, rate_t_low/high``.
        Dim ``pair`` with ``by="pair"``. ``attrs`` say how scores were thresholded and which
        model the prior is on.

    Examples
    --------
    >>> import numpy as np, bayesnoise as bn
    >>> scores = np.array([[0.91, 0.42, 0.77, 0.88, 0.95, 0.60]])
    >>> r = bn.rate(scores, threshold=0.75, prior="mean=0.6,sd=0.2", target=0.5)
    >>> int(r["successes"][0]), round(float(r["rate"][0]), 4)
    (4, 0.6364)
    >>> r.attrs["threshold_note"]
    'scores >= 0.75 count as success (threshold 0.75, success above)'
    """
    from bayesnoise.decide.rate import rate_pairs_table, rate_table

    _check("rate", by, alternative, target, confidence_level)
    ds = dataset(data, progress=progress, **read)
    table_priors = _priors(ds, prior, priors)
    if by == "pair":
        if ds.sizes["model"] < 2:
            raise DataError(
                f"{ds.attrs.get('source', 'the input')}: by='pair' needs at least two models; "
                f"it has one: {ds['model'].values[0]}"
            )
        df = rate_pairs_table(
            ds, table_priors, confidence_level=confidence_level, alternative=alternative
        )
        return to_result(df, "pair")
    df = rate_table(
        ds,
        table_priors,
        target=target,
        confidence_level=confidence_level,
        alternative=alternative,
    )
    out = to_result(df, "model")
    if target is not None and len(df) == 1:  # one model against the target: its sentence
        from bayesnoise.decide.verdicts import rate_sentence

        row = df.iloc[0]
        text = rate_sentence(row, confidence_level=confidence_level, alternative=alternative)
        out.attrs["verdict"] = text
    return out


def parse_grid(grid) -> np.ndarray:
    """Thresholds from ``"start:stop:step"`` (stop included), ``"t1,t2,..."`` or numbers.

    Examples
    --------
    >>> parse_grid("0.5:0.95:0.05").round(2).tolist()[-2:]
    [0.9, 0.95]
    >>> parse_grid("0.3,0.6").tolist()
    [0.3, 0.6]
    """
    if isinstance(grid, str):
        text = grid.strip()
        try:
            if ":" in text:
                start, stop, step = (float(v) for v in text.split(":"))
                if not step > 0 or stop < start:
                    raise ValueError
                n = int(np.floor((stop - start) / step + 1e-9)) + 1
                values = np.round(start + step * np.arange(n), 12)
            else:
                values = np.array([float(v) for v in text.split(",") if v.strip()])
        except ValueError:
            raise DataError(
                f"grid: cannot read {grid!r}; use start:stop:step (stop included, step > 0) "
                "or a comma-separated list"
            ) from None
    else:
        values = np.atleast_1d(np.asarray(grid, dtype=float))
    if values.size == 0 or not np.all(np.isfinite(values)):
        raise DataError(f"grid: needs at least one finite threshold, got {grid!r}")
    return np.unique(values)


def threshold(
    data,
    *,
    grid,
    prior="uniform",
    priors=None,
    target=None,
    confidence_level=0.95,
    progress=True,
    **read,
):
    """Each model's success rate at each threshold of a grid (``bayesnoise threshold``).

    At every threshold ``T`` of ``grid`` the scores become success (``score >= T``, or
    ``<= T`` with ``success="below"``) and :func:`rate` runs on them: the numbers at ``T``
    are those of ``rate(data, threshold=T, ...)``. It shows how much the ranking depends on
    where the line is drawn. Models are in the order of their mean (unthresholded) score.
    Each sample's score is thresholded before a question's samples are summed: a table or
    log with several different graded samples per question is read once per threshold.

    Parameters
    ----------
    {input}
    grid : str or sequence of float
        ``"start:stop:step"`` (stop included), ``"0.5,0.7,0.9"`` or numbers, each inside the
        scores' range.
    prior, priors, target, confidence_level
        As in :func:`rate`.
    progress : bool, default True

    Returns
    -------
    xarray.Dataset
        Dims ``(model, threshold)``: ``successes, trials, accuracy, prior_weight,
        p_value_prior, rate, rate_low, rate_high`` (and ``prob_rate_above`` with ``target``).

    Examples
    --------
    >>> import numpy as np, bayesnoise as bn
    >>> scores = np.array([[0.91, 0.42, 0.77, 0.88], [0.55, 0.81, 0.93, 0.7]])
    >>> r = bn.threshold(scores, grid="0.5:0.9:0.2")
    >>> r["rate"].sizes, r["threshold"].values.round(2).tolist()
    (Frozen({{'model': 2, 'threshold': 3}}), [0.5, 0.7, 0.9])
    """
    import xarray as xr

    from bayesnoise.data import summed_graded, threshold_dataset
    from bayesnoise.decide.rate import PRIOR_CONFLICT_TEXT, rate_table

    if read.get("threshold") is not None:
        raise DataError("threshold sweeps grid=; leave threshold= (--threshold) out")
    read.pop("threshold", None)
    success = read.pop("success", "above")
    values = parse_grid(grid)
    base = dataset(data, progress=progress, **read)  # models in the order of the mean score
    # Cells of K > 1 different graded scores: each threshold reads the per-sample scores
    # again (one sum per cell cannot be thresholded); else the sums are thresholded.
    reread = isinstance(data, np.ndarray | xr.DataArray) or (
        not isinstance(data, xr.Dataset) and summed_graded(base)
    )
    order = base["model"].values
    keep = ["successes", "trials", "accuracy", "prior_weight", "p_value_prior"]
    keep += ["rate", "rate_low", "rate_high"]
    _check("threshold", "model", "greater", target, confidence_level)
    if target is not None:
        keep.append("prob_rate_above")
    parts, notes, conflict_said = [], {}, False
    for t in values:
        if reread:
            ds = dataset(data, progress=progress, threshold=t, success=success, **read)
        else:
            ds = threshold_dataset(base, t, success)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            df = rate_table(
                ds, _priors(ds, prior, priors), target=target, confidence_level=confidence_level
            )
        for w in caught:  # the prior-data warning once, at the first threshold that has it
            if PRIOR_CONFLICT_TEXT in str(w.message):
                if conflict_said:
                    continue
                conflict_said = True
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        notes = df.attrs
        parts.append(to_result(df[["model", *keep]], "model").sel(model=order))
    out = xr.concat(parts, dim=xr.Variable("threshold", values), join="exact")
    out = out.transpose("model", "threshold")
    out["threshold"].attrs.update(
        long_name="threshold",
        description=f"scores {'>=' if success == 'above' else '<='} threshold count as success",
    )
    out.attrs = {
        "columns": ["model", "threshold", *keep],
        "success": success,
        "threshold_note": f"success = score {'>=' if success == 'above' else '<='} threshold",
        "source": notes.get("source", ""),
    }
    return out


fill_docs(rate, threshold)


def exact_coverage(n, p, *, method="wald", prior="uniform", confidence_level=0.95):
    """Exact coverage of an interval method for a binomial rate, enumerating the binomial.

    ``sum_k 1[p in I(k, n)] C(n, k) p^k (1 - p)^(n - k)``: the probability that the interval
    computed from X ~ Binomial(n, p) contains p (ends included), with no simulation error.

    Parameters
    ----------
    n : int or array_like of int
        Sample sizes.
    p : float or array_like
        True rates in [0, 1].
    method : {"wald", "bayes", "bayes-hpd", "clopper-pearson", "wilson"}, default "wald"
        ``wald``: p^ -/+ z sqrt(p^ (1 - p^) / n); ``bayes``: the equal-tailed Beta credible
        interval under ``prior``; ``bayes-hpd``: its highest-density interval;
        ``clopper-pearson`` and ``wilson`` (closed forms, checked against statsmodels in the tests).
    prior : str, (a, b), dict or BetaPrior, default "uniform"
        Prior of the Bayesian methods.
    confidence_level : float, default 0.95

    Returns
    -------
    float or numpy.ndarray
        Shape ``np.shape(n) + np.shape(p)``.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> round(float(bn.exact_coverage(15, 0.025, method="wald")), 4)
    0.3156
    >>> round(float(bn.exact_coverage(15, 0.025, method="bayes")), 4)
    0.9471
    """
    from bayesnoise.decide.exact_coverage import exact_coverage as _exact

    return _exact(n, p, method=method, prior=prior, confidence_level=confidence_level)
