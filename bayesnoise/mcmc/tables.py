"""Per-model and per-pair posterior tables from MCMC, with the conjugate tables' columns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from bayesnoise._common import (
    check_confidence_level,
    new_spellings,
    pair_table,
    reject_old,
    tail_probabilities,
)
from bayesnoise.data import DataError

from .builders import joint_model, marginal_model
from .diagnostics import check_convergence, default_var_names
from .fit import fit, save_fit

__all__ = ["pairs_table_from_fit", "posterior_table_from_fit", "posterior_table_mcmc"]

_SAMPLE = ("chain", "draw")


def _interval(da, confidence_level: float):
    q = da.quantile(list(tail_probabilities(confidence_level)), dim=list(_SAMPLE))
    return q.isel(quantile=0).values, q.isel(quantile=1).values


def posterior_table_from_fit(tree, *, confidence_level: float = 0.95) -> pd.DataFrame:
    """Per-model table (conjugate ``posterior_table`` columns) from a marginal or latent fit.

    Parameters
    ----------
    tree : xarray.DataTree
        From ``fit(marginal_model(...))`` (or the latent model).
    confidence_level : float, default 0.95
        Equal-tailed credible intervals.

    Returns
    -------
    pandas.DataFrame
        Columns ``model, questions, accuracy, mu_beta, mu_beta_low, mu_beta_high, ubar_mcmc,
        ubar_mcmc_low, ubar_mcmc_high, ubar_prior, kappa_median_mcmc, kappa_status, se_data_mcmc,
        se_prediction_mcmc``: ``questions`` answered and observed ``accuracy`` (mean of c/K
        over them); posterior means and intervals of ``mu_beta`` (the mean of the Beta
        population of question accuracies: not the closed form's shape-free ``mu``, and apart
        from it when the difficulties are not Beta-shaped) and ``ubar_mcmc`` (expected accuracy
        on these questions, the MCMC check of ``ubar`` where ``ubar_prior`` is ``beta``: the
        MCMC models have a Beta population. At K = 1 (``kappa_status`` ``not identified
        (K = 1): prior``) ``ubar_mcmc`` is the kappa-dependent interval, kappa drawn from its
        prior: it checks the conjugate ``ubar_prior="beta"`` interval, not the default
        ``binomial bound (K = 1)`` one, and is calibrated only where the true kappa sits near
        that prior); the posterior *median*
        ``kappa_median_mcmc`` (its posterior is right-skewed); ``se_data_mcmc = sqrt(E[data_var] / N)``
        and ``se_prediction_mcmc = sqrt(E[prediction_var] / N)`` with the posterior means of the
        population variances ``mu(1-mu)/(kappa+1)`` and ``mu(1-mu)kappa/(kappa+1)``, left
        empty where ``kappa_status`` says kappa is not identified (fewer than 2 questions
        answered more than once: the split would only restate the prior).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.mcmc import fit, marginal_model, posterior_table_from_fit
    >>> rng = np.random.default_rng(0)
    >>> c = rng.binomial(5, rng.beta(1, 1, (2, 80)))
    >>> tree = fit(marginal_model(c, 5, models=["a", "b"]), draws=100, tune=100,
    ...            chains=1, progress=False, check=False)
    >>> posterior_table_from_fit(tree)["model"].tolist()
    ['a', 'b']
    """
    level = check_confidence_level(confidence_level)
    post = tree["posterior"].to_dataset()
    obs = tree["observed_data"].to_dataset()
    if "ubar" not in post:
        raise ValueError("the fit has no ubar: fit a marginal or latent model with derived=True")
    c = obs["correct"].values.astype(float)
    k = obs["count"].values.astype(float)
    mask = k > 0
    n = mask.sum(axis=1)
    acc = np.where(mask, c / np.where(mask, k, 1.0), 0.0).sum(axis=1) / n
    mu_low, mu_high = _interval(post["mu"], level)
    ubar_low, ubar_high = _interval(post["ubar"], level)
    # kappa is identified only through questions answered more than once: otherwise its
    # posterior is its prior, and the data / prediction split would only restate that prior.
    identified = ((k > 1) & mask).sum(axis=1) >= 2
    status = np.where(identified, "estimated", "not identified (K = 1): prior")
    se_data = np.sqrt(post["data_var"].mean(_SAMPLE).values / n)
    se_prediction = np.sqrt(post["prediction_var"].mean(_SAMPLE).values / n)
    df = pd.DataFrame(
        {
            "model": post["model"].values.astype(str),
            "questions": n.astype(int),
            "accuracy": acc,
            "mu_beta": post["mu"].mean(_SAMPLE).values,
            "mu_beta_low": mu_low,
            "mu_beta_high": mu_high,
            "ubar_mcmc": post["ubar"].mean(_SAMPLE).values,
            "ubar_mcmc_low": ubar_low,
            "ubar_mcmc_high": ubar_high,
            "ubar_prior": "beta",
            "kappa_median_mcmc": post["kappa"].median(_SAMPLE).values,
            "kappa_status": status,
            "se_data_mcmc": np.where(identified, se_data, np.nan),
            "se_prediction_mcmc": np.where(identified, se_prediction, np.nan),
        }
    )
    df.attrs.update(_fit_attrs(tree, level))
    return df


def pairs_table_from_fit(tree, *, confidence_level: float = 0.95) -> pd.DataFrame:
    """Per-pair table (conjugate ``posterior_pairs_table`` columns) from a joint-model fit.

    Parameters
    ----------
    tree : xarray.DataTree
        From ``fit(joint_model(...))`` with ``derived=True``.
    confidence_level : float, default 0.95

    Returns
    -------
    pandas.DataFrame
        One row per unordered pair (a before b in model order): ``dbar_mcmc`` = posterior
        mean of ``dbar = mean_i(u_ai - u_bi)`` over the questions both answered, its
        equal-tailed interval, ``prob_a_better_mcmc = P(dbar > 0)`` (these questions), and
        ``mu_beta_difference`` with its interval and ``prob_a_better_beta = P(mu_a - mu_b > 0)``:
        the difference of the two Beta population means (paired data noise included through
        the shared question difficulties). The names carry ``_mcmc`` / ``beta`` because the
        numbers come from another method (``dbar_mcmc`` checks the closed-form ``dbar``) or
        estimate another quantity (``mu_beta`` is the Beta population's mean, the closed
        form's ``mu`` the shape-free mean per-question score).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.mcmc import fit, joint_model, pairs_table_from_fit
    >>> rng = np.random.default_rng(0)
    >>> c = rng.binomial(5, rng.beta(1, 1, (3, 60)))
    >>> tree = fit(joint_model(c, 5), draws=100, tune=100, chains=1,
    ...            progress=False, check=False)
    >>> len(pairs_table_from_fit(tree))
    3
    """
    level = check_confidence_level(confidence_level)
    post = tree["posterior"].to_dataset()
    if "dbar" not in post:
        raise ValueError("the fit has no dbar: fit a joint model with derived=True")
    names = post["model"].values.astype(str)
    if len(names) < 2:
        raise DataError("need at least two models for pairs")
    # draws of the (model_a, model_b) matrices, shape (S, M, M)
    dbar = post["dbar"].transpose(*_SAMPLE, "model_a", "model_b").values
    pop = post["population_difference"].transpose(*_SAMPLE, "model_a", "model_b").values
    dbar = dbar.reshape(-1, *dbar.shape[2:])
    pop = pop.reshape(-1, *pop.shape[2:])
    qs = list(tail_probabilities(level))
    d_q = np.quantile(dbar, qs, axis=0)
    p_q = np.quantile(pop, qs, axis=0)
    matrices = {
        "dbar_mcmc": dbar.mean(axis=0),
        "dbar_mcmc_low": d_q[0],
        "dbar_mcmc_high": d_q[1],
        "prob_a_better_mcmc": (dbar > 0).mean(axis=0),
        "mu_beta_difference": pop.mean(axis=0),
        "mu_beta_difference_low": p_q[0],
        "mu_beta_difference_high": p_q[1],
        "prob_a_better_beta": (pop > 0).mean(axis=0),
    }
    df = pair_table(names, matrices)
    df.attrs.update(_fit_attrs(tree, level))
    return df


def _fit_attrs(tree, confidence_level: float) -> dict:
    kind = tree.attrs.get("bayesnoise_model", "marginal")
    report = check_convergence(tree, default_var_names(kind), warn=False)
    return {
        "confidence_level": confidence_level,
        "method": "mcmc",
        "model": kind,
        "sampler": tree.attrs.get("sampler"),
        "draws": int(tree["posterior"].sizes["draw"]),
        "chains": int(tree["posterior"].sizes["chain"]),
        "converged": report.ok,
        "divergences": report.divergences,
        "diagnostics": report.message(),
    }


@new_spellings
def posterior_table_mcmc(
    ds,
    *,
    by: str = "model",
    confidence_level: float = 0.95,
    sampler: str = "auto",
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 2,
    rng: int = 0,
    save: str | Path | None = None,
    progress: bool = True,
    **old,
) -> pd.DataFrame:
    """Full-Bayes posterior tables by MCMC (what ``bayesnoise posterior --method mcmc`` prints).

    Per model (``by="model"``) the marginal Beta-Binomial model of all models at once
    (:func:`marginal_model`, default priors), with the same columns as
    :func:`bayesnoise.conjugate.posterior_table`; per pair (``by="pair"``) the joint model
    (:func:`joint_model`), with the columns of
    :func:`bayesnoise.conjugate.posterior_pairs_table`. Convergence problems are warned about
    (:class:`ConvergenceWarning`) and recorded in ``df.attrs``.

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.data.load`.
    by : {"model", "pair"}, default "model"
        The per-model table, or the per-pair table from the joint model.
    confidence_level : float, default 0.95
    sampler : {"auto", "pymc", "nutpie", "numpyro"}, default "auto"
    draws, tune, chains, rng, progress
        Passed to :func:`fit`.
    save : path, optional
        Also write the fit to this NetCDF file (:func:`save_fit`; read it back with
        :func:`load_fit`).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from bayesnoise.mcmc import posterior_table_mcmc
    >>> rng = np.random.default_rng(0)
    >>> c = rng.binomial(5, rng.beta(1, 1, (2, 80))).astype(float)
    >>> ds = xr.Dataset({"correct": (("model", "question"), c),
    ...                  "samples": (("model", "question"), np.full((2, 80), 5))},
    ...                 coords={"model": ["a", "b"]})
    >>> df = posterior_table_mcmc(ds, draws=100, tune=100, chains=1, progress=False)
    >>> list(df.columns[:4])
    ['model', 'questions', 'accuracy', 'mu_beta']
    """
    reject_old("posterior_table_mcmc", old)
    level = check_confidence_level(confidence_level)
    if by not in ("model", "pair"):
        raise ValueError(f"by must be 'model' or 'pair', got {by!r}")
    pairs = by == "pair"
    if pairs and ds.sizes.get("model", 0) < 2:
        raise DataError("need at least two models for pairs")
    builder = joint_model if pairs else marginal_model
    tree = fit(
        builder(ds),
        sampler=sampler,
        draws=draws,
        tune=tune,
        chains=chains,
        rng=rng,
        progress=progress,
    )
    if save is not None:
        save_fit(tree, save)
    if pairs:
        return pairs_table_from_fit(tree, confidence_level=level)
    return posterior_table_from_fit(tree, confidence_level=level)
