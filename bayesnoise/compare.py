"""Bayesian and frequentist answers side by side, per model and per pair."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesnoise._common import pair_table, z_from_level
from bayesnoise.data import complete

__all__ = ["compare_models", "compare_pairs"]


def compare_models(ds, *, confidence_level: float = 0.95, random_seed: int = 0) -> pd.DataFrame:
    """Frequentist and Bayesian intervals for each model's accuracy, side by side.

    Two questions, kept apart by name:

    * *these questions* (``here_*``): the expected accuracy on the N questions asked. Frequentist:
      accuracy +- z sqrt(prediction / (K N)) (prediction noise only); Bayesian: the posterior of
      ubar = mean_i u_i.
    * *the population of questions* (``population_*``): the accuracy on new questions like these.
      Frequentist: accuracy +- z se_mean (data + prediction noise); Bayesian: the posterior of mu.

    Returns
    -------
    pandas.DataFrame
        ``model, questions, samples_per_question, accuracy, here_freq_low, here_freq_high,
        here_bayes_low, here_bayes_high, population_freq_low, population_freq_high,
        population_bayes_low, population_bayes_high, kappa``. With K = 1 the frequentist
        *these questions* interval is empty (the prediction noise is not identifiable) while
        the Bayesian one rests on the fitted or assumed kappa.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> from bayesnoise.compare import compare_models
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(0.8, 0.8, size=(2, 300))
    >>> ds = from_arrays(rng.binomial(8, u), np.full((2, 300), 8), models=["a", "b"])
    >>> out = compare_models(ds)
    >>> bool((out.here_bayes_high - out.here_bayes_low < out.population_bayes_high - out.population_bayes_low).all())
    True
    """
    from bayesnoise import conjugate, frequentist

    z = z_from_level(confidence_level)
    freq = frequentist.model_noise(ds)
    bayes = conjugate.posterior_table(
        ds, confidence_level=confidence_level, random_seed=random_seed
    )
    bayes = bayes.set_index("model").loc[freq["model"]].reset_index()
    here = z * np.sqrt(freq["prediction"] / freq["samples_per_question"] / freq["questions"])
    pop = z * freq["se_mean"]
    return pd.DataFrame(
        {
            "model": freq["model"],
            "questions": freq["questions"],
            "samples_per_question": freq["samples_per_question"],
            "accuracy": freq["accuracy"],
            "here_freq_low": freq["accuracy"] - here,
            "here_freq_high": freq["accuracy"] + here,
            "here_bayes_low": bayes["ubar_low"],
            "here_bayes_high": bayes["ubar_high"],
            "population_freq_low": freq["accuracy"] - pop,
            "population_freq_high": freq["accuracy"] + pop,
            "population_bayes_low": bayes["mu_low"],
            "population_bayes_high": bayes["mu_high"],
            "kappa": bayes["kappa"],
        }
    )


def compare_pairs(ds, *, confidence_level: float = 0.95, random_seed: int = 0,
                  on_missing: str = "raise", max_difference: float | None = None) -> pd.DataFrame:  # fmt: skip
    """Frequentist and Bayesian answers for every pair (a - b), side by side.

    * *these questions*: frequentist difference +- z sqrt((pred_a / K_a + pred_b / K_b) / N)
      against the Bayesian interval of dbar = mean_i (u_a,i - u_b,i) and P(a > b);
    * *the population of questions*: frequentist difference +- z se_mean (paired data plus
      prediction noise), with the z test and the sign test, against the Bayesian population-level
      interval.

    Returns
    -------
    pandas.DataFrame
        ``model_a, model_b, difference, here_freq_low, here_freq_high, here_bayes_low,
        here_bayes_high, p_a_better, population_freq_low, population_freq_high,
        population_bayes_low, population_bayes_high, z, p_normal, p_sign_test``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> from bayesnoise.compare import compare_pairs
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(0.8, 0.8, size=(1, 300)).repeat(3, axis=0)
    >>> ds = from_arrays(rng.binomial(8, u), np.full((3, 300), 8), models=["a", "b", "c"])
    >>> compare_pairs(ds)[["model_a", "model_b"]].values.tolist()
    [['a', 'b'], ['a', 'c'], ['b', 'c']]
    """
    from bayesnoise import conjugate, frequentist

    ds = complete(ds, on_missing=on_missing)
    z = z_from_level(confidence_level)
    single = frequentist.model_noise(ds).set_index("model")
    mat = frequentist.pair_noise_dataset(ds)
    cols = ["difference", "se_mean", "z", "p_normal", "p_sign_test"]
    pairs = pair_table(mat["model"].values, {c: mat[c].values for c in cols})
    bayes = conjugate.posterior_pairs_table(
        ds, confidence_level=confidence_level, random_seed=random_seed
    )
    bayes = bayes.set_index(["model_a", "model_b"]).loc[
        list(zip(pairs["model_a"], pairs["model_b"], strict=True))
    ]
    pred_k = single["prediction"] / single["samples_per_question"]
    n = mat.attrs["questions"]
    here = z * np.sqrt(
        (pred_k.loc[pairs["model_a"]].to_numpy() + pred_k.loc[pairs["model_b"]].to_numpy()) / n
    )
    pop = z * pairs["se_mean"]
    out = pd.DataFrame(
        {
            "model_a": pairs["model_a"],
            "model_b": pairs["model_b"],
            "difference": pairs["difference"],
            "here_freq_low": pairs["difference"] - here,
            "here_freq_high": pairs["difference"] + here,
            "here_bayes_low": bayes["difference_low"].to_numpy(),
            "here_bayes_high": bayes["difference_high"].to_numpy(),
            "p_a_better": bayes["p_a_better"].to_numpy(),
            "population_freq_low": pairs["difference"] - pop,
            "population_freq_high": pairs["difference"] + pop,
            "population_bayes_low": bayes["population_low"].to_numpy(),
            "population_bayes_high": bayes["population_high"].to_numpy(),
            "z": pairs["z"],
            "p_normal": pairs["p_normal"],
            "p_sign_test": pairs["p_sign_test"],
        }
    )
    if max_difference is not None:
        out = out[np.abs(out["difference"]) <= max_difference].reset_index(drop=True)
    return out
