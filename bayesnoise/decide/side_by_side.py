"""Bayesian and frequentist answers side by side, per model and per pair."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesnoise._common import new_spellings, pair_table, reject_old, triu_pairs
from bayesnoise.data import complete

__all__ = ["compare_models", "compare_pairs"]


@new_spellings
def compare_models(
    ds, *, confidence_level: float = 0.95, rng: int = 0, progress: bool = True, **old
) -> pd.DataFrame:
    """Frequentist and Bayesian intervals for each model's accuracy, side by side.

    Two questions, kept apart by name:

    * *these questions* (``accuracy_here_*``, ``ubar_*``): the expected accuracy on the N questions asked.
      Frequentist: a Wilson interval whose effective size comes from the unbiased prediction
      variance sum_i what_i / K_i / N^2 (exact with ragged K; see
      :func:`bayesnoise.frequentist.here_accuracy_interval`); Bayesian: the posterior of
      ubar = mean_i u_i.
    * *the population of questions* (``accuracy_*``, ``mu_*``): the accuracy on new questions like these.
      Frequentist: a score interval from var_i(p_i) (data + prediction noise;
      :func:`bayesnoise.frequentist.accuracy_interval`);
      Bayesian: the posterior of mu.

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.load`.
    confidence_level : float, default 0.95
    rng : int or numpy.random.Generator, default 0
        Seed of the Monte Carlo parts of the Bayesian intervals.
    progress : bool, default True
        Show the Bayesian fit's progress on standard error when it takes more than a second.

    Returns
    -------
    pandas.DataFrame
        ``model, questions, samples_per_question, accuracy, accuracy_here_low,
        accuracy_here_high, ubar_low, ubar_high, accuracy_low, accuracy_high, mu_low, mu_high,
        kappa, kappa_status``: the same names, and the same numbers, as
        :func:`bayesnoise.frequentist.model_noise` and
        :func:`bayesnoise.conjugate.posterior_table` print. With K = 1 the
        frequentist *these questions* interval is empty (the prediction noise is not
        identifiable) while the Bayesian one integrates over the kappa prior
        (``kappa_status`` says so).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> from bayesnoise.decide import compare_models
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(0.8, 0.8, size=(2, 300))
    >>> ds = from_arrays(rng.binomial(8, u), np.full((2, 300), 8), models=["a", "b"])
    >>> out = compare_models(ds)
    >>> bool((out.ubar_high - out.ubar_low < out.mu_high - out.mu_low).all())
    True
    """
    reject_old("compare_models", old)
    from bayesnoise import conjugate, frequentist

    freq = frequentist.model_noise(ds, confidence_level=confidence_level)
    bayes = conjugate.posterior_table(
        ds, confidence_level=confidence_level, rng=rng, progress=progress
    )
    return _models_frame(freq, bayes)


def _compare_models(ds, confidence_level, rng):
    """:func:`compare_models` of an in-memory dataset, without progress, with the Bayesian fit
    and ubar posterior it used: ``(df, fit, post)`` (the coverage check's per-model step, which
    hands them on to its pair step)."""
    from bayesnoise import frequentist
    from bayesnoise.conjugate.tables import posterior_table_with_fits

    freq = frequentist.model_noise(ds, confidence_level=confidence_level)
    bayes, fit, post = posterior_table_with_fits(ds, confidence_level, None, rng, False, "auto")
    return _models_frame(freq, bayes), fit, post


def _models_frame(freq, bayes):
    """The side-by-side per-model frame from the frequentist and Bayesian tables."""
    bayes = bayes.set_index("model").loc[freq["model"]].reset_index()
    return pd.DataFrame(
        {
            "model": freq["model"],
            "questions": freq["questions"],
            "samples_per_question": freq["samples_per_question"],
            "accuracy": freq["accuracy"],
            "accuracy_here_low": freq["accuracy_here_low"],
            "accuracy_here_high": freq["accuracy_here_high"],
            "ubar_low": bayes["ubar_low"],
            "ubar_high": bayes["ubar_high"],
            "accuracy_low": freq["accuracy_low"],
            "accuracy_high": freq["accuracy_high"],
            "mu_low": bayes["mu_low"],
            "mu_high": bayes["mu_high"],
            "kappa_median": bayes["kappa_median"],
            "kappa_status": bayes["kappa_status"],
        }
    )


@new_spellings
def compare_pairs(
    ds,
    *,
    confidence_level: float = 0.95,
    rng: int = 0,
    on_missing: str = "raise",
    max_difference: float | None = None,
    progress: bool = True,
    **old,
) -> pd.DataFrame:
    """Frequentist and Bayesian answers for every pair (a - b), side by side.

    * *these questions*: the frequentist Newcombe combination of the two models'
      these-questions intervals (their prediction noises are independent given the questions;
      :func:`bayesnoise.frequentist.here_difference_interval`) against the Bayesian interval of
      dbar = mean_i (u_a,i - u_b,i) and P(a > b);
    * *the population of questions*: the frequentist paired score interval (Tango's, at the
      effective number of questions; :func:`bayesnoise.frequentist.difference_interval`), with
      the z test and the sign test, against the Bayesian population-level interval.

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.load`.
    confidence_level : float, default 0.95
    rng : int or numpy.random.Generator, default 0
        Seed of the Monte Carlo parts of the Bayesian intervals.
    on_missing : {"raise", "intersect"}
        What to do when models do not cover the same questions.
    max_difference : float, optional
        Keep only pairs with ``|difference| <= max_difference``.
    progress : bool, default True
        Show the slow steps' progress on standard error; False writes nothing there.

    Returns
    -------
    pandas.DataFrame
        ``model_a, model_b, difference, difference_here_low, difference_here_high, dbar_low,
        dbar_high, prob_a_better, dbar_method, difference_low, difference_high, mu_difference_low,
        mu_difference_high, prob_a_better_population, z, p_value, p_value_sign_questions`` (the
        names, and numbers, of :func:`bayesnoise.frequentist.pair_noise` and
        :func:`bayesnoise.conjugate.posterior_pairs_table`): ``prob_a_better`` is P(a > b) on
        these questions, beside their interval (``dbar_method`` says where both come from:
        with a K = 1 model, the narrower of the binomial bound and the population answer);
        ``prob_a_better_population`` is P(a > b) on the population, beside that interval.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> from bayesnoise.decide import compare_pairs
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(0.8, 0.8, size=(1, 300)).repeat(3, axis=0)
    >>> ds = from_arrays(rng.binomial(8, u), np.full((3, 300), 8), models=["a", "b", "c"])
    >>> compare_pairs(ds)[["model_a", "model_b"]].values.tolist()
    [['a', 'b'], ['a', 'c'], ['b', 'c']]
    """
    reject_old("compare_pairs", old)
    from bayesnoise import conjugate

    ds = complete(ds, on_missing=on_missing)
    bayes = conjugate.posterior_pairs_table(
        ds, confidence_level=confidence_level, rng=rng, progress=progress
    )
    return _pairs_frame(ds, bayes, confidence_level, max_difference, progress)


def _compare_pairs_given(ds, fit, post, confidence_level, rng):
    """:func:`compare_pairs` of a complete in-memory dataset whose models' fit and ubar
    posterior are given (:func:`_compare_models` returned them for these counts): the
    coverage check's pair step, which does not refit the models of its per-model step."""
    from bayesnoise.conjugate.tables import posterior_pairs_given

    bayes = posterior_pairs_given(ds, fit, post, confidence_level, rng)
    return _pairs_frame(ds, bayes, confidence_level, None, False)


def _pairs_frame(ds, bayes, confidence_level, max_difference, progress):
    """The side-by-side pair frame: the frequentist pair table of ``ds`` beside ``bayes``."""
    from bayesnoise import frequentist

    mat = frequentist.pair_noise_dataset(ds, progress=progress)
    cols = ["difference", "se_difference", "z", "p_value", "p_value_sign_questions"]
    pairs = pair_table(mat["model"].values, {c: mat[c].values for c in cols})
    bayes = bayes.set_index(["model_a", "model_b"]).loc[
        list(zip(pairs["model_a"], pairs["model_b"], strict=True))
    ]
    ia, ib = triu_pairs(mat.sizes["model"])
    freq = frequentist.pair_intervals(mat, ia, ib, confidence_level=confidence_level)
    out = pd.DataFrame(
        {
            "model_a": pairs["model_a"],
            "model_b": pairs["model_b"],
            "difference": pairs["difference"],
            "difference_here_low": freq["difference_here_low"],
            "difference_here_high": freq["difference_here_high"],
            "dbar_low": bayes["dbar_low"].to_numpy(),
            "dbar_high": bayes["dbar_high"].to_numpy(),
            "prob_a_better": bayes["prob_a_better"].to_numpy(),
            "dbar_method": bayes["dbar_method"].to_numpy(),
            "difference_low": freq["difference_low"],
            "difference_high": freq["difference_high"],
            "mu_difference_low": bayes["mu_difference_low"].to_numpy(),
            "mu_difference_high": bayes["mu_difference_high"].to_numpy(),
            "prob_a_better_population": bayes["prob_a_better_population"].to_numpy(),
            "z": pairs["z"],
            "p_value": pairs["p_value"],
            "p_value_sign_questions": pairs["p_value_sign_questions"],
        }
    )
    if max_difference is not None:
        out = out[np.abs(out["difference"]) <= max_difference].reset_index(drop=True)
    return out
