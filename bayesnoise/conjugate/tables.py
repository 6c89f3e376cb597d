"""Thin xarray/pandas wrappers: the per-model and per-pair posterior tables for the CLI."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from bayesnoise.data import DataError

from bayesnoise._common import check_confidence_level
from .hierarchy import finite_sample_posterior, fit_empirical_bayes
from .pairs import all_pairs_difference, population_difference

__all__ = [
    "POSTERIOR_COLUMNS",
    "POSTERIOR_PAIR_COLUMNS",
    "posterior_pairs_table",
    "posterior_table",
]

POSTERIOR_COLUMNS = [
    "model",
    "questions",
    "accuracy",
    "mu",
    "mu_low",
    "mu_high",
    "ubar",
    "ubar_low",
    "ubar_high",
    "kappa",
    "se_data",
    "se_prediction",
]
POSTERIOR_PAIR_COLUMNS = [
    "model_a",
    "model_b",
    "difference",
    "difference_low",
    "difference_high",
    "p_a_better",
    "population_low",
    "population_high",
]

_DRAWS = 1000


def _arrays(ds):
    c = np.asarray(ds["correct"].values, dtype=float)
    k = np.asarray(ds["count"].values, dtype=float)
    if not ds.attrs.get("counts_known", True):
        raise DataError(
            f"{ds.attrs.get('source', 'data')}: the scores are fractional pass1 values without "
            "the number of samples behind them; the Beta-Binomial model needs counts (correct "
            "out of K). Load a count table or per-sample rows, or use the frequentist commands "
            "(noise, pairs), which treat each value as one draw."
        )
    if not ds.attrs.get("binary", True):
        warnings.warn(
            f"{ds.attrs.get('source', 'data')}: sample scores are not all 0/1; the Beta-Binomial "
            "likelihood is used on the summed scores as a quasi-likelihood",
            UserWarning,
            stacklevel=3,
        )
    return c, k


def posterior_table(ds, *, confidence_level: float = 0.95, random_seed=0) -> pd.DataFrame:
    """Per-model posterior under the Beta-Binomial hierarchy (empirical Bayes).

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.data.load` (dims ``model``, ``question``; ``correct``, ``count``).
    confidence_level : float, default 0.95
    random_seed : int, default 0
        Seed of the Monte Carlo draws for the ubar intervals.

    Returns
    -------
    pandas.DataFrame
        Columns ``model, questions, accuracy, mu, mu_low, mu_high, ubar, ubar_low, ubar_high,
        kappa, se_data, se_prediction``:

        - ``questions``: questions the model answered; ``accuracy``: mean of c/K over them;
        - ``mu`` and interval: population accuracy (Laplace, logit scale);
        - ``ubar`` and interval: expected accuracy on *these* questions (posterior mean; interval
          by exact Monte Carlo from the Beta posteriors with (mu, kappa) uncertainty);
        - ``kappa``: fitted concentration (or the value assumed where not identifiable, see
          ``df.attrs["kappa_status"]`` and the warnings);
        - ``se_data = sqrt(mu(1-mu)/(kappa+1)/N)``,
          ``se_prediction = sqrt(mu(1-mu) kappa/(kappa+1)/N)``.

        ``df.attrs`` holds ``kappa_status``, ``notes``, ``draws`` and ``mc_se`` (largest Monte
        Carlo standard error of an interval end).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> k = np.full((2, 60), 5)
    >>> ds = from_arrays(rng.binomial(5, rng.beta(1, 1, (2, 60))), k, models=["a", "b"])
    >>> df = posterior_table(ds)
    >>> list(df.columns)[:4], len(df)
    (['model', 'questions', 'accuracy', 'mu'], 2)
    """
    level = check_confidence_level(confidence_level)
    c, k = _arrays(ds)
    fit = fit_empirical_bayes(c, k, names=ds["model"].values)
    post = finite_sample_posterior(
        c, k, fit, confidence_level=level, draws=_DRAWS, random_seed=random_seed
    )
    mask = k > 0
    n = mask.sum(axis=1)
    acc = np.where(mask, c / np.where(mask, k, 1.0), 0.0).sum(axis=1) / n
    mu_low, mu_high = fit.mu_interval(level)
    v = fit.mu * (1 - fit.mu)
    df = pd.DataFrame(
        {
            "model": ds["model"].values,
            "questions": n.astype(int),
            "accuracy": acc,
            "mu": fit.mu,
            "mu_low": mu_low,
            "mu_high": mu_high,
            "ubar": post.ubar_mean,
            "ubar_low": post.ubar_low,
            "ubar_high": post.ubar_high,
            "kappa": fit.kappa,
            "se_data": np.sqrt(v / (fit.kappa + 1) / n),
            "se_prediction": np.sqrt(v * fit.kappa / (fit.kappa + 1) / n),
        }
    )
    shift = _check_beta_fit(ds, c, k, fit.mu)
    df.attrs.update(
        kappa_status=list(fit.kappa_status),
        notes=list(fit.notes),
        draws=_DRAWS,
        mc_se=float(np.max(post.ubar_mcse)),
        confidence_level=level,
        mu_shift=list(shift),
    )
    return df


# |mu - accuracy| above this many standard errors of the observed accuracy flags a Beta that does
# not fit the questions. Under the model the two estimates of the mean differ by much less
# (simulated, K = 10, mu in [0.05, 0.95], kappa in {0.5, 1, 5}, 400 models each: sd 0.22 SE and
# none above 1 at N = 500; sd 0.31 SE and 1% above 1 at N = 30). On real benchmarks the median
# shift is 0.15-0.5 SE and the largest about 2 SE (lowk cruxeval_output).
_MU_SHIFT_WARN = 1.0


def _check_beta_fit(ds, c, k, mu):
    """Warn where the model-based population accuracy mu drifts from the observed mean.

    The observed accuracy is unbiased for the population accuracy whatever the shape of the
    question difficulties; mu is so only when they follow a Beta. Returns the shift in units of
    the observed accuracy's standard error ``se_mean = sqrt(var_i(p_i) / N)``.
    """
    from bayesnoise.frequentist import _core

    single = _core.model_components(_core.cell_means(c, k), None, k, correction=False)
    with np.errstate(invalid="ignore", divide="ignore"):
        shift = (mu - single["accuracy"]) / np.sqrt(single["var_mean"] / single["questions"])
    off = np.flatnonzero(np.abs(shift) > _MU_SHIFT_WARN)
    if off.size:
        names = ", ".join(f"{ds['model'].values[i]} ({shift[i]:+.1f} SE)" for i in off[:5]) + (
            ", ..." if off.size > 5 else ""
        )
        warnings.warn(
            f"Beta-Binomial mu differs from the observed accuracy by more than "
            f"{_MU_SHIFT_WARN:g} standard error for {off.size} model(s): {names}. The question "
            "difficulties are not Beta-shaped enough for mu to stand for the population "
            "accuracy; its interval is model-based. The frequentist interval accuracy +- z "
            "se_mean (bayesnoise compare) does not depend on that shape.",
            UserWarning,
            stacklevel=3,
        )
    return shift


def posterior_pairs_table(
    ds, *, confidence_level: float = 0.95, random_seed=0, on_missing: str = "raise"
) -> pd.DataFrame:
    """All unordered model pairs: finite-sample and population paired differences.

    Parameters
    ----------
    ds : xarray.Dataset
    confidence_level : float, default 0.95
    random_seed : int, default 0
    on_missing : {"raise", "intersect"}
        Pairs need the same questions (see :func:`bayesnoise.data.complete`).

    Returns
    -------
    pandas.DataFrame
        One row per unordered pair (a before b in the dataset's model order), columns
        ``model_a, model_b, difference, difference_low, difference_high, p_a_better,
        population_low, population_high``:

        - ``difference`` = posterior mean of ``dbar = mean_i (u_Ai - u_Bi)`` on these questions,
          its credible interval and ``p_a_better = P(dbar > 0)`` (Monte Carlo from the
          per-model posteriors, which are independent given the data);
        - ``population_low/high``: interval for the population paired difference
          E_x[u_A - u_B] (Bayesian bootstrap over questions, shared weights for both models,
          so it includes the paired data noise; see
          :func:`bayesnoise.conjugate.population_difference`).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(1, 1, 80)
    >>> c = rng.binomial(5, np.clip([u, u * 0.9, u * 0.8], 0, 1))
    >>> ds = from_arrays(c, np.full(c.shape, 5), models=["a", "b", "c"])
    >>> df = posterior_pairs_table(ds)
    >>> len(df), bool((df["difference_low"] < df["difference_high"]).all())
    (3, True)
    """
    from ..data import complete

    level = check_confidence_level(confidence_level)
    ds = complete(ds, on_missing=on_missing)
    c, k = _arrays(ds)
    if c.shape[0] < 2:
        raise ValueError("need at least two models for pairs")
    fit = fit_empirical_bayes(c, k, names=ds["model"].values)
    seed_post, seed_pop = np.random.SeedSequence(random_seed).spawn(2)
    post = finite_sample_posterior(
        c,
        k,
        fit,
        confidence_level=level,
        draws=_DRAWS,
        random_seed=np.random.default_rng(seed_post),
        keep_draws=True,
    )
    pairs = all_pairs_difference(
        post.ubar_mean, post.ubar_sd**2, post.ubar_draws, confidence_level=level
    )
    pop = population_difference(
        c / k, confidence_level=level, draws=4000, random_seed=np.random.default_rng(seed_pop)
    )
    names = ds["model"].values
    ia, ib = np.triu_indices(len(names), k=1)
    df = pd.DataFrame(
        {
            "model_a": names[ia],
            "model_b": names[ib],
            "difference": pairs["mean"][ia, ib],
            "difference_low": pairs["low"][ia, ib],
            "difference_high": pairs["high"][ia, ib],
            "p_a_better": pairs["p_a_better"][ia, ib],
            "population_low": pop["low"][ia, ib],
            "population_high": pop["high"][ia, ib],
        }
    )
    df.attrs.update(
        questions=int(c.shape[1]),
        kappa_status=list(fit.kappa_status),
        notes=list(fit.notes),
        draws=_DRAWS,
        confidence_level=level,
    )
    return df
