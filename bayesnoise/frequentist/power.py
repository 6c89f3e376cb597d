"""Power analysis: the smallest detectable gap, and the questions or samples needed to see one.

All functions take the variance components of the *difference* being tested, per question:
``data`` and ``prediction`` (from :func:`pair_noise` for a paired design). For an unpaired design
pass the sums of the two models' own components (:func:`unpaired_components`). With K samples
averaged per question the variance of the mean difference is (data + prediction / K) / N.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import special

from bayesnoise._common import check_alternative, one_line, see_warnings


def _z(alpha: float, power: float, alternative: str) -> float:
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise ValueError("alpha and power must be in (0, 1)")
    tail = alpha / 2 if check_alternative(alternative) == "two-sided" else alpha
    return float(special.ndtri(1 - tail) + special.ndtri(power))


def unpaired_components(data_a, prediction_a, data_b, prediction_b) -> tuple[float, float]:
    """Components of A - B when A and B are scored on independent question sets.

    Without pairing nothing cancels: the data variances add, and so do the prediction
    variances (no covariance term).

    Parameters
    ----------
    data_a, prediction_a, data_b, prediction_b : float or array_like
        Each model's own data and prediction variances, per question (score units squared, e.g.
        the ``data`` and ``prediction`` columns of :func:`model_noise`; not SEs).

    Returns
    -------
    data, prediction : float (numpy.ndarray for array input)
        The per-question variance components of A - B, to pass to the power functions.

    Examples
    --------
    >>> unpaired_components(0.25, 0.5, 0.25, 0.125)
    (0.5, 0.625)
    """
    data = np.asarray(data_a, float) + np.asarray(data_b, float)
    prediction = np.asarray(prediction_a, float) + np.asarray(prediction_b, float)
    return (float(data), float(prediction)) if data.ndim == 0 else (data, prediction)


def minimum_detectable_difference(
    n, *, data, prediction, k=1, alpha=0.05, power=0.8, alternative="two-sided"
):
    """Smallest true difference detected with probability ``power`` at level ``alpha``.

    ``(z_{1-alpha/2} + z_power) * sqrt((data + prediction / k) / n)`` (normal approximation;
    ``z_{1-alpha}`` for a one-sided test).

    Parameters
    ----------
    n : int or array_like
        Number of questions N.
    data : float or array_like
        Data variance of the difference, per question (a variance in score units squared, e.g.
        ``pair_noise(ds)["data"]``; not an SE). Question-to-question spread of the true gap.
    prediction : float or array_like
        Prediction variance of the difference, per question and per sample (e.g.
        ``pair_noise(ds)["prediction"]``; not an SE): the spread of one sample around its
        question's expected score, summed over the two models.
    k : int or array_like, default 1
        Samples averaged per question.
    alpha : float, default 0.05
        Significance level of the test, in (0, 1).
    power : float, default 0.8
        Probability of detecting the difference, in (0, 1).
    alternative : {"two-sided", "greater", "less"}
        The planned test's side (scipy's spelling); ``"greater"`` and ``"less"`` plan alike,
        for ``|difference|`` (``"one-sided"`` is retired: an error naming them).

    Returns
    -------
    numpy.ndarray or float
        The difference in accuracy units (a fraction, 0.0251 = 2.51 points).

    Examples
    --------
    >>> round(float(minimum_detectable_difference(500, data=0.02, prediction=0.1, k=5)), 4)
    0.0251
    """
    var = np.asarray(data, float) + np.asarray(prediction, float) / np.asarray(k, float)
    return _z(alpha, power, alternative) * np.sqrt(var / np.asarray(n, float))


def required_questions(
    difference, *, data, prediction, k=1, alpha=0.05, power=0.8, alternative="two-sided"
):
    """Number of questions N needed to detect ``difference`` (rounded up).

    N = (data + prediction / k) ((z_{1-alpha/2} + z_power) / difference)^2.

    Parameters
    ----------
    difference : float or array_like
        True difference in accuracy to detect, as a fraction (0.03 = 3 points).
    data : float or array_like
        Data variance of the difference, per question (a variance in score units squared, e.g.
        ``pair_noise(ds)["data"]``; not an SE). Question-to-question spread of the true gap.
    prediction : float or array_like
        Prediction variance of the difference, per question and per sample (e.g.
        ``pair_noise(ds)["prediction"]``; not an SE): the spread of one sample around its
        question's expected score, summed over the two models.
    k : int or array_like, default 1
        Samples averaged per question.
    alpha : float, default 0.05
        Significance level of the test, in (0, 1).
    power : float, default 0.8
        Probability of detecting the difference, in (0, 1).
    alternative : {"two-sided", "greater", "less"}
        The planned test's side (scipy's spelling); ``"greater"`` and ``"less"`` plan alike,
        for ``|difference|`` (``"one-sided"`` is retired: an error naming them).

    Returns
    -------
    numpy.ndarray or float
        N, rounded up.

    Examples
    --------
    >>> int(required_questions(0.03, data=0.02, prediction=0.1, k=5))
    349
    """
    var = np.asarray(data, float) + np.asarray(prediction, float) / np.asarray(k, float)
    return np.ceil(var * (_z(alpha, power, alternative) / np.asarray(difference, float)) ** 2)


def required_samples(
    difference, *, n, data, prediction, alpha=0.05, power=0.8, alternative="two-sided"
):
    """Samples per question K needed to detect ``difference`` with N questions (rounded up).

    K = prediction / (N (difference / (z_{1-alpha/2} + z_power))^2 - data), at least 1.
    ``inf`` when the data variance alone is too large: more samples cannot remove data noise,
    only more questions can.

    Parameters
    ----------
    difference : float or array_like
        True difference in accuracy to detect, as a fraction.
    n : int or array_like
        Number of questions N.
    data : float or array_like
        Data variance of the difference, per question (a variance in score units squared, e.g.
        ``pair_noise(ds)["data"]``; not an SE). Question-to-question spread of the true gap.
    prediction : float or array_like
        Prediction variance of the difference, per question and per sample (e.g.
        ``pair_noise(ds)["prediction"]``; not an SE): the spread of one sample around its
        question's expected score, summed over the two models.
    alpha : float, default 0.05
        Significance level of the test, in (0, 1).
    power : float, default 0.8
        Probability of detecting the difference, in (0, 1).
    alternative : {"two-sided", "greater", "less"}
        The planned test's side (scipy's spelling); ``"greater"`` and ``"less"`` plan alike,
        for ``|difference|`` (``"one-sided"`` is retired: an error naming them).

    Returns
    -------
    numpy.ndarray or float
        K, rounded up (``inf`` if unreachable).

    Examples
    --------
    >>> int(required_samples(0.03, n=500, data=0.02, prediction=0.1))
    3
    >>> float(required_samples(0.01, n=500, data=0.02, prediction=0.1))
    inf
    """
    budget = (
        np.asarray(n, float) * (np.asarray(difference, float) / _z(alpha, power, alternative)) ** 2
    )
    room = budget - np.asarray(data, float)
    with np.errstate(divide="ignore"):
        k = np.where(
            room > 0, np.ceil(np.asarray(prediction, float) / np.where(room > 0, room, 1)), np.inf
        )
    return np.maximum(k, 1.0)


def meta_z(z, *, n=None, weights: str = "equal") -> float:
    """Combine z-scores from several evals: sum(w_i z_i) / sqrt(sum(w_i^2)).

    Parameters
    ----------
    z : array_like
        One z-score per eval (same sign convention).
    n : array_like, optional
        Questions per eval; needed for ``weights="sqrt_n"``.
    weights : {"equal", "sqrt_n"} or array_like
        1 for each eval (each eval counts the same), sqrt(N_i) (each question counts the same),
        or explicit weights (one per eval, unitless).

    Returns
    -------
    float
        The combined z, standard normal when the evals are independent and every z is.

    Examples
    --------
    >>> round(meta_z([2.0, 1.0, 0.5]), 4)
    2.0207
    """
    z = np.asarray(z, dtype=float)
    if isinstance(weights, str):
        if weights == "equal":
            w = np.ones_like(z)
        elif weights == "sqrt_n":
            if n is None:
                raise ValueError("weights='sqrt_n' needs n (questions per eval)")
            w = np.sqrt(np.asarray(n, dtype=float))
        else:
            raise ValueError("weights must be 'equal', 'sqrt_n' or an array")
    else:
        w = np.asarray(weights, dtype=float)
    if w.shape != z.shape:
        raise ValueError(f"{z.size} z-scores but {w.size} weights")
    return float(np.sum(w * z) / np.sqrt(np.sum(w**2)))


POWER_COLUMNS = [
    "model_a",
    "model_b",
    "difference",
    "planned_questions",
    "planned_samples_per_question",
    "data",
    "prediction",
    "paired_min_difference",
    "unpaired_min_difference",
]
NEEDED_COLUMNS = [
    "paired_questions_needed",
    "paired_samples_needed",
    "unpaired_questions_needed",
    "unpaired_samples_needed",
]


def power_table(ds, *, difference=None, n=None, k=None, alpha=0.05, power=0.8, on_missing="raise"):
    """Power of every pair of a results file, paired and unpaired, from its measured noise.

    The paired design uses each pair's measured per-question variance components (``data``,
    ``prediction`` of :func:`pair_noise`); the unpaired design (each model on its own
    questions) the sums of the two models' own components (:func:`unpaired_components`).

    *Negative data variances* (the prediction noise explains all the spread of the scores) are
    taken as 0, with one warning naming the pairs (and models): their numbers assume data 0.

    *Planned K.* With ``k``, every question gets ``k`` samples from both models: variance per
    question ``data + prediction / k``. Without ``k`` the plan keeps the file's design, each
    question with the samples each model gave it (ragged or not), and uses the exact variance
    of the K-averaged differences as observed, var_i(d_i) = ``se_difference**2 N`` (plus what the
    clip at 0 added). Unlike a harmonic mean of K this is exact for any K per question and per
    model (also when K follows the difficulty, or differs between the models) and needs no
    split, so it is defined when some K_i = 1. ``samples_per_question`` then shows the
    constant K with the same variance, ``prediction / (var_i(d_i) - data)`` (the file's K
    when it is the same everywhere; the smaller of the models' mean K where the split is not
    identifiable). The unpaired design does the same per model (var_i(p_i) with its own K).
    ``tests/test_power_edge.py`` checks the questions needed against a simulation.

    With K = 1 on some question the split is not identifiable: ``data``, ``prediction`` and
    the samples needed are NaN, and a planned ``k`` other than 1 gives NaN (at ``k = 1`` the
    total stands for data + prediction).

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.load`, at least two models.
    difference : float, optional
        True difference to detect, as a fraction (0.02 = 2 points); adds the ``*_needed``
        columns: questions N needed at the planned K, and samples per question K (the same for
        every question and both models) needed at N = ``n``.
    n : int, optional
        Number of questions of the planned eval (default: the file's).
    k : int, optional
        Samples per question of the planned eval (default: the file's design, see above).
    alpha, power : float
        Two-sided level and power, in (0, 1).
    on_missing : {"raise", "intersect"}

    Returns
    -------
    pandas.DataFrame
        ``model_a, model_b, difference`` (observed), ``questions``, ``samples_per_question``
        (the planned N and K), ``data`` (clipped at 0), ``prediction`` (variances per question,
        score units squared; not SEs), ``paired_min_difference``, ``unpaired_min_difference``
        (smallest difference detected with probability ``power``, as a fraction) and, with
        ``difference``, ``paired_questions_needed``, ``paired_samples_needed``,
        ``unpaired_questions_needed``, ``unpaired_samples_needed`` (``inf``: more samples
        cannot remove the data noise).

    Examples
    --------
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(1, 1, size=(1, 500)).repeat(2, axis=0)
    >>> ds = from_arrays(rng.binomial(4, u), np.full((2, 500), 4), models=["a", "b"])
    >>> row = power_table(ds, difference=0.03).iloc[0]
    >>> bool(row.paired_min_difference < row.unpaired_min_difference)
    True
    """
    import pandas as pd

    from bayesnoise.frequentist.noise import model_noise, pair_noise

    pairs = pair_noise(ds, on_missing=on_missing, adjust="none")
    with warnings.catch_warnings():  # the K = 1 split note: pair_noise just gave it
        warnings.filterwarnings("ignore", message="data/prediction split not identifiable")
        single = model_noise(ds).set_index("model")
    n_file = float(pairs.attrs["questions"])
    n_plan = np.full(len(pairs), n_file if n is None else float(n))
    ia, ib = single.index.get_indexer(pairs["model_a"]), single.index.get_indexer(pairs["model_b"])
    k_file = np.minimum(*(single["samples_per_question"].to_numpy()[i] for i in (ia, ib)))
    obs = pairs["se_difference"].to_numpy(float) ** 2 * n_file  # var_i(d_i), each with its own K
    var, data, pred, k_eff = _planned(*pairs[["data", "prediction", "total"]].T.values, obs, k)
    obs = single["se_mean"].to_numpy(float) ** 2 * single["questions"].to_numpy(float)
    m_var, m_data, m_pred, _ = _planned(*single[["data", "prediction", "total"]].T.values, obs, k)
    names = pairs["model_a"] + " - " + pairs["model_b"]
    _warn_clipped(names, pairs["data"], single.index, single["data"])
    un_var = m_var[ia] + m_var[ib]
    un_data, un_pred = unpaired_components(m_data[ia], m_pred[ia], m_data[ib], m_pred[ib])
    k_plan = np.where(np.isnan(k_eff), k_file, k_eff) if k is None else np.full(len(pairs), k)
    out = pd.DataFrame(
        {
            "model_a": pairs["model_a"],
            "model_b": pairs["model_b"],
            "difference": pairs["difference"],
            "planned_questions": n_plan,
            "planned_samples_per_question": k_plan.astype(float),
            "data": data,
            "prediction": pred,
        }
    )
    kw = {"alpha": alpha, "power": power}
    designs = {"paired": (var, data, pred), "unpaired": (un_var, un_data, un_pred)}
    for name, (v, *_) in designs.items():  # v already holds the prediction noise at the plan's K
        out[f"{name}_min_difference"] = minimum_detectable_difference(
            n_plan, data=v, prediction=0.0, **kw
        )
    if difference is not None:
        for name, (v, dat, prd) in designs.items():
            out[f"{name}_questions_needed"] = required_questions(
                difference, data=v, prediction=0.0, **kw
            )
            needed = required_samples(difference, n=n_plan, data=dat, prediction=prd, **kw)
            out[f"{name}_samples_needed"] = np.where(np.isnan(dat + prd), np.nan, needed)
    return out


def _planned(data, prediction, total, observed, k):
    """Per-question variance of the mean at the plan's K, with the clipped components.

    Returns ``(var, data, prediction, k_eff)``, ``data`` clipped at 0. ``k=None`` (the file's
    design): ``var`` = ``observed`` (var_i of the K-averaged scores) + what the clip added;
    ``k_eff`` the constant K with that variance. Else ``data + prediction / k``, or the total
    at k = 1 where the split is unknown.
    """
    raw, pred = np.asarray(data, float), np.asarray(prediction, float)
    total, observed = np.asarray(total, float), np.asarray(observed, float)
    unknown = np.isnan(raw) | np.isnan(pred)
    clipped = np.maximum(raw, 0.0)
    k_eff = np.full(raw.shape, np.nan)
    if k is None:
        var = np.where(unknown, observed, observed + (clipped - raw))
        at_file_k = observed - raw  # the prediction noise left in the K-averaged scores
        with np.errstate(invalid="ignore", divide="ignore"):
            k_eff = np.where(~unknown & (at_file_k > 0), pred / at_file_k, np.nan)
        whole = np.round(k_eff)  # the file's K up to rounding when K is the same everywhere
        k_eff = np.where(np.abs(k_eff - whole) <= 1e-9 * whole, whole, k_eff)
    else:
        var = np.where(unknown, np.where(k == 1, total, np.nan), clipped + pred / k)
    return var, clipped, pred, k_eff


def _warn_clipped(pair_names, pair_data, model_names, model_data) -> None:
    """One warning naming the pairs (and models) whose data variance was clipped at 0."""
    bad = [
        str(x)
        for names, values in ((pair_names, pair_data), (model_names, model_data))
        for x, v in zip(names, np.asarray(values, float), strict=True)
        if v < 0
    ]
    if bad:  # one line; the long story is in the docs page it names
        text = (
            "power: data variance is negative for {who}: prediction noise explains all the "
            f"spread; taken as 0 (power assumes data variance 0); "
            f"{see_warnings('data-variance-zero')}"
        )
        warnings.warn(one_line(text, bad, unit="row(s)"), UserWarning, stacklevel=3)
