"""Thin xarray/pandas wrappers: the per-model and per-pair posterior tables of a dataset."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from bayesnoise._common import (
    check_confidence_level,
    new_spellings,
    one_line,
    pair_table,
    reject_old,
    see_warnings,
    seed_of,
)
from bayesnoise._progress import Progress
from bayesnoise.data import DataError, attr, beta_binomial_counts, complete, is_chunked

from .dirichlet import population_accuracy
from .empirical_bayes import fit_empirical_bayes
from .k1 import BINOMIAL, bound_models
from .pairs import all_pairs_difference, population_difference
from .posterior import population_variances
from .ubar_prior import ubar_posterior

__all__ = [
    "posterior_pairs_given",
    "posterior_pairs_table",
    "posterior_rows",
    "posterior_table",
    "posterior_table_with_fits",
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
    "ubar_prior",
    "kappa_median",
    "kappa_status",
    "se_data_bayes",
    "se_prediction_bayes",
]
POSTERIOR_PAIR_COLUMNS = [
    "model_a",
    "model_b",
    "dbar",
    "dbar_low",
    "dbar_high",
    "prob_a_better",
    "dbar_method",
    "mu_difference",
    "mu_difference_low",
    "mu_difference_high",
    "prob_a_better_population",
]

# Monte Carlo draws behind the ubar / dbar intervals: at 1,000 the width of a 95% interval
# moved by +-4% between seeds (sd over 6 seeds, lowk_temp1 human_eval_plus), enough to put
# closed-form widths 0.91-1.10 times the MCMC ones from noise alone; at 4,000 0.95-1.06
# (studies/kappa_floor.py), at 3.5x the CPU of the table (0.28 -> 1.0 s for 51 models)
_DRAWS = 4000


@new_spellings
def posterior_table(
    ds,
    *,
    confidence_level: float = 0.95,
    kappa=None,
    rng=0,
    progress: bool = True,
    ubar_prior: str = "auto",
    **old,
) -> pd.DataFrame:
    """Per-model posterior under the Beta-Binomial hierarchy ((mu, kappa) integrated out).

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset (dims ``model``, ``question``; ``correct``, ``samples``) of whole numbers
        correct out of K samples (fractional scores are refused with
        :class:`bayesnoise.data.DataError`).
    confidence_level : float, default 0.95
    kappa : float, optional
        Assume kappa for every model (e.g. 1 for the Beta(p, 1-p) theory) instead of
        integrating over its posterior (see :func:`fit_empirical_bayes`).
    rng : int or numpy.random.Generator, default 0
        Seed of the Monte Carlo draws for the ubar intervals.
    progress : bool, default True
        Show the steps on standard error once the run passes a second.
    ubar_prior : {"auto", "beta", "nonparametric", "binomial"}, default "auto"
        Prior of the question accuracies behind ``ubar``: ``"auto"`` keeps the fitted Beta
        population where it fits and uses a nonparametric prior (the NPMLE of the accuracy
        distribution, with a posterior on its atoms) where a likelihood-ratio test rejects the
        Beta (see :mod:`bayesnoise.conjugate.ubar_prior`), and for a model with one sample per
        question (K = 1, kappa not identified) the binomial bound, which does not depend on
        kappa (:mod:`bayesnoise.conjugate.k1`); ``"beta"`` or ``"nonparametric"`` for every
        model (``"beta"`` keeps the kappa-dependent interval at K = 1, kappa integrated over
        its prior; ``"nonparametric"`` gives the K = 1 models the bound); ``"binomial"``
        the bound, for data with K = 1 on every question (else
        :class:`~bayesnoise.data.DataError`).

    Returns
    -------
    pandas.DataFrame
        Columns ``model, questions, accuracy, mu, mu_low, mu_high, ubar, ubar_low, ubar_high,
        ubar_prior, kappa, kappa_status, se_data_bayes, se_prediction_bayes``:

        - ``questions``: questions the model answered; ``accuracy``: mean of c/K over them;
        - ``mu`` and interval: population accuracy (posterior mean and equal-tailed
          interval of the Dirichlet-process posterior of the mean per-question score, which
          does not depend on the shape of the question difficulties, see
          :func:`bayesnoise.conjugate.population_accuracy`);
        - ``ubar`` and interval: expected accuracy on *these* questions (posterior mean; interval
          by Monte Carlo with (mu, kappa) drawn from their posterior, see
          :func:`bayesnoise.conjugate.ubar.ubar_draws`). With K = 1 the data say nothing
          about kappa (how alike the questions are), and by default the interval is the
          binomial bound ``Beta(c + 1/2, N - c + 1/2)`` (the Jeffreys interval), which holds
          whatever kappa: it covered 0.94-0.95 where the questions are alike and up to 1.00
          where they are not (u near 0 or 1), 1.2-1.4 times as wide as the kappa-dependent
          interval: the price of not knowing kappa (see
          :mod:`bayesnoise.conjugate.k1`); ``ubar_prior="beta"`` gives the kappa-dependent
          interval instead (kappa over its LogNormal prior, median 1: at N = 100-500 it
          covered 0.96 at a true kappa of 1, 0.88-0.90 at 5, 0.83-0.85 at 100, 0.99 at 0.5);
        - ``ubar_prior``: ``binomial bound (K = 1)`` (see above), ``beta`` (the fitted Beta
          population, (mu, kappa) integrated) or ``nonparametric`` (the NPMLE's atoms, their
          locations and weights given a posterior,
          where the Beta population is rejected at the 1% level, e.g. clusters of easy and
          broken questions, which the Beta shrinks towards the wrong values; with 95% of the
          questions at u = 0.95 and 5% at 0.01, K = 20, the Beta interval covered 0.555 at
          N = 500 and 0.037 at N = 2,000, this one 0.94);
        - ``kappa_median``: posterior median of the concentration (the given value when assumed);
        - ``kappa_status``: ``estimated``, ``at lower bound`` / ``at upper bound`` (the
          likelihood keeps rising towards that edge; intervals still integrate over kappa),
          ``not identified (K = 1): prior`` (or ``(1 question)``), ``assumed``;
        - ``se_data_bayes = sqrt(mu(1-mu)/(kappa+1)/N)``,
          ``se_prediction_bayes = sqrt(mu(1-mu) kappa/(kappa+1)/N)`` at the posterior medians of
          the Beta-Binomial (mu, kappa); NaN where kappa is not identified (they would only
          restate its prior).

        ``df.attrs`` holds ``kappa_status``, ``notes``, ``draws``, ``mc_se`` (largest Monte
        Carlo standard error of an interval end), ``confidence_level``, ``mu_shift``
        (the Beta-Binomial mu minus the accuracy in standard errors of the accuracy; NaN where
        every question has the same score, so that standard error is 0), ``ubar_prior``,
        ``beta_fit_lr`` and ``beta_fit_threshold`` (the likelihood-ratio statistic of the
        Beta population against the NPMLE and its 1% critical value, NaN where not tested).

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
    reject_old("posterior_table", old)
    from .chunked import posterior_table_chunked

    if is_chunked(ds):  # Dask-backed: one block of models at a time
        kw = {"kappa": kappa, "rng": rng, "progress": progress}
        kw["ubar_prior"] = ubar_prior
        return posterior_table_chunked(ds, confidence_level=confidence_level, **kw)
    level = check_confidence_level(confidence_level)
    return posterior_table_with_fits(ds, level, kappa, rng, progress, ubar_prior)[0]


def posterior_table_with_fits(ds, confidence_level, kappa, rng, progress, ubar_prior):
    """:func:`posterior_table` of an in-memory dataset, with the fit and the ubar posterior it
    used (``(df, fit, post)``: the coverage check hands them on to its pair step)."""
    level = confidence_level
    bar = Progress("bayesnoise posterior", enabled=progress)
    c, k = beta_binomial_counts(ds)
    names = ds["model"].values
    bar.step("fitting (mu, kappa)")
    fit = fit_empirical_bayes(c, k, kappa=kappa, names=names)
    bar.step("ubar posteriors")
    gen = np.random.default_rng(rng)
    post = _ubar_posterior(c, k, fit, level, gen, ubar_prior=ubar_prior, names=names, ds=ds)
    mask = k > 0
    n = mask.sum(axis=1)
    p = np.where(mask, c / np.where(mask, k, 1.0), 0.0)
    acc = p.sum(axis=1) / n
    pop = population_accuracy(c, k, confidence_level=level, rng=rng)
    data_var, prediction_var = population_variances(fit.mu, fit.kappa)
    unknown = np.char.startswith(fit.kappa_status.astype(str), "not identified")
    df = pd.DataFrame(
        {
            "model": names,
            "questions": n.astype(int),
            "accuracy": acc,
            "mu": pop["mean"],  # posterior mean (exact), like mu_difference
            "mu_low": pop["low"],
            "mu_high": pop["high"],
            "ubar": post["cumulants"][0],
            "ubar_low": post["low"],
            "ubar_high": post["high"],
            "ubar_prior": post["prior"],
            "kappa_median": fit.kappa,
            "kappa_status": fit.kappa_status,
            "se_data_bayes": np.where(unknown, np.nan, np.sqrt(data_var / n)),
            "se_prediction_bayes": np.where(unknown, np.nan, np.sqrt(prediction_var / n)),
        }
    )
    shift = _mu_shift(names, p, mask, acc, fit.mu)
    df.attrs.update(
        kappa_status=list(fit.kappa_status),
        notes=list(fit.notes),
        draws=_DRAWS,
        mc_se=float(np.max(post["mcse"])),
        confidence_level=level,
        mu_shift=list(shift),
        ubar_prior=list(post["prior"]),
        beta_fit_lr=list(post["lr"]),
        beta_fit_threshold=list(post["threshold"]),
    )
    bar.close()
    return df, fit, post


def _ubar_posterior(c, k, fit, confidence_level, rng, *, ubar_prior="auto", names=None, ds=None):
    """ubar per model (:func:`~bayesnoise.conjugate.ubar_prior.ubar_posterior`): exact
    cumulants 1-4 and interval ends from draws with their MC error, under the Beta population
    ((mu, kappa) integrated, :func:`~bayesnoise.conjugate.ubar.ubar_draws`), where the Beta
    is rejected the nonparametric prior, at K = 1 the binomial bound
    (:mod:`bayesnoise.conjugate.k1`)."""
    if ubar_prior == "binomial":  # checked here to name the models and the file
        bad = np.flatnonzero(~bound_models(k, fit))
        if bad.size:
            source = "the input" if ds is None else attr(ds, "source")
            listed = ", ".join(str(names[i]) for i in bad[:5]) if names is not None else ""
            raise DataError(
                f"{source}: ubar_prior 'binomial' is the K = 1 bound, but {bad.size} model(s) "
                f"({listed}) have a question with K >= 2 samples or an assumed kappa: use "
                "'auto' (it picks the bound for the K = 1 models)"
            )
    return ubar_posterior(
        c, k, fit, confidence_level, rng, n_resamples=_DRAWS, ubar_prior=ubar_prior
    )


# |mu - accuracy| above this many standard errors of the observed accuracy flags a Beta that does
# not fit the questions. Under the model the two estimates of the mean differ by much less
# (simulated, K = 10, mu in [0.05, 0.95], kappa in {0.5, 1, 5}, 400 models each: sd 0.22 SE and
# none above 1 at N = 500; sd 0.31 SE and 1% above 1 at N = 30). On real benchmarks the median
# shift is 0.15-0.5 SE and the largest about 2 SE (lowk cruxeval_output).
_MU_SHIFT_WARN = 1.0


def _mu_shift(names, p, mask, acc, mu):
    """Warn where the Beta-Binomial mean of the fit drifts from the observed mean.

    The observed accuracy is unbiased for the population accuracy whatever the shape of the
    question difficulties; the Beta-Binomial mean is so only when they follow a Beta (the
    ``mu`` column does not use it). Returns the shift in units of
    the observed accuracy's standard error ``se_mean = sqrt(var_i(p_i) / N)``; NaN where that
    standard error is 0 (every question has the same score: the fit's notes say what that
    leaves unidentified).
    """
    n = mask.sum(axis=1)
    centred = np.where(mask, p - acc[:, None], 0.0)
    se_mean = np.sqrt((centred * centred).sum(axis=1) / n / n)
    ok = se_mean > 0
    shift = np.full(acc.shape, np.nan)
    shift[ok] = (mu[ok] - acc[ok]) / se_mean[ok]
    off = np.flatnonzero(ok & (np.abs(np.where(ok, shift, 0.0)) > _MU_SHIFT_WARN))
    if off.size:
        text = (
            f"Beta population mean is > {_MU_SHIFT_WARN:g} SE from the accuracy for {{who}}: "
            f"kappa, se_*_bayes assume Beta-shaped difficulties, mu does not; "
            f"{see_warnings('beta-shape')}"
        )
        warnings.warn(  # one line; the long story is in the docs page it names
            one_line(text, [f"{names[i]} {shift[i]:+.1f} SE" for i in off]),
            UserWarning,
            stacklevel=3,
        )
    return shift


#: ``dbar_method``: where a pair's these-questions answer (dbar, its interval, prob_a_better)
#: comes from.
DBAR_METHODS = {
    "posterior": "posterior",  # the two models' ubar posteriors (each under its ubar_prior)
    "binomial": BINOMIAL,
    "population": "population interval (K = 1)",
}


def _k1_here(pairs, pop, bound):
    """The these-questions answer of every pair: the models' posteriors, or at K = 1 the
    narrower of the binomial bound and the population answer.

    With one sample per question the binomial bound (each model's Jeffreys posterior, kappa
    free) is valid whatever the difficulties, but it ignores the pairing: on real difficulty
    shapes (``studies/k1_difference.py``, human_eval_plus, math500 and AIME pools, N = 30-500)
    it was 1.13-1.33x the paired t width on close pairs, 1.31-1.56x for a model against
    itself, and covered 0.985-0.998. The population interval (``mu_difference``) is valid for these
    questions too: the these-questions error of the observed difference is its prediction
    noise, whose variance is at most the total variance the population interval allows for.
    So a pair with a K = 1 model takes whichever of the two is narrower, with its
    ``prob_a_better``, and ``dbar_method`` says which (``DBAR_METHODS``).
    """
    k1 = bound[:, None] | bound[None, :]
    use_pop = k1 & ((pop["high"] - pop["low"]) < (pairs["high"] - pairs["low"]))
    out = {key: np.where(use_pop, pop[key], pairs[key]) for key in ("mean", "low", "high")} | {
        "prob_a_better": np.where(use_pop, pop["prob_a_better"], pairs["prob_a_better"])
    }
    method = np.where(
        use_pop,
        DBAR_METHODS["population"],
        np.where(k1, DBAR_METHODS["binomial"], DBAR_METHODS["posterior"]),
    ).astype(object)
    return out, method


@new_spellings
def posterior_pairs_table(
    ds,
    *,
    confidence_level: float = 0.95,
    kappa=None,
    rng=0,
    on_missing: str = "raise",
    progress: bool = True,
    ubar_prior: str = "auto",
    **old,
) -> pd.DataFrame:
    """All unordered model pairs: finite-sample and population paired differences.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of whole numbers correct out of K samples (as for :func:`posterior_table`).
    confidence_level : float, default 0.95
    kappa : float, optional
        Assume kappa for every model (see :func:`fit_empirical_bayes`).
    rng : int or numpy.random.Generator, default 0
        Seed of the Monte Carlo draws and of the Dirichlet draws.
    on_missing : {"raise", "intersect"}, default "raise"
        Pairs need the same questions (see :func:`bayesnoise.data.complete`).
    progress : bool, default True
        Show the steps on standard error once the run passes a second.
    ubar_prior : {"auto", "beta", "nonparametric", "binomial"}, default "auto"
        The prior of each model's question accuracies behind ``dbar`` (as for
        :func:`posterior_table`; ``df.attrs["ubar_prior"]`` says which each model got). At
        K = 1 ``"auto"`` gives each model the kappa-free binomial bound, so ``dbar`` is the
        difference of two independent Jeffreys posteriors: given the questions the two
        models' samples are independent and ``Var(dbar_hat | u) <= [ubar_A (1 - ubar_A) +
        ubar_B (1 - ubar_B)] / N`` whatever kappa and however the models' difficulties
        correlate, so the interval and ``prob_a_better`` hold for every difficulty shape
        (conservative where the questions are far from alike, see
        :mod:`bayesnoise.conjugate.k1`).

    Returns
    -------
    pandas.DataFrame
        One row per unordered pair (a before b in the dataset's model order), columns
        ``model_a, model_b, dbar, dbar_low, dbar_high, prob_a_better, dbar_method,
        mu_difference, mu_difference_low, mu_difference_high, prob_a_better_population``:

        - ``dbar`` = posterior mean of ``dbar = mean_i (u_Ai - u_Bi)`` on *these*
          questions, its credible interval and ``prob_a_better = P(dbar > 0)`` (Monte Carlo from
          the per-model posteriors of :func:`posterior_table`, each under its own
          ``ubar_prior``, which are independent given the data: their exact first
          four cumulants give the Cornish-Fisher interval and the Edgeworth probability of
          every pair at once, Monte Carlo with shared per-model draws where the difference is
          too skewed for that, see :func:`bayesnoise.conjugate.all_pairs_difference`); for a
          pair with a K = 1 model, the narrower of that (the binomial bound) and the
          population answer below, which is valid for these questions too; ``dbar_method``
          says which (``posterior``, ``binomial bound (K = 1)``,
          ``population interval (K = 1)``; see :func:`_k1_here`);
        - ``mu_difference`` = posterior mean of the population paired difference
          E_x[u_A - u_B], its interval and ``prob_a_better_population`` = P(population difference
          > 0) (Dirichlet-process posterior over the per-question differences with two prior
          atoms at -1 and +1, so it includes the paired data noise and does not collapse when
          few questions differ; see :func:`bayesnoise.conjugate.population_difference`).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(1, 1, 80)
    >>> c = rng.binomial(5, np.clip([u, u * 0.9, u * 0.8], 0, 1))
    >>> ds = from_arrays(c, np.full(c.shape, 5), models=["a", "b", "c"])
    >>> df = posterior_pairs_table(ds)
    >>> len(df), bool((df["dbar_low"] < df["dbar_high"]).all())
    (3, True)
    """
    reject_old("posterior_pairs_table", old)
    level = check_confidence_level(confidence_level)
    ds = complete(ds, on_missing=on_missing)
    bar = Progress("bayesnoise posterior pairs", enabled=progress)
    c, k = beta_binomial_counts(ds)
    if c.shape[0] < 2:
        source, name = attr(ds, "source"), ds["model"].values[0]
        raise DataError(f"{source}: pairs need at least two models; it has one: {name}")
    names = ds["model"].values
    bar.step("fitting (mu, kappa)")
    fit = fit_empirical_bayes(c, k, kappa=kappa, names=names)
    seed_post, seed_pop = np.random.SeedSequence(seed_of(rng)).spawn(2)
    bar.step("ubar posteriors")
    gen = np.random.default_rng(seed_post)
    post = _ubar_posterior(c, k, fit, level, gen, ubar_prior=ubar_prior, names=names, ds=ds)
    df = _pairs_from_posteriors(c, k, names, fit, post, level, seed_pop, bar)
    bar.close()
    return df


def _pairs_from_posteriors(c, k, names, fit, post, confidence_level, seed_pop, bar=None):
    """The pair table of :func:`posterior_pairs_table` from the models' fit and ubar posterior
    (:func:`_ubar_posterior`'s dict) and the seed of the population step.

    The coverage check passes the fit and posteriors of its per-model step here instead of
    refitting the same counts (the fit and the nonparametric prior are deterministic per
    model; only the Monte Carlo draws of ubar come from another stream)."""
    level = confidence_level
    if bar is None:
        bar = Progress("bayesnoise posterior pairs", enabled=False)
    cum = post["cumulants"]
    bar.step("pairs on these questions")
    pairs = all_pairs_difference(
        cum[0], cum[1], post["draws"], cumulants=cum[2:], confidence_level=level
    )
    bar.step("pairs in the population")
    pop = population_difference(
        c / k, confidence_level=level, n_resamples=4000, rng=np.random.default_rng(seed_pop)
    )
    here, method = _k1_here(pairs, pop, np.asarray(post["prior"]) == BINOMIAL)
    matrices = {
        "dbar": here["mean"],
        "dbar_low": here["low"],
        "dbar_high": here["high"],
        "prob_a_better": here["prob_a_better"],
        "dbar_method": method,
        "mu_difference": pop["mean"],
        "mu_difference_low": pop["low"],
        "mu_difference_high": pop["high"],
        "prob_a_better_population": pop["prob_a_better"],
    }
    df = pair_table(names, matrices)
    df.attrs.update(
        questions=int(c.shape[1]),
        kappa_status=list(fit.kappa_status),
        notes=list(fit.notes),
        draws=_DRAWS,
        confidence_level=level,
        ubar_prior=dict(zip(names, post["prior"], strict=True)),
    )
    return df


def posterior_pairs_given(ds, fit, post, confidence_level, rng):
    """:func:`posterior_pairs_table` of a complete in-memory dataset whose models' fit and
    ubar posterior are given (the same seed gives the same population columns; ``dbar``
    comes from the given posterior's draws)."""
    c, k = beta_binomial_counts(ds)
    _, seed_pop = np.random.SeedSequence(seed_of(rng)).spawn(2)
    return _pairs_from_posteriors(c, k, ds["model"].values, fit, post, confidence_level, seed_pop)


def posterior_rows(fit, post, rows):
    """The fit (:class:`EmpiricalBayesFit`) and ubar posterior (dict) of the models ``rows``."""
    from .ubar_prior import _fit_rows

    return _fit_rows(fit, rows), {
        key: value[:, rows] if key == "cumulants" else value[rows] for key, value in post.items()
    }
